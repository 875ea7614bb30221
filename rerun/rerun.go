// Package rerun spot-checks a submission's self-reported scores. For a
// rubric benchmark it first checks the benchmark's fixed judge on a few of
// the rubric's calibration fixtures, then re-grades answers with it, one
// at a time in an order nobody can predict before the submission is
// final, and stops as soon as the evidence decides (a sequential test, see
// Rule); it also looks, without a judge, for answers that copy the grading
// key. For a multiple-choice benchmark it relies on re-extracting every
// letter, and may re-ask the candidate a sample of questions.
package rerun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/extract"
	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// Verdict is what a spot-check concludes.
type Verdict string

// The verdicts.
const (
	VerdictConsistent   Verdict = "consistent"   // the judge agrees with the reported scores
	VerdictInconsistent Verdict = "inconsistent" // the reported scores are higher than the judge's beyond noise
	VerdictInconclusive Verdict = "inconclusive" // a maintainer decides
)

// Config describes one spot-check.
type Config struct {
	// Judge re-grades rubric answers; its Model must be the benchmark's
	// judge_model.
	Judge *judge.Judge
	// Candidate, when set, re-asks a sample of a multiple-choice
	// submission's questions at temperature 0.
	Candidate      llm.Completer
	CandidateModel string
	Sample         int // questions re-asked of the candidate; 0 means 20

	// Secret keys the sample's seed (an HMAC of the submission's scores in
	// a canonical form, see scoresDigest), so that the sample is
	// reproducible by whoever holds it and unpredictable to the submitter.
	// Without one the seed is a plain hash of the scores, which the
	// submitter can compute too.
	Secret []byte

	// MaxCalls and MaxUSD bound the spot-check's model calls and spend;
	// 0 means no limit. With the judge's Prices each judge call reserves
	// its worst case before it is made (judge.Budget), so the spend never
	// goes past MaxUSD; without them the spend is checked before each
	// call, and the report warns that one call may go past it.
	MaxCalls int
	MaxUSD   float64
	// Rule is the sequential test; zero means DefaultRule(). A benchmark
	// whose registry entry sets spot_check_tolerance replaces its
	// Tolerance.
	Rule Rule
	// MaxFaults, when positive, replaces the rule's MinFaults: the least
	// number of judge faults (errors, unusable verdicts) that end the
	// check as inconclusive; the allowance grows with the calls made (see
	// Rule.FaultLimit).
	MaxFaults int
	// Now is the clock whose UTC day scopes the calibration fixtures'
	// cached grades (see checkDrift); nil means time.Now.
	Now func() time.Time
}

// Report is the outcome of a spot-check.
type Report struct {
	Path      string          `json:"path"`
	RubricKey string          `json:"rubric_key"`
	Kind      benchmark.Kind  `json:"kind"`
	Verdict   Verdict         `json:"verdict"`
	Reason    string          `json:"reason"`
	Seed      string          `json:"seed"`       // hex; the sample order follows from it
	SeedKeyed bool            `json:"seed_keyed"` // made with the leaderboard's secret
	Sample    []string        `json:"sample"`     // question ids, in the order checked
	Questions []QuestionCheck `json:"questions"`
	Calls     int             `json:"calls"`
	SpendUSD  float64         `json:"spend_usd"`
	Warnings  []string        `json:"warnings,omitempty"`

	// Rubric kind.
	Leaks []Leak `json:"leaks,omitempty"`
	// Injections are the signs, in answers or in the judge's verdicts,
	// that an answer instructs the judge; any keeps the check from
	// consistent, since a judge that obeys agrees with any score.
	Injections     []Injection `json:"injections,omitempty"`
	Checked        int         `json:"checked,omitempty"`
	MeanDiff       float64     `json:"mean_diff,omitempty"` // reported − judged, points per question
	LLR            float64     `json:"llr,omitempty"`
	Contradictions int         `json:"gate_contradictions,omitempty"`
	JudgeFaults    int         `json:"judge_faults,omitempty"` // the fixtures' and the answers'
	// OutOfBudget reports that the check stopped at Config's MaxCalls or
	// MaxUSD, or before a call whose worst case would not fit in it.
	OutOfBudget bool `json:"out_of_budget,omitempty"`
	// Tolerance is the inflation, in points per question, the test
	// accepted as the judge's drift, and Sigma the spread of the
	// differences it estimated (see Rule).
	Tolerance float64 `json:"tolerance,omitempty"`
	Sigma     float64 `json:"sigma,omitempty"`
	// Fixtures are the rubric's calibration fixtures the judge graded
	// before the test, and JudgeBias the mean of their differences from
	// the expected grades (see Rule.Drift): the judge's estimated bias,
	// negative when it grades more strictly than the rubric's authors.
	// It is absent when no fixture was graded.
	Fixtures  []FixtureCheck `json:"fixtures,omitempty"`
	JudgeBias *float64       `json:"judge_bias,omitempty"`

	// Multiple-choice kind.
	Disputes     int      `json:"disputes,omitempty"`
	Unverifiable int      `json:"unverifiable,omitempty"`
	Agreement    *float64 `json:"agreement,omitempty"` // of re-asked answers with the submitted letters
}

