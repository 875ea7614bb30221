// Command intervalsim measures by simulation how often the intervals of a
// rubric mean cover the true mean, for benchmarks of a few sizes: the
// percentile bootstrap benchgate used before, and the Student t interval
// of stats.MeanInterval it uses now, with every answer scored, with a
// share of them unscored and counted as 0 (the conservative score that
// ranks), and over the scored answers only (see docs/PERFORMANCE.md).
//
//	go run ./bench/intervalsim [-trials 20000] [-resamples 2000] [-unscored 0.05] [-seed 1]
//
// A simulated model answers each question with a score drawn from one of
// two distributions on 0..10: a strong model (a tenth of its answers fail
// the gate and score 0, the rest are worth 4 to 10, mean 6.9) and a weak
// one (half fail, mean 3.1), skewed both ways. The true mean is that of
// the distribution, over every answer as if all were scored. The same
// flags always print the same figures.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/benchgate/benchgate/stats"
)

// model is a distribution of one answer's score.
type model struct {
	name string
	p    [11]float64
}

func (m model) mean() float64 {
	s := 0.0
	for k, p := range m.p {
		s += float64(k) * p
	}
	return s
}

func (m model) draw(rng *rand.Rand) int {
	u := rng.Float64()
	for k, p := range m.p {
		if u < p {
			return k
		}
		u -= p
	}
	return 10
}

var models = []model{
	{"strong (mean 6.9)", [11]float64{0: 0.10, 4: 0.036, 5: 0.072, 6: 0.144, 7: 0.198, 8: 0.198, 9: 0.162, 10: 0.09}},
	{"weak (mean 3.1)", [11]float64{0: 0.50, 3: 0.05, 4: 0.08, 5: 0.10, 6: 0.10, 7: 0.08, 8: 0.05, 9: 0.03, 10: 0.01}},
}

func main() {
	trials := flag.Int("trials", 20000, "simulated benchmarks per size and model")
	resamples := flag.Int("resamples", 2000, "bootstrap resamples per percentile interval")
	unscored := flag.Float64("unscored", 0.05, "share of answers left unscored in the last two columns")
	seed := flag.Uint64("seed", 1, "seed of the simulation")
	flag.Parse()
	if flag.NArg() > 0 || *trials <= 0 || *resamples < 100 || !(*unscored >= 0 && *unscored < 1) {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/intervalsim [-trials N] [-resamples N] [-unscored P] [-seed N]")
		os.Exit(2)
	}
	const conf = 0.95
	fmt.Printf("%d trials per row, %d bootstrap resamples, %.0f%% unscored in the last two columns, seed %d; nominal %.0f%%\n\n",
		*trials, *resamples, 100**unscored, *seed, 100*conf)
	fmt.Println("| Questions | Model | Percentile bootstrap | t interval | t, unscored as 0 | t over scored answers |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, n := range []int{5, 20, 30, 50, 505} {
		for mi, m := range models {
			rng := rand.New(rand.NewPCG(*seed, uint64(n)<<8|uint64(mi)))
			mu := m.mean()
			var boot, t, zero, scored int
			x := make([]int, n)
			means := make([]float64, *resamples)
			for range *trials {
				for i := range x {
					x[i] = m.draw(rng)
				}
				// The percentile bootstrap of the mean, as stats.Bootstrap
				// computes it: the tail order statistics of the resampled
				// means.
				for r := range means {
					s := 0
					for range n {
						s += x[rng.IntN(n)]
					}
					means[r] = float64(s) / float64(n)
				}
				slices.Sort(means)
				k := int(float64(*resamples) * (1 - conf) / 2)
				if means[k] <= mu && mu <= means[*resamples-1-k] {
					boot++
				}
				if lo, hi := stats.MeanInterval(x, 10, conf); lo <= mu && mu <= hi {
					t++
				}
				// Unscored answers, at random: counted as 0, or left out.
				withZero := make([]int, 0, n)
				var only []int
				for _, v := range x {
					if rng.Float64() < *unscored {
						withZero = append(withZero, 0)
						continue
					}
					withZero = append(withZero, v)
					only = append(only, v)
				}
				if lo, hi := stats.MeanInterval(withZero, 10, conf); lo <= mu && mu <= hi {
					zero++
				}
				if lo, hi := stats.MeanInterval(only, 10, conf); lo <= mu && mu <= hi {
					scored++
				}
			}
			f := float64(*trials) / 100
			fmt.Printf("| %d | %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", n, m.name, float64(boot)/f, float64(t)/f, float64(zero)/f, float64(scored)/f)
		}
	}
}
