package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteSignFlipUpper enumerates every assignment of signs.
func bruteSignFlipUpper(v []int) float64 {
	obs := 0
	for _, x := range v {
		obs += x
	}
	n := len(v)
	hits := 0
	for mask := range 1 << n {
		s := 0
		for i, x := range v {
			if mask&(1<<i) != 0 {
				s += abs(x)
			} else {
				s -= abs(x)
			}
		}
		if s >= obs {
			hits++
		}
	}
	return float64(hits) / float64(int(1)<<n)
}

func TestSignFlipUpper(t *testing.T) {
	tests := []struct {
		v    []int
		want float64
	}{
		{nil, 1},
		{[]int{0, 0}, 1},
		{[]int{3}, 0.5},
		{[]int{-3}, 1},
		{[]int{1, 1, 1, 1}, 1.0 / 16},
		{[]int{5, -1}, 0.5},     // sums 6, 4, -4, -6: two reach 4
		{[]int{2, 2, -1}, 0.25}, // observed 3: (+2+2+1)=5, (+2+2−1)=3
	}
	for _, tt := range tests {
		if got := SignFlipUpper(tt.v); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("SignFlipUpper(%v) = %g, want %g", tt.v, got, tt.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		v := make([]int, 1+r.IntN(12))
		for i := range v {
			v[i] = r.IntN(21) - 10
		}
		if got, want := SignFlipUpper(v), bruteSignFlipUpper(v); want > 0 && math.Abs(got-want) > 1e-12 {
			t.Fatalf("SignFlipUpper(%v) = %g, enumeration gives %g", v, got, want)
		}
	}
}

// The one-sided and two-sided tests agree: for a positive sum the
// two-sided p-value is twice the one-sided, capped at 1.
func TestSignFlipUpperHalvesTwoSided(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		v := make([]int, 1+r.IntN(30))
		sum := 0
		for i := range v {
			v[i] = r.IntN(11) - 4
			sum += v[i]
		}
		if sum <= 0 {
			continue
		}
		// P(S ≥ s) + P(S ≤ −s) = 2·P(S ≥ s) by symmetry.
		if got, want := math.Min(1, 2*SignFlipUpper(v)), SignFlip(v); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%v: 2 × one-sided %g, two-sided %g", v, got, want)
		}
	}
}

func TestBinomialPMF(t *testing.T) {
	for _, tc := range []struct {
		n int
		p float64
	}{{0, 0.3}, {1, 0.5}, {10, 0.2}, {50, 0.01}, {400, 0.97}, {7, 0}, {7, 1}} {
		pmf := BinomialPMF(tc.n, tc.p)
		if len(pmf) != tc.n+1 {
			t.Fatalf("BinomialPMF(%d, %g) has %d terms", tc.n, tc.p, len(pmf))
		}
		for k := range pmf {
			lg, _ := math.Lgamma(float64(tc.n + 1))
			lk, _ := math.Lgamma(float64(k + 1))
			lnk, _ := math.Lgamma(float64(tc.n - k + 1))
			want := math.Exp(lg - lk - lnk + float64(k)*math.Log(tc.p) + float64(tc.n-k)*math.Log1p(-tc.p))
			if tc.p == 0 || tc.p == 1 {
				want = 0
				if (tc.p == 0 && k == 0) || (tc.p == 1 && k == tc.n) {
					want = 1
				}
			}
			if math.Abs(pmf[k]-want) > 1e-12*math.Max(1, want) && math.Abs(pmf[k]-want) > 1e-300 {
				t.Errorf("BinomialPMF(%d, %g)[%d] = %g, want %g", tc.n, tc.p, k, pmf[k], want)
			}
		}
	}
	if BinomialPMF(-1, 0.5) != nil || BinomialPMF(3, 1.5) != nil || BinomialPMF(3, math.NaN()) != nil {
		t.Error("invalid arguments give a distribution")
	}
}

