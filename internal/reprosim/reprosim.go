// Package reprosim measures the multiple-choice reproduction by
// simulation with real model behaviour: FormationEval published every
// model's letter for every question, and a stand-in endpoint answers
// question q for model M with M's published letter, or with another
// letter at a rate Eps (the model's randomness). Each simulated check runs
// the shipped decision loop, reproduce.RunMCQ.
package reprosim

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/rerun"
)

// Data is the published answers: Key[q] the correct letter, Letters[m][q]
// model Models[m]'s ("" when none was read).
type Data struct {
	Models  []string
	Key     []string
	Letters [][]string
}

// Read reads FormationEval's per-question results (eval/results/
// questions.csv, or a cut of it such as responses_3_models.csv).
func Read(r io.Reader) (*Data, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) < 2 {
		return nil, errors.New("reprosim: no questions")
	}
	head := rows[0]
	col := func(name string) int { return slices.Index(head, name) }
	key := col("correct_answer")
	if key < 0 {
		return nil, errors.New("reprosim: no correct_answer column")
	}
	d := &Data{}
	var cols []int
	for i, h := range head {
		if m, ok := strings.CutSuffix(h, "_answer"); ok && h != "correct_answer" {
			d.Models = append(d.Models, m)
			cols = append(cols, i)
		}
	}
	if len(d.Models) == 0 {
		return nil, errors.New("reprosim: no <model>_answer column")
	}
	d.Letters = make([][]string, len(d.Models))
	for li, row := range rows[1:] {
		if len(row) != len(head) {
			return nil, fmt.Errorf("reprosim: line %d has %d fields, not %d", li+2, len(row), len(head))
		}
		d.Key = append(d.Key, row[key])
		for m, c := range cols {
			d.Letters[m] = append(d.Letters[m], row[c])
		}
	}
	return d, nil
}

// Model returns the index of a model by name.
func (d *Data) Model(name string) (int, error) {
	if i := slices.Index(d.Models, name); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("reprosim: no model %q (have %s)", name, strings.Join(d.Models, ", "))
}

// Accuracy returns the share of a letter list that is correct.
func (d *Data) Accuracy(letters []string) float64 {
	n := 0
	for q, l := range letters {
		if l == d.Key[q] {
			n++
		}
	}
	return float64(n) / float64(len(letters))
}

// Draw is one run of a model whose letters are base: each letter kept
// with probability 1−eps, else replaced by one of the other three (or,
// where none was read, by any of the four), uniformly.
func Draw(rng *rand.Rand, base []string, eps float64) []string {
	out := make([]string, len(base))
	for q, l := range base {
		out[q] = l
		if rng.Float64() < eps {
			others := make([]string, 0, 4)
			for _, x := range []string{"A", "B", "C", "D"} {
				if x != l {
					others = append(others, x)
				}
			}
			out[q] = others[rng.IntN(len(others))]
		}
	}
	return out
}

// Weaken returns base with a correct letter made wrong on a random share
// of the questions, drop points of accuracy in all: the model as a
// provider may serve it later, drifted.
func (d *Data) Weaken(rng *rand.Rand, base []string, drop float64) []string {
	out := slices.Clone(base)
	var right []int
	for q, l := range base {
		if l == d.Key[q] {
			right = append(right, q)
		}
	}
	k := int(drop*float64(len(base)) + 0.5)
	rng.Shuffle(len(right), func(i, j int) { right[i], right[j] = right[j], right[i] })
	for _, q := range right[:min(k, len(right))] {
		out[q] = wrong(d.Key[q])
	}
	return out
}

func wrong(key string) string {
	if key == "A" {
		return "B"
	}
	return "A"
}

