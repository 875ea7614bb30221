// Package rerun spot-checks a submission's self-reported scores. For a
// rubric benchmark it first checks the benchmark's fixed judge on the
// rubric's calibration fixtures, then re-grades the answers with it (all of
// a small rubric, a sample drawn from a seed nobody can predict of a large
// one), twice, and decides with two exact tests that assume no model of
// the judge (see Rule and Run); it also looks, without a judge, for answers
// that copy the grading key. For a multiple-choice benchmark it relies on re-extracting every
// letter, and may re-ask the candidate a sample of questions.
package rerun

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/benchmark"
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
	// submission's questions with the benchmark's prompt and the
	// sampling meta.json records (temperature 0 when it records none).
	Candidate      llm.Completer
	CandidateModel string
	Sample         int // questions re-asked of the candidate; 0 means 20

	// Secret keys the sample's seed: an HMAC of the submission's scores
	// in a canonical form (see scoresDigest), so that the sample is
	// reproducible by whoever holds the secret and unpredictable to the
	// submitter. Seed, when set, is the seed itself, to replay a check
	// whose report gave it. With neither, the seed is drawn at random:
	// a sample the submitter could compute (a plain hash of the scores)
	// can be gamed by editing the scores until the inflated answers fall
	// outside it.
	Secret []byte
	Seed   *uint64

	// MaxCalls and MaxUSD bound the spot-check's model calls and spend;
	// 0 means no limit. With the judge's Prices each judge call reserves
	// its worst case before it is made (judge.Budget), so the spend never
	// goes past MaxUSD; without them the spend is checked before each
	// call, and the report warns that one call may go past it.
	MaxCalls int
	MaxUSD   float64
	// Rule is the spot-check's rule; zero means DefaultRule(). A benchmark
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
	Path      string         `json:"path"`
	RubricKey string         `json:"rubric_key"`
	Kind      benchmark.Kind `json:"kind"`
	Verdict   Verdict        `json:"verdict"`
	Reason    string         `json:"reason"`
	// Seed is the seed every random choice of the check was drawn from,
	// in hex; `benchgate rerun --seed` replays it. SeedSource says where
	// it came from (SeedSecret, SeedRandom or SeedGiven).
	Seed       string          `json:"seed"`
	SeedSource string          `json:"seed_source"`
	Sample     []string        `json:"sample"` // question ids, in the order checked
	Questions  []QuestionCheck `json:"questions"`
	Calls      int             `json:"calls"`
	SpendUSD   float64         `json:"spend_usd"`
	Warnings   []string        `json:"warnings,omitempty"`

	// Rubric kind.
	Leaks []Leak `json:"leaks,omitempty"`
	// Injections are the signs, in answers or in the judge's verdicts,
	// that an answer instructs the judge; any keeps the check from
	// consistent, since a judge that obeys agrees with any score.
	Injections []Injection `json:"injections,omitempty"`
	// Canaries are the canaries graded before a consistent verdict (see
	// CanaryCheck): a fired one keeps the check from consistent.
	Canaries []CanaryCheck `json:"canaries,omitempty"`
	// Rubric is the number of questions of the rubric, Target how many
	// the check set out to re-grade (all of them up to the rule's MaxN)
	// and Checked how many it re-graded.
	Rubric  int `json:"rubric_questions,omitempty"`
	Target  int `json:"target,omitempty"`
	Checked int `json:"checked,omitempty"`
	// MeanDiff is the mean of reported − judged over the answers
	// re-graded, and Bound its (1 − Beta) upper confidence bound with the
	// judge's estimated leniency added: a consistent verdict needs it
	// below Delta. Shift and Jumps are the two tests (see Rule).
	MeanDiff       float64    `json:"mean_diff,omitempty"`
	Bound          *float64   `json:"upper_bound,omitempty"`
	Delta          float64    `json:"delta,omitempty"`
	Shift          *ShiftTest `json:"shift_test,omitempty"`
	Jumps          *JumpTest  `json:"jump_test,omitempty"`
	Contradictions int        `json:"gate_contradictions,omitempty"`
	JudgeFaults    int        `json:"judge_faults,omitempty"` // the fixtures' and the answers'
	// OutOfBudget reports that the check stopped at Config's MaxCalls or
	// MaxUSD, or before a call whose worst case would not fit in it.
	OutOfBudget bool `json:"out_of_budget,omitempty"`
	// Tolerance is the inflation, in points per question, the tests
	// accept as the judge's drift.
	Tolerance float64 `json:"tolerance,omitempty"`
	// Fixtures are the rubric's calibration fixtures the judge graded
	// before the sample, and JudgeBias the judge's drift estimated from
	// them (see Drift): negative when it grades more strictly than the
	// reference, which DriftReference names (ReferenceRecord or
	// ReferenceExpected). It is absent when no fixture was graded.
	Fixtures       []FixtureCheck `json:"fixtures,omitempty"`
	JudgeBias      *float64       `json:"judge_bias,omitempty"`
	DriftReference string         `json:"drift_reference,omitempty"`
	// Record is the benchmark's calibration record the check used, when
	// there is one.
	Record *RecordUse `json:"calibration_record,omitempty"`

	// Multiple-choice kind.
	Disputes     int      `json:"disputes,omitempty"`
	Unverifiable int      `json:"unverifiable,omitempty"`
	Agreement    *float64 `json:"agreement,omitempty"` // of re-asked answers with the submitted letters
}

