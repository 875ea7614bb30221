package stats

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// Holm adjusts p-values for multiple comparisons by Holm's step-down method:
// the i-th smallest of m p-values (from 0) is multiplied by m−i, and the
// results are made non-decreasing in that order and capped at 1. Rejecting
// where the adjusted value is below alpha keeps the chance of any false
// rejection below alpha, for any dependence between the tests, with more
// power than Bonferroni. The result is in the order of p; a NaN in p makes
// every adjusted value NaN.
func Holm(p []float64) []float64 {
	adj, _ := holm(p)
	return adj
}

// holm is Holm, which also returns p sorted. Equal p-values get equal
// adjusted values in any order, so the sort need not be stable; without
// NaNs, < orders the values, which is faster than cmp.Compare.
func holm(p []float64) (adj, sorted []float64) {
	m := len(p)
	adj, sorted = make([]float64, m), make([]float64, m)
	if slices.ContainsFunc(p, math.IsNaN) {
		copy(sorted, p)
		slices.Sort(sorted)
		for i := range adj {
			adj[i] = math.NaN()
		}
		return adj, sorted
	}
	type value struct {
		p float64
		i int
	}
	order := make([]value, m)
	for i, v := range p {
		order[i] = value{v, i}
	}
	slices.SortFunc(order, func(a, b value) int {
		switch {
		case a.p < b.p:
			return -1
		case a.p > b.p:
			return 1
		}
		return 0
	})
	floor := 0.0
	for r, v := range order {
		floor = max(floor, min(1, float64(m-r)*v.p))
		adj[v.i] = floor
		sorted[r] = v.p
	}
	return adj, sorted
}

// Family is the one family of tests that a board's rank statistics come
// from, fixed before the data are seen: the exact paired test between
// every two models of a Matrix (McNemar's for 0/1 scores, the sign-flip
// test otherwise), all n(n−1)/2 of them Holm-corrected together. A
// difference is significant when its Holm-adjusted p-value is below alpha.
// Holm's correction holds for any dependence between the tests, so the
// chance that the family calls any two equal models different is at most
// alpha, and everything drawn from it — who is better than whom, each
// model's range of ranks, which models could be best, the groups — holds
// at once with probability at least 1 − alpha. (Holm's proof covers
// differences called where there are none; one called the wrong way
// round, which the ranges of ranks also need to exclude, is covered for
// independent tests only. The simulation in docs/PERFORMANCE.md counts
// both, and finds them together far below alpha.)
//
// Choosing the comparisons after seeing the data (the observed best
// against the rest, say) would make the observed best's luck look like
// evidence; here the family is every pair, whatever the data. Nothing
// depends on the order of the models: models with the same answers get
// the same statistics.
//
// Fragile keeps what it has worked out, so a Family's methods must not be
// called from several goroutines at once.
type Family struct {
	m     *Matrix
	alpha float64
	p     []float64 // each pair's p-value, by pairIndex
	adj   []float64 // its Holm-adjusted value
	// sorted is p ascending; nextBad[k] is the first k' ≥ k at which
	// sorted[k'], moved one place earlier in the step-down, would stop it
	// (len(p) when none would). holdsAt answers from them.
	sorted  []float64
	nextBad []int
	fragile []int8 // Fragile's answers: 0 not yet known, 1 no, 2 yes
}

// pairIndex numbers the pairs of models: (0,1), (0,2), (1,2), (0,3), …
func pairIndex(i, j int) int {
	if i > j {
		i, j = j, i
	}
	return j*(j-1)/2 + i
}

// Compare runs the paired test between every two models of m, on all
// cores, and Holm-corrects all of them together at level alpha.
func Compare(m *Matrix, alpha float64) *Family {
	n := m.Models()
	f := &Family{m: m, alpha: alpha, p: make([]float64, n*(n-1)/2)}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(n-1, 1)) {
		wg.Go(func() {
			for j := int(next.Add(1)); j < n; j = int(next.Add(1)) {
				row := f.p[j*(j-1)/2:][:j]
				for i := range row {
					row[i] = f.test(i, j)
				}
			}
		})
	}
	wg.Wait()
	f.correct()
	return f
}

