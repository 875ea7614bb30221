package stats_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/benchgate/benchgate/stats"
)

// Example builds a small multiple-choice leaderboard: scores with 95%
// intervals and rank ranges from one paired bootstrap, then tiers from
// exact McNemar tests against each tier's leader, Holm-corrected, and the
// number of models proven better than each.
func Example() {
	const questions = 400
	names := []string{"alpha", "bravo", "charlie", "delta"}
	skills := []float64{0.90, 0.80, 0.79, 0.60}

	rng := rand.New(rand.NewPCG(1, 1))
	m := stats.NewMatrix(questions, 1)
	for _, skill := range skills {
		scores := make([]int, questions)
		for q := range scores {
			if rng.Float64() < skill {
				scores[q] = 1
			}
		}
		if _, err := m.Add(scores); err != nil {
			panic(err)
		}
	}

	boot := m.Bootstrap(10000, 42, 0.95)
	order := []int{0, 1, 2, 3}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case m.Mean(a) > m.Mean(b):
			return -1
		case m.Mean(a) < m.Mean(b):
			return 1
		}
		return 0
	})
	sep := stats.Separate(len(order), func(i, j int) float64 {
		return stats.McNemarExact(m.PairCounts(order[i], order[j]))
	}, 0.05)
	for k, i := range order {
		fmt.Printf("tier %d  %-8s %.3f [%.3f, %.3f]  rank %d-%d, at best %d\n",
			sep.Tier[k], names[i], m.Mean(i), boot.Lo[i], boot.Hi[i], boot.RankLo[i], boot.RankHi[i], sep.Better[k]+1)
	}
	// Output:
	// tier 1  alpha    0.895 [0.865, 0.925]  rank 1-1, at best 1
	// tier 2  bravo    0.792 [0.750, 0.833]  rank 2-3, at best 2
	// tier 2  charlie  0.775 [0.733, 0.815]  rank 2-3, at best 2
	// tier 3  delta    0.590 [0.542, 0.637]  rank 4-4, at best 4
}
