package rerun

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Grade is one grading of an answer: its total and gate decision.
type Grade struct {
	Total int
	Gate  bool
}

// Question is one question of a submission as the spot-check sees it.
type Question struct {
	// Scored is false for a question the submission left unscored:
	// there is nothing to compare, and it is not graded.
	Scored   bool
	Reported Grade
}

// Fixture is one of the rubric's calibration fixtures as the spot-check
// sees it.
type Fixture struct {
	Expected Grade // the grade the rubric's authors expect
	// Reference is the grade the judge's new one is compared with for
	// drift: the mean of a calibration record's runs of the judge on it,
	// or, without a record, the expected total.
	Reference float64
}

// Design is one spot-check to run: the submission's questions, the
// rubric's fixtures, what a calibration record measured of the judge,
// and the seed every random choice is drawn from.
type Design struct {
	Questions []Question
	Fixtures  []Fixture
	// Recorded are the pairs of runs of the judge on fixtures in a
	// calibration record (see Controls); none without one.
	Recorded Controls
	Points   int // a question's worth (the rubric's total points)
	Seed     uint64
}

// A Grader grades what the spot-check asks: the App's and the CLI's is
// the benchmark's fixed judge (see Check), bench/rerunsim's a simulated
// one, so that the published error rates are those of this loop.
//
// An error that is (or wraps) a *Stop ends the check at once,
// inconclusive; any other error is a fault of the judge, counted towards
// the rule's FaultLimit, and the item is no evidence. A Grader stops for
// the budget before a call, so Run itself counts nothing but calls made.
type Grader interface {
	GradeFixture(ctx context.Context, i int) (Grade, error)
	GradeQuestion(ctx context.Context, i int) (Grade, error)
	// RegradeQuestion grades question i again, a run independent of the
	// first (never read back from a cache of it).
	RegradeQuestion(ctx context.Context, i int) (Grade, error)
}

// Stop is the error with which a Grader ends a check: the budget ran out,
// or the judge's account was refused, so that no further call can help.
type Stop struct {
	Reason      string
	OutOfBudget bool
	Err         error // the failed call behind it, if any
}

func (s *Stop) Error() string { return s.Reason }

// Unwrap returns the failed call behind the stop.
func (s *Stop) Unwrap() error { return s.Err }

// Graded is one item the check asked the Grader for, in the order asked.
type Graded struct {
	Index int
	Grade Grade
	Err   error // the fault, or nil
}

// Outcome is what Run did and decided.
type Outcome struct {
	Result
	// Fixtures and Sample are the fixtures and questions graded, in order,
	// and Regraded the questions graded a second time; Skipped are the
	// questions of the sample the submission left unscored, which cost no
	// call.
	Fixtures []Graded
	Sample   []Graded
	Regraded []Graded
	Skipped  []int
	// DriftKnown says whether any fixture was graded; Result.Drift is
	// then the estimate. DriftSeen is −1 or +1 when the fixtures showed
	// the judge stricter or more lenient than the tolerance, which ended
	// the check before the sample.
	DriftKnown bool
	DriftSeen  int
	// Target is how many questions the sample was to re-grade.
	Target int
	// Stop says why the check ended before its sample was graded ("" when
	// it was); OutOfBudget that the budget was the reason.
	Stop        string
	OutOfBudget bool
	// Faults counts the sample's failed gradings; FixtureFaults the
	// fixtures'.
	Faults, FixtureFaults int
}

// SampleOrder returns the order, drawn from seed, in which a spot-check
// visits the n questions of a benchmark.
func SampleOrder(seed uint64, n int) []int {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)).Perm(n)
}

// FixtureOrder returns the order, drawn from its own stream of seed, in
// which a spot-check grades fixtures: alternately one whose expected gate
// passes and one whose fails, each half in a random order, so that any
// first k of them hold both kinds where the rubric has both, and a drift
// that touches only passed answers (or only failed ones) is seen.
func FixtureOrder(seed uint64, fixtures []Fixture) []int {
	perm := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909)).Perm(len(fixtures))
	var pass, fail []int
	for _, i := range perm {
		if fixtures[i].Expected.Gate {
			pass = append(pass, i)
		} else {
			fail = append(fail, i)
		}
	}
	out := make([]int, 0, len(fixtures))
	for len(pass) > 0 || len(fail) > 0 {
		if len(pass) > 0 {
			out, pass = append(out, pass[0]), pass[1:]
		}
		if len(fail) > 0 {
			out, fail = append(out, fail[0]), fail[1:]
		}
	}
	return out
}

