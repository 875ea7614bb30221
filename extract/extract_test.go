package extract

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{AnswerLine, Flexible, FormationEval}) || !slices.IsSorted(got) {
		t.Errorf("Names() = %v", got)
	}
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil || p.Name() != name {
			t.Errorf("Lookup(%q) = %q, %v", name, p.Name(), err)
		}
	}
	p, err := Lookup("")
	if err != nil || p.Name() != Flexible {
		t.Errorf(`Lookup("") = %q, %v; want flexible`, p.Name(), err)
	}
	_, err = Lookup("strict")
	if err == nil {
		t.Fatal(`Lookup("strict") succeeded`)
	}
	for _, name := range Names() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
	var zero Policy
	if zero.Name() != Flexible || zero.Extract("Answer: D").Letter != "D" {
		t.Errorf("zero Policy is not flexible")
	}
}

// finalProbes are prefixes chosen to tempt a wrong Final: letters that a
// continuation could move into or out of a think block, or unwrap.
var finalProbes = []string{
	"A", "B.", " c", "**B**", "*A*", "*A", "**", "ẚ", "\u00a0D",
	"<think>x</think>A", "A<think>", "A<thi", "<think><thinking></think>A",
	"<thinking>x</thinking>B <think", "</think>C", "<", "D <", "A\xe2\x80",
	"\xe2\x80", "\xe2\x80A", "Answer: D", "The answer is C", "B\n<think>",
}

// suffixTokens build random continuations.
var suffixTokens = []string{
	"A", "B", "c", "D", " ", "\n", "*", "**", "<", ">", "/", "<think>", "</think>",
	"<thinking>", "</thinking>", "think", "ing>", "<reasoning>", "</reasoning>",
	"Answer: ", "The answer is ", "option ", "(", ")", ".", "not ", "\xa0", "\x80",
	"é", "ẚ", "\u0301",
}

func randomSuffix(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(8); n > 0; n-- {
		b.WriteString(suffixTokens[r.IntN(len(suffixTokens))])
	}
	return b.String()
}

// checkFinal fails when a Final result changes after appending suffix.
func checkFinal(t testing.TB, p Policy, prefix, suffix string) {
	r := p.Extract(prefix)
	if !r.Final {
		return
	}
	if got := p.Extract(prefix + suffix); got.Letter != r.Letter {
		t.Errorf("%s: Extract(%q) = %+v is Final, but Extract(%q) reads %q", p.Name(), prefix, r, prefix+suffix, got.Letter)
	}
}

// TestFinal checks the Final guarantee: a prefix reported Final keeps its
// letter whatever follows, here for random continuations and for every
// cut of every test input.
func TestFinal(t *testing.T) {
	inputs := slices.Clone(finalProbes)
	for _, c := range formationEvalCases {
		inputs = append(inputs, c.in)
	}
	for _, c := range flexibleCases {
		inputs = append(inputs, c.in)
	}
	for _, c := range answerLineCases {
		inputs = append(inputs, c.in)
	}
	r := rand.New(rand.NewPCG(1, 2))
	finals := 0
	for _, name := range Names() {
		p, _ := Lookup(name)
		for _, in := range inputs {
			if p.Extract(in).Final {
				finals++
			}
			for range 200 {
				checkFinal(t, p, in, randomSuffix(r))
			}
			for k := range len(in) {
				checkFinal(t, p, in[:k], in[k:])
			}
		}
	}
	if finals == 0 {
		t.Fatal("no input was Final: the property was never exercised")
	}
}

// TestDeterministic guards against hidden state between calls.
func TestDeterministic(t *testing.T) {
	for _, name := range Names() {
		p, _ := Lookup(name)
		for _, c := range flexibleCases {
			if a, b := p.Extract(c.in), p.Extract(c.in); a != b {
				t.Errorf("%s: %q gave %+v then %+v", name, c.in, a, b)
			}
		}
	}
}
