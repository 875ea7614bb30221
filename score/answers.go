package score

import (
	"errors"
	"fmt"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/submission"
)

// graded returns the text of an answers row that the judge of benchmark b
// grades under rule (submission.AnswerRule.Graded): the clean form of
// answer_b, or of the reasoning text when answer_b holds no answer and the
// rule falls back to it, which is also what the scores row records as
// answer_b_clean; and the answer_b_source to record. An answer over the
// benchmark's AnswerCap is refused before it is cleaned, one that holds an
// invisible character (submission.HiddenInAnswer) before any call, and so is a row
// whose answer_b_clean is another text, edited or cleaned by other rules,
// or whose answer_b_source says another field was graded, since its grade
// would not be a grade of what the model produced.
func graded(b *benchmark.Benchmark, rule submission.AnswerRule, a submission.AnswerRow) (text, source string, err error) {
	limit := b.Entry.AnswerCap()
	for _, f := range []struct {
		name string
		size int
	}{{"answer_b", len(a.Answer)}, {"answer_b_clean", len(a.AnswerClean)}} {
		if f.size > limit {
			return "", "", answerError(a, "answer.too-long", fmt.Sprintf("%s is %d bytes, over the %d bytes an answer to benchmark %q may hold (max_answer_bytes in %s), and is not sent to the judge; generate the answer again with a lower --max-tokens, or ask the maintainers to raise the cap", f.name, f.size, limit, b.Entry.Key, benchmark.RegistryFile))
		}
	}
	text, source = rule.Graded(a.Answer, a.Reasoning)
	if source == submission.SourceReasoning && len(a.Reasoning) > limit {
		return "", "", answerError(a, "answer.too-long", fmt.Sprintf("reasoning, graded because answer_b holds no answer, is %d bytes, over the %d bytes an answer to benchmark %q may hold (max_answer_bytes in %s), and is not sent to the judge; generate the answer again with a lower --max-tokens, or ask the maintainers to raise the cap", len(a.Reasoning), limit, b.Entry.Key, benchmark.RegistryFile))
	}
	texts := [][2]string{{"answer_b", a.Answer}, {"answer_b_clean", a.AnswerClean}}
	if source == submission.SourceReasoning {
		texts = append(texts, [2]string{"reasoning (graded because answer_b holds no answer)", a.Reasoning})
	}
	for _, f := range texts {
		if msg := submission.HiddenInAnswer(f[0], f[1]); msg != "" {
			return "", "", answerError(a, "answer.hidden", msg)
		}
	}
	if a.AnswerClean != "" && a.AnswerClean != text {
		what := "answer_b"
		if source != "" {
			what = "reasoning (answer_b holds no answer)"
		}
		return "", "", answerError(a, "answer.clean", fmt.Sprintf("answer_b_clean is not the clean form of %s, and only that is graded; run `benchgate generate` again with the same --output, which rewrites it without asking the model; never edit answer_b_clean", what))
	}
	if a.AnswerSource != "" && a.AnswerSource != source {
		return "", "", answerError(a, "answer.source", fmt.Sprintf("answer_b_source is %q, but answer_b holds an answer, which is what is graded; run `benchgate generate` again with the same --output, which rewrites the row without asking the model", a.AnswerSource))
	}
	return text, source, nil
}

// answerError is a problem with one answers row, located like a finding.
func answerError(a submission.AnswerRow, code, msg string) error {
	file := a.File
	if file == "" {
		file = "the answers"
	}
	return errors.New(finding.Finding{Code: code, File: file, Line: a.Line, Question: a.ID, Message: msg}.String())
}
