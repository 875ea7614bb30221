// Package spotsim simulates spot-checks of rubric submissions, to measure
// the error rates of benchgate's spot-check (package rerun) on models of
// the judge, of the submitter and of the rubric. It drives the shipped
// decision loop, rerun.Run, through a rerun.Grader that is a simulated
// judge: the figures it gives are those of the code that runs in the App
// and the CLI, not of a copy of it. bench/rerunsim prints them, and
// docs/PERFORMANCE.md records them.
package spotsim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/benchgate/benchgate/rerun"
)

// Points is what a simulated question is worth; a failed gate scores 0.
const Points = 10

// Answer is a question's simulated truth: whether its gate truly passes,
// what it is worth when it does, and how hard it is to grade, in [0, 1).
type Answer struct {
	Pass       bool
	Worth      int
	Difficulty float64
}

// Truth is a rubric's answers: the share that truly fail their gate and
// the distribution of what the others are worth.
type Truth struct {
	GateFail float64
	Worth    [Points + 1]float64
}

// DefaultTruth is a benchmark that separates good models: a tenth of the
// answers fail their gate, the rest are worth 4 to 10, mostly 6 to 9.
func DefaultTruth() Truth {
	return Truth{GateFail: 0.10, Worth: [Points + 1]float64{4: 0.04, 5: 0.08, 6: 0.16, 7: 0.22, 8: 0.22, 9: 0.18, 10: 0.10}}
}

// Draw returns one answer.
func (t Truth) Draw(rng *rand.Rand) Answer {
	return Answer{Pass: rng.Float64() >= t.GateFail, Worth: drawIndex(rng, t.Worth[:]), Difficulty: rng.Float64()}
}

// A Judge is a model of an LLM judge: one run's grade of an answer. Runs
// are independent given the answer.
type Judge interface {
	Run(rng *rand.Rand, a Answer) rerun.Grade
}

// Noise is the judge the defaults were first measured on: it decides the
// gate the other way with probability GateFlip (a failed gate scores 0, a
// failed one passed scores about its worth), misjudges a whole component
// with probability Slip (SlipPoints either way), and otherwise scores the
// worth off by ε ∈ {−2, …, +2} with the probabilities Error.
type Noise struct {
	Error    [5]float64
	GateFlip float64
	Slip     float64
}

// SlipPoints is how far a slip moves a score: a component of a rubric
// question is typically worth a few points.
const SlipPoints = 4

// DefaultNoise: two thirds of its scores exact, 30% a point off and 4%
// two, either way; the gate decided the other way on 1.5% of its runs.
func DefaultNoise() Noise {
	return Noise{Error: [5]float64{0.02, 0.15, 0.66, 0.15, 0.02}, GateFlip: 0.015}
}

// Run grades a once.
func (n Noise) Run(rng *rand.Rand, a Answer) rerun.Grade {
	pass := a.Pass
	if rng.Float64() < n.GateFlip {
		pass = !pass
	}
	if !pass {
		return rerun.Grade{}
	}
	if n.Slip > 0 && rng.Float64() < n.Slip {
		if rng.Float64() < 0.5 {
			return passed(a.Worth - SlipPoints)
		}
		return passed(a.Worth + SlipPoints)
	}
	return passed(a.Worth + drawIndex(rng, n.Error[:]) - 2)
}

// Noisier returns n with the spread of its score errors multiplied by k,
// keeping the ratio of the errors of one and two points (meaningful while
// the exact share stays positive, k up to about 1.6).
func (n Noise) Noisier(k float64) Noise {
	p1, p2 := n.Error[1]+n.Error[3], n.Error[0]+n.Error[4]
	f := k * k
	n.Error = [5]float64{f * n.Error[0], f * n.Error[1], 1 - f*(p1+p2), f * n.Error[3], f * n.Error[4]}
	return n
}

// Heteroscedastic is a judge whose noise grows with the question's
// difficulty: a Gaussian error of standard deviation MinSD + (MaxSD −
// MinSD)·difficulty, rounded, and the gate decided the other way with
// probability MaxFlip·difficulty. Easy questions are graded almost
// exactly, hard ones with a spread of two points or more; one pooled
// spread describes neither.
type Heteroscedastic struct {
	MinSD, MaxSD, MaxFlip float64
}

// Run grades a once.
func (h Heteroscedastic) Run(rng *rand.Rand, a Answer) rerun.Grade {
	pass := a.Pass
	if rng.Float64() < h.MaxFlip*a.Difficulty {
		pass = !pass
	}
	if !pass {
		return rerun.Grade{}
	}
	sd := h.MinSD + (h.MaxSD-h.MinSD)*a.Difficulty
	return passed(a.Worth + int(math.Round(rng.NormFloat64()*sd)))
}

// Fixed is a judge that, on Share of its calls, returns one fixed grade
// whatever the answer (a cached or templated reply, a judge that gives
// up and says 7), and otherwise grades as Base does.
type Fixed struct {
	Base  Judge
	Share float64
	Grade rerun.Grade
}