// QuestionCheck is one question re-checked.
type QuestionCheck struct {
	ID           string `json:"id"`
	Reported     *int   `json:"reported,omitempty"`
	Judged       *int   `json:"judged,omitempty"`
	Diff         *int   `json:"diff,omitempty"` // reported − judged
	ReportedGate *bool  `json:"reported_gate,omitempty"`
	JudgedGate   *bool  `json:"judged_gate,omitempty"`
	GateFlip     bool   `json:"gate_flip,omitempty"` // reported a pass the judge fails
	// Components lists the components on which the reported and the
	// judged awards differ.
	Components []ComponentDiff `json:"components,omitempty"`
	// Multiple choice: the submitted and the re-asked letter.
	Submitted string `json:"submitted,omitempty"`
	ReAsked   string `json:"reasked,omitempty"`
	Fault     string `json:"fault,omitempty"` // why this question is no evidence
	Cached    bool   `json:"cached,omitempty"`
	// Err is the failed call behind a Fault, in full, for the log of
	// whoever ran the check: Fault, which the report shows, says only
	// what failed (llm.Public), not the endpoint's address.
	Err error `json:"-"`
	// Injection reports signs of instructing the judge in the answer or
	// the verdict (see Report.Injections).
	Injection bool `json:"injection,omitempty"`
}

// FixtureCheck is one calibration fixture graded by the judge to check it
// before a spot-check.
type FixtureCheck struct {
	QuestionID string `json:"question_id"`
	FixtureID  string `json:"fixture_id"`
	Expected   int    `json:"expected"`
	Judged     *int   `json:"judged,omitempty"`
	Diff       *int   `json:"diff,omitempty"` // judged − expected
	Cached     bool   `json:"cached,omitempty"`
	Fault      string `json:"fault,omitempty"`
	Err        error  `json:"-"`
}

// Injection is one question whose answer, or whose verdict from the judge,
// shows an attempt to instruct the judge.
type Injection struct {
	QuestionID string `json:"question_id"`
	// Source is InAnswer (judge.InjectionMarkers found them in the text
	// graded) or InVerdict (judge.VerdictInjectionSigns found them in
	// the judge's reply).
	Source string   `json:"source"`
	Signs  []string `json:"signs"`
}

// The sources of an Injection.
const (
	InAnswer  = "answer"
	InVerdict = "verdict"
)

// ComponentDiff is one rubric component awarded differently by the
// submission and the judge.
type ComponentDiff struct {
	ID       string `json:"id"`
	Reported int    `json:"reported"`
	Judged   int    `json:"judged"`
}

// componentDiffs compares a reported row's awards with a verdict's.
func componentDiffs(q *benchmark.RubricQuestion, row *submission.RubricRow, v judge.Verdict) []ComponentDiff {
	reported := map[string]int{}
	for _, c := range row.Components {
		if a, ok := c.Awarded.Int(); ok {
			reported[c.ID] = int(a)
		}
	}
	judged := map[string]int{}
	for _, c := range v.Components {
		judged[c.ID] = int(c.Awarded)
	}
	var out []ComponentDiff
	for _, c := range q.Components {
		if reported[c.ID] != judged[c.ID] {
			out = append(out, ComponentDiff{ID: c.ID, Reported: reported[c.ID], Judged: judged[c.ID]})
		}
	}
	return out
}

