package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/llm"
)

// DefaultMinAgreement is the calibration agreement (see
// Calibration.Agreement) below which a judge is not trusted with a rubric.
const DefaultMinAgreement = 0.8

// FixtureResult compares the judge's grade of one calibration fixture, in
// one run, with the grade the rubric's authors expect.
type FixtureResult struct {
	QuestionID    string `json:"question_id"`
	FixtureID     string `json:"fixture_id"`
	Run           int    `json:"run"` // 1 for the first
	ExpectedGate  bool   `json:"expected_gate_passed"`
	ExpectedTotal int    `json:"expected_total"`
	Scored        bool   `json:"scored"`
	// GotGate, GotTotal and Diff (GotTotal − ExpectedTotal) mean something
	// only when Scored.
	GotGate  bool     `json:"got_gate_passed"`
	GotTotal int      `json:"got_total"`
	Diff     int      `json:"diff"`
	Problems []string `json:"problems,omitempty"`
	// Fault says why an unscored grading has no grade, in words that may
	// be told to anyone, as a calibration record keeps them: the judge
	// gave no valid verdict, or its call failed (llm.Public).
	Fault string `json:"fault,omitempty"`
	// Cached reports that the grade was read from the judge cache, made
	// by an earlier calibration with the same judge and rubric.
	Cached bool `json:"cached"`
}

// Calibration is how closely a judge reproduces a rubric's calibration
// fixtures, and itself when it graded them more than once.
type Calibration struct {
	// Runs is how many times each fixture was graded, and Fixtures each
	// grading: run 1's in the rubric's order, then run 2's, and so on.
	Runs     int             `json:"runs"`
	Fixtures []FixtureResult `json:"fixtures"`
	// Scored, Unscored and Cached count gradings.
	Scored   int `json:"scored"`
	Unscored int `json:"unscored"`
	Cached   int `json:"cached"`
	// GateAgreement is the share of all gradings whose gate decision the
	// judge matched, and WithinOne the share whose total it matched within
	// ±1 point. Both count an unscored grading as a miss: a judge that
	// cannot grade a fixture has not agreed with it.
	GateAgreement float64 `json:"gate_agreement"`
	WithinOne     float64 `json:"within_one"`
	// MeanAbsDiff is the mean of |Diff| over the scored gradings, 0 when
	// none was scored.
	MeanAbsDiff float64 `json:"mean_abs_diff"`
	// SelfAgreement is the share of fixtures that every run scored within
	// ±1 point of each other: how well the judge agrees with itself. Nil
	// with one run, which measures nothing of it.
	SelfAgreement *float64 `json:"self_agreement,omitempty"`
	// Disagreements counts the scored gradings far from the expected
	// total (benchmark.CountDisagreements): the judge's large
	// disagreements, which the spot-check weighs jumps against.
	Disagreements benchmark.Disagreements `json:"large_disagreements"`
	Usage         Usage                   `json:"usage"`
}

// Agreement is the figure a judge must reach to be used with a rubric: the
// share of gradings within ±1 point of the expected total. One point of
// slack admits the honest disagreement of two careful graders on one
// component; a wrong gate decision moves a total by at least the gate's
// points, so it falls outside. With no fixtures it is 0: a judge that was
// not checked has not agreed with anything.
func (c Calibration) Agreement() float64 { return c.WithinOne }

