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

// by returns an observation whose reported score exceeds the judged one by
// d points, both gates passed.
func by(d int) Observation {
	return Observation{Reported: 5 + d, Judged: 5, ReportedGate: true, JudgedGate: true}
}

// run adds seq to a test of r until it decides.
func run(r Rule, seq []Observation) (Decision, *Test) {
	test := r.Start()
	d := Continue
	for _, o := range seq {
		if d = test.Add(o); d != Continue {
			break
		}
	}
	return d, test
}

// repeat returns n copies of the pattern's observations, in turn.
func repeat(n int, pattern ...Observation) []Observation {
	out := make([]Observation, n)
	for i := range out {
		out[i] = pattern[i%len(pattern)]
	}
	return out
}

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
}

func TestValidate(t *testing.T) {
	for name, mod := range map[string]func(*Rule){
		"negative tolerance":     func(r *Rule) { r.Tolerance = -0.1 },
		"tolerance at delta":     func(r *Rule) { r.Tolerance = r.Delta },
		"zero sigma":             func(r *Rule) { r.Sigma = 0 },
		"zero sigma floor":       func(r *Rule) { r.MinSigma = 0 },
		"NaN clip":               func(r *Rule) { r.Clip = math.NaN() },
		"alpha 0":                func(r *Rule) { r.Alpha = 0 },
		"beta 1":                 func(r *Rule) { r.Beta = 1 },
		"alpha+beta 1":           func(r *Rule) { r.Alpha, r.Beta = 0.5, 0.5 },
		"negative MinN":          func(r *Rule) { r.MinN = -1 },
		"zero Jump":              func(r *Rule) { r.Jump = 0 },
		"MaxN < MinN":            func(r *Rule) { r.MaxN = r.MinN - 1 },
		"share above 1":          func(r *Rule) { r.ContradictionShare = 1.5 },
		"jump share 0":           func(r *Rule) { r.Share = 0 },
		"jump rate too high":     func(r *Rule) { r.JumpRate = 1 - r.Share },
		"no slip rate":           func(r *Rule) { r.SlipRate = 0 },
		"slip rate too high":     func(r *Rule) { r.SlipRate = 1 - r.Share },
		"negative fixtures":      func(r *Rule) { r.DriftFixtures = -1 },
		"zero drift clip":        func(r *Rule) { r.DriftClip = 0 },
		"fault share above 1":    func(r *Rule) { r.FaultShare = 2 },
		"negative minimum fault": func(r *Rule) { r.MinFaults = -1 },
	} {
		r := DefaultRule()
		mod(&r)
		if r.Validate() == nil {
			t.Errorf("%s: Validate() = nil", name)
		}
	}
	r := DefaultRule()
	r.MaxN = 0 // no cap
	if err := r.Validate(); err != nil {
		t.Errorf("MaxN 0: %v", err)
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
		seq := repeat(80, agree)
		seq[at] = flip
		if d, test := run(r, seq); d != Consistent {
			t.Errorf("flip at %d: decision %v after %d observations, LLR %.3f; want consistent", at, d, test.N(), test.LLR())
		}
	}
}

// TestTolerance: differences averaging the tolerance, a quarter point,
// are honest; the same sequence a point higher on every question is not.
func TestTolerance(t *testing.T) {
	r := DefaultRule()
	quarter := repeat(50, by(1), by(0), by(0), by(0))
	if d, test := run(r, quarter); d != Consistent {
		t.Errorf("mean difference 0.25 (the tolerance): %v after %d, LLR %.2f; want consistent", d, test.N(), test.LLR())
	}
	plusOne := repeat(50, by(2), by(1), by(1), by(1))
	if d, test := run(r, plusOne); d != Inconsistent {
		t.Errorf("mean difference 1.25: %v after %d, LLR %.2f; want inconsistent", d, test.N(), test.LLR())
	}
	// A mean difference of 0.6 is below the midpoint of the tolerance and
	// Delta, 0.625, and above that of 0 and Delta: inconsistent only when
	// nothing is tolerated.
	point6 := repeat(300, by(1), by(1), by(1), by(0), by(0))
	if d, test := run(r, point6); d == Inconsistent {
		t.Errorf("mean difference 0.6 with tolerance 0.25: inconsistent after %d", test.N())
	}
	r.Tolerance = 0
	if d, test := run(r, point6); d != Inconsistent {
		t.Errorf("mean difference 0.6 with tolerance 0: %v after %d; want inconsistent", d, test.N())
	}
}