// QuestionCheck is one question re-checked.
type QuestionCheck struct {
	ID       string `json:"id"`
	Reported *int   `json:"reported,omitempty"`
	Judged   *int   `json:"judged,omitempty"`
	Diff     *int   `json:"diff,omitempty"` // reported − judged
	// Again is the judge's second grade of the answer, a run independent
	// of the first, when the check graded it twice (see Rule.Regrade).
	Again        *int  `json:"judged_again,omitempty"`
	ReportedGate *bool `json:"reported_gate,omitempty"`
	JudgedGate   *bool `json:"judged_gate,omitempty"`
	GateFlip     bool  `json:"gate_flip,omitempty"` // reported a pass the judge fails
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
	QuestionID   string `json:"question_id"`
	FixtureID    string `json:"fixture_id"`
	Expected     int    `json:"expected"`
	ExpectedGate bool   `json:"expected_gate_passed"`
	Judged       *int   `json:"judged,omitempty"`
	Diff         *int   `json:"diff,omitempty"` // judged − expected
	Cached       bool   `json:"cached,omitempty"`
	Fault        string `json:"fault,omitempty"`
	Err          error  `json:"-"`
}

// RecordUse is what a spot-check took from a calibration record: the
// reference grades of the drift check and Pairs pairs of the judge's runs
// for the jump test.
type RecordUse struct {
	File     string `json:"file"`
	Recorded string `json:"recorded"`
	Runs     int    `json:"runs"`
	Pairs    int    `json:"pairs"`
}

