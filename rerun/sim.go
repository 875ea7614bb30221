package rerun

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// MaxScore is the most points a question is worth in the simulated
// benchmark; a failed gate scores 0.
const MaxScore = 10

// NoiseModel is a simulated judge and the answers it grades. An answer has
// a true gate decision and is worth some points when its gate passes; one
// run of the judge decides the gate the other way with probability
// GateFlip, scores a failed gate 0, and otherwise scores the answer's worth
// off by ε points, clipped to [0, MaxScore]. Runs are independent.
type NoiseModel struct {
	// Error[k] is the probability that a run's score is off by k−2 points,
	// ε ∈ {−2, −1, 0, +1, +2}.
	Error [5]float64
	// GateFlip is the probability that a run decides the gate the other
	// way: a passed gate is failed (the score drops to 0) or a failed one
	// passed (the score jumps to about the answer's worth).
	GateFlip float64
	// GateFail is the share of answers that truly fail their gate.
	GateFail float64
	// Worth[s] is the share of answers worth s points when the gate passes.
	Worth [MaxScore + 1]float64
	// Bias is how many points the checking judge's scores of passed gates
	// move from the submitter's run of the same judge, as a judge whose
	// provider changed the model might: each such score moves by the whole
	// part of Bias and by one point more with the probability of its
	// fraction, so that the mean move is Bias. Negative is stricter. The
	// submitter's run and the calibration fixtures' expected grades are
	// unbiased.
	Bias float64
	// CallFail is the probability that one call of the checking judge
	// fails and gives no grade.
	CallFail float64
	// Slip is the probability that a run misjudges a whole component of
	// an answer whose gate it passes: the score is off by SlipPoints,
	// either way, instead of by ε. Two runs then differ by four points
	// or more on the same gate, which ε alone almost never makes.
	Slip float64
}

// SlipPoints is how far a Slip moves a score: a component of a rubric
// question is typically worth a few points.
const SlipPoints = 4

// DefaultNoiseModel returns the judge the defaults of DefaultRule were
// chosen for. Two thirds of its scores are exact, 30% are a point off and
// 4% two points off, either way. It decides the gate the other way on 1.5%
// of its runs, so that two runs disagree on the gate of 3% of the
// questions, the borderline cases whose score jumps between 0 and 4 points
// or more. A tenth of the answers truly fail the gate and the rest are
// worth 4 to 10 points, mostly 6 to 9, as in a benchmark that separates
// good models. Two runs of this judge give the same score on 54% of the
// questions and differ by four points or more on 3%.
func DefaultNoiseModel() NoiseModel {
	return NoiseModel{
		Error:    [5]float64{0.02, 0.15, 0.66, 0.15, 0.02},
		GateFlip: 0.015,
		GateFail: 0.10,
		Worth:    [MaxScore + 1]float64{4: 0.04, 5: 0.08, 6: 0.16, 7: 0.22, 8: 0.22, 9: 0.18, 10: 0.10},
	}
}

// Validate reports a model whose probabilities are negative or do not add
// up to 1.
func (nm NoiseModel) Validate() error {
	if err := checkProbs("Error", nm.Error[:]); err != nil {
		return err
	}
	if err := checkProbs("Worth", nm.Worth[:]); err != nil {
		return err
	}
	if !(nm.GateFlip >= 0 && nm.GateFlip <= 1) || !(nm.GateFail >= 0 && nm.GateFail <= 1) || !(nm.CallFail >= 0 && nm.CallFail < 1) || !(nm.Slip >= 0 && nm.Slip <= 1) {
		return fmt.Errorf("rerun: GateFlip, GateFail and Slip must be in [0, 1], CallFail in [0, 1)")
	}
	if !(math.Abs(nm.Bias) <= MaxScore) {
		return fmt.Errorf("rerun: Bias must be within ±%d points", MaxScore)
	}
	return nil
}

func checkProbs(name string, p []float64) error {
	sum := 0.0
	for _, v := range p {
		if !(v >= 0) {
			return fmt.Errorf("rerun: %s has a negative or NaN probability", name)
		}
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("rerun: %s adds up to %g, not 1", name, sum)
	}
	return nil
}

// simAnswer is a question's simulated truth.
type simAnswer struct {
	pass  bool
	worth int
}

// simGrade is one score with its gate decision.
type simGrade struct {
	score int
	gate  bool
}

