package submission

import "strings"

// AnswerRule is a benchmark's rule for which text of a reply is its
// answer, when a reasoning model or a reasoning parser puts text beside
// the content (the reasoning or reasoning_content field of OpenRouter,
// vLLM and Ollama).
type AnswerRule string

// The answer rules.
const (
	// RuleContent takes the content only; reasoning text is kept in the
	// row but is never the answer. The default of multiple-choice
	// benchmarks, whose letter is read from the response.
	RuleContent AnswerRule = "content"
	// RuleReasoningFallback takes the reasoning text when the content
	// holds no answer (its clean form is empty): Groundtruth's rule, and
	// the default of rubric benchmarks.
	RuleReasoningFallback AnswerRule = "reasoning-fallback"
)

// SourceReasoning is the answer_b_source of a row whose graded text was
// taken from its reasoning text under RuleReasoningFallback.
const SourceReasoning = "reasoning"

// DefaultAnswerRule is the rule of a benchmark that names none: the
// reasoning fallback for a rubric benchmark, the content for a
// multiple-choice one.
func DefaultAnswerRule(rubric bool) AnswerRule {
	if rubric {
		return RuleReasoningFallback
	}
	return RuleContent
}

// Graded returns the text the judge grades for a reply whose content is
// answer and whose reasoning text is reasoning, and the answer_b_source
// to record: "" when the text is CleanAnswer(answer), SourceReasoning
// when the rule fell back to CleanAnswer(reasoning).
func (r AnswerRule) Graded(answer, reasoning string) (text, source string) {
	text = CleanAnswer(answer)
	if text == "" && r == RuleReasoningFallback && strings.TrimSpace(reasoning) != "" {
		if fb := CleanAnswer(reasoning); fb != "" {
			return fb, SourceReasoning
		}
	}
	return text, ""
}

// Valid reports whether r is one of the rules.
func (r AnswerRule) Valid() bool { return r == RuleContent || r == RuleReasoningFallback }