// correct Holm-corrects f.p and prepares holdsAt.
func (f *Family) correct() {
	f.adj, f.sorted = holm(f.p)
	total := len(f.p)
	f.nextBad = make([]int, total+1)
	f.nextBad[total] = total
	for k := total - 1; k >= 0; k-- {
		f.nextBad[k] = f.nextBad[k+1]
		// At place k−1 the step-down multiplies by total−k+1.
		if float64(total-k+1)*f.sorted[k] >= f.alpha {
			f.nextBad[k] = k
		}
	}
}

// test is the paired test of models i and j: for 0/1 scores McNemar's,
// which is what the sign-flip test gives on them, at less cost.
func (f *Family) test(i, j int) float64 {
	if f.m.max == 1 {
		return McNemarExact(f.m.PairCounts(i, j))
	}
	return SignFlip(f.m.Diffs(i, j))
}

// Models returns the number of models compared.
func (f *Family) Models() int { return f.m.Models() }

// Pairs returns the size of the family, n(n−1)/2.
func (f *Family) Pairs() int { return len(f.p) }

// P returns the paired test's p-value for models i and j, i ≠ j.
func (f *Family) P(i, j int) float64 { return f.p[pairIndex(i, j)] }

// Adjusted returns the Holm-adjusted p-value for models i and j, i ≠ j.
func (f *Family) Adjusted(i, j int) float64 { return f.adj[pairIndex(i, j)] }

// Better reports whether model i is significantly better than model j:
// their difference is significant and i has the higher total. Models with
// equal totals are never significantly different (both tests give 1).
func (f *Family) Better(i, j int) bool {
	return i != j && f.m.sums[i] > f.m.sums[j] && f.adj[pairIndex(i, j)] < f.alpha
}

// Separated returns the number of pairs whose difference is significant.
func (f *Family) Separated() int {
	k := 0
	for _, a := range f.adj {
		if a < f.alpha {
			k++
		}
	}
	return k
}

// Ranks returns each model's range of ranks, 1 being the best: from
// best, 1 + the number of models significantly better, to worst, n − the
// number significantly worse. Unless the family calls some pair
// different wrongly, which happens with probability at most alpha, every
// model's rank among the true scores lies in its range, all at once. A
// model could be the best when best is 1: no model is significantly
// better.
func (f *Family) Ranks() (best, worst []int) {
	n := f.m.Models()
	best, worst = make([]int, n), make([]int, n)
	for i := range n {
		best[i], worst[i] = 1, n
	}
	for j := 1; j < n; j++ {
		for i := range j {
			switch {
			case f.Better(i, j):
				best[j]++
				worst[i]--
			case f.Better(j, i):
				best[i]++
				worst[j]--
			}
		}
	}
	return best, worst
}

// order returns the models best first by total, equal totals by index.
func (f *Family) order() []int {
	order := make([]int, f.m.Models())
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(f.m.sums[b], f.m.sums[a]) })
	return order
}

// A Boundary divides the models, best first by total, into groups: every
// model above it is significantly better than every model below it.
// Models with equal totals are never divided, so the groups are the same
// whichever way ties are ordered.
type Boundary struct {
	Above int // the number of models above the boundary
	// Better and Worse are the comparison across the boundary nearest to
	// undoing it: a fragile one if there is one, and of those the one with
	// the largest Holm-adjusted p-value (then raw p-value, then the first
	// by total and index).
	Better, Worse int
	// Fragile is set when one answer credited differently would undo
	// some comparison across the boundary (see Family.Fragile), and with
	// it the boundary.
	Fragile bool
}