// Run grades a once.
func (f Fixed) Run(rng *rand.Rand, a Answer) rerun.Grade {
	if rng.Float64() < f.Share {
		return f.Grade
	}
	return f.Base.Run(rng, a)
}

// Correlated is a judge whose errors are correlated across a question's
// components: the answer's worth is spread over Components components,
// and one shock per run, −1, 0 or +1 with probabilities Shock, moves
// every component at once (within its points), so that the total moves
// by up to Components points together instead of by independent errors.
// The gate is decided the other way with probability GateFlip.
type Correlated struct {
	Components int
	Shock      [3]float64
	GateFlip   float64
}

// Run grades a once.
func (c Correlated) Run(rng *rand.Rand, a Answer) rerun.Grade {
	pass := a.Pass
	if rng.Float64() < c.GateFlip {
		pass = !pass
	}
	if !pass {
		return rerun.Grade{}
	}
	shock := drawIndex(rng, c.Shock[:]) - 1
	per := float64(Points) / float64(c.Components)
	total := 0
	left := a.Worth
	for k := range c.Components {
		// The worth, spread as evenly as the components' points allow.
		share := min(left, int(math.Ceil(per)))
		if k == c.Components-1 {
			share = left
		}
		left -= share
		total += max(0, min(int(math.Ceil(per)), share+shock))
	}
	return passed(total)
}

// Drifted is Base after its grades of passed gates moved by Bias points
// on average (by its whole part, and by one point more with the
// probability of its fraction), as a judge whose provider changed the
// model behind the same name might: negative is stricter. Failed gates
// stay 0.
type Drifted struct {
	Base Judge
	Bias float64
}

// Run grades a once.
func (d Drifted) Run(rng *rand.Rand, a Answer) rerun.Grade {
	g := d.Base.Run(rng, a)
	if !g.Gate || d.Bias == 0 {
		return g
	}
	whole := math.Floor(d.Bias)
	move := int(whole)
	if rng.Float64() < d.Bias-whole {
		move++
	}
	return passed(g.Total + move)
}

// passed is a grade whose gate passes, its total within 1..Points: a
// passed gate keeps at least its point.
func passed(total int) rerun.Grade {
	return rerun.Grade{Total: max(1, min(Points, total)), Gate: true}
}

// drawIndex returns an index of p at random with the probabilities p.
func drawIndex(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for i, v := range p {
		if u < v {
			return i
		}
		u -= v
	}
	for i := len(p) - 1; i > 0; i-- {
		if p[i] > 0 {
			return i
		}
	}
	return 0
}

// JudgeCase is a judge to simulate: the judge of the submitter's run and
// of the calibration record, and the judge that checks (the same, or
// drifted since), with the share of the checking judge's calls that
// fail.
type JudgeCase struct {
	Name      string
	Submitter Judge
	Checker   Judge
	CallFail  float64
	// Drift is the checking judge's drift on passed answers, in points,
	// for the tables (0 for an undrifted one).
	Drift float64
}

// JudgeCases lists the judges bench/rerunsim and the tests simulate. The
// first ones are those the rule's first version was tuned on; the last
// four are the kinds an audit found it failed on: noise that grows with
// the question's difficulty, a fixed score on 30% of the calls, errors
// correlated across a question's components, and the drift of two points
// per component on passed answers.
func JudgeCases() []JudgeCase {
	d := DefaultNoise()
	same := func(name string, j Judge) JudgeCase { return JudgeCase{Name: name, Submitter: j, Checker: j} }
	drift := func(name string, bias float64) JudgeCase {
		return JudgeCase{Name: name, Submitter: d, Checker: Drifted{d, bias}, Drift: bias}
	}
	with := func(f func(*Noise)) Noise { n := d; f(&n); return n }
	return []JudgeCase{
		same("default judge", d),
		drift("stricter by 0.25", -0.25),
		drift("stricter by 0.5", -0.5),
		drift("stricter by 1", -1),
		drift("more lenient by 0.5", 0.5),
		same("1.5× noise", d.Noisier(1.5)),
		same("3% gate flips", with(func(n *Noise) { n.GateFlip = 0.03 })),
		same("5% gate flips", with(func(n *Noise) { n.GateFlip = 0.05 })),
		same("5% component slips", with(func(n *Noise) { n.Slip = 0.05 })),
		{Name: "10% failed calls", Submitter: d, Checker: d, CallFail: 0.10},
		same("noise grows with difficulty", Heteroscedastic{MinSD: 0.2, MaxSD: 2.5, MaxFlip: 0.06}),
		same("fixed score on 30% of calls", Fixed{Base: d, Share: 0.3, Grade: rerun.Grade{Total: 7, Gate: true}}),
		same("errors correlated across components", Correlated{Components: 3, Shock: [3]float64{0.2, 0.6, 0.2}, GateFlip: 0.015}),
		drift("2 points less per component on passed answers", -4),
	}
}

// Case returns the judge case of that name.
func Case(name string) (JudgeCase, error) {
	for _, c := range JudgeCases() {
		if c.Name == name {
			return c, nil
		}
	}
	return JudgeCase{}, fmt.Errorf("spotsim: no judge case %q", name)
}
