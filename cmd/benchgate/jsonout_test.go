package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/internal/fixtures"
)

// decodeStrict decodes one JSON object, refusing fields the documented
// shape (v) lacks and anything after it.
func decodeStrict(t *testing.T, out string, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(out)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not the documented JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value:\n%s", out)
	}
}

// TestGenerateJSON: generate --format json prints one object with the
// run's counts and the next step; a second run resumes, all skipped.
func TestGenerateJSON(t *testing.T) {
	root := copyBoard(t)
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Reply: func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Content: "Because of the porosity.\nANSWER: B"}
	}})
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	out := filepath.Join(t.TempDir(), "scores.json")
	args := []string{"generate", "--root", root, "--benchmark", "reservoir-mcq", "--model", "org/cand", "--output", out,
		"--base-url", srv.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "", "--format", "json"}
	type result struct {
		Output, Benchmark, Model                                         string
		Questions, Skipped, Answered, Failed, Cut, Unanswered, Exhausted int
		NoAnswer                                                         int `json:"no_answer"`
		Fallback, Unpriced                                               int
		SpendUSD                                                         float64 `json:"spend_usd"`
		Causes                                                           []struct {
			Text  string
			Calls int
			Again bool
		}
		Next, Error string
	}
	for run, wantAnswered := range []int{-1, 0} {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("run %d: exit %d\n%s%s", run+1, code, stdout, stderr)
		}
		var g result
		decodeStrict(t, stdout, &g)
		if wantAnswered < 0 {
			wantAnswered = g.Questions
		}
		if g.Output != out || g.Benchmark != "reservoir-mcq" || g.Model != "org/cand" || g.Questions == 0 || g.Answered != wantAnswered ||
			g.Skipped != g.Questions-wantAnswered || g.Failed != 0 || g.Error != "" || g.Causes == nil ||
			g.Next != "next: benchgate submit --benchmark reservoir-mcq --scores "+out+" --slug ... (see benchgate submit -h)" {
			t.Errorf("run %d: %+v", run+1, g)
		}
	}
	if code, _, stderr := runCLI(t, "generate", "--root", root, "--benchmark", "reservoir-mcq", "--model", "m", "--format", "yaml"); code != exitUsage || stderr != "benchgate generate: unknown format \"yaml\" (want text, json)\n" {
		t.Errorf("--format yaml: exit %d\n%s", code, stderr)
	}
}

// TestSubmitJSON: submit --format json prints one object: the folder,
// whether it passed, verify's report of it and how to open the pull
// request; a failing one is removed, and says so.
func TestSubmitJSON(t *testing.T) {
	root := copyBoard(t)
	good := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/scores.json")
	bad := filepath.Join(t.TempDir(), "scores.json")
	writeFile(t, bad, "[\n{\"id\": 1}\n")
	submit := func(slug, scores string) []string {
		return []string{"submit", "--root", root, "--benchmark", "basin-analysis", "--slug", slug, "--scores", scores, "--model-name", "Q",
			"--model", "qwen/qwen3-32b", "--submitter", "lab", "--contact", "https://example.org", "--format", "json"}
	}
	type result struct {
		Folder, Path                        string
		Passed, Removed, Restored, Replaced bool
		Verify                              struct {
			Submissions []map[string]any
			Passed      int
			Failed      int
			Review      int
		}
		PullRequest *struct{ Branch, Title, Author, Steps string } `json:"pull_request"`
	}
	code, stdout, stderr := runCLI(t, submit("json-run", good)...)
	var r result
	decodeStrict(t, stdout, &r)
	if code != exitOK || stderr != "" || r.Folder != "submissions/model-benchmark/json-run" || r.Path != filepath.Join(root, r.Folder) || !r.Passed || r.Removed || r.Replaced ||
		r.Verify.Passed != 1 || len(r.Verify.Submissions) != 1 || r.PullRequest == nil ||
		*r.PullRequest != (struct{ Branch, Title, Author, Steps string }{"submit/json-run", "Add Q on basin-analysis", "lab", r.PullRequest.Steps}) ||
		!bytes.Contains([]byte(r.PullRequest.Steps), []byte("gh repo fork --remote --remote-name fork")) {
		t.Errorf("exit %d, %+v\n%s", code, r, stderr)
	}

	code, stdout, _ = runCLI(t, submit("json-bad", bad)...)
	r = result{}
	decodeStrict(t, stdout, &r)
	if code != exitFail || r.Passed || !r.Removed || r.Verify.Failed != 1 || r.PullRequest != nil {
		t.Errorf("a failing submit: exit %d, %+v", code, r)
	}
}

// TestImportJSON: import --format json prints one object: a row per model
// with the counts the text summary shows, verify's report, and how many
// fail only on placeholders; a dry run names no written path.
func TestImportJSON(t *testing.T) {
	type result struct {
		Benchmark, Kind, Hint string
		DryRun                bool `json:"dry_run"`
		ToFill                int  `json:"to_fill"`
		Submissions           []struct {
			Model, Folder, Path, Status     string
			Rows                            int
			Missing, Disputes               []string
			Correct, Truncated, Undecidable *int
			PublishedCorrect                *int `json:"published_correct"`
			Scored                          *int
			Mean                            *float64
		}
		Verify struct {
			Submissions            []map[string]any
			Passed, Failed, Review int
		}
	}
	for _, dry := range []bool{true, false} {
		root, csvPath := formationEvalBoard(t, "formationeval-v0.1")
		args := []string{"import", "formationeval", "--root", root, "--csv", csvPath, "--benchmark", "formationeval", "--date", "2025-12-01", "--format", "json"}
		if dry {
			args = append(args, "--dry-run")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("dry run %t: exit %d\n%s%s", dry, code, stdout, stderr)
		}
		var r result
		decodeStrict(t, stdout, &r)
		n := len(r.Submissions)
		// No --submitter nor --contact: every submission fails only on
		// the placeholders written for them.
		if r.Benchmark != "formationeval" || r.Kind != "mcq" || r.DryRun != dry || n == 0 || r.ToFill != n || r.Verify.Failed != n || len(r.Verify.Submissions) != n {
			t.Fatalf("dry run %t: %+v", dry, r)
		}
		for _, s := range r.Submissions {
			want, ok := fixtures.FormationEvalModels[s.Model]
			if !ok || s.Folder != "submissions/model-benchmark/"+s.Model+"-formationeval" || (s.Path == "") != dry || s.Status != "fail" || s.Rows != 505 ||
				s.Correct == nil || *s.Correct != want || s.PublishedCorrect == nil || *s.PublishedCorrect != want || len(s.Disputes) != 0 || s.Disputes == nil ||
				s.Truncated == nil || s.Undecidable == nil || s.Scored != nil || s.Mean != nil || len(s.Missing) == 0 {
				t.Errorf("dry run %t: %+v; correct %v published %v (want %d, known %t)", dry, s, deref(s.Correct), deref(s.PublishedCorrect), want, ok)
			}
			if !dry && s.Path != filepath.Join(root, s.Folder) {
				t.Errorf("path %s, want %s", s.Path, filepath.Join(root, s.Folder))
			}
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
