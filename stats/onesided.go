package stats

import (
	"math"
	"slices"
)

// SignFlipUpper returns the exact one-sided p-value of the sign-flip
// (randomization) test that the values v are symmetric about 0, against
// larger values: the share of the 2^n assignments of signs to the
// non-zero |v| whose sum is at least Σv. Under the hypothesis each
// value is as likely to have either sign, whatever its size, so the test
// needs no assumption on the spread, which may differ from value to value;
// zeros carry no sign and do not count. It is 1 with no non-zero value and
// at least 2^−n otherwise.
//
// The values are integers so that the count is exact: a caller testing a
// shift of a fraction of a point scales its data first. The distribution
// of the sum is built one value at a time in O(n·S) steps, S = Σ|v|; past
// maxSignFlipWork steps the normal approximation with a continuity
// correction is used.
func SignFlipUpper(v []int) float64 {
	var sizes []int
	observed, total := 0, 0
	var squares float64
	for _, x := range v {
		if x != 0 {
			a := abs(x)
			sizes = append(sizes, a)
			observed += x
			total += a
			squares += float64(a) * float64(a)
		}
	}
	if len(sizes) == 0 {
		return 1
	}
	if float64(len(sizes))*float64(total) > maxSignFlipWork {
		// The sum moves in steps of 2, so the continuity correction is 1.
		// Far in the tail the p-value stays positive, as McNemarExact's.
		z := (float64(observed) - 1) / math.Sqrt(squares)
		return min(1, max(0.5*math.Erfc(z/math.Sqrt2), math.SmallestNonzeroFloat64))
	}
	dist := signedSizeDist(sizes, total)
	// The signed sum is 2u − S for u the size signed +; it is at least the
	// observed sum from u = (S + observed)/2 up, an integer since the
	// observed sum has the parity of S.
	tail := 0.0
	for u := total; u >= (total+observed)/2 && u >= 0; u-- {
		tail += dist[u]
	}
	return min(1, max(tail, math.SmallestNonzeroFloat64))
}

// signedSizeDist returns dist with dist[u] the probability that the sizes
// given a + sign, each with probability ½, add up to u, for u from 0 to
// total = Σ sizes. Small sizes first keep the filled part short for
// longest.
func signedSizeDist(sizes []int, total int) []float64 {
	sizes = slices.Clone(sizes)
	slices.Sort(sizes)
	dist := make([]float64, total+1)
	dist[0] = 1
	filled := 0
	for _, a := range sizes {
		filled += a
		for u := filled; u >= a; u-- {
			dist[u] = 0.5 * (dist[u] + dist[u-a])
		}
		for u := a - 1; u >= 0; u-- {
			dist[u] *= 0.5
		}
	}
	return dist
}

// BinomialPMF returns the probabilities P(X = k), k = 0..n, of
// X ~ Binomial(n, p), computed by the recurrence on their ratios from the
// mode outwards so that no term overflows or loses its precision. Invalid
// arguments (n < 0, p outside [0, 1]) give nil.
func BinomialPMF(n int, p float64) []float64 {
	if n < 0 || !(p >= 0 && p <= 1) {
		return nil
	}
	pmf := make([]float64, n+1)
	switch p {
	case 0:
		pmf[0] = 1
		return pmf
	case 1:
		pmf[n] = 1
		return pmf
	}
	mode := min(n, int(math.Floor(float64(n+1)*p)))
	pmf[mode] = 1
	ratio := p / (1 - p)
	for k := mode; k < n; k++ {
		pmf[k+1] = pmf[k] * float64(n-k) / float64(k+1) * ratio
	}
	for k := mode; k > 0; k-- {
		pmf[k-1] = pmf[k] * float64(k) / float64(n-k+1) / ratio
	}
	sum := 0.0
	for _, x := range pmf {
		sum += x
	}
	for k := range pmf {
		pmf[k] /= sum
	}
	return pmf
}

// SignedRanks returns the signed ranks of x for the Wilcoxon signed-rank
// test, doubled so that mid-ranks stay integers: the values are ranked by
// their absolute size from 1, tied sizes share the mean of their ranks,
// and each rank takes its value's sign; a zero takes its place in the
// ranking but has no sign, so its signed rank is 0 (Pratt's treatment). The one-sided
// signed-rank test of symmetry about 0 against larger values is then
// SignFlipUpper(SignedRanks(x)), exact with ties.
func SignedRanks(x []float64) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	size := func(i int) float64 { return math.Abs(x[i]) }
	slices.SortStableFunc(idx, func(a, b int) int {
		switch sa, sb := size(a), size(b); {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
	out := make([]int, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && size(idx[j]) == size(idx[i]) {
			j++
		}
		// Ranks i+1 … j share their mean, (i+1+j)/2; doubled, i+1+j.
		for _, k := range idx[i:j] {
			switch {
			case x[k] > 0:
				out[k] = i + 1 + j
			case x[k] < 0:
				out[k] = -(i + 1 + j)
			}
		}
		i = j
	}
	return out
}

// BinomialTail is one count's upper tail test: X ~ Binomial(N, P), and
// its observed value.
type BinomialTail struct {
	N        int
	P        float64
	Observed int
}

// PairMinP returns the exact p-value, for two independent binomial counts
// a and b, of the smallest of three upper-tail p-values: a's, b's, and that
// of the weighted sum a + weight·b. Under the counts' laws, it is the
// probability of a pair whose smallest p-value is at most the observed
// one, counted over every pair. A signal in either count alone, or spread
// over both, is seen at about the cost of testing the one statistic made
// for it, where each statistic alone misses the others' signals. An
// invalid count or a weight below 1 makes the result NaN.
func PairMinP(a, b BinomialTail, weight int) float64 {
	pa, pb := BinomialPMF(a.N, a.P), BinomialPMF(b.N, b.P)
	if pa == nil || pb == nil || weight < 1 {
		return math.NaN()
	}
	ta, tb := upperTails(pa), upperTails(pb)
	// The weighted sum's law, by convolution, and its tails.
	sum := make([]float64, len(pa)+weight*(len(pb)-1))
	for i, x := range pa {
		for j, y := range pb {
			sum[i+weight*j] += x * y
		}
	}
	ts := upperTails(sum)
	at := func(t []float64, u int) float64 {
		if u < 0 {
			return 1
		}
		if u >= len(t) {
			return 0
		}
		return t[u]
	}
	stat := func(i, j int) float64 { return min(at(ta, i), at(tb, j), at(ts, i+weight*j)) }
	m := stat(a.Observed, b.Observed) * (1 + 1e-12) // a margin for rounding
	p := 0.0
	for i, x := range pa {
		for j, y := range pb {
			if stat(i, j) <= m {
				p += x * y
			}
		}
	}
	return min(1, p)
}

// upperTails returns t with t[u] = P(X ≥ u) for the law pmf, summed from
// the far end so that small terms add first.
func upperTails(pmf []float64) []float64 {
	t := make([]float64, len(pmf))
	acc := 0.0
	for u := len(pmf) - 1; u >= 0; u-- {
		acc += pmf[u]
		t[u] = acc
	}
	return t
}
