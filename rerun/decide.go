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
// with the judge's, one re-graded question at a time. Its null hypothesis
// is that the reported scores are an honest run of the judge, inflated by
// at most Tolerance points a question: the tolerance absorbs a judge whose
// grades have drifted a little since the submitter's run, which no test
// against exactly 0 could tell from inflation. Against it the test weighs a
// mixture of two alternatives, each the way a submitter inflates scores:
//
//   - shift: the differences d = reported − judged of the questions that
//     agree on the gate (|d| < Jump) have mean Delta instead of at most
//     Tolerance. Their log-likelihood ratio is Gaussian,
//     L₁ = (θ/σ̂²)·Σ(c − Tolerance − θ/2), θ = Delta − Tolerance, with each
//     c = d clipped to ±Clip, and σ̂ the spread of those differences
//     estimated as they arrive (see Sigma);
//   - jumps: a Share of the questions is raised by a jump, either a gate
//     the submission reports passed and the judge fails (a flip) or, on
//     a gate both pass, a difference of Jump points or more (a slip). An
//     honest submission has each kind as often upward as downward, since
//     its run and the judge's are two runs of one judge, at rates the
//     test does not know: flips at q where the two runs decide a gate
//     differently, slips at r where they misjudge a whole component. A
//     judge that flips many gates need not slip, and the other way round,
//     so the two are told apart: L₂ is the ratio of the likelihoods of
//     the four counts, up and down for each kind, under the inflation
//     (up-flips at q + φ·Share, up-slips at r + (1−φ)·Share, φ of 0.2, 0.5
//     or 0.8) and without it, averaged over q from JumpRate/2 to
//     5·JumpRate and r from SlipRate to 8·SlipRate (see Components), so
//     that the downward ones of each kind tell how often the judge makes
//     them.
//
// The test's log-likelihood ratio is that of the even mixture,
// log(½e^L₁ + ½e^L₂), and it ends at the first observation n ≥ MinN at
// which
//
//   - at least MinContradictions gates reported passed were failed by the
//     judge and they are at least ContradictionShare of the n observations:
//     inconsistent;
//   - the ratio reaches ln A = ln((1−Beta)/Alpha): inconsistent;
//   - it reaches ln B = ln(Beta/(1−Alpha)), so that both alternatives are
//     unlikely: consistent.
//
// Because the spread and the rate of honest jumps are estimated from the
// differences themselves, a noisier judge widens the test instead of
// raising its false alarms, and one that flips more gates is recognised,
// after a while, by its downward jumps (docs/PERFORMANCE.md measures how
// far that goes); the tolerance
// covers a judge that grades up to Tolerance points more strictly than the
// submitter's run; and a larger drift is for the calibration fixtures to
// find (see DriftFixtures), since no count of paired differences tells it
// from inflation. The estimates make the ratio approximate, so the error
// rates are measured by simulation (see Simulate and docs/PERFORMANCE.md);
// a Rule with other values should be checked the same way.
//
// Rule is comparable, so a zero Rule can stand for "the default".
type Rule struct {
	// Tolerance is the inflation, in points per question, that the test
	// accepts as honest (δ₀). Default 0.25, a quarter point: a judge whose
	// grades moved by that much since the submitter's run leaves the
	// honest false alarms within Alpha. A benchmark's registry entry may
	// set its own (spot_check_tolerance).
	Tolerance float64
	// Delta is the mean inflation the shift alternative names, in points
	// per question. Default 1.0: a point on every question of a 0–10
	// rubric, a tenth of the scale, enough to reorder a leaderboard.
	Delta float64
	// Sigma is the prior spread of the differences of the questions that
	// agree on the gate, worth SigmaWeight observations; the spread used
	// is the pooled estimate of prior and observations, never below
	// MinSigma. Defaults 1.0, 6 and 0.6. Two runs of the default
	// NoiseModel differ with a spread of 0.96 on such questions. The
	// floor keeps a judge that repeats itself exactly, as a seeded one at
	// temperature 0 may, from turning one point of difference into
	// certainty.
	Sigma       float64
	SigmaWeight int
	MinSigma    float64
	// Clip bounds each difference to ±Clip before it counts in the shift.
	// Default 5, above the differences below Jump that the shift counts,
	// so that it matters only to a rule with a larger Jump.
	Clip float64
	// Alpha is the target probability of calling an honest submission
	// inconsistent (default 0.01), and Beta that of calling a submission
	// inflated by Delta consistent (default 0.05). They set the boundaries
	// ln A = 4.55 and ln B = −2.99.
	Alpha, Beta float64
	// MinN is the number of observations before any decision, and
	// MinConsistent before a consistent one. Defaults 8 and 18: a sample
	// of 18 of 50 questions misses all of ten inflated ones with
	// probability 0.6%, so that a short run of agreements cannot accept
	// a concentrated inflation it has not seen. With the honest rates
	// the test allows for (see jumpRates), 16 left the detection of +5
	// on a fifth at 95.5% in the simulation, too close to its 95%.
	MinN, MinConsistent int
	// MaxN is the number of judge calls, failed ones included, at which
	// the caller stops and reports the test inconclusive; the caller also
	// stops at the number of questions and at its budget. Default 50, a
	// whole typical rubric benchmark. 0 sets no cap.
	MaxN int
	// Jump is the difference, in points, that counts as a slip on a gate
	// both runs pass (default 4: a gate decided differently moves a score
	// by 4 points or more, and the score errors of one judge's two runs
	// almost never add up to so much), Share the share of questions the
	// jump alternative inflates (default 0.17: the concentrated inflation
	// of the simulation raises a fifth, but some of its questions do not
	// jump, and a smaller share makes a run of agreements weigh less
	// against it), JumpRate the typical rate of honest flips each way
	// (default 0.015, one run of the default judge deciding a gate the
	// other way), and SlipRate the least rate of honest slips each way
	// (default 0.0025, six times what two runs of the default judge make),
	// raised to the spread's Gaussian tail beyond Jump − ½ when that is
	// more (see Components).
	Jump     int
	Share    float64
	JumpRate float64
	SlipRate float64
	// MinContradictions and ContradictionShare are the hard-contradiction
	// rule: a contradiction is a question whose gate the submission
	// reports passed and the judge fails, and the test is inconsistent once
	// there are at least MinContradictions of them and they are at least
	// ContradictionShare of the observations. Defaults 4 and 0.25. The
	// judge alone produces a contradiction on about 1.5% of an honest
	// submission's questions, so four among the first sixteen happen about
	// once in 13,000 tests, while a submission that claims a quarter of the
	// gates the judge fails is not a matter of noise. A MinContradictions
	// of 0 turns the rule off.
	MinContradictions  int
	ContradictionShare float64
	// DriftFixtures is how many of the rubric's calibration fixtures the
	// judge grades before the test, chosen by the spot-check's seed (and
	// cached for the UTC day, see Config.Now); 0 means none. Default 4. When
	// the mean of their differences from the expected grades, each clipped to
	// ±DriftClip (default 2, so that one gate decided differently does
	// not decide alone), is further than DriftLimit from 0 (default 0.75),
	// the judge has drifted and the check ends inconclusive. Four fixtures
	// are cheap, and they catch a judge that moved by a point or more;
	// a drift of half a point is within their noise (an honest judge's
	// fixture differences have a spread of about 0.7), and the rule's
	// Tolerance, not the fixtures, is what absorbs a quarter point.
	DriftFixtures int
	DriftClip     float64
	DriftLimit    float64
	// MinFaults and FaultShare set how many judge faults (errors,
	// unusable verdicts) end the check inconclusive: once they reach
	// max(MinFaults, FaultShare × calls made). Defaults 5 and 0.2, so that
	// a judge failing one call in ten still lets the test reach its
	// decision.
	MinFaults  int
	FaultShare float64
}

