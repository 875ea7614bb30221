package rerun

import (
	"math"
	"testing"
)

// agree is an observation on which the judge repeats the reported grade.
var agree = Observation{Reported: 7, Judged: 7, ReportedGate: true, JudgedGate: true}

// flip is a gate the judge fails although the submission reports it
// passed: the largest disagreement there is.
var flip = Observation{Reported: 10, Judged: 0, ReportedGate: true, JudgedGate: false}

func TestDefaultRuleIsValid(t *testing.T) {
	r := DefaultRule()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	// The documented reasons for the defaults rest on these figures.
	lower, upper := r.Bounds()
	if math.Abs(upper-4.554) > 0.001 || math.Abs(lower+2.986) > 0.001 {
		t.Errorf("Bounds() = %.4f, %.4f; want ln(0.95/0.01), ln(0.05/0.99)", lower, upper)
	}
	if z := r.Increment(100); z >= upper || math.Abs(z-2.663) > 0.001 {
		t.Errorf("largest increment %.4f; want 2.663, below ln A %.4f", z, upper)
	}
}

func TestValidate(t *testing.T) {
	for name, mod := range map[string]func(*Rule){
		"zero sigma":     func(r *Rule) { r.Sigma = 0 },
		"negative delta": func(r *Rule) { r.Delta = -1 },
		"NaN clip":       func(r *Rule) { r.Clip = math.NaN() },
		"alpha 0":        func(r *Rule) { r.Alpha = 0 },
		"beta 1":         func(r *Rule) { r.Beta = 1 },
		"alpha+beta 1":   func(r *Rule) { r.Alpha, r.Beta = 0.5, 0.5 },
		"negative MinN":  func(r *Rule) { r.MinN = -1 },
		"negative Jump":  func(r *Rule) { r.Jump = -1 },
		"MaxN < MinN":    func(r *Rule) { r.MaxN = r.MinN - 1 },
		"share above 1":  func(r *Rule) { r.ContradictionShare = 1.5 },
	} {
		r := DefaultRule()
		mod(&r)
		if r.Validate() == nil {
			t.Errorf("%s: Validate() = nil", name)
		}
	}
}

func TestDecisionString(t *testing.T) {
	for d, want := range map[Decision]string{Continue: "continue", Consistent: "consistent", Inconsistent: "inconsistent", 7: "Decision(7)"} {
		if got := d.String(); got != want {
			t.Errorf("%d.String() = %q; want %q", int(d), got, want)
		}
	}
}

// TestOneFlipNeverDecides puts a single gate flip (d = 10, also a
// contradiction) at every position of a run of agreements: it must never
// make the test inconsistent, and the agreements must end consistent.
func TestOneFlipNeverDecides(t *testing.T) {
	r := DefaultRule()
	for at := range 60 {
		test := r.Start()
		var d Decision
		for i := 0; i < 60 && d == Continue; i++ {
			o := agree
			if i == at {
				o = flip
			}
			d = test.Add(o)
		}
		if d != Consistent {
			t.Errorf("flip at %d: decision %v after %d observations, LLR %.3f; want consistent", at, d, test.N(), test.LLR())
		}
	}
	// Also with no minimum sample: the single increment is below ln A.
	r.MinN = 0
	test := r.Start()
	if d := test.Add(flip); d != Continue {
		t.Errorf("a first observation d = 10 with MinN 0 gives %v", d)
	}
}

func TestTwoEarlyFlipsNeedMore(t *testing.T) {
	// Two flips first add 5.3, past ln A, but MinN makes the test wait,
	// and six agreements bring the ratio back below the boundary.
	test := DefaultRule().Start()
	seq := []Observation{flip, flip, agree, agree, agree, agree, agree, agree}
	for i, o := range seq {
		if d := test.Add(o); d != Continue {
			t.Fatalf("decision %v at observation %d (LLR %.3f)", d, i+1, test.LLR())
		}
	}
}

func TestMinN(t *testing.T) {
	r := DefaultRule()
	r.MinN = 10
	test := r.Start()
	inflated := Observation{Reported: 9, Judged: 4, ReportedGate: true, JudgedGate: true}
	for i := 1; i <= 10; i++ {
		d := test.Add(inflated)
		switch {
		case i < 10 && d != Continue:
			t.Fatalf("decision %v at observation %d, before MinN", d, i)
		case i == 10 && d != Inconsistent:
			t.Fatalf("decision %v at MinN with LLR %.2f; want inconsistent", d, test.LLR())
		}
	}
}

func TestIdenticalScoresConsistent(t *testing.T) {
	r := DefaultRule()
	lower, _ := r.Bounds()
	// Each agreement adds −Delta²/(2·Sigma²); the test is consistent once
	// the sum reaches ln B and MinConsistent observations are in.
	want := max(r.MinN, r.MinConsistent, int(math.Ceil(lower/r.Increment(0))))
	test := r.Start()
	for i := 1; i <= 50; i++ {
		if d := test.Add(agree); d != Continue {
			if d != Consistent || i != want {
				t.Fatalf("decision %v at %d; want consistent at %d", d, i, want)
			}
			if test.MeanDiff() != 0 || test.Contradictions() != 0 || test.Jumps() != 0 {
				t.Errorf("MeanDiff %g, Contradictions %d, Jumps %d; want 0", test.MeanDiff(), test.Contradictions(), test.Jumps())
			}
			return
		}
	}
	t.Fatal("no decision after 50 agreements")
}