// passScores returns the distribution of one run's score of a when the
// run passes its gate: the worth off by ε, or by SlipPoints on a slip.
func (nm NoiseModel) passScores(a simAnswer) [MaxScore + 1]float64 {
	var p [MaxScore + 1]float64
	for k, e := range nm.Error {
		p[clampToScale(a.worth+k-2)] += (1 - nm.Slip) * e
	}
	p[clampToScale(a.worth-SlipPoints)] += nm.Slip / 2
	p[clampToScale(a.worth+SlipPoints)] += nm.Slip / 2
	return p
}

// scoreDist returns the distribution of one run's score of a: the gate
// first, then the score of a passed one (see passScores).
func (nm NoiseModel) scoreDist(a simAnswer) [MaxScore + 1]float64 {
	return nm.gradeDist(a, 0)
}

// checkDist returns the distribution of the checking judge's score of a:
// one run's, with the scores of passed gates moved by Bias (see check).
func (nm NoiseModel) checkDist(a simAnswer) [MaxScore + 1]float64 {
	return nm.gradeDist(a, nm.Bias)
}

// gradeDist is one run's score distribution with the scores of passed
// gates moved by bias points on average: by its whole part, and by one
// point more with the probability of its fraction.
func (nm NoiseModel) gradeDist(a simAnswer, bias float64) [MaxScore + 1]float64 {
	var p [MaxScore + 1]float64
	pPass := 1 - nm.GateFlip
	if !a.pass {
		pPass = nm.GateFlip
	}
	p[0] += 1 - pPass
	whole := math.Floor(bias)
	frac := bias - whole
	for sc, ps := range nm.passScores(a) {
		moved := sc + int(whole)
		p[clampToScale(moved)] += pPass * ps * (1 - frac)
		p[clampToScale(moved+1)] += pPass * ps * frac
	}
	return p
}

// Differences returns the exact distribution of the difference between the
// submitter's run of the judge and the checking judge's (with its Bias) on
// a random answer, the d = reported − judged of an honest submission:
// element k is P(d = k − MaxScore).
func (nm NoiseModel) Differences() [2*MaxScore + 1]float64 {
	var d [2*MaxScore + 1]float64
	for _, pass := range []bool{true, false} {
		pa := 1 - nm.GateFail
		if !pass {
			pa = nm.GateFail
		}
		for w, pw := range nm.Worth {
			if pa*pw == 0 {
				continue
			}
			s := nm.scoreDist(simAnswer{pass: pass, worth: w})
			c := nm.checkDist(simAnswer{pass: pass, worth: w})
			for i, pi := range s {
				for j, pj := range c {
					d[i-j+MaxScore] += pa * pw * pi * pj
				}
			}
		}
	}
	return d
}

// ClippedSD returns the standard deviation of an honest submission's
// difference clipped to ±clip, the Sigma a Rule with that Clip assumes.
func (nm NoiseModel) ClippedSD(clip float64) float64 {
	var m, m2 float64
	for k, p := range nm.Differences() {
		c := math.Max(-clip, math.Min(clip, float64(k-MaxScore)))
		m += p * c
		m2 += p * c * c
	}
	return math.Sqrt(m2 - m*m)
}

func (nm NoiseModel) truth(rng *rand.Rand) simAnswer {
	return simAnswer{pass: rng.Float64() >= nm.GateFail, worth: drawIndex(rng, nm.Worth[:])}
}

// run is one grading of a by the judge.
func (nm NoiseModel) run(rng *rand.Rand, a simAnswer) simGrade {
	pass := a.pass
	if rng.Float64() < nm.GateFlip {
		pass = !pass
	}
	if !pass {
		return simGrade{}
	}
	if nm.Slip > 0 && rng.Float64() < nm.Slip {
		if rng.Float64() < 0.5 {
			return simGrade{score: clampToScale(a.worth - SlipPoints), gate: true}
		}
		return simGrade{score: clampToScale(a.worth + SlipPoints), gate: true}
	}
	return simGrade{score: clampToScale(a.worth + drawIndex(rng, nm.Error[:]) - 2), gate: true}
}

