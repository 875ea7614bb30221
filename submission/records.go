package submission

// The types below write the files of a submission: encoding/json gives
// the field order and the names that Groundtruth's files use and that
// schemas/ accepts. Each is read back by its positioned reader
// (ParseRubricScores, ParseMCQScores, ParseAnswers), which keeps lines
// for findings.

// RubricRecord is one row of a rubric benchmark's scores.json, in the
// field order of Groundtruth's scores array. Pointers are null when the
// answer is unscored.
type RubricRecord struct {
	ID                   string            `json:"id"`
	Question             string            `json:"question"`
	Answer               string            `json:"answer_b"`
	AnswerClean          string            `json:"answer_b_clean"`
	Reasoning            string            `json:"reasoning,omitempty"`       // the reasoning text beside the reply, if any
	AnswerSource         string            `json:"answer_b_source,omitempty"` // SourceReasoning when answer_b_clean was taken from Reasoning
	Score                *int              `json:"score_b"`
	Reason               string            `json:"score_b_reason"`
	GatePassed           *bool             `json:"score_b_gate_passed"`
	Components           []ComponentRecord `json:"score_b_components"`
	AdjudicationRequired bool              `json:"score_b_adjudication_required"`
	AdjudicationNote     string            `json:"score_b_adjudication_note"`
	JudgeModel           string            `json:"judge_model"`
	RubricSHA256         string            `json:"rubric_sha256"`
	JudgePromptSHA256    string            `json:"judge_prompt_sha256,omitempty"` // of the judge's prompt file; absent for benchgate's own prompt
	ScoredAt             string            `json:"scored_at"`
}

// ComponentRecord is one component's award in a RubricRecord.
type ComponentRecord struct {
	ID      string `json:"id"`
	Awarded int    `json:"awarded"`
	Maximum int    `json:"maximum"`
	Reason  string `json:"reason"`
}

// MCQRecord is one row of a multiple-choice benchmark's scores.json.
type MCQRecord struct {
	ID               string   `json:"id"`
	Response         string   `json:"response"`
	Reasoning        string   `json:"reasoning,omitempty"` // the reasoning text beside the response, if any; never read for the letter
	Answer           *string  `json:"answer"`              // "A"–"D", or null when none was found
	Correct          bool     `json:"correct"`
	Pattern          *string  `json:"pattern,omitempty"`
	FinishReason     string   `json:"finish_reason"`
	Error            string   `json:"error,omitempty"`
	LatencyMS        *float64 `json:"latency_ms,omitempty"`
	PromptTokens     *int     `json:"prompt_tokens,omitempty"`
	CompletionTokens *int     `json:"completion_tokens,omitempty"`
}

// Unanswered reports whether a multiple-choice row's finish reason says
// its call gave no answer to keep: it failed ("error"), its content was
// empty ("empty"), the model refused ("refusal"), or a content filter cut
// the reply ("content_filter"). generate counts such a row as failed and
// asks its question again on resume.
func Unanswered(finishReason string) bool {
	switch finishReason {
	case "error", "empty", "refusal", "content_filter":
		return true
	}
	return false
}

// AnswerRow is one row of a rubric benchmark's answers file, the
// Groundtruth answers array that `benchgate generate` writes and
// `benchgate score` grades: the same type writes it and, through
// ParseAnswers, reads it with its line.
type AnswerRow struct {
	ID          string `json:"id"`
	Question    string `json:"question"`
	Answer      string `json:"answer_b"`       // the reply as received
	AnswerClean string `json:"answer_b_clean"` // the text that is graded: AnswerRule.Graded(Answer, Reasoning)
	// Reasoning is the reasoning text the endpoint gave beside the reply
	// (reasoning or reasoning_content), absent when none.
	Reasoning string `json:"reasoning,omitempty"`
	// AnswerSource is SourceReasoning when the reply's content held no
	// answer and the benchmark's rule took the graded text from
	// Reasoning; absent otherwise.
	AnswerSource string `json:"answer_b_source,omitempty"`
	File         string `json:"-"` // the file it was read from, for messages
	Line         int    `json:"-"`
}