// Calibrate grades every calibration fixture of every question of r runs
// times (at least once), workers gradings at a time (at least one), and
// compares the grades with the expected ones and, across runs, with each
// other. Run k grades as Judge.Run k: the first run reads the grades
// cached by any earlier calibration, each later run is graded afresh,
// under keys of its own. A grading whose call fails for good
// (llm.ErrPermanent) is unscored, with the reason; any other failed call
// (an account error such as llm.ErrAccount, retries exhausted, ctx done)
// stops the calibration with the error, which then holds the gradings
// that were made. Those are cached, so that a calibration run again after
// the fix pays for none of them twice. The gradings are in the same order
// however many workers made them: by run, question and fixture.
func (j *Judge) Calibrate(ctx context.Context, r *benchmark.Rubric, runs, workers int) (Calibration, error) {
	c := Calibration{Runs: max(runs, 1)}
	type job struct {
		run int
		q   *benchmark.RubricQuestion
		f   *benchmark.Fixture
	}
	var jobs []job
	for run := 1; run <= c.Runs; run++ {
		for qi := range r.Questions {
			q := &r.Questions[qi]
			for fi := range q.Calibration {
				jobs = append(jobs, job{run, q, &q.Calibration[fi]})
			}
		}
	}
	results := make([]*FixtureResult, len(jobs))
	// A failure stops the workers taking further gradings, but the calls
	// already in flight are let finish: they are paid for, and a grading
	// that arrives is cached for the next run.
	var (
		mu      sync.Mutex
		stopErr error
		stopped atomic.Bool
		next    atomic.Int64
		wg      sync.WaitGroup
	)
	for range min(max(workers, 1), max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1)) - 1; k < len(jobs); k = int(next.Add(1)) - 1 {
				if ctx.Err() != nil || stopped.Load() {
					return
				}
				jb := jobs[k]
				jr := *j
				jr.Run = jb.run
				res, err := jr.Grade(ctx, r, jb.q, jb.f.Response)
				mu.Lock()
				c.Usage.merge(res.Usage)
				mu.Unlock()
				if err != nil && !errors.Is(err, llm.ErrPermanent) {
					// The endpoint or the account failed, or ctx is done:
					// every further grading would fail too.
					mu.Lock()
					if stopErr == nil {
						stopErr = err
					}
					mu.Unlock()
					stopped.Store(true)
					return
				}
				fr := FixtureResult{QuestionID: jb.q.ID, FixtureID: jb.f.ID, Run: jb.run, ExpectedGate: jb.f.GatePassed, ExpectedTotal: jb.f.Total,
					Scored: res.Scored && err == nil, Problems: res.Problems, Cached: res.Cached}
				switch {
				case err != nil:
					// This fixture's call cannot succeed (a content
					// filter, a parameter the model refuses): it is
					// unscored, and the others are still graded.
					fr.Problems = []string{"the judge call failed: " + err.Error()}
					fr.Fault = "the judge call failed: " + llm.Public(err)
				case !res.Scored:
					fr.Fault = "the judge gave no valid verdict"
				default:
					fr.GotGate, fr.GotTotal = res.Verdict.GatePassed, res.Total()
					fr.Diff = fr.GotTotal - fr.ExpectedTotal
				}
				results[k] = &fr
			}
		}()
	}
	wg.Wait()
	for _, fr := range results {
		if fr != nil {
			c.Fixtures = append(c.Fixtures, *fr)
		}
	}
	c.summarise(r.TotalPoints)
	return c, stopErr
}

