// Command rerunsim simulates the sequential spot-check of benchgate rerun
// and prints, for each scenario of submission, how often the default rule
// calls it consistent, inconsistent or inconclusive, the mean number of
// judge calls, and Wald's approximation of the expected number of calls
// for the same error rates (see docs/PERFORMANCE.md).
//
//	go run ./bench/rerunsim [-trials 20000] [-questions 50] [-seed 1] [-gateflip P] [-noguard]
//
// -gateflip replaces the default judge's probability of deciding a gate
// the other way on one run, to see how the rule fares with a judge that
// is noisier than the one it was tuned for. -noguard drops the rule's
// guard against concentrated inflation (MinConsistent and JumpExtra), to
// show what it buys. The same flags always print the same figures.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/benchgate/benchgate/rerun"
)

func main() {
	trials := flag.Int("trials", 20000, "simulated submissions per scenario")
	questions := flag.Int("questions", 50, "questions in the benchmark")
	seed := flag.Uint64("seed", 1, "seed of the simulation")
	gateFlip := flag.Float64("gateflip", -1, "probability that one judge run decides a gate the other way (default: the noise model's)")
	noGuard := flag.Bool("noguard", false, "drop the minimum sample for a consistent decision and its extension per jump")
	flag.Parse()
	if flag.NArg() > 0 || *trials <= 0 || *questions <= 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/rerunsim [-trials N] [-questions N] [-seed N] [-gateflip P] [-noguard]")
		os.Exit(2)
	}
	r := rerun.DefaultRule()
	if *noGuard {
		r.MinConsistent, r.JumpExtra = 0, 0
	}
	nm := rerun.DefaultNoiseModel()
	if *gateFlip >= 0 {
		nm.GateFlip = *gateFlip
	}
	if err := nm.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

	lower, upper := r.Bounds()
	fmt.Printf("rule: Delta %g, Sigma %g, Clip ±%g, Alpha %g, Beta %g (ln A %.2f, ln B %.2f), MinN %d, MaxN %d,\n",
		r.Delta, r.Sigma, r.Clip, r.Alpha, r.Beta, upper, lower, r.MinN, r.MaxN)
	fmt.Printf("      consistent from %d observations, +%d per difference ≥ %d; inconsistent at ≥ %d gate contradictions making ≥ %g of the sample\n",
		r.MinConsistent, r.JumpExtra, r.Jump, r.MinContradictions, r.ContradictionShare)
	fmt.Printf("judge: ε −2..+2 with probabilities %v, gate flipped on %g of runs, %g of answers fail the gate, worth %v\n",
		nm.Error, nm.GateFlip, nm.GateFail, nm.Worth)
	fmt.Printf("honest difference: sd %.2f unclipped, %.2f clipped to ±%g (Sigma %g)\n",
		nm.ClippedSD(math.Inf(1)), nm.ClippedSD(r.Clip), r.Clip, r.Sigma)
	fmt.Printf("%d trials per scenario, %d questions, seed %d\n\n", *trials, *questions, *seed)

	h0, h1 := rerun.WaldASN(r, nm)
	fmt.Println("| Scenario | Consistent | Inconsistent | Inconclusive | Mean calls | Mean calls when decided | Wald ASN |")
	fmt.Println("|---|---|---|---|---|---|---|")
	res := map[rerun.Scenario]rerun.SimResult{}
	for _, sc := range rerun.Scenarios {
		s := rerun.Simulate(r, nm, sc, *questions, *trials, *seed)
		res[sc] = s
		asn := "–"
		switch sc {
		case rerun.Honest:
			asn = fmt.Sprintf("%.1f (H0)", h0)
		case rerun.InflatedUniform, rerun.InflatedFifth:
			asn = fmt.Sprintf("%.1f (H1)", h1)
		}
		fmt.Printf("| %s | %.2f%% | %.2f%% | %.2f%% | %.1f | %.1f | %s |\n",
			sc, 100*s.Consistent, 100*s.Inconsistent, 100*s.Inconclusive, s.MeanCalls, s.MeanCallsDecided, asn)
	}

	hon, uni, fif := res[rerun.Honest], res[rerun.InflatedUniform], res[rerun.InflatedFifth]
	mean := (hon.MeanCalls + uni.MeanCalls + fif.MeanCalls) / 3
	fmt.Println()
	target("honest flagged inconsistent ≤ 1%", fmt.Sprintf("%.2f%%", 100*hon.Inconsistent), hon.Inconsistent <= 0.01)
	target("inflated +1 uniform detected ≥ 95%", fmt.Sprintf("%.2f%%", 100*uni.Inconsistent), uni.Inconsistent >= 0.95)
	target("inflated +5 on a fifth detected ≥ 95%", fmt.Sprintf("%.2f%%", 100*fif.Inconsistent), fif.Inconsistent >= 0.95)
	target("mean calls over honest and inflated ≤ 20", fmt.Sprintf("%.1f", mean), mean <= 20)
	worst := max(hon.MeanCalls, uni.MeanCalls, fif.MeanCalls)
	target("mean calls of each of them ≤ 20", fmt.Sprintf("at most %.1f", worst), worst <= 20)
}

func target(name, got string, met bool) {
	verdict := "met"
	if !met {
		verdict = "MISSED"
	}
	fmt.Printf("%-42s %-12s %s\n", name, got, verdict)
}
