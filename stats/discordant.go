package stats

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// Discordant is an exact sequential test on paired binary outcomes: after
// each of up to MaxN trials, the trial is one of b (the first of the pair
// is a success and the second a failure), c (the reverse) or neither, and
// the test asks whether b's rate exceeds c's by more than Tol:
//
//	H0: p_b − p_c ≤ Tol    against    p_b − p_c > Tol.
//
// Its statistic after n trials is the generalized log-likelihood ratio of
// the trinomial counts (n, b, c) against H0 (LogLR); it rejects H0 at the
// first n ≥ MinN at which the statistic reaches the threshold h. The
// threshold is calibrated (Threshold) so that the probability of ever
// rejecting within MaxN trials is at most Alpha for every trinomial law
// of H0, whatever its rate of discordance p_b + p_c: for each law the
// probability is computed exactly, by dynamic programming over the (b, c)
// paths with the rejecting states absorbed, and its supremum is taken on
// the boundary p_b = p_c + Tol (the rejecting region grows with b and
// shrinks with c, so moving mass from "neither" to b, or from c to
// "neither", can only raise it), over a grid of p_c refined around its
// largest values. With Tol = 0 the test is that of symmetric discordance,
// the exchangeability of two honest runs of one model.
//
// The same computation with a single look at n (Fixed) gives the fixed-size
// test of the same statistic and the same worst-case false-alarm rate, the
// comparison a sequential design has to beat.
type Discordant struct {
	Tol   float64 // the tolerated excess of p_b over p_c, in [0, 1)
	Alpha float64 // the worst-case probability of rejecting H0, in (0, 1)
	MaxN  int     // the most trials
	MinN  int     // the first trial after which the test may reject (at least 1)
	// Every is how often the test looks: after trials MinN, MinN+Every,
	// ... and MaxN; 0 or 1 is after every trial.
	Every int
	// MaxDiscord bounds the discordance p_b + p_c of the laws of H0 the
	// false-alarm rate is computed for; 0 means none (1).
	MaxDiscord float64
	// Spend shapes the boundary: the test rejects after n trials when
	// LogLR reaches h·(MaxN/n)^Spend, so that 0 looks as hard at every
	// trial and 1 (O'Brien and Fleming's shape) spends little of Alpha
	// early and keeps most of the fixed-size test's power at MaxN.
	Spend float64
}

// Validate reports a test that cannot be computed.
func (d Discordant) Validate() error {
	switch {
	case !(d.Tol >= 0 && d.Tol < 1):
		return fmt.Errorf("stats: Tol %g is not in [0, 1)", d.Tol)
	case !(d.Alpha > 0 && d.Alpha < 1):
		return fmt.Errorf("stats: Alpha %g is not in (0, 1)", d.Alpha)
	case d.MaxN < 1 || d.MaxN > 2000:
		return fmt.Errorf("stats: MaxN %d is not in [1, 2000]", d.MaxN)
	case d.MinN < 1 || d.MinN > d.MaxN:
		return errors.New("stats: MinN must be in [1, MaxN]")
	}
	return nil
}

// LogLR returns the generalized log-likelihood ratio of n trials holding
// b and c against H0: 0 when b − c ≤ Tol·n, where the counts show no
// excess of b, and otherwise the log-likelihood at the counts'
// frequencies less its maximum on H0's boundary p_b = p_c + Tol. The
// boundary is taken whole, whatever MaxDiscord: restricted, the
// statistic would also grow with c, a discordance that says nothing of
// an excess of b; MaxDiscord bounds only the laws the false-alarm rate is
// computed for.
func (d Discordant) LogLR(n, b, c int) float64 {
	tol := d.Tol
	if n <= 0 || b < 0 || c < 0 || b+c > n {
		return 0
	}
	if float64(b-c) <= tol*float64(n) {
		return 0
	}
	z := n - b - c
	fb, fc, fz := float64(b), float64(c), float64(z)
	nn := float64(n)
	free := xlogy(fb, fb/nn) + xlogy(fc, fc/nn) + xlogy(fz, fz/nn)
	p := boundaryMLE(tol, fb, fc, fz)
	held := xlogy(fb, p+tol) + xlogy(fc, p) + xlogy(fz, 1-2*p-tol)
	return math.Max(0, free-held)
}