// summarise computes the figures of the gradings in c.Fixtures, on a
// rubric of totalPoints points a question.
func (c *Calibration) summarise(totalPoints int) {
	c.Scored, c.Unscored, c.Cached = 0, 0, 0
	var gateOK, within, absSum int
	var diffs []int
	type fixture struct{ q, f string }
	var order []fixture
	totals := map[fixture][]int{} // the fixture's totals, -1 for an unscored run
	for _, f := range c.Fixtures {
		k := fixture{f.QuestionID, f.FixtureID}
		if _, ok := totals[k]; !ok {
			order = append(order, k)
		}
		if f.Cached {
			c.Cached++
		}
		if !f.Scored {
			c.Unscored++
			totals[k] = append(totals[k], -1)
			continue
		}
		c.Scored++
		totals[k] = append(totals[k], f.GotTotal)
		if f.GotGate == f.ExpectedGate {
			gateOK++
		}
		if abs(f.Diff) <= 1 {
			within++
		}
		absSum += abs(f.Diff)
		diffs = append(diffs, f.Diff)
	}
	if n := len(c.Fixtures); n > 0 {
		c.GateAgreement = float64(gateOK) / float64(n)
		c.WithinOne = float64(within) / float64(n)
	}
	if c.Scored > 0 {
		c.MeanAbsDiff = float64(absSum) / float64(c.Scored)
	}
	c.Disagreements = benchmark.CountDisagreements(totalPoints, diffs)
	if c.Runs > 1 && len(order) > 0 {
		agree := 0
		for _, k := range order {
			if t := totals[k]; len(t) == c.Runs && slices.Min(t) >= 0 && slices.Max(t)-slices.Min(t) <= 1 {
				agree++
			}
		}
		share := float64(agree) / float64(len(order))
		c.SelfAgreement = &share
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Record is the calibration record of c, a calibration of benchmark b by
// judge j made on the UTC day of recorded: every grading, with the fault
// of each unscored one, for the spot-check to compare the judge with
// itself later.
func (c Calibration) Record(b *benchmark.Benchmark, j *Judge, recorded time.Time) *benchmark.CalibrationRecord {
	rec := &benchmark.CalibrationRecord{
		Benchmark: b.Entry.Key, RubricSHA256: b.SHA256, JudgeModel: j.Model, Judge: j.Params, JudgePromptSHA256: j.PromptSHA256(),
		Recorded: recorded.UTC().Format(time.DateOnly), Runs: c.Runs,
	}
	for _, f := range c.Fixtures {
		if f.Scored {
			rec.Grades = append(rec.Grades, benchmark.RecordedGrade{QuestionID: f.QuestionID, FixtureID: f.FixtureID, Run: f.Run, GatePassed: f.GotGate, Total: f.GotTotal})
		} else {
			rec.Unscored = append(rec.Unscored, benchmark.UnscoredGrade{QuestionID: f.QuestionID, FixtureID: f.FixtureID, Run: f.Run, Reason: f.Fault})
		}
	}
	return rec
}

// CalibrationFormats lists the output formats of RenderCalibration.
var CalibrationFormats = []string{"text", "json"}

// RenderCalibration writes a calibration in one of CalibrationFormats: as
// text, a line per fixture (with one run, its grade against the expected
// one; with several, its grade in each run) and a summary that names the
// judge model, the benchmark's key and the agreement needed, the judge's
// agreement with itself and its large disagreements; as JSON, the
// calibration itself.
func RenderCalibration(w io.Writer, format string, cal Calibration, model, key string, minAgreement float64) error {
	switch format {
	case "text", "":
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(cal)
	default:
		return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(CalibrationFormats, ", "))
	}
	var t strings.Builder
	runs := ""
	if cal.Runs > 1 {
		runsTable(&t, cal)
		runs = fmt.Sprintf(", %d runs", cal.Runs)
	} else {
		fmt.Fprintf(&t, "%-8s %-10s %-14s %-14s %s\n", "question", "fixture", "gate exp/got", "total exp/got", "diff")
		for _, f := range cal.Fixtures {
			got := "unscored"
			if f.Scored {
				got = fmt.Sprintf("%t/%t", f.ExpectedGate, f.GotGate)
			}
			diff, total := "–", fmt.Sprintf("%d/–", f.ExpectedTotal)
			if f.Scored {
				diff, total = fmt.Sprintf("%+d", f.Diff), fmt.Sprintf("%d/%d", f.ExpectedTotal, f.GotTotal)
			}
			fmt.Fprintf(&t, "%-8s %-10s %-14s %-14s %s\n", f.QuestionID, f.FixtureID, got, total, diff)
		}
	}
	fmt.Fprintf(&t, "judge %s on %s%s: gate agreement %.0f%%, within ±1 point %.0f%% (need %.0f%%), mean |diff| %.2f, %d unscored; %d calls\n",
		model, key, runs, 100*cal.GateAgreement, 100*cal.WithinOne, 100*minAgreement, cal.MeanAbsDiff, cal.Unscored, cal.Usage.Calls)
	if cal.SelfAgreement != nil {
		fmt.Fprintf(&t, "self-agreement %.0f%%: the share of fixtures whose %d runs all fall within ±1 point of each other\n", 100**cal.SelfAgreement, cal.Runs)
	}
	d := cal.Disagreements
	fmt.Fprintf(&t, "large disagreements with the expected totals: %d of the %d scored gradings by %d+ points, %d by %d+\n", d.Moderate, cal.Scored, d.ModeratePoints, d.Big, d.BigPoints)
	if cal.Cached > 0 {
		fmt.Fprintf(&t, "%d of the %d gradings were read from the judge cache, made earlier with the same judge, contract and rubric\n", cal.Cached, len(cal.Fixtures))
	}
	_, err := io.WriteString(w, t.String())
	return err
}

// runsTable writes a line per fixture with its expected grade and its
// grade in each run: the total, "fail" for a failed gate, "–" unscored.
func runsTable(t *strings.Builder, cal Calibration) {
	grade := func(scored, gate bool, total int) string {
		switch {
		case !scored:
			return "–"
		case !gate:
			return "fail"
		}
		return fmt.Sprint(total)
	}
	// line writes one line of columns, the last one unpadded.
	line := func(q, f, expected string, runs []string) {
		l := fmt.Sprintf("%-8s %-10s %-9s", q, f, expected)
		for _, r := range runs {
			l += fmt.Sprintf(" %-6s", r)
		}
		t.WriteString(strings.TrimRight(l, " ") + "\n")
	}
	head := make([]string, cal.Runs)
	for i := range head {
		head[i] = fmt.Sprintf("run %d", i+1)
	}
	line("question", "fixture", "expected", head)
	type fixture struct{ q, f string }
	var order []fixture
	byRun := map[fixture][]string{}
	expected := map[fixture]string{}
	for _, f := range cal.Fixtures {
		k := fixture{f.QuestionID, f.FixtureID}
		if _, ok := byRun[k]; !ok {
			order = append(order, k)
			byRun[k] = slices.Repeat([]string{"–"}, cal.Runs)
			expected[k] = grade(true, f.ExpectedGate, f.ExpectedTotal)
		}
		if f.Run >= 1 && f.Run <= cal.Runs {
			byRun[k][f.Run-1] = grade(f.Scored, f.GotGate, f.GotTotal)
		}
	}
	for _, k := range order {
		line(k.q, k.f, expected[k], byRun[k])
	}
}