// Check spot-checks the submission in folder dir of the leaderboard
// repository that v verifies. Its files are read and parsed once, by the
// verifier and under its limits; the spot-check works on what it parsed.
func Check(ctx context.Context, v *verify.Verifier, dir string, cfg Config) (Report, error) {
	if cfg.Rule == (Rule{}) {
		cfg.Rule = DefaultRule()
	}
	if cfg.Sample <= 0 {
		cfg.Sample = 20
	}
	res, files := v.VerifyFiles(dir)
	rep := Report{Path: dir, RubricKey: res.RubricKey, Kind: res.Kind, Questions: []QuestionCheck{}, Sample: []string{}}
	if res.Status == verify.Fail {
		rep.Verdict, rep.Reason = VerdictInconclusive, fmt.Sprintf("the submission does not pass verification (%d errors); a spot-check compares scores that are at least well-formed", len(res.Errors))
		return rep, nil
	}
	b, _ := v.Benchmark(res.RubricKey)
	if b == nil {
		return rep, errors.New("the submission's benchmark cannot be loaded")
	}
	seed, seedHex := sampleSeed(cfg.Secret, scoresDigest(res.RubricKey, files))
	rep.Seed, rep.SeedKeyed = seedHex, cfg.Secret != nil
	if cfg.Secret == nil {
		rep.Warnings = append(rep.Warnings, "no BENCHGATE_RERUN_SECRET: the sample follows from a plain hash of the submission's scores, which its author can compute; set a secret to make the sample unpredictable")
	}
	order := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)).Perm(b.Questions())
	switch {
	case b.Rubric != nil && files.Rubric != nil:
		return checkRubric(ctx, b, files.Rubric, order, seed, cfg, rep)
	case b.Rubric == nil && files.MCQ != nil:
		return checkMCQ(ctx, b, res, files.MCQ, order, cfg, rep)
	}
	return rep, fmt.Errorf("%s: verification kept no rows of scores.json to spot-check", dir)
}

func (rep *Report) spend(u judge.Usage) {
	rep.Calls += u.Calls
	if u.CostUSD != nil {
		rep.SpendUSD += *u.CostUSD
	}
}

func overBudget(cfg Config, rep *Report) bool {
	return (cfg.MaxCalls > 0 && rep.Calls >= cfg.MaxCalls) || (cfg.MaxUSD > 0 && rep.SpendUSD >= cfg.MaxUSD)
}

// DefaultJudgeMaxTokens caps each judge call's completion when a dollar
// budget is reserved call by call and the judge sets no cap of its own:
// the worst case of a call must be finite. A verdict is a few hundred
// tokens; the rest leaves a reasoning judge room to think, and a reply cut
// at the cap is sent back like any broken verdict.
const DefaultJudgeMaxTokens = 16384

// budgeted returns cfg's judge with its calls going through a budget of
// cfg's limits.
func budgeted(cfg Config) *judge.Judge {
	j := *cfg.Judge
	bud := &judge.Budget{MaxCalls: cfg.MaxCalls, MaxUSD: cfg.MaxUSD, Prices: j.Prices}
	if cfg.MaxUSD > 0 && j.Prices != nil && j.Params.MaxTokens == 0 {
		j.Params.MaxTokens = DefaultJudgeMaxTokens
	}
	j.LLM = bud.Limit(j.LLM)
	return &j
}

