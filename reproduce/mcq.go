// Package reproduce checks that a submission's answers are what the model
// it names gives: it asks the model again a sample of the questions,
// drawn from a seed the submitter cannot know, and compares. For a
// multiple-choice benchmark it decides with an exact sequential test on
// the discordant pairs (stats.Discordant, see Rule); for a rubric
// benchmark it re-generates the answers, has the benchmark's judge grade
// them, and decides with the spot-check's paired test (rerun.Run). The
// decisions are pure: the calls are behind small interfaces (Asker,
// rerun.Grader), which the CLI fills with real endpoints and the
// simulations with stand-ins.
package reproduce

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/stats"
)

// Verdict is what a reproduction concludes.
type Verdict string

// The verdicts.
const (
	// Consistent: the claimed scores are what the model gives.
	Consistent Verdict = "consistent"
	// Inconsistent: they exceed it beyond the tolerance.
	Inconsistent Verdict = "inconsistent"
	// Inconclusive: the budget, failed calls, or another model served.
	Inconclusive Verdict = "inconclusive"
	// Unreachable: the model is not served by the endpoint, or the
	// submission is on the harness track; nothing was spent.
	Unreachable Verdict = "unreachable"
)

// Rule is the multiple-choice reproduction's test. Each question of the
// sample is a pair: whether the submission's answer is correct, and
// whether the model's answer now is. Two honest runs of one model are
// exchangeable, whatever the model's randomness, so the discordant pairs
// — claimed right and reproduced wrong (b), the reverse (c) — are equally
// likely; answers fabricated from the key, or copied from a stronger
// model, make b more likely than c. The test is stats.Discordant on
// these pairs: H0 is p_b − p_c ≤ Tolerance (the model served today may be
// up to Tolerance of accuracy weaker than the one the submitter ran), its
// worst-case false-alarm rate within MaxCalls questions is computed
// exactly and held at Alpha for every law of H0 whose discordance p_b +
// p_c is at most ½ + Tolerance (two independent runs of a question the
// model gets right with probability a disagree with probability 2a(1−a)
// ≤ ½; a drifted model adds at most its drift), and it looks every Every
// questions with an O'Brien–Fleming-like boundary (Spend), which keeps
// most of the fixed-size test's power at the end while stopping early on
// a blatant fabrication.
type Rule struct {
	Tolerance float64 // default 0.02: two points of accuracy
	Alpha     float64 // default 0.01
	MaxCalls  int     // the sample's size in questions; default 150
	Every     int     // default 5
	Spend     float64 // default 0.5
	// MinFaults and FaultShare set how many calls that are no evidence
	// (failed, refused, cut at the token limit, empty) end the check
	// inconclusive: max(MinFaults, FaultShare × calls). Defaults 5, 0.2.
	MinFaults  int
	FaultShare float64
}

// DefaultRule returns the rule docs/PERFORMANCE.md measures.
func DefaultRule() Rule {
	return Rule{Tolerance: 0.02, Alpha: 0.01, MaxCalls: 150, Every: 5, Spend: 0.5, MinFaults: 5, FaultShare: 0.2}
}

// Test returns the rule's sequential test.
func (r Rule) Test() stats.Discordant {
	return stats.Discordant{Tol: r.Tolerance, Alpha: r.Alpha, MaxN: r.MaxCalls, MinN: max(1, min(r.Every, r.MaxCalls)), Every: r.Every,
		MaxDiscord: 0.5 + r.Tolerance, Spend: r.Spend}
}

// FaultLimit is the number of calls that are no evidence at which the
// check ends, after calls calls.
func (r Rule) FaultLimit(calls int) int {
	return max(r.MinFaults, int(r.FaultShare*float64(calls)))
}

// Claim is a question as the submission answers it.
type Claim struct {
	// Present says the submission answered: a reply that ended on its
	// own, not a failed call, a reply cut at the token limit or an empty
	// one. Only such questions are asked again, so that both sides of a
	// pair are answers.
	Present bool
	Letter  string // "" when no letter was read
	Correct bool
}

// Reply is the model's answer to a question asked again.
type Reply struct {
	Letter string
	Finish string // rerun.FinishAnswered, ...
	// Served is the model the endpoint says served the call, "" when it
	// says none.
	Served string
}

// An Asker asks the model one question again. An error that is (or
// wraps) a *rerun.Stop ends the check at once (the budget, an account
// refused); another is a failed call, no evidence.
type Asker interface {
	Ask(ctx context.Context, qi int) (Reply, error)
}

// MCQDesign is one reproduction to run: the submission's claims, the
// answer key, the model asked, and the sample's seed.
type MCQDesign struct {
	Claims []Claim
	Key    []string // the correct letter of each question
	Model  string   // the model asked, which Served must name
	Seed   uint64
}