// maxPC is the largest p_c of H0's boundary.
func (d Discordant) maxPC() float64 {
	hi := (1 - d.Tol) / 2
	if d.MaxDiscord > 0 {
		hi = min(hi, (d.MaxDiscord-d.Tol)/2)
	}
	return hi
}

// boundaryMLE maximizes b·log(p+t) + c·log p + z·log(1−2p−t) over p in
// [0, (1−t)/2], a concave function: the root of its derivative, found by
// bisection, or the end where the derivative keeps its sign.
func boundaryMLE(t, b, c, z float64) float64 {
	hi := (1 - t) / 2
	deriv := func(p float64) float64 {
		d := 0.0
		if b > 0 {
			d += b / (p + t)
		}
		if c > 0 {
			d += c / p
		}
		if z > 0 {
			d -= 2 * z / (1 - 2*p - t)
		}
		return d
	}
	lo := 0.0
	if c == 0 && (t == 0 && b == 0 || t > 0 && deriv(0) <= 0) {
		return 0
	}
	if z == 0 {
		return hi
	}
	for range 100 {
		mid := (lo + hi) / 2
		if deriv(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// xlogy is x·log y with 0·log 0 = 0.
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

// Rejects reports whether the test, with threshold h, rejects H0 after n
// trials holding b and c.
func (d Discordant) Rejects(h float64, n, b, c int) bool {
	return d.Looks(n) && d.LogLR(n, b, c) >= d.Bound(h, n)
}

// Bound is the threshold after n trials of the test whose threshold at
// MaxN is h.
func (d Discordant) Bound(h float64, n int) float64 {
	if d.Spend == 0 {
		return h
	}
	return h * math.Pow(float64(d.MaxN)/float64(n), d.Spend)
}

// Looks reports whether the test looks after trial n.
func (d Discordant) Looks(n int) bool {
	if n < d.MinN || n > d.MaxN {
		return false
	}
	return n == d.MaxN || d.Every <= 1 || (n-d.MinN)%d.Every == 0
}

// FalseAlarm returns the exact probability that the test with threshold h
// rejects within MaxN trials when each trial is b with probability
// pc+Tol, c with probability pc and neither otherwise, independently, and
// the expected number of trials it takes (stopping at a rejection or at
// MaxN). With looks limited to the single n = MaxN it is the fixed-size
// test's.
func (d Discordant) FalseAlarm(h, pc float64) (reject, meanN float64) {
	return d.power(d.cut(h), pc+d.Tol, pc)
}

// Power returns the exact probability that the test with threshold h
// rejects within MaxN trials of trinomial law (pb, pc), and its expected
// number of trials.
func (d Discordant) Power(h, pb, pc float64) (reject, meanN float64) {
	return d.power(d.cut(h), pb, pc)
}

// power is Power with the rejecting region k of cut.
func (d Discordant) power(k [][]int, pb, pc float64) (reject, meanN float64) {
	N := d.MaxN
	p0 := 1 - pb - pc
	if p0 < 0 {
		p0 = 0
	}
	w := N + 1
	cur := make([]float64, w*w)
	next := make([]float64, w*w)
	cur[0] = 1
	alive := 1.0
	for n := 1; n <= N; n++ {
		meanN += alive
		clear(next[:])
		for b := 0; b < n; b++ {
			for c := 0; b+c < n; c++ {
				m := cur[b*w+c]
				if m == 0 {
					continue
				}
				next[b*w+c] += m * p0
				next[(b+1)*w+c] += m * pb
				next[b*w+c+1] += m * pc
			}
		}
		cur, next = next, cur
		if !d.Looks(n) {
			continue
		}
		row := k[n]
		alive = 0
		for c := 0; c <= n; c++ {
			for b := 0; b+c <= n; b++ {
				m := cur[b*w+c]
				if m == 0 {
					continue
				}
				if b >= row[c] {
					reject += m
					cur[b*w+c] = 0
				} else {
					alive += m
				}
			}
		}
	}
	return reject, meanN
}

// cut returns, for each n and c, the least b at which the test rejects
// (n+1 when none): LogLR grows with b once b − c exceeds Tol·n.
func (d Discordant) cut(h float64) [][]int {
	table := d.llrTable()
	k := make([][]int, d.MaxN+1)
	for n := 1; n <= d.MaxN; n++ {
		k[n] = make([]int, n+1)
		for c := 0; c <= n; c++ {
			k[n][c] = n + 1
			if !d.Looks(n) {
				continue
			}
			row, hn := table[n][c], d.Bound(h, n)
			for b := n - c; b >= 0 && row[b] >= hn; b-- {
				k[n][c] = b
			}
		}
	}
	return k
}

// llrTable returns LogLR(n, b, c) as table[n][c][b] for n up to MaxN,
// computed once per (Tol, MaxN).
func (d Discordant) llrTable() [][][]float64 {
	maxN := d.MaxN
	key := [2]float64{d.Tol, float64(maxN)}
	if v, ok := llrTables.Load(key); ok {
		return v.([][][]float64)
	}
	t := make([][][]float64, maxN+1)
	for n := 1; n <= maxN; n++ {
		t[n] = make([][]float64, n+1)
		for c := 0; c <= n; c++ {
			t[n][c] = make([]float64, n-c+1)
			for b := range t[n][c] {
				t[n][c][b] = d.LogLR(n, b, c)
			}
		}
	}
	llrTables.Store(key, t)
	return t
}

var llrTables sync.Map // [Tol, MaxN] → table

// WorstFalseAlarm returns the largest false-alarm probability of the test
// with threshold h over the laws of H0's boundary, and the p_c at which it
// was found: a grid of 64 values of p_c, denser near 0 where discordance
// is rare, refined around the three largest by golden-section search.
func (d Discordant) WorstFalseAlarm(h float64) (alpha, atPC float64) {
	hi := d.maxPC()
	k := d.cut(h)
	fa := func(pc float64) float64 { a, _ := d.power(k, pc+d.Tol, pc); return a }
	const grid = 64
	xs := make([]float64, grid+1)
	ys := make([]float64, grid+1)
	for i := range xs {
		u := float64(i) / grid
		xs[i] = hi * u * u
		ys[i] = fa(xs[i])
	}
	best, bestX := -1.0, 0.0
	for range 3 {
		j := 0
		for i := range ys {
			if ys[i] > ys[j] {
				j = i
			}
		}
		lo, up := xs[max(j-1, 0)], xs[min(j+1, grid)]
		x, y := golden(fa, lo, up, 12)
		if ys[j] > y {
			x, y = xs[j], ys[j]
		}
		if y > best {
			best, bestX = y, x
		}
		ys[j] = -1
	}
	return best, bestX
}

// golden maximizes f on [a, b] by golden-section search, returning the
// best point it evaluated.
func golden(f func(float64) float64, a, b float64, iters int) (float64, float64) {
	r := (math.Sqrt(5) - 1) / 2
	x1, x2 := b-r*(b-a), a+r*(b-a)
	f1, f2 := f(x1), f(x2)
	for range iters {
		if f1 > f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - r*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + r*(b-a)
			f2 = f(x2)
		}
	}
	if f1 > f2 {
		return x1, f1
	}
	return x2, f2
}

// Threshold returns the least threshold h (to 0.01) whose worst-case
// false-alarm rate is at most Alpha, and that rate. It is computed once
// per test and remembered.
func (d Discordant) Threshold() (h, alpha float64, err error) {
	if err := d.Validate(); err != nil {
		return 0, 0, err
	}
	if v, ok := thresholds.Load(d); ok {
		t := v.([2]float64)
		return t[0], t[1], nil
	}
	lo, hi := 0.0, 1.0
	for {
		a, _ := d.WorstFalseAlarm(hi)
		if a <= d.Alpha {
			alpha = a
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e3 {
			return 0, 0, errors.New("stats: no threshold reaches Alpha")
		}
	}
	for hi-lo > 0.01 {
		mid := (lo + hi) / 2
		if a, _ := d.WorstFalseAlarm(mid); a <= d.Alpha {
			hi, alpha = mid, a
		} else {
			lo = mid
		}
	}
	thresholds.Store(d, [2]float64{hi, alpha})
	return hi, alpha, nil
}

var thresholds sync.Map // Discordant → [threshold, worst alpha]

// Fixed returns the fixed-size test of n trials with the same statistic,
// tolerance and level: one look, at n.
func (d Discordant) Fixed(n int) Discordant {
	return Discordant{Tol: d.Tol, Alpha: d.Alpha, MaxN: n, MinN: n, MaxDiscord: d.MaxDiscord}
}
