package verify

import (
	"strings"
	"testing"
)

// TestVerifyReasoningAnswers: a rubric row whose content is empty is
// graded by its reasoning text, as the rubric benchmarks' rule says, and
// verifies when answer_b_clean is the clean form of that text; a row that
// claims the reasoning was graded where answer_b answers, or whose
// answer_b_clean is not the clean reasoning, fails.
func TestVerifyReasoningAnswers(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(row map[string]any)
		status Status
		errs   []string
		msg    string
	}{
		{"graded from the reasoning, as generate writes it", func(r map[string]any) {
			r["answer_b"], r["reasoning"], r["answer_b_source"], r["answer_b_clean"] = "", "**Capillary** entry pressure.", "reasoning", "Capillary entry pressure."
		}, Pass, nil, ""},
		{"content beside reasoning: the content is graded", func(r map[string]any) {
			r["reasoning"] = "Seals hold by capillarity."
		}, Pass, nil, ""},
		{"graded from the reasoning, no answer_b_clean", func(r map[string]any) {
			r["answer_b"], r["reasoning"], r["answer_b_clean"] = nil, "Capillary entry pressure.", nil
		}, Pass, nil, ""},
		{"answer_b_clean other than the clean reasoning", func(r map[string]any) {
			r["answer_b"], r["reasoning"], r["answer_b_source"], r["answer_b_clean"] = "", "Porosity.", "reasoning", "Capillary entry pressure."
		}, Fail, []string{"answer.clean scores.json:2 Q1"}, "answer_b_clean is not the clean form of reasoning (answer_b holds no answer)"},
		{"answer_b_source where answer_b answers", func(r map[string]any) {
			r["reasoning"], r["answer_b_source"] = "Capillary entry pressure.", "reasoning"
		}, Fail, []string{"answer.source scores.json:2 Q1"}, `answer_b_source is "reasoning", but answer_b holds an answer`},
		{"an unknown answer_b_source", func(r map[string]any) { r["answer_b_source"] = "content" }, Fail, []string{"schema scores.json:5 Q1"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := rubricScores()
			tt.edit(rows[0])
			r := verifyOne(t, board(t, rubricMeta(), rows, rubricDir), rubricDir)
			if r.Status != tt.status || strings.Join(describe(r), ",") != strings.Join(tt.errs, ",") {
				t.Fatalf("status %s, errors %v; want %s, %v", r.Status, describe(r), tt.status, tt.errs)
			}
			if tt.msg != "" && !strings.Contains(r.Errors[0].Message, tt.msg) {
				t.Errorf("message %q lacks %q", r.Errors[0].Message, tt.msg)
			}
		})
	}
}

// TestVerifyMostlyEmpty: a submission where more than half the questions
// have an empty answer (rubric) or response (mcq) goes to review with the
// counts and what to do, whatever else is right with it; at half or
// fewer, or with the answer in the graded reasoning, it does not.
func TestVerifyMostlyEmpty(t *testing.T) {
	unscoredEmpty := func(r map[string]any) {
		r["answer_b"], r["answer_b_clean"], r["score_b"], r["score_b_gate_passed"], r["score_b_components"] = "", "", nil, nil, nil
	}
	noResponse := func(r map[string]any) {
		r["response"], r["answer"], r["correct"], r["finish_reason"] = "", nil, false, "empty"
		r["reasoning"] = "Reasoning that says ANSWER: A, which is never read."
	}
	tests := []struct {
		name    string
		rubric  bool
		empty   []int // rows made empty
		edit    func(r map[string]any)
		review  bool
		message string
	}{
		{"rubric: both answers empty", true, []int{0, 1}, unscoredEmpty, true, "2 of 2 answers are empty (100.0%, above the 50% a submission may leave empty without review)"},
		{"rubric: one answer of two empty", true, []int{0}, unscoredEmpty, false, ""},
		{"rubric: a think block only is empty", true, []int{0, 1}, func(r map[string]any) {
			unscoredEmpty(r)
			r["answer_b"] = "<think>Let me consider</think>"
		}, true, "2 of 2 answers are empty"},
		{"rubric: answers in the reasoning are answers", true, []int{0, 1}, func(r map[string]any) {
			r["reasoning"], r["answer_b_source"] = r["answer_b"], "reasoning"
			r["answer_b"] = ""
		}, false, ""},
		{"mcq: three responses of four empty", false, []int{0, 1, 3}, noResponse, true, "3 of 4 responses are empty (75.0%, above the 50%"},
		{"mcq: two responses of four empty", false, []int{0, 1}, noResponse, false, ""},
		{"mcq: failed calls count as empty", false, []int{0, 1, 2}, func(r map[string]any) {
			r["response"], r["answer"], r["correct"], r["finish_reason"], r["error"] = "", nil, false, "error", "HTTP 503"
		}, true, "3 of 4 responses are empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Result
			if tt.rubric {
				rows := rubricScores()
				for _, i := range tt.empty {
					tt.edit(rows[i])
				}
				r = verifyOne(t, board(t, rubricMeta(), rows, rubricDir), rubricDir)
			} else {
				rows := mcqScores()
				for _, i := range tt.empty {
					tt.edit(rows[i])
				}
				r = verifyOne(t, board(t, mcqMeta(), rows, mcqDir), mcqDir)
			}
			var found string
			for _, w := range r.Warnings {
				if w.Code == codeMostlyEmpty {
					found = w.Message
				}
			}
			if tt.review != (found != "") || len(r.Errors) > 0 {
				t.Fatalf("status %s, errors %v, warnings %v; want the mostly-empty finding: %t", r.Status, describe(r), describeWarnings(r), tt.review)
			}
			if tt.review && (r.Status != Review || !strings.Contains(found, tt.message) || !strings.Contains(found, "generate again with the same --output")) {
				t.Errorf("status %s, message %q; want review with %q and what to do", r.Status, found, tt.message)
			}
		})
	}
}