// DefaultRule returns the rule whose error rates and calls
// docs/PERFORMANCE.md reports; each field's documentation says why its
// value.
func DefaultRule() Rule {
	return Rule{
		Tolerance:          0.25,
		Delta:              1.0,
		Sigma:              1.0,
		SigmaWeight:        6,
		MinSigma:           0.6,
		Clip:               5,
		Alpha:              0.01,
		Beta:               0.05,
		MinN:               8,
		MinConsistent:      18,
		MaxN:               50,
		Jump:               4,
		Share:              0.17,
		JumpRate:           0.015,
		SlipRate:           0.0025,
		MinContradictions:  4,
		ContradictionShare: 0.25,
		DriftFixtures:      4,
		DriftClip:          2,
		DriftLimit:         0.75,
		MinFaults:          5,
		FaultShare:         0.2,
	}
}

// Validate reports a rule the test cannot run: a Tolerance that is
// negative or not below Delta, a non-positive Sigma, MinSigma or Clip,
// error rates whose boundaries would not enclose 0, negative counts, a
// MaxN below MinN, or a share outside its range.
func (r Rule) Validate() error {
	switch {
	case !(r.Tolerance >= 0) || !(r.Delta > r.Tolerance):
		return errors.New("rerun: Tolerance must be at least 0 and below Delta")
	case !(r.Sigma > 0) || !(r.MinSigma > 0) || !(r.Clip > 0):
		return errors.New("rerun: Sigma, MinSigma and Clip must be positive")
	case !(r.Alpha > 0 && r.Alpha < 1) || !(r.Beta > 0 && r.Beta < 1) || r.Alpha+r.Beta >= 1:
		return errors.New("rerun: Alpha and Beta must be in (0, 1) with Alpha+Beta < 1")
	case r.MinN < 0 || r.MinConsistent < 0 || r.MaxN < 0 || r.SigmaWeight < 0 || r.Jump < 1 || r.MinContradictions < 0 || r.DriftFixtures < 0 || r.MinFaults < 0:
		return errors.New("rerun: the counts of a rule must not be negative, and Jump must be at least 1")
	case r.MaxN > 0 && r.MaxN < r.MinN:
		return errors.New("rerun: MaxN is below MinN")
	case !(r.ContradictionShare >= 0 && r.ContradictionShare <= 1) || !(r.FaultShare >= 0 && r.FaultShare <= 1):
		return errors.New("rerun: ContradictionShare and FaultShare must be in [0, 1]")
	case !(r.Share > 0 && r.Share < 1) || !(r.JumpRate > 0 && r.JumpRate+r.Share < 1) || !(r.SlipRate > 0 && r.SlipRate+r.Share < 1):
		return errors.New("rerun: Share, JumpRate and SlipRate must be positive, with JumpRate+Share and SlipRate+Share below 1")
	case !(r.DriftClip > 0) || !(r.DriftLimit >= 0):
		return errors.New("rerun: DriftClip must be positive and DriftLimit not negative")
	}
	return nil
}

