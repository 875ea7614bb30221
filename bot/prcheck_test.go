package bot

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/verify"
)

func readRepo(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(fixtures.Root(t) + "/" + p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var checkOpts = verify.Options{Today: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}

func TestCheckPR(t *testing.T) {
	base := os.DirFS(fixtures.Root(t))
	meta := readRepo(t, "submissions/model-benchmark/qwen3-32b-reservoir/meta.json")
	scores := readRepo(t, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json")
	badScores := []byte(strings.Replace(string(scores), `"correct": true`, `"correct": false`, 1))
	add := func(dir string, m, s []byte) []ChangedFile {
		return []ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: m}, {Path: dir + "/scores.json", Status: "added", Content: s}}
	}
	author := PRInfo{Repo: "geo/board", Number: 5, HeadSHA: "0123456789abcdef0123", Author: "newcomer"}
	maintainer := author
	maintainer.AuthorCanWrite = true
	tests := []struct {
		name       string
		pr         PRInfo
		files      []ChangedFile
		conclusion string
		want       string // in the summary
		annotated  bool
	}{
		{"a valid new submission", author, add("submissions/model-benchmark/new-run", meta, scores), "success", "1 passed", false},
		{"an invalid one", author, add("submissions/model-benchmark/new-run", meta, badScores), "failure", "mcq.correct", true},
		{"two submissions", author, append(add("submissions/model-benchmark/a", meta, scores), add("submissions/model-benchmark/b", meta, scores)...), "failure", "touches 2", false},
		{"a change to the rubrics", author, append(add("submissions/model-benchmark/a", meta, scores), ChangedFile{Path: "rubrics/rubrics.json", Status: "modified", Content: []byte("[]")}), "neutral", "not a submission", false},
		{"a code change", author, []ChangedFile{{Path: "verify/verify.go", Status: "modified", Content: []byte("package verify")}}, "neutral", "verify/verify.go", false},
		{"someone else's submission", author, []ChangedFile{{Path: "submissions/model-benchmark/qwen3-32b-reservoir/scores.json", Status: "modified", Content: scores}}, "failure", "submitted by example-lab", false},
		{"a maintainer may change it", maintainer, []ChangedFile{{Path: "submissions/model-benchmark/qwen3-32b-reservoir/scores.json", Status: "modified", Content: scores}}, "success", "1 passed", false},
		{"its submitter may change it", PRInfo{Repo: "geo/board", HeadSHA: "x", Author: "Example-Lab"}, []ChangedFile{{Path: "submissions/model-benchmark/qwen3-32b-reservoir/scores.json", Status: "modified", Content: scores}}, "success", "1 passed", false},
		{"removing files", author, []ChangedFile{{Path: "submissions/model-benchmark/new-run/README.md", Status: "removed"}}, "failure", "only a maintainer may remove", false},
		{"the template is not a submission", author, []ChangedFile{{Path: "submissions/_template/README.md", Status: "modified", Content: []byte("x")}}, "neutral", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := CheckPR(base, tt.pr, tt.files, checkOpts)
			if out.Conclusion != tt.conclusion || !strings.Contains(out.Summary, tt.want) {
				t.Errorf("conclusion %s, summary:\n%s\nwant %s containing %q", out.Conclusion, out.Summary, tt.conclusion, tt.want)
			}
			if (len(out.Annotations) > 0) != tt.annotated {
				t.Errorf("annotations: %+v", out.Annotations)
			}
			if !strings.HasPrefix(out.Comment, StickyMarker+"\n") || !strings.Contains(out.Comment, "`0123456789ab`") && tt.pr.HeadSHA != "x" {
				t.Errorf("comment: %q", out.Comment)
			}
		})
	}
	// An annotation points at the offending line of the pull request's file.
	out := CheckPR(base, author, add("submissions/model-benchmark/new-run", meta, badScores), checkOpts)
	a := out.Annotations[0]
	if a.Path != "submissions/model-benchmark/new-run/scores.json" || a.StartLine < 2 || a.Level != "failure" || !strings.HasPrefix(a.Message, "question rq-") {
		t.Errorf("annotation %+v", a)
	}
}

func TestCaps(t *testing.T) {
	long := strings.Repeat("é", MaxSummaryBytes)
	got := capBytes(long, MaxSummaryBytes, "…cut")
	if len(got) > MaxSummaryBytes || !strings.HasSuffix(got, "…cut") || !strings.HasPrefix(got, "éé") {
		t.Errorf("capBytes: %d bytes", len(got))
	}
	var as []Annotation
	for i := 0; i < 120; i++ {
		as = append(as, Annotation{StartLine: i})
	}
	b := AnnotationBatches(as)
	if len(b) != 3 || len(b[0]) != 50 || len(b[2]) != 20 {
		t.Errorf("batches: %d", len(b))
	}
}
