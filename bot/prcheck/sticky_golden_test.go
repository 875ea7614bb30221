package prcheck

import (
	"bytes"
	"context"
	"encoding/json"
	goldenfile "github.com/benchgate/benchgate/internal/golden"
	"os"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/verify"
)

// golden compares got with testdata/golden/name, which -update rewrites.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, []byte(got))
}

// reviewScores is a rubric submission's scores.json with one answer left
// unscored: one of five, more than a submission may leave unscored without
// a maintainer's review.
func reviewScores(t *testing.T, scores []byte) []byte {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(scores, &rows); err != nil {
		t.Fatal(err)
	}
	rows[1]["score_b"] = nil
	out, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestStickyGolden: the sticky comment of each conclusion, and with a
// spot-check's section below it, as the pull request shows them.
func TestStickyGolden(t *testing.T) {
	base := os.DirFS(fixtures.Root(t))
	const mcq, rubric = "submissions/model-benchmark/qwen3-32b-reservoir", "submissions/model-benchmark/qwen3-32b-basin"
	meta, scores := readRepo(t, mcq+"/meta.json"), readRepo(t, mcq+"/scores.json")
	rubricMeta, rubricScores := readRepo(t, rubric+"/meta.json"), readRepo(t, rubric+"/scores.json")
	badScores := []byte(strings.Replace(string(scores), `"correct": true`, `"correct": false`, 1))
	add := func(dir string, m, s []byte) []ChangedFile {
		return []ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: m}, {Path: dir + "/scores.json", Status: "added", Content: s}}
	}
	// The author is the submitter the example meta.json files name.
	pr := PRInfo{Repo: "geo/board", Number: 5, HeadSHA: "0123456789abcdef0123", Author: "example-lab"}
	check := func(t *testing.T, files []ChangedFile, want Conclusion) CheckOutcome {
		t.Helper()
		out := CheckPR(base, pr, files, checkOpts)
		if out.Conclusion != want {
			t.Fatalf("conclusion %s, want %s:\n%s", out.Conclusion, want, out.Summary)
		}
		return out
	}
	passing := func(t *testing.T) CheckOutcome {
		return check(t, add("submissions/model-benchmark/new-run", meta, scores), Success)
	}

	t.Run("pass", func(t *testing.T) {
		golden(t, "sticky-pass.md", passing(t).Comment)
	})
	t.Run("fail", func(t *testing.T) {
		out := check(t, add("submissions/model-benchmark/new-run", meta, badScores), Failure)
		if len(out.Annotations) == 0 {
			t.Error("a failing submission without annotations")
		}
		golden(t, "sticky-fail.md", out.Comment)
	})
	t.Run("review", func(t *testing.T) {
		out := check(t, add("submissions/model-benchmark/new-basin-run", rubricMeta, reviewScores(t, rubricScores)), ActionRequired)
		golden(t, "sticky-review.md", out.Comment)
	})
	t.Run("not a submission", func(t *testing.T) {
		out := check(t, []ChangedFile{{Path: "verify/verify.go", Status: "modified", Content: []byte("package verify")}}, Neutral)
		golden(t, "sticky-neutral.md", out.Comment)
	})
	// A pull request touching a submission and anything else fails,
	// naming what to move out; a change to someone else's submission
	// fails outright, naming whose it is and the files.
	t.Run("a submission and other files", func(t *testing.T) {
		files := append(add("submissions/model-benchmark/new-run", meta, scores),
			ChangedFile{Path: "README.md", Status: "modified", Content: []byte("typo fixed")},
			ChangedFile{Path: "rubrics/rubrics.json", Status: "modified", Content: []byte("[]")})
		golden(t, "sticky-mixed.md", check(t, files, Failure).Comment)
	})
	t.Run("someone else's submission and other files", func(t *testing.T) {
		other := pr
		other.Author = "newcomer"
		files := []ChangedFile{
			{Path: mcq + "/scores.json", Status: "modified", Content: badScores},
			{Path: mcq + "/README.md", Status: "removed"},
			{Path: "README.md", Status: "modified", Content: []byte("typo fixed")},
		}
		out := CheckPR(base, other, files, checkOpts)
		if out.Conclusion != Failure {
			t.Fatalf("conclusion %s:\n%s", out.Conclusion, out.Summary)
		}
		golden(t, "sticky-others.md", out.Comment)
	})
	t.Run("with a spot-check", func(t *testing.T) {
		// The spot-check of a multiple-choice submission re-reads its
		// answers: no judge is called.
		const dir = "submissions/model-benchmark/new-run"
		out := passing(t)
		v, err := verify.New(Overlay(base, dir, add(dir, meta, scores)), checkOpts)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rerun.Check(context.Background(), v, dir, rerun.Config{Secret: []byte("leaderboard secret")})
		if err != nil || rep.Verdict != rerun.VerdictConsistent {
			t.Fatalf("spot-check: %s %s %v", rep.Verdict, rep.Reason, err)
		}
		var md bytes.Buffer
		if err := rerun.Render(&md, "markdown", rep); err != nil {
			t.Fatal(err)
		}
		golden(t, "sticky-spot-check.md", WithSpotCheck(out.Comment, md.String()))
	})
	t.Run("with a refused spot-check", func(t *testing.T) {
		rc := SpotCheckRefused("This pull request has had its 5 spot-checks, the most one pull request may have.")
		golden(t, "sticky-spot-check-refused.md", WithSpotCheck(passing(t).Comment, rc.Summary))
	})
}
