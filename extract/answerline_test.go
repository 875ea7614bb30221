package extract

import (
	"strings"
	"testing"
)

var answerLineCases = []struct {
	in, letter, pattern, why string
}{
	{"ANSWER: C", "C", "answer_statement", "the canonical line"},
	{"answer: c", "C", "answer_statement", "case-insensitive"},
	{"Answer: D", "D", "answer_statement", "not the A of Answer"},
	{"The answer is B.", "B", "answer_statement", "answer is"},
	{"FINAL ANSWER: A", "A", "answer_statement", "final answer"},
	{"**Answer:** (C)", "C", "answer_statement", "markdown and parentheses"},
	{"Answer: **[B]**", "B", "answer_statement", "brackets inside bold"},
	{"Answer is: d", "D", "answer_statement", "is with a colon"},
	{"ANSWER: A\nOn reflection...\nANSWER: B", "B", "answer_statement", "the last statement wins"},
	{"Reasoning first.\n\nANSWER: C\n\nANSWER: not sure", "C", "answer_statement", "a statement without a letter does not count"},
	{"<think>ANSWER: A</think>\nANSWER: D", "D", "answer_statement", "closed think block hidden"},
	{"<thinking>ANSWER: A</thinking>B", "B", "bare_letter", "closed thinking block hidden, bare letter after"},
	{"ANSWER: B <think>ANSWER: C", "B", "answer_statement", "an unclosed think tag hides the rest"},
	{"<think>ANSWER: C", "", "", "all hidden"},
	{"The answer is a porous sandstone", "", "", "the article is not a letter"},
	{"The answer is A porous sandstone", "", "", "not even capitalised"},
	{"Answers: B", "", "", "answers is another word"},
	{"The correct answer choice is C", "", "", "only ANSWER: / ANSWER IS statements"},
	{"B", "B", "bare_letter", "bare letter"},
	{"(b)", "B", "bare_letter", "bracketed"},
	{"**B**", "B", "bare_letter", "bold"},
	{"B.", "B", "bare_letter", "with a period"},
	{"  A \n", "A", "bare_letter", "surrounding blanks"},
	{"B) Porosity", "", "", "option text is more than a bare letter"},
	{"I think it is B", "", "", "no statement"},
	{"A porous rock", "", "", "no statement"},
	{"", "", "", "empty"},
	{"Ответ: B", "", "", "no English statement"},
	{"Answer: \xffC", "", "", "an invalid byte where the letter should be"},
	{"Answer: C\xff\xfe", "C", "answer_statement", "invalid UTF-8 after the letter is not a word character"},
}

func TestAnswerLine(t *testing.T) {
	p, err := Lookup(AnswerLine)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range answerLineCases {
		got := p.Extract(c.in)
		if got.Letter != c.letter || got.Pattern != c.pattern {
			t.Errorf("%q (%s): got %q/%q, want %q/%q", c.in, c.why, got.Letter, got.Pattern, c.letter, c.pattern)
		}
		if got.Final {
			t.Errorf("%q: answer-line never sets Final", c.in)
		}
	}
}

func TestAnswerLineLongInput(t *testing.T) {
	p, _ := Lookup(AnswerLine)
	long := strings.Repeat("Consider the density log and the neutron log together. ", 20000)
	if got := p.Extract(long + "\nANSWER: B"); got.Letter != "B" {
		t.Errorf("got %+v", got)
	}
}