// The references a judge's grades of the calibration fixtures are compared
// with for drift.
const (
	ReferenceRecord   = "record"   // the judge's own grades in the benchmark's calibration record
	ReferenceExpected = "expected" // the grades the rubric's authors expect
)

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
	seed, err := chooseSeed(cfg, scoresDigest(res.RubricKey, files), &rep)
	if err != nil {
		return rep, err
	}
	switch {
	case b.Rubric != nil && files.Rubric != nil:
		return checkRubric(ctx, b, files.Rubric, seed, cfg, rep)
	case b.Rubric == nil && files.MCQ != nil:
		return checkMCQ(ctx, b, res, files.Meta, files.MCQ, SampleOrder(seed, b.Questions()), cfg, rep)
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

func checkRubric(ctx context.Context, b *benchmark.Benchmark, rows []submission.RubricRow, seed uint64, cfg Config, rep Report) (Report, error) {
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
	g := newJudgeGrader(b, rows, jud, cfg, &rep)
	rep.Leaks = FindLeaks(b.Rubric, g.answersByID())
	d := g.design(seed)
	if len(d.Fixtures) == 0 && rule.DriftFixtures > 0 {
		rep.Warnings = append(rep.Warnings, "the rubric has no calibration fixtures, so the judge could not be checked for drift before the spot-check")
	}
	out, err := Run(ctx, rule, d, g)
	if err != nil {
		return rep, err
	}
	for _, qi := range out.Skipped {
		q := &b.Rubric.Questions[qi]
		rep.Sample = append(rep.Sample, q.ID)
		rep.Questions = append(rep.Questions, QuestionCheck{ID: q.ID, Fault: "unscored in the submission: nothing to compare"})
	}
	summarize(&rep, rule, d, out)
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
	if rep.Verdict == VerdictConsistent {
		// What the answers say cannot be read for every language and
		// encoding; whether the judge follows it can be tested.
		why, err := g.runCanaries(ctx, rule, seed)
		if err != nil {
			return rep, err
		}
		if why != "" {
			rep.Verdict, rep.Reason = VerdictInconclusive, why
		}
	}
	return rep, nil
}

// summarize fills rep's figures and verdict from the outcome of Run.
func summarize(rep *Report, r Rule, d Design, out Outcome) {
	res := out.Result
	rep.Tolerance, rep.Delta = r.Tolerance, r.Delta
	rep.Rubric, rep.Target, rep.Checked = len(d.Questions), out.Target, res.N
	rep.MeanDiff, rep.OutOfBudget = res.Mean, out.OutOfBudget
	if !math.IsInf(res.Bound, 0) {
		b := res.Bound
		rep.Bound = &b
	}
	if out.DriftKnown {
		bias := res.Drift
		rep.JudgeBias = &bias
	}
	if res.N > 0 {
		shift, jump := res.Shift, res.Jump
		rep.Shift, rep.Jumps = &shift, &jump
	}
	for _, q := range rep.Questions {
		if q.GateFlip {
			rep.Contradictions++
		}
	}
	moderate, big := benchmark.JumpPoints(d.Points)
	sampled := fmt.Sprintf("%d re-graded answers", res.N)
	if rep.Target < rep.Rubric {
		sampled = fmt.Sprintf("%d answers re-graded, drawn at random by the seed from the %d the submission scored", res.N, rep.Rubric)
	}
	reference := "their expected grades"
	if rep.DriftReference == ReferenceRecord {
		reference = "the judge's own recorded grades of them"
	}
	switch {
	case res.Decision == Inconsistent:
		rep.Verdict = VerdictInconsistent
		var why []string
		if res.Shift.Rejects() {
			why = append(why, fmt.Sprintf("the reported scores exceed the judge's by %.2f points per question on average, more than an honest run of the judge drifted by up to %.2f points makes (exact signed-rank test, p = %.2g, level %.2g)", res.Mean, r.Tolerance, res.Shift.P, res.Shift.Level))
		}
		if res.Jump.Rejects() {
			j := res.Jump
			why = append(why, fmt.Sprintf("%d scores are reported %d or more points above the judge's and %d by %d to %d (%d reported gate passes the judge fails), against %d and %d the other way and %s: more than the judge's own disagreements make (exact conditional test, p = %.2g, level %.2g)", j.Up[1], big, j.Up[0], moderate, big-1, rep.Contradictions, j.Down[1], j.Down[0], controlsNote(j), j.P, j.Level))
		}
		rep.Reason = fmt.Sprintf("over %s, %s", sampled, strings.Join(why, "; and "))
	case res.Decision == Consistent:
		rep.Verdict = VerdictConsistent
		rep.Reason = fmt.Sprintf("over %s the reported scores agree with the judge's (mean difference %+.2f points): an inflation of %s per question is ruled out (%.0f%% upper bound %.2f)", sampled, res.Mean, points(r.Delta), 100*(1-r.Beta), res.Bound)
	default:
		rep.Verdict = VerdictInconclusive
		switch {
		case out.DriftSeen != 0:
			way := "more strictly"
			if out.DriftSeen > 0 {
				way = "more leniently"
			}
			rep.Reason = fmt.Sprintf("the judge has drifted: it grades the calibration fixtures %s than %s, by %+.2f points on average, beyond the tolerance of %.2f (%d fixtures, exact sign-flip test at level %.2g), so its grades cannot be compared with the submitter's run; check the judge with `benchgate calibrate` and its model and parameters against the benchmark's judge contract", way, reference, res.Drift, r.Tolerance, len(out.Fixtures)-out.FixtureFaults, r.DriftAlpha)
		case out.Stop != "":
			rep.Reason = out.Stop
		case res.Cause == CauseDrift:
			rep.Reason = fmt.Sprintf("over %s the reported scores exceed the judge's by %.2f points per question, but the judge grades the calibration fixtures %.2f points more strictly than %s, more than the tolerance of %.2f: the difference may be the judge's own, so it accuses no one; check the judge with `benchgate calibrate` and run the spot-check again", sampled, res.Mean, -res.Drift, reference, r.Tolerance)
		case res.N == 0 && out.Faults > 0:
			rep.Reason = fmt.Sprintf("the judge failed on every one of the %d answers it was asked to re-grade (see the faults); its faults are never held against the submission", out.Faults)
		case res.N == 0:
			rep.Reason = "no answer could be re-graded"
		case res.Cause == CauseBound:
			extra := ""
			if res.Drift > 0 {
				extra = fmt.Sprintf(", the judge's leniency of %.2f points on the calibration fixtures included", res.Drift)
			}
			rep.Reason = fmt.Sprintf("over %s no test shows an inflation (mean difference %+.2f points), but they cannot rule out one of %s per question: the %.0f%% upper bound is %.2f%s; a maintainer decides", sampled, res.Mean, points(r.Delta), 100*(1-r.Beta), res.Bound, extra)
		}
	}
}

// points writes an amount of points: "1 point", "0.5 points".
func points(x float64) string {
	if x == 1 {
		return "1 point"
	}
	return strconv.FormatFloat(x, 'g', 3, 64) + " points"
}

// controlsNote says what the jump test compared the jumps with besides
// the sample's own.
func controlsNote(j JumpTest) string {
	s := fmt.Sprintf("%d and %d between the judge's two runs on %d answers graded twice", j.Controls[1], j.Controls[0], j.Regraded)
	if j.Recorded > 0 {
		s = fmt.Sprintf("%d moderate between the judge's two runs on %d answers graded twice and %d big between those and %d pairs of its recorded runs on calibration fixtures", j.Controls[0], j.Regraded, j.Controls[1], j.Recorded)
	}
	return s
}

// judgeGrader is the Grader of a real spot-check: the benchmark's judge,
// within the check's budget, recording what each call gave in the report.
type judgeGrader struct {
	b        *benchmark.Benchmark
	byQ      []*submission.RubricRow // by question index; nil when absent
	answers  []string                // the text graded, by question index
	injected []bool
	fixtures []fixtureRef
	jud      *judge.Judge
	fixJud   *judge.Judge // jud, caching for the UTC day only (see dayCache)
	cfg      Config
	rep      *Report
	checked  map[int]int // question index → its row in rep.Questions
}

type fixtureRef struct{ q, f int }

func newJudgeGrader(b *benchmark.Benchmark, rows []submission.RubricRow, jud *judge.Judge, cfg Config, rep *Report) *judgeGrader {
	g := &judgeGrader{b: b, jud: jud, fixJud: jud, cfg: cfg, rep: rep, checked: map[int]int{}}
	n := len(b.Rubric.Questions)
	g.byQ, g.answers, g.injected = make([]*submission.RubricRow, n), make([]string, n), make([]bool, n)
	for i := range rows {
		if qi, ok := b.Index(rows[i].ID); ok {
			g.byQ[qi] = &rows[i]
		}
	}
	// The text graded is always the clean form of the reply as received
	// (of its reasoning text when the content holds no answer, the rubric
	// benchmarks' rule, as score and verify apply it), never a clean text
	// the submitter supplies.
	for qi, row := range g.byQ {
		if row == nil {
			continue
		}
		text, _ := submission.DefaultAnswerRule(true).Graded(row.Answer, row.Reasoning)
		g.answers[qi] = text
		if m := judge.InjectionMarkers(text); len(m) > 0 {
			rep.Injections = append(rep.Injections, Injection{QuestionID: row.ID, Source: InAnswer, Signs: m})
			g.injected[qi] = true
		}
	}
	for qi := range b.Rubric.Questions {
		for fi := range b.Rubric.Questions[qi].Calibration {
			g.fixtures = append(g.fixtures, fixtureRef{qi, fi})
		}
	}
	if jud.Cache != nil {
		now := time.Now
		if cfg.Now != nil {
			now = cfg.Now
		}
		daily := *jud
		daily.Cache = dayCache{jud.Cache, now().UTC().Format(time.DateOnly)}
		g.fixJud = &daily
	}
	return g
}

func (g *judgeGrader) answersByID() map[string]string {
	out := map[string]string{}
	for qi, row := range g.byQ {
		if row != nil {
			out[row.ID] = g.answers[qi]
		}
	}
	return out
}

// design is what Run needs to know of the submission and the rubric.
func (g *judgeGrader) design(seed uint64) Design {
	d := Design{Points: g.b.Rubric.TotalPoints, Seed: seed, Questions: make([]Question, len(g.byQ))}
	for qi, row := range g.byQ {
		if row == nil || row.Score == nil {
			continue
		}
		total, _ := row.Score.Int()
		d.Questions[qi] = Question{Scored: true, Reported: Grade{Total: int(total), Gate: row.GatePassed != nil && *row.GatePassed}}
	}
	runs := recordedRuns(g.b.Record)
	g.rep.DriftReference = ReferenceExpected
	if g.b.Record != nil {
		g.rep.DriftReference = ReferenceRecord
		g.rep.Record = &RecordUse{File: g.b.Record.File, Recorded: g.b.Record.Recorded, Runs: g.b.Record.Runs}
	}
	for _, ref := range g.fixtures {
		q := &g.b.Rubric.Questions[ref.q]
		f := &q.Calibration[ref.f]
		fx := Fixture{Expected: Grade{Total: f.Total, Gate: f.GatePassed}, Reference: float64(f.Total)}
		if totals := runs[[2]string{q.ID, f.ID}]; len(totals) > 0 {
			// The judge's own grades are the reference: drift is a change
			// of the judge, not its standing disagreement with the
			// rubric's authors. Disjoint pairs of its runs are the jump
			// test's controls.
			sum := 0
			for i, t := range totals {
				sum += t
				if i%2 == 1 {
					d.Recorded.Add(totals[i-1], t, d.Points)
				}
			}
			fx.Reference = float64(sum) / float64(len(totals))
		}
		d.Fixtures = append(d.Fixtures, fx)
	}
	if g.rep.Record != nil {
		g.rep.Record.Pairs = d.Recorded.Pairs
	}
	return d
}

// recordedRuns returns a calibration record's scored totals of each
// fixture, by question and fixture id, in the order of their runs.
func recordedRuns(r *benchmark.CalibrationRecord) map[[2]string][]int {
	out := map[[2]string][]int{}
	if r == nil {
		return out
	}
	grades := slices.Clone(r.Grades)
	slices.SortStableFunc(grades, func(a, b benchmark.RecordedGrade) int { return cmp.Compare(a.Run, b.Run) })
	for _, g := range grades {
		k := [2]string{g.QuestionID, g.FixtureID}
		out[k] = append(out[k], g.Total)
	}
	return out
}

// call grades text with jud, or stops the check when the budget cannot
// pay for it or the account is refused.
func (g *judgeGrader) call(ctx context.Context, jud *judge.Judge, q *benchmark.RubricQuestion, text, while string) (judge.Result, string, error) {
	if overBudget(g.cfg, g.rep) {
		return judge.Result{}, "", &Stop{Reason: fmt.Sprintf("the budget ran out after %d calls ($%.4f)%s", g.rep.Calls, g.rep.SpendUSD, while), OutOfBudget: true}
	}
	got, err := jud.Grade(ctx, g.b.Rubric, q, text)
	g.rep.spend(got.Usage)
	switch {
	case err == nil && !got.Scored:
		g.rep.JudgeFaults++
		return got, "the judge gave no valid verdict", errors.New("the judge gave no valid verdict")
	case err == nil, ctx.Err() != nil:
		return got, "", err
	case errors.Is(err, judge.ErrBudget):
		// Not a fault of the judge, and no evidence: nothing was graded.
		return got, "", &Stop{Reason: fmt.Sprintf("the budget ran out after %d calls ($%.4f)%s: %v", g.rep.Calls, g.rep.SpendUSD, while, err), OutOfBudget: true}
	case errors.Is(err, llm.ErrAccount):
		// No judge call can succeed until the account is fixed: stop at
		// once, without evidence either way.
		g.rep.JudgeFaults++
		return got, "the judge call failed: " + llm.Public(err), &Stop{Reason: "the judge's account was refused (" + llm.Public(err) + "); the spot-check stopped, and can be run again once the account is fixed", Err: err}
	case errors.Is(err, llm.ErrSetup):
		// Nor until the setup is: the same.
		g.rep.JudgeFaults++
		return got, "the judge call failed: " + llm.Public(err), &Stop{Reason: "the judge's endpoint refused the setup (" + llm.Public(err) + "); the spot-check stopped, and can be run again once it is fixed", Err: err}
	}
	g.rep.JudgeFaults++
	return got, "the judge call failed: " + llm.Public(err), err
}

// cause is the failed call behind a grading's error, for the log of
// whoever ran the check.
func cause(err error) error {
	if s := (*Stop)(nil); errors.As(err, &s) && s.Err != nil {
		return s.Err
	}
	return err
}

func (g *judgeGrader) GradeFixture(ctx context.Context, i int) (Grade, error) {
	ref := g.fixtures[i]
	q := &g.b.Rubric.Questions[ref.q]
	f := &q.Calibration[ref.f]
	got, fault, err := g.call(ctx, g.fixJud, q, f.Response, ", while the judge graded the calibration fixtures")
	if s := (*Stop)(nil); errors.As(err, &s) && s.OutOfBudget || ctx.Err() != nil {
		return Grade{}, err
	}
	fc := FixtureCheck{QuestionID: q.ID, FixtureID: f.ID, Expected: f.Total, ExpectedGate: f.GatePassed, Cached: got.Cached, Fault: fault}
	if err != nil {
		fc.Err = cause(err)
		g.rep.Fixtures = append(g.rep.Fixtures, fc)
		return Grade{}, err
	}
	judged := got.Total()
	diff := judged - f.Total
	fc.Judged, fc.Diff = &judged, &diff
	g.rep.Fixtures = append(g.rep.Fixtures, fc)
	return Grade{Total: judged, Gate: got.Verdict.GatePassed}, nil
}

// RegradeQuestion grades question qi a second time: a run of its own,
// cached under its run (judge.Judge.Run), never the first grade read back.
func (g *judgeGrader) RegradeQuestion(ctx context.Context, qi int) (Grade, error) {
	jud := *g.jud
	jud.Run = 2
	got, _, err := g.call(ctx, &jud, &g.b.Rubric.Questions[qi], g.answers[qi], ", while the judge graded answers a second time")
	if err != nil {
		return Grade{}, err
	}
	again := got.Total()
	if k, ok := g.checked[qi]; ok {
		g.rep.Questions[k].Again = &again
	}
	return Grade{Total: again, Gate: got.Verdict.GatePassed}, nil
}

func (g *judgeGrader) GradeQuestion(ctx context.Context, qi int) (Grade, error) {
	q := &g.b.Rubric.Questions[qi]
	row := g.byQ[qi]
	got, fault, err := g.call(ctx, g.jud, q, g.answers[qi], "")
	if s := (*Stop)(nil); errors.As(err, &s) && s.OutOfBudget || ctx.Err() != nil {
		return Grade{}, err
	}
	reported64, _ := row.Score.Int()
	reported := int(reported64)
	qc := QuestionCheck{ID: q.ID, Reported: &reported, ReportedGate: row.GatePassed, Cached: got.Cached, Injection: g.injected[qi], Fault: fault}
	g.rep.Sample = append(g.rep.Sample, q.ID)
	if err != nil {
		qc.Err = cause(err)
		g.rep.Questions = append(g.rep.Questions, qc)
		return Grade{}, err
	}
	judged := got.Total()
	gate := got.Verdict.GatePassed
	diff := reported - judged
	qc.Judged, qc.JudgedGate, qc.Diff = &judged, &gate, &diff
	qc.GateFlip = row.GatePassed != nil && *row.GatePassed && !gate
	qc.Components = componentDiffs(q, row, got.Verdict)
	if signs := judge.VerdictInjectionSigns(got.Verdict); len(signs) > 0 {
		g.rep.Injections = append(g.rep.Injections, Injection{QuestionID: q.ID, Source: InVerdict, Signs: signs})
		qc.Injection = true
	}
	g.checked[qi] = len(g.rep.Questions)
	g.rep.Questions = append(g.rep.Questions, qc)
	return Grade{Total: judged, Gate: gate}, nil
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

// reaskSampling is the sampling a multiple-choice re-ask uses: the
// candidate's own, as meta.json records it, so that a model asked as its
// submission says it was repeats itself as often as it did; temperature 0
// when meta.json records none. The text says which, for the report.
func reaskSampling(meta *submission.Meta) (temp *float64, maxTokens int, text string) {
	return ReaskSampling(meta)
}

// ReaskSampling is reaskSampling, for the checks of other packages that
// ask the candidate again (`benchgate reproduce`).
func ReaskSampling(meta *submission.Meta) (temp *float64, maxTokens int, text string) {
	if meta != nil && meta.MaxTokens != nil {
		maxTokens = *meta.MaxTokens
	}
	if meta != nil && meta.Temperature != nil {
		return meta.Temperature, maxTokens, fmt.Sprintf("at temperature %s, as meta.json records", strconv.FormatFloat(*meta.Temperature, 'g', -1, 64))
	}
	return new(0.0), maxTokens, "at temperature 0 (meta.json records none)"
}

func checkMCQ(ctx context.Context, b *benchmark.Benchmark, res verify.Result, meta *submission.Meta, rows []submission.MCQRow, order []int, cfg Config, rep Report) (Report, error) {
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
	// Re-ask a sample with the benchmark's prompt and the candidate's
	// recorded sampling: a model asked again as it was should mostly
	// repeat itself; a low agreement means the responses may not be this
	// model's.
	ra, err := NewReasker(cfg.Candidate, cfg.CandidateModel, b, meta)
	if err != nil {
		return rep, err
	}
	sampling := ra.Sampling
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
		if row == nil || submission.Unanswered(row.FinishReason) {
			continue // no answer was submitted to check
		}
		rep.Sample = append(rep.Sample, it.ID)
		got, err := ra.Ask(ctx, it)
		resp := got.Response
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
			if errors.Is(err, llm.ErrAccount) || errors.Is(err, llm.ErrSetup) {
				// Every further call would fail: the re-asking stops,
				// and the letters' check stands alone.
				rep.Questions = append(rep.Questions, qc)
				what := "account"
				if errors.Is(err, llm.ErrSetup) {
					what = "endpoint's setup"
				}
				rep.Reason += "; the re-asking stopped: the candidate's " + what + " was refused (" + llm.Public(err) + ")"
				return rep, nil
			}
		} else if why := resp.Unanswered(); why == "refusal" || why == "content_filter" {
			// No answer to compare: the candidate's fault on re-asking,
			// not a letter that disagrees.
			qc.Fault = "the candidate's reply held no answer (" + why + ")"
		} else {
			asked++
			qc.ReAsked = got.Letter
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
			rep.Reason = fmt.Sprintf("re-asked %s, the candidate gave the submitted letter on only %d of %d questions; a maintainer should look at how the responses were produced", sampling, agree, asked)
		} else {
			rep.Reason += fmt.Sprintf("; re-asked %s, the candidate repeated %d of %d answers", sampling, agree, asked)
		}
	}
	return rep, nil
}
