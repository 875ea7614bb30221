package judge

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/llm"
)

// fixtureJudge is a fake judge that finds the fixture being graded and
// returns its expected verdict, passed through edit.
func fixtureJudge(t *testing.T, r *benchmark.Rubric, edit func(q *benchmark.RubricQuestion, gate bool, awards []int) (bool, []int)) *fake {
	return &fake{reply: func(n int, req llm.Request) (llm.Response, error) {
		answer := fenced(t, req)[0]
		for qi := range r.Questions {
			q := &r.Questions[qi]
			if q.ID != req.QuestionID {
				continue
			}
			for _, f := range q.Calibration {
				if f.Response != answer {
					continue
				}
				awards := make([]int, len(q.Components))
				for i, c := range q.Components {
					for _, a := range f.Awards {
						if a.ID == c.ID {
							awards[i] = a.Awarded
						}
					}
				}
				gate := f.GatePassed
				if edit != nil {
					gate, awards = edit(q, gate, awards)
				}
				return llm.Response{Content: verdictJSON(q, gate, awards...), FinishReason: "stop"}, nil
			}
		}
		t.Errorf("call for an answer that is no fixture of %s: %q", req.QuestionID, answer)
		return llm.Response{}, errors.New("unknown fixture")
	}}
}

// plusTwo is a lenient judge: two points more than expected on every
// fixture, spread over the components that have room (the gate component
// first when the gate failed, which it then passes).
func plusTwo(q *benchmark.RubricQuestion, gate bool, awards []int) (bool, []int) {
	extra := 2
	for i, c := range q.Components {
		if !gate && c.ID != q.Gate.ComponentID {
			continue
		}
		room := min(extra, c.Points-awards[i])
		awards[i] += room
		extra -= room
	}
	if !gate {
		gate = true
		for i, c := range q.Components {
			room := min(extra, c.Points-awards[i])
			awards[i] += room
			extra -= room
		}
	}
	return gate, awards
}

func loadFixtureRubric(t *testing.T) *benchmark.Rubric {
	p := fixtures.Path(t, "groundtruth", "Yudnamutana_QA_grading_key.json")
	b, fs := benchmark.Load(os.DirFS(filepath.Dir(p)), benchmark.Entry{Key: "y", File: filepath.Base(p), Kind: benchmark.KindRubric, JudgeModel: "j"})
	if b == nil {
		t.Fatalf("fixture rubric does not load: %v", fs)
	}
	return b.Rubric
}

