package extract

import (
	"strings"
	"testing"
)

// flexibleCases document policy flexible: each says what a response reads
// as, and why.
var flexibleCases = []struct {
	in, letter, pattern, why string
}{
	// Answer statements beat everything else.
	{"Answer: D", "D", "answer_statement", `"Answer: D" is D (formationeval-v0.1 reads the A of "Answer")`},
	{"ANSWER: C", "C", "answer_statement", "capitals"},
	{"answer: b", "B", "answer_statement", "lowercase letter after an explicit statement"},
	{"The answer is B.", "B", "answer_statement", "answer is X"},
	{"Final answer: C", "C", "answer_statement", "final answer"},
	{"**Final Answer:** **(C)**", "C", "answer_statement", "markdown and parentheses around the letter"},
	{"**Answer:** (C) Porosity increases", "C", "answer_statement", "option text after the letter"},
	{"A. Porosity.\n\nActually, the answer is C.", "C", "answer_statement", "a statement beats a leading letter"},
	{"The answer is B, not A.", "B", "answer_statement", "the negated letter after it is not a second answer"},
	{"The answer is A, but let me reconsider... the answer is D.", "D", "answer_statement", "the last statement wins: models revise"},
	{"The correct answer is therefore D", "D", "answer_statement", "adverb between is and the letter"},
	{"The answer would be (b)", "B", "answer_statement", "would be, lowercase letter in brackets"},
	{"So the correct answer choice is therefore C", "C", "answer_statement", "answer choice is, then an adverb"},
	{"Answer - B", "B", "answer_statement", "dash as connector"},
	{"## Answer\n\nC", "C", "answer_statement", "heading then the letter on its own line"},
	{"answer D.D", "D", "answer_statement", "no connector, but the letter stands alone"},
	{"Answer: \\boxed{A}", "A", "boxed", "boxed"},
	{"\\boxed{B}", "B", "boxed", "boxed alone"},
	{"so the result is $\\boxed{\\text{C}}$", "C", "boxed", "boxed text"},
	{"The answer is a porous sandstone.", "", "", "the article after 'answer is' is not a letter"},
	{"If the answer is A, porosity would be higher. It is not.", "", "", "conditional statement does not count"},
	{"Answer: A or B", "", "", "two letters in the statement are ambiguous"},
	{"I don't know the answer.", "", "", "no letter"},
	// Weak statements, when there is no answer statement.
	{"I'll go with option C.", "C", "pick_statement", "go with option X"},
	{"I would choose D because the log reads high.", "D", "pick_statement", "choose X"},
	{"I would not choose A. Porosity is key.", "", "", "negated pick, nothing else"},
	{"The correct choice is (C).", "C", "choice_statement", "choice is (X)"},
	{"Best option: B", "B", "choice_statement", "option: X"},
	{"Option C is correct since density drops.", "C", "choice_statement", "X is correct"},
	{"Answer: B\n\nOption A is correct only for carbonates.", "B", "answer_statement", "a strong statement beats a later weak one"},
	// Reasoning is ignored.
	{"<think>The answer is A.</think>\nB", "B", "leading_letter", "closed think block"},
	{"<thinking>maybe C</thinking>Answer: D", "D", "answer_statement", "closed thinking block"},
	{"B\n<think>Hmm, the answer is C", "B", "leading_letter", "an unclosed think block hides what follows"},
	{"<THINK>answer: A</THINK> (D)", "D", "leading_letter", "tags in any case"},
	{"Let me weigh A against C. Answer: A</think>Final answer: C", "C", "answer_statement", "a closing tag without an opening one hides what precedes"},
	{"<reasoning>answer is B</reasoning>The answer is C", "C", "answer_statement", "reasoning blocks too"},
	{"<think>answer is B", "", "", "only reasoning, never closed"},
	// Leading letter, with the article rule.
	{"B", "B", "leading_letter", "bare letter"},
	{"(B)", "B", "leading_letter", "parentheses"},
	{"**A**", "A", "leading_letter", "bold A is a letter, not an article"},
	{"A", "A", "leading_letter", "A alone is a letter"},
	{"A)", "A", "leading_letter", "A) is a letter"},
	{"A.", "A", "leading_letter", "A. is a letter"},
	{"A porous rock is one with connected pores.", "", "", "A followed by a word is the article"},
	{"A is correct because the tool reads bulk density.", "A", "choice_statement", "X is correct"},
	{"B) Porosity increases with depth", "B", "leading_letter", "option text echoed after the letter"},
	{"c) The neutron log", "C", "leading_letter", "lowercase letter with a bracket"},
	{"((D))", "D", "leading_letter", "doubled brackets"},
	{"\nC", "C", "leading_letter", "leading blank line"},
	{"D'Arcy's law governs flow.", "", "", "D' glued to a word is not a letter"},
	{"A, B and C all increase porosity", "", "", "a list of letters at the start is ambiguous"},
	{"C.C", "C", "leading_letter", "letter repeated"},
	{"a", "A", "leading_letter", "a lowercase letter alone is a letter"},
	{"Option A: wrong. Option B: right.", "", "", "naming two options at the start is no answer"},
	{"Option B: porosity falls with depth.", "B", "leading_letter", "one option named at the start"},
	{"A) Incorrect: too shallow.\nB) Correct: matches the log.\nC) Incorrect.\nD) Incorrect.", "", "", "a walk through the options is not a leading answer"},
	{"A) wrong\nB) wrong\nC) wrong\nD) right\n\nSo D is the best answer.", "D", "choice_statement", "the conclusion after the walk"},
	// Letter at the end.
	{"Density falls as porosity rises, so I think it's probably B", "B", "trailing_letter", "trailing letter, only one in its sentence"},
	{"-down length.C", "C", "trailing_letter", "letter glued after the final period"},
	{"correct.A", "A", "trailing_letter", "formationeval-v0.1 reads the C of correct"},
	{"Porosity controls it.\n\nThe density log settles it.\n\nC", "C", "last_line", "a last line that is just the letter"},
	{"A. Considering all of it.\nD", "D", "last_line", "the last line beats a leading letter"},
	{"Gas lowers the neutron reading.\n**Option C.**", "C", "last_line", "last line naming the option"},
	{"Porosity would be lower if it were B", "", "", "a conditional final letter is not an answer"},
	{"It could be A or B", "", "", "two letters, no statement: ambiguous"},
	{"Clearly not B", "", "", "a negated letter is not an answer"},
	{"The permeability is 1 D", "", "", "a unit after a number is not a letter"},
	// One letter mentioned.
	{"I believe (C) fits best because the shale is thin. Sonic confirms it.", "C", "single_letter", "only one letter mentioned"},
	{"C/O logging measures carbon and oxygen.", "", "", "C/O is not a letter"},
	{"Type-A kerogen is oil prone; see below.", "", "", "type-A is a compound"},
	// Edge cases.
	{"", "", "", "empty"},
	{"   \n\t ", "", "", "blank"},
	{"Porosity increases.", "", "", "no letter"},
	{"Ответ: C", "C", "trailing_letter", "unicode text before the letter"},
	{"Réponse : (B) est la bonne.", "B", "single_letter", "unicode and a bracketed letter"},
	{"\xffB\xfe", "B", "single_letter", "invalid UTF-8 bytes are not letters, so B stands alone"},
	{"\xff B", "B", "trailing_letter", "invalid UTF-8 then a letter"},
}

func TestFlexible(t *testing.T) {
	p, err := Lookup(Flexible)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range flexibleCases {
		got := p.Extract(c.in)
		if got.Letter != c.letter || got.Pattern != c.pattern {
			t.Errorf("%q (%s): got %q/%q, want %q/%q", c.in, c.why, got.Letter, got.Pattern, c.letter, c.pattern)
		}
		if got.Final {
			t.Errorf("%q: flexible never sets Final", c.in)
		}
	}
}

func TestFlexibleLongInput(t *testing.T) {
	p, _ := Lookup(Flexible)
	long := strings.Repeat("The porosity of a rock depends on sorting and cementation. ", 20000)
	if got := p.Extract(long + "\n\nAnswer: C"); got.Letter != "C" {
		t.Errorf("long response: got %+v, want C", got)
	}
	if got := p.Extract("<think>" + long + "</think>B"); got.Letter != "B" {
		t.Errorf("long reasoning: got %+v, want B", got)
	}
	if got := p.Extract(long); got.Letter != "" {
		t.Errorf("long response without a letter: got %+v", got)
	}
}