// Boundaries returns the boundaries between groups, top first.
func (f *Family) Boundaries() []Boundary {
	order := f.order()
	n := len(order)
	// reach[b]: the first place above place b whose model is not
	// significantly better than b's (b itself when every one is). A
	// boundary after the first k places needs reach ≥ k at every place
	// from k down.
	reach := make([]int, n)
	for b := range n {
		a := 0
		for a < b && f.Better(order[a], order[b]) {
			a++
		}
		reach[b] = a
	}
	var cuts []int
	low := n
	for k := n - 1; k >= 1; k-- {
		low = min(low, reach[k])
		if low >= k {
			cuts = append(cuts, k)
		}
	}
	slices.Reverse(cuts)
	out := make([]Boundary, 0, len(cuts))
	for _, k := range cuts {
		bd := Boundary{Above: k, Better: order[0], Worse: order[k]}
		worst := strength{-1, -1}
		for _, x := range order[:k] {
			for _, y := range order[k:] {
				fragile, st := f.Fragile(x, y), f.strength(x, y)
				if (fragile && !bd.Fragile) || (fragile == bd.Fragile && worst.less(st)) {
					bd.Better, bd.Worse, bd.Fragile, worst = x, y, fragile, st
				}
			}
		}
		out = append(out, bd)
	}
	return out
}

// Exclusion is why a model cannot be the best: Better is significantly
// better than Worse.
type Exclusion struct {
	Better, Worse int
	// Fragile is set when one answer credited differently would undo
	// every comparison that shows Worse is not the best, each on its own
	// (see Family.Fragile).
	Fragile bool
}

// Top returns the weakest of the exclusions that separate the models that
// could be the best from the others: the model with the highest total
// whose exclusion is fragile, with its strongest comparison (the smallest
// adjusted p-value), and of several with that total the one whose
// comparison has the largest adjusted p-value; when none is fragile, the
// model whose strongest comparison that is not fragile has the largest
// adjusted p-value, with that comparison, and of several the one with the
// highest total. Only then does the lower index decide, so that models
// with equal totals are told apart by their answers before their order.
// ok is false when every model could be the best.
func (f *Family) Top() (e Exclusion, ok bool) {
	n := f.m.Models()
	weakest := strength{-1, -1}
	for _, x := range f.order() {
		if e.Fragile && f.m.sums[x] < f.m.sums[e.Worse] {
			break // no fragile exclusion below the first one's total can be chosen
		}
		var by []int
		for y := range n {
			if f.Better(y, x) {
				by = append(by, y)
			}
		}
		if len(by) == 0 {
			continue
		}
		// The comparisons that exclude x, strongest first (equal ones by
		// index), until one is not fragile: usually the first.
		strongest, robust := -1, -1
		for len(by) > 0 && robust < 0 {
			k := 0
			for i := 1; i < len(by); i++ {
				if a, b := f.strength(by[i], x), f.strength(by[k], x); a.less(b) || (a == b && by[i] < by[k]) {
					k = i
				}
			}
			y := by[k]
			if strongest < 0 {
				strongest = y
			}
			if !f.Fragile(y, x) {
				robust = y
			}
			by[k] = by[len(by)-1]
			by = by[:len(by)-1]
		}
		switch st := f.strength(strongest, x); {
		case robust < 0 && (!e.Fragile || weakest.less(st)):
			e, weakest, ok = Exclusion{Better: strongest, Worse: x, Fragile: true}, st, true
		case robust >= 0 && !e.Fragile:
			if st := f.strength(robust, x); weakest.less(st) {
				e, weakest, ok = Exclusion{Better: robust, Worse: x}, st, true
			}
		}
	}
	return e, ok
}

// strength orders the comparisons of a pair by how strongly they show a
// difference: the smaller the Holm-adjusted p-value, the stronger, and
// where Holm's running maximum makes those equal, the smaller raw p-value.
type strength struct{ adj, p float64 }

