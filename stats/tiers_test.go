package stats

import (
	"math"
	"slices"
	"testing"
)

func TestHolm(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		p    []float64
		want []float64
	}{
		{"empty", nil, []float64{}},
		{"one", []float64{0.03}, []float64{0.03}},
		// Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06,
		// 0.04·1 = 0.04 raised to 0.06 to stay monotone.
		{"worked", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{"capped", []float64{0.5, 0.6}, []float64{1, 1}},
		{"ties", []float64{0.02, 0.02, 0.5}, []float64{0.06, 0.06, 0.5}},
		{"NaN", []float64{0.01, nan}, []float64{nan, nan}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Holm(tc.p)
			if len(got) != len(tc.want) {
				t.Fatalf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
			}
			for i := range got {
				if !near(got[i], tc.want[i], 1e-15) {
					t.Fatalf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
				}
			}
		})
	}
}

func TestTiers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     []float64
		alpha float64
		want  []int
	}{
		{"one model", nil, 0.05, []int{1}},
		{"all apart", []float64{0.001, 0.01}, 0.05, []int{1, 2, 3}},
		{"none apart", []float64{0.2, 0.06, 0.05}, 0.05, []int{1, 1, 1, 1}},
		{"mixed", []float64{0.01, 0.5, 0.001, 0.3}, 0.05, []int{1, 2, 2, 3, 3}},
		{"NaN joins", []float64{math.NaN(), 0.01}, 0.05, []int{1, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Tiers(tc.p, tc.alpha); !slices.Equal(got, tc.want) {
				t.Errorf("Tiers(%v, %v) = %v, want %v", tc.p, tc.alpha, got, tc.want)
			}
		})
	}
}
