package reproduce

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// RubricRule is the rubric reproduction's test: the spot-check's (rerun.Rule,
// its shift and jump tests on reported − judged) with each question's
// "judged" grade being the judge's grade of an answer the model writes
// again. A claimed score and the grade of a new answer are two runs of
// one model and one judge, exchangeable under honesty as the spot-check's
// two gradings of one answer are; the tolerance absorbs a model or judge
// that has moved since. No calibration fixtures are graded and no answer
// twice: each question of the sample costs one candidate call and one
// judge call, and the jump test's controls are the sample's own jumps
// down (ups and downs are equally likely under honesty).
func RubricRule() rerun.Rule {
	r := rerun.DefaultRule()
	r.DriftFixtures, r.Regrade = 0, 0
	// A model that writes better answers lifts most questions a little:
	// the shift test's case. The simulation's detection of a file scored
	// a point and a half higher rose from 86% to 91% with the shift
	// test's share raised from 0.2 to 0.8 (docs/PERFORMANCE.md).
	r.ShiftShare = 0.8
	return r
}

// rubricGrader is the rerun.Grader of a rubric reproduction: the model
// writes the answer again, the benchmark's judge grades it.
type rubricGrader struct {
	c      *caller
	b      *benchmark.Benchmark
	jud    *judge.Judge
	prompt *benchmark.Prompt
	rows   []*submission.RubricRow
	temp   *float64
	maxTok int
}

func (g *rubricGrader) GradeFixture(context.Context, int) (rerun.Grade, error) {
	return rerun.Grade{}, errors.New("reproduce: a reproduction grades no calibration fixture")
}

func (g *rubricGrader) RegradeQuestion(ctx context.Context, qi int) (rerun.Grade, error) {
	return g.GradeQuestion(ctx, qi)
}

func (g *rubricGrader) GradeQuestion(ctx context.Context, qi int) (rerun.Grade, error) {
	q := &g.b.Rubric.Questions[qi]
	row := g.rows[qi]
	claimed64, _ := row.Score.Int()
	qc := Question{ID: q.ID, Claimed: int(claimed64)}
	before := g.c.bud.Calls()
	resp, err := g.c.llm.Complete(ctx, llm.Request{Model: g.c.rep.Asked, Messages: generate.RubricMessages(g.prompt, q),
		Temperature: g.temp, MaxTokens: g.maxTok, Kind: llm.CallCandidate, QuestionID: q.ID})
	if err != nil {
		if ctx.Err() != nil {
			return rerun.Grade{}, err
		}
		err = g.c.stop(err, before == 0)
		if s := (*rerun.Stop)(nil); errors.As(err, &s) && s.OutOfBudget {
			return rerun.Grade{}, err
		}
		qc.Fault, qc.Err = "the candidate call failed: "+llm.Public(err), err
		g.c.rep.Questions = append(g.c.rep.Questions, qc)
		return rerun.Grade{}, err
	}
	qc.ServedModel = g.c.served(resp)
	if qc.ServedModel != "" && !llm.SameModel(g.c.rep.Asked, qc.ServedModel) {
		stop := &rerun.Stop{Reason: fmt.Sprintf("the endpoint served %q when asked for %q: what it writes says nothing of the claimed model", qc.ServedModel, g.c.rep.Asked)}
		qc.Fault = stop.Reason
		g.c.rep.Questions = append(g.c.rep.Questions, qc)
		return rerun.Grade{}, stop
	}
	text, _ := submission.DefaultAnswerRule(true).Graded(resp.Content, resp.Reasoning)
	switch {
	case resp.FinishReason == "content_filter":
		qc.Finish, qc.Fault = rerun.FinishRefused, "no answer to compare: "+finishText[rerun.FinishRefused]
	case text == "":
		qc.Finish, qc.Fault = rerun.FinishEmpty, "no answer to compare: "+finishText[rerun.FinishEmpty]
	case resp.FinishReason == "length":
		qc.Finish, qc.Fault = rerun.FinishLength, "no answer to compare: "+finishText[rerun.FinishLength]
	default:
		qc.Finish = rerun.FinishAnswered
	}
	if qc.Fault != "" {
		g.c.rep.Questions = append(g.c.rep.Questions, qc)
		return rerun.Grade{}, errors.New(qc.Fault)
	}
	got, err := g.jud.Grade(ctx, g.b.Rubric, q, text)
	if err == nil && !got.Scored {
		err = errors.New("the judge gave no valid verdict")
	}
	if err != nil {
		if ctx.Err() != nil {
			return rerun.Grade{}, err
		}
		err = g.c.stop(err, false)
		if s := (*rerun.Stop)(nil); errors.As(err, &s) && s.OutOfBudget {
			qc.Fault = "the answer was written again but not graded: " + s.Reason
			g.c.rep.Questions = append(g.c.rep.Questions, qc)
			return rerun.Grade{}, err
		}
		qc.Fault, qc.Err = "the judge call failed: "+llm.Public(err), err
		g.c.rep.Questions = append(g.c.rep.Questions, qc)
		return rerun.Grade{}, err
	}
	total := got.Total()
	qc.Reproduced = total
	g.c.rep.Questions = append(g.c.rep.Questions, qc)
	return rerun.Grade{Total: total, Gate: got.Verdict.GatePassed}, nil
}

