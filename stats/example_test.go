package stats_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/benchgate/benchgate/stats"
)

// Example builds a small multiple-choice leaderboard: scores with 95%
// intervals from the paired bootstrap, then one family of exact McNemar
// tests between every two models, Holm-corrected together, which gives
// each model the range of ranks it may hold (all ranges at once with 95%
// confidence) and says which could be the best.
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
	f := stats.Compare(m, 0.05)
	best, worst := f.Ranks()
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
	for _, i := range order {
		fmt.Printf("%-8s %.3f [%.3f, %.3f]  ranks %d-%d, could be best: %v\n",
			names[i], m.Mean(i), boot.Lo[i], boot.Hi[i], best[i], worst[i], best[i] == 1)
	}
	fmt.Println(len(f.Boundaries()), "boundaries between groups;", f.Separated(), "of", f.Pairs(), "pairs separated")
	// Output:
	// alpha    0.895 [0.865, 0.925]  ranks 1-1, could be best: true
	// bravo    0.792 [0.750, 0.833]  ranks 2-3, could be best: false
	// charlie  0.775 [0.733, 0.815]  ranks 2-3, could be best: false
	// delta    0.590 [0.542, 0.637]  ranks 4-4, could be best: false
	// 2 boundaries between groups; 5 of 6 pairs separated
}
