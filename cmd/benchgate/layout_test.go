package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/verify"
)

// TestLayoutOneRule runs the same paths through both front ends: the App's
// check of a pull request adding the file, and `benchgate verify` of a
// checkout holding it. Both must agree on whether the file makes a
// submission, which folder it is, and whether that folder passes.
func TestLayoutOneRule(t *testing.T) {
	meta, err := os.ReadFile(filepath.Join(repoRoot, "submissions/model-benchmark/qwen3-32b-basin/meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		folder string // the submission the file belongs to; "" for none
	}{
		{"submissions/model-benchmark/new-run/meta.json", "submissions/model-benchmark/new-run"},
		// Once scoped out by the App (a track starting with "_") while the
		// CLI failed it: now both verify it, and it fails (layout.track).
		{"submissions/_x/new-run/meta.json", "submissions/_x/new-run"},
		{"submissions/other-track/new-run/meta.json", "submissions/other-track/new-run"},
		{"submissions/model-benchmark/Bad_Slug/meta.json", "submissions/model-benchmark/Bad_Slug"},
		{"submissions/model-benchmark/a..b/meta.json", "submissions/model-benchmark/a..b"},
		{"submissions/model-benchmark/new-run/nested/meta.json", "submissions/model-benchmark/new-run"},
		{"submissions/model-benchmark/stray.json", "submissions/model-benchmark/stray.json"},
		{"submissions/.hidden-track/new-run/meta.json", "submissions/.hidden-track/new-run"},
		{"submissions/_template/meta.json", ""},
		{"submissions/_template/extra/meta.json", ""},
		{"submissions/model-benchmark/README.md", ""},
		{"submissions/model-benchmark/readme.md", ""},
		{"submissions/model-benchmark/.gitkeep", ""},
		{"submissions/README.md", ""},
		{"submissions/notes.json", ""},
		{"rubrics/notes.json", ""},
		{"docs/notes.json", ""},
	}
	base := copyBoard(t)
	before := cliVerdicts(t, base)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			// The App: a pull request that adds the file on the base tree.
			out := prcheck.CheckPR(os.DirFS(base), prcheck.PRInfo{Repo: "o/r", Number: 1, HeadSHA: "abc", Author: "someone"},
				[]prcheck.ChangedFile{{Path: tt.path, Status: "added", Content: meta}}, verify.Options{})
			appFolder := out.Submission
			if out.Conclusion == prcheck.Neutral {
				appFolder = ""
			}
			// The CLI: a checkout with the file, verified whole.
			root := copyBoard(t)
			file := filepath.Join(root, filepath.FromSlash(tt.path))
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, meta, 0o644); err != nil {
				t.Fatal(err)
			}
			after := cliVerdicts(t, root)
			cliFolder := ""
			for dir := range after {
				if _, ok := before[dir]; !ok {
					cliFolder = dir
				}
			}
			if appFolder != tt.folder || cliFolder != tt.folder {
				t.Fatalf("submission folder: App %q, CLI %q, want %q (App: %s)", appFolder, cliFolder, tt.folder, out.Title)
			}
			if tt.folder == "" {
				return
			}
			appPass := out.Conclusion == prcheck.Success
			cliPass := after[tt.folder] == verify.Pass
			if appPass != cliPass {
				t.Fatalf("verdict: App %s (%s), CLI %s", out.Conclusion, out.Title, after[tt.folder])
			}
		})
	}
}

// cliVerdicts runs `benchgate verify` on a whole repository and returns
// each submission's status.
func cliVerdicts(t *testing.T, root string) map[string]verify.Status {
	t.Helper()
	_, stdout, stderr := runCLI(t, "verify", "--root", root, "--format", "json")
	var rep verify.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("verify output: %v\n%s\n%s", err, stdout, stderr)
	}
	out := map[string]verify.Status{}
	for _, r := range rep.Submissions {
		out[r.Path] = r.Status
	}
	return out
}
