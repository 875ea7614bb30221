package stats

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// maxExactMcNemar bounds b+c for the exact McNemar sum, which takes O(√n)
// steps when b and c are close; beyond it the normal approximation is
// indistinguishable for any purpose here.
const maxExactMcNemar = 1 << 31

// McNemarExact returns the exact two-sided p-value of McNemar's test for
// paired 0/1 outcomes: b is the number of questions model 1 got right and
// model 2 wrong, c the reverse. It is min(1, 2·P(X ≤ min(b, c))) with
// X ~ Binomial(b+c, 1/2), and 1 when b+c = 0. Questions both models got
// right or both wrong say nothing about which is better and do not enter.
//
// The binomial terms are computed in log space with Stirling's series, so
// the result keeps nearly full precision for any b+c; above 2^31 discordant
// pairs it uses the normal approximation with continuity correction.
// Negative counts give NaN.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	if b > maxExactMcNemar-c {
		d := math.Abs(float64(b)-float64(c)) - 1
		if d <= 0 {
			return 1
		}
		return math.Erfc(d / math.Sqrt(2*(float64(b)+float64(c))))
	}
	n := b + c
	if n == 0 {
		return 1
	}
	return min(1, 2*binomialHalfCDF(min(b, c), n))
}

// binomialHalfCDF returns P(X ≤ k) for X ~ Binomial(n, 1/2), 0 ≤ k ≤ n/2.
// It sums the terms downward from P(X = k) by their exact ratios; below the
// mode they fall, so the loop stops as soon as they no longer count.
func binomialHalfCDF(k, n int) float64 {
	if k == 0 {
		return math.Ldexp(1, -n)
	}
	sum, term := 1.0, 1.0
	for i := k; i > 0; i-- {
		term *= float64(i) / float64(n-i+1)
		sum += term
		if term < sum*0x1p-56 {
			break
		}
	}
	return math.Exp(logBinomialHalf(k, n)) * sum
}

// logBinomialHalf returns log P(X = k) for X ~ Binomial(n, 1/2), 0 < k < n,
// as Stirling's series error terms plus deviance terms. Unlike differences
// of math.Lgamma values, which lose about 1e-11 at n = 10,000 and worse
// beyond, each term here is small and exact to rounding.
func logBinomialHalf(k, n int) float64 {
	nf, kf := float64(n), float64(k)
	mf, half := nf-kf, nf/2
	return stirlingError(nf) - stirlingError(kf) - stirlingError(mf) -
		deviance(kf, half) - deviance(mf, half) +
		0.5*math.Log(nf/(2*math.Pi*kf*mf))
}

// stirlingError returns log(x!) − log(√(2πx)·(x/e)^x) for integer x ≥ 1.
func stirlingError(x float64) float64 {
	if x <= 15 {
		lg, _ := math.Lgamma(x + 1)
		return lg - (x+0.5)*math.Log(x) + x - 0.5*math.Log(2*math.Pi)
	}
	// 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷) + 1/(1188x⁹); the next
	// term is below 1e-15 for x > 15.
	x2 := x * x
	return (1.0/12 - (1.0/360-(1.0/1260-(1.0/1680-1.0/1188/x2)/x2)/x2)/x2) / x
}

// deviance returns x·log(x/m) + m − x without the cancellation that formula
// suffers when x is close to m.
func deviance(x, m float64) float64 {
	if math.Abs(x-m) >= 0.1*(x+m) {
		return x*math.Log(x/m) + m - x
	}
	// With v = (x−m)/(x+m): (x−m)·v + 2x·(v³/3 + v⁵/5 + …).
	v := (x - m) / (x + m)
	s := (x - m) * v
	term := 2 * x * v
	for j := 3.0; ; j += 2 {
		term *= v * v
		next := s + term/j
		if next == s {
			return s
		}
		s = next
	}
}

// signFlipStream separates SignFlip's random stream from Bootstrap's
// resample streams drawn from the same seed.
const signFlipStream = 0x5369676e466c6970

// SignFlip returns the two-sided p-value of a paired sign-flip (randomization)
// test that the differences d (per question, model 1 − model 2) have mean 0.
// Under that hypothesis each non-zero difference is as likely to have either
// sign; zero differences have no sign to flip and carry no information.
//
// With n ≤ 20 non-zero differences the p-value is exact: the share of all 2^n
// sign assignments whose sum is at least as far from 0 as the observed sum.
// Otherwise it is a Monte Carlo estimate from rounds random assignments drawn
// deterministically from seed: (1 + hits) / (1 + rounds), which is never 0
// and is a valid p-value for any rounds; rounds ≤ 0 gives 1.
//
// Sums, not means, are compared, so there is no rounding at the threshold.
// The Monte Carlo test groups differences by size: flipping c differences
// of size a at random adds a·(2B − c) with B ~ Binomial(c, 1/2), drawn as the
// popcount of c random bits, which costs one 64-bit draw per 64 questions.
func SignFlip(d []int, rounds int, seed uint64) float64 {
	var nonzero []int
	observed := 0
	for _, v := range d {
		if v != 0 {
			nonzero = append(nonzero, v)
			observed += v
		}
	}
	observed = abs(observed)
	n := len(nonzero)
	if n == 0 {
		return 1
	}
	if n <= 20 {
		return signFlipExact(nonzero, observed)
	}
	if rounds <= 0 {
		return 1
	}

	// Group the differences by size.
	sizes := make([]int, n)
	for i, v := range nonzero {
		sizes[i] = abs(v)
	}
	slices.Sort(sizes)
	type group struct{ size, count int }
	var groups []group
	for _, s := range sizes {
		if len(groups) > 0 && groups[len(groups)-1].size == s {
			groups[len(groups)-1].count++
		} else {
			groups = append(groups, group{s, 1})
		}
	}

	pcg := rand.NewPCG(seed, signFlipStream)
	hits := 0
	for range rounds {
		sum := 0
		for _, g := range groups {
			plus := 0
			c := g.count
			for ; c >= 64; c -= 64 {
				plus += bits.OnesCount64(pcg.Uint64())
			}
			if c > 0 {
				plus += bits.OnesCount64(pcg.Uint64() >> (64 - c))
			}
			sum += g.size * (2*plus - g.count)
		}
		if abs(sum) >= observed {
			hits++
		}
	}
	return float64(1+hits) / float64(1+rounds)
}

// signFlipExact visits every sign assignment of d in Gray-code order, one
// flip per step. The last sign stays fixed: negating all signs negates the
// sum, so each half of the assignments has the same share at or beyond
// observed.
func signFlipExact(d []int, observed int) float64 {
	cur := slices.Clone(d)
	sum := 0
	for _, v := range d {
		sum += v
	}
	free := len(d) - 1
	hits := 1 // the assignment observed
	for g := 1; g < 1<<free; g++ {
		i := bits.TrailingZeros(uint(g))
		sum -= 2 * cur[i]
		cur[i] = -cur[i]
		if abs(sum) >= observed {
			hits++
		}
	}
	return float64(hits) / float64(uint(1)<<free)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
