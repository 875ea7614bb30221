// Command rerunsim measures benchgate's spot-check by simulation: for each
// simulated judge (internal/spotsim.JudgeCases) and each shape of
// submission (honest, inflated by a point per question uniformly, on a
// fifth of the questions, or by failed gates raised to full marks, and
// cherry-picked), how often the shipped decision loop (rerun.Run, with
// the default rule) calls it inconsistent, consistent or inconclusive,
// and its mean number of judge calls, on a rubric of -questions
// questions with and without a calibration record (see
// docs/PERFORMANCE.md).
//
//	go run ./bench/rerunsim [-trials 10000] [-questions 50] [-seed 1] [-record-runs 16] [-fixtures 3] [-judges all|NAME,...] [-drift-table]
//
// -drift-table prints instead, for drifts of the checking judge on passed
// answers and numbers of fixtures graded, how often the fixtures estimate
// the judge stricter than the tolerance (which keeps it from accusing) and
// how often an honest submission is called inconsistent.
// The same flags always print the same figures.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/spotsim"
	"github.com/benchgate/benchgate/rerun"
)

func main() {
	trials := flag.Int("trials", 10000, "simulated submissions per cell")
	questions := flag.Int("questions", 50, "questions in the rubric")
	seed := flag.Uint64("seed", 1, "seed of the simulation")
	runs := flag.Int("record-runs", 16, "runs of the judge per fixture in the calibration record (0: no record)")
	fixtures := flag.Int("fixtures", 3, "calibration fixtures per question")
	judges := flag.String("judges", "all", "judge cases to simulate, comma-separated names, or all")
	driftTable := flag.Bool("drift-table", false, "print the drift table instead")
	flag.Parse()
	if flag.NArg() > 0 || *trials <= 0 || *questions <= 0 || *runs < 0 || *fixtures < 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/rerunsim [-trials N] [-questions N] [-seed N] [-record-runs N] [-fixtures N] [-judges NAMES] [-drift-table]")
		os.Exit(2)
	}
	cases := spotsim.JudgeCases()
	if *judges != "all" {
		cases = nil
		for _, name := range strings.Split(*judges, ",") {
			c, err := spotsim.Case(strings.TrimSpace(name))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			cases = append(cases, c)
		}
	}
	r := rerun.DefaultRule()
	cfg := spotsim.Config{Rule: r, Truth: spotsim.DefaultTruth(), Trials: *trials, Questions: *questions, FixturesPerQuestion: *fixtures, RecordRuns: *runs, Seed: *seed}
	if *driftTable {
		printDriftTable(cfg)
		return
	}
	fmt.Printf("rule: tolerance %g, Delta %g, Alpha %g (shift %.3g, jumps %.3g), Beta %g, MaxN %d, %d drift fixtures (level %g each way), big jumps weigh %d\n",
		r.Tolerance, r.Delta, r.Alpha, r.Alpha*r.ShiftShare, r.Alpha*(1-r.ShiftShare), r.Beta, r.MaxN, r.DriftFixtures, r.DriftAlpha, r.BigWeight)
	fmt.Printf("%d questions, %d fixtures each, calibration record of %d runs per fixture; %d trials per cell, seed %d\n\n", *questions, *fixtures, *runs, *trials, *seed)
	fmt.Println("| Judge | Submission | Inconsistent | Consistent | Inconclusive (drift stop, drift block) | Mean calls |")
	fmt.Println("|---|---|---|---|---|---|")
	start := time.Now()
	for _, c := range cases {
		for _, s := range spotsim.Shapes {
			cfg.Judge, cfg.Shape = c, s
			res, err := spotsim.Simulate(cfg)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Printf("| %s | %s | %.2f%% | %.2f%% | %.2f%% (%.2f%%, %.2f%%) | %.1f |\n", c.Name, s,
				100*res.Inconsistent, 100*res.Consistent, 100*res.Inconclusive, 100*res.DriftStopped, 100*res.DriftBlocked, res.MeanCalls)
		}
	}
	fmt.Fprintf(os.Stderr, "%d cells in %s\n", len(cases)*len(spotsim.Shapes), time.Since(start).Round(time.Second))
}

// printDriftTable prints, for drifts on passed answers and numbers of
// fixtures graded, the share of honest checks whose fixtures estimate the
// judge stricter than the tolerance, and the share called inconsistent.
func printDriftTable(cfg spotsim.Config) {
	fmt.Printf("honest submissions, %d questions, default judge drifted on passed answers, %d trials per cell, seed %d; record of %d runs per fixture\n", cfg.Questions, cfg.Trials, cfg.Seed, cfg.RecordRuns)
	fmt.Println("estimated stricter than the tolerance (the drift seen) / called inconsistent")
	fmt.Println()
	drifts := []float64{-0.5, -0.75, -1, -2, -4}
	fmt.Print("| Fixtures graded |")
	for _, d := range drifts {
		fmt.Printf(" drift %+g |", d)
	}
	fmt.Println()
	fmt.Println("|---|" + strings.Repeat("---|", len(drifts)))
	for _, k := range []int{4, 8, 16, 32, 48, 64} {
		fmt.Printf("| %d |", k)
		for _, d := range drifts {
			c := cfg
			c.Rule.DriftFixtures = k
			c.Judge = spotsim.JudgeCase{Name: "drifted", Submitter: spotsim.DefaultNoise(), Checker: spotsim.Drifted{Base: spotsim.DefaultNoise(), Bias: d}, Drift: d}
			c.Shape = spotsim.Honest
			res, err := spotsim.Simulate(c)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Printf(" %.1f%% / %.2f%% |", 100*res.Stricter, 100*res.Inconsistent)
		}
		fmt.Println()
	}
}