func TestLLRByHand(t *testing.T) {
	r := Rule{Delta: 1, Sigma: 2, Clip: 3, Alpha: 0.01, Beta: 0.05, MinN: 100}
	test := r.Start()
	// (1/4)·(2 − 0.5) + (1/4)·(−1 − 0.5) + (1/4)·(3 − 0.5), the last
	// difference (7) clipped to 3, and (1/4)·(−3 − 0.5) for −9.
	obs := []Observation{
		{Reported: 6, Judged: 4},
		{Reported: 5, Judged: 6},
		{Reported: 9, Judged: 2},
		{Reported: 0, Judged: 9},
	}
	want := []float64{0.375, 0, 0.625, -0.25}
	for i, o := range obs {
		test.Add(o)
		if got := test.LLR(); math.Abs(got-want[i]) > 1e-12 {
			t.Errorf("LLR after %d observations = %g; want %g", i+1, got, want[i])
		}
	}
	// The mean difference is not clipped: (2 − 1 + 7 − 9)/4.
	if got := test.MeanDiff(); got != -0.25 {
		t.Errorf("MeanDiff() = %g; want -0.25", got)
	}
	if test.N() != 4 {
		t.Errorf("N() = %d; want 4", test.N())
	}
}

func TestContradictions(t *testing.T) {
	r := DefaultRule()
	test := r.Start()
	// Only a gate reported passed and judged failed counts.
	for _, o := range []Observation{
		{Reported: 6, Judged: 0, ReportedGate: true, JudgedGate: false},
		{Reported: 0, Judged: 6, ReportedGate: false, JudgedGate: true},
		{Reported: 0, Judged: 0},
		{Reported: 6, Judged: 6, ReportedGate: true, JudgedGate: true},
		{Reported: 6, Judged: 0, ReportedGate: true, JudgedGate: false},
	} {
		test.Add(o)
	}
	if got := test.Contradictions(); got != 2 {
		t.Errorf("Contradictions() = %d; want 2", got)
	}

	// A contradiction whose score difference is small, and no consistent
	// decision, so that only the contradiction rule can decide.
	c := Observation{Reported: 5, Judged: 4, ReportedGate: true, JudgedGate: false}
	r.MinConsistent = 100
	run := func(seq []Observation) (Decision, *Test) {
		test := r.Start()
		d := Continue
		for _, o := range seq {
			if d = test.Add(o); d != Continue {
				break
			}
		}
		return d, test
	}
	// Three contradictions in three observations: fewer than four.
	seq := []Observation{c, c, c}
	for range 20 {
		seq = append(seq, agree)
	}
	if d, test := run(seq); d == Inconsistent {
		t.Errorf("three contradictions decided inconsistent at %d", test.N())
	}
	// Four among the first eight: a quarter and more.
	if d, test := run([]Observation{c, agree, c, agree, c, agree, c, agree}); d != Inconsistent || test.N() != 8 {
		t.Errorf("four contradictions in eight: %v at %d; want inconsistent at 8", d, test.N())
	}
	// Four among twenty: too small a share.
	seq = []Observation{c, c, c, c}
	for len(seq) < 20 {
		seq = append([]Observation{agree}, seq...)
	}
	if d, test := run(seq); d == Inconsistent {
		t.Errorf("four contradictions among twenty decided inconsistent at %d", test.N())
	}
	// Turned off, the rule never decides.
	r.MinContradictions = 0
	if d, _ := run([]Observation{c, c, c, c, c, c, c, c}); d != Continue {
		t.Errorf("eight contradictions with the rule off: %v", d)
	}
}

func TestJumpsDelayConsistent(t *testing.T) {
	r := DefaultRule()
	jump := Observation{Reported: 8, Judged: 4, ReportedGate: true, JudgedGate: true}
	test := r.Start()
	test.Add(jump)
	for test.Add(agree) == Continue {
	}
	if test.Decision() != Consistent || test.N() != r.MinConsistent+r.JumpExtra {
		t.Errorf("one jump: %v at %d; want consistent at %d", test.Decision(), test.N(), r.MinConsistent+r.JumpExtra)
	}
	if test.Jumps() != 1 {
		t.Errorf("Jumps() = %d; want 1", test.Jumps())
	}
	// A difference of Jump−1 points, or one the other way, is no jump.
	test = r.Start()
	test.Add(Observation{Reported: 7, Judged: 4, ReportedGate: true, JudgedGate: true})
	test.Add(Observation{Reported: 0, Judged: 9, ReportedGate: false, JudgedGate: true})
	if test.Jumps() != 0 {
		t.Errorf("Jumps() = %d; want 0", test.Jumps())
	}
}

func TestDecisionIsFinal(t *testing.T) {
	test := DefaultRule().Start()
	for test.Add(agree) == Continue {
	}
	n, llr := test.N(), test.LLR()
	if d := test.Add(flip); d != Consistent || test.N() != n || test.LLR() != llr || test.Contradictions() != 0 {
		t.Errorf("after the decision Add gave %v and changed the state", d)
	}
	if !test.Done() {
		t.Error("Done() = false after a decision")
	}
}

func TestDone(t *testing.T) {
	r := DefaultRule()
	r.MaxN = 12
	r.MinConsistent = 30
	test := r.Start()
	for i := range 12 {
		if test.Done() {
			t.Fatalf("Done() before the cap, at %d", i)
		}
		test.Add(agree)
	}
	if !test.Done() || test.Decision() != Continue {
		t.Errorf("at MaxN: Done() = %v, Decision() = %v; want true, continue", test.Done(), test.Decision())
	}
	var zero Test
	if zero.MeanDiff() != 0 {
		t.Error("MeanDiff of no observations is not 0")
	}
}
