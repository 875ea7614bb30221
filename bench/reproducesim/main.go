// Command reproducesim measures `benchgate reproduce` on multiple-choice
// benchmarks by simulation with real model behaviour (internal/reprosim):
// FormationEval's published letters of each model, a stand-in endpoint
// that gives a model's letter or, at a rate ε, another one, and the
// shipped decision loop (reproduce.RunMCQ) with the default rule. It
// prints, as markdown tables, how often honest submissions (ε 0–10%, and
// with the served model drifted by the tolerance), fabricated ones (every
// answer the key) and copied ones (a stronger model's answers under the
// weaker model's name) are called inconsistent, within how many calls,
// and the detection curve by gap against the fixed-size test of the same
// statistic at the same worst-case false-alarm rate (see
// docs/PERFORMANCE.md).
//
//	go run ./bench/reproducesim [-trials 4000] [-seed 1] [-questions ../shared/fixtures/formationeval/responses_3_models.csv]
//
// The same flags always print the same figures.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/benchgate/benchgate/internal/reprosim"
	"github.com/benchgate/benchgate/internal/spotsim"
	"github.com/benchgate/benchgate/reproduce"
)

func main() {
	trials := flag.Int("trials", 4000, "simulated checks per row")
	seed := flag.Uint64("seed", 1, "seed of the simulation")
	file := flag.String("questions", "../shared/fixtures/formationeval/responses_3_models.csv", "FormationEval per-question results (eval/results/questions.csv, or a cut of it)")
	flag.Parse()
	if flag.NArg() > 0 || *trials <= 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/reproducesim [-trials N] [-seed N] [-questions FILE]")
		os.Exit(2)
	}
	f, err := os.Open(*file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "reproducesim: %v\n(the letters come from FormationEval's eval/results/questions.csv, or ../shared/fixtures/formationeval/responses_3_models.csv)\n", err)
		os.Exit(1)
	}
	d, err := reprosim.Read(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := run(d, *trials, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "reproducesim:", err)
		os.Exit(1)
	}
	if err := runRubric(*trials, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "reproducesim:", err)
		os.Exit(1)
	}
}

