package submission

import "testing"

// TestAnswerRuleGraded: the fallback takes the reasoning only when the
// content holds no answer once cleaned, and says so; the content rule
// never does.
func TestAnswerRuleGraded(t *testing.T) {
	for _, tt := range []struct {
		name              string
		rule              AnswerRule
		answer, reasoning string
		text, source      string
	}{
		{"content answers", RuleReasoningFallback, "Because **faults**.", "I think so", "Because faults.", ""},
		{"empty content falls back", RuleReasoningFallback, "", "Because faults.", "Because faults.", SourceReasoning},
		{"content of white space falls back", RuleReasoningFallback, " \n", "**Because**", "Because", SourceReasoning},
		{"content only a think block falls back", RuleReasoningFallback, "<think>hm</think>", "Because.", "Because.", SourceReasoning},
		{"no reasoning either", RuleReasoningFallback, "", " ", "", ""},
		{"reasoning that cleans to nothing", RuleReasoningFallback, "", "<think>x</think>", "", ""},
		{"content rule ignores reasoning", RuleContent, "", "Because faults.", "", ""},
		{"unset rule ignores reasoning", "", "", "Because faults.", "", ""},
	} {
		text, source := tt.rule.Graded(tt.answer, tt.reasoning)
		if text != tt.text || source != tt.source {
			t.Errorf("%s: Graded(%q, %q) = %q, %q; want %q, %q", tt.name, tt.answer, tt.reasoning, text, source, tt.text, tt.source)
		}
	}
	if !DefaultAnswerRule(true).Valid() || DefaultAnswerRule(true) != RuleReasoningFallback || DefaultAnswerRule(false) != RuleContent || AnswerRule("other").Valid() {
		t.Error("the default rules are not the reasoning fallback for rubric benchmarks and the content for mcq ones")
	}
}
