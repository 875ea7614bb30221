package spotsim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/benchgate/benchgate/rerun"
)

// Shape is how a simulated submission's reported scores come about.
type Shape int

const (
	// Honest reports one run of the submitter's judge.
	Honest Shape = iota
	// Uniform adds a point to every question of an honest report; the
	// points a question at full marks cannot take go, one each, to others
	// with room, so that the inflation is exactly one point per question
	// on average. A failed gate raised to 1 is reported passed.
	Uniform
	// Fifth adds five points to a fifth of the questions, chosen among
	// those reported at 5 or less so that each takes all five (about
	// half of them failed gates, raised to 5 and reported passed); a
	// shortfall is spread a point at a time over the others: one point
	// per question on average, on a few.
	Fifth
	// RaisedGates raises the lowest reported answers, failed gates first,
	// to full marks, until one point per question on average is added:
	// on 50 questions with a tenth failed, the five failed gates raised
	// from 0 to 10.
	RaisedGates
	// CherryPicked reports the best of three runs of the judge for each
	// question: about half a point per question, less than Delta; the
	// rule is not built to call it either way.
	CherryPicked
)

// Shapes lists every shape, in the order the tables show them.
var Shapes = []Shape{Honest, Uniform, Fifth, RaisedGates, CherryPicked}

// String returns the shape's name as the tables show it.
func (s Shape) String() string {
	switch s {
	case Honest:
		return "honest"
	case Uniform:
		return "+1 uniform"
	case Fifth:
		return "+5 on a fifth"
	case RaisedGates:
		return "failed gates raised to 10"
	case CherryPicked:
		return "best of 3 runs"
	}
	return fmt.Sprintf("Shape(%d)", int(s))
}

// report returns the grades a submission of shape s reports for the
// answers as, graded by j.
func report(rng *rand.Rand, j Judge, s Shape, as []Answer) []rerun.Grade {
	rep := make([]rerun.Grade, len(as))
	for i, a := range as {
		rep[i] = j.Run(rng, a)
	}
	switch s {
	case Uniform:
		lost := 0
		for i := range rep {
			if rep[i].Total == Points {
				lost++
				continue
			}
			rep[i].Total++
		}
		spread(rng, rep, lost, nil)
	case Fifth:
		k := len(rep) / 5
		var room, rest []int
		for i, g := range rep {
			if g.Total <= Points-5 {
				room = append(room, i)
			} else {
				rest = append(rest, i)
			}
		}
		rng.Shuffle(len(room), func(i, j int) { room[i], room[j] = room[j], room[i] })
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		added := 0
		chosen := make([]bool, len(rep))
		for _, i := range append(room, rest...)[:k] {
			t := min(Points, rep[i].Total+5)
			added += t - rep[i].Total
			rep[i].Total, chosen[i] = t, true
		}
		spread(rng, rep, len(rep)-added, chosen)
	case RaisedGates:
		order := make([]int, len(rep))
		for i := range order {
			order[i] = i
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		slices.SortStableFunc(order, func(a, b int) int { return rep[a].Total - rep[b].Total })
		need := len(rep)
		for _, i := range order {
			if need <= 0 {
				break
			}
			t := min(Points, rep[i].Total+need)
			need -= t - rep[i].Total
			rep[i].Total = t
		}
	case CherryPicked:
		for i, a := range as {
			for range 2 {
				if g := j.Run(rng, a); g.Total > rep[i].Total {
					rep[i] = g
				}
			}
		}
	}
	for i := range rep {
		rep[i].Gate = rep[i].Total > 0
	}
	return rep
}

// spread adds points one at a time to questions chosen at random among
// those below full marks and not skipped.
func spread(rng *rand.Rand, rep []rerun.Grade, points int, skip []bool) {
	for points > 0 {
		var room []int
		for i, g := range rep {
			if g.Total < Points && (skip == nil || !skip[i]) {
				room = append(room, i)
			}
		}
		if len(room) == 0 {
			return
		}
		rng.Shuffle(len(room), func(i, j int) { room[i], room[j] = room[j], room[i] })
		for _, i := range room[:min(points, len(room))] {
			rep[i].Total++
			points--
		}
	}
}

// Config is one simulated setting.
type Config struct {
	Rule   rerun.Rule
	Judge  JudgeCase
	Truth  Truth
	Shape  Shape
	Trials int
	// Questions is the rubric's size; FixturesPerQuestion its calibration
	// fixtures per question (a failed answer, a middling one and one at
	// full marks, as the published sample rubric has), and RecordRuns the
	// runs of the submitter's judge on each in the benchmark's
	// calibration record, 0 for none.
	Questions           int
	FixturesPerQuestion int
	RecordRuns          int
	Seed                uint64
}

// Result is what a simulation measured, as shares of the trials.
type Result struct {
	Trials                                 int
	Inconsistent, Consistent, Inconclusive float64
	// DriftStopped ended before the sample, the fixtures showing drift;
	// DriftBlocked is a test's rejection turned inconclusive because the
	// fixtures estimated the judge stricter than the tolerance.
	DriftStopped, DriftBlocked float64
	// Stricter is the share whose fixtures estimated the judge stricter
	// than the tolerance: the drift seen, which keeps it from accusing.
	Stricter float64
	// MeanCalls is the mean of the judge calls, fixtures' and failed ones
	// included.
	MeanCalls float64
}

// Simulate runs cfg.Trials spot-checks through rerun.Run. Each trial
// draws the rubric's answers and fixtures, the submission's report, the
// calibration record, and lets the checking judge grade what Run asks.
// The same configuration always gives the same result.
func Simulate(cfg Config) (Result, error) {
	if err := cfg.Rule.Validate(); err != nil {
		return Result{}, err
	}
	if cfg.Trials <= 0 || cfg.Questions <= 0 {
		return Result{}, errors.New("spotsim: trials and questions must be positive")
	}
	// The shape picks the stream, so that shapes simulated with one seed
	// are independent of each other.
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15^uint64(cfg.Shape)))
	res := Result{Trials: cfg.Trials}
	var inc, con, stopped, blocked, stricter, calls int
	for range cfg.Trials {
		g := newTrial(rng, cfg)
		out, err := rerun.Run(context.Background(), cfg.Rule, g.design, g)
		if err != nil {
			return res, err
		}
		calls += g.calls
		switch {
		case out.Decision == rerun.Inconsistent:
			inc++
		case out.Decision == rerun.Consistent:
			con++
		}
		if out.DriftKnown && out.Drift < -cfg.Rule.Tolerance {
			stricter++
		}
		if out.DriftSeen != 0 {
			stopped++
		} else if out.Cause == rerun.CauseDrift {
			blocked++
		}
	}
	n := float64(cfg.Trials)
	res.Inconsistent, res.Consistent = float64(inc)/n, float64(con)/n
	res.Inconclusive = 1 - res.Inconsistent - res.Consistent
	res.DriftStopped, res.DriftBlocked, res.Stricter = float64(stopped)/n, float64(blocked)/n, float64(stricter)/n
	res.MeanCalls = float64(calls) / n
	return res, nil
}