// check is one grading of a by the checking judge, biased by nm.Bias.
func (nm NoiseModel) check(rng *rand.Rand, a simAnswer) simGrade {
	g := nm.run(rng, a)
	if !g.gate || nm.Bias == 0 {
		return g
	}
	whole := math.Floor(nm.Bias)
	move := int(whole)
	if rng.Float64() < nm.Bias-whole {
		move++
	}
	g.score = clampToScale(g.score + move)
	return g
}

// Noisier returns nm with the spread of its score errors multiplied by
// k: the mass off by one and two points is scaled so that the standard
// deviation of ε grows k-fold, keeping the ratio of the two. It is
// meaningful while the exact share stays positive (k up to about 1.6
// for the default model).
func (nm NoiseModel) Noisier(k float64) NoiseModel {
	p1, p2 := nm.Error[1]+nm.Error[3], nm.Error[0]+nm.Error[4]
	f := k * k
	nm.Error = [5]float64{f * nm.Error[0], f * nm.Error[1], 1 - f*(p1+p2), f * nm.Error[3], f * nm.Error[4]}
	return nm
}

// JudgeScenario is a checking judge that differs from the one the rule
// was tuned for.
type JudgeScenario struct {
	Name  string
	Model NoiseModel
}

// JudgeScenarios lists the judges bench/rerunsim and the tests simulate:
// the default, one that grades a quarter or half a point more strictly
// or more leniently than the submitter's run, one whose scores are 1.5
// times as noisy, ones that decide the gate the other way on 3% and 5% of
// their runs (twice and three times the default's 1.5%), ones that
// misjudge a whole component (SlipPoints) on 2% and 5% of their runs of a
// passed gate, and one whose calls fail one time in ten.
func JudgeScenarios() []JudgeScenario {
	d := DefaultNoiseModel()
	with := func(f func(*NoiseModel)) NoiseModel { m := d; f(&m); return m }
	return []JudgeScenario{
		{"default judge", d},
		{"stricter by 0.25", with(func(m *NoiseModel) { m.Bias = -0.25 })},
		{"stricter by 0.5", with(func(m *NoiseModel) { m.Bias = -0.5 })},
		{"more lenient by 0.25", with(func(m *NoiseModel) { m.Bias = 0.25 })},
		{"more lenient by 0.5", with(func(m *NoiseModel) { m.Bias = 0.5 })},
		{"1.5× noise", d.Noisier(1.5)},
		{"3% gate flips", with(func(m *NoiseModel) { m.GateFlip = 0.03 })},
		{"5% gate flips", with(func(m *NoiseModel) { m.GateFlip = 0.05 })},
		{"2% component slips", with(func(m *NoiseModel) { m.Slip = 0.02 })},
		{"5% component slips", with(func(m *NoiseModel) { m.Slip = 0.05 })},
		{"10% failed calls", with(func(m *NoiseModel) { m.CallFail = 0.10 })},
	}
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
	// Rounding left u just above the last non-zero probability.
	for i := len(p) - 1; i > 0; i-- {
		if p[i] > 0 {
			return i
		}
	}
	return 0
}

func clampToScale(s int) int { return max(0, min(MaxScore, s)) }

// Scenario is how a simulated submission's reported scores come about.
type Scenario int

const (
	// Honest reports one run of the judge, independent of the run that
	// checks it.
	Honest Scenario = iota
	// InflatedUniform adds a point to every question of an honest report.
	// A question reported at MaxScore cannot take it, which would leave the
	// average inflation below 1 (about 0.9 with the default model); the
	// points lost to the clip are added instead, one each, to other
	// questions chosen at random among those with room, so that the
	// inflation is exactly one point per question on average, as the
	// inflation to detect is stated. A failed gate raised to 1 is reported
	// passed, since a failed gate scores 0.
	InflatedUniform
	// InflatedFifth adds five points to a fifth of the questions of an
	// honest report: the same average inflation, concentrated on a few
	// questions, where a short sample can miss it and where it looks like
	// a gate decided differently. Most answers are worth more than 5, so
	// five points on questions taken at random would mostly be clipped, to
	// about three on average; the fifth is therefore chosen at random among
	// the questions reported at 5 or less (about 12 of 50 with the default
	// model), which take all five, so that the inflation is one point per
	// question on average. A shortfall (too few such questions, or a
	// number of questions not divisible by five) is added a point at a
	// time to other questions with room. About half of the fifth are
	// failed gates raised to 5 and reported passed, the most profitable
	// lie about a rubric answer.
	InflatedFifth
	// CherryPicked reports, for each question, the best of three runs of
	// the judge: what a submitter gets by grading three times and keeping
	// the best. With the default model that inflates the scores by about
	// half a point per question, half of Delta; the test is not built to
	// call it either way, and the simulation shows what it does.
	CherryPicked
)

