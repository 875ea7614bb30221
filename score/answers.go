package score

import (
	"errors"
	"fmt"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/submission"
)

// graded returns the text of an answers row that the judge of benchmark b
// grades: the clean form of answer_b (submission.CleanAnswer), which is
// also what the scores row records as answer_b_clean. An answer over the
// benchmark's AnswerCap is refused before it is cleaned, and so is a row
// whose answer_b_clean is another text, edited or cleaned by other rules,
// since its grade would not be a grade of what the model produced.
func graded(b *benchmark.Benchmark, a submission.AnswerRow) (string, error) {
	limit := b.Entry.AnswerCap()
	for _, f := range []struct {
		name string
		size int
	}{{"answer_b", len(a.Answer)}, {"answer_b_clean", len(a.AnswerClean)}} {
		if f.size > limit {
			return "", answerError(a, "answer.too-long", fmt.Sprintf("%s is %d bytes, over the %d bytes an answer to benchmark %q may hold (max_answer_bytes in %s), and is not sent to the judge; generate the answer again with a lower --max-tokens, or ask the maintainers to raise the cap", f.name, f.size, limit, b.Entry.Key, benchmark.RegistryFile))
		}
	}
	clean := submission.CleanAnswer(a.Answer)
	if a.AnswerClean != "" && a.AnswerClean != clean {
		return "", answerError(a, "answer.clean", "answer_b_clean is not the clean form of answer_b, and only that is graded; run `benchgate generate` again with the same --output, which rewrites it from answer_b without asking the model; never edit answer_b_clean")
	}
	return clean, nil
}

// answerError is a problem with one answers row, located like a finding.
func answerError(a submission.AnswerRow, code, msg string) error {
	file := a.File
	if file == "" {
		file = "the answers"
	}
	return errors.New(finding.Finding{Code: code, File: file, Line: a.Line, Question: a.ID, Message: msg}.String())
}
