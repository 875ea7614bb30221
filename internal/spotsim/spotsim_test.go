package spotsim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchgate/benchgate/rerun"
)

// trials keeps the tests to seconds; the shares then have a standard
// error of about 0.2 points at 1% and 0.5 at 95%. docs/PERFORMANCE.md
// records the figures of bench/rerunsim, with more trials.
const trials = 2000

func config(t *testing.T, judge string, s Shape) Config {
	t.Helper()
	c, err := Case(judge)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Rule: rerun.DefaultRule(), Judge: c, Truth: DefaultTruth(), Shape: s, Trials: trials,
		Questions: 50, FixturesPerQuestion: 3, RecordRuns: 16, Seed: 1}
}

func simulate(t *testing.T, c Config) Result {
	t.Helper()
	res, err := Simulate(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%-46s %-26s inconsistent %6.2f%% consistent %6.2f%% (drift stop %.2f%%, block %.2f%%) calls %.1f",
		c.Judge.Name, c.Shape, 100*res.Inconsistent, 100*res.Consistent, 100*res.DriftStopped, 100*res.DriftBlocked, res.MeanCalls)
	return res
}

// TestSimulateIsDeterministic: the same configuration gives the same
// figures, and the shares add up.
func TestSimulateIsDeterministic(t *testing.T) {
	c := config(t, "default judge", Fifth)
	c.Trials = 200
	a, b := simulate(t, c), simulate(t, c)
	if a != b {
		t.Errorf("two runs differ: %+v and %+v", a, b)
	}
	if s := a.Inconsistent + a.Consistent + a.Inconclusive; math.Abs(s-1) > 1e-12 {
		t.Errorf("shares add up to %g", s)
	}
	c.Trials = 0
	if _, err := Simulate(c); err == nil {
		t.Error("no trials accepted")
	}
	c.Trials, c.Rule.Alpha = 10, 2
	if _, err := Simulate(c); err == nil {
		t.Error("an invalid rule accepted")
	}
}

// TestShapes: each inflated shape adds one point per question on
// average, as the promises are stated; cherry-picking about half that.
func TestShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	j := DefaultNoise()
	for _, tc := range []struct {
		shape    Shape
		min, max float64
	}{{Uniform, 0.99, 1.01}, {Fifth, 0.97, 1.01}, {RaisedGates, 0.99, 1.01}, {CherryPicked, 0.3, 0.7}} {
		added, n := 0.0, 0
		for range 400 {
			as := make([]Answer, 50)
			for i := range as {
				as[i] = DefaultTruth().Draw(rng)
			}
			// The same stream for both reports, so that the honest runs
			// are the same and the difference is the inflation.
			seed := rng.Uint64()
			honest := report(rand.New(rand.NewPCG(seed, 0)), j, Honest, as)
			inflated := report(rand.New(rand.NewPCG(seed, 0)), j, tc.shape, as)
			for i := range as {
				added += float64(inflated[i].Total - honest[i].Total)
				n++
				if inflated[i].Gate != (inflated[i].Total > 0) {
					t.Fatalf("%s: a total of %d with gate %v", tc.shape, inflated[i].Total, inflated[i].Gate)
				}
			}
		}
		if mean := added / float64(n); mean < tc.min || mean > tc.max {
			t.Errorf("%s adds %.3f points per question, want %g to %g", tc.shape, mean, tc.min, tc.max)
		}
	}
}