// Scenarios lists every scenario, in the order the tables show them.
var Scenarios = []Scenario{Honest, InflatedUniform, InflatedFifth, CherryPicked}

// String returns the scenario's name as the tables show it.
func (s Scenario) String() string {
	switch s {
	case Honest:
		return "honest"
	case InflatedUniform:
		return "inflated +1 uniform"
	case InflatedFifth:
		return "inflated +5 on a fifth"
	case CherryPicked:
		return "cherry-picked best of 3"
	}
	return fmt.Sprintf("Scenario(%d)", int(s))
}

// report returns the scores a submission of scenario sc reports for the
// answers as.
func (nm NoiseModel) report(rng *rand.Rand, sc Scenario, as []simAnswer) []simGrade {
	rep := make([]simGrade, len(as))
	for i, a := range as {
		rep[i] = nm.run(rng, a)
	}
	switch sc {
	case InflatedUniform:
		lost := 0
		for i := range rep {
			if rep[i].score == MaxScore {
				lost++
				continue
			}
			rep[i].score++
		}
		spreadPoints(rng, rep, lost, nil)
	case InflatedFifth:
		k := len(rep) / 5
		var room, rest []int
		for i, g := range rep {
			if g.score <= MaxScore-5 {
				room = append(room, i)
			} else {
				rest = append(rest, i)
			}
		}
		rng.Shuffle(len(room), func(i, j int) { room[i], room[j] = room[j], room[i] })
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		fifth := append(room, rest...)[:k]
		added := 0
		chosen := make([]bool, len(rep))
		for _, i := range fifth {
			s := min(MaxScore, rep[i].score+5)
			added += s - rep[i].score
			rep[i].score = s
			chosen[i] = true
		}
		spreadPoints(rng, rep, len(rep)-added, chosen)
	case CherryPicked:
		for i, a := range as {
			for range 2 {
				if g := nm.run(rng, a); g.score > rep[i].score {
					rep[i] = g
				}
			}
		}
	}
	for i := range rep {
		if rep[i].score > 0 {
			rep[i].gate = true
		}
	}
	return rep
}

// spreadPoints adds points to rep one at a time, each to a question chosen at
// random among those below MaxScore and not skipped, until they are all
// added or no question has room.
func spreadPoints(rng *rand.Rand, rep []simGrade, points int, skip []bool) {
	for points > 0 {
		var room []int
		for i, g := range rep {
			if g.score < MaxScore && (skip == nil || !skip[i]) {
				room = append(room, i)
			}
		}
		if len(room) == 0 {
			return
		}
		rng.Shuffle(len(room), func(i, j int) { room[i], room[j] = room[j], room[i] })
		for _, i := range room[:min(points, len(room))] {
			rep[i].score++
			points--
		}
	}
}

// SimResult is what Simulate measured.
type SimResult struct {
	Trials int
	// Inconsistent, Consistent and Inconclusive are the shares of the
	// trials that ended so; inconclusive is a test stopped by MaxN, by
	// running out of questions, by the judge's faults or by its drift.
	Inconsistent, Consistent, Inconclusive float64
	// Drifted is the share of the trials that the calibration fixtures
	// ended as inconclusive before the test.
	Drifted float64
	// MeanCalls is the mean number of judge calls over all trials, the
	// calibration fixtures' and the failed ones included, and
	// MeanCallsDecided over the trials that decided (0 if none did).
	MeanCalls        float64
	MeanCallsDecided float64
	// MeanBias is the mean of the judge's bias estimated from the
	// fixtures (0 without fixtures).
	MeanBias float64
}

// sequential is a sequential test as the simulation drives it.
type sequential interface {
	Add(Observation) Decision
	N() int
}