// Stronger returns a model stronger than weak by gap points of accuracy,
// made of real answers: strong's letters on a random share of the
// questions and weak's elsewhere, the share set to make the gap; past
// strong's own lead, strong's letters everywhere with its wrong ones
// replaced by the key on a random share.
func (d *Data) Stronger(rng *rand.Rand, weak, strong []string, gap float64) ([]string, error) {
	lead := d.Accuracy(strong) - d.Accuracy(weak)
	n := len(weak)
	out := slices.Clone(weak)
	perm := rng.Perm(n)
	if gap <= lead {
		// Take strong's letters question by question until the gap is made.
		want := d.Accuracy(weak) + gap
		for _, q := range perm {
			if d.Accuracy(out) >= want-0.5/float64(n) {
				break
			}
			out[q] = strong[q]
		}
		return out, nil
	}
	out = slices.Clone(strong)
	want := d.Accuracy(weak) + gap
	for _, q := range perm {
		if d.Accuracy(out) >= want-0.5/float64(n) {
			return out, nil
		}
		out[q] = d.Key[q]
	}
	return nil, fmt.Errorf("reprosim: no model is %.1f points stronger", 100*gap)
}

// Claims returns the claims of a submission whose letters are these.
func (d *Data) Claims(letters []string) []reproduce.Claim {
	out := make([]reproduce.Claim, len(letters))
	for q, l := range letters {
		out[q] = reproduce.Claim{Present: true, Letter: l, Correct: l != "" && l == d.Key[q]}
	}
	return out
}

// Case is one kind of submission checked against one served model.
type Case struct {
	Name string
	// Claimed draws the submission's letters; Served is the model as the
	// endpoint serves it at check time.
	Claimed func(rng *rand.Rand) []string
	Served  func(rng *rand.Rand) []string
	Eps     float64
}

// Result is a case's outcome over many checks.
type Result struct {
	Trials       int
	Inconsistent int
	Consistent   int
	Inconclusive int
	Calls        int   // in all
	DetectedBy   []int // DetectedBy[k]: inconsistent within Within[k] calls
	// FixedPower[k] is how often the fixed-size test of Within[k]
	// questions (same statistic, tolerance and worst-case level) rejects
	// on the first Within[k] questions of the same sample.
	FixedPower []int
}

// Simulate runs trials checks of c under rule r, seeded by seed, counting
// detections within each of within calls.
func (d *Data) Simulate(r reproduce.Rule, c Case, trials int, seed uint64, within []int) (Result, error) {
	res := Result{Trials: trials, DetectedBy: make([]int, len(within)), FixedPower: make([]int, len(within))}
	fixed := make([]float64, len(within))
	for k, n := range within {
		h, _, err := r.Test().Fixed(n).Threshold()
		if err != nil {
			return res, err
		}
		fixed[k] = h
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	for range trials {
		claimed := c.Claimed(rng)
		served := c.Served(rng)
		design := reproduce.MCQDesign{Claims: d.Claims(claimed), Key: d.Key, Model: "m", Seed: rng.Uint64()}
		// The fixed tests see the same sample: the endpoint's draws are
		// made once for every question, in advance.
		answers := Draw(rng, served, c.Eps)
		ep := &fixedEndpoint{letters: answers, model: "m"}
		out, err := reproduce.RunMCQ(context.Background(), r, design, ep)
		if err != nil {
			return res, err
		}
		switch out.Verdict {
		case reproduce.Inconsistent:
			res.Inconsistent++
			for k, n := range within {
				if len(out.Asked) <= n {
					res.DetectedBy[k]++
				}
			}
		case reproduce.Consistent:
			res.Consistent++
		default:
			res.Inconclusive++
		}
		res.Calls += len(out.Asked)
		order := rerun.SampleOrder(design.Seed, len(claimed))
		for k, n := range within {
			b, cc := 0, 0
			for _, q := range order[:min(n, len(order))] {
				cl, got := design.Claims[q].Correct, answers[q] == d.Key[q]
				switch {
				case cl && !got:
					b++
				case !cl && got:
					cc++
				}
			}
			if r.Test().Fixed(n).Rejects(fixed[k], n, b, cc) {
				res.FixedPower[k]++
			}
		}
	}
	return res, nil
}

// fixedEndpoint answers from draws made in advance.
type fixedEndpoint struct {
	letters []string
	model   string
}

func (e *fixedEndpoint) Ask(_ context.Context, qi int) (reproduce.Reply, error) {
	return reproduce.Reply{Letter: e.letters[qi], Finish: rerun.FinishAnswered, Served: e.model}, nil
}
