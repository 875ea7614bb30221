// Package stats computes the statistics of a leaderboard: an interval for
// each model's score, the range of ranks it could hold, and the paired tests
// that decide which models can be told apart.
//
// It does no I/O, and every random choice is drawn from a seed the caller
// gives, so that a published leaderboard can be regenerated to the last digit.
package stats

import (
	"math"
)

// zScore returns the two-sided standard normal quantile for confidence level
// conf: 1.959963984540054 for 0.95.
func zScore(conf float64) float64 {
	return math.Sqrt2 * math.Erfinv(conf)
}

// Wilson returns the Wilson score interval for k successes in n trials at
// confidence level conf (0.95 uses z = 1.959963984540054). Unlike the normal
// approximation it stays inside [0, 1] and is not degenerate at k = 0 or
// k = n, which matters for small benchmarks and near-perfect models.
//
// With no trials nothing is known, so n = 0 gives (0, 1). Invalid arguments
// (k < 0, k > n, conf outside (0, 1)) give (NaN, NaN), as math functions do.
func Wilson(k, n int, conf float64) (lo, hi float64) {
	if k < 0 || n < 0 || k > n || !(conf > 0 && conf < 1) {
		return math.NaN(), math.NaN()
	}
	if n == 0 {
		return 0, 1
	}
	z := zScore(conf)
	kf, nf, z2 := float64(k), float64(n), z*z
	center := (kf + z2/2) / (nf + z2)
	half := z / (nf + z2) * math.Sqrt(kf*(nf-kf)/nf+z2/4)
	lo, hi = max(0, center-half), min(1, center+half)
	// The closed form gives exact bounds at the ends; rounding must not move
	// them off 0 or 1.
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

// mix64 scrambles x (the splitmix64 finalizer) so that consecutive stream
// numbers give unrelated PCG states.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