// Asked is one question asked again, in the order asked.
type Asked struct {
	Index int
	Reply Reply
	Err   error
	// Evidence says whether the pair counted in the test: the reply was
	// an answer, from the model asked.
	Evidence bool
	Correct  bool // the reproduced answer's correctness
}

// Cause says why a reproduction ended as it did.
type Cause string

// The causes.
const (
	CauseRejected   Cause = "rejected"     // the test rejected: inconsistent
	CauseComplete   Cause = "complete"     // the sample was asked in full without a rejection
	CauseBudget     Cause = "budget"       // the budget ran out first
	CauseStopped    Cause = "stopped"      // the endpoint refused the account, or another stop
	CauseFaults     Cause = "faults"       // too many calls were no evidence
	CauseServed     Cause = "served-model" // the endpoint served another model
	CauseNoEvidence Cause = "no-evidence"  // no question could be asked
)

// MCQOutcome is what RunMCQ did and decided.
type MCQOutcome struct {
	Verdict Verdict
	Cause   Cause
	Asked   []Asked
	// N is the pairs that count, B and C their discordant ones (claimed
	// right and reproduced wrong, the reverse), Agree the letters that
	// agree; LogLR the test's statistic at the end and Threshold its
	// boundary there.
	N, B, C, Agree   int
	LogLR, Threshold float64
	Faults           int
	Stop             string // why the check stopped early, for people
	Served           string // the other model served, for CauseServed
}

// RunMCQ asks the model the questions of d in rerun.SampleOrder (questions
// the submission did not answer skipped), one by one, until the test
// rejects, MaxCalls questions are asked, the questions run out, the calls
// that are no evidence reach the rule's FaultLimit, the endpoint serves
// another model than d.Model, or the Asker stops. It returns an error
// only when ctx is done, or the rule cannot be computed.
func RunMCQ(ctx context.Context, r Rule, d MCQDesign, a Asker) (MCQOutcome, error) {
	test := r.Test()
	h, _, err := test.Threshold()
	if err != nil {
		return MCQOutcome{}, err
	}
	var out MCQOutcome
	for _, qi := range rerun.SampleOrder(d.Seed, len(d.Claims)) {
		if len(out.Asked) >= r.MaxCalls {
			break
		}
		if out.Faults >= r.FaultLimit(len(out.Asked)) {
			out.Cause = CauseFaults
			out.Stop = fmt.Sprintf("%d of the %d calls gave no answer to compare (failed, refused, cut at the token limit or empty; the allowance is max(%d, %g × calls)); none is held against the submission", out.Faults, len(out.Asked), r.MinFaults, r.FaultShare)
			break
		}
		cl := d.Claims[qi]
		if !cl.Present {
			continue
		}
		rep, err := a.Ask(ctx, qi)
		if err != nil && ctx.Err() != nil {
			return out, ctx.Err()
		}
		if s := (*rerun.Stop)(nil); errors.As(err, &s) {
			out.Stop = s.Reason
			out.Cause = CauseStopped
			if s.OutOfBudget {
				out.Cause = CauseBudget
			}
			if s.Err != nil { // a call was made and failed
				out.Asked = append(out.Asked, Asked{Index: qi, Err: err})
			}
			break
		}
		got := Asked{Index: qi, Reply: rep, Err: err}
		if err == nil && rep.Served != "" && !llm.SameModel(d.Model, rep.Served) {
			out.Asked = append(out.Asked, got)
			out.Cause, out.Served = CauseServed, rep.Served
			out.Stop = fmt.Sprintf("the endpoint served %q when asked for %q: what it answers says nothing of the claimed model", rep.Served, d.Model)
			break
		}
		if err != nil || rep.Finish != rerun.FinishAnswered {
			out.Faults++
			out.Asked = append(out.Asked, got)
			continue
		}
		got.Evidence, got.Correct = true, rep.Letter != "" && rep.Letter == d.Key[qi]
		out.Asked = append(out.Asked, got)
		out.N++
		if rep.Letter == cl.Letter {
			out.Agree++
		}
		switch {
		case cl.Correct && !got.Correct:
			out.B++
		case !cl.Correct && got.Correct:
			out.C++
		}
		// The test's trials are the pairs; it looks after every Every of
		// them (a call that is no evidence is no trial).
		if test.Rejects(h, out.N, out.B, out.C) {
			out.Cause = CauseRejected
			break
		}
	}
	out.LogLR = test.LogLR(out.N, out.B, out.C)
	out.Threshold = h
	if out.N > 0 {
		out.Threshold = test.Bound(h, out.N)
	}
	switch {
	case out.Cause == CauseRejected:
		out.Verdict = Inconsistent
	case out.Cause != "":
		out.Verdict = Inconclusive
	case out.N == 0:
		out.Verdict, out.Cause = Inconclusive, CauseNoEvidence
	default:
		// The sample is complete, or the questions ran out: every look
		// the test was allowed came and went.
		out.Verdict, out.Cause = Consistent, CauseComplete
	}
	return out, nil
}
