// Command rerunsim simulates the sequential spot-check of benchgate rerun
// and prints, for each simulated judge (the default one and the
// misspecified ones of rerun.JudgeScenarios) and each scenario of
// submission, how often the default rule calls it inconsistent,
// consistent or inconclusive and its mean number of judge calls, beside
// the same figures for two mixture SPRTs that know the default judge
// exactly (rerun.Baseline): the audit's, which has no tolerance, and the
// one that holds the rule's error rates, tolerance included
// (rerun.ToleranceBaseline), with the ratios of the rule's calls to each
// (see docs/PERFORMANCE.md).
//
//	go run ./bench/rerunsim [-trials 20000] [-questions 50] [-seed 1] [-tolerance 0.25] [-fixtures 6] [-jump-rate 0.05]
//
// -tolerance, -fixtures and -jump-rate replace the rule's Tolerance,
// DriftFixtures and JumpRate.
// The same flags always print the same figures.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/benchgate/benchgate/rerun"
)

func main() {
	trials := flag.Int("trials", 20000, "simulated submissions per scenario")
	questions := flag.Int("questions", 50, "questions in the benchmark")
	seed := flag.Uint64("seed", 1, "seed of the simulation")
	tolerance := flag.Float64("tolerance", -1, "the rule's tolerance in points per question (default: the rule's)")
	fixtures := flag.Int("fixtures", -1, "calibration fixtures graded before each check (default: the rule's)")
	jumpRate := flag.Float64("jump-rate", -1, "the rule's assumed rate of honest jumps each way (default: the rule's)")
	flag.Parse()
	if flag.NArg() > 0 || *trials <= 0 || *questions <= 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/rerunsim [-trials N] [-questions N] [-seed N] [-tolerance X] [-fixtures N] [-jump-rate X]")
		os.Exit(2)
	}
	r := rerun.DefaultRule()
	if *tolerance >= 0 {
		r.Tolerance = *tolerance
	}
	if *fixtures >= 0 {
		r.DriftFixtures = *fixtures
	}
	if *jumpRate >= 0 {
		r.JumpRate = *jumpRate
	}
	if err := r.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	b := rerun.DefaultBaseline()
	tb := rerun.ToleranceBaseline(r, rerun.DefaultNoiseModel(), *questions, *trials, *seed)
	lower, upper := r.Bounds()
	fmt.Printf("rule: tolerance %g, Delta %g, Sigma %g (weight %d, floor %g), Clip ±%g, Alpha %g, Beta %g (ln A %.2f, ln B %.2f), MinN %d, MaxN %d calls,\n",
		r.Tolerance, r.Delta, r.Sigma, r.SigmaWeight, r.MinSigma, r.Clip, r.Alpha, r.Beta, upper, lower, r.MinN, r.MaxN)
	fmt.Printf("      jumps of ≥ %d points on a share %g against an honest rate ≥ %g; contradictions ≥ %d and ≥ %g of the sample;\n",
		r.Jump, r.Share, r.JumpRate, r.MinContradictions, r.ContradictionShare)
	fmt.Printf("      %d fixtures, drift beyond ±%g (each clipped to ±%g); faults allowed max(%d, %g × calls)\n",
		r.DriftFixtures, r.DriftLimit, r.DriftClip, r.MinFaults, r.FaultShare)
	fmt.Printf("baseline: mixture SPRT knowing the default judge, shift +%d or +%d on a share %g, Alpha %g, Beta %g, MaxN %d\n",
		b.Shift, b.Jump, b.Share, b.Alpha, b.Beta, b.MaxN)
	fmt.Printf("tolerance baseline: the same against a judge stricter by %g, Alpha %g, Beta %.3g (the largest from %g that catches both inflations in ≥ %g%%)\n",
		tb.Tolerance, tb.Alpha, tb.Beta, r.Beta, 100*(1-r.Beta))
	fmt.Printf("%d trials per scenario, %d questions, seed %d\n\n", *trials, *questions, *seed)

	fmt.Println("| Judge | Submission | Inconsistent | Consistent | Inconclusive (drift) | Mean calls | Baseline inconsistent | Baseline calls | Ratio | Tolerance baseline inconsistent | Tolerance baseline calls | Ratio |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	type key struct {
		judge string
		sc    rerun.Scenario
	}
	res, base, tbase := map[key]rerun.SimResult{}, map[key]rerun.SimResult{}, map[key]rerun.SimResult{}
	for _, js := range rerun.JudgeScenarios() {
		for _, sc := range rerun.Scenarios {
			s := rerun.Simulate(r, js.Model, sc, *questions, *trials, *seed)
			bs := rerun.SimulateBaseline(b, js.Model, sc, *questions, *trials, *seed)
			ts := rerun.SimulateBaseline(tb, js.Model, sc, *questions, *trials, *seed)
			k := key{js.Name, sc}
			res[k], base[k], tbase[k] = s, bs, ts
			fmt.Printf("| %s | %s | %.2f%% | %.2f%% | %.2f%% (%.2f%%) | %.1f | %.2f%% | %.1f | %.2f | %.2f%% | %.1f | %.2f |\n",
				js.Name, sc, 100*s.Inconsistent, 100*s.Consistent, 100*s.Inconclusive, 100*s.Drifted, s.MeanCalls,
				100*bs.Inconsistent, bs.MeanCalls, s.MeanCalls/bs.MeanCalls,
				100*ts.Inconsistent, ts.MeanCalls, s.MeanCalls/ts.MeanCalls)
		}
	}

	d := rerun.JudgeScenarios()[0].Name
	hon, uni, fif := res[key{d, rerun.Honest}], res[key{d, rerun.InflatedUniform}], res[key{d, rerun.InflatedFifth}]
	bh, bu, bf := base[key{d, rerun.Honest}], base[key{d, rerun.InflatedUniform}], base[key{d, rerun.InflatedFifth}]
	th, tu, tf := tbase[key{d, rerun.Honest}], tbase[key{d, rerun.InflatedUniform}], tbase[key{d, rerun.InflatedFifth}]
	mean := (hon.MeanCalls + uni.MeanCalls + fif.MeanCalls) / 3
	bmean := (bh.MeanCalls + bu.MeanCalls + bf.MeanCalls) / 3
	tmean := (th.MeanCalls + tu.MeanCalls + tf.MeanCalls) / 3
	fmt.Println()
	target("honest flagged inconsistent ≤ 1%", fmt.Sprintf("%.2f%%", 100*hon.Inconsistent), hon.Inconsistent <= 0.01)
	target("inflated +1 uniform detected ≥ 95%", fmt.Sprintf("%.2f%%", 100*uni.Inconsistent), uni.Inconsistent >= 0.95)
	target("inflated +5 on a fifth detected ≥ 95%", fmt.Sprintf("%.2f%%", 100*fif.Inconsistent), fif.Inconsistent >= 0.95)
	target("mean calls ≤ 1.5 × the baseline's", fmt.Sprintf("%.1f / %.1f = %.2f", mean, bmean, mean/bmean), mean <= 1.5*bmean)
	target("mean calls ≤ 1.5 × the tolerance baseline's", fmt.Sprintf("%.1f / %.1f = %.2f", mean, tmean, mean/tmean), mean <= 1.5*tmean)
	fmt.Printf("%-50s honest %.2f, uniform %.2f, concentrated %.2f\n", "each scenario's calls over the tolerance baseline's",
		hon.MeanCalls/th.MeanCalls, uni.MeanCalls/tu.MeanCalls, fif.MeanCalls/tf.MeanCalls)
	// What the tolerance and the fixtures cost by themselves: the
	// tolerance baseline knows the judge, so nothing does better.
	fmt.Printf("%-50s %.1f / %.1f = %.2f (with the %d fixtures: %.2f)\n", "the tolerance baseline against the baseline", tmean, bmean, tmean/bmean,
		r.DriftFixtures, (tmean+float64(r.DriftFixtures))/bmean)
	for _, js := range rerun.JudgeScenarios()[1:] {
		h, th := res[key{js.Name, rerun.Honest}], tbase[key{js.Name, rerun.Honest}]
		target("honest flagged ≤ 1%: "+js.Name, fmt.Sprintf("%.2f%% (tolerance baseline %.2f%%)", 100*h.Inconsistent, 100*th.Inconsistent), h.Inconsistent <= 0.01)
	}
}

func target(name, got string, met bool) {
	verdict := "met"
	if !met {
		verdict = "MISSED"
	}
	fmt.Printf("%-50s %-34s %s\n", name, got, verdict)
}