func checkRubric(ctx context.Context, b *benchmark.Benchmark, rows []submission.RubricRow, order []int, seed uint64, cfg Config, rep Report) (Report, error) {
	if cfg.Judge == nil {
		return rep, errors.New("a rubric benchmark is spot-checked with its judge: configure the judge endpoint")
	}
	if cfg.Judge.Model != b.Entry.JudgeModel {
		return rep, fmt.Errorf("the judge must be the benchmark's fixed judge %q, not %q", b.Entry.JudgeModel, cfg.Judge.Model)
	}
	jud := budgeted(cfg)
	if cfg.MaxUSD > 0 && jud.Prices == nil {
		rep.Warnings = append(rep.Warnings, "the judge has no prices, so a call's worst case is unknown: the dollar budget is checked before each call, and the last call may go past it; give the judge's prices (--price-input and --price-output of `benchgate rerun`, or BENCHGATE_JUDGE_PRICE_INPUT and BENCHGATE_JUDGE_PRICE_OUTPUT for the App)")
	}
	byQ := make(map[int]*submission.RubricRow, len(rows))
	for i := range rows {
		if qi, ok := b.Index(rows[i].ID); ok {
			byQ[qi] = &rows[i]
		}
	}
	// The text graded is always the clean form of the reply as received
	// (of its reasoning text when the content holds no answer, the rubric
	// benchmarks' rule, as score and verify apply it), never a clean text
	// the submitter supplies.
	answers := make(map[string]string, len(rows))
	injected := map[string]bool{}
	for qi := range b.Rubric.Questions {
		row := byQ[qi]
		if row == nil {
			continue
		}
		text, _ := submission.DefaultAnswerRule(true).Graded(row.Answer, row.Reasoning)
		answers[row.ID] = text
		if m := judge.InjectionMarkers(text); len(m) > 0 {
			rep.Injections = append(rep.Injections, Injection{QuestionID: row.ID, Source: InAnswer, Signs: m})
			injected[row.ID] = true
		}
	}
	rep.Leaks = FindLeaks(b.Rubric, answers)

	rule := cfg.Rule
	if t := b.Entry.SpotCheckTolerance; t != nil {
		rule.Tolerance = *t
	}
	if cfg.MaxFaults > 0 {
		rule.MinFaults = cfg.MaxFaults
	}
	if err := rule.Validate(); err != nil {
		return rep, fmt.Errorf("the spot-check's rule for %s cannot run: %w", b.Entry.Key, err)
	}
	rep.Tolerance = rule.Tolerance
	if stop, err := checkDrift(ctx, jud, b.Rubric, rule, seed, cfg, &rep); err != nil || stop != "" {
		rep.Verdict, rep.Reason = VerdictInconclusive, stop
		return rep, err
	}

	test := rule.Start()
	decision := Continue
	stop := ""
	testCalls := 0 // the test's judge calls, failed ones included
	// The fixtures' faults are reported with the others, but the
	// allowance is the test's own.
	fixtureFaults := rep.JudgeFaults
	for _, qi := range order {
		if decision != Continue {
			break
		}
		if rule.MaxN > 0 && testCalls >= rule.MaxN {
			stop = fmt.Sprintf("the test reached its cap of %d judge calls without deciding", rule.MaxN)
			break
		}
		if overBudget(cfg, &rep) {
			rep.OutOfBudget = true
			stop = fmt.Sprintf("the budget ran out after %d calls ($%.4f)", rep.Calls, rep.SpendUSD)
			break
		}
		if faults, limit := rep.JudgeFaults-fixtureFaults, rule.FaultLimit(testCalls); faults >= limit {
			stop = fmt.Sprintf("the judge failed on %d of %d questions (the allowance is max(%d, %g × calls)); its faults are never held against the submission", faults, testCalls, rule.MinFaults, rule.FaultShare)
			break
		}
		row := byQ[qi]
		q := &b.Rubric.Questions[qi]
		qc := QuestionCheck{ID: q.ID}
		rep.Sample = append(rep.Sample, q.ID)
		if row == nil || row.Score == nil {
			qc.Fault = "unscored in the submission: nothing to compare"
			rep.Questions = append(rep.Questions, qc)
			continue
		}
		reported64, _ := row.Score.Int()
		reported := int(reported64)
		qc.Reported, qc.ReportedGate = &reported, row.GatePassed
		testCalls++
		got, err := jud.Grade(ctx, b.Rubric, q, answers[row.ID])
		rep.spend(got.Usage)
		qc.Cached, qc.Injection = got.Cached, injected[q.ID]
		switch {
		case ctx.Err() != nil:
			return rep, ctx.Err()
		case errors.Is(err, judge.ErrBudget):
			// Not a fault of the judge, and no evidence: the question was
			// not checked.
			rep.Sample = rep.Sample[:len(rep.Sample)-1]
			testCalls--
			rep.OutOfBudget = true
			stop = fmt.Sprintf("the budget ran out after %d calls ($%.4f): %v", rep.Calls, rep.SpendUSD, err)
		case errors.Is(err, llm.ErrAccount):
			// No judge call can succeed until the account is fixed: stop
			// at once, without evidence either way.
			qc.Fault, qc.Err = "the judge call failed: "+llm.Public(err), err
			rep.JudgeFaults++
			rep.Questions = append(rep.Questions, qc)
			stop = "the judge's account was refused (" + llm.Public(err) + "); the spot-check stopped, and can be run again once the account is fixed"
		case err != nil:
			qc.Fault, qc.Err = "the judge call failed: "+llm.Public(err), err
			rep.JudgeFaults++
		case !got.Scored:
			qc.Fault = "the judge gave no valid verdict"
			rep.JudgeFaults++
		default:
			judged := got.Total()
			gate := got.Verdict.GatePassed
			diff := reported - judged
			qc.Judged, qc.JudgedGate, qc.Diff = &judged, &gate, &diff
			rg := row.GatePassed != nil && *row.GatePassed
			qc.GateFlip = rg && !gate
			qc.Components = componentDiffs(q, row, got.Verdict)
			if signs := judge.VerdictInjectionSigns(got.Verdict); len(signs) > 0 {
				rep.Injections = append(rep.Injections, Injection{QuestionID: q.ID, Source: InVerdict, Signs: signs})
				qc.Injection = true
			}
			decision = test.Add(Observation{Reported: reported, Judged: judged, ReportedGate: rg, JudgedGate: gate})
		}
		if stop != "" {
			break
		}
		rep.Questions = append(rep.Questions, qc)
	}
	rep.Checked, rep.MeanDiff, rep.LLR, rep.Contradictions = test.N(), test.MeanDiff(), test.LLR(), test.Contradictions()
	if test.N() > 0 {
		rep.Sigma = test.Sigma()
	}
	switch decision {
	case Inconsistent:
		rep.Verdict = VerdictInconsistent
		rep.Reason = fmt.Sprintf("over %d re-graded answers the reported scores exceed the judge's by %.2f points per question on average (%d reported gate passes the judge fails); the sequential test rejects honest noise and a drift of the judge of up to %.2f points", rep.Checked, rep.MeanDiff, rep.Contradictions, rep.Tolerance)
	case Consistent:
		rep.Verdict = VerdictConsistent
		rep.Reason = fmt.Sprintf("over %d re-graded answers the reported scores agree with the judge's within its noise (mean difference %+.2f points)", rep.Checked, rep.MeanDiff)
	default:
		rep.Verdict = VerdictInconclusive
		if stop == "" {
			stop = "every question was checked without a decision"
		}
		rep.Reason = stop
	}
	if len(rep.Leaks) > 0 && rep.Verdict == VerdictConsistent {
		rep.Verdict = VerdictInconclusive
		rep.Reason = fmt.Sprintf("%d answers reproduce long passages of the grading key (see leaks); the scores agree with the judge, but a maintainer must decide whether the answers were written from the key", len(rep.Leaks))
	}
	if ids := injectionIDs(rep.Injections); len(ids) > 0 && rep.Verdict != VerdictInconsistent {
		// Agreement with a judge the answers instruct proves nothing: one
		// that obeys agrees with any score. An inconsistent verdict stands,
		// the judge having disagreed despite them.
		msg := fmt.Sprintf("questions %s show signs of instructing the judge (see injections), so the judge's agreement proves nothing; a maintainer must read those answers", strings.Join(ids, ", "))
		if rep.Verdict == VerdictConsistent {
			msg = "the scores agree with the judge, but " + msg
		} else {
			msg = rep.Reason + "; " + msg
		}
		rep.Verdict, rep.Reason = VerdictInconclusive, msg
	}
	return rep, nil
}

