package score

import (
	"errors"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/submission"
)

// graded returns the text of an answers row that the judge grades: the
// clean form of answer_b (submission.CleanAnswer), which is also what the
// scores row records as answer_b_clean. A row whose answer_b_clean is
// another text was edited or cleaned by other rules; it is refused, since
// its grade would not be a grade of what the model produced.
func graded(a submission.AnswerRow) (string, error) {
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
