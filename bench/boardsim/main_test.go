package main

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/stats"
)

// TestDifficultiesFromFixture: the three published FormationEval models
// give 505 difficulties whose sum, times three, is their published count
// of correct answers (424 + 458 + 391).
func TestDifficultiesFromFixture(t *testing.T) {
	f, err := os.Open(fixtures.Path(t, "formationeval", "responses_3_models.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, models, err := difficulties(f)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	if len(p) != 505 || models != 3 || math.Abs(3*sum-1273) > 1e-9 {
		t.Errorf("%d questions, %d models, %v correct answers", len(p), models, 3*sum)
	}
}

func TestDifficultiesRefusesOtherValues(t *testing.T) {
	if _, _, err := difficulties(strings.NewReader("question_id,a_correct\nq1,maybe\n")); err == nil {
		t.Error("a correct column other than True or False was accepted")
	}
	if _, _, err := difficulties(strings.NewReader("question_id,answer\nq1,A\n")); err == nil {
		t.Error("a file without a <model>_correct column was accepted")
	}
}

// TestFalseClaim: a separation of equal models is false, and so is one
// the wrong way round; a true one is not.
func TestFalseClaim(t *testing.T) {
	m := stats.NewMatrix(20, 1)
	right, wrong := make([]int, 20), make([]int, 20)
	for i := range right {
		right[i] = 1
	}
	m.Add(right)
	m.Add(wrong)
	f := stats.Compare(m, 0.05)
	for _, tc := range []struct {
		truth []float64
		false bool
	}{{[]float64{0.9, 0.5}, false}, {[]float64{0.7, 0.7}, true}, {[]float64{0.5, 0.9}, true}} {
		if got := falseClaim(f, tc.truth); got != tc.false {
			t.Errorf("truth %v: false claim %v, want %v", tc.truth, got, tc.false)
		}
		if got := ranksHold(f, tc.truth); got == tc.false {
			t.Errorf("truth %v: ranks hold %v", tc.truth, got)
		}
	}
}

// TestBlocks: models come in blocks of five of equal ability, the blocks
// evenly spaced, and equal abilities give exactly equal truths.
func TestBlocks(t *testing.T) {
	c := config{kind: "mcq", blocks: true, models: 12, p: []float64{0, 0.3, 0.9, 1}, clip: 0.01, alpha: 0.05}
	a := c.ability()
	want := []float64{-2, -2, -2, -2, -2, 0, 0, 0, 0, 0, 2, 2}
	for i := range a {
		if math.Abs(a[i]-want[i]) > 1e-12 {
			t.Fatalf("abilities %v, want %v", a, want)
		}
	}
	_, truth := c.board(rand.New(rand.NewPCG(1, 1)), a)
	if truth[0] != truth[4] || truth[5] != truth[9] || truth[10] != truth[11] || !(truth[0] < truth[5] && truth[5] < truth[10]) {
		t.Errorf("truths %v", truth)
	}
	r := c.run(20, 1)
	if r != c.run(20, 1) {
		t.Error("the same seed gave other figures")
	}
	if eq := (config{kind: "mcq", models: 3}).ability(); eq[0] != 0 || eq[2] != 0 {
		t.Errorf("an equal board has abilities %v", eq)
	}
}
