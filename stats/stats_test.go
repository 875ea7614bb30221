package stats

import (
	"math"
	"testing"
)

func TestZScore(t *testing.T) {
	for _, tc := range []struct{ conf, z float64 }{
		{0.95, 1.959963984540054},
		{0.99, 2.5758293035489004},
		{0.90, 1.6448536269514722},
		{0.6826894921370859, 1}, // P(|Z| < 1)
	} {
		if got := zScore(tc.conf); math.Abs(got-tc.z) > 1e-13 {
			t.Errorf("zScore(%v) = %.16g, want %.16g", tc.conf, got, tc.z)
		}
	}
}

func TestWilsonReference(t *testing.T) {
	// Reference values from the closed form evaluated independently, to 6
	// decimals.
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{424, 505, 0.805052, 0.869028},
		{400, 500, 0.762711, 0.832715},
		{0, 10, 0, 0.277533},
		{10, 10, 0.722467, 1},
		{1, 2, 0.094531, 0.905469},
		{5, 20, 0.111862, 0.468701},
		{999, 1000, 0.994357, 0.999823},
	} {
		lo, hi := Wilson(tc.k, tc.n, 0.95)
		if math.Abs(lo-tc.lo) > 1e-6 || math.Abs(hi-tc.hi) > 1e-6 {
			t.Errorf("Wilson(%d, %d, 0.95) = [%.6f, %.6f], want [%.6f, %.6f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}

// TestWilsonRoots checks the defining property instead of a formula: the
// Wilson bounds are the proportions p at which the observed proportion lies
// exactly z standard errors from p, (k/n − p)² = z²·p(1−p)/n.
func TestWilsonRoots(t *testing.T) {
	for _, conf := range []float64{0.5, 0.9, 0.95, 0.99} {
		z := zScore(conf)
		for _, n := range []int{1, 2, 7, 50, 505, 7440, 1 << 40} {
			for _, k := range []int{0, 1, n / 3, n / 2, n - 1, n} {
				lo, hi := Wilson(k, n, conf)
				phat := float64(k) / float64(n)
				if !(0 <= lo && lo <= phat && phat <= hi && hi <= 1) {
					t.Fatalf("Wilson(%d, %d, %v) = [%v, %v]: not around %v inside [0, 1]", k, n, conf, lo, hi, phat)
				}
				for _, p := range []float64{lo, hi} {
					lhs := (phat - p) * (phat - p)
					rhs := z * z * p * (1 - p) / float64(n)
					if math.Abs(lhs-rhs) > 1e-12*max(1, lhs) {
						t.Errorf("Wilson(%d, %d, %v): bound %v gives %v, want %v", k, n, conf, p, lhs, rhs)
					}
				}
			}
		}
	}
}

func TestWilsonEdges(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		k, n   int
		conf   float64
		lo, hi float64
	}{
		{"no trials", 0, 0, 0.95, 0, 1},
		{"none right", 0, 7, 0.95, 0, 0.354330},
		{"all right", 7, 7, 0.95, 0.645670, 1},
		{"k above n", 8, 7, 0.95, nan, nan},
		{"negative k", -1, 7, 0.95, nan, nan},
		{"negative n", 0, -1, 0.95, nan, nan},
		{"conf 0", 3, 7, 0, nan, nan},
		{"conf 1", 3, 7, 1, nan, nan},
		{"conf NaN", 3, 7, nan, nan, nan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := Wilson(tc.k, tc.n, tc.conf)
			if !near(lo, tc.lo, 1e-6) || !near(hi, tc.hi, 1e-6) {
				t.Errorf("Wilson(%d, %d, %v) = [%v, %v], want [%v, %v]", tc.k, tc.n, tc.conf, lo, hi, tc.lo, tc.hi)
			}
		})
	}
}

// near reports whether got is within tol of want, NaN matching NaN.
func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol
}
