package reproduce

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/benchgate/benchgate/internal/golden"
)

func boolp(b bool) *bool { return &b }

// TestRenderGolden: the text and JSON reports of an inconsistent
// multiple-choice check and an unreachable one.
func TestRenderGolden(t *testing.T) {
	agree := 0.4
	inconsistent := Report{
		Path: "submissions/model-benchmark/small-model-formationeval", RubricKey: "formationeval-v0.1", Kind: "mcq",
		Digest: "5d1c6b0f7e1a4c2b9d8e3f6a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c",
		Model:  "org/small-model", Asked: "org/small-model", Endpoint: "openrouter.ai",
		Verdict: Inconsistent, Reason: "the claimed answers are better than what org/small-model gives beyond the tolerance of 2 points of accuracy",
		Seed: "9f3a00c1d2e3f405", SeedSource: "secret", Estimate: Estimate{Calls: 150, Note: "no prices were given"},
		Calls: 6, SpendUSD: 0.0021, Checked: 5, Served: []string{"org/small-model-2026-01-15"},
		Test:      &TestReport{N: 5, B: 3, C: 0, Tolerance: 0.02, Alpha: 0.01, LogLR: 9.1, Threshold: 8.2, MaxCalls: 150},
		Agreement: &agree,
		Questions: []Question{
			{ID: "q-017", Claimed: "C", Reproduced: "A", ClaimedCorrect: boolp(true), ReproducedCorrect: boolp(false), ServedModel: "org/small-model-2026-01-15", Finish: "answered"},
			{ID: "q-203", Claimed: "B", Reproduced: "B", ClaimedCorrect: boolp(true), ReproducedCorrect: boolp(true), ServedModel: "org/small-model-2026-01-15", Finish: "answered"},
			{ID: "q-044", Claimed: "D", Reproduced: "", ClaimedCorrect: boolp(true), ServedModel: "org/small-model-2026-01-15", Finish: "refused", Fault: "no answer to compare: the endpoint's content filter withheld the reply"},
			{ID: "q-310", Claimed: "A", Reproduced: "C", ClaimedCorrect: boolp(true), ReproducedCorrect: boolp(false), ServedModel: "org/small-model-2026-01-15", Finish: "answered"},
			{ID: "q-129", Claimed: "A", Reproduced: "", ClaimedCorrect: boolp(true), ReproducedCorrect: boolp(false), ServedModel: "org/small-model-2026-01-15", Finish: "answered"},
			{ID: "q-451", Claimed: "B", Reproduced: "D", ClaimedCorrect: boolp(false), ReproducedCorrect: boolp(false), ServedModel: "org/small-model-2026-01-15", Finish: "answered"},
		},
	}
	hostile := inconsistent
	hostile.Reason = "the model <img src=x onerror=alert(1)> said | ANSWER: C"
	hostile.Questions = []Question{{ID: "q`1 | **x**", Claimed: "A", Reproduced: "<b>B</b>", ClaimedCorrect: boolp(true), ReproducedCorrect: boolp(false), Fault: "[link](javascript:alert(1))"}}
	unreachable := Report{
		Path: "submissions/harness-benchmark/geoagent-reservoir", RubricKey: "reservoir-mcq", Kind: "mcq", Model: "qwen/qwen3-32b",
		Verdict: Unreachable, Reason: "the submission is on the harness track: nothing was asked", Questions: []Question{}, Served: []string{},
	}
	for _, tc := range []struct {
		name string
		rep  Report
	}{{"inconsistent", inconsistent}, {"unreachable", unreachable}, {"hostile", hostile}} {
		for _, format := range Formats {
			var b bytes.Buffer
			if err := Render(&b, format, tc.rep); err != nil {
				t.Fatal(err)
			}
			if format == "json" && !json.Valid(b.Bytes()) {
				t.Errorf("%s: invalid JSON", tc.name)
			}
			golden.Check(t, tc.name+"."+format, b.Bytes())
		}
	}
	if err := Render(&bytes.Buffer{}, "yaml", unreachable); err == nil {
		t.Error("yaml: no error")
	}
}
