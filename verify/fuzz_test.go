package verify

import (
	"testing"
	"testing/fstest"
)

// fuzzFile verifies a board in which one file is replaced by fuzzed bytes:
// whatever the bytes, verification must end with a verdict, never a panic,
// and every error must name a file.
func fuzzFile(t *testing.T, dir, name string, data []byte, base fstest.MapFS) {
	base[dir+"/"+name] = &fstest.MapFile{Data: data}
	v, err := New(base, Options{Today: testToday, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	r := v.Verify(dir)
	switch r.Status {
	case Pass, Review:
		if len(r.Errors) != 0 {
			t.Fatalf("status %s with errors %v", r.Status, r.Errors)
		}
	case Fail:
		if len(r.Errors) == 0 {
			t.Fatal("fail without an error")
		}
	default:
		t.Fatalf("status %q", r.Status)
	}
	for _, f := range r.Errors {
		if f.File == "" || f.Code == "" || f.Message == "" {
			t.Fatalf("finding without file, code or message: %+v", f)
		}
		if f.Code == "internal" {
			t.Fatalf("internal error: %v", f)
		}
	}
}

func FuzzMeta(f *testing.F) {
	f.Add(indent(f, mcqMeta()))
	f.Add(indent(f, rubricMeta()))
	f.Add([]byte(`{"model_name": "", "date": "2026-13-01"}`))
	f.Add([]byte(`{"model_name": "a", "model_name": "b"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, mcqDir, "meta.json", data, board(t, mcqMeta(), mcqScores(), mcqDir))
	})
}

func FuzzMCQScores(f *testing.F) {
	f.Add(indent(f, mcqScores()))
	f.Add([]byte(`[{"id": "m1", "response": "ANSWER: A", "answer": "A", "correct": true, "response_truncated": true}]`))
	f.Add([]byte(`[{"id": "m1", "response": "", "answer": null, "correct": false, "latency_ms": -1}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, mcqDir, "scores.json", data, board(t, mcqMeta(), mcqScores(), mcqDir))
	})
}

func FuzzRubricScores(f *testing.F) {
	f.Add(indent(f, rubricScores()))
	f.Add([]byte(`[{"id": "Q1", "question": "q", "answer_b": "", "score_b": 1e300, "score_b_components": [{"id": "C1", "awarded": -0.0, "maximum": 4}]}]`))
	f.Add([]byte(`[{"id": "Q1", "question": "q", "answer_b": null, "score_b": null}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, rubricDir, "scores.json", data, board(t, rubricMeta(), rubricScores(), rubricDir))
	})
}

// FuzzBenchmarkFiles replaces the registry and benchmark files: a broken
// benchmark must fail its submissions cleanly.
func FuzzBenchmarkFiles(f *testing.F) {
	f.Add([]byte(testRegistry), []byte(testRubric), []byte(testMCQ))
	f.Add([]byte(`[{"key": "rb", "file": "rubrics/rb.json"}]`), []byte(`{"schema_version": "2.0"}`), []byte("{}\n{"))
	f.Fuzz(func(t *testing.T, registry, rubric, mcq []byte) {
		fsys := board(t, rubricMeta(), rubricScores(), rubricDir)
		for k, v := range board(t, mcqMeta(), mcqScores(), mcqDir) {
			fsys[k] = v
		}
		fsys["rubrics/rubrics.json"].Data = registry
		fsys["rubrics/rb.json"].Data = rubric
		fsys["rubrics/mc.jsonl"].Data = mcq
		v, err := New(fsys, Options{Today: testToday})
		if err != nil {
			return // an unusable registry is reported, not verified against
		}
		for _, d := range []string{rubricDir, mcqDir} {
			r := v.Verify(d)
			for _, e := range r.Errors {
				if e.Code == "internal" {
					t.Fatalf("internal error: %v", e)
				}
			}
			if r.Status == "" {
				t.Fatal("no verdict")
			}
		}
	})
}
