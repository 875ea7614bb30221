package rerun

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simTrials matches the table of docs/PERFORMANCE.md (seed 1), so that the
// test checks the published figures; the shares then have a standard error
// of about 0.15 points, and the simulation takes well under a second.
const simTrials = 20000

// TestTargets checks the acceptance criteria of the spot-check on a
// 50-question rubric benchmark, each with a small margin, so that a change
// of the rule or the model that erodes them fails here before the figures
// in docs/PERFORMANCE.md go stale. The simulation is seeded, so the
// figures are the same on every run.
func TestTargets(t *testing.T) {
	r, nm := DefaultRule(), DefaultNoiseModel()
	res := map[Scenario]SimResult{}
	for _, sc := range Scenarios {
		res[sc] = Simulate(r, nm, sc, 50, simTrials, 1)
		t.Logf("%-24s consistent %.4f inconsistent %.4f inconclusive %.4f calls %.1f", sc, res[sc].Consistent, res[sc].Inconsistent, res[sc].Inconclusive, res[sc].MeanCalls)
	}
	if got := res[Honest].Inconsistent; got > 0.009 {
		t.Errorf("honest flagged inconsistent in %.2f%% of trials; target ≤ 1%%", 100*got)
	}
	for _, sc := range []Scenario{InflatedUniform, InflatedFifth} {
		if got := res[sc].Inconsistent; got < 0.955 {
			t.Errorf("%s detected in %.2f%% of trials; target ≥ 95%%", sc, 100*got)
		}
	}
	mean := 0.0
	for _, sc := range []Scenario{Honest, InflatedUniform, InflatedFifth} {
		mean += res[sc].MeanCalls / 3
		if got := res[sc].MeanCalls; got > 20 {
			t.Errorf("%s takes %.1f calls on average; want each ≤ 20", sc, got)
		}
	}
	if mean > 19.5 {
		t.Errorf("%.1f calls on average over honest and inflated; target ≤ 20", mean)
	}
	// Wald's approximation neglects the overshoot of the boundaries and
	// the guards of the rule, which only add observations; a simulated
	// mean well below it would mean that the two disagree on the model.
	h0, h1 := WaldASN(r, nm)
	if res[Honest].MeanCalls < h0 || res[InflatedUniform].MeanCalls < 0.9*h1 {
		t.Errorf("mean calls %.1f and %.1f against Wald's %.1f and %.1f", res[Honest].MeanCalls, res[InflatedUniform].MeanCalls, h0, h1)
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
	r.MaxN = 10 // most tests stop undecided at the cap
	s := Simulate(r, nm, Honest, 50, 500, 3)
	if sum := s.Consistent + s.Inconsistent + s.Inconclusive; math.Abs(sum-1) > 1e-12 {
		t.Errorf("shares add up to %g", sum)
	}
	if s.MeanCalls > 10 || s.Inconclusive < 0.9 {
		t.Errorf("with MaxN 10: %+v", s)
	}
	// Fewer questions than MaxN: the test stops at the last one.
	r = DefaultRule()
	if s := Simulate(r, nm, Honest, 6, 200, 3); s.MeanCalls != 6 || s.Inconclusive != 1 {
		t.Errorf("6 questions, MinN 8: %+v", s)
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
	// The figures the documentation of the model and the rule quote.
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
	sd := nm.ClippedSD(DefaultRule().Clip)
	if math.Abs(sd-1.21) > 0.005 || DefaultRule().Sigma < sd {
		t.Errorf("clipped honest sd %.3f; documented 1.21, below Sigma %g", sd, DefaultRule().Sigma)
	}

	bad := nm
	bad.Error[2] = 0.5
	if bad.Validate() == nil {
		t.Error("Error adding up to 0.84 passed Validate")
	}
	bad = nm
	bad.GateFlip = -0.1
	if bad.Validate() == nil {
		t.Error("negative GateFlip passed Validate")
	}
}

func TestWaldASNByHand(t *testing.T) {
	// A judge without noise: every honest difference is 0, so
	// E0[z] = −Delta²/(2·Sigma²) and E1[z] = +Delta²/(2·Sigma²).
	nm := NoiseModel{Error: [5]float64{2: 1}, GateFail: 0.1, Worth: [MaxScore + 1]float64{7: 1}}
	r := DefaultRule()
	lnB, lnA := r.Bounds()
	e := r.Delta * r.Delta / (2 * r.Sigma * r.Sigma)
	want0 := (r.Alpha*lnA + (1-r.Alpha)*lnB) / -e
	want1 := ((1-r.Beta)*lnA + r.Beta*lnB) / e
	h0, h1 := WaldASN(r, nm)
	if math.Abs(h0-want0) > 1e-9 || math.Abs(h1-want1) > 1e-9 {
		t.Errorf("WaldASN = %g, %g; want %g, %g", h0, h1, want0, want1)
	}
	// A shift that the clip hides entirely never ends a test under H1.
	r.Clip = 0.25
	if _, h1 := WaldASN(r, nm); !math.IsInf(h1, 1) {
		t.Errorf("h1 = %g with the whole shift clipped; want +Inf", h1)
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