// Bounds returns the stopping boundaries on the log-likelihood ratio,
// lower = ln(Beta/(1−Alpha)) and upper = ln((1−Beta)/Alpha).
func (r Rule) Bounds() (lower, upper float64) {
	return math.Log(r.Beta / (1 - r.Alpha)), math.Log((1 - r.Beta) / r.Alpha)
}

// FaultLimit returns how many judge faults the check allows after calls
// judge calls: max(MinFaults, FaultShare × calls), so that the allowance
// grows with the evidence gathered rather than ending a long check that a
// flaky judge slows down.
func (r Rule) FaultLimit(calls int) int {
	return max(r.MinFaults, int(r.FaultShare*float64(calls)))
}

// Drift returns the judge's bias estimated from its grades of calibration
// fixtures, the mean of got − expected, each clipped to ±DriftClip, and
// whether it is beyond DriftLimit. No grades give 0 and false.
func (r Rule) Drift(diffs []int) (bias float64, drifted bool) {
	if len(diffs) == 0 {
		return 0, false
	}
	for _, d := range diffs {
		bias += math.Max(-r.DriftClip, math.Min(r.DriftClip, float64(d)))
	}
	bias /= float64(len(diffs))
	return bias, math.Abs(bias) > r.DriftLimit
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
	rule         Rule
	lower, upper float64
	n            int
	sumDiff      int
	// The questions that agree on the gate: their count, the sum of
	// their clipped differences, and the sum of squares about the running
	// mean (Welford's), for the spread.
	inner      int
	innerSum   float64
	innerMean  float64
	innerM2    float64
	up, down   int // jumps, either way: flips and slips
	flipUp     int // the upward jumps that are flips
	flipDown   int
	contradict int
	llr        float64
	decision   Decision
	jumps      *jumpTable // for the slip rate it was made for
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
	// A gate the two runs decide differently is a jump whatever its size:
	// its difference is the answer's worth, not the grading's noise.
	switch {
	case o.ReportedGate && !o.JudgedGate:
		t.up++
		t.flipUp++
	case !o.ReportedGate && o.JudgedGate:
		t.down++
		t.flipDown++
	case d >= t.rule.Jump:
		t.up++
	case d <= -t.rule.Jump:
		t.down++
	default:
		c := math.Max(-t.rule.Clip, math.Min(t.rule.Clip, float64(d)))
		t.inner++
		t.innerSum += c
		delta := c - t.innerMean
		t.innerMean += delta / float64(t.inner)
		t.innerM2 += delta * (c - t.innerMean)
	}
	if o.Contradiction() {
		t.contradict++
	}
	l1, l2 := t.Components()
	t.llr = logMeanExp(l1, l2)
	if t.n < t.rule.MinN {
		return Continue
	}
	switch {
	case t.rule.MinContradictions > 0 && t.contradict >= t.rule.MinContradictions &&
		float64(t.contradict) >= t.rule.ContradictionShare*float64(t.n):
		t.decision = Inconsistent
	case t.llr >= t.upper:
		t.decision = Inconsistent
	case t.llr <= t.lower && t.n >= t.rule.MinConsistent:
		t.decision = Consistent
	}
	return t.decision
}

