package extract

import (
	"strings"
	"testing"
)

// formationEvalCases pin the upstream rules, quirks included: the policy
// exists to reproduce published numbers, not to be right.
var formationEvalCases = []struct {
	in, letter, pattern string
	final               bool
	why                 string
}{
	{"B", "B", "first_char", true, "bare letter"},
	{"  c) porosity", "C", "first_char", true, "trimmed and uppercased"},
	{"**B**", "B", "first_char", true, "bold unwrapped"},
	{"*D* because", "D", "first_char", true, "italic unwrapped"},
	{"Answer: D", "A", "first_char", true, "upstream quirk: the A of ANSWER"},
	{"answer B.B", "A", "first_char", true, "upstream quirk, lowercase"},
	{"correct.A", "C", "first_char", true, "upstream quirk: the C of CORRECT"},
	{"A porous rock", "A", "first_char", true, "the article counts"},
	{"<think>It is A.</think>\n\nC", "C", "first_char", false, "closed think block removed; a '<' before the letter means not Final"},
	{"<thinking>x</thinking>D", "D", "first_char", false, "closed thinking block removed"},
	{"<think>unclosed B", "B", "end_of_string", false, "an unclosed block stays"},
	{"<THINK>x</THINK> B", "B", "end_of_string", false, "tags are case-sensitive: nothing removed"},
	{"The correct answer: C", "C", "correct_answer", false, "correct answer"},
	{"The answer is: B", "B", "answer_is", false, "answer is"},
	{"Final Answer: C", "C", "answer_colon", false, "answer colon"},
	{"I choose d", "D", "choose", false, "choose"},
	{"My choice is: c", "C", "choice_is", false, "choice is"},
	{"The option B", "B", "option", false, "option"},
	{"I select C", "C", "select", false, "select"},
	{"I go with D", "D", "go_with", false, "go with"},
	{"Hmm (b) fits", "B", "parentheses", false, "parentheses"},
	{"Hmm: b) fits", "B", "letter_paren", false, "letter paren"},
	{"Hmm: b. fits", "B", "letter_period", false, "letter period"},
	{"Hmm: b, fits", "B", "letter_comma", false, "letter comma"},
	{"Probably b", "B", "end_of_string", false, "end of string"},
	{"It is b or so", "B", "is_x", false, "is X"},
	{"Not a, not b, maybe c or d or e", "A", "letter_comma", false, "first letter comma"},
	{"Neither b nor c fits here", "C", "standalone", false, "the last standalone letter"},
	{"\\boxed{B}", "B", "standalone", false, "boxed is a standalone letter"},
	{"((D))", "D", "parentheses", false, "parentheses"},
	{".C", "C", "end_of_string", false, "end of string after a period"},
	{"is C.C", "C", "letter_period", false, "letter period before end of string"},
	{"The answer:   \n\n  C", "C", "answer_colon", false, "whitespace collapsed"},
	{"The CORRECTANSWER: B", "B", "answer_colon", false, "no space: not correct_answer"},
	{"Porosity", "", "", false, "no letter"},
	{"", "", "", false, "empty"},
	{" \u00a0\u2003\x1c", "", "", false, "only Python whitespace"},
	{"éB", "", "", false, "a non-ASCII letter before B is a word character"},
	{"\u0301B.", "B", "letter_period", false, "a combining mark is not a word character"},
	{"ǰB)", "B", "letter_paren", false, "ǰ uppercases to J and a combining mark, so B starts a word"},
	{"ẚ", "A", "first_char", true, "ẚ uppercases to A and a modifier letter"},
	{"\u00a0b", "B", "first_char", true, "no-break space is trimmed"},
	{"\xffB", "B", "end_of_string", false, "invalid UTF-8 is not a word character"},
	{"*A**B*", "A", "first_char", true, "first unwrap consumes both stars"},
	{"x *B*C", "", "", false, "unwrapped B joins C into one word"},
}

func TestFormationEval(t *testing.T) {
	p, err := Lookup(FormationEval)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range formationEvalCases {
		got := p.Extract(c.in)
		want := Result{Letter: c.letter, Pattern: c.pattern, Final: c.final}
		if got != want {
			t.Errorf("%q (%s): got %+v, want %+v", c.in, c.why, got, want)
		}
	}
}

func TestFormationEvalLongInput(t *testing.T) {
	p, _ := Lookup(FormationEval)
	long := strings.Repeat("Porosity is the fraction of pore volume. ", 50000)
	if got := p.Extract(long + "The answer is C"); got.Letter != "C" || got.Pattern != "answer_is" {
		t.Errorf("got %+v", got)
	}
	if got := p.Extract("<think>" + long + "</think>D " + long); got != (Result{"D", "first_char", false}) {
		t.Errorf("got %+v", got)
	}
}
