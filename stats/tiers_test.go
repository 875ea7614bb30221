package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pairs gives p(i, j) from a table of p-values by i and j.
func pairs(table map[[2]int]float64, def float64) func(i, j int) float64 {
	return func(i, j int) float64 {
		if p, ok := table[[2]int{i, j}]; ok {
			return p
		}
		return def
	}
}

func TestSeparate(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name       string
		n          int
		p          func(i, j int) float64
		wantTier   []int
		wantBetter []int
	}{
		{"no model", 0, pairs(nil, 1), []int{}, []int{}},
		{"one model", 1, pairs(nil, 1), []int{1}, []int{0}},
		{"none apart", 4, pairs(nil, 0.5), []int{1, 1, 1, 1}, []int{0, 0, 0, 0}},
		{"all apart", 3, pairs(nil, 0.001), []int{1, 2, 3}, []int{0, 1, 2}},
		// The leader beats everyone (0.001 · 3 < 0.05), the others are
		// near-ties: the leader is alone, the rest share tier 2.
		{"clear leader, then near-ties", 4, pairs(map[[2]int]float64{{0, 1}: 0.001, {0, 2}: 0.001, {0, 3}: 0.001}, 0.4), []int{1, 2, 2, 2}, []int{0, 1, 1, 1}},
		// Neighbours never differ (0.3), but model 3 is significantly
		// worse than the leader: chaining neighbours would put all five
		// together; a tier ends at the first model its leader beats.
		{"a chain of neighbours does not make one tier", 5, pairs(map[[2]int]float64{{0, 3}: 0.001, {0, 4}: 0.001, {1, 4}: 0.001}, 0.3), []int{1, 1, 1, 2, 2}, []int{0, 0, 0, 1, 2}},
		// Uncorrected, 0.02 would end the tier at model 2. Holm over the
		// leader's three comparisons makes it 0.06: one tier. Model 2's
		// own family (the two models above it) makes it 0.04: the leader
		// is proven better than model 2, although both share a tier.
		{"Holm within each family", 4, pairs(map[[2]int]float64{{0, 2}: 0.02, {0, 3}: 0.02}, 0.5), []int{1, 1, 1, 1}, []int{0, 0, 1, 0}},
		{"NaN never separates", 3, pairs(nil, nan), []int{1, 1, 1}, []int{0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Separate(tc.n, tc.p, 0.05)
			if !slices.Equal(s.Tier, tc.wantTier) || !slices.Equal(s.Better, tc.wantBetter) {
				t.Errorf("tiers %v, better %v; want %v and %v", s.Tier, s.Better, tc.wantTier, tc.wantBetter)
			}
		})
	}
}

// TestSeparateProperties checks on random p-values what the method
// promises: tiers contiguous from 1; within a tier, no model significantly
// worse than its leader (Holm over the leader's comparisons); each later
// tier led by the first model that is; and Better by Holm over each
// model's comparisons with those above it.
func TestSeparateProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	const alpha = 0.05
	for trial := range 500 {
		n := 1 + rng.IntN(12)
		table := map[[2]int]float64{}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				// Further apart in the order, smaller p-values, as on a
				// real board.
				table[[2]int{i, j}] = math.Min(1, rng.Float64()*math.Pow(0.3, float64(j-i)))
			}
		}
		asked := 0
		s := Separate(n, func(i, j int) float64 { asked++; return table[[2]int{i, j}] }, alpha)
		if asked != n*(n-1)/2 {
			t.Fatalf("trial %d: %d p-values asked for, want each of %d once", trial, asked, n*(n-1)/2)
		}
		if s.Tier[0] != 1 || !math.IsNaN(s.TierP[0]) {
			t.Fatalf("trial %d: first model in tier %d with p %v", trial, s.Tier[0], s.TierP[0])
		}
		leader := 0
		for j := 1; j < n; j++ {
			family := make([]float64, 0, n-leader-1)
			for k := leader + 1; k < n; k++ {
				family = append(family, table[[2]int{leader, k}])
			}
			adj := Holm(family)[j-leader-1]
			switch s.Tier[j] {
			case s.Tier[j-1]:
				if adj < alpha || s.TierP[j] != adj {
					t.Fatalf("trial %d: model %d shares tier %d with leader %d although adjusted p %v < alpha (reported %v)", trial, j, s.Tier[j], leader, adj, s.TierP[j])
				}
			case s.Tier[j-1] + 1:
				if adj >= alpha || s.TierP[j] != adj {
					t.Fatalf("trial %d: model %d leads a tier but its adjusted p against leader %d is %v (reported %v)", trial, j, leader, adj, s.TierP[j])
				}
				leader = j
			default:
				t.Fatalf("trial %d: tiers %v are not contiguous", trial, s.Tier)
			}
		}
		for j := 0; j < n; j++ {
			above := make([]float64, j)
			for i := range above {
				above[i] = table[[2]int{i, j}]
			}
			want := 0
			for _, q := range Holm(above) {
				if q < alpha {
					want++
				}
			}
			if s.Better[j] != want {
				t.Fatalf("trial %d: model %d: %d better, want %d", trial, j, s.Better[j], want)
			}
		}
	}
}