// logMeanExp returns log(½e^a + ½e^b) without overflow.
func logMeanExp(a, b float64) float64 {
	m := math.Max(a, b)
	return m + math.Log(0.5*(math.Exp(a-m)+math.Exp(b-m)))
}

// Sigma returns the spread of the differences of the questions that agree
// on the gate, as the test uses it now: the prior Sigma pooled with the
// observations, never below MinSigma.
func (t *Test) Sigma() float64 {
	r := t.rule
	w := float64(r.SigmaWeight)
	v := r.Sigma * r.Sigma
	if dof := w + float64(max(t.inner-1, 0)); dof > 0 {
		v = (w*r.Sigma*r.Sigma + t.innerM2) / dof
	}
	return math.Max(r.MinSigma, math.Sqrt(v))
}

// jumpRates are the rates of honest flips each way over which the jump
// alternative's ratio is averaged, as multiples of Rule.JumpRate, with
// prior weights falling as 1/k², so that a judge flipping up to five
// times as many gates as assumed is still honest once the downward flips
// show it, while the assumed rate counts most when there are few to go
// by. slipRates are the same for slips, as multiples of the least rate
// (see Rule.SlipRate). Flatter weights cost the concentrated inflation's
// detection more than they saved false alarms (see docs/PERFORMANCE.md).
var (
	jumpRates = [...]float64{0.5, 1, 2, 3, 4, 5}
	slipRates = [...]float64{1, 2, 4, 8}
	// slipShares are the shares φ of the inflated questions the
	// alternative takes to be flips, the rest slips: a submitter may
	// raise failed gates, low scores, or both.
	slipShares = [...]float64{0.2, 0.5, 0.8}
)

