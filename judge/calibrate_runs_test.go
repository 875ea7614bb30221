package judge

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/llm"
)

// runsRubric is testRubric with three fixtures: a failed gate, a 7 and a
// 10.
func runsRubric() *benchmark.Rubric {
	r := testRubric()
	r.Questions[0].Calibration = []benchmark.Fixture{
		{ID: "F1", Response: "fail", GatePassed: false, Total: 0},
		{ID: "F2", Response: "pass", GatePassed: true, Total: 7},
		{ID: "F3", Response: "great", GatePassed: true, Total: 10},
	}
	return r
}

// seriesJudge answers the k-th call about an answer with the k-th reply
// of its series (the last one once the series runs out), failing with
// fail when it returns an error for the call's number overall.
func seriesJudge(t *testing.T, series map[string][]string, fail func(n int) error) *fake {
	var mu sync.Mutex
	seen := map[string]int{}
	return &fake{reply: func(n int, req llm.Request) (llm.Response, error) {
		if fail != nil {
			if err := fail(n); err != nil {
				return llm.Response{}, err
			}
		}
		answer := fenced(t, req)[0]
		mu.Lock()
		k := seen[answer]
		seen[answer]++
		mu.Unlock()
		s := series[answer]
		return llm.Response{Content: s[min(k, len(s)-1)], FinishReason: "stop"}, nil
	}}
}

// threeRuns are the grades of runsRubric's fixtures in three runs: F1
// fails its gate twice and passes with 8 (a big jump); F2 gets 7, 8, 7;
// F3 gets 10, then 6 (a moderate jump), then no valid verdict.
func threeRuns(q *benchmark.RubricQuestion) map[string][]string {
	return map[string][]string{
		"fail":  {verdictJSON(q, false), verdictJSON(q, false), verdictJSON(q, true, 4, 4)},
		"pass":  {verdictJSON(q, true, 4, 3), verdictJSON(q, true, 4, 4), verdictJSON(q, true, 4, 3)},
		"great": {verdictJSON(q, true, 4, 6), verdictJSON(q, true, 4, 2), "no idea"},
	}
}

