package reprosim

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/internal/spotsim"
	"github.com/benchgate/benchgate/reproduce"
)

func load(t *testing.T) *Data {
	t.Helper()
	f, err := os.Open(fixtures.Path(t, "formationeval", "responses_3_models.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPublishedAccuracies: the letters read are FormationEval's, whose
// accuracies its leaderboard publishes.
func TestPublishedAccuracies(t *testing.T) {
	d := load(t)
	want := map[string]int{"claude-3.5-haiku": 424, "gpt-oss-120b": 458, "nemotron-3-nano-30b-a3b": 391}
	for name, correct := range want {
		m, err := d.Model(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Accuracy(d.Letters[m]) * float64(len(d.Key)); int(got+0.5) != correct {
			t.Errorf("%s: %v correct, published %d", name, got, correct)
		}
	}
}

// TestGoals: the goals on the published letters, on fewer checks
// than docs/PERFORMANCE.md's tables: honest submissions with the model's
// randomness at 10% and the served model drifted by the tolerance are
// called inconsistent at most 1% of the time, and a fabricated file for
// the weakest model is caught within 100 calls at least 95% of the time.
func TestGoals(t *testing.T) {
	d := load(t)
	r := reproduce.DefaultRule()
	weak, _ := d.Model("nemotron-3-nano-30b-a3b")
	base := d.Letters[weak]
	const trials = 600
	honest := Case{Eps: 0.10,
		Claimed: func(rng *rand.Rand) []string { return Draw(rng, base, 0.10) },
		Served:  func(rng *rand.Rand) []string { return d.Weaken(rng, base, r.Tolerance) }}
	res, err := d.Simulate(r, honest, trials, 1, []int{100})
	if err != nil {
		t.Fatal(err)
	}
	if rate := float64(res.Inconsistent) / trials; rate > 0.01 {
		t.Errorf("honest, drifted: %.2f%% inconsistent", 100*rate)
	}
	fab := Case{Eps: 0,
		Claimed: func(*rand.Rand) []string { return d.Key },
		Served:  func(*rand.Rand) []string { return base }}
	res, err = d.Simulate(r, fab, trials, 1, []int{100})
	if err != nil {
		t.Fatal(err)
	}
	if rate := float64(res.DetectedBy[0]) / trials; rate < 0.95 {
		t.Errorf("fabricated: %.2f%% caught within 100 calls", 100*rate)
	}
	if res.FixedPower[0] == 0 || res.Calls >= trials*100 {
		t.Errorf("fabricated: fixed test %d, mean calls %.1f", res.FixedPower[0], float64(res.Calls)/trials)
	}
}

// TestStronger: a model built stronger by a gap is that much stronger.
func TestStronger(t *testing.T) {
	d := load(t)
	weak, _ := d.Model("nemotron-3-nano-30b-a3b")
	strong, _ := d.Model("gpt-oss-120b")
	rng := rand.New(rand.NewPCG(1, 1))
	for _, gap := range []float64{0.05, 0.12, 0.2} {
		s, err := d.Stronger(rng, d.Letters[weak], d.Letters[strong], gap)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Accuracy(s) - d.Accuracy(d.Letters[weak]); got < gap-0.002 || got > gap+0.002 {
			t.Errorf("gap %g: built %g", gap, got)
		}
	}
	if _, err := d.Stronger(rng, d.Letters[weak], d.Letters[strong], 0.3); err == nil {
		t.Error("a gap past the key: no error")
	}
}

// TestSimulateRubric: honest rubric files are rarely called inconsistent,
// files written by a model stronger by 2.5 points of worth often.
func TestSimulateRubric(t *testing.T) {
	r := reproduce.RubricRule()
	honest, err := SimulateRubric(r, spotsim.DefaultNoise(), 0, 50, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	lifted, err := SimulateRubric(r, spotsim.DefaultNoise(), 2.5, 50, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	if honest.Inconsistent > 0.01 || lifted.Inconsistent < 0.8 || honest.MeanCalls != 100 {
		t.Errorf("honest %+v, lifted %+v", honest, lifted)
	}
}

func FuzzRead(f *testing.F) {
	f.Add("question_id,correct_answer,m_answer\nq1,A,B\n")
	f.Add("correct_answer\n")
	f.Add("a,b\n1\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Read(strings.NewReader(s))
		if err != nil {
			return
		}
		for m := range d.Models {
			if len(d.Letters[m]) != len(d.Key) {
				t.Errorf("model %d: %d letters for %d questions", m, len(d.Letters[m]), len(d.Key))
			}
		}
	})
}
