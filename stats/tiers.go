package stats

import (
	"math"
)

// Separation says which models, sorted best first, a paired test tells
// apart.
type Separation struct {
	// Tier is each model's tier, from 1. A tier starts at its leader, the
	// best model not yet placed, and holds the models after it up to the
	// first one significantly worse than the leader, which leads the next
	// tier: no model in a tier is shown worse than its leader. Tiers are
	// contiguous in the order given.
	Tier []int
	// TierP is the Holm-adjusted p-value of the comparison that placed
	// each model: with its tier's leader (at least alpha), or, for the
	// leader of a tier after the first, with the previous tier's leader
	// (below alpha). It is NaN for the first model.
	TierP []float64
	// Better counts, for each model, the models before it that are
	// significantly better, Holm-corrected over its comparisons with all
	// of them: its rank is at least Better+1.
	Better []int
}

// Separate compares n models sorted best first. p(i, j), for i < j, is
// the two-sided p-value of the paired test between models i and j; each
// family of comparisons (a leader's with the models after it, a model's
// with those before it) is Holm-corrected and a difference is significant
// when its adjusted p-value is below alpha. A NaN p-value never separates
// models. Each p(i, j) is asked for once.
func Separate(n int, p func(i, j int) float64, alpha float64) Separation {
	s := Separation{Tier: make([]int, n), TierP: make([]float64, n), Better: make([]int, n)}
	if n == 0 {
		return s
	}
	// below[j][i] = p(i, j) for i < j.
	below := make([][]float64, n)
	for j := range below {
		below[j] = make([]float64, j)
		for i := range below[j] {
			below[j][i] = p(i, j)
		}
	}
	s.TierP[0] = math.NaN()
	for leader, tier := 0, 1; leader < n; tier++ {
		s.Tier[leader] = tier
		family := make([]float64, n-leader-1)
		for k := range family {
			family[k] = below[leader+1+k][leader]
		}
		adj := Holm(family)
		next := n
		for k, q := range adj {
			j := leader + 1 + k
			s.TierP[j] = q
			if q < alpha {
				next = j
				break
			}
			s.Tier[j] = tier
		}
		leader = next
	}
	for j := 1; j < n; j++ {
		for _, q := range Holm(below[j]) {
			if q < alpha {
				s.Better[j]++
			}
		}
	}
	return s
}