func checkRubric(ctx context.Context, b *benchmark.Benchmark, files *verify.Files, seed uint64, c *caller) error {
	if c.cfg.Judge == nil {
		return errors.New("a rubric reproduction grades the answers it gets with the benchmark's judge: configure the judge endpoint")
	}
	if c.cfg.Judge.Model != b.Entry.JudgeModel {
		return fmt.Errorf("the judge must be the benchmark's fixed judge %q, not %q", b.Entry.JudgeModel, c.cfg.Judge.Model)
	}
	rep := c.rep
	jud := *c.cfg.Judge
	jud.LLM = c.bud.Limit(jud.LLM)
	jud.Cache = nil // a new answer is graded anew; nothing to read back
	g := &rubricGrader{c: c, b: b, jud: &jud, prompt: generate.PromptFor(b.Entry), rows: make([]*submission.RubricRow, len(b.Rubric.Questions))}
	g.temp, g.maxTok, _ = rerun.ReaskSampling(files.Meta)
	rule := RubricRule()
	if t := b.Entry.SpotCheckTolerance; t != nil {
		rule.Tolerance = *t
	}
	// Two calls a question: the sample is as large as the budget allows
	// (at least one question: a MaxN of 0 would mean every one).
	rule.MaxN = max(1, min(rule.MaxN, c.cfg.MaxCalls/2))
	if err := rule.Validate(); err != nil {
		return fmt.Errorf("the rubric reproduction's rule for %s cannot run: %w", b.Entry.Key, err)
	}
	d := rerun.Design{Points: b.Rubric.TotalPoints, Seed: seed, Questions: make([]rerun.Question, len(b.Rubric.Questions))}
	scored := 0
	for i := range files.Rubric {
		row := &files.Rubric[i]
		qi, ok := b.Index(row.ID)
		if !ok || row.Score == nil {
			continue
		}
		g.rows[qi] = row
		total, _ := row.Score.Int()
		d.Questions[qi] = rerun.Question{Scored: true, Reported: rerun.Grade{Total: int(total), Gate: row.GatePassed != nil && *row.GatePassed}}
		scored++
	}
	order := rerun.SampleOrder(seed, len(d.Questions))
	first := &b.Rubric.Questions[order[0]]
	c.preflight(2*min(scored, max(rule.MaxN, 1)), llm.Request{Model: rep.Asked, Messages: generate.RubricMessages(g.prompt, first), MaxTokens: g.maxTok})
	if c.cfg.Prices != nil {
		rep.Warnings = append(rep.Warnings, "the prices given are the candidate's: the judge's calls are counted, and their cost is known once the endpoint reports it")
	}
	out, err := rerun.Run(ctx, rule, d, g)
	if err != nil {
		return err
	}
	rep.Checked = out.N
	res := out.Result
	rep.Rubric = &RubricTest{N: res.N, Mean: res.Mean, Delta: rule.Delta, Shift: res.Shift, Jumps: res.Jump, Cause: res.Cause}
	if !math.IsInf(res.Bound, 0) {
		rep.Rubric.Bound = &res.Bound
	}
	switch {
	case out.Decision == rerun.Inconsistent:
		rep.Verdict = Inconsistent
		rep.Reason = fmt.Sprintf("the claimed scores exceed the grades of answers %s writes again, beyond the tolerance of %.2f points a question: mean claimed − reproduced %+.2f over %d questions (%s)", rep.Asked, rule.Tolerance, res.Mean, out.N, res.Cause)
	case out.Stop != "":
		rep.Verdict = Inconclusive
		rep.Reason = out.Stop
	case out.Decision == rerun.Consistent:
		rep.Verdict = Consistent
		rep.Reason = fmt.Sprintf("the claimed scores are what %s's answers, written again, are graded: mean claimed − reproduced %+.2f over %d questions, the %.0f%% upper bound %.2f below %.2f points", rep.Asked, res.Mean, out.N, 100*(1-rule.Beta), res.Bound, rule.Delta)
	default:
		rep.Verdict = Inconclusive
		rep.Reason = fmt.Sprintf("over %d questions no test shows the claimed scores above what %s gives (mean claimed − reproduced %+.2f), but the %.0f%% upper bound %.2f does not rule out %.2f points a question", out.N, rep.Asked, res.Mean, 100*(1-rule.Beta), res.Bound, rule.Delta)
	}
	return nil
}
