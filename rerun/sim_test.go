package rerun

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simTrials matches the table of docs/PERFORMANCE.md (seed 1), so that the
// test checks the published figures; the shares then have a standard error
// of about 0.15 points.
const simTrials = 20000

// judgeScenario returns the simulated judge of that name.
func judgeScenario(t *testing.T, name string) NoiseModel {
	t.Helper()
	for _, js := range JudgeScenarios() {
		if js.Name == name {
			if err := js.Model.Validate(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return js.Model
		}
	}
	t.Fatalf("no judge scenario %q", name)
	return NoiseModel{}
}

// TestTargets checks the acceptance criteria of the spot-check on a
// 50-question rubric benchmark, each with a small margin, so that a change
// of the rule or the model that erodes them fails here before the figures
// in docs/PERFORMANCE.md go stale. The simulation is seeded, so the
// figures are the same on every run.
func TestTargets(t *testing.T) {
	r, nm := DefaultRule(), DefaultNoiseModel()
	res := map[Scenario]SimResult{}
	for _, sc := range []Scenario{Honest, InflatedUniform, InflatedFifth} {
		res[sc] = Simulate(r, nm, sc, 50, simTrials, 1)
		t.Logf("%-24s consistent %.4f inconsistent %.4f inconclusive %.4f (drift %.4f) calls %.1f", sc, res[sc].Consistent, res[sc].Inconsistent, res[sc].Inconclusive, res[sc].Drifted, res[sc].MeanCalls)
	}
	if got := res[Honest].Inconsistent; got > 0.005 {
		t.Errorf("honest flagged inconsistent in %.2f%% of trials; target ≤ 1%%", 100*got)
	}
	for _, sc := range []Scenario{InflatedUniform, InflatedFifth} {
		if got := res[sc].Inconsistent; got < 0.95 {
			t.Errorf("%s detected in %.2f%% of trials; target ≥ 95%%", sc, 100*got)
		}
	}
	// The calls docs/PERFORMANCE.md reports, fixtures included, and the
	// ratio to the baseline it states.
	b := DefaultBaseline()
	var ours, base float64
	for _, sc := range []Scenario{Honest, InflatedUniform, InflatedFifth} {
		ours += res[sc].MeanCalls / 3
		base += SimulateBaseline(b, nm, sc, 50, simTrials, 1).MeanCalls / 3
	}
	if ratio := ours / base; ratio > 2.2 {
		t.Errorf("%.1f calls on average against the baseline's %.1f: %.2f times; documented 2.14", ours, base, ratio)
	}
	// Against the baseline that holds the rule's error rates, the goal of
	// 1.5 times. The simulation is seeded, so the figure (1.47) is the same
	// on every run.
	tb := ToleranceBaseline(r, nm, 50, simTrials, 1)
	var tbase float64
	for _, sc := range []Scenario{Honest, InflatedUniform, InflatedFifth} {
		tbase += SimulateBaseline(tb, nm, sc, 50, simTrials, 1).MeanCalls / 3
	}
	if ratio := ours / tbase; ratio > 1.5 {
		t.Errorf("%.1f calls on average against the tolerance baseline's %.1f: %.2f times; target at most 1.5", ours, tbase, ratio)
	}
}

// TestToleranceBaseline: the baseline that knows the judge and has the
// rule's tolerance keeps the promise the audit's baseline breaks (no more
// than Alpha of honest submissions flagged when the judge has moved by the
// tolerance) and detects both inflations as often as the rule must; its
// Beta is the one docs/PERFORMANCE.md states.
func TestToleranceBaseline(t *testing.T) {
	r, nm := DefaultRule(), DefaultNoiseModel()
	tb := ToleranceBaseline(r, nm, 50, simTrials, 1)
	if tb.Tolerance != r.Tolerance || tb.Alpha != r.Alpha || math.Abs(tb.Beta-0.03) > 1e-9 {
		t.Errorf("tolerance baseline %+v; documented tolerance 0.25, Alpha 0.01, Beta 0.03", tb)
	}
	strict := judgeScenario(t, "stricter by 0.25")
	if s := SimulateBaseline(tb, strict, Honest, 50, simTrials, 1); s.Inconsistent > r.Alpha {
		t.Errorf("a judge stricter by the tolerance: the tolerance baseline flags %.2f%% of honest submissions", 100*s.Inconsistent)
	}
	if s := SimulateBaseline(DefaultBaseline(), strict, Honest, 50, simTrials, 1); s.Inconsistent < 2*r.Alpha {
		t.Errorf("a judge stricter by the tolerance: the audit's baseline flags %.2f%% of honest submissions; documented 4.6%%", 100*s.Inconsistent)
	}
	for _, sc := range []Scenario{InflatedUniform, InflatedFifth} {
		if s := SimulateBaseline(tb, nm, sc, 50, simTrials, 1); s.Inconsistent < 1-r.Beta {
			t.Errorf("%s: the tolerance baseline detects %.2f%%", sc, 100*s.Inconsistent)
		}
	}
	// At the next Beta up it would not.
	up := tb
	up.Beta += 0.005
	if s := SimulateBaseline(up, nm, InflatedFifth, 50, simTrials, 1); s.Inconsistent >= 1-r.Beta {
		t.Errorf("Beta %.3f already detects %.2f%% of the concentrated inflation: the search stopped too late", up.Beta, 100*s.Inconsistent)
	}
}

// TestRobustness: the misspecified judges the rule was designed for keep
// the honest false alarms within Alpha, where the exact mixture SPRT's
// exceed it; the one it was not (a drift of twice the tolerance, or three
// times the gate flips) are bounded as docs/PERFORMANCE.md states.
func TestRobustness(t *testing.T) {
	r, b := DefaultRule(), DefaultBaseline()
	for _, tc := range []struct {
		judge       string
		maxFalse    float64 // the rule's honest false alarms at most
		baseAbove   float64 // and the baseline's at least, where it breaks
		minUniform  float64 // the uniform inflation's detection at least
		maxInconcl  float64 // honest inconclusive at most
		description string
	}{
		{"stricter by 0.25", 0.01, 0.03, 0.9, 0.15, "within the tolerance"},
		{"more lenient by 0.25", 0.01, 0, 0.6, 0.15, "within the tolerance"},
		{"1.5× noise", 0.01, 0.02, 0.6, 0.15, "the spread is estimated"},
		{"3% gate flips", 0.01, 0, 0.9, 0.15, "the flip rate is estimated"},
		{"2% component slips", 0.01, 0, 0.9, 0.15, "the slip rate is estimated"},
		{"10% failed calls", 0.01, 0, 0.86, 0.15, "the fault allowance grows with the calls"},
		{"stricter by 0.5", 0.06, 0.2, 0.8, 0.35, "twice the tolerance: bounded, not met"},
		{"5% gate flips", 0.01, 0, 0.9, 0.3, "flips are told from slips"},
		{"5% component slips", 0.05, 0, 0.9, 0.3, "a component misjudged on a tenth of the questions: bounded, not met"},
	} {
		nm := judgeScenario(t, tc.judge)
		h := Simulate(r, nm, Honest, 50, simTrials/4, 1)
		u := Simulate(r, nm, InflatedUniform, 50, simTrials/4, 1)
		bh := SimulateBaseline(b, nm, Honest, 50, simTrials/4, 1)
		t.Logf("%-22s honest flagged %.2f%% (baseline %.2f%%), inconclusive %.2f%%; uniform caught %.2f%%", tc.judge, 100*h.Inconsistent, 100*bh.Inconsistent, 100*h.Inconclusive, 100*u.Inconsistent)
		if h.Inconsistent > tc.maxFalse || bh.Inconsistent < tc.baseAbove || u.Inconsistent < tc.minUniform || h.Inconclusive > tc.maxInconcl {
			t.Errorf("%s (%s): honest flagged %.2f%% (want ≤ %.1f%%), baseline %.2f%% (want ≥ %.1f%%), uniform caught %.2f%% (want ≥ %.0f%%), honest inconclusive %.2f%% (want ≤ %.0f%%)",
				tc.judge, tc.description, 100*h.Inconsistent, 100*tc.maxFalse, 100*bh.Inconsistent, 100*tc.baseAbove, 100*u.Inconsistent, 100*tc.minUniform, 100*h.Inconclusive, 100*tc.maxInconcl)
		}
	}
}

// TestBaseline: the exact mixture SPRT reproduces the figures of the
// audit that proposed it as the yardstick (13.2, 9.2 and 10.7 calls on
// the honest, uniform and concentrated scenarios), within simulation
// noise and the details of the scenarios.
func TestBaseline(t *testing.T) {
	b, nm := DefaultBaseline(), DefaultNoiseModel()
	for _, tc := range []struct {
		sc    Scenario
		calls float64
	}{{Honest, 13.2}, {InflatedUniform, 9.2}, {InflatedFifth, 10.7}} {
		s := SimulateBaseline(b, nm, tc.sc, 50, simTrials, 1)
		if math.Abs(s.MeanCalls-tc.calls) > 0.6 {
			t.Errorf("%s: baseline takes %.1f calls; the audit's %.1f", tc.sc, s.MeanCalls, tc.calls)
		}
		if tc.sc == Honest && s.Inconsistent > 0.01 {
			t.Errorf("baseline flags %.2f%% of honest submissions", 100*s.Inconsistent)
		}
	}
}

func TestSimulateDeterministic(t *testing.T) {
	r, nm := DefaultRule(), DefaultNoiseModel()
	a := Simulate(r, nm, InflatedFifth, 50, 300, 7)
	b := Simulate(r, nm, InflatedFifth, 50, 300, 7)
	if a != b {
		t.Errorf("same arguments, different results: %+v and %+v", a, b)
	}
	if c := Simulate(r, nm, InflatedFifth, 50, 300, 8); c == a {
		t.Errorf("seeds 7 and 8 gave the same result %+v", a)
	}
	if z := Simulate(r, nm, Honest, 50, 0, 1); z != (SimResult{}) {
		t.Errorf("no trials: %+v", z)
	}
}

func TestSimulateShares(t *testing.T) {
	r, nm := DefaultRule(), DefaultNoiseModel()
	r.MaxN, r.DriftFixtures = 10, 0 // most tests stop undecided at the cap
	s := Simulate(r, nm, Honest, 50, 500, 3)
	if sum := s.Consistent + s.Inconsistent + s.Inconclusive; math.Abs(sum-1) > 1e-12 {
		t.Errorf("shares add up to %g", sum)
	}
	if s.MeanCalls > 10 || s.Inconclusive < 0.9 {
		t.Errorf("with MaxN 10: %+v", s)
	}
	// Fewer questions than MaxN: the test stops at the last one.
	r = DefaultRule()
	r.DriftFixtures = 0
	if s := Simulate(r, nm, Honest, 6, 200, 3); s.MeanCalls != 6 || s.Inconclusive != 1 {
		t.Errorf("6 questions, MinN 8: %+v", s)
	}
	// The fixtures are calls too.
	r.DriftFixtures, r.DriftLimit = 4, MaxScore
	if s := Simulate(r, nm, Honest, 6, 200, 3); s.MeanCalls != 10 {
		t.Errorf("6 questions and 4 fixtures: %.2f calls on average; want 10", s.MeanCalls)
	}
	// Failed calls count towards the cap.
	r.MaxN = 10
	bad := nm
	bad.CallFail = 0.3
	if s := Simulate(r, bad, Honest, 50, 300, 3); s.MeanCalls > 14 {
		t.Errorf("MaxN 10 with failing calls: %.2f calls on average; want at most 10 and the fixtures", s.MeanCalls)
	}
}

// TestDriftCaught: a judge a point and a half stricter than the
// submitter's run is caught by its fixtures in most checks, and the mean
// bias they report is about its drift.
func TestDriftCaught(t *testing.T) {
	r, nm := DefaultRule(), DefaultNoiseModel()
	nm.Bias = -1.5
	s := Simulate(r, nm, Honest, 50, 2000, 5)
	if s.Drifted < 0.8 || s.Inconsistent > 0.15 || math.Abs(s.MeanBias+1.3) > 0.3 {
		t.Errorf("judge 1.5 points stricter: %.1f%% drifted, %.1f%% flagged, mean bias %.2f", 100*s.Drifted, 100*s.Inconsistent, s.MeanBias)
	}
	// The default judge's fixtures lean slightly strict: a gate flipped
	// on an answer that passes costs more than one on an answer that
	// fails, and scores of 10 cannot go up.
	if s := Simulate(r, DefaultNoiseModel(), Honest, 50, 2000, 5); s.Drifted > 0.03 || math.Abs(s.MeanBias) > 0.08 {
		t.Errorf("default judge: %.1f%% drifted, mean bias %.3f", 100*s.Drifted, s.MeanBias)
	}
}

// TestDifferencesWithBias: the exact distribution of reported − judged
// with a biased checking judge is the one the simulation draws.
func TestDifferencesWithBias(t *testing.T) {
	for _, bias := range []float64{-0.25, -0.5, 0.5, -1.25, 0} {
		nm := DefaultNoiseModel()
		nm.Bias = bias
		if bias == 0 {
			nm.Slip = 0.05 // and slips, which the bias does not move
		}
		exact := nm.Differences()
		var counts [2*MaxScore + 1]float64
		rng := rand.New(rand.NewPCG(3, 4))
		const n = 400000
		for range n {
			a := nm.truth(rng)
			counts[nm.run(rng, a).score-nm.check(rng, a).score+MaxScore]++
		}
		var mean, sum float64
		for k, p := range exact {
			sum += p
			mean += p * float64(k-MaxScore)
			if got := counts[k] / n; math.Abs(got-p) > 0.003 {
				t.Errorf("bias %g: P(d = %d) is %.4f exactly and %.4f simulated", bias, k-MaxScore, p, got)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("bias %g: Differences add up to %g", bias, sum)
		}
		// A stricter judge raises the mean difference by its bias on the
		// passed gates, nine answers in ten, a little less where a score
		// cannot move below 0.
		if bias < 0 && (mean < -0.85*bias || mean > -0.9*bias) {
			t.Errorf("bias %g: mean difference %.3f", bias, mean)
		}
	}
}

func TestNoiseModel(t *testing.T) {
	nm := DefaultNoiseModel()
	if err := nm.Validate(); err != nil {
		t.Fatal(err)
	}
	d := nm.Differences()
	sum := 0.0
	for k, p := range d {
		sum += p
		if math.Abs(p-d[len(d)-1-k]) > 1e-12 {
			t.Errorf("P(d = %d) = %g, P(d = %d) = %g: two honest runs should be symmetric", k-MaxScore, p, MaxScore-k, d[len(d)-1-k])
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("Differences add up to %g", sum)
	}
	// The figures the documentation of the model quotes.
	big := 0.0
	for k, p := range d {
		if k-MaxScore >= 4 || k-MaxScore <= -4 {
			big += p
		}
	}
	if got := d[MaxScore]; math.Abs(got-0.54) > 0.005 {
		t.Errorf("two runs agree on %.3f of questions; documented 0.54", got)
	}
	if math.Abs(big-0.03) > 0.002 {
		t.Errorf("two runs differ by 4 or more on %.4f; documented 0.03", big)
	}
	if sd := nm.ClippedSD(5); math.Abs(sd-1.21) > 0.005 {
		t.Errorf("clipped honest sd %.3f; documented 1.21", sd)
	}

	for name, mod := range map[string]func(*NoiseModel){
		"Error adding up to 0.84": func(m *NoiseModel) { m.Error[2] = 0.5 },
		"negative GateFlip":       func(m *NoiseModel) { m.GateFlip = -0.1 },
		"CallFail 1":              func(m *NoiseModel) { m.CallFail = 1 },
		"Slip 1.5":                func(m *NoiseModel) { m.Slip = 1.5 },
		"NaN Bias":                func(m *NoiseModel) { m.Bias = math.NaN() },
	} {
		bad := nm
		mod(&bad)
		if bad.Validate() == nil {
			t.Errorf("%s passed Validate", name)
		}
	}
}

// TestNoisier: the spread of ε grows by the factor asked, the shape of
// the errors otherwise kept.
func TestNoisier(t *testing.T) {
	nm := DefaultNoiseModel()
	sd := func(m NoiseModel) float64 {
		v := 0.0
		for k, p := range m.Error {
			v += p * float64((k-2)*(k-2))
		}
		return math.Sqrt(v)
	}
	n := nm.Noisier(1.5)
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := sd(n) / sd(nm); math.Abs(got-1.5) > 1e-12 {
		t.Errorf("Noisier(1.5) scales the spread by %g", got)
	}
	if n.Error[0]/n.Error[1] != nm.Error[0]/nm.Error[1] {
		t.Errorf("Noisier changed the ratio of two-point to one-point errors: %v", n.Error)
	}
}

// TestBias: the checking judge's passed scores move by Bias points on
// average, and a failed gate still scores 0.
func TestBias(t *testing.T) {
	nm := DefaultNoiseModel()
	nm.Error = [5]float64{2: 1}
	nm.GateFlip = 0
	for _, bias := range []float64{-0.5, -0.25, 0.25, 1.5} {
		nm.Bias = bias
		rng := rand.New(rand.NewPCG(1, 2))
		sum := 0
		const n = 20000
		for range n {
			sum += nm.check(rng, simAnswer{pass: true, worth: 5}).score - 5
		}
		if got := float64(sum) / n; math.Abs(got-bias) > 0.02 {
			t.Errorf("Bias %g moves scores by %.3f on average", bias, got)
		}
		if g := nm.check(rng, simAnswer{pass: false, worth: 5}); g.score != 0 || g.gate {
			t.Errorf("Bias %g: a failed gate graded %+v", bias, g)
		}
	}
}

func TestReportInflation(t *testing.T) {
	nm := DefaultNoiseModel()
	rng := rand.New(rand.NewPCG(11, 12))
	as := make([]simAnswer, 50)
	var cherry, cherryN float64
	for range 200 {
		for i := range as {
			as[i] = nm.truth(rng)
		}
		// The same draws give the honest report and the one inflated from
		// it, so that the difference is the inflation alone.
		seed := rng.Uint64()
		honest := nm.report(rand.New(rand.NewPCG(seed, 0)), Honest, as)
		for _, sc := range []Scenario{InflatedUniform, InflatedFifth} {
			inf := nm.report(rand.New(rand.NewPCG(seed, 0)), sc, as)
			added, fives := 0, 0
			for i := range inf {
				d := inf[i].score - honest[i].score
				if d < 0 || inf[i].score > MaxScore {
					t.Fatalf("%s: question %d went from %d to %d", sc, i, honest[i].score, inf[i].score)
				}
				if inf[i].score > 0 && !inf[i].gate {
					t.Fatalf("%s: score %d reported with a failed gate", sc, inf[i].score)
				}
				added += d
				if d == 5 {
					fives++
				}
			}
			if added != len(as) {
				t.Errorf("%s added %d points to %d questions; want one a question", sc, added, len(as))
			}
			room := 0
			for _, g := range honest {
				if g.score <= MaxScore-5 {
					room++
				}
			}
			if want := min(len(as)/5, room); sc == InflatedFifth && fives < want {
				t.Errorf("%s: %d questions took five points; want at least %d", sc, fives, want)
			}
		}
		cp := nm.report(rng, CherryPicked, as)
		for i := range cp {
			cherry += float64(cp[i].score - nm.run(rng, as[i]).score)
			cherryN++
		}
	}
	if got := cherry / cherryN; math.Abs(got-0.5) > 0.1 {
		t.Errorf("cherry-picking inflates by %.2f points a question; documented about 0.5", got)
	}
}

func TestScenarioString(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range Scenarios {
		s := sc.String()
		if s == "" || seen[s] {
			t.Errorf("scenario %d has name %q", int(sc), s)
		}
		seen[s] = true
	}
	if got := Scenario(9).String(); got != "Scenario(9)" {
		t.Errorf("Scenario(9).String() = %q", got)
	}
}
