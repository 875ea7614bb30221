package reprosim

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/benchgate/benchgate/internal/spotsim"
	"github.com/benchgate/benchgate/rerun"
)

// RubricModel is a simulated model answering a rubric: on each question
// its answer is the question's typical answer for the model (a
// spotsim.Answer drawn from spotsim.DefaultTruth: its gate, its worth),
// with the gate decided the other way with probability Flip and the
// worth moved by a generation's noise of standard deviation Spread
// points, rounded; Lift raises every worth (a stronger model), the
// fractional part by a coin so that the mean lift is exact before the cap
// at full marks.
type RubricModel struct {
	Flip   float64
	Spread float64
	Lift   float64
}

// DefaultRubricModel changes a gate's outcome on 5% of its answers, and
// varies by a point from one answer to the next.
func DefaultRubricModel() RubricModel { return RubricModel{Flip: 0.05, Spread: 1} }

// Write is one answer to a question whose typical answer is a.
func (m RubricModel) Write(rng *rand.Rand, a spotsim.Answer) spotsim.Answer {
	lift := math.Floor(m.Lift)
	if rng.Float64() < m.Lift-lift {
		lift++
	}
	w := int(math.Round(float64(a.Worth) + lift + m.Spread*rng.NormFloat64()))
	pass := a.Pass != (rng.Float64() < m.Flip)
	return spotsim.Answer{Pass: pass, Worth: max(0, min(spotsim.Points, w)), Difficulty: a.Difficulty}
}

// RubricResult is a rubric case's outcome over many checks, as shares.
type RubricResult struct {
	Trials                                 int
	Inconsistent, Consistent, Inconclusive float64
	MeanCalls                              float64 // candidate and judge calls
	MeanGap                                float64 // claimed − reproduced grades, on average
}

// SimulateRubric runs trials rubric reproductions through rerun.Run with
// rule r: a rubric of questions questions whose levels are drawn from
// spotsim.DefaultTruth, a submission written by the model with Lift lift
// (0: honest) and graded once by judge, and the check writing each
// sampled answer again with the model without lift and grading it with
// the same judge: a candidate call and a judge call a question.
func SimulateRubric(r rerun.Rule, judge spotsim.Judge, lift float64, questions, trials int, seed uint64) (RubricResult, error) {
	rng := rand.New(rand.NewPCG(seed, math.Float64bits(lift)))
	truth := spotsim.DefaultTruth()
	model := DefaultRubricModel()
	claimedModel := model
	claimedModel.Lift = lift
	res := RubricResult{Trials: trials}
	var inc, con, calls int
	var gap float64
	for range trials {
		t := &rubricTrial{rng: rng, judge: judge, model: model, typical: make([]spotsim.Answer, questions)}
		d := rerun.Design{Points: spotsim.Points, Seed: rng.Uint64(), Questions: make([]rerun.Question, questions)}
		for q := range questions {
			t.typical[q] = truth.Draw(rng)
			d.Questions[q] = rerun.Question{Scored: true, Reported: judge.Run(rng, claimedModel.Write(rng, t.typical[q]))}
		}
		out, err := rerun.Run(context.Background(), r, d, t)
		if err != nil {
			return res, err
		}
		switch out.Decision {
		case rerun.Inconsistent:
			inc++
		case rerun.Consistent:
			con++
		}
		calls += t.calls
		gap += out.Mean
	}
	n := float64(trials)
	res.Inconsistent, res.Consistent = float64(inc)/n, float64(con)/n
	res.Inconclusive = 1 - res.Inconsistent - res.Consistent
	res.MeanCalls, res.MeanGap = float64(calls)/n, gap/n
	return res, nil
}

// rubricTrial is one simulated rubric reproduction: a rerun.Grader whose
// answers are written again by the model and graded by the judge.
type rubricTrial struct {
	rng     *rand.Rand
	judge   spotsim.Judge
	model   RubricModel
	typical []spotsim.Answer
	calls   int
}

func (t *rubricTrial) GradeFixture(context.Context, int) (rerun.Grade, error) {
	panic("reprosim: a reproduction grades no fixture")
}

func (t *rubricTrial) GradeQuestion(_ context.Context, q int) (rerun.Grade, error) {
	t.calls += 2 // the candidate's answer and the judge's grade
	return t.judge.Run(t.rng, t.model.Write(t.rng, t.typical[q])), nil
}

func (t *rubricTrial) RegradeQuestion(ctx context.Context, q int) (rerun.Grade, error) {
	return t.GradeQuestion(ctx, q)
}
