package benchmark

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchgate/benchgate/internal/fixtures"
)

func render(t *testing.T, format string, r LintReport) string {
	t.Helper()
	var b bytes.Buffer
	if err := RenderLint(&b, format, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestLintNamed(t *testing.T) {
	rubric, _ := json.Marshal(validRubric())
	bad := `{"id": "x", "question": "q", "choices": ["a", "b", "c", "d"], "answer_index": 1, "answer_key": "C"}` + "\n"
	board := fstest.MapFS{
		RegistryFile: {Data: []byte(`[{"key": "r", "file": "rubrics/r.json", "judge_model": "j"},
{"key": "m", "file": "rubrics/m.jsonl", "kind": "mcq", "judge_model": "j"}]`)},
		"rubrics/r.json":  {Data: rubric},
		"rubrics/m.jsonl": {Data: []byte(bad)},
	}
	elsewhere := fstest.MapFS{"bad.jsonl": {Data: []byte(bad)}, "r.json": {Data: rubric}}

	// By key: the rubric's facts, and none of the registry's findings
	// about the other entry.
	rep, err := LintNamed(board, "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := render(t, "text", rep), "OK r (rubrics/r.json): rubric benchmark, 2 questions\n  10 points per question, 4 components, 4 calibration fixtures\n"+
		"  no calibration record (rubrics/r.calibration.json); make one with `benchgate calibrate --benchmark r --record`\n"; got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	// By the path of a file that the registry names: linted as its entry,
	// with the registry's warning about it first.
	rubrics, _ := fs.Sub(board, "rubrics")
	rep, err = LintNamed(board, "../board/rubrics/m.jsonl", &File{FS: rubrics, Name: "m.jsonl", FromRoot: "rubrics/m.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	text := render(t, "text", rep)
	if !rep.Failed() || rep.Key != "m" || len(rep.Warnings) != 1 || rep.Warnings[0].Code != "registry.judge" ||
		!strings.HasPrefix(text, "FAIL m (rubrics/m.jsonl): mcq benchmark, 1 questions\n  answer keys: A 0 (0%), B 1 (100%), C 0 (0%), D 0 (0%)\n") ||
		!strings.Contains(text, "  error: rubrics/m.jsonl:1: question x: answer_key is C but answer_index 1 is choice B") {
		t.Errorf("registered file: %+v\n%s", rep, text)
	}
	// Any other file: on its own, keyed by its name.
	for _, f := range []*File{{FS: elsewhere, Name: "bad.jsonl", FromRoot: "../bad.jsonl"}, {FS: elsewhere, Name: "bad.jsonl"}} {
		rep, err = LintNamed(board, "bad.jsonl", f)
		if err != nil || rep.Key != "bad" || rep.File != "bad.jsonl" || !rep.Failed() || len(rep.Warnings) != 0 {
			t.Errorf("unregistered file %+v: %+v, %v", f, rep, err)
		}
	}
	// Sniffed: a rubric outside any registry.
	if rep, err = LintNamed(fstest.MapFS{}, "r.json", &File{FS: elsewhere, Name: "r.json"}); err != nil || rep.Kind != KindRubric || rep.Failed() {
		t.Errorf("rubric without a registry: %+v, %v", rep, err)
	}

	// Neither a key nor a file.
	_, err = LintNamed(board, "nope", nil)
	var ke *KeyError
	if !errors.As(err, &ke) || err.Error() != `"nope" is neither a benchmark key in rubrics/rubrics.json nor a benchmark file; registry keys: m, r` {
		t.Errorf("neither: %v", err)
	}
	if _, err = LintNamed(fstest.MapFS{}, "nope", nil); err == nil || err.Error() != `"nope" is neither a benchmark key in rubrics/rubrics.json nor a benchmark file` {
		t.Errorf("neither, without a registry: %v", err)
	}
}

func TestRenderLint(t *testing.T) {
	root := fixtures.Root(t)
	rep, err := LintNamed(os.DirFS(root), "reservoir-mcq", nil)
	if err != nil {
		t.Fatal(err)
	}
	text := render(t, "text", rep)
	for _, want := range []string{
		"OK reservoir-mcq (rubrics/reservoir-mcq.jsonl): mcq benchmark, 40 questions\n",
		"  answer keys: A 10 (25%), B 10 (25%), C 10 (25%), D 10 (25%)\n",
		"  correct choice uniquely the longest: 6 of 40 (15.0%; chance about 25%)\n",
		"  sources (",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(render(t, "json", rep)), &got); err != nil {
		t.Fatal(err)
	}
	if got["key"] != "reservoir-mcq" || got["kind"] != "mcq" || got["questions"] != 40.0 || got["mcq"].(map[string]any)["longest_correct_rate"] != 0.15 {
		t.Errorf("json: %v", got)
	}
	if errs, ok := got["errors"].([]any); !ok || len(errs) != 0 {
		t.Errorf("errors: %v, want an empty array", got["errors"])
	}
	if _, ok := got["rubric"]; ok {
		t.Errorf("an mcq report has rubric facts: %v", got)
	}
	// The file as lint sees it by path, from its folder.
	f := &File{FS: os.DirFS(filepath.Join(root, "rubrics")), Name: "basin-analysis.json", FromRoot: "rubrics/basin-analysis.json"}
	if rep, err := LintNamed(os.DirFS(root), "rubrics/basin-analysis.json", f); err != nil || rep.Key != "basin-analysis" || rep.Rubric == nil {
		t.Errorf("by path: %+v, %v", rep, err)
	}
	for _, f := range LintFormats {
		if err := RenderLint(&bytes.Buffer{}, f, rep); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := RenderLint(&bytes.Buffer{}, "xml", rep); err == nil || err.Error() != `unknown format "xml" (want text, json)` {
		t.Errorf("xml: %v", err)
	}
}

// TestLintEntryProblemOnce: an entry's problem (no judge, a file path
// outside the repository) is reported once, under the registry's own
// code, not again as registry.entry.
func TestLintEntryProblemOnce(t *testing.T) {
	rubric, _ := json.Marshal(validRubric())
	tests := []struct {
		name, entry string
		want        string // the first error, as the text report prints it
	}{
		{"no judge", `{"key": "r", "file": "rubrics/r.json"}`,
			`rubrics/rubrics.json:1: benchmark "r": judge_model is missing: a rubric benchmark needs its fixed judge id (for example "openai/gpt-5.5") in rubrics/rubrics.json (registry.no-judge)`},
		{"an unclean path", `{"key": "r", "file": "rubrics/../rubrics/r.json", "judge_model": "j"}`,
			`rubrics/rubrics.json:1: benchmark "r": file "rubrics/../rubrics/r.json" is not a clean path inside the repository (write it like rubrics/name.json) (registry.file)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			board := fstest.MapFS{RegistryFile: {Data: []byte("[" + tt.entry + "]")}, "rubrics/r.json": {Data: rubric}}
			rep, err := LintNamed(board, "r", nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			messages := map[string]int{}
			for _, f := range rep.Errors {
				got = append(got, f.String())
				messages[f.Message]++
			}
			if len(got) == 0 || got[0] != tt.want {
				t.Errorf("errors:\n%s\nwant first:\n%s", strings.Join(got, "\n"), tt.want)
			}
			for m, n := range messages {
				if n > 1 {
					t.Errorf("said %d times: %s", n, m)
				}
			}
		})
	}
}
