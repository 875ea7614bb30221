package submission

import (
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/internal/safetext"
)

// shownFields are the strings of meta.json that the leaderboard, a pull
// request's comment and its check run show, and that may therefore hold
// no invisible character (see Invisible); notes alone may run over lines.
var shownFields = []string{"model_name", "candidate_model_id", "submitter", "contact_or_repo", "rubric_key", "judge_model", "harness_name", "harness_repo", "notes"}

// ShownFields returns the names of shownFields, for the documentation's
// list of them.
func ShownFields() []string { return append([]string(nil), shownFields...) }

// Invisible says where text, the value of field, holds a character that
// hides or reorders text (safetext.Invisible: control and format
// characters, tag characters, zero-width characters, bidirectional
// controls), in the words of a finding; "" when it holds none. Multiline
// text may hold tabs and line breaks, and the line of the text is named.
func Invisible(field, text string, multiline bool) string {
	r, at, line, found := safetext.FindInvisible(text, multiline)
	if !found {
		return ""
	}
	where := fmt.Sprintf("at character %d", at)
	if multiline {
		where += fmt.Sprintf(" (line %d of the text)", line)
	}
	return fmt.Sprintf("%s holds the invisible character %s %s", field, safetext.Describe(r), where)
}

// ConfusableWords describes look-alike words (safetext.Confusables) for a
// finding: `writes "АWARD" (Cyrillic and Latin letters), which reads as
// "AWARD"`, the first three of them and how many more.
func ConfusableWords(cs []safetext.Confusable) string {
	var parts []string
	for i, c := range cs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%q (%s letters), which reads as %q", safetext.Cut(c.Word, 60), strings.Join(c.Scripts, " and "), safetext.Cut(c.Reads, 60)))
	}
	return "writes " + strings.Join(parts, "; ")
}

// HiddenInAnswer is the finding's message for an answer's field (answer_b,
// answer_b_clean, or the reasoning text when it is graded) that holds an
// invisible character, or "" when it holds none: `benchgate verify` fails
// such a row (answer.hidden) and `benchgate score` refuses it.
func HiddenInAnswer(field, text string) string {
	where := Invisible(field, text, true)
	if where == "" {
		return ""
	}
	return where + "; an answer holds no such character, which can carry instructions to the judge that no reader sees, so it is not graded; if the model did produce it, say so in the pull request for a maintainer to decide"
}
