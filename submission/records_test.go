package submission

import (
	"encoding/json"
	"reflect"
	"testing"
)

// allSet fails when a field of v (a struct) is its zero value, so that a
// field added to a record type must be added to these tests too.
func allSet(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := 0; i < rv.NumField(); i++ {
		name := rv.Type().Field(i).Name
		if name == "Line" || name == "Lines" {
			continue
		}
		if rv.Field(i).IsZero() {
			t.Errorf("%s.%s is not set in the test value: set it, and check that it is read back", rv.Type().Name(), name)
		}
	}
}

func encode(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRecordsReadBack: what each record type writes passes the file's
// schema and its reader gives back every field.
func TestRecordsReadBack(t *testing.T) {
	t.Run("rubric", func(t *testing.T) {
		rec := RubricRecord{
			ID: "q1", Question: "Why?", Answer: "<think>x</think>", AnswerClean: "Because.", Reasoning: "Because.", AnswerSource: SourceReasoning,
			Score: new(7), Reason: "Gate passed.", GatePassed: new(true),
			Components:           []ComponentRecord{{ID: "c1", Awarded: 3, Maximum: 4, Reason: "partly"}},
			AdjudicationRequired: true, AdjudicationNote: "look", JudgeModel: "openai/gpt-5.5",
			RubricSHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ScoredAt: "2026-02-28T10:00:00Z",
			JudgePromptSHA256: "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
		}
		allSet(t, rec)
		allSet(t, rec.Components[0])
		rows, fs := ParseRubricScores("scores.json", parse(t, encode(t, []RubricRecord{rec})))
		if len(fs) > 0 || len(rows) != 1 {
			t.Fatalf("does not read back: %v", fs)
		}
		r := rows[0]
		score, _ := r.Score.Int()
		got := RubricRecord{
			ID: r.ID, Question: r.Question, Answer: r.Answer, AnswerClean: r.AnswerClean, Reasoning: r.Reasoning, AnswerSource: r.Source, Score: new(int(score)), Reason: r.Reason,
			GatePassed: r.GatePassed, AdjudicationRequired: r.Adjudicate, AdjudicationNote: r.AdjNote,
			JudgeModel: r.JudgeModel, RubricSHA256: r.RubricSHA, ScoredAt: r.ScoredAt, JudgePromptSHA256: r.PromptSHA,
		}
		for _, c := range r.Components {
			aw, _ := c.Awarded.Int()
			mx, _ := c.Maximum.Int()
			got.Components = append(got.Components, ComponentRecord{ID: c.ID, Awarded: int(aw), Maximum: int(mx), Reason: c.Reason})
		}
		if !r.HasComps || !reflect.DeepEqual(got, rec) {
			t.Errorf("read back %+v\nwant %+v", got, rec)
		}
	})
	t.Run("rubric unscored", func(t *testing.T) {
		rec := RubricRecord{ID: "q1", Question: "Why?", Answer: "", Reason: "unscored", AdjudicationRequired: true, JudgeModel: "j", RubricSHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ScoredAt: "2026-02-28T10:00:00Z"}
		rows, fs := ParseRubricScores("scores.json", parse(t, encode(t, []RubricRecord{rec})))
		if len(fs) > 0 || len(rows) != 1 {
			t.Fatalf("does not read back: %v", fs)
		}
		if r := rows[0]; r.Score != nil || r.GatePassed != nil || r.HasComps || !r.Adjudicate {
			t.Errorf("an unscored row reads back as %+v", r)
		}
	})
	t.Run("mcq", func(t *testing.T) {
		rec := MCQRecord{
			ID: "q1", Response: "The answer is B", Reasoning: "B fits the log.", Answer: new("B"), Correct: true, Pattern: new("answer-is"),
			FinishReason: "stop", Error: "retried once", LatencyMS: new(812.5), PromptTokens: new(120), CompletionTokens: new(14),
		}
		allSet(t, rec)
		rows, fs := ParseMCQScores("scores.json", parse(t, encode(t, []MCQRecord{rec})))
		if len(fs) > 0 || len(rows) != 1 {
			t.Fatalf("does not read back: %v", fs)
		}
		r := rows[0]
		got := MCQRecord{ID: r.ID, Response: r.Response, Reasoning: r.Reasoning, Answer: new(r.Answer), Correct: r.Correct, Pattern: new(r.Pattern),
			FinishReason: r.FinishReason, Error: r.Error, LatencyMS: r.LatencyMS}
		if r.PromptTokens != nil {
			got.PromptTokens = new(int(*r.PromptTokens))
		}
		if r.CompletionTokens != nil {
			got.CompletionTokens = new(int(*r.CompletionTokens))
		}
		if !reflect.DeepEqual(got, rec) {
			t.Errorf("read back %+v\nwant %+v", got, rec)
		}
	})
	t.Run("mcq no answer", func(t *testing.T) {
		rec := MCQRecord{ID: "q1", Response: "", FinishReason: "length"}
		rows, fs := ParseMCQScores("scores.json", parse(t, encode(t, []MCQRecord{rec})))
		if len(fs) > 0 || len(rows) != 1 || rows[0].Answer != "" || rows[0].Correct {
			t.Fatalf("reads back as %+v, %v", rows, fs)
		}
	})
	t.Run("answers", func(t *testing.T) {
		rec := AnswerRow{ID: "q1", Question: "Why?", Answer: "<think>x</think>", AnswerClean: "Because.", Reasoning: "Because.", AnswerSource: SourceReasoning, File: "answers.json"}
		allSet(t, rec)
		rows, fs := ParseAnswers("answers.json", parse(t, encode(t, []AnswerRow{rec})))
		if len(fs) > 0 || len(rows) != 1 {
			t.Fatalf("does not read back: %v", fs)
		}
		if rows[0].Line != 2 {
			t.Errorf("line %d, want 2", rows[0].Line)
		}
		rows[0].Line = 0
		if rows[0] != rec {
			t.Errorf("read back %+v, want %+v", rows[0], rec)
		}
	})
	t.Run("meta", func(t *testing.T) {
		m := Meta{
			ModelName: "Qwen3 32B", CandidateModelID: "qwen/qwen3-32b", Submitter: "lab", ContactOrRepo: "https://example.org",
			RubricKey: "k", Date: "2026-02-28", JudgeModel: "openai/gpt-5.5", HarnessName: "h", HarnessRepo: "https://example.org/h",
			Notes: "n", OpenWeights: new(true), PriceInput: new(0.1), PriceOutput: new(0.3), Temperature: new(0.7), MaxTokens: new(4096),
		}
		allSet(t, m)
		back, fs := ParseMeta("meta.json", parse(t, encode(t, &m)))
		if back == nil || len(fs) > 0 {
			t.Fatalf("does not read back: %v", fs)
		}
		back.Lines = nil
		if !reflect.DeepEqual(*back, m) {
			t.Errorf("read back %+v\nwant %+v", *back, m)
		}
	})
}

func TestParseAnswersRejects(t *testing.T) {
	for name, src := range map[string]string{
		"not an array":           `{"id": "q1"}`,
		"no id":                  "[\n{\"question\": \"q\", \"answer_b\": \"a\"}]",
		"no answer":              "[\n{\"id\": \"q1\", \"question\": \"q\"}]",
		"reasoning not a string": "[\n{\"id\": \"q1\", \"question\": \"q\", \"answer_b\": \"\", \"reasoning\": 3}]",
		"unknown source":         "[\n{\"id\": \"q1\", \"question\": \"q\", \"answer_b\": \"\", \"answer_b_source\": \"content\"}]",
	} {
		rows, fs := ParseAnswers("a.json", parse(t, src))
		if rows != nil || len(fs) != 1 || fs[0].File != "a.json" || fs[0].Line == 0 {
			t.Errorf("%s: %v, %v", name, rows, fs)
		}
	}
}
