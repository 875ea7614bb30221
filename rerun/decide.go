package rerun

import (
	"errors"
	"fmt"
	"math"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/stats"
)

// Decision is what the evidence of a spot-check decides.
type Decision int

const (
	// Undecided means the evidence neither shows an inflation nor rules
	// one out: a maintainer decides.
	Undecided Decision = iota
	// Consistent means the reported scores agree with the judge's: an
	// inflation of Delta points per question is ruled out.
	Consistent
	// Inconsistent means the reported scores are higher than the judge's
	// beyond what an honest run of the judge, drifted by up to the
	// tolerance, makes.
	Inconsistent
)

// String returns "undecided", "consistent" or "inconsistent".
func (d Decision) String() string {
	switch d {
	case Undecided:
		return "undecided"
	case Consistent:
		return "consistent"
	case Inconsistent:
		return "inconsistent"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Rule is the spot-check's test: how many questions it re-grades, how
// many calibration fixtures the judge grades first, and the tests that
// decide. Its guarantee rests on one fact and on no model of the judge's
// noise: an honest submission's reported grade and the judge's new grade
// of the same answer are two runs of one judge, so that the pair is
// exchangeable (either could have been the other), whatever the noise —
// heteroscedastic, correlated across a question's components, or a fixed
// score returned now and then. Two exact tests use it, each with its
// share of Alpha, so that an honest submission is called inconsistent
// with probability at most Alpha (Bonferroni):
//
//   - the shift test, for an inflation spread over many questions: the
//     one-sided Wilcoxon signed-rank test, exact with ties, that the
//     differences d = reported − judged are symmetric about Tolerance.
//     It needs no estimate of their spread, which may differ from
//     question to question; the tolerance absorbs a judge that grades up
//     to Tolerance points more strictly than the submitter's run did.
//   - the jump test, for an inflation concentrated on a few questions,
//     such as failed gates reported passed: a jump is a difference of at
//     least a moderate or a big jump (benchmark.JumpPoints: 4 and 8
//     points of a 10-point question; a big one is a gate decided the
//     other way on a good answer). Honestly, a jump up is as likely as a
//     jump down, and as likely as a jump either way between two runs of
//     the judge on the same answer, which the check measures by grading
//     Regrade of the sample's answers twice (see Controls): the judge's
//     real rate on these very answers, not an assumed one. For big jumps
//     a calibration record's pairs of runs on its fixtures count too.
//     Only questions and pairs with a gate passed by either run count,
//     two failed gates scoring 0 alike. Given the number t of jumps of a
//     size among the sample's ups and downs and the pairs', the ups are
//     Binomial(t, n/(2n+2m)) for n questions and m pairs (counts of rare
//     events from trials of one rate), independently for the two sizes;
//     the test is exact in that conditional law. Its statistic is the
//     smallest of three tail p-values: the moderate ups', the big ups',
//     and that of their sum with a big jump weighing BigWeight moderate
//     ones (stats.PairMinP), so that an inflation of either size, or of
//     both, is seen.
//
// Before the sample the judge grades DriftFixtures calibration fixtures,
// alternately one whose expected gate passes and one whose fails, and
// their differences from the reference grades (the mean of a calibration
// record's runs, else the rubric's expected grade), each clipped to
// DriftClip of the points, estimate its drift: the mean of each half,
// weighted by the shares of passed and failed gates the submission
// reports. The estimate keeps the verdicts honest about a judge that has
// moved since the submitter's run:
//
//   - inconsistent stands only if the judge is not estimated stricter
//     than Tolerance (drift ≥ −Tolerance): a drifted judge accuses no one;
//   - consistent needs the (1−Beta) upper confidence bound of the mean
//     inflation, the Student t bound on the mean difference plus the
//     judge's estimated leniency, to be below Delta: an inflation of
//     Delta points a question is then ruled out;
//   - anything else is undecided, and so is a check whose fixtures show
//     drift beyond the tolerance at level DriftAlpha, which ends before
//     the sample.
//
// Rule is comparable, so a zero Rule can stand for "the default".
type Rule struct {
	// Tolerance is the inflation, in points per question, the test
	// accepts as the judge's drift (δ₀). Default 0.25. A benchmark's
	// registry entry may set its own (spot_check_tolerance).
	Tolerance float64
	// Delta is the inflation, in points per question, that a consistent
	// verdict rules out. Default 1.0: a point on every question of a 0–10
	// rubric, a tenth of the scale, enough to reorder a leaderboard.
	Delta float64
	// Alpha bounds the probability of calling an honest submission
	// inconsistent (default 0.01); ShiftShare is the part of it given to
	// the shift test (default 0.2), the rest going to the jump test, whose
	// discrete law needs the larger share to reach its power: the
	// concentrated inflation's detection gained half a point from 0.3, the
	// uniform inflation's lost a third of one.
	Alpha, ShiftShare float64
	// Beta is one minus the confidence of the bound behind a consistent
	// verdict (default 0.05).
	Beta float64
	// BigWeight is how many moderate jumps a big one counts as in the jump
	// test's sum (default 2: a gate raised from 0 to 10 is stronger
	// evidence than a score raised by four points).
	BigWeight int
	// MaxN is how many questions are re-graded: all of a rubric of at
	// most MaxN questions, else MaxN drawn at random by the seed. Default
	// 50, a whole typical rubric benchmark. 0 re-grades every question.
	MaxN int
	// DriftFixtures is how many of the rubric's calibration fixtures the
	// judge grades before the sample (cached for the UTC day, see
	// Config.Now); 0 means none. Default 32, which a drift of half a point
	// on passed answers exceeds the tolerance on 95% of the time with the
	// simulation's noisy judge (docs/PERFORMANCE.md gives the table).
	// DriftAlpha is the level at which their drift beyond the tolerance
	// ends the check before the sample (default 0.01 each way).
	DriftFixtures int
	DriftAlpha    float64
	// Regrade is how many of the sample's answers the judge grades a
	// second time, a run independent of the first (default 50, all of a
	// full sample): pairs of its own runs on the submission's answers, the
	// jump test's controls matched to the sample whatever the judge. The
	// calibration record's pairs, on fixtures at 0, in the middle and at
	// full marks, jump less often than runs on middling answers where a
	// judge's errors are correlated across components (the simulation's
	// false alarms rose to 1.1% with them as the only controls), so they
	// count for big jumps only, which gates decided the other way make on
	// fixtures and answers alike.
	Regrade int
	// Canaries is how many canaries (see CanaryAnswers) the judge grades
	// before a consistent verdict stands, each carrying up to
	// CanaryAnswers of the answers it passed: default 10, which covers
	// every answer of a full sample of 50 and keeps the whole check
	// (48 fixtures, 50 answers graded twice, 10 canaries) within the
	// App's 160 calls. 0 grades none.
	Canaries int
	// MinFaults and FaultShare set how many judge faults (errors,
	// unusable verdicts) end the check inconclusive: once they reach
	// max(MinFaults, FaultShare × calls made). Defaults 5 and 0.2.
	MinFaults  int
	FaultShare float64
}

// DefaultRule returns the rule whose error rates docs/PERFORMANCE.md
// reports; each field's documentation says why its value.
func DefaultRule() Rule {
	return Rule{
		Tolerance:     0.25,
		Delta:         1.0,
		Alpha:         0.01,
		ShiftShare:    0.2,
		Beta:          0.05,
		BigWeight:     2,
		MaxN:          50,
		DriftFixtures: 48,
		DriftAlpha:    0.01,
		Regrade:       50,
		Canaries:      10,
		MinFaults:     5,
		FaultShare:    0.2,
	}
}

// Validate reports a rule the test cannot run.
func (r Rule) Validate() error {
	switch {
	case !(r.Tolerance >= 0) || !(r.Delta > r.Tolerance):
		return errors.New("rerun: Tolerance must be at least 0 and below Delta")
	case !(r.Alpha > 0 && r.Alpha < 1) || !(r.Beta > 0 && r.Beta < 0.5) || !(r.ShiftShare > 0 && r.ShiftShare < 1):
		return errors.New("rerun: Alpha must be in (0, 1), Beta in (0, 0.5) and ShiftShare in (0, 1)")
	case !(r.DriftAlpha > 0 && r.DriftAlpha < 0.5):
		return errors.New("rerun: DriftAlpha must be in (0, 0.5)")
	case r.MaxN < 0 || r.DriftFixtures < 0 || r.Regrade < 0 || r.Canaries < 0 || r.MinFaults < 0 || r.BigWeight < 1:
		return errors.New("rerun: the counts of a rule must not be negative, and BigWeight must be at least 1")
	case !(r.FaultShare >= 0 && r.FaultShare <= 1):
		return errors.New("rerun: FaultShare must be in [0, 1]")
	}
	return nil
}

// FaultLimit returns how many judge faults the check allows after calls
// judge calls: max(MinFaults, FaultShare × calls).
func (r Rule) FaultLimit(calls int) int {
	return max(r.MinFaults, int(r.FaultShare*float64(calls)))
}

// DriftClip is the share of a question's points at which each fixture's
// difference is clipped in the drift's estimate (2 points of 10): a gate
// decided the other way on one fixture moves the estimate no more than a
// drift of two points on it would, so that a rare honest flip does not
// pass for drift.
const DriftClip = 0.2

func driftClip(points int) float64 { return math.Max(1, math.Round(DriftClip*float64(points))) }

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

// Controls are pairs of runs of the judge on one answer: two honest
// gradings, exchangeable as an honest submission's reported and judged
// grades are, on which the jump test measures how often the judge's own
// runs differ by a jump. Each pair is two trials, a jump up and a jump
// down.
type Controls struct {
	Pairs         int
	Live          int // pairs with a gate passed by either run
	Moderate, Big int // pairs that differ by a moderate or a big jump
}

// Add counts one pair of gradings a and b of a fixture worth points.
func (c *Controls) Add(a, b, points int) {
	c.Pairs++
	if a > 0 || b > 0 {
		c.Live++
	}
	moderate, big := benchmark.JumpPoints(points)
	switch d := abs(a - b); {
	case d >= big:
		c.Big++
	case d >= moderate:
		c.Moderate++
	}
}

// Evidence is what a spot-check gathered: the questions re-graded, the
// fixtures' trials, and the judge's drift estimated from the fixtures
// (nil when none was graded).
type Evidence struct {
	Observations []Observation
	// Regraded are pairs of the judge's two runs on the sample's answers,
	// and Recorded pairs of its runs on calibration fixtures from a
	// calibration record (see Controls).
	Regraded, Recorded Controls
	Drift              *float64
	// Points is a question's worth, which sets the jumps and the clip.
	Points int
}

// Result is the decision on some evidence with the figures behind it.
type Result struct {
	Decision Decision
	// Cause says which part of the rule decided: for Inconsistent the
	// test that rejected ("shift", "jumps" or both), for Undecided what
	// kept the evidence from either verdict.
	Cause Cause
	N     int     // observations
	Mean  float64 // mean of reported − judged, unclipped
	// Shift is the shift test, Jump the jump test.
	Shift ShiftTest
	Jump  JumpTest
	// Bound is the (1−Beta) upper confidence bound of the mean inflation,
	// with the judge's estimated leniency added; +Inf with fewer than two
	// observations.
	Bound float64
	// Drift is the judge's estimated drift, 0 when unknown.
	Drift float64
}

// Cause is what decided a Result.
type Cause string

// The causes.
const (
	CauseShift      Cause = "shift" // the shift test rejected
	CauseJumps      Cause = "jumps" // the jump test rejected
	CauseBoth       Cause = "shift+jumps"
	CauseDrift      Cause = "drift" // a test rejected, but the judge grades the fixtures more strictly than the tolerance
	CauseBound      Cause = "bound" // no test rejected, but the bound does not rule out Delta
	CauseNone       Cause = ""      // consistent
	CauseNoEvidence Cause = "no evidence"
)

// ShiftTest is the shift test's figures.
type ShiftTest struct {
	N     int     `json:"n"`     // differences ranked
	P     float64 `json:"p"`     // one-sided p-value against Tolerance
	Level float64 `json:"level"` // Alpha·ShiftShare
}

// JumpTest is the jump test's figures: jumps up and down in the sample
// and among the controls' pairs, moderate ([0]) and big ([1]).
type JumpTest struct {
	Up   [2]int `json:"up"`
	Down [2]int `json:"down"`
	// Controls counts the jumps between two runs of the judge on one
	// answer: the Regraded pairs (the sample's answers graded twice) for
	// both sizes, and for big jumps also the Recorded pairs (a calibration
	// record's runs on its fixtures).
	Controls [2]int `json:"controls"`
	Regraded int    `json:"regraded_pairs"`
	Recorded int    `json:"recorded_pairs"`
	// Live counts the sample's questions with a gate passed by either
	// run, the only ones that can jump.
	Live int `json:"live"`
	// Share is, for each size, the chance that a jump of the pooled trials
	// is one of the sample's jumps up when the submission is honest.
	Share [2]float64 `json:"share"`
	P     float64    `json:"p"`
	Level float64    `json:"level"`
}

// Rejects reports whether the test's p-value is within its level.
func (t ShiftTest) Rejects() bool { return t.P <= t.Level }

// Rejects reports whether the test's p-value is within its level.
func (t JumpTest) Rejects() bool { return t.P <= t.Level }

// Decide applies the rule to the evidence.
func (r Rule) Decide(ev Evidence) Result {
	res := Result{N: len(ev.Observations), Bound: math.Inf(1)}
	if ev.Drift != nil {
		res.Drift = *ev.Drift
	}
	if res.N == 0 {
		res.Cause = CauseNoEvidence
		return res
	}
	moderate, big := benchmark.JumpPoints(ev.Points)
	shifted := make([]float64, 0, res.N)
	sum, sumSq := 0.0, 0.0
	live := 0
	for _, o := range ev.Observations {
		d := o.Reported - o.Judged
		sum += float64(d)
		sumSq += float64(d) * float64(d)
		shifted = append(shifted, float64(d)-r.Tolerance)
		if o.ReportedGate || o.JudgedGate {
			live++
		}
		switch {
		case d >= big:
			res.Jump.Up[1]++
		case d >= moderate:
			res.Jump.Up[0]++
		case -d >= big:
			res.Jump.Down[1]++
		case -d >= moderate:
			res.Jump.Down[0]++
		}
	}
	n := float64(res.N)
	res.Mean = sum / n

	res.Shift.N, res.Shift.Level = res.N, r.Alpha*r.ShiftShare
	res.Shift.P = stats.SignFlipUpper(stats.SignedRanks(shifted))

	j := &res.Jump
	j.Level, j.Live = r.Alpha*(1-r.ShiftShare), live
	j.Regraded, j.Recorded = ev.Regraded.Pairs, ev.Recorded.Pairs
	j.Controls = [2]int{ev.Regraded.Moderate, ev.Regraded.Big + ev.Recorded.Big}
	// Only a question or pair with a gate passed can jump: two failed
	// gates both score 0. Counting the others as trials would dilute the
	// rate of the one and not the other. A pair is two trials, a jump up
	// and a jump down, as a question of the sample is.
	if live > 0 {
		n := float64(live)
		j.Share[0] = n / (2*n + 2*float64(ev.Regraded.Live))
		j.Share[1] = n / (2*n + 2*float64(ev.Regraded.Live+ev.Recorded.Live))
	}
	j.P = stats.PairMinP(
		stats.BinomialTail{N: j.Up[0] + j.Down[0] + j.Controls[0], P: j.Share[0], Observed: j.Up[0]},
		stats.BinomialTail{N: j.Up[1] + j.Down[1] + j.Controls[1], P: j.Share[1], Observed: j.Up[1]},
		r.BigWeight)

	if res.N >= 2 {
		sd := math.Sqrt(math.Max(0, sumSq-n*res.Mean*res.Mean) / (n - 1))
		res.Bound = res.Mean + stats.StudentT(1-2*r.Beta, res.N-1)*sd/math.Sqrt(n) + math.Max(0, res.Drift)
	}

	switch shift, jumps := res.Shift.Rejects(), res.Jump.Rejects(); {
	case (shift || jumps) && res.Drift < -r.Tolerance:
		res.Cause = CauseDrift
	case shift && jumps:
		res.Decision, res.Cause = Inconsistent, CauseBoth
	case shift:
		res.Decision, res.Cause = Inconsistent, CauseShift
	case jumps:
		res.Decision, res.Cause = Inconsistent, CauseJumps
	case res.Bound < r.Delta:
		res.Decision = Consistent
	default:
		res.Cause = CauseBound
	}
	return res
}

// FixtureGrade is a calibration fixture graded before the sample: its
// expected gate (which half it belongs to) and the difference of the
// judge's grade from the reference grade.
type FixtureGrade struct {
	ExpectedGate bool
	Diff         float64 // judged − reference
}

// Drift returns the judge's drift estimated from graded fixtures (see
// Rule): the mean of each half's differences, each clipped to the
// moderate jump of a question worth points, weighted by passShare (the
// share of the submission's gates reported passed) and its complement;
// with one half empty, the other's mean. It returns false with no
// fixture.
func Drift(fixtures []FixtureGrade, passShare float64, points int) (float64, bool) {
	clip := driftClip(points)
	var sum [2]float64
	var cnt [2]int
	for _, f := range fixtures {
		k := 0
		if f.ExpectedGate {
			k = 1
		}
		sum[k] += math.Max(-clip, math.Min(clip, f.Diff))
		cnt[k]++
	}
	switch {
	case cnt[0] == 0 && cnt[1] == 0:
		return 0, false
	case cnt[0] == 0:
		return sum[1] / float64(cnt[1]), true
	case cnt[1] == 0:
		return sum[0] / float64(cnt[0]), true
	}
	return passShare*sum[1]/float64(cnt[1]) + (1-passShare)*sum[0]/float64(cnt[0]), true
}

// DriftSeen reports whether the fixtures show the judge's drift beyond
// the tolerance, either way, at level DriftAlpha each way: the exact
// sign-flip test of the weighted, clipped differences of Drift, moved by
// the tolerance. Its direction is −1 for a judge stricter than the
// reference, +1 for a more lenient one, 0 when neither is seen.
func (r Rule) DriftSeen(fixtures []FixtureGrade, passShare float64, points int) int {
	clip := driftClip(points)
	var cnt [2]int
	for _, f := range fixtures {
		if f.ExpectedGate {
			cnt[1]++
		} else {
			cnt[0]++
		}
	}
	weight := [2]float64{1 - passShare, passShare}
	switch {
	case cnt[0] == 0 && cnt[1] == 0:
		return 0
	case cnt[0] == 0:
		weight = [2]float64{0, 1}
	case cnt[1] == 0:
		weight = [2]float64{1, 0}
	}
	// Weighted so that the sum is the estimate times the number of
	// fixtures; scaled to integers for the exact count.
	const scale = 1000
	total := float64(len(fixtures))
	var stricter, lenient []int
	for _, f := range fixtures {
		k := 0
		if f.ExpectedGate {
			k = 1
		}
		w := weight[k] * total / float64(cnt[k])
		c := math.Max(-clip, math.Min(clip, f.Diff))
		stricter = append(stricter, int(math.Round(-scale*w*(c+r.Tolerance))))
		lenient = append(lenient, int(math.Round(scale*w*(c-r.Tolerance))))
	}
	switch {
	case stats.SignFlipUpper(stricter) <= r.DriftAlpha:
		return -1
	case stats.SignFlipUpper(lenient) <= r.DriftAlpha:
		return 1
	}
	return 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