// TestJudges: each judge family behaves as its documentation says.
func TestJudges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	spread := func(j Judge, a Answer) float64 {
		var m, m2 float64
		for range n {
			x := float64(j.Run(rng, a).Total)
			m += x
			m2 += x * x
		}
		m /= n
		return math.Sqrt(m2/n - m*m)
	}
	h := Heteroscedastic{MinSD: 0.2, MaxSD: 2.5, MaxFlip: 0}
	if easy, hard := spread(h, Answer{Pass: true, Worth: 6, Difficulty: 0}), spread(h, Answer{Pass: true, Worth: 6, Difficulty: 0.99}); easy > 0.3 || hard < 2 {
		t.Errorf("heteroscedastic: spread %.2f on an easy question, %.2f on a hard one", easy, hard)
	}
	f := Fixed{Base: DefaultNoise(), Share: 0.3, Grade: rerun.Grade{Total: 7, Gate: true}}
	sevens := 0
	for range n {
		if f.Run(rng, Answer{Pass: false, Worth: 5}).Total == 7 {
			sevens++
		}
	}
	if share := float64(sevens) / n; math.Abs(share-0.3) > 0.015 {
		t.Errorf("fixed: %.3f of a failed answer's grades are the fixed 7", share)
	}
	c := Correlated{Components: 3, Shock: [3]float64{0.2, 0.6, 0.2}}
	moved := 0
	for range n {
		if g := c.Run(rng, Answer{Pass: true, Worth: 6}); g.Total != 6 {
			if d := g.Total - 6; d != 3 && d != -3 && d != 2 && d != -2 {
				t.Fatalf("correlated: a grade of %d for a worth of 6: the shock moves every component", g.Total)
			}
			moved++
		}
	}
	if share := float64(moved) / n; math.Abs(share-0.4) > 0.02 {
		t.Errorf("correlated: %.3f of the grades moved", share)
	}
	d := Drifted{Base: Noise{Error: [5]float64{2: 1}}, Bias: -0.5}
	sum := 0
	for range n {
		sum += d.Run(rng, Answer{Pass: true, Worth: 6}).Total
	}
	if mean := float64(sum) / n; math.Abs(mean-5.5) > 0.02 {
		t.Errorf("drifted by −0.5: mean %.3f, want 5.5", mean)
	}
	if g := d.Run(rng, Answer{Pass: false, Worth: 6}); g.Total != 0 || g.Gate {
		t.Errorf("drifted: a failed gate graded %+v", g)
	}
	if _, err := Case("no such judge"); err == nil {
		t.Error("an unknown judge case was found")
	}
}

// TestPromises holds the spot-check's promises on a 50-question rubric
// with a calibration record of the default 16 runs, on the shipped
// decision loop: at most 1% of honest submissions called inconsistent by
// every judge that has not drifted beyond the tolerance, the kinds an
// audit found the first rule failing on included; the default judge
// catching a point of inflation per question at least 95% of the time,
// uniform, concentrated or failed gates raised to full marks (the last
// measured at 95.4% with more trials, docs/PERFORMANCE.md: 93% here, for
// the 2,000 trials' error). The simulation is seeded: the figures are
// the same on every run.
func TestPromises(t *testing.T) {
	for _, name := range []string{"default judge", "stricter by 0.25", "1.5× noise", "3% gate flips", "5% gate flips", "5% component slips",
		"10% failed calls", "noise grows with difficulty", "fixed score on 30% of calls", "errors correlated across components"} {
		if res := simulate(t, config(t, name, Honest)); res.Inconsistent > 0.01 {
			t.Errorf("%s: %.2f%% of honest submissions called inconsistent; the promise is at most 1%%", name, 100*res.Inconsistent)
		}
	}
	for _, tc := range []struct {
		shape Shape
		min   float64
	}{{Uniform, 0.95}, {Fifth, 0.95}, {RaisedGates, 0.93}} {
		if res := simulate(t, config(t, "default judge", tc.shape)); res.Inconsistent < tc.min {
			t.Errorf("%s detected in %.2f%% of trials, want at least %.0f%%", tc.shape, 100*res.Inconsistent, 100*tc.min)
		}
	}
}

// TestDriftNeverAccuses: a judge that now gives passed answers two points
// less per component (four on a passed answer), its calibration fixtures
// graded the same way, accuses no honest submission, nor an inflated one:
// every check ends inconclusive, naming the drift.
func TestDriftNeverAccuses(t *testing.T) {
	for _, s := range []Shape{Honest, Uniform} {
		c := config(t, "2 points less per component on passed answers", s)
		c.Trials = 500
		res := simulate(t, c)
		if res.Inconsistent != 0 || res.Consistent != 0 || res.DriftStopped+res.DriftBlocked != 1 {
			t.Errorf("%s: %+v; want every check stopped or blocked by the drift", s, res)
		}
	}
}

// TestSmallRubric: a rubric of 20 questions is re-graded whole, and an
// honest submission is left undecided less often than by the first rule,
// which waited for 18 observations and left 24–61% of them so: about 20%,
// the bound of the mean inflation over 20 answers, gate flips and all,
// being near Delta.
func TestSmallRubric(t *testing.T) {
	c := config(t, "default judge", Honest)
	c.Questions = 20
	res := simulate(t, c)
	if res.Inconsistent > 0.01 || res.Inconclusive > 0.25 {
		t.Errorf("20 questions, honest: %.2f%% inconsistent, %.2f%% inconclusive", 100*res.Inconsistent, 100*res.Inconclusive)
	}
	if want := float64(min(c.Rule.DriftFixtures, 3*c.Questions) + 2*c.Questions); res.MeanCalls != want {
		t.Errorf("%.1f calls on average, want every fixture asked and every question twice, %g", res.MeanCalls, want)
	}
}
