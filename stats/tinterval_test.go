package stats

import (
	"math"
	"testing"
)

// TestStudentT compares the quantiles with the printed tables' values
// (two-sided 95% and 99%) and with the closed forms for one and two
// degrees of freedom.
func TestStudentT(t *testing.T) {
	for _, tc := range []struct {
		conf float64
		df   int
		want float64
		tol  float64
	}{
		{0.95, 1, 0, 0}, // the closed form below
		{0.95, 2, 4.302652729911275, 1e-9},
		{0.95, 4, 2.776445105, 1e-8},
		{0.95, 19, 2.093024054, 1e-8},
		{0.95, 49, 2.009575237, 1e-8},
		{0.95, 504, 1.964672, 1e-5},
		{0.99, 4, 4.604094871, 1e-8},
		{0.99, 30, 2.749995654, 1e-8},
	} {
		want := tc.want
		if tc.df == 1 {
			// Cauchy: t = tan(π·conf/2).
			want, tc.tol = math.Tan(math.Pi*tc.conf/2), 1e-9
		}
		if got := StudentT(tc.conf, tc.df); math.Abs(got-want) > tc.tol*math.Max(1, want) {
			t.Errorf("StudentT(%g, %d) = %.12g, want %.12g", tc.conf, tc.df, got, want)
		}
	}
	// Two degrees of freedom: t = sqrt(2/(α(2−α)) − 2) with α = 1 − conf.
	for _, conf := range []float64{0.5, 0.8, 0.9, 0.999} {
		a := 1 - conf
		want := math.Sqrt(2/(a*(2-a)) - 2)
		if got := StudentT(conf, 2); math.Abs(got-want) > 1e-9*want {
			t.Errorf("StudentT(%g, 2) = %.12g, want %.12g", conf, got, want)
		}
	}
	// The normal limit.
	if got := StudentT(0.95, 1000000); math.Abs(got-1.959963984540054) > 1e-5 {
		t.Errorf("StudentT(0.95, 10⁶) = %v, want about 1.95996", got)
	}
	for _, bad := range []struct {
		conf float64
		df   int
	}{{0, 3}, {1, 3}, {0.95, 0}, {math.NaN(), 3}} {
		if got := StudentT(bad.conf, bad.df); !math.IsNaN(got) {
			t.Errorf("StudentT(%v, %d) = %v, want NaN", bad.conf, bad.df, got)
		}
	}
}

func TestMeanInterval(t *testing.T) {
	x := []int{6, 8, 7, 9, 5}
	lo, hi := MeanInterval(x, 10, 0.95)
	// Mean 7, s = √2.5, t(0.975, 4) = 2.7764: ±1.9633.
	half := 2.776445105 * math.Sqrt(2.5/5)
	if math.Abs(lo-(7-half)) > 1e-8 || math.Abs(hi-(7+half)) > 1e-8 {
		t.Errorf("MeanInterval(%v) = %v, %v; want 7 ∓ %v", x, lo, hi, half)
	}
	// Clipped to the scale.
	if lo, hi := MeanInterval([]int{10, 10, 10, 0}, 10, 0.95); lo != 0 || hi != 10 {
		t.Errorf("a wide interval is %v, %v; want clipped to 0, 10", lo, hi)
	}
	for _, tc := range []struct {
		name   string
		x      []int
		lo, hi float64
	}{
		{"no values", nil, 0, 10},
		{"one value", []int{4}, 4, 4},
		{"all the same", []int{3, 3, 3}, 3, 3},
	} {
		if lo, hi := MeanInterval(tc.x, 10, 0.95); lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := MeanInterval(x, 10, 1); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("conf 1: %v, %v; want NaN", lo, hi)
	}
}