// TestCalibrateRuns: each run grades every fixture; the first reads the
// cache as any calibration, the later ones are calls of their own, cached
// under their run, so that calibrating again costs only what was not
// graded.
func TestCalibrateRuns(t *testing.T) {
	r := runsRubric()
	f := seriesJudge(t, threeRuns(&r.Questions[0]), nil)
	store := &filecache.Memory{}
	j := &Judge{LLM: f, Model: "m", Cache: store, Retries: -1}

	// One run first, as `benchgate calibrate` without --runs.
	one, err := j.Calibrate(context.Background(), r, 1, 1)
	if err != nil || f.calls() != 3 || one.Runs != 1 || one.SelfAgreement != nil {
		t.Fatalf("one run: %d calls, %+v, %v", f.calls(), one, err)
	}
	// Three runs: run 1 is read from the cache, runs 2 and 3 are called.
	c, err := j.Calibrate(context.Background(), r, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.calls() != 3+6 || c.Usage.Calls != 6 || c.Cached != 3 {
		t.Errorf("three runs after one: %d calls in all, %d now, %d cached; want 9, 6 and 3", f.calls(), c.Usage.Calls, c.Cached)
	}
	var got []string
	for _, fr := range c.Fixtures {
		g := "–"
		if fr.Scored {
			g = fmt.Sprintf("%t %d", fr.GotGate, fr.GotTotal)
		}
		got = append(got, fmt.Sprintf("%s run %d: %s", fr.FixtureID, fr.Run, g))
		if fr.Cached != (fr.Run == 1) {
			t.Errorf("%s run %d: cached %v", fr.FixtureID, fr.Run, fr.Cached)
		}
	}
	want := []string{"F1 run 1: false 0", "F2 run 1: true 7", "F3 run 1: true 10", "F1 run 2: false 0", "F2 run 2: true 8", "F3 run 2: true 6", "F1 run 3: true 8", "F2 run 3: true 7", "F3 run 3: –"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("gradings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Diffs 0, 0, 0 | 0, +1, -4 | +8, 0, unscored.
	if c.Scored != 8 || c.Unscored != 1 || c.GateAgreement != 7.0/9 || c.WithinOne != 6.0/9 || c.MeanAbsDiff != 13.0/8 {
		t.Errorf("figures: scored %d, unscored %d, gate %v, within %v, mad %v", c.Scored, c.Unscored, c.GateAgreement, c.WithinOne, c.MeanAbsDiff)
	}
	if c.SelfAgreement == nil || *c.SelfAgreement != 1.0/3 {
		t.Errorf("self-agreement %v, want 1/3: only F2 (7, 8, 7) agrees with itself", c.SelfAgreement)
	}
	if c.Disagreements != (benchmark.Disagreements{ModeratePoints: 4, BigPoints: 8, Moderate: 2, Big: 1}) {
		t.Errorf("disagreements %+v", c.Disagreements)
	}
	if fr := c.Fixtures[8]; fr.Fault != "the judge gave no valid verdict" {
		t.Errorf("the unscored grading's fault: %q", fr.Fault)
	}
	// Again: every grade is cached but the one that gave none.
	again, err := j.Calibrate(context.Background(), r, 3, 1)
	if err != nil || again.Usage.Calls != 1 || again.Cached != 8 {
		t.Errorf("calibrating again: %d calls, %d cached, %v; want 1 and 8", again.Usage.Calls, again.Cached, err)
	}
}

// TestCalibrateResumes: a calibration stopped by an account error returns
// the gradings made so far, and one run after the fix pays for none of
// them again, in the first run or the later ones.
func TestCalibrateResumes(t *testing.T) {
	r := runsRubric()
	store := &filecache.Memory{}
	broke := seriesJudge(t, threeRuns(&r.Questions[0]), func(n int) error {
		if n == 5 {
			return fmt.Errorf("no credits: %w", llm.ErrAccount)
		}
		return nil
	})
	c, err := (&Judge{LLM: broke, Model: "m", Cache: store, Retries: -1}).Calibrate(context.Background(), r, 2, 1)
	if err == nil || !strings.Contains(err.Error(), "no credits") || len(c.Fixtures) != 4 || c.Fixtures[3].Run != 2 {
		t.Fatalf("stopped calibration: %v, %d gradings", err, len(c.Fixtures))
	}
	fixed := seriesJudge(t, threeRuns(&r.Questions[0]), nil)
	c, err = (&Judge{LLM: fixed, Model: "m", Cache: store, Retries: -1}).Calibrate(context.Background(), r, 2, 1)
	if err != nil || fixed.calls() != 2 || c.Cached != 4 || len(c.Fixtures) != 6 {
		t.Errorf("resumed: %v, %d calls, %d cached, %d gradings; want 2 calls and 4 cached of 6", err, fixed.calls(), c.Cached, len(c.Fixtures))
	}
}

// TestCalibrationRecord: a calibration's record holds every grading, the
// unscored ones with their fault, dated by the UTC day, and reads back.
func TestCalibrationRecord(t *testing.T) {
	r := runsRubric()
	temp := 0.0
	j := &Judge{LLM: seriesJudge(t, threeRuns(&r.Questions[0]), nil), Model: "m", Retries: -1, Params: benchmark.JudgeParams{Temperature: &temp}}
	c, err := j.Calibrate(context.Background(), r, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := &benchmark.Benchmark{Entry: benchmark.Entry{Key: "seals", File: "seals.json", Kind: benchmark.KindRubric, JudgeModel: "m", Judge: j.Params}, SHA256: strings.Repeat("ab", 32), Rubric: r}
	evening := time.Date(2026, 12, 2, 23, 30, 0, 0, time.FixedZone("UTC-5", -5*3600))
	rec := c.Record(b, j, evening)
	if rec.Benchmark != "seals" || rec.RubricSHA256 != b.SHA256 || rec.JudgeModel != "m" || rec.Judge.Temperature != &temp || rec.Recorded != "2026-12-03" || rec.Runs != 3 {
		t.Errorf("record header: %+v", rec)
	}
	if len(rec.Grades) != 8 || len(rec.Unscored) != 1 || rec.Unscored[0] != (benchmark.UnscoredGrade{QuestionID: "S1", FixtureID: "F3", Run: 3, Reason: "the judge gave no valid verdict"}) {
		t.Errorf("record: %d grades, unscored %+v", len(rec.Grades), rec.Unscored)
	}
	if g := rec.Grades[6]; g != (benchmark.RecordedGrade{QuestionID: "S1", FixtureID: "F1", Run: 3, GatePassed: true, Total: 8}) {
		t.Errorf("run 3's first grade: %+v", g)
	}
	data, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if back, fs := benchmark.ParseRecord("seals.calibration.json", data, b); back == nil || len(fs) != 0 {
		t.Errorf("the record does not read back: %v\n%s", fs, data)
	} else if back.Disagreements(r) != c.Disagreements {
		t.Errorf("the record's disagreements %+v, the calibration's %+v", back.Disagreements(r), c.Disagreements)
	}
}

func TestRenderCalibrationRuns(t *testing.T) {
	r := runsRubric()
	store := &filecache.Memory{}
	j := &Judge{LLM: seriesJudge(t, threeRuns(&r.Questions[0]), nil), Model: "m", Cache: store, Retries: -1}
	if _, err := j.Calibrate(context.Background(), r, 1, 1); err != nil {
		t.Fatal(err)
	}
	c, err := j.Calibrate(context.Background(), r, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := RenderCalibration(&b, "text", c, "m", "seals", 0.8); err != nil {
		t.Fatal(err)
	}
	want := "question fixture    expected  run 1  run 2  run 3\n" +
		"S1       F1         fail      fail   fail   8\n" +
		"S1       F2         7         7      8      7\n" +
		"S1       F3         10        10     6      –\n" +
		"judge m on seals, 3 runs: gate agreement 78%, within ±1 point 67% (need 80%), mean |diff| 1.62, 1 unscored; 6 calls\n" +
		"self-agreement 33%: the share of fixtures whose 3 runs all fall within ±1 point of each other\n" +
		"large disagreements with the expected totals: 2 of the 8 scored gradings by 4+ points, 1 by 8+\n" +
		"3 of the 9 gradings were read from the judge cache, made earlier with the same judge, contract and rubric\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestCalibrateWorkers: gradings made several at a time come out in the
// same order, with the same figures, as one at a time.
func TestCalibrateWorkers(t *testing.T) {
	r := runsRubric()
	grade := func(workers int) Calibration {
		t.Helper()
		j := &Judge{LLM: fixtureJudge(t, r, nil), Model: "m", Retries: -1}
		c, err := j.Calibrate(context.Background(), r, 4, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Fixtures {
			c.Fixtures[i].Cached = false
		}
		c.Usage = Usage{}
		return c
	}
	one, four := grade(1), grade(4)
	if !reflect.DeepEqual(one, four) {
		t.Errorf("one worker:\n%+v\nfour:\n%+v", one, four)
	}
	if n := len(four.Fixtures); n != 4*3 {
		t.Errorf("%d gradings, want 4 runs of 3 fixtures", n)
	}
	for i, f := range four.Fixtures {
		if want := 1 + i/3; f.Run != want {
			t.Fatalf("grading %d is of run %d, want %d: not in order", i, f.Run, want)
		}
	}
}
