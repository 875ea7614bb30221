package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/llm"
)

// DefaultMinAgreement is the calibration agreement (see
// Calibration.Agreement) below which a judge is not trusted with a rubric.
const DefaultMinAgreement = 0.8

// FixtureResult compares the judge's grade of one calibration fixture with
// the grade the rubric's authors expect.
type FixtureResult struct {
	QuestionID    string `json:"question_id"`
	FixtureID     string `json:"fixture_id"`
	ExpectedGate  bool   `json:"expected_gate_passed"`
	ExpectedTotal int    `json:"expected_total"`
	Scored        bool   `json:"scored"`
	// GotGate, GotTotal and Diff (GotTotal − ExpectedTotal) mean something
	// only when Scored.
	GotGate  bool     `json:"got_gate_passed"`
	GotTotal int      `json:"got_total"`
	Diff     int      `json:"diff"`
	Problems []string `json:"problems,omitempty"`
}

// Calibration is how closely a judge reproduces a rubric's calibration
// fixtures.
type Calibration struct {
	Fixtures []FixtureResult `json:"fixtures"`
	Scored   int             `json:"scored"`
	Unscored int             `json:"unscored"`
	// GateAgreement is the share of all fixtures whose gate decision the
	// judge matched, and WithinOne the share whose total it matched within
	// ±1 point. Both count an unscored fixture as a miss: a judge that
	// cannot grade a fixture has not agreed with it.
	GateAgreement float64 `json:"gate_agreement"`
	WithinOne     float64 `json:"within_one"`
	// MeanAbsDiff is the mean of |Diff| over the scored fixtures, 0 when
	// none was scored.
	MeanAbsDiff float64 `json:"mean_abs_diff"`
	Usage       Usage   `json:"usage"`
}

// Agreement is the figure a judge must reach to be used with a rubric: the
// share of fixtures graded within ±1 point of the expected total. One point
// of slack admits the honest disagreement of two careful graders on one
// component; a wrong gate decision moves a total by at least the gate's
// points, so it falls outside. With no fixtures it is 0: a judge that was
// not checked has not agreed with anything.
func (c Calibration) Agreement() float64 { return c.WithinOne }

// Calibrate grades every calibration fixture of every question of r and
// compares the grades with the expected ones. A fixture whose call fails
// for good (llm.ErrPermanent) is unscored, with the reason; any other
// failed call (an account error such as llm.ErrAccount, retries
// exhausted, ctx done) stops the calibration with the error, which then
// holds the fixtures graded so far.
func (j *Judge) Calibrate(ctx context.Context, r *benchmark.Rubric) (Calibration, error) {
	var c Calibration
	var gateOK, within, absSum int
	for qi := range r.Questions {
		q := &r.Questions[qi]
		for _, f := range q.Calibration {
			res, err := j.Grade(ctx, r, q, f.Response)
			c.Usage.merge(res.Usage)
			if err != nil && !errors.Is(err, llm.ErrPermanent) {
				// The endpoint or the account failed, or ctx is done:
				// every further fixture would fail too. Grades so far
				// are cached, so a run after the fix resumes here.
				c.summarise(gateOK, within, absSum)
				return c, err
			}
			fr := FixtureResult{QuestionID: q.ID, FixtureID: f.ID, ExpectedGate: f.GatePassed, ExpectedTotal: f.Total, Scored: res.Scored, Problems: res.Problems}
			if err != nil {
				// This fixture's call cannot succeed (a content filter, a
				// parameter the model refuses): it is unscored, and the
				// others are still graded.
				fr.Scored, fr.Problems = false, []string{"the judge call failed: " + err.Error()}
				res.Scored = false
			}
			if res.Scored {
				c.Scored++
				fr.GotGate, fr.GotTotal = res.Verdict.GatePassed, res.Total()
				fr.Diff = fr.GotTotal - fr.ExpectedTotal
				if fr.GotGate == fr.ExpectedGate {
					gateOK++
				}
				if abs(fr.Diff) <= 1 {
					within++
				}
				absSum += abs(fr.Diff)
			} else {
				c.Unscored++
			}
			c.Fixtures = append(c.Fixtures, fr)
		}
	}
	c.summarise(gateOK, within, absSum)
	return c, nil
}

func (c *Calibration) summarise(gateOK, within, absSum int) {
	if n := len(c.Fixtures); n > 0 {
		c.GateAgreement = float64(gateOK) / float64(n)
		c.WithinOne = float64(within) / float64(n)
	}
	if c.Scored > 0 {
		c.MeanAbsDiff = float64(absSum) / float64(c.Scored)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// CalibrationFormats lists the output formats of RenderCalibration.
var CalibrationFormats = []string{"text", "json"}

// RenderCalibration writes a calibration in one of CalibrationFormats: as
// text, a line per fixture and a summary that names the judge model, the
// benchmark's key and the agreement needed; as JSON, the calibration
// itself.
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
	fmt.Fprintf(&t, "judge %s on %s: gate agreement %.0f%%, within ±1 point %.0f%% (need %.0f%%), mean |diff| %.2f, %d unscored; %d calls\n",
		model, key, 100*cal.GateAgreement, 100*cal.WithinOne, 100*minAgreement, cal.MeanAbsDiff, cal.Unscored, cal.Usage.Calls)
	_, err := io.WriteString(w, t.String())
	return err
}
