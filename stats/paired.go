package stats

import (
	"math"
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
// the result keeps nearly full precision for any b+c; above 2^31
// discordant pairs it uses the normal approximation with continuity
// correction. A p-value below the smallest positive float64 (about
// 4.9e-324, first reached at McNemarExact(0, 1075)) is returned as that
// smallest value: the true p-value is smaller still, but never 0, which
// would call the observed split impossible. LogMcNemarExact gives its
// logarithm. Negative counts give NaN.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	if b > maxExactMcNemar-c {
		d := math.Abs(float64(b)-float64(c)) - 1
		if d <= 0 {
			return 1
		}
		return max(math.Erfc(d/math.Sqrt(2*(float64(b)+float64(c)))), math.SmallestNonzeroFloat64)
	}
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	if k == 0 {
		return max(math.Ldexp(1, 1-n), math.SmallestNonzeroFloat64)
	}
	return min(1, max(2*math.Exp(logBinomialHalf(k, n))*binomialHalfSum(k, n), math.SmallestNonzeroFloat64))
}

// LogMcNemarExact returns the natural logarithm of McNemar's exact p-value
// (see McNemarExact), finite for any counts however far in the tail.
// Above 2^31 discordant pairs it uses the normal approximation with
// continuity correction, also in log form. Negative counts give NaN.
func LogMcNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	if b > maxExactMcNemar-c {
		d := math.Abs(float64(b)-float64(c)) - 1
		if d <= 0 {
			return 0
		}
		return logErfc(d / math.Sqrt(2*(float64(b)+float64(c))))
	}
	n := b + c
	if n == 0 {
		return 0
	}
	k := min(b, c)
	if k == 0 {
		return float64(1-n) * math.Ln2
	}
	return min(0, math.Ln2+logBinomialHalf(k, n)+math.Log(binomialHalfSum(k, n)))
}

// binomialHalfSum returns P(X ≤ k)/P(X = k) for X ~ Binomial(n, 1/2),
// 0 < k ≤ n/2. It sums the terms downward from P(X = k) by their exact
// ratios; below the mode they fall, so the loop stops as soon as they no
// longer count.
func binomialHalfSum(k, n int) float64 {
	sum, term := 1.0, 1.0
	for i := k; i > 0; i-- {
		term *= float64(i) / float64(n-i+1)
		sum += term
		if term < sum*0x1p-56 {
			break
		}
	}
	return sum
}

// logErfc returns log(erfc(x)) for x ≥ 0, by the asymptotic series where
// erfc underflows.
func logErfc(x float64) float64 {
	if x < 26 {
		return math.Log(math.Erfc(x))
	}
	// erfc(x) = exp(−x²)/(x√π)·(1 − 1/(2x²) + 3/(4x⁴) − …); the third term
	// is below 1e-5 at x = 26, and the log of the bracket is what counts.
	x2 := x * x
	return -x2 - math.Log(x*math.SqrtPi) + math.Log1p(-1/(2*x2)+3/(4*x2*x2))
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

// maxSignFlipWork bounds the exact sign-flip computation, which takes
// about one step per non-zero difference and unit of their total size: 2^27
// steps is some 3,600 questions of 10 points, far beyond any rubric
// benchmark. Beyond it the normal approximation is used.
const maxSignFlipWork = 1 << 27

// SignFlip returns the exact two-sided p-value of the paired sign-flip
// (randomization) test that the differences d (per question, model 1 −
// model 2) have mean 0. Under that hypothesis each non-zero difference is
// as likely to have either sign; zero differences have no sign to flip and
// carry no information. The p-value is the share of all 2^n sign
// assignments of the n non-zero differences whose sum is at least as far
// from 0 as the observed sum: 1 when that sum is 0, and at least 2^(1−n).
//
// The share is counted exactly, not sampled, so that it stays right in the
// far tail where Holm's correction over many comparisons looks: the sum of
// the differences given a + sign takes integer values from 0 to the total
// size S, and its distribution is built one difference at a time in
// O(n·S) steps. Past maxSignFlipWork steps the normal approximation with a
// continuity correction is used. For 0/1 data the test is McNemar's.
func SignFlip(d []int) float64 {
	// By symmetry the two tails are equal: twice the one-sided p-value of
	// the differences oriented so that their sum is not negative.
	sum := 0
	for _, v := range d {
		sum += v
	}
	if sum < 0 {
		d = slices.Clone(d)
		for i := range d {
			d[i] = -d[i]
		}
	}
	return min(1, 2*SignFlipUpper(d))
}

// SignFlipNudged returns the largest p-value of the sign-flip test that
// one point moved against the model ahead can give: d are the differences
// per question (model 1 − model 2) of scores in 0..top, the model ahead is
// the one their sum favours, and one question's difference moves one
// point toward the model behind (the one ahead losing a point there, or
// the one behind gaining one), which is possible unless the model behind
// already leads there by top. Each distinct difference is tried once.
func SignFlipNudged(d []int, top int) float64 {
	sum := 0
	for _, v := range d {
		sum += v
	}
	e := slices.Clone(d)
	if sum < 0 {
		for i := range e {
			e[i] = -e[i]
		}
	}
	tried := map[int]bool{}
	worst := 0.0
	for i, v := range e {
		if v <= -top || tried[v] {
			continue
		}
		tried[v] = true
		e[i] = v - 1
		worst = max(worst, SignFlip(e))
		e[i] = v
	}
	return worst
}

// MinPairedP is the smallest p-value that the paired tests (McNemar's and
// the sign-flip test) can give on n questions: 2^(1−n), reached when one
// model is ahead on every question. A family of comparisons corrects it
// further: TooSmallToSeparate says when nothing can be significant.
func MinPairedP(n int) float64 {
	if n < 1 {
		return 1
	}
	return min(1, math.Ldexp(1, 1-n))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