// Components returns the log-likelihood ratios of the two alternatives
// (see Rule), the shift's and the jumps', after the observations so far.
// The jumps' is a ratio of averages over the honest rates of flips q and
// slips r (see jumpRates): with u and w up- and downward flips, a and b
// up- and downward slips and m neither, the average over q, r and φ of
// (q+φS)^u·q^w·(r+(1−φ)S)^a·r^b·(1−2q−2r−S)^m over that of
// q^u·q^w·r^a·r^b·(1−2q−2r)^m, S the Share. Downward jumps, which
// inflation does not cause, weigh for a higher rate of their kind.
func (t *Test) Components() (shift, jumps float64) {
	r := t.rule
	theta := r.Delta - r.Tolerance
	s := t.Sigma()
	shift = theta / (s * s) * (t.innerSum - float64(t.inner)*(r.Tolerance+theta/2))
	u, w := float64(t.flipUp), float64(t.flipDown)
	a, b := float64(t.up-t.flipUp), float64(t.down-t.flipDown)
	m := float64(t.n - t.up - t.down)
	// Slips the spread alone makes: a Gaussian's tail beyond Jump − ½,
	// at most 3%, so that the rates averaged over stay probabilities.
	least := math.Min(0.03, math.Max(r.SlipRate, 0.5*math.Erfc((float64(r.Jump)-0.5)/(s*math.Sqrt2))))
	if t.jumps == nil || t.jumps.least != least {
		t.jumps = newJumpTable(r, least)
	}
	tab := t.jumps
	var l0 [len(jumpRates) * len(slipRates)]float64
	var l1 [len(jumpRates) * len(slipRates) * len(slipShares)]float64
	for i := range l0 {
		c := &tab.cells[i]
		base := c.prior + w*c.logQ + b*c.logR
		l0[i] = base + u*c.logQ + a*c.logR + m*c.logNone0
		for k := range slipShares {
			l1[i*len(slipShares)+k] = base + c.logAlt + u*c.logFlip[k] + a*c.logSlip[k] + m*c.logNone1
		}
	}
	return shift, logSumExp(l1[:]) - logSumExp(l0[:])
}

// jumpTable holds the logarithms the jumps' ratio is made of, for one
// least slip rate (see Components): they are the same for every
// observation until the estimated spread moves that rate.
type jumpTable struct {
	least float64
	cells [len(jumpRates) * len(slipRates)]jumpCell
}

// jumpCell is one pair of honest rates q (flips) and r (slips).
type jumpCell struct {
	prior            float64 // log of the pair's prior weight, 1/(k_q²·k_r²)
	logQ, logR       float64
	logNone0         float64 // log(1 − 2q − 2r): neither, without inflation
	logNone1         float64 // log(1 − 2q − 2r − Share): neither, with it
	logAlt           float64 // log of 1/len(slipShares), or −∞ where the rates leave no room for the Share
	logFlip, logSlip [len(slipShares)]float64
}

func newJumpTable(r Rule, least float64) *jumpTable {
	tab := &jumpTable{least: least}
	for i, kq := range jumpRates {
		q := kq * r.JumpRate
		for j, kr := range slipRates {
			sl := kr * least
			c := &tab.cells[i*len(slipRates)+j]
			c.prior = -2*math.Log(kq) - 2*math.Log(kr)
			c.logQ, c.logR = math.Log(q), math.Log(sl)
			c.logNone0 = math.Log1p(-2*q - 2*sl)
			c.logAlt, c.logNone1 = math.Inf(-1), 0
			if 2*q+2*sl+r.Share < 1 {
				c.logAlt = -math.Log(float64(len(slipShares)))
				c.logNone1 = math.Log1p(-2*q - 2*sl - r.Share)
			}
			for k, phi := range slipShares {
				c.logFlip[k] = math.Log(q + phi*r.Share)
				c.logSlip[k] = math.Log(sl + (1-phi)*r.Share)
			}
		}
	}
	return tab
}

// logSumExp returns log Σ e^x without overflow.
func logSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	if math.IsInf(m, -1) {
		return m
	}
	sum := 0.0
	for _, v := range x {
		sum += math.Exp(v - m)
	}
	return m + math.Log(sum)
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

// LLR returns the log-likelihood ratio of the mixture of alternatives
// against H0 so far (see Rule).
func (t *Test) LLR() float64 { return t.llr }

// Contradictions returns the number of observations whose gate the
// submission reports passed and the judge failed.
func (t *Test) Contradictions() int { return t.contradict }

// Jumps returns the number of upward jumps: observations whose gate the
// submission reports passed and the judge failed (flips), or whose
// reported score exceeds the judge's by at least the rule's Jump on a
// gate both pass (slips).
func (t *Test) Jumps() int { return t.up }

// MeanDiff returns the mean of reported − judged over the observations,
// unclipped, so that a report shows the actual size of a disagreement; 0
// with no observations.
func (t *Test) MeanDiff() float64 {
	if t.n == 0 {
		return 0
	}
	return float64(t.sumDiff) / float64(t.n)
}