// checkDrift grades rule.DriftFixtures of the rubric's calibration
// fixtures, chosen in an order drawn from the spot-check's seed, and
// records them and the judge's estimated bias in rep. It returns the
// reason to stop, when the judge has drifted beyond rule.DriftLimit or
// cannot be used, and an error only when ctx is done. The grades are
// cached for the UTC day only (see dayCache): a spot-check run again that
// day does not pay for them twice, but one on a later day grades the
// fixtures afresh, since the drift it looks for is a change of the judge
// after the grades were first made, which a grade cached for good would
// hide.
func checkDrift(ctx context.Context, jud *judge.Judge, r *benchmark.Rubric, rule Rule, seed uint64, cfg Config, rep *Report) (string, error) {
	if rule.DriftFixtures == 0 {
		return "", nil
	}
	if jud.Cache != nil {
		now := time.Now
		if cfg.Now != nil {
			now = cfg.Now
		}
		daily := *jud
		daily.Cache = dayCache{jud.Cache, now().UTC().Format(time.DateOnly)}
		jud = &daily
	}
	type ref struct{ q, f int }
	var all []ref
	for qi := range r.Questions {
		for fi := range r.Questions[qi].Calibration {
			all = append(all, ref{qi, fi})
		}
	}
	if len(all) == 0 {
		rep.Warnings = append(rep.Warnings, "the rubric has no calibration fixtures, so the judge could not be checked for drift before the spot-check")
		return "", nil
	}
	// The fixtures' order is its own stream of the sample's seed.
	perm := rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909)).Perm(len(all))
	var diffs []int
	for _, i := range perm[:min(rule.DriftFixtures, len(all))] {
		if overBudget(cfg, rep) {
			rep.OutOfBudget = true
			return fmt.Sprintf("the budget ran out after %d calls ($%.4f), while the judge graded the calibration fixtures", rep.Calls, rep.SpendUSD), nil
		}
		q := &r.Questions[all[i].q]
		f := &q.Calibration[all[i].f]
		fc := FixtureCheck{QuestionID: q.ID, FixtureID: f.ID, Expected: f.Total}
		got, err := jud.Grade(ctx, r, q, f.Response)
		rep.spend(got.Usage)
		fc.Cached = got.Cached
		switch {
		case ctx.Err() != nil:
			return "", ctx.Err()
		case errors.Is(err, judge.ErrBudget):
			rep.OutOfBudget = true
			return fmt.Sprintf("the budget ran out after %d calls ($%.4f), while the judge graded the calibration fixtures: %v", rep.Calls, rep.SpendUSD, err), nil
		case errors.Is(err, llm.ErrAccount):
			fc.Fault, fc.Err = "the judge call failed: "+llm.Public(err), err
			rep.Fixtures = append(rep.Fixtures, fc)
			rep.JudgeFaults++
			return "the judge's account was refused (" + llm.Public(err) + "); the spot-check stopped, and can be run again once the account is fixed", nil
		case err != nil:
			fc.Fault, fc.Err = "the judge call failed: "+llm.Public(err), err
			rep.JudgeFaults++
		case !got.Scored:
			fc.Fault = "the judge gave no valid verdict"
			rep.JudgeFaults++
		default:
			judged := got.Total()
			diff := judged - f.Total
			fc.Judged, fc.Diff = &judged, &diff
			diffs = append(diffs, diff)
		}
		rep.Fixtures = append(rep.Fixtures, fc)
	}
	if len(diffs) == 0 {
		rep.Warnings = append(rep.Warnings, "the judge graded none of the calibration fixtures, so it could not be checked for drift before the spot-check")
		return "", nil
	}
	bias, drifted := rule.Drift(diffs)
	rep.JudgeBias = &bias
	if drifted {
		return fmt.Sprintf("the judge has drifted: its grades of the calibration fixtures differ by %+.2f points on average from the grades the rubric expects (%d fixtures, each difference counted up to ±%g; the limit is ±%.2f), so its grades cannot be compared with the submitter's run; check the judge with `benchgate calibrate` and its model and parameters against the benchmark's judge contract", bias, len(diffs), rule.DriftClip, rule.DriftLimit), nil
	}
	return "", nil
}

