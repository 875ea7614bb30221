package stats

import (
	"cmp"
	"slices"
)

// Holm adjusts p-values for multiple comparisons by Holm's step-down method:
// the i-th smallest of m p-values (from 0) is multiplied by m−i, and the
// results are made non-decreasing in that order and capped at 1. Rejecting
// where the adjusted value is below alpha keeps the chance of any false
// rejection below alpha, for any dependence between the tests, with more
// power than Bonferroni. The result is in the order of p; a NaN in p makes
// every adjusted value NaN.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	adj := make([]float64, m)
	floor := 0.0
	for r, i := range order {
		floor = max(floor, min(1, float64(m-r)*p[i]))
		adj[i] = floor
	}
	return adj
}

// Tiers groups models sorted best first into tiers of models that cannot be
// told apart. adjacentP[i] is the adjusted p-value of the test between
// sorted models i and i+1; a new tier starts only where it is below alpha,
// so a NaN p-value never separates models. It returns the tier of each of
// the len(adjacentP)+1 models, in sorted order, numbered from 1.
func Tiers(adjacentP []float64, alpha float64) []int {
	tiers := make([]int, len(adjacentP)+1)
	tiers[0] = 1
	for i, p := range adjacentP {
		tiers[i+1] = tiers[i]
		if p < alpha {
			tiers[i+1]++
		}
	}
	return tiers
}
