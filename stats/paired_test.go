package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigMcNemar computes min(1, 2·Σ_{i≤min(b,c)} C(n,i) / 2^n) with exact
// integers, rounding once at the end.
func bigMcNemar(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	sum, term := new(big.Int), big.NewInt(1) // term = C(n, i)
	for i := 0; i <= min(b, c); i++ {
		sum.Add(sum, term)
		term.Mul(term, big.NewInt(int64(n-i)))
		term.Quo(term, big.NewInt(int64(i+1)))
	}
	p := new(big.Float).SetPrec(256).SetInt(sum.Lsh(sum, 1))
	p.SetMantExp(p, -n)
	f, _ := p.Float64()
	return min(1, f)
}

func TestMcNemarExactSmall(t *testing.T) {
	for n := 0; n <= 80; n++ {
		for b := 0; b <= n; b++ {
			c := n - b
			got, want := McNemarExact(b, c), bigMcNemar(b, c)
			if math.Abs(got-want) > 1e-13*want {
				t.Errorf("McNemarExact(%d, %d) = %.17g, want %.17g", b, c, got, want)
			}
			if rev := McNemarExact(c, b); rev != got {
				t.Errorf("McNemarExact(%d, %d) = %v, but McNemarExact(%d, %d) = %v", b, c, got, c, b, rev)
			}
		}
	}
}

func TestMcNemarExactKnown(t *testing.T) {
	for _, tc := range []struct {
		b, c int
		p    float64
	}{
		{0, 0, 1},
		{0, 5, 0.0625},        // 2/32
		{1, 6, 0.125},         // 2·8/128
		{3, 3, 1},             // capped
		{10, 0, 0.001953125},  // 2/1024
		{2, 12, 0.0129394531}, // 2·(1+14+91)/16384
	} {
		if got := McNemarExact(tc.b, tc.c); math.Abs(got-tc.p) > 1e-10 {
			t.Errorf("McNemarExact(%d, %d) = %v, want %v", tc.b, tc.c, got, tc.p)
		}
	}
	if p := McNemarExact(-1, 3); !math.IsNaN(p) {
		t.Errorf("McNemarExact(-1, 3) = %v, want NaN", p)
	}
}

func TestMcNemarExactLarge(t *testing.T) {
	for _, tc := range []struct{ b, c int }{
		{4900, 5100}, {4800, 5200}, {4500, 5500}, {4000, 6000}, {100, 9900}, {1, 9999}, {5000, 5000}, {2970, 3030},
	} {
		got, want := McNemarExact(tc.b, tc.c), bigMcNemar(tc.b, tc.c)
		// Below the smallest float64 the p-value stays at it (see
		// TestMcNemarExactFarTail).
		want = max(want, math.SmallestNonzeroFloat64)
		if math.Abs(got-want) > 1e-11*want {
			t.Errorf("McNemarExact(%d, %d) = %.17g, want %.17g", tc.b, tc.c, got, want)
		}
	}
	// Every split of up to 10,000 discordant pairs, and far beyond, is a
	// probability, and moving one pair towards the even split never lowers it.
	for _, n := range []int{9999, 10000, 1 << 20, 1<<31 - 1, 1 << 31, 1 << 40, math.MaxInt} {
		step := max(1, n/2/997)
		prev := -1.0
		for b := 0; b <= n/2; b += step {
			p := McNemarExact(b, n-b)
			if math.IsNaN(p) || p < 0 || p > 1 {
				t.Fatalf("McNemarExact(%d, %d) = %v", b, n-b, p)
			}
			if p < prev {
				t.Fatalf("McNemarExact(%d, %d) = %v, below %v for a more uneven split", b, n-b, p, prev)
			}
			prev = p
		}
	}
}

// bruteSignFlip enumerates every sign assignment of the non-zero
// differences.
func bruteSignFlip(d []int) float64 {
	var nz []int
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
		}
	}
	obs := 0
	for _, v := range nz {
		obs += v
	}
	hits := 0
	for mask := 0; mask < 1<<len(nz); mask++ {
		s := 0
		for i, v := range nz {
			if mask>>i&1 == 1 {
				s -= v
			} else {
				s += v
			}
		}
		if abs(s) >= abs(obs) {
			hits++
		}
	}
	return float64(hits) / float64(int(1)<<len(nz))
}

