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
}

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
	if !(nm.GateFlip >= 0 && nm.GateFlip <= 1) || !(nm.GateFail >= 0 && nm.GateFail <= 1) {
		return fmt.Errorf("rerun: GateFlip and GateFail must be in [0, 1]")
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

// scoreDist returns the distribution of one run's score of a: the gate
// first, then the error on the worth.
func (nm NoiseModel) scoreDist(a simAnswer) [MaxScore + 1]float64 {
	var p [MaxScore + 1]float64
	pPass := 1 - nm.GateFlip
	if !a.pass {
		pPass = nm.GateFlip
	}
	p[0] += 1 - pPass
	for k, e := range nm.Error {
		p[clampToScale(a.worth+k-2)] += pPass * e
	}
	return p
}

// Differences returns the exact distribution of the difference between two
// independent runs of the judge on a random answer, the d = reported −
// judged of an honest submission: element k is P(d = k − MaxScore).
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
			for i, pi := range s {
				for j, pj := range s {
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
	return simGrade{score: clampToScale(a.worth + drawIndex(rng, nm.Error[:]) - 2), gate: true}
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
	// trials that ended so; inconclusive is a test stopped by MaxN or by
	// running out of questions.
	Inconsistent, Consistent, Inconclusive float64
	// MeanCalls is the mean number of judge calls over all trials, and
	// MeanCallsDecided over the trials that decided (0 if none did).
	MeanCalls        float64
	MeanCallsDecided float64
}

// Simulate runs trials spot-checks of r on simulated submissions of
// scenario sc to a benchmark of questions questions graded by the judge
// nm, and returns the shares of the decisions and the mean number of
// calls. Each trial draws every answer's truth and the submission's report,
// then asks the judge about the questions in a random order until the test
// decides, MaxN observations have been made or the questions run out. The
// same arguments always give the same result.
func Simulate(r Rule, nm NoiseModel, sc Scenario, questions, trials int, seed uint64) SimResult {
	res := SimResult{Trials: trials}
	if trials <= 0 || questions <= 0 {
		return res
	}
	// The scenario picks the stream, so that scenarios simulated with one
	// seed are independent of each other.
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15^uint64(sc)))
	limit := questions
	if r.MaxN > 0 && r.MaxN < limit {
		limit = r.MaxN
	}
	as := make([]simAnswer, questions)
	var inc, con, calls, decidedCalls int
	for range trials {
		for i := range as {
			as[i] = nm.truth(rng)
		}
		rep := nm.report(rng, sc, as)
		order := rng.Perm(questions)
		t := r.Start()
		dec := Continue
		for _, q := range order[:limit] {
			j := nm.run(rng, as[q])
			dec = t.Add(Observation{Reported: rep[q].score, Judged: j.score, ReportedGate: rep[q].gate, JudgedGate: j.gate})
			if dec != Continue {
				break
			}
		}
		calls += t.N()
		switch dec {
		case Inconsistent:
			inc++
			decidedCalls += t.N()
		case Consistent:
			con++
			decidedCalls += t.N()
		}
	}
	n := float64(trials)
	res.Inconsistent = float64(inc) / n
	res.Consistent = float64(con) / n
	res.Inconclusive = float64(trials-inc-con) / n
	res.MeanCalls = float64(calls) / n
	if inc+con > 0 {
		res.MeanCallsDecided = float64(decidedCalls) / float64(inc+con)
	}
	return res
}

// WaldASN returns Wald's approximations of the expected number of
// observations of a sequential test with the error rates and boundaries of
// r, under H0 (an honest submission, h0) and H1 (every difference larger by
// Delta, h1), ignoring MinN, MaxN and the contradiction rule:
//
//	h0 = (α·ln A + (1−α)·ln B) / E0[z],  h1 = ((1−β)·ln A + β·ln B) / E1[z]
//
// with the means of the increment z computed exactly from the distribution
// of an honest difference under nm (see Differences). It neglects the
// overshoot of the boundaries, so it is the least a test of this kind needs
// on average, the figure to compare the simulated calls with. A mean
// increment of the wrong sign, a test that would not stop, gives +Inf.
func WaldASN(r Rule, nm NoiseModel) (h0, h1 float64) {
	lnB, lnA := r.Bounds()
	var e0, e1 float64
	for k, p := range nm.Differences() {
		d := float64(k - MaxScore)
		e0 += p * r.Increment(d)
		e1 += p * r.Increment(d+r.Delta)
	}
	h0, h1 = math.Inf(1), math.Inf(1)
	if e0 < 0 {
		h0 = (r.Alpha*lnA + (1-r.Alpha)*lnB) / e0
	}
	if e1 > 0 {
		h1 = ((1-r.Beta)*lnA + r.Beta*lnB) / e1
	}
	return h0, h1
}
