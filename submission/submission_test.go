package submission

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/jsondoc"
)

func parse(t *testing.T, s string) *jsondoc.Doc {
	t.Helper()
	d, err := jsondoc.Parse([]byte(s), jsondoc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

const fullMeta = `{
  "_comment": "ignored",
  "model_name": "Qwen3 32B",
  "candidate_model_id": "qwen/qwen3-32b",
  "submitter": "lab",
  "contact_or_repo": "https://example.org",
  "rubric_key": "k",
  "date": "2026-02-28",
  "judge_model": " openai/gpt-5.5 ",
  "open_weights": true,
  "price_input_per_mtok": 0.1,
  "price_output_per_mtok": 0.3,
  "temperature": 0,
  "max_tokens": 4096
}`

func TestParseMeta(t *testing.T) {
	m, fs := ParseMeta("meta.json", parse(t, fullMeta))
	if m == nil {
		t.Fatal(fs)
	}
	if m.JudgeModel != "openai/gpt-5.5" || !*m.OpenWeights || *m.PriceInput != 0.1 || *m.PriceOutput != 0.3 || *m.Temperature != 0 || *m.MaxTokens != 4096 || m.Lines["date"] != 8 {
		t.Errorf("meta = %+v", m)
	}
	tests := []struct{ edit, want string }{
		{`"date": "2026-02-30"`, `meta.json:8: date "2026-02-30" is not a real calendar date`},
		{`"date": "28/02/2026"`, `meta.json:8: /date: "28/02/2026" does not match the pattern`},
		{`"max_tokens": 0`, `meta.json:14: /max_tokens: must be at least 1, found 0`},
		{`"open_weights": "yes"`, `meta.json:10: /open_weights: expected a boolean or null, found "yes"`},
		{`"model_name": ""`, `meta.json:3: /model_name: must not be empty`},
	}
	for _, tt := range tests {
		key := tt.edit[:strings.Index(tt.edit, ":")]
		lines := strings.Split(fullMeta, "\n")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), key+":") {
				comma := strings.HasSuffix(l, ",")
				lines[i] = "  " + tt.edit
				if comma {
					lines[i] += ","
				}
			}
		}
		m, fs := ParseMeta("meta.json", parse(t, strings.Join(lines, "\n")))
		if m != nil || len(fs) != 1 || !strings.Contains(fs[0].String(), tt.want) {
			t.Errorf("%s: got %v, want one finding containing %q", tt.edit, fs, tt.want)
		}
	}
}

// TestParseMetaUnknown: null is how meta.json says a value is unknown,
// as the template writes it; it parses as absent, not as false or 0.
func TestParseMetaUnknown(t *testing.T) {
	meta := fullMeta
	for _, v := range []string{`"open_weights": true`, `"price_input_per_mtok": 0.1`, `"price_output_per_mtok": 0.3`, `"temperature": 0`, `"max_tokens": 4096`} {
		meta = strings.Replace(meta, v, v[:strings.Index(v, ":")]+": null", 1)
	}
	m, fs := ParseMeta("meta.json", parse(t, meta))
	if m == nil {
		t.Fatal(fs)
	}
	if m.OpenWeights != nil || m.PriceInput != nil || m.PriceOutput != nil || m.Temperature != nil || m.MaxTokens != nil {
		t.Errorf("null read as a value: %+v", m)
	}
}

func TestParseScores(t *testing.T) {
	rows, fs := ParseRubricScores("s.json", parse(t, `[{"id": "Q1", "question": "q", "answer_b": "a", "score_b": null, "score_b_components": null, "score_b_gate_passed": null},
{"id": "Q2", "question": "q", "answer_b": "a", "score_b": 7, "score_b_gate_passed": true, "score_b_components": [{"id": "C1", "awarded": 7, "maximum": 10}]}]`))
	if len(fs) > 0 || len(rows) != 2 {
		t.Fatal(fs)
	}
	if rows[0].Score != nil || rows[0].HasComps || rows[0].GatePassed != nil {
		t.Errorf("unscored row = %+v", rows[0])
	}
	if rows[1].Score.Str != "7" || !*rows[1].GatePassed || len(rows[1].Components) != 1 || rows[1].Line != 2 {
		t.Errorf("scored row = %+v", rows[1])
	}
	mrows, fs := ParseMCQScores("s.json", parse(t, `[{"id": "m1", "response": "ANSWER: B", "response_truncated": true, "answer": "B", "correct": false, "finish_reason": "length", "latency_ms": 12.5, "prompt_tokens": 10, "completion_tokens": 3}]`))
	if len(fs) > 0 || len(mrows) != 1 {
		t.Fatal(fs)
	}
	r := mrows[0]
	if !r.Truncated || r.Answer != "B" || r.Correct || r.FinishReason != "length" || *r.LatencyMS != 12.5 || *r.PromptTokens != 10 || *r.CompletionTokens != 3 {
		t.Errorf("row = %+v", r)
	}
}

func TestValidSlug(t *testing.T) {
	for s, want := range map[string]bool{
		"qwen3-32b": true, "a": true, "gpt-4.1_mini": true, strings.Repeat("a", 64): true,
		"": false, "-x": false, "Qwen": false, "a b": false, strings.Repeat("a", 65): false, "../x": false, "é": false, "a..b": false, "a.b": true, "a...": false,
	} {
		if got := ValidSlug(s); got != want {
			t.Errorf("ValidSlug(%q) = %v", s, got)
		}
	}
}

// TestMetaRoundTrip: what MarshalJSON writes, ParseMeta reads back
// unchanged, with and without the optional fields.
func TestMetaRoundTrip(t *testing.T) {
	full, _ := ParseMeta("meta.json", parse(t, fullMeta))
	if full == nil {
		t.Fatal("fullMeta does not parse")
	}
	bare := &Meta{ModelName: "M", CandidateModelID: "org/m", Submitter: "lab", ContactOrRepo: "https://example.org", RubricKey: "k", Date: "2026-01-02"}
	for _, m := range []*Meta{full, bare} {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		back, fs := ParseMeta("meta.json", parse(t, string(data)))
		if back == nil || len(fs) > 0 {
			t.Fatalf("%s does not read back: %v", data, fs)
		}
		back.Lines, m.Lines = nil, nil
		if !reflect.DeepEqual(back, m) {
			t.Errorf("read back %+v, want %+v (from %s)", back, m, data)
		}
	}
}