// Simulate runs trials spot-checks of r on simulated submissions of
// scenario sc to a benchmark of questions questions graded by the judge
// nm, and returns the shares of the decisions and the mean number of
// calls. Each trial draws every answer's truth and the submission's report,
// has the checking judge grade r.DriftFixtures calibration fixtures (each
// a fresh answer whose expected grade is its true worth) and stops as
// inconclusive if they show drift, then asks the judge about the questions
// in a random order until the test decides, MaxN calls have been made,
// the judge's faults reach the rule's FaultLimit, or the questions run
// out. The same arguments always give the same result.
func Simulate(r Rule, nm NoiseModel, sc Scenario, questions, trials int, seed uint64) SimResult {
	return simulate(func() sequential { return r.Start() }, &r, r.MaxN, nm, sc, questions, trials, seed)
}

// SimulateBaseline runs the same trials as Simulate with the baseline b
// instead of a Rule: no fixtures, a cap of b.MaxN observations, and the
// judge's faults skipped.
func SimulateBaseline(b Baseline, nm NoiseModel, sc Scenario, questions, trials int, seed uint64) SimResult {
	bb := b.prepare()
	return simulate(func() sequential { return bb.start() }, nil, b.MaxN, nm, sc, questions, trials, seed)
}

func simulate(start func() sequential, r *Rule, maxN int, nm NoiseModel, sc Scenario, questions, trials int, seed uint64) SimResult {
	res := SimResult{Trials: trials}
	if trials <= 0 || questions <= 0 {
		return res
	}
	// The scenario picks the stream, so that scenarios simulated with one
	// seed are independent of each other.
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15^uint64(sc)))
	as := make([]simAnswer, questions)
	var inc, con, drifted, calls, decidedCalls int
	var biasSum float64
	for range trials {
		for i := range as {
			as[i] = nm.truth(rng)
		}
		rep := nm.report(rng, sc, as)
		order := rng.Perm(questions)
		trialCalls, faults := 0, 0
		dec := Continue
		if r != nil && r.DriftFixtures > 0 {
			var diffs []int
			for range r.DriftFixtures {
				trialCalls++
				if rng.Float64() < nm.CallFail {
					continue
				}
				a := nm.truth(rng)
				expected := 0
				if a.pass {
					expected = a.worth
				}
				diffs = append(diffs, nm.check(rng, a).score-expected)
			}
			bias, drift := r.Drift(diffs)
			biasSum += bias
			if drift {
				drifted++
				calls += trialCalls
				continue
			}
		}
		t := start()
		testCalls := 0
		for _, q := range order {
			if maxN > 0 && testCalls >= maxN {
				break
			}
			if r != nil && faults >= r.FaultLimit(testCalls) {
				break
			}
			testCalls++
			if rng.Float64() < nm.CallFail {
				faults++
				continue
			}
			j := nm.check(rng, as[q])
			dec = t.Add(Observation{Reported: rep[q].score, Judged: j.score, ReportedGate: rep[q].gate, JudgedGate: j.gate})
			if dec != Continue {
				break
			}
		}
		trialCalls += testCalls
		calls += trialCalls
		switch dec {
		case Inconsistent:
			inc++
			decidedCalls += trialCalls
		case Consistent:
			con++
			decidedCalls += trialCalls
		}
	}
	n := float64(trials)
	res.Inconsistent = float64(inc) / n
	res.Consistent = float64(con) / n
	res.Inconclusive = float64(trials-inc-con) / n
	res.Drifted = float64(drifted) / n
	res.MeanCalls = float64(calls) / n
	res.MeanBias = biasSum / n
	if inc+con > 0 {
		res.MeanCallsDecided = float64(decidedCalls) / float64(inc+con)
	}
	return res
}

// Baseline is the yardstick of a Rule's calls: the mixture sequential
// probability ratio test that knows the judge exactly. Its null hypothesis
// is that every difference d = reported − judged follows Model's honest
// distribution f₀ (see Differences); its alternative is the even mixture
// of every difference shifted by Shift points, f₀(d − Shift), and a Share
// of the questions raised by Jump points, (1 − Share)·f₀(d) +
// Share·f₀(d − Jump): the two inflations the simulation's scenarios
// apply. It stops at the boundaries of Alpha and Beta (see Rule.Bounds)
// or at MaxN observations. No test of the same error rates can expect
// many fewer calls on the judge it knows (Wald and Wolfowitz: the
// sequential probability ratio test minimises the expected sample size of
// each simple alternative), but it assumes that judge: without a
// Tolerance it estimates nothing, grades no fixtures, and flags honest
// submissions once the judge has moved at all.
//
// With a Tolerance, the null hypothesis is instead the boundary of the
// Rule's: f₀ of a checking judge stricter by Tolerance points (Model with
// Bias −Tolerance), while the alternatives stay those of Model's own
// judge. That is the test that knows the judge and keeps the Rule's
// promise, false alarms within Alpha when the judge has moved by the
// tolerance (see ToleranceBaseline).
type Baseline struct {
	Model       NoiseModel
	Alpha, Beta float64
	MaxN        int
	Shift, Jump int
	Share       float64
	Tolerance   float64
}