// trial is one simulated spot-check: a rerun.Grader whose judge is the
// case's checking judge.
type trial struct {
	rng      *rand.Rand
	judge    Judge
	callFail float64
	answers  []Answer
	fixtures []Answer
	design   rerun.Design
	calls    int
}

var errCall = errors.New("spotsim: the call failed")

func newTrial(rng *rand.Rand, cfg Config) *trial {
	t := &trial{rng: rng, judge: cfg.Judge.Checker, callFail: cfg.Judge.CallFail}
	t.answers = make([]Answer, cfg.Questions)
	for i := range t.answers {
		t.answers[i] = cfg.Truth.Draw(rng)
	}
	reported := report(rng, cfg.Judge.Submitter, cfg.Shape, t.answers)
	d := rerun.Design{Points: Points, Seed: rng.Uint64(), Questions: make([]rerun.Question, cfg.Questions)}
	for i, g := range reported {
		d.Questions[i] = rerun.Question{Scored: true, Reported: g}
	}
	for _, a := range t.answers {
		// A failed answer, a middling one and one at full marks, of the
		// question's difficulty.
		kinds := []Answer{
			{Pass: false, Worth: 5, Difficulty: a.Difficulty},
			{Pass: true, Worth: 3 + rng.IntN(3), Difficulty: a.Difficulty},
			{Pass: true, Worth: Points, Difficulty: a.Difficulty},
		}
		for k := range cfg.FixturesPerQuestion {
			f := kinds[k%len(kinds)]
			t.fixtures = append(t.fixtures, f)
			expected := rerun.Grade{}
			if f.Pass {
				expected = rerun.Grade{Total: f.Worth, Gate: true}
			}
			fx := rerun.Fixture{Expected: expected, Reference: float64(expected.Total)}
			if cfg.RecordRuns > 0 {
				// The record: runs of the submitter's judge, paired
				// disjointly; their mean is the drift's reference.
				runs := make([]int, cfg.RecordRuns)
				sum := 0
				for r := range runs {
					runs[r] = cfg.Judge.Submitter.Run(rng, f).Total
					sum += runs[r]
				}
				for r := 0; r+1 < len(runs); r += 2 {
					d.Recorded.Add(runs[r], runs[r+1], Points)
				}
				fx.Reference = float64(sum) / float64(len(runs))
			}
			d.Fixtures = append(d.Fixtures, fx)
		}
	}
	t.design = d
	return t
}

func (t *trial) grade(a Answer) (rerun.Grade, error) {
	t.calls++
	if t.rng.Float64() < t.callFail {
		return rerun.Grade{}, errCall
	}
	return t.judge.Run(t.rng, a), nil
}

func (t *trial) GradeFixture(_ context.Context, i int) (rerun.Grade, error) {
	return t.grade(t.fixtures[i])
}

func (t *trial) GradeQuestion(_ context.Context, i int) (rerun.Grade, error) {
	return t.grade(t.answers[i])
}

func (t *trial) RegradeQuestion(_ context.Context, i int) (rerun.Grade, error) {
	return t.grade(t.answers[i])
}