// Run carries out one spot-check: the judge grades the first
// DriftFixtures fixtures of FixtureOrder, unless its faults reach the
// rule's FaultLimit first; if they show drift beyond the tolerance
// (Rule.DriftSeen) the check ends undecided; otherwise the questions are
// graded in SampleOrder until the sample holds min(MaxN, scored
// questions) observations, the questions run out, the judge's faults
// reach the rule's FaultLimit, or the Grader stops; then the first
// Regrade of them are graded again, and the rule decides on what was
// gathered. It returns an error only when
// ctx is done.
func Run(ctx context.Context, r Rule, d Design, g Grader) (Outcome, error) {
	var out Outcome
	scored, passed := 0, 0
	for _, q := range d.Questions {
		if q.Scored {
			scored++
			if q.Reported.Gate {
				passed++
			}
		}
	}
	passShare := 0.0
	if scored > 0 {
		passShare = float64(passed) / float64(scored)
	}
	out.Target = scored
	if r.MaxN > 0 {
		out.Target = min(scored, r.MaxN)
	}

	var fixtures []FixtureGrade
	for _, i := range FixtureOrder(d.Seed, d.Fixtures)[:min(r.DriftFixtures, len(d.Fixtures))] {
		if calls := len(out.Fixtures); out.FixtureFaults >= r.FaultLimit(calls) {
			out.Stop = fmt.Sprintf("the judge failed on %d of the %d calibration fixtures it was asked to grade (the allowance is max(%d, %g × calls)), so it cannot be checked; its faults are never held against the submission", out.FixtureFaults, calls, r.MinFaults, r.FaultShare)
			break
		}
		got, err := g.GradeFixture(ctx, i)
		if err := stopped(ctx, err, &out); err != nil {
			return out, err
		}
		if out.OutOfBudget {
			break
		}
		out.Fixtures = append(out.Fixtures, Graded{Index: i, Grade: got, Err: err})
		if err != nil {
			out.FixtureFaults++
			if out.Stop != "" {
				break
			}
			continue
		}
		f := d.Fixtures[i]
		fixtures = append(fixtures, FixtureGrade{ExpectedGate: f.Expected.Gate, Diff: float64(got.Total) - f.Reference})
	}
	if out.Stop != "" {
		out.Result = Result{Cause: CauseNoEvidence}
		return out, nil
	}
	var drift *float64
	if b, ok := Drift(fixtures, passShare, d.Points); ok {
		drift, out.DriftKnown = &b, true
		if out.DriftSeen = r.DriftSeen(fixtures, passShare, d.Points); out.DriftSeen != 0 {
			out.Result = Result{Cause: CauseDrift, Drift: b, Bound: math.Inf(1)}
			return out, nil
		}
	}

	var obs []Observation
	for _, qi := range SampleOrder(d.Seed, len(d.Questions)) {
		if len(obs) >= out.Target {
			break
		}
		calls := len(out.Sample)
		if out.Faults >= r.FaultLimit(calls) {
			out.Stop = fmt.Sprintf("the judge failed on %d of %d questions (the allowance is max(%d, %g × calls)); its faults are never held against the submission", out.Faults, calls, r.MinFaults, r.FaultShare)
			break
		}
		q := d.Questions[qi]
		if !q.Scored {
			out.Skipped = append(out.Skipped, qi)
			continue
		}
		got, err := g.GradeQuestion(ctx, qi)
		if err := stopped(ctx, err, &out); err != nil {
			return out, err
		}
		if out.OutOfBudget {
			break
		}
		out.Sample = append(out.Sample, Graded{Index: qi, Grade: got, Err: err})
		if err != nil {
			out.Faults++
			if out.Stop != "" {
				break
			}
			continue
		}
		obs = append(obs, Observation{Reported: q.Reported.Total, Judged: got.Total, ReportedGate: q.Reported.Gate, JudgedGate: got.Gate})
	}
	// The controls: the first Regrade answers graded, graded again.
	var regraded Controls
	for _, gr := range out.Sample {
		if regraded.Pairs >= r.Regrade || out.Stop != "" {
			break
		}
		if gr.Err != nil {
			continue
		}
		again, err := g.RegradeQuestion(ctx, gr.Index)
		if err := stopped(ctx, err, &out); err != nil {
			return out, err
		}
		out.Regraded = append(out.Regraded, Graded{Index: gr.Index, Grade: again, Err: err})
		if err == nil {
			regraded.Add(gr.Grade.Total, again.Total, d.Points)
		}
	}
	out.Result = r.Decide(Evidence{Observations: obs, Regraded: regraded, Recorded: d.Recorded, Drift: drift, Points: d.Points})
	if out.Stop != "" && out.Decision == Consistent {
		// A sample cut short rules nothing out about the questions it
		// did not reach; an inconsistent verdict stands on what it saw.
		out.Decision, out.Cause = Undecided, CauseBound
	}
	return out, nil
}

// stopped handles a Grader's error: a done ctx is returned, to give up
// with; a *Stop is recorded in out. A Stop for the budget comes before a
// call, so its item is not recorded; another (an account refused) ends a
// call that failed, which is.
func stopped(ctx context.Context, err error, out *Outcome) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if s := (*Stop)(nil); errors.As(err, &s) {
		out.Stop, out.OutOfBudget = s.Reason, s.OutOfBudget
	}
	return nil
}