// DefaultBaseline returns the baseline for the default judge and the
// scenarios of the simulation, at the error rates of DefaultRule, without a
// tolerance: the test the audit of issue 19 measured. Set Tolerance to the
// Rule's for the test that also holds the Rule's false alarms.
func DefaultBaseline() Baseline {
	return Baseline{Model: DefaultNoiseModel(), Alpha: 0.01, Beta: 0.05, MaxN: 50, Shift: 1, Jump: 5, Share: 0.2}
}

// ToleranceBaseline returns the baseline that knows the judge nm and meets
// r's error rates: r's Tolerance and Alpha, and the largest Beta, from
// r.Beta down in steps of 0.005, at which it detects each inflation of the
// simulation (InflatedUniform, InflatedFifth) in at least 1 − r.Beta of
// the trials on questions questions, as the rule is required to. At
// r.Beta itself the test would fall short on the concentrated inflation,
// which its boundaries do not bound (the alternative is a mixture), so the
// search, seeded like Simulate, matches its power to the requirement
// instead. It is the fair yardstick of r's calls: the audit's baseline
// (DefaultBaseline) flags more than Alpha of honest submissions once the
// judge has moved by the tolerance, which r must not.
func ToleranceBaseline(r Rule, nm NoiseModel, questions, trials int, seed uint64) Baseline {
	b := DefaultBaseline()
	b.Model, b.Alpha, b.Tolerance, b.MaxN = nm, r.Alpha, r.Tolerance, r.MaxN
	for beta := r.Beta; beta > 0.004; beta -= 0.005 {
		b.Beta = beta
		if SimulateBaseline(b, nm, InflatedUniform, questions, trials, seed).Inconsistent >= 1-r.Beta &&
			SimulateBaseline(b, nm, InflatedFifth, questions, trials, seed).Inconsistent >= 1-r.Beta {
			break
		}
	}
	return b
}

// preparedBaseline holds a Baseline's per-difference log-likelihood ratios.
type preparedBaseline struct {
	lower, upper float64
	shift, jump  [2*MaxScore + 1]float64
}

func (b Baseline) prepare() *preparedBaseline {
	f := b.Model.Differences()
	null := b.Model
	null.Bias -= b.Tolerance
	fn := null.Differences()
	at := func(k int) float64 {
		if k < 0 || k >= len(f) {
			return 0
		}
		return f[k]
	}
	pb := &preparedBaseline{}
	pb.lower, pb.upper = math.Log(b.Beta/(1-b.Alpha)), math.Log((1-b.Beta)/b.Alpha)
	const floor = 1e-12 // a difference the model rules out still has a ratio
	for k := range f {
		f0 := math.Max(fn[k], floor)
		pb.shift[k] = math.Log(math.Max(at(k-b.Shift), floor) / f0)
		pb.jump[k] = math.Log(math.Max((1-b.Share)*f[k]+b.Share*at(k-b.Jump), floor) / f0)
	}
	return pb
}

type baselineTest struct {
	pb       *preparedBaseline
	n        int
	l1, l2   float64
	decision Decision
}

func (pb *preparedBaseline) start() *baselineTest { return &baselineTest{pb: pb} }

func (t *baselineTest) Add(o Observation) Decision {
	if t.decision != Continue {
		return t.decision
	}
	t.n++
	k := o.Reported - o.Judged + MaxScore
	t.l1 += t.pb.shift[k]
	t.l2 += t.pb.jump[k]
	switch llr := logMeanExp(t.l1, t.l2); {
	case llr >= t.pb.upper:
		t.decision = Inconsistent
	case llr <= t.pb.lower:
		t.decision = Consistent
	}
	return t.decision
}

func (t *baselineTest) N() int { return t.n }
