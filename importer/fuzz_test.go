package importer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
)

// The importers read files published by other tools: whatever they hold,
// an import ends in runs or in an error naming the file, never a panic.

func exampleBenchmark(f *testing.F, key string) *benchmark.Benchmark {
	f.Helper()
	b, err := benchmark.Open(os.DirFS(".."), key)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func seedFile(f *testing.F, name string) {
	f.Helper()
	data, err := os.ReadFile(filepath.Join("..", "cmd", "benchgate", "testdata", "import", name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
}

// inputError fails t unless err is nil or an error that names file.
func inputError(t *testing.T, err error, file string) {
	t.Helper()
	var ie *InputError
	if err != nil && errors.As(err, &ie) && ie.File != file {
		t.Fatalf("the error names %q, not %q: %v", ie.File, file, err)
	}
}

func FuzzGroundtruthRuns(f *testing.F) {
	seedFile(f, "groundtruth-scores.runs.jsonl")
	seedFile(f, "qwen3-32b.runs.jsonl")
	f.Add([]byte(`{"task": "score", "judge_model": null}` + "\n\n" + `{"task": "generate", "candidate_model": "vllm/benchmark"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ReadGroundtruthRuns("r.runs.jsonl", data)
		inputError(t, err, "r.runs.jsonl")
		if err != nil {
			return
		}
		if len(recs) == 0 {
			t.Fatal("no error and no record")
		}
		for _, r := range recs {
			if r.Task != "score" && r.Task != "generate" {
				t.Fatalf("line %d: task %q kept", r.Line, r.Task)
			}
		}
		judge, err := GroundtruthJudge("r.runs.jsonl", recs)
		inputError(t, err, "r.runs.jsonl")
		if err == nil && judge == "" {
			t.Fatal("no error and no judge")
		}
		model, err := GroundtruthCandidate("r.runs.jsonl", recs)
		inputError(t, err, "r.runs.jsonl")
		if err == nil && (model == "" || model == podAlias) {
			t.Fatalf("candidate %q accepted", model)
		}
	})
}

func FuzzGroundtruth(f *testing.F) {
	b := exampleBenchmark(f, "basin-analysis")
	seedFile(f, "groundtruth-scores.json")
	f.Add([]byte(`[{"id": "Q1", "question": "x", "score_b": null}]`))
	sides := []GroundtruthSide{{Side: "a", Model: "m-a"}, {Side: "b", Model: "m-b"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := Groundtruth("s.json", data, b, sides, b.Entry.JudgeModel, Options{Today: "2025-11-20"})
		inputError(t, err, "s.json")
		if err == nil && len(runs) != len(sides) {
			t.Fatalf("%d runs for %d sides", len(runs), len(sides))
		}
		_, _, err = GroundtruthSources("s.json", data)
		inputError(t, err, "s.json")
	})
}

func FuzzFormationEval(f *testing.F) {
	b := exampleBenchmark(f, "reservoir-mcq")
	f.Add([]byte("question_id,m_answer,m_correct,m_pattern,m_raw\nq1,B,True,answer_line,\"Answer: B\"\n"))
	f.Add([]byte("question_id\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := FormationEval("r.csv", bytes.NewReader(data), b, Options{Today: "2025-11-20"})
		inputError(t, err, "r.csv")
	})
}

func FuzzInspect(f *testing.F) {
	b := exampleBenchmark(f, "reservoir-mcq")
	seedFile(f, "inspect-log.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Inspect([]string{"log.json"}, [][]byte{data}, b, "", Options{Today: "2025-11-20"})
		inputError(t, err, "log.json")
	})
}
