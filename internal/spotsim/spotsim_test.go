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
		Questions: 50, FixturesPerQuestion: 3, RecordRuns: 4, Seed: 1}
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