// TestSpreadEstimated: the spread of the differences is estimated as they
// arrive, so the same mean difference decides later when they scatter
// more, and the estimate never falls below the floor.
func TestSpreadEstimated(t *testing.T) {
	r := DefaultRule()
	tight := repeat(50, by(1))
	wide := repeat(300, by(3), by(-1)) // also a mean of +1
	dt, tt := run(r, tight)
	dw, tw := run(r, wide)
	if dt != Inconsistent || dw != Inconsistent || tw.N() <= tt.N() {
		t.Errorf("tight: %v at %d (sigma %.2f); wide: %v at %d (sigma %.2f); want both inconsistent, the wide later",
			dt, tt.N(), tt.Sigma(), dw, tw.N(), tw.Sigma())
	}
	// Many identical differences wear the prior down to the floor.
	undecided := r
	undecided.MinN = 1000
	same := undecided.Start()
	for range 100 {
		same.Add(by(1))
	}
	if same.Sigma() != r.MinSigma {
		t.Errorf("100 identical differences give sigma %.3f; want the floor %g", same.Sigma(), r.MinSigma)
	}
	if s := tw.Sigma(); s < 1.5 || s > 2 {
		t.Errorf("differences of +3 and −1 give sigma %.3f; want near their spread of 2, pooled with the prior 1", s)
	}
	// Before any observation the prior is the spread.
	if s := r.Start().Sigma(); s != r.Sigma {
		t.Errorf("sigma before any observation %g; want %g", s, r.Sigma)
	}
}

// TestJumps: upward jumps, a gate the judge fails (a flip) or Jump points
// or more on a gate both pass (a slip), are the concentrated
// alternative's evidence; downward ones of the same kind show a judge
// that makes them, and weigh against it, while those of the other kind
// do not: a judge that flips gates does not explain slips.
func TestJumps(t *testing.T) {
	r := DefaultRule()
	slipUp, slipDown := by(5), by(-5)
	flipUp := Observation{Reported: 7, Judged: 0, ReportedGate: true, JudgedGate: false}
	flipDown := Observation{Reported: 0, Judged: 7, ReportedGate: false, JudgedGate: true}
	for name, up := range map[string]Observation{"slip": slipUp, "flip": flipUp} {
		d, test := run(r, repeat(30, up, agree, agree, agree, agree))
		if d != Inconsistent {
			t.Errorf("an upward %s on every fifth question: %v after %d", name, d, test.N())
		}
		if test.Jumps() == 0 {
			t.Errorf("%s: Jumps() = 0", name)
		}
	}
	// A judge that flips a gate one time in twelve each way, four times
	// the assumed rate, or slips as often, is not taken for inflation.
	for name, pair := range map[string][2]Observation{"flips": {flipUp, flipDown}, "slips": {slipUp, slipDown}} {
		balanced := repeat(60, pair[0], agree, agree, agree, agree, agree, pair[1], agree, agree, agree, agree, agree)
		if d, test := run(r, balanced); d == Inconsistent {
			t.Errorf("upward and downward %s alike: %v after %d, LLR %.2f", name, d, test.N(), test.LLR())
		}
	}
	// The jumps' ratio falls with a downward jump of the kind seen
	// upward, and not with one of the other kind, which stands only for
	// a question that did not agree.
	ratio := func(down *Observation) float64 {
		t.Helper()
		test := r.Start()
		for i := range 12 {
			o := agree
			if i == 3 {
				o = slipUp
			}
			if i == 7 && down != nil {
				o = *down
			}
			test.Add(o)
		}
		_, j := test.Components()
		return j
	}
	none, same, other := ratio(nil), ratio(&slipDown), ratio(&flipDown)
	if !(same < none) || !(other > none) {
		t.Errorf("jumps' ratio after an upward slip %.3f: %.3f with a downward slip, %.3f with a downward flip; want the slip to lower it and the flip not", none, same, other)
	}
	// A gate decided differently is a jump whatever its size.
	c := r.Start()
	c.Add(Observation{Reported: 3, Judged: 0, ReportedGate: true, JudgedGate: false})
	c.Add(by(3))
	if c.Jumps() != 1 {
		t.Errorf("Jumps() = %d; want 1 (the gate, not the +3)", c.Jumps())
	}
}

func TestMinConsistent(t *testing.T) {
	r := DefaultRule()
	d, test := run(r, repeat(60, agree))
	if d != Consistent || test.N() < r.MinConsistent || test.N() > r.MinConsistent+2 {
		t.Errorf("agreements: %v at %d; want consistent at about %d", d, test.N(), r.MinConsistent)
	}
	if test.MeanDiff() != 0 || test.Contradictions() != 0 || test.Jumps() != 0 {
		t.Errorf("MeanDiff %g, Contradictions %d, Jumps %d; want 0", test.MeanDiff(), test.Contradictions(), test.Jumps())
	}
	r.MinConsistent = 30
	if d, test := run(r, repeat(60, agree)); d != Consistent || test.N() != 30 {
		t.Errorf("MinConsistent 30: %v at %d", d, test.N())
	}
}