func run(d *reprosim.Data, trials int, seed uint64) error {
	r := reproduce.DefaultRule()
	within := []int{25, 50, 100, 150}
	fmt.Printf("%d checks per row, seed %d, rule: tolerance %.0f points, alpha %g, at most %d calls, a look every %d, spend %g\n\n",
		trials, seed, 100*r.Tolerance, r.Alpha, r.MaxCalls, r.Every, r.Spend)
	fmt.Println("| case | model (accuracy) | ε | inconsistent | by 50 calls | by 100 calls | consistent | mean calls |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	row := func(c reprosim.Case, model string, base []string) error {
		res, err := d.Simulate(r, c, trials, seed, within)
		if err != nil {
			return err
		}
		pc := func(k int) string { return fmt.Sprintf("%.2f%%", 100*float64(k)/float64(res.Trials)) }
		fmt.Printf("| %s | %s (%.1f%%) | %.0f%% | %s | %s | %s | %s | %.1f |\n", c.Name, model, 100*d.Accuracy(base), 100*c.Eps,
			pc(res.Inconsistent), pc(res.DetectedBy[1]), pc(res.DetectedBy[2]), pc(res.Consistent), float64(res.Calls)/float64(res.Trials))
		return nil
	}
	for m, name := range d.Models {
		base := d.Letters[m]
		for _, eps := range []float64{0, 0.05, 0.10} {
			honest := reprosim.Case{Name: "honest", Eps: eps,
				Claimed: func(rng *rand.Rand) []string { return reprosim.Draw(rng, base, eps) },
				Served:  func(*rand.Rand) []string { return base }}
			if err := row(honest, name, base); err != nil {
				return err
			}
			drifted := honest
			drifted.Name = fmt.Sprintf("honest, served model %.0f points weaker", 100*r.Tolerance)
			drifted.Served = func(rng *rand.Rand) []string { return d.Weaken(rng, base, r.Tolerance) }
			if err := row(drifted, name, base); err != nil {
				return err
			}
			fab := reprosim.Case{Name: "fabricated (the key)", Eps: eps,
				Claimed: func(*rand.Rand) []string { return d.Key },
				Served:  func(*rand.Rand) []string { return base }}
			if err := row(fab, name, base); err != nil {
				return err
			}
		}
	}
	for s := range d.Models {
		for w := range d.Models {
			strong, weak := d.Letters[s], d.Letters[w]
			if d.Accuracy(strong) <= d.Accuracy(weak) {
				continue
			}
			for _, eps := range []float64{0, 0.05, 0.10} {
				c := reprosim.Case{Name: fmt.Sprintf("copied from %s (+%.1f points)", d.Models[s], 100*(d.Accuracy(strong)-d.Accuracy(weak))), Eps: eps,
					Claimed: func(rng *rand.Rand) []string { return reprosim.Draw(rng, strong, eps) },
					Served:  func(*rand.Rand) []string { return weak }}
				if err := row(c, d.Models[w], weak); err != nil {
					return err
				}
			}
		}
	}

	// The detection curve: the weakest model, copies stronger by a gap.
	weak, strong := 0, 0
	for m := range d.Models {
		if d.Accuracy(d.Letters[m]) < d.Accuracy(d.Letters[weak]) {
			weak = m
		}
		if d.Accuracy(d.Letters[m]) > d.Accuracy(d.Letters[strong]) {
			strong = m
		}
	}
	fmt.Printf("\nDetection by gap: answers %s does not give, from a model stronger by the gap (%s's real answers on a random share of the questions, and past its lead, the key on a random share of the rest), ε 5%%; the sequential test's detection within n calls against the fixed-size test of n questions at the same worst-case false-alarm rate.\n\n",
		d.Models[weak], d.Models[strong])
	fmt.Println("| gap | seq. ≤25 | seq. ≤50 | seq. ≤100 | seq. ≤150 | mean calls | fixed 25 | fixed 50 | fixed 100 | fixed 150 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, gap := range []float64{0.05, 0.08, 0.10, 0.12, 0.15, 0.20} {
		const eps = 0.05
		c := reprosim.Case{Eps: eps,
			Claimed: func(rng *rand.Rand) []string {
				s, err := d.Stronger(rng, d.Letters[weak], d.Letters[strong], gap)
				if err != nil {
					panic(err)
				}
				return reprosim.Draw(rng, s, eps)
			},
			Served: func(*rand.Rand) []string { return d.Letters[weak] }}
		res, err := d.Simulate(r, c, trials, seed, within)
		if err != nil {
			return err
		}
		pc := func(k int) string { return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(res.Trials)) }
		fmt.Printf("| %.0f points | %s | %s | %s | %s | %.1f | %s | %s | %s | %s |\n", 100*gap,
			pc(res.DetectedBy[0]), pc(res.DetectedBy[1]), pc(res.DetectedBy[2]), pc(res.DetectedBy[3]), float64(res.Calls)/float64(res.Trials),
			pc(res.FixedPower[0]), pc(res.FixedPower[1]), pc(res.FixedPower[2]), pc(res.FixedPower[3]))
	}
	return nil
}

// runRubric prints the rubric table: a synthetic 50-question rubric, its
// answers written by a simulated model (internal/reprosim.RubricModel)
// and graded by a judge stand-in (internal/spotsim's judges with one
// judge for the submission and the check), honest files and files
// written by a model stronger by 1.5 points a question.
func runRubric(trials int, seed uint64) error {
	r := reproduce.RubricRule()
	r.MaxN = min(r.MaxN, reproduce.DefaultMaxCalls/2)
	fmt.Printf("\nRubric: 50 questions, %d checks per row, rule: the spot-check's tests (tolerance %.2f points a question, alpha %g) on claimed − reproduced, at most %d questions (two calls each).\n\n", trials, r.Tolerance, r.Alpha, r.MaxN)
	fmt.Println("| judge | file | mean claimed − reproduced | inconsistent | consistent | inconclusive | mean calls |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, jc := range spotsim.JudgeCases() {
		if jc.Submitter != jc.Checker || jc.CallFail > 0 {
			continue // the drifted judges and failed calls are the spot-check's tables
		}
		for _, lift := range []float64{0, 1.5, 2.5} {
			res, err := reprosim.SimulateRubric(r, jc.Checker, lift, 50, trials, seed)
			if err != nil {
				return err
			}
			file := "honest"
			if lift > 0 {
				file = fmt.Sprintf("model stronger by %.1f points of worth", lift)
			}
			fmt.Printf("| %s | %s | %+.2f | %.2f%% | %.2f%% | %.2f%% | %.1f |\n", jc.Name, file, res.MeanGap, 100*res.Inconsistent, 100*res.Consistent, 100*res.Inconclusive, res.MeanCalls)
		}
	}
	return nil
}