// dayCache keeps a judge cache's entries under keys of one UTC day: the
// same grade asked for on another day is a miss.
type dayCache struct {
	judge.Store
	day string
}

func (c dayCache) key(k string) string {
	h := sha256.Sum256([]byte("calibration fixture graded on " + c.day + "\x00" + k))
	return hex.EncodeToString(h[:])
}

func (c dayCache) Get(key string) ([]byte, bool) { return c.Store.Get(c.key(key)) }
func (c dayCache) Put(key string, data []byte)   { c.Store.Put(c.key(key), data) }

// injectionIDs lists the questions of injections once each, in order,
// the first maxNamed of them and how many more.
func injectionIDs(injs []Injection) []string {
	var ids []string
	seen := map[string]bool{}
	for _, in := range injs {
		if !seen[in.QuestionID] {
			seen[in.QuestionID] = true
			ids = append(ids, in.QuestionID)
		}
	}
	if len(ids) > maxNamed {
		ids = append(ids[:maxNamed], fmt.Sprintf("and %d more", len(ids)-maxNamed))
	}
	return ids
}

// maxNamed caps the questions a reason names one by one.
const maxNamed = 20

func checkMCQ(ctx context.Context, b *benchmark.Benchmark, res verify.Result, rows []submission.MCQRow, order []int, cfg Config, rep Report) (Report, error) {
	if res.Summary.Disputes != nil {
		rep.Disputes = *res.Summary.Disputes
	}
	if res.Summary.Unverifiable != nil {
		rep.Unverifiable = *res.Summary.Unverifiable
	}
	switch {
	case rep.Disputes > 0:
		rep.Verdict, rep.Reason = VerdictInconsistent, fmt.Sprintf("%d answers are not what the benchmark's extraction reads in their responses", rep.Disputes)
	case res.Status == verify.Review:
		rep.Verdict, rep.Reason = VerdictInconclusive, fmt.Sprintf("%d responses were stored truncated and cannot be re-read", rep.Unverifiable)
	default:
		rep.Verdict, rep.Reason = VerdictConsistent, "every answer is what the benchmark's extraction reads in its response, and every verdict follows from its answer"
	}
	if cfg.Candidate == nil || rep.Verdict != VerdictConsistent {
		return rep, nil
	}
	// Re-ask a sample: a model at temperature 0 should mostly repeat itself;
	// a low agreement means the responses may not be this model's.
	policy, err := extract.Lookup(b.Entry.Extraction)
	if err != nil {
		return rep, err
	}
	byID := map[string]*submission.MCQRow{}
	for i := range rows {
		byID[rows[i].ID] = &rows[i]
	}
	agree, asked := 0, 0
	for _, qi := range order {
		if asked >= cfg.Sample || overBudget(cfg, &rep) {
			break
		}
		it := &b.Items[qi]
		row := byID[it.ID]
		if row == nil || row.FinishReason == "error" {
			continue
		}
		rep.Sample = append(rep.Sample, it.ID)
		resp, err := cfg.Candidate.Complete(ctx, llm.Request{Model: cfg.CandidateModel, Messages: generate.MCQMessages(generate.PromptForm(b.Entry), it),
			Temperature: new(0.0), Kind: llm.CallCandidate, QuestionID: it.ID})
		rep.Calls += llm.Attempts(resp, err)
		if resp.CostUSD != nil {
			rep.SpendUSD += *resp.CostUSD
		}
		qc := QuestionCheck{ID: it.ID, Submitted: row.Answer}
		if err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			qc.Fault, qc.Err = "the candidate call failed: "+llm.Public(err), err
			if errors.Is(err, llm.ErrAccount) {
				// Every further call would fail: the re-asking stops,
				// and the letters' check stands alone.
				rep.Questions = append(rep.Questions, qc)
				rep.Reason += "; the re-asking stopped: the candidate's account was refused (" + llm.Public(err) + ")"
				return rep, nil
			}
		} else {
			asked++
			qc.ReAsked = policy.Extract(resp.Content).Letter
			if qc.ReAsked == row.Answer {
				agree++
			}
		}
		rep.Questions = append(rep.Questions, qc)
	}
	if asked > 0 {
		a := float64(agree) / float64(asked)
		rep.Agreement = &a
		if a < 0.8 {
			rep.Verdict = VerdictInconclusive
			rep.Reason = fmt.Sprintf("re-asked at temperature 0, the candidate gave the submitted letter on only %d of %d questions; a maintainer should look at how the responses were produced", agree, asked)
		} else {
			rep.Reason += fmt.Sprintf("; re-asked, the candidate repeated %d of %d answers", agree, asked)
		}
	}
	return rep, nil
}