func TestMinN(t *testing.T) {
	r := DefaultRule()
	r.MinN = 10
	test := r.Start()
	inflated := by(5)
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

func TestLLRByHand(t *testing.T) {
	r := DefaultRule()
	r.SigmaWeight, r.MinSigma = 0, 0.5
	test := r.Start()
	// Two inner differences, +2 and 0: their spread is √2 and the shift's
	// ratio (0.75/2)·(2 − 2·(0.25 + 0.375)) = 0.28125. No jumps: the
	// jumps' ratio is that of two observations without one.
	test.Add(by(2))
	test.Add(by(0))
	shift, jumps := test.Components()
	if math.Abs(shift-0.28125) > 1e-12 {
		t.Errorf("shift ratio %g; want 0.28125", shift)
	}
	// The spread √2 makes slips more likely than SlipRate: the tail of a
	// Gaussian beyond Jump − ½ = 3.5 is 1 − Φ(3.5/√2) = 0.0067.
	least := 0.5 * math.Erfc(3.5/2)
	if least < r.SlipRate || math.Abs(least-0.00667) > 0.0001 {
		t.Fatalf("slip rate from the spread %g", least)
	}
	var num, den float64
	for _, kq := range jumpRates {
		for _, kr := range slipRates {
			q, sl := kq*r.JumpRate, kr*least
			w := 1 / (kq * kq * kr * kr)
			num += w * math.Pow(1-2*q-2*sl-r.Share, 2) // the same for every φ
			den += w * math.Pow(1-2*q-2*sl, 2)
		}
	}
	if want := math.Log(num / den); math.Abs(jumps-want) > 1e-12 {
		t.Errorf("jumps' ratio %g; want %g", jumps, want)
	}
	if want := math.Log(0.5*math.Exp(shift) + 0.5*math.Exp(jumps)); math.Abs(test.LLR()-want) > 1e-12 {
		t.Errorf("LLR %g; want the mixture's %g", test.LLR(), want)
	}
	// The mean difference is not clipped.
	test.Add(Observation{Reported: 0, Judged: 9, JudgedGate: true})
	if got := test.MeanDiff(); got != (2.0+0-9)/3 {
		t.Errorf("MeanDiff() = %g; want %g", got, (2.0-9)/3)
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
	// Four among the first eight, a quarter and more, decide with the
	// rest agreeing.
	c := Observation{Reported: 5, Judged: 4, ReportedGate: true, JudgedGate: false}
	if d, test := run(r, []Observation{c, agree, c, agree, c, agree, c, agree}); d != Inconsistent || test.N() != 8 {
		t.Errorf("four contradictions in eight: %v at %d; want inconsistent at 8", d, test.N())
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
	r.MaxN = 0
	test = r.Start()
	for range 20 {
		test.Add(agree)
	}
	if test.Done() {
		t.Error("MaxN 0: Done() before a decision")
	}
	var zero Test
	if zero.MeanDiff() != 0 {
		t.Error("MeanDiff of no observations is not 0")
	}
}

func TestFaultLimit(t *testing.T) {
	r := DefaultRule()
	for _, tc := range []struct{ calls, want int }{{0, 5}, {10, 5}, {25, 5}, {30, 6}, {50, 10}, {100, 20}} {
		if got := r.FaultLimit(tc.calls); got != tc.want {
			t.Errorf("FaultLimit(%d) = %d; want %d", tc.calls, got, tc.want)
		}
	}
}

func TestDrift(t *testing.T) {
	r := DefaultRule()
	for _, tc := range []struct {
		name    string
		diffs   []int
		bias    float64
		drifted bool
	}{
		{"no fixtures", nil, 0, false},
		{"exact", []int{0, 0, 0, 0}, 0, false},
		{"noise", []int{1, -1, 0, 1}, 0.25, false},
		{"one gate flip, clipped", []int{-8, 0, 0, 0}, -0.5, false},
		{"a point stricter everywhere", []int{-1, -1, -1, -1}, -1, true},
		{"more lenient", []int{1, 2, 0, 1}, 1, true},
		{"at the limit", []int{1, 1, 1, 0}, 0.75, false},
	} {
		bias, drifted := r.Drift(tc.diffs)
		if math.Abs(bias-tc.bias) > 1e-12 || drifted != tc.drifted {
			t.Errorf("%s: Drift(%v) = %g, %v; want %g, %v", tc.name, tc.diffs, bias, drifted, tc.bias, tc.drifted)
		}
	}
}
