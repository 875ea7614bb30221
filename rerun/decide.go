package rerun

import (
	"errors"
	"fmt"
	"math"
)

// Decision is the state of a Test after an observation.
type Decision int

const (
	// Continue means the evidence is not yet strong enough either way.
	Continue Decision = iota
	// Consistent means the reported scores agree with the judge's within
	// the judge's own noise.
	Consistent
	// Inconsistent means the reported scores are higher than the judge's
	// beyond that noise, or claim too many gates the judge fails.
	Inconsistent
)

// String returns "continue", "consistent" or "inconsistent".
func (d Decision) String() string {
	switch d {
	case Continue:
		return "continue"
	case Consistent:
		return "consistent"
	case Inconsistent:
		return "inconsistent"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Rule is the sequential test that compares a submission's reported scores
// with the judge's, one re-graded question at a time. It is Wald's
// sequential probability ratio test of H0, the reported scores are one
// honest run of the judge, so that d = reported − judged has mean 0,
// against H1, every reported score is Delta points higher. Each
// observation adds the Gaussian log-likelihood ratio increment
//
//	z = (Delta/Sigma²)·(c − Delta/2),  c = d clipped to ±Clip,
//
// and the test ends at the first observation n ≥ MinN at which
//
//   - at least MinContradictions gates reported passed were failed by the
//     judge and they are at least ContradictionShare of the n observations:
//     inconsistent;
//   - the sum reaches ln A = ln((1−Beta)/Alpha): inconsistent;
//   - the sum reaches ln B = ln(Beta/(1−Alpha)) and n is at least
//     MinConsistent plus JumpExtra for every jump (a difference of Jump
//     points or more) seen: consistent.
//
// The differences are not Gaussian: they are whole points, a gate the two
// runs decide differently moves a score by four points or more, and an
// inflation may be spread over every question or concentrated on a few.
// The increments are therefore a score rather than the true likelihood
// ratio, and Wald's bounds on the error rates do not hold by themselves.
// The defaults were chosen by simulating the judge (see Simulate and
// docs/PERFORMANCE.md) until the error rates met their targets; a Rule
// with other values should be checked the same way.
//
// Rule is comparable, so a zero Rule can stand for "the default".
type Rule struct {
	// Delta is the inflation the test is built to detect, in points per
	// question. Default 1.0, the inflation the acceptance criteria name: a
	// point on every question of a 0–10 rubric is a tenth of the scale,
	// enough to reorder a leaderboard, and about the standard deviation of
	// the difference of two honest runs of the judge on one question when
	// they agree on the gate.
	Delta float64
	// Sigma is the assumed standard deviation of the clipped difference
	// for an honest submission. Default 1.3. The default NoiseModel gives
	// 1.21 with Clip 5 (two runs each a point off on 30% of the questions
	// and two points on 4%, and gates decided differently on 3%); the
	// default is rounded up so that a judge somewhat noisier than the
	// model does not reach the upper boundary by noise alone. Sigma scales
	// both boundaries against the step: in the simulation 1.25 raised the
	// honest false alarms to about 0.65%, and 1.35 lowered the detection
	// of the concentrated inflation to 95.5%, the edge of its target, and
	// cost every scenario calls.
	Sigma float64
	// Clip bounds each difference to ±Clip before it counts. Default 5.
	// A gate decided differently by the two runs moves a score by 4 to 10
	// points; clipped, it adds at most (Delta/Sigma²)·(Clip − Delta/2) =
	// 2.66 to the log-likelihood ratio, well short of ln A = 4.55, so one
	// such disagreement never decides alone. A lower clip also cuts an
	// inflation of five points on a few questions: with Clip 4 no Sigma
	// kept the honest false alarms under 1% and detected +5 on a fifth of
	// the questions in 95% of the trials. With Clip 6 two gate flips weigh
	// more, and the honest false alarms rose to 1.2% at the same Sigma.
	Clip float64
	// Alpha is the target probability of calling an honest submission
	// inconsistent (default 0.01), and Beta that of calling a submission
	// inflated by Delta consistent (default 0.05). They set the boundaries
	// ln A = 4.55 and ln B = −2.99; the simulation, not Wald's
	// approximation, checks that the rates are met.
	Alpha, Beta float64
	// MinN is the number of observations before any decision. Default 8.
	// Two gate flips in a row add 5.3, past ln A; among eight observations
	// the six agreements take 1.8 off again, so two flips decide only with
	// further evidence of inflation.
	MinN int
	// MaxN is the number of observations at which the caller stops and
	// reports the test inconclusive; the caller also stops at the number
	// of questions and at its budget. Default 50, a whole typical rubric
	// benchmark: a few inflated submissions need many observations before
	// their evidence adds up, and in the simulation a cap of 40 lost two
	// points of detection of a uniform inflation and four of a
	// concentrated one, while the mean number of calls hardly changed.
	MaxN int
	// MinConsistent is the least number of observations before a
	// consistent decision, and each jump seen, a difference of at least
	// Jump points, adds JumpExtra to it. Defaults 16, 4 and 10. They guard
	// against an inflation concentrated on a few questions, which a short
	// run of agreements would otherwise accept: with five points added to
	// ten questions of fifty, a random sample misses all ten in its first
	// 16 draws with probability 1.3%, and finds at most one in 26 draws
	// with probability 0.35%. Differences of four points or more are the
	// size of such an inflation and otherwise arise almost only from a gate
	// decided differently, on about 1.5% of an honest submission's
	// questions, so most honest tests stop at 16 to 20 observations.
	MinConsistent, Jump, JumpExtra int
	// MinContradictions and ContradictionShare are the hard-contradiction
	// rule: a contradiction is a question whose gate the submission
	// reports passed and the judge fails, and the test is inconsistent once
	// there are at least MinContradictions of them and they are at least
	// ContradictionShare of the observations. Defaults 4 and 0.25. The
	// judge alone produces a contradiction on about 1.5% of an honest
	// submission's questions, so four among the first sixteen happen about
	// once in 13,000 tests (once in 1,000 if the judge flipped twice as
	// many gates), while a submission that claims a quarter of the gates
	// the judge fails is not a matter of noise. Neither condition alone
	// suffices: one contradiction is a borderline gate, and four among
	// forty observations are within what the judge does by itself. A
	// MinContradictions of 0 turns the rule off.
	MinContradictions  int
	ContradictionShare float64
}

// DefaultRule returns the rule whose error rates and calls
// docs/PERFORMANCE.md reports; each field's documentation says why its
// value.
func DefaultRule() Rule {
	return Rule{
		Delta:              1.0,
		Sigma:              1.3,
		Clip:               5,
		Alpha:              0.01,
		Beta:               0.05,
		MinN:               8,
		MaxN:               50,
		MinConsistent:      16,
		Jump:               4,
		JumpExtra:          10,
		MinContradictions:  4,
		ContradictionShare: 0.25,
	}
}

// Validate reports a rule the test cannot run: a non-positive Delta, Sigma
// or Clip, error rates whose boundaries would not enclose 0, negative
// counts, a MaxN below MinN, or a ContradictionShare outside [0, 1].
func (r Rule) Validate() error {
	switch {
	case !(r.Delta > 0) || !(r.Sigma > 0) || !(r.Clip > 0):
		return errors.New("rerun: Delta, Sigma and Clip must be positive")
	case !(r.Alpha > 0 && r.Alpha < 1) || !(r.Beta > 0 && r.Beta < 1) || r.Alpha+r.Beta >= 1:
		return errors.New("rerun: Alpha and Beta must be in (0, 1) with Alpha+Beta < 1")
	case r.MinN < 0 || r.MaxN < 0 || r.MinConsistent < 0 || r.Jump < 0 || r.JumpExtra < 0 || r.MinContradictions < 0:
		return errors.New("rerun: the counts of a rule must not be negative")
	case r.MaxN > 0 && r.MaxN < r.MinN:
		return errors.New("rerun: MaxN is below MinN")
	case !(r.ContradictionShare >= 0 && r.ContradictionShare <= 1):
		return errors.New("rerun: ContradictionShare must be in [0, 1]")
	}
	return nil
}

// Bounds returns the stopping boundaries on the log-likelihood ratio,
// lower = ln(Beta/(1−Alpha)) and upper = ln((1−Beta)/Alpha).
func (r Rule) Bounds() (lower, upper float64) {
	return math.Log(r.Beta / (1 - r.Alpha)), math.Log((1 - r.Beta) / r.Alpha)
}

// Increment returns the log-likelihood ratio increment of one difference
// d = reported − judged.
func (r Rule) Increment(d float64) float64 {
	c := math.Max(-r.Clip, math.Min(r.Clip, d))
	return r.Delta / (r.Sigma * r.Sigma) * (c - r.Delta/2)
}

// Observation is one question graded again: the score and gate decision
// the submission reports and those the judge gave now. A call the judge
// failed is not an observation.
type Observation struct {
	Reported, Judged         int
	ReportedGate, JudgedGate bool
}

// Contradiction reports whether the submission claims a gate the judge
// fails.
func (o Observation) Contradiction() bool { return o.ReportedGate && !o.JudgedGate }

// Test is one run of a Rule over a sequence of observations. It is not
// safe for concurrent use.
type Test struct {
	rule           Rule
	lower, upper   float64
	n              int
	llr            float64
	sumDiff        int
	contradictions int
	jumps          int
	decision       Decision
}

// Start begins a test with no observations. r should be valid (see
// Validate); an invalid rule gives decisions that mean nothing.
func (r Rule) Start() *Test {
	t := &Test{rule: r}
	t.lower, t.upper = r.Bounds()
	return t
}

// Add counts one observation and returns the decision after it. A decision
// is final: once the test has decided, Add counts nothing more and returns
// the decision again. Add does not stop at MaxN, since more observations
// only sharpen the test; the caller stops there (see Done).
func (t *Test) Add(o Observation) Decision {
	if t.decision != Continue {
		return t.decision
	}
	t.n++
	d := o.Reported - o.Judged
	t.sumDiff += d
	t.llr += t.rule.Increment(float64(d))
	if t.rule.Jump > 0 && d >= t.rule.Jump {
		t.jumps++
	}
	if o.Contradiction() {
		t.contradictions++
	}
	if t.n < t.rule.MinN {
		return Continue
	}
	switch {
	case t.rule.MinContradictions > 0 && t.contradictions >= t.rule.MinContradictions &&
		float64(t.contradictions) >= t.rule.ContradictionShare*float64(t.n):
		t.decision = Inconsistent
	case t.llr >= t.upper:
		t.decision = Inconsistent
	case t.llr <= t.lower && t.n >= t.rule.MinConsistent+t.jumps*t.rule.JumpExtra:
		t.decision = Consistent
	}
	return t.decision
}

// Decision returns the decision so far, Continue until Add returned
// another.
func (t *Test) Decision() Decision { return t.decision }

// Done reports whether the caller should stop asking the judge: the test
// has decided, or it has MaxN observations (the result is then
// inconclusive). A MaxN of 0 sets no cap.
func (t *Test) Done() bool {
	return t.decision != Continue || (t.rule.MaxN > 0 && t.n >= t.rule.MaxN)
}

// N returns the number of observations counted.
func (t *Test) N() int { return t.n }

// LLR returns the log-likelihood ratio of H1 against H0 so far, the sum of
// the increments (see Rule).
func (t *Test) LLR() float64 { return t.llr }

// Contradictions returns the number of observations whose gate the
// submission reports passed and the judge failed.
func (t *Test) Contradictions() int { return t.contradictions }

// Jumps returns the number of observations whose reported score exceeds
// the judge's by at least the rule's Jump.
func (t *Test) Jumps() int { return t.jumps }

// MeanDiff returns the mean of reported − judged over the observations,
// unclipped, so that a report shows the actual size of a disagreement; 0
// with no observations.
func (t *Test) MeanDiff() float64 {
	if t.n == 0 {
		return 0
	}
	return float64(t.sumDiff) / float64(t.n)
}