func TestSignedRanks(t *testing.T) {
	tests := []struct {
		x    []float64
		want []int
	}{
		{nil, []int{}},
		{[]float64{3, -1, 2}, []int{6, -2, 4}},
		// |−2| and |2| tie for ranks 2 and 3: both 2.5, doubled 5.
		{[]float64{1, -2, 2, 0.5}, []int{4, -7, 7, 2}},
		{[]float64{0, 1}, []int{0, 4}}, // a zero still takes rank 1, as the ranks of all the values are counted
		{[]float64{-0.25, 0.75, -0.25}, []int{-3, 6, -3}},
	}
	for _, tt := range tests {
		if got := SignedRanks(tt.x); !slices.Equal(got, tt.want) {
			t.Errorf("SignedRanks(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
}

// The signed-rank test is exact: on values symmetric about 0, whatever
// their spreads, it rejects at level a at most a of the time.
func TestSignedRankLevel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const trials, level = 20000, 0.05
	hits := 0
	for range trials {
		x := make([]float64, 20)
		for i := range x {
			x[i] = math.Round(r.NormFloat64() * float64(1+i%5)) // heteroscedastic, with ties and zeros
		}
		if SignFlipUpper(SignedRanks(x)) <= level {
			hits++
		}
	}
	if got := float64(hits) / trials; got > level+3*math.Sqrt(level*(1-level)/trials) {
		t.Errorf("rejected %.2f%% at level %.0f%%", 100*got, 100*level)
	}
}

func TestPairMinP(t *testing.T) {
	up := func(p []float64, u int) float64 {
		s := 0.0
		for k := max(u, 0); k < len(p); k++ {
			s += p[k]
		}
		return s
	}
	// By enumeration of the joint law.
	a, b := BinomialPMF(6, 0.3), BinomialPMF(8, 0.1)
	sum := map[int]float64{}
	for i, x := range a {
		for j, y := range b {
			sum[i+2*j] += x * y
		}
	}
	upSum := func(s int) float64 {
		p := 0.0
		for k, x := range sum {
			if k >= s {
				p += x
			}
		}
		return p
	}
	stat := func(i, j int) float64 { return min(up(a, i), up(b, j), upSum(i+2*j)) }
	for _, obs := range [][2]int{{4, 0}, {0, 3}, {2, 1}, {0, 0}, {6, 8}} {
		m := stat(obs[0], obs[1])
		want := 0.0
		for i := range a {
			for j := range b {
				if stat(i, j) <= m*(1+1e-12) {
					want += a[i] * b[j]
				}
			}
		}
		if got := PairMinP(BinomialTail{6, 0.3, obs[0]}, BinomialTail{8, 0.1, obs[1]}, 2); math.Abs(got-want) > 1e-12 {
			t.Errorf("observed %v: %g, want %g", obs, got, want)
		}
	}
	// It keeps its level: on counts drawn from their laws it rejects at
	// 5% at most 5% of the time.
	r := rand.New(rand.NewPCG(9, 10))
	hits := 0
	const trials = 20000
	draw := func(n int, p float64) int {
		x := 0
		for range n {
			if r.Float64() < p {
				x++
			}
		}
		return x
	}
	for range trials {
		if PairMinP(BinomialTail{12, 0.2, draw(12, 0.2)}, BinomialTail{7, 0.1, draw(7, 0.1)}, 2) <= 0.05 {
			hits++
		}
	}
	if got := float64(hits) / trials; got > 0.05+3*math.Sqrt(0.05*0.95/trials) {
		t.Errorf("rejected %.2f%% at 5%%", 100*got)
	}
	if !math.IsNaN(PairMinP(BinomialTail{-1, 0.5, 0}, BinomialTail{1, 0.5, 0}, 2)) || !math.IsNaN(PairMinP(BinomialTail{1, 0.5, 0}, BinomialTail{1, 0.5, 0}, 0)) {
		t.Error("invalid arguments give a number")
	}
}
