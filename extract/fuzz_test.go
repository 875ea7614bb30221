package extract

import "testing"

// fuzzPolicy checks, for any response and continuation: no panic, a valid
// letter, a pattern exactly when there is a letter, the same result twice,
// and the Final guarantee for the continuation and for a cut of the
// response.
func fuzzPolicy(f *testing.F, name string) {
	p, err := Lookup(name)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, response, suffix string) {
		r := p.Extract(response)
		switch r.Letter {
		case "", "A", "B", "C", "D":
		default:
			t.Fatalf("Extract(%q) letter %q", response, r.Letter)
		}
		if (r.Letter == "") != (r.Pattern == "") {
			t.Fatalf("Extract(%q) = %+v: pattern and letter disagree", response, r)
		}
		if r.Final && r.Letter == "" {
			t.Fatalf("Extract(%q) = %+v: Final without a letter", response, r)
		}
		if again := p.Extract(response); again != r {
			t.Fatalf("Extract(%q) gave %+v then %+v", response, r, again)
		}
		checkFinal(t, p, response, suffix)
		if k := len(suffix) % (len(response) + 1); k < len(response) {
			checkFinal(t, p, response[:k], response[k:])
		}
	})
}

func FuzzFormationEval(f *testing.F) { fuzzPolicy(f, FormationEval) }

func FuzzAnswerLine(f *testing.F) { fuzzPolicy(f, AnswerLine) }

func FuzzFlexible(f *testing.F) { fuzzPolicy(f, Flexible) }