func (a strength) less(b strength) bool { return a.adj < b.adj || (a.adj == b.adj && a.p < b.p) }

func (f *Family) strength(i, j int) strength {
	k := pairIndex(i, j)
	return strength{f.adj[k], f.p[k]}
}

// Fragile reports whether one answer credited differently would undo the
// significant difference between models i and j: one question moved by
// one point against the better model (for 0/1 scores, a question one of
// them won becoming a tie, or a tie becoming a win for the other) makes
// the difference no longer significant in this family, whichever question
// it is, the other pairs' p-values held as they are. It is false for a
// pair whose difference is not significant.
func (f *Family) Fragile(i, j int) bool {
	k := pairIndex(i, j)
	if !(f.adj[k] < f.alpha) {
		return false
	}
	if f.fragile == nil {
		f.fragile = make([]int8, len(f.p))
	}
	if v := f.fragile[k]; v != 0 {
		return v == 2
	}
	if f.m.sums[j] > f.m.sums[i] {
		i, j = j, i
	}
	var fragile bool
	if f.m.max == 1 {
		b, c := f.m.PairCounts(i, j)
		p := McNemarExact(b-1, c)
		if b+c < f.m.q {
			p = max(p, McNemarExact(b, c+1))
		}
		fragile = !f.holdsAt(k, p)
	} else {
		// The exact nudged p-value costs a sign-flip test per distinct
		// difference; a bound settles most pairs first.
		d := f.m.Diffs(i, j)
		fragile = !f.holdsAt(k, signFlipNudgedBound(d, f.m.max)) && !f.holdsAt(k, SignFlipNudged(d, f.m.max))
	}
	f.fragile[k] = 1
	if fragile {
		f.fragile[k] = 2
	}
	return fragile
}

// holdsAt reports whether pair k would still be significant were its
// p-value p, every other p-value as it is. Raised from p0 to p, the pair
// moves down the step-down, and each p-value it passes moves one place
// earlier, where Holm multiplies it by one more: the pair stays
// significant when none of those then reaches alpha and p times its own
// new multiplier does not either. The places before are unchanged and
// passed already.
func (f *Family) holdsAt(k int, p float64) bool {
	if !(f.adj[k] < f.alpha) {
		return false
	}
	p0 := f.p[k]
	if p <= p0 {
		return true
	}
	total := len(f.sorted)
	last := sort.Search(total, func(i int) bool { return f.sorted[i] > p0 }) - 1 // the pair's own place, after any ties
	hi := sort.Search(total, func(i int) bool { return f.sorted[i] > p })        // p's new place is hi−1
	if f.nextBad[last+1] < hi {
		return false
	}
	return float64(total-hi+1)*p < f.alpha
}

// TooSmallToSeparate reports whether no two of n models can ever be told
// apart on q questions at level alpha: the smallest p-value the paired
// test can give, MinPairedP(q), times the n(n−1)/2 comparisons by which
// Holm's first step multiplies the smallest p-value of the family, is not
// below alpha. Any significant difference must pass that step first.
func TooSmallToSeparate(q, n int, alpha float64) bool {
	pairs := n * (n - 1) / 2
	return pairs > 0 && MinPairedP(q)*float64(pairs) >= alpha
}

// signFlipNudgedBound is an upper bound of SignFlipNudged(d, top), by
// Hoeffding's inequality for sums of random signs: P(|Σ ±a_k| ≥ t) ≤
// 2·exp(−t²/(2·Σa_k²)). One point moved against the model ahead lowers
// |Σd| by one and raises Σd² by at most 2·top − 1.
func signFlipNudgedBound(d []int, top int) float64 {
	s, squares := 0, 0.0
	for _, v := range d {
		s += v
		squares += float64(v) * float64(v)
	}
	t := float64(abs(s) - 1)
	if t <= 0 {
		return 1
	}
	return min(1, 2*math.Exp(-t*t/(2*(squares+float64(2*top-1)))))
}
