package reproduce

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// DefaultMaxCalls caps a check's calls when no budget is given: the
// multiple-choice test's full sample.
const DefaultMaxCalls = 150

// DefaultBaseURL is the endpoint a reproduction asks when none is
// configured: OpenRouter, which serves most submissions' models under one
// key.
const DefaultBaseURL = "https://openrouter.ai/api/v1"

// Config describes one reproduction.
type Config struct {
	// Candidate is the endpoint serving the claimed model. Models maps
	// the model ids submissions give to the ids it serves them under, and
	// adds to the benchmark's reproduce_models; a model in neither is
	// asked by its own id.
	Candidate llm.Completer
	Models    map[string]string
	// Judge grades re-generated rubric answers: the benchmark's fixed
	// judge. Unused for multiple choice.
	Judge *judge.Judge
	// Secret, Seed: as the spot-check's (rerun.SampleSeed).
	Secret []byte
	Seed   *uint64
	// MaxCalls and MaxUSD bound the check's calls (attempts, the judge's
	// included) and spend; MaxCalls 0 means DefaultMaxCalls, MaxUSD 0 no
	// limit. With Prices (the candidate's, USD per million tokens) each
	// candidate call reserves its worst case before it is made
	// (judge.Budget).
	MaxCalls int
	MaxUSD   float64
	Prices   *judge.Prices
	// Rule is the multiple-choice test; zero means DefaultRule(). A
	// budget that stops the check before its sample is complete leaves it
	// inconclusive.
	Rule Rule
	// Endpoint is the endpoint's host, for the report.
	Endpoint string
	// Preflight, when set, is told the estimate before the first call.
	Preflight func(Estimate)
}

// Estimate is what a check will cost at most, told before its first call.
type Estimate struct {
	Calls int      `json:"calls"`
	USD   *float64 `json:"usd,omitempty"` // nil when no prices bound a call
	Note  string   `json:"note"`
}