func TestSignFlipExact(t *testing.T) {
	for _, d := range [][]int{
		nil,
		{0, 0, 0},
		{1},
		{-3},
		{1, 1, 1, 1, 1},
		{1, -1},
		{2, 0, -1, 3, 0, 4},
		{10, 10, 10, 10, 10, 10, 10, 10, 10, 10, -1},
	} {
		if got, want := SignFlip(d), bruteSignFlip(d); !near(got, want, 1e-14) {
			t.Errorf("SignFlip(%v) = %v, want %v", d, got, want)
		}
	}
	// All five positive: only the identity and its negation are as extreme.
	if got := SignFlip([]int{1, 1, 1, 1, 1}); got != 2.0/32 {
		t.Errorf("SignFlip(five ones) = %v, want 1/16", got)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 300 {
		d := make([]int, rng.IntN(22))
		for i := range d {
			d[i] = rng.IntN(21) - 10
		}
		if got, want := SignFlip(d), bruteSignFlip(d); !near(got, want, 1e-13) {
			t.Fatalf("SignFlip(%v) = %v, want %v", d, got, want)
		}
	}
}

// TestSignFlipLarge compares SignFlip on hundreds of differences, far
// beyond enumeration, with the distribution of the signed sum built by
// convolving ±v one difference at a time, and with McNemar's test on 0/1
// data, which it then is.
func TestSignFlipLarge(t *testing.T) {
	d := make([]int, 0, 60)
	for range 30 {
		d = append(d, 1)
	}
	for range 16 {
		d = append(d, -1)
	}
	for range 14 {
		d = append(d, 0)
	}
	if got, want := SignFlip(d), McNemarExact(30, 16); !near(got, want, 1e-12) {
		t.Errorf("SignFlip(30 up, 16 down) = %v, McNemarExact = %v", got, want)
	}
	// 400 up, 300 down: p is about 2e-4, where a sampled p-value of 10,000
	// rounds could say nothing.
	d = d[:0]
	for i := range 700 {
		d = append(d, 1-2*(i/400))
	}
	if got, want := SignFlip(d), McNemarExact(400, 300); !near(got, want, 1e-10) {
		t.Errorf("SignFlip(400 up, 300 down) = %v, McNemarExact = %v", got, want)
	}

	rng := rand.New(rand.NewPCG(3, 3))
	for _, shift := range []int{0, 1, 3} {
		d := make([]int, 200)
		for i := range d {
			d[i] = rng.IntN(7) - 3 + shift*rng.IntN(2)
		}
		dist := map[int]float64{0: 1}
		obs := 0
		for _, v := range d {
			obs += v
			if v == 0 {
				continue
			}
			next := map[int]float64{}
			for s, pr := range dist {
				next[s+v] += pr / 2
				next[s-v] += pr / 2
			}
			dist = next
		}
		want := 0.0
		for s, pr := range dist {
			if abs(s) >= abs(obs) {
				want += pr
			}
		}
		if got := SignFlip(d); !near(got, want, 1e-12) && math.Abs(got-want) > 1e-12*want {
			t.Errorf("shift %d: SignFlip = %v, want %v", shift, got, want)
		}
	}
}

// TestSignFlipNormal: past the exact computation's bound, the normal
// approximation agrees with the exact McNemar test on 0/1 data.
func TestSignFlipNormal(t *testing.T) {
	d := make([]int, 0, 20000)
	for i := range 20000 {
		d = append(d, 1-2*(i%2))
	}
	d = append(d, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
	got, want := SignFlip(d), McNemarExact(10020, 10000)
	if math.Abs(got-want) > 0.01*want {
		t.Errorf("SignFlip(10,020 up, 10,000 down) = %v, McNemarExact = %v", got, want)
	}
}

func TestMinPairedP(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64
	}{{0, 1}, {1, 1}, {3, 0.25}, {5, 0.0625}, {6, 0.03125}, {40, math.Ldexp(1, -39)}} {
		if got := MinPairedP(tc.n); got != tc.want {
			t.Errorf("MinPairedP(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	// It is what the tests reach when one model wins every question.
	for n := 1; n <= 12; n++ {
		d := make([]int, n)
		for i := range d {
			d[i] = 1 + i%3
		}
		if got := SignFlip(d); got != MinPairedP(n) {
			t.Errorf("SignFlip(%d wins) = %v, MinPairedP = %v", n, got, MinPairedP(n))
		}
		if got := McNemarExact(n, 0); !near(got, MinPairedP(n), 1e-15) {
			t.Errorf("McNemarExact(%d, 0) = %v, MinPairedP = %v", n, got, MinPairedP(n))
		}
	}
}

// bigLogMcNemar is the logarithm of bigMcNemar's exact value, kept as
// mantissa and binary exponent so that it does not underflow.
func bigLogMcNemar(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 0
	}
	sum, term := new(big.Int), big.NewInt(1)
	for i := 0; i <= min(b, c); i++ {
		sum.Add(sum, term)
		term.Mul(term, big.NewInt(int64(n-i)))
		term.Quo(term, big.NewInt(int64(i+1)))
	}
	f := new(big.Float).SetPrec(256).SetInt(sum)
	mant := new(big.Float)
	exp := f.MantExp(mant)
	m, _ := mant.Float64()
	return min(0, math.Log(m)+float64(exp+1-n)*math.Ln2)
}

// TestMcNemarExactFarTail: where the p-value is below the smallest float64
// (from 1,075 discordant pairs all one way) its logarithm is still exact,
// and McNemarExact stays positive instead of calling the split impossible.
func TestMcNemarExactFarTail(t *testing.T) {
	for _, tc := range []struct{ b, c int }{
		{0, 1074}, {0, 1075}, {0, 2000}, {3, 2000}, {40, 5000}, {0, 100000}, {1, 99999},
	} {
		got, want := LogMcNemarExact(tc.b, tc.c), bigLogMcNemar(tc.b, tc.c)
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("LogMcNemarExact(%d, %d) = %.17g, want %.17g", tc.b, tc.c, got, want)
		}
		if p := McNemarExact(tc.b, tc.c); !(p > 0) || p > math.Max(math.Exp(want), math.SmallestNonzeroFloat64)*(1+1e-12) {
			t.Errorf("McNemarExact(%d, %d) = %v, want exp(%v) and above 0", tc.b, tc.c, p, want)
		}
	}
	if got, want := LogMcNemarExact(0, 1075), -1074*math.Ln2; math.Abs(got-want) > 1e-12*-want {
		t.Errorf("LogMcNemarExact(0, 1075) = %v, want −1074·ln 2 = %v", got, want)
	}
	// The normal branch in log form, past 2^31 pairs.
	if lp := LogMcNemarExact(0, 1<<40); math.IsInf(lp, 0) || lp > -1e11 {
		t.Errorf("LogMcNemarExact(0, 2^40) = %v, want a finite value near −2^39", lp)
	}
	for _, tc := range []struct{ b, c int }{{-1, 3}, {3, -1}} {
		if lp := LogMcNemarExact(tc.b, tc.c); !math.IsNaN(lp) {
			t.Errorf("LogMcNemarExact(%d, %d) = %v, want NaN", tc.b, tc.c, lp)
		}
	}
}

// TestSignFlipFarTail: hundreds of differences of one sign give a p-value
// that underflows in every term, and is still positive.
func TestSignFlipFarTail(t *testing.T) {
	d := make([]int, 1500)
	for i := range d {
		d[i] = 1 + i%3
	}
	if p := SignFlip(d); !(p > 0) || p > 1e-300 {
		t.Errorf("SignFlip(1,500 positive differences) = %v, want a tiny positive p-value", p)
	}
}