func TestCalibrateFixtureRubric(t *testing.T) {
	r := loadFixtureRubric(t)
	n, tens := 0, 0
	for _, q := range r.Questions {
		for _, f := range q.Calibration {
			n++
			if f.Total+2 > r.TotalPoints {
				tens++ // a lenient judge cannot go above the maximum
			}
		}
	}
	if n == 0 {
		t.Fatal("the fixture rubric has no calibration fixtures")
	}

	t.Run("faithful judge", func(t *testing.T) {
		f := fixtureJudge(t, r, nil)
		c, err := (&Judge{LLM: f, Model: "j"}).Calibrate(context.Background(), r, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Fixtures) != n || c.Scored != n || c.Unscored != 0 || f.calls() != n || c.Usage.Calls != n {
			t.Fatalf("%d fixtures, %d scored, %d unscored, %d calls; want %d each and none unscored", len(c.Fixtures), c.Scored, c.Unscored, f.calls(), n)
		}
		if c.Agreement() != 1 || c.GateAgreement != 1 || c.WithinOne != 1 || c.MeanAbsDiff != 0 {
			t.Errorf("calibration = %+v, want perfect agreement", c)
		}
		for _, fr := range c.Fixtures {
			if fr.Diff != 0 || fr.GotGate != fr.ExpectedGate || fr.GotTotal != fr.ExpectedTotal {
				t.Errorf("fixture %s: %+v", fr.FixtureID, fr)
			}
		}
	})

	t.Run("lenient judge", func(t *testing.T) {
		c, err := (&Judge{LLM: fixtureJudge(t, r, plusTwo), Model: "j"}).Calibrate(context.Background(), r, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if c.Scored != n {
			t.Fatalf("the lenient verdicts must all pass Check: %d of %d scored: %+v", c.Scored, n, c.Fixtures)
		}
		// Only the fixtures already near the maximum stay within one point.
		if want := float64(tens) / float64(n); c.Agreement() != want {
			t.Errorf("agreement = %v, want %v", c.Agreement(), want)
		}
		if c.Agreement() >= DefaultMinAgreement {
			t.Errorf("agreement %v passes the default minimum %v", c.Agreement(), DefaultMinAgreement)
		}
		for _, fr := range c.Fixtures {
			if want := min(fr.ExpectedTotal+2, r.TotalPoints) - fr.ExpectedTotal; fr.Diff != want {
				t.Errorf("fixture %s: diff %d, want %d", fr.FixtureID, fr.Diff, want)
			}
		}
		if c.GateAgreement >= 1 || c.MeanAbsDiff <= 1 {
			t.Errorf("gate agreement %v, mean |diff| %v; the lenient judge passes failed gates and is off by 2", c.GateAgreement, c.MeanAbsDiff)
		}
	})
}

// Calibration figures on a small rubric: an unscored fixture counts as a
// miss, and the mean difference covers only scored fixtures.
func TestCalibrateFigures(t *testing.T) {
	r := testRubric()
	q := &r.Questions[0]
	q.Calibration = []benchmark.Fixture{
		{ID: "F1", Response: "fail", GatePassed: false, Total: 0},
		{ID: "F2", Response: "pass", GatePassed: true, Total: 7},
		{ID: "F3", Response: "great", GatePassed: true, Total: 10},
		{ID: "F4", Response: "garbled", GatePassed: true, Total: 4},
	}
	f := &fake{reply: func(n int, req llm.Request) (llm.Response, error) {
		switch fenced(t, req)[0] {
		case "fail":
			return llm.Response{Content: verdictJSON(q, false)}, nil // exact
		case "pass":
			return llm.Response{Content: verdictJSON(q, true, 4, 4)}, nil // 8: within one
		case "great":
			return llm.Response{Content: verdictJSON(q, true, 4, 3)}, nil // 7: off by 3
		}
		return llm.Response{Content: "no idea"}, nil // never scored
	}}
	c, err := (&Judge{LLM: f, Model: "m"}).Calibrate(context.Background(), r, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Scored != 3 || c.Unscored != 1 || c.Usage.Calls != 3+4 {
		t.Fatalf("scored %d, unscored %d, calls %d", c.Scored, c.Unscored, c.Usage.Calls)
	}
	if c.GateAgreement != 0.75 || c.WithinOne != 0.5 || c.Agreement() != 0.5 || c.MeanAbsDiff != 4.0/3 {
		t.Errorf("calibration = gate %v, within %v, mad %v; want 0.75, 0.5, 4/3", c.GateAgreement, c.WithinOne, c.MeanAbsDiff)
	}
	if fr := c.Fixtures[3]; fr.Scored || len(fr.Problems) == 0 {
		t.Errorf("unscored fixture = %+v", fr)
	}

	// No fixtures: nothing agreed.
	empty := testRubric()
	c, err = (&Judge{LLM: script(t), Model: "m"}).Calibrate(context.Background(), empty, 1, 1)
	if err != nil || c.Agreement() != 0 || len(c.Fixtures) != 0 {
		t.Errorf("empty calibration = %+v, %v", c, err)
	}
}

func TestRenderCalibration(t *testing.T) {
	cal := Calibration{
		Fixtures: []FixtureResult{
			{QuestionID: "Q1", FixtureID: "Q1-F1", ExpectedGate: true, ExpectedTotal: 7, Scored: true, GotGate: true, GotTotal: 8, Diff: 1},
			{QuestionID: "Q1", FixtureID: "Q1-F2", ExpectedGate: false, ExpectedTotal: 0, Scored: false},
		},
		Runs: 1, Scored: 1, Unscored: 1, GateAgreement: 0.5, WithinOne: 0.5, MeanAbsDiff: 1, Usage: Usage{Calls: 3},
		Disagreements: benchmark.Disagreements{ModeratePoints: 4, BigPoints: 8},
	}
	var b strings.Builder
	if err := RenderCalibration(&b, "text", cal, "openai/gpt-5.5", "basin-analysis", 0.8); err != nil {
		t.Fatal(err)
	}
	want := "question fixture    gate exp/got   total exp/got  diff\n" +
		"Q1       Q1-F1      true/true      7/8            +1\n" +
		"Q1       Q1-F2      unscored       0/–            –\n" +
		"judge openai/gpt-5.5 on basin-analysis: gate agreement 50%, within ±1 point 50% (need 80%), mean |diff| 1.00, 1 unscored; 3 calls\n" +
		"large disagreements with the expected totals: 0 of the 1 scored gradings by 4+ points, 0 by 8+\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	var got Calibration
	if err := RenderCalibration(&b, "json", cal, "j", "k", 0.8); err != nil || json.Unmarshal([]byte(b.String()), &got) != nil || len(got.Fixtures) != 2 || got.WithinOne != 0.5 || !strings.Contains(b.String(), `"within_one": 0.5`) {
		t.Errorf("json: %v\n%s", err, b.String())
	}
	for _, f := range CalibrationFormats {
		if err := RenderCalibration(&b, f, cal, "j", "k", 0.8); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := RenderCalibration(&b, "csv", cal, "j", "k", 0.8); err == nil || err.Error() != `unknown format "csv" (want text, json)` {
		t.Errorf("csv: %v", err)
	}
}