// Report is the outcome of a reproduction.
type Report struct {
	Path      string         `json:"path"`
	RubricKey string         `json:"rubric_key"`
	Kind      benchmark.Kind `json:"kind"`
	// Digest names the version of the submission checked (Digest).
	Digest string `json:"digest"`
	// Model is the model the submission names; Asked the id the endpoint
	// was asked for; Endpoint its host.
	Model    string  `json:"model"`
	Asked    string  `json:"asked_model"`
	Endpoint string  `json:"endpoint,omitempty"`
	Verdict  Verdict `json:"verdict"`
	Reason   string  `json:"reason"`
	// Seed is the sample's seed in hex (`--seed` replays it), SeedSource
	// where it came from (rerun.SeedSecret, SeedRandom or SeedGiven).
	Seed       string   `json:"seed"`
	SeedSource string   `json:"seed_source"`
	Estimate   Estimate `json:"estimate"`
	Calls      int      `json:"calls"`
	SpendUSD   float64  `json:"spend_usd"`
	// Checked is how many questions were compared.
	Checked   int        `json:"checked"`
	Questions []Question `json:"questions"`
	// Served lists the models the endpoint said served the calls.
	Served []string `json:"served_models"`
	// Multiple choice: the discordant pairs and the test.
	Test      *TestReport `json:"test,omitempty"`
	Agreement *float64    `json:"letter_agreement,omitempty"`
	// Rubric: the spot-check's paired test on claimed − reproduced.
	Rubric   *RubricTest `json:"rubric_test,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
	// OutOfBudget reports that the budget stopped the check: with no
	// call made, what was left of it paid for none.
	OutOfBudget bool `json:"out_of_budget,omitempty"`
}

// TestReport is the multiple-choice test as it ended.
type TestReport struct {
	// B counts claimed right and reproduced wrong, C the reverse, of N.
	N         int     `json:"n"`
	B         int     `json:"claimed_right_reproduced_wrong"`
	C         int     `json:"claimed_wrong_reproduced_right"`
	Tolerance float64 `json:"tolerance"`
	Alpha     float64 `json:"alpha"`
	// LogLR is the test's statistic at the end, Threshold its boundary
	// there, MaxCalls the sample the test is designed for.
	LogLR     float64 `json:"log_likelihood_ratio"`
	Threshold float64 `json:"threshold"`
	MaxCalls  int     `json:"max_calls"`
}

// RubricTest is the rubric's paired test as it ended: the mean of
// claimed − reproduced over N questions, its upper confidence bound (nil
// with fewer than two), and the spot-check's two tests.
type RubricTest struct {
	N     int             `json:"n"`
	Mean  float64         `json:"mean_diff"`
	Bound *float64        `json:"upper_bound,omitempty"`
	Delta float64         `json:"delta"`
	Shift rerun.ShiftTest `json:"shift_test"`
	Jumps rerun.JumpTest  `json:"jump_test"`
	Cause rerun.Cause     `json:"cause,omitempty"`
}

// Question is one question asked again. Claimed and Reproduced are the
// letters (multiple choice) or the scores (rubric).
type Question struct {
	ID                string `json:"id"`
	Claimed           any    `json:"claimed"`
	Reproduced        any    `json:"reproduced"`
	ClaimedCorrect    *bool  `json:"claimed_correct,omitempty"`
	ReproducedCorrect *bool  `json:"reproduced_correct,omitempty"`
	ServedModel       string `json:"served_model"`
	Finish            string `json:"finish,omitempty"`
	Fault             string `json:"fault,omitempty"`
	// Err is the failed call behind a Fault, in full, for the log of
	// whoever ran the check (Fault says only what failed).
	Err error `json:"-"`
}

// servedModel returns the model an endpoint says served a call, "" when
// it says none.
func servedModel(resp llm.Response) string { return resp.Model }

// Check reproduces the submission in folder dir of the leaderboard that
// v verifies.
func Check(ctx context.Context, v *verify.Verifier, dir string, cfg Config) (Report, error) {
	res, files := v.VerifyFiles(dir)
	rep := Report{Path: dir, RubricKey: res.RubricKey, Kind: res.Kind, Questions: []Question{}, Served: []string{}, Endpoint: cfg.Endpoint}
	if res.Meta != nil {
		rep.Model = res.Meta.CandidateModelID
	}
	rep.Digest = Digest(res.RubricKey, files)
	if f, ok := submission.ParseFolder(dir); ok && f.Track == submission.HarnessTrack {
		rep.Verdict = Unreachable
		rep.Reason = "the submission is on the harness track: its scores come from a harness's scaffolding around the model, which an API call to the model does not reproduce; nothing was asked"
		return rep, nil
	}
	if res.Status == verify.Fail {
		rep.Verdict, rep.Reason = Inconclusive, fmt.Sprintf("the submission does not pass verification (%d errors); a reproduction compares answers that are at least well-formed", len(res.Errors))
		return rep, nil
	}
	b, _ := v.Benchmark(res.RubricKey)
	if b == nil {
		return rep, errors.New("the submission's benchmark cannot be loaded")
	}
	if cfg.Candidate == nil {
		return rep, errors.New("a reproduction asks the claimed model: configure the candidate endpoint")
	}
	rep.Asked = servedID(rep.Model, cfg.Models, b.Entry.ReproduceModels)
	seed, source, err := rerun.SampleSeed(cfg.Seed, cfg.Secret, res.RubricKey, files)
	if err != nil {
		return rep, err
	}
	rep.Seed, rep.SeedSource = rerun.FormatSeed(seed), source
	if cfg.MaxCalls <= 0 {
		cfg.MaxCalls = DefaultMaxCalls
	}
	bud := &judge.Budget{MaxCalls: cfg.MaxCalls, MaxUSD: cfg.MaxUSD, Prices: cfg.Prices}
	c := &caller{cfg: cfg, bud: bud, rep: &rep, llm: bud.Limit(cfg.Candidate)}
	switch {
	case b.Rubric == nil && files.MCQ != nil:
		err = checkMCQ(ctx, b, files, seed, c)
	case b.Rubric != nil && files.Rubric != nil:
		err = checkRubric(ctx, b, files, seed, c)
	default:
		return rep, fmt.Errorf("%s: verification kept no rows of scores.json to reproduce", dir)
	}
	rep.Calls, rep.SpendUSD = bud.Calls(), bud.Spent()
	if c.unreachable != "" {
		rep.Verdict, rep.Reason = Unreachable, c.unreachable
	}
	return rep, err
}

// servedID is the id the endpoint serves model under: the given map's,
// else the registry's, else its own.
func servedID(model string, given, registry map[string]string) string {
	if id, ok := given[model]; ok {
		return id
	}
	if id, ok := registry[model]; ok {
		return id
	}
	return model
}

// caller makes a check's calls within its budget and records them.
type caller struct {
	cfg         Config
	bud         *judge.Budget
	rep         *Report
	llm         llm.Completer
	unreachable string // why the model is not served, once a call said so
}

// stop turns a failed call's error into what ends the check, or returns
// it as a fault of the call; first says whether the call was the check's
// first.
func (c *caller) stop(err error, first bool) error {
	var le *llm.Error
	switch {
	case errors.Is(err, judge.ErrBudget):
		c.rep.OutOfBudget = true
		return &rerun.Stop{Reason: fmt.Sprintf("the budget ran out after %d calls ($%.4f): %v", c.bud.Calls(), c.bud.Spent(), err), OutOfBudget: true}
	case errors.As(err, &le) && le.Status == http.StatusNotFound && first:
		// A model the endpoint does not serve is refused before any
		// token is billed.
		c.unreachable = fmt.Sprintf("the endpoint does not serve %q (HTTP 404 on the first call): map the submission's model id to the id the endpoint serves (--model-map), or use an endpoint that serves it; nothing was compared", c.rep.Asked)
		return &rerun.Stop{Reason: c.unreachable, Err: err}
	case errors.Is(err, llm.ErrAccount):
		return &rerun.Stop{Reason: "the endpoint refused the account (" + llm.Public(err) + "); the check stopped, and can be run again once the account is fixed", Err: err}
	}
	return err
}

func (c *caller) served(resp llm.Response) string {
	s := servedModel(resp)
	if s != "" && !slices.Contains(c.rep.Served, s) {
		c.rep.Served = append(c.rep.Served, s)
	}
	return s
}

// preflight estimates the cost of calls calls like req, records it in the
// report and tells it to Config.Preflight.
func (c *caller) preflight(calls int, req llm.Request) {
	est := Estimate{Calls: min(calls, c.cfg.MaxCalls)}
	switch w, ok := 0.0, false; {
	case c.cfg.Prices == nil:
		est.Note = "no prices were given, so a call's cost is known only once the endpoint reports it"
	default:
		if w, ok = judge.WorstCost(req, *c.cfg.Prices); !ok {
			est.Note = "the calls set no max tokens, so nothing bounds their cost"
			break
		}
		usd := w * float64(est.Calls)
		est.USD = &usd
		est.Note = fmt.Sprintf("at most $%.4f a call (%d prompt tokens at most and %d of completion)", w, judge.PromptTokenBound(req.Messages), req.MaxTokens)
	}
	c.rep.Estimate = est
	if c.cfg.Preflight != nil {
		c.cfg.Preflight(est)
	}
}

// mcqAsker asks a benchmark's questions again through a caller.
type mcqAsker struct {
	c  *caller
	b  *benchmark.Benchmark
	ra *rerun.Reasker
	cl []Claim
}

func (a *mcqAsker) Ask(ctx context.Context, qi int) (Reply, error) {
	it := &a.b.Items[qi]
	before := a.c.bud.Calls()
	got, err := a.ra.Ask(ctx, it)
	cl := a.cl[qi]
	q := Question{ID: it.ID, Claimed: cl.Letter, ClaimedCorrect: &cl.Correct}
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, err
		}
		err = a.c.stop(err, before == 0)
		if s := (*rerun.Stop)(nil); errors.As(err, &s) && s.OutOfBudget {
			return Reply{}, err // no call was made
		}
		q.Fault, q.Err = "the call failed: "+llm.Public(err), err
		a.c.rep.Questions = append(a.c.rep.Questions, q)
		return Reply{}, err
	}
	rep := Reply{Letter: got.Letter, Finish: got.Finish, Served: a.c.served(got.Response)}
	q.Reproduced, q.ServedModel, q.Finish = got.Letter, rep.Served, got.Finish
	if got.Finish == rerun.FinishAnswered {
		ok := got.Letter != "" && got.Letter == it.Key()
		q.ReproducedCorrect = &ok
	} else {
		q.Fault = "no answer to compare: " + finishText[got.Finish]
	}
	a.c.rep.Questions = append(a.c.rep.Questions, q)
	return rep, nil
}

// finishText says what a reply that is no answer was.
var finishText = map[string]string{
	rerun.FinishLength:  "the reply was cut at the token limit",
	rerun.FinishRefused: "the endpoint's content filter withheld the reply",
	rerun.FinishEmpty:   "the reply was empty",
}

func checkMCQ(ctx context.Context, b *benchmark.Benchmark, files *verify.Files, seed uint64, c *caller) error {
	rep := c.rep
	ra, err := rerun.NewReasker(c.llm, rep.Asked, b, files.Meta)
	if err != nil {
		return err
	}
	rule := c.cfg.Rule
	if rule == (Rule{}) {
		rule = DefaultRule()
	}
	if t := b.Entry.ReproduceTolerance; t != nil {
		rule.Tolerance = *t
	}
	d := MCQDesign{Claims: make([]Claim, len(b.Items)), Key: make([]string, len(b.Items)), Model: rep.Asked, Seed: seed}
	present := 0
	for i := range b.Items {
		d.Key[i] = b.Items[i].Key()
	}
	for _, row := range files.MCQ {
		qi, ok := b.Index(row.ID)
		// Only answers are compared, on both sides: a reply the
		// submission records as failed, cut at the token limit or empty
		// is not asked again, as the model's such replies are no trial.
		if !ok || row.FinishReason == "error" || row.FinishReason == "length" || row.FinishReason == "empty" {
			continue
		}
		d.Claims[qi] = Claim{Present: true, Letter: row.Answer, Correct: row.Correct}
		present++
	}
	// The budget may stop the check before the rule's sample is complete:
	// it is then inconclusive, a short sample ruling nothing out.
	order := rerun.SampleOrder(seed, len(b.Items))
	c.preflight(min(present, rule.MaxCalls), ra.Request(&b.Items[order[0]]))
	out, err := RunMCQ(ctx, rule, d, &mcqAsker{c: c, b: b, ra: ra, cl: d.Claims})
	if err != nil {
		return err
	}
	rep.Checked = out.N
	rep.Test = &TestReport{N: out.N, B: out.B, C: out.C, Tolerance: rule.Tolerance, Alpha: rule.Alpha, LogLR: out.LogLR, Threshold: out.Threshold, MaxCalls: rule.MaxCalls}
	if out.N > 0 {
		a := float64(out.Agree) / float64(out.N)
		rep.Agreement = &a
	}
	rep.Verdict = out.Verdict
	rep.Reason = mcqReason(out, rule, ra.Sampling, rep)
	return nil
}

func mcqReason(out MCQOutcome, r Rule, sampling string, rep *Report) string {
	counts := fmt.Sprintf("of %d questions asked again %s, %d were claimed right and reproduced wrong and %d the reverse", out.N, sampling, out.B, out.C)
	switch out.Cause {
	case CauseRejected:
		return fmt.Sprintf("the claimed answers are better than what %s gives beyond the tolerance of %s: %s (log-likelihood ratio %.2f against the boundary %.2f; an honest submission is called inconsistent at most %g%% of the time)", rep.Asked, accuracyPoints(r.Tolerance), counts, out.LogLR, out.Threshold, 100*r.Alpha)
	case CauseComplete:
		return fmt.Sprintf("the claimed answers are what %s gives: %s, within what two runs of one model and a drift of %s make", rep.Asked, counts, accuracyPoints(r.Tolerance))
	case CauseNoEvidence:
		return "no question could be asked again"
	}
	return out.Stop + "; " + counts + ", which decides nothing"
}

func accuracyPoints(tol float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", 100*tol), ".0") + " points of accuracy"
}
