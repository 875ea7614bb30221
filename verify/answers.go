package verify

import (
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/judge/inject"
	"github.com/benchgate/benchgate/submission"
)

// The finding codes of the checks on a rubric row's answer text.
const (
	// codeClean: answer_b_clean is not submission.CleanAnswer(answer_b).
	codeClean = "answer.clean"
	// codeInjection: the graded text tries to instruct the judge.
	codeInjection = "answer.injection"
	// codeHidden: an answer holds a character that renders as nothing
	// or reorders text (safetext.Invisible).
	codeHidden = "answer.hidden"
	// codeConfusable: the graded text holds words that mix scripts to
	// look like Latin ones (safetext.Confusables).
	codeConfusable = "answer.confusable"
	// codeMetaConfusable: a shown field of meta.json does (see
	// submission.ParseMeta).
	codeMetaConfusable = "meta.confusable"
	// codeTooLong: an answer is over its benchmark's AnswerCap.
	codeTooLong = "answer.too-long"
	// codeSource: answer_b_source says the reasoning text was graded
	// where the benchmark's rule grades answer_b.
	codeSource = "answer.source"
	// codeMostlyEmpty: more than Options.EmptyRate of the questions have
	// an empty answer or response.
	codeMostlyEmpty = "answers.mostly-empty"
)

// reviewCodes are the warnings that ask a maintainer to look before a
// submission is accepted: they make its status review.
var reviewCodes = map[string]bool{codeInjection: true, codeConfusable: true, codeMetaConfusable: true, codeMostlyEmpty: true}

// mostlyEmpty adds codeMostlyEmpty when more than the EmptyRate of the n
// questions of file have an empty answer; what names the answers, how
// says why they may be empty and what to do.
func (c *check) mostlyEmpty(file string, empty, n int, what, how string) {
	if n == 0 || float64(empty) <= c.v.opts.EmptyRate*float64(n) {
		return
	}
	c.warnf(codeMostlyEmpty, file, 0, "", "%d of %d %s are empty (%.1f%%, above the %.0f%% a submission may leave empty without review): %s", empty, n, what, 100*float64(empty)/float64(n), 100*c.v.opts.EmptyRate, how)
}

// hasReviewWarning reports whether a warning asks for review.
func hasReviewWarning(ws finding.List) bool {
	for _, w := range ws {
		if reviewCodes[w.Code] {
			return true
		}
	}
	return false
}

// answer checks the text of one rubric row of benchmark b against what
// the judge grades and returns that text, the clean form of answer_b, or
// of the reasoning text when answer_b holds no answer and the benchmark's
// rule falls back to it (submission.AnswerRule.Graded); ok is false when
// the answer is too long to be graded. Both answer_b and answer_b_clean,
// and the reasoning text when it is graded, must be within the
// benchmark's AnswerCap, checked first so that an oversized answer costs
// no more work. answer_b_clean, when given, must be exactly the clean
// form: the judge grades it and nothing else, so an edited clean answer
// would show the judge, and the reader, other text than the model
// produced; answer_b_source, when given, must say what was graded. A text
// that addresses the judge is flagged for a maintainer with the markers
// found (inject.Markers, which is judge.InjectionMarkers).
func (c *check) answer(file string, row *submission.RubricRow, b *benchmark.Benchmark) (graded string, ok bool) {
	limit := b.Entry.AnswerCap()
	for _, f := range []struct {
		name string
		size int
	}{{"answer_b", len(row.Answer)}, {"answer_b_clean", len(row.AnswerClean)}} {
		if f.size > limit {
			c.errorf(codeTooLong, file, row.Line, row.ID, "%s is %d bytes, over the %d bytes an answer to benchmark %q may hold (max_answer_bytes in %s), and is not sent to the judge; generate the answer again with a lower --max-tokens, or ask the maintainers to raise the cap", f.name, f.size, limit, b.Entry.Key, benchmark.RegistryFile)
			return "", false
		}
	}
	// The rule of a rubric benchmark; see submission.DefaultAnswerRule.
	graded, source := submission.DefaultAnswerRule(true).Graded(row.Answer, row.Reasoning)
	if source == submission.SourceReasoning && len(row.Reasoning) > limit {
		c.errorf(codeTooLong, file, row.Line, row.ID, "reasoning, graded because answer_b holds no answer, is %d bytes, over the %d bytes an answer to benchmark %q may hold (max_answer_bytes in %s), and is not sent to the judge; generate the answer again with a lower --max-tokens, or ask the maintainers to raise the cap", len(row.Reasoning), limit, b.Entry.Key, benchmark.RegistryFile)
		return "", false
	}
	if row.Source != "" && row.Source != source {
		c.errorf(codeSource, file, row.Line, row.ID, "answer_b_source is %q, but answer_b holds an answer, and that is what the judge grades; regenerate the row with the tools (`benchgate generate` run again with the same --output rewrites it without asking the model, then `benchgate score`)", clip(row.Source))
	}
	// Text that no reader sees can still be read by the judge: tag
	// characters spell words invisibly, zero-width characters split
	// them. An answer that holds any is not graded.
	texts := [][2]string{{"answer_b", row.Answer}, {"answer_b_clean", row.AnswerClean}}
	if source == submission.SourceReasoning {
		texts = append(texts, [2]string{"reasoning (graded because answer_b holds no answer)", row.Reasoning})
	}
	for _, f := range texts {
		if msg := submission.HiddenInAnswer(f[0], f[1]); msg != "" {
			c.errorf(codeHidden, file, row.Line, row.ID, "%s", msg)
			return "", false
		}
	}
	// Words that mix scripts to pass for Latin ones are read by the
	// judge as the words they imitate; the markers look at the text as
	// it reads (safetext.Unconfuse).
	if cs := safetext.Confusables(graded); len(cs) > 0 {
		c.warnf(codeConfusable, file, row.Line, row.ID, "the answer %s; words that mix scripts to look like Latin ones hide what a text says from checks that read it, and no honest answer needs them; a maintainer must read it and decide whether the grade stands", submission.ConfusableWords(cs))
	}
	markers := inject.Markers(graded)
	if row.HasClean && row.AnswerClean != graded {
		of := "answer_b"
		if source == submission.SourceReasoning {
			of = "reasoning (answer_b holds no answer)"
		}
		c.errorf(codeClean, file, row.Line, row.ID, "answer_b_clean is not the clean form of "+of+" (%s): the judge grades the clean form of the model's reply and nothing else; regenerate it with the tools (`benchgate generate` run again with the same --output rewrites it without asking the model, then `benchgate score`), never edit answer_b_clean", cleanDifference(row.AnswerClean, graded))
		// What was offered to the judge instead counts too.
		markers = union(markers, inject.Markers(row.AnswerClean))
	}
	if len(markers) > 0 {
		c.warnf(codeInjection, file, row.Line, row.ID, "the answer addresses the judge instead of answering the question: %s; a maintainer must read it and decide whether the grade stands", strings.Join(markers, "; "))
	}
	return graded, true
}

// cleanDifference says where answer_b_clean parts from the clean form.
func cleanDifference(got, want string) string {
	at, g, w := parting(got, want)
	return fmt.Sprintf("from character %d answer_b_clean has %s where the clean form of answer_b has %s", at, g, w)
}

func union(a, b []string) []string {
	for _, s := range b {
		found := false
		for _, t := range a {
			found = found || s == t
		}
		if !found {
			a = append(a, s)
		}
	}
	return a
}
