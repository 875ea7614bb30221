package bot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/internal/gitserver"
)

// TestRegenerateRefusesLinks merges symbolic links into the default
// branch, to files outside the checkout (a copy of the leaderboard's own
// files, marked, standing for anything on the App's machine) and inside
// it, and regenerates: nothing is read through a link, and what refuses it
// names the file.
func TestRegenerateRefusesLinks(t *testing.T) {
	root := fixtures.Root(t)
	files := gitserver.ReadFolders(root, "rubrics", "submissions")
	// Outside the checkout, the same files, with a registry whose labels
	// show when it is read.
	const marker = "Read through a link"
	outside := t.TempDir()
	for p, data := range files {
		if p == "rubrics/rubrics.json" {
			data = []byte(strings.ReplaceAll(string(data), `"label": "`, `"label": "`+marker+` `))
		}
		os.MkdirAll(filepath.Join(outside, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(outside, p), data, 0o644)
	}
	// A link climbing out of the checkout, wherever it is: go-git puts an
	// absolute target back inside the checkout, but not a relative one.
	out := func(p string) string {
		return strings.Repeat("../", 64) + strings.TrimPrefix(filepath.ToSlash(filepath.Join(outside, p)), "/")
	}
	tests := []struct {
		name    string
		links   map[string]string
		wantErr string // the regeneration fails naming the link; "" when it publishes
		wantMD  string // in LEADERBOARD.md, when it publishes
	}{
		{name: "the registry, out of the checkout", links: map[string]string{"rubrics/rubrics.json": out("rubrics/rubrics.json")},
			wantErr: "rubrics/rubrics.json is a symbolic link"},
		{name: "the rubrics folder, out of the checkout", links: map[string]string{"rubrics": out("rubrics")},
			wantErr: "rubrics is a symbolic link"},
		{name: "the submissions folder, out of the checkout", links: map[string]string{"submissions": out("submissions")},
			wantErr: "submissions is a symbolic link"},
		{name: "a benchmark, out of the checkout", links: map[string]string{"rubrics/basin-analysis.json": out("rubrics/basin-analysis.json")},
			wantMD: `rubrics/basin-analysis.json is a symbolic link`},
		{name: "a benchmark, inside the checkout", links: map[string]string{"rubrics/basin-analysis.json": "../submissions/model-benchmark/qwen3-32b-basin/scores.json"},
			wantMD: `rubrics/basin-analysis.json is a symbolic link`},
		{name: "a submission's file, inside the checkout", links: map[string]string{"submissions/model-benchmark/qwen3-32b-basin/scores.json": "../llama-3.3-70b-basin/scores.json"},
			wantMD: "scores.json is a symbolic link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := gitserver.New(t, "ghs_test")
			srv.CreateRepo(t, "board", files, "main")
			srv.CommitSymlinks(t, "board", "main", tt.links, "Merge a link")
			w := &Worker{Git: gitAccess{srv, "ghs_test"}, Verify: checkOpts, Log: quietLog(), Author: fixedAuthor("benchgate[bot]", "bot@example.org")}
			_, err := w.Regenerate(context.Background(), Job{Kind: KindRegenerate, Repo: "board"}, "main")
			got := srv.Files(t, "board", "main")
			for p, data := range got {
				if strings.Contains(string(data), marker) {
					t.Errorf("%s holds what was read through the link", p)
				}
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one saying %q", err, tt.wantErr)
				}
				if _, ok := got["leaderboard/LEADERBOARD.md"]; ok {
					t.Error("a leaderboard was published")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if md := string(got["leaderboard/LEADERBOARD.md"]); !strings.Contains(md, tt.wantMD) {
				t.Errorf("LEADERBOARD.md does not say %q:\n%s", tt.wantMD, md)
			}
		})
	}
}
