package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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

// matrixOf builds a 0/1 matrix from rows of '1' (right) and '0' (wrong).
func matrixOf(t *testing.T, rows ...string) *Matrix {
	t.Helper()
	m := NewMatrix(len(rows[0]), 1)
	for _, r := range rows {
		scores := make([]int, len(r))
		for i, c := range r {
			if c == '1' {
				scores[i] = 1
			}
		}
		if _, err := m.Add(scores); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// rowOf is a row of q answers, the first k right.
func rowOf(k, q int) string {
	b := make([]byte, q)
	for i := range b {
		b[i] = '0'
		if i < k {
			b[i] = '1'
		}
	}
	return string(b)
}

// TestCompareIsEveryPair: the family holds one test per pair, the one
// McNemarExact or SignFlip gives, and Holm over all of them.
func TestCompareIsEveryPair(t *testing.T) {
	for _, top := range []int{1, 4} {
		m, _ := newRandomMatrix(t, 7, 9, 60, top)
		f := Compare(m, 0.05)
		if f.Models() != 9 || f.Pairs() != 36 {
			t.Fatalf("%d models, %d pairs", f.Models(), f.Pairs())
		}
		var raw []float64
		for j := 1; j < 9; j++ {
			for i := range j {
				want := SignFlip(m.Diffs(i, j))
				if top == 1 {
					want = McNemarExact(m.PairCounts(i, j))
				}
				if f.P(i, j) != want || f.P(j, i) != want {
					t.Errorf("max %d: P(%d, %d) = %v, want %v", top, i, j, f.P(i, j), want)
				}
				raw = append(raw, want)
			}
		}
		adj := Holm(raw)
		k := 0
		for j := 1; j < 9; j++ {
			for i := range j {
				if f.Adjusted(i, j) != adj[k] {
					t.Errorf("max %d: Adjusted(%d, %d) = %v, want Holm's %v", top, i, j, f.Adjusted(i, j), adj[k])
				}
				k++
			}
		}
	}
}

// TestRanks: the range of ranks runs from 1 + the models significantly
// better to n − the models significantly worse, over the whole family.
func TestRanks(t *testing.T) {
	const q = 200
	for _, tc := range []struct {
		name        string
		right       []int // correct answers of each model, the first k questions
		best, worst []int
	}{
		{"one model", []int{150}, []int{1}, []int{1}},
		{"far apart", []int{190, 100, 10}, []int{1, 2, 3}, []int{1, 2, 3}},
		// Nested answers: 5 questions apart is never significant, 100 always.
		{"a close pair above a far one", []int{190, 185, 90}, []int{1, 1, 3}, []int{2, 2, 3}},
		{"all equal", []int{120, 120, 120, 120}, []int{1, 1, 1, 1}, []int{4, 4, 4, 4}},
		// 160 against 100 and 100 against 40 are significant over three
		// pairs; so is 160 against 40.
		{"a chain", []int{160, 100, 40}, []int{1, 2, 3}, []int{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := make([]string, len(tc.right))
			for i, k := range tc.right {
				rows[i] = rowOf(k, q)
			}
			best, worst := Compare(matrixOf(t, rows...), 0.05).Ranks()
			if !slices.Equal(best, tc.best) || !slices.Equal(worst, tc.worst) {
				t.Errorf("ranks from %v to %v, want %v to %v", best, worst, tc.best, tc.worst)
			}
		})
	}
}

// TestTiesAreSymmetric: three models tied on the same answers, below
// others, get the same statistics whatever their order; and models with
// equal totals but different answers keep their own statistics whatever
// the order they are added in. The leader-anchored tiers this replaced
// gave tied models rank (UB) 4, 4 and 3 by the order of their names.
func TestTiesAreSymmetric(t *testing.T) {
	const q = 505
	top := []string{rowOf(504, q), rowOf(500, q), rowOf(497, q)}
	tied := []string{rowOf(480, q), rowOf(480, q), rowOf(480, q)}
	// Equal totals, different answers: 480 right each, spread differently.
	spread := []string{rowOf(480, q), rowOf(470, q)[:480] + rowOf(10, 25), rowOf(460, q)[:480] + rowOf(20, 25)}
	for _, r := range spread {
		if n := strings.Count(r, "1"); n != 480 {
			t.Fatalf("a spread row has %d right", n)
		}
	}
	low := rowOf(420, q)
	for _, set := range [][]string{tied, spread} {
		var want [][2]int
		for _, perm := range permutations(3) {
			rows := append(slices.Clone(top), low)
			for _, k := range perm {
				rows = append(rows, set[k])
			}
			best, worst := Compare(matrixOf(t, rows...), 0.05).Ranks()
			got := make([][2]int, 3)
			for pos, k := range perm {
				got[k] = [2]int{best[4+pos], worst[4+pos]}
			}
			if want == nil {
				want = got
			}
			if !slices.Equal(got, want) {
				t.Errorf("order %v: ranks %v, in another order %v", perm, got, want)
			}
		}
		if slices.Equal(set, tied) && (want[0] != want[1] || want[1] != want[2]) {
			t.Errorf("models with the same answers get %v", want)
		}
		t.Logf("ranks of the three: %v", want)
	}
}

func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			q := slices.Insert(slices.Clone(p), at, n-1)
			out = append(out, q)
		}
	}
	return out
}

// TestFamilyProperties checks on random boards what the family promises,
// against direct computations: Better is a Holm rejection with the higher
// total; the ranks count them; a boundary stands exactly where every model
// above is better than every one below; Top names an exclusion; and
// holdsAt agrees with Holm recomputed on the changed p-values.
func TestFamilyProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n, q, top := 2+rng.IntN(9), 20+rng.IntN(200), 1
		if trial%3 == 0 {
			top = 1 + rng.IntN(5)
		}
		m := NewMatrix(q, top)
		for range n {
			skill := 0.3 + 0.6*rng.Float64()
			if rng.IntN(4) == 0 {
				skill = 0.6 // some models alike
			}
			m.Add(randomScores(rng, q, top, skill))
		}
		f := Compare(m, 0.05)
		sig := func(i, j int) bool { return f.Adjusted(i, j) < 0.05 }
		best, worst := f.Ranks()
		for i := range n {
			b, w := 0, 0
			for j := range n {
				if j == i {
					continue
				}
				wantBetter := sig(i, j) && m.sums[i] > m.sums[j]
				if f.Better(i, j) != wantBetter {
					t.Fatalf("trial %d: Better(%d, %d) = %v", trial, i, j, f.Better(i, j))
				}
				if f.Better(j, i) {
					b++
				}
				if wantBetter {
					w++
				}
			}
			if best[i] != 1+b || worst[i] != n-w {
				t.Fatalf("trial %d: model %d ranks %d–%d, want %d–%d", trial, i, best[i], worst[i], 1+b, n-w)
			}
		}
		order := f.order()
		cuts := map[int]Boundary{}
		for _, bd := range f.Boundaries() {
			cuts[bd.Above] = bd
		}
		for k := 1; k < n; k++ {
			all := true
			for _, x := range order[:k] {
				for _, y := range order[k:] {
					all = all && f.Better(x, y)
				}
			}
			bd, ok := cuts[k]
			if ok != all {
				t.Fatalf("trial %d: boundary after %d is %v, every one above better: %v", trial, k, ok, all)
			}
			if ok && (!slices.Contains(order[:k], bd.Better) || !slices.Contains(order[k:], bd.Worse)) {
				t.Fatalf("trial %d: boundary after %d reports %d against %d", trial, k, bd.Better, bd.Worse)
			}
		}
		e, ok := f.Top()
		anyExcluded := slices.ContainsFunc(best, func(b int) bool { return b > 1 })
		if ok != anyExcluded || (ok && !f.Better(e.Better, e.Worse)) {
			t.Fatalf("trial %d: Top = %+v, %v; some model excluded: %v", trial, e, ok, anyExcluded)
		}
		// holdsAt against Holm recomputed with one p-value raised.
		for range 20 {
			i, j := rng.IntN(n), rng.IntN(n)
			if i == j || !sig(i, j) {
				continue
			}
			k := pairIndex(i, j)
			p := f.p[k] * math.Pow(10, 3*rng.Float64())
			if rng.IntN(3) == 0 {
				p = f.sorted[rng.IntN(len(f.sorted))] // ties
			}
			changed := slices.Clone(f.p)
			changed[k] = p
			if want := Holm(changed)[k] < 0.05; f.holdsAt(k, p) != want {
				t.Fatalf("trial %d: holdsAt(%d, %v) = %v, Holm recomputed says %v", trial, k, p, !want, want)
			}
		}
	}
}

// TestHoldsAtSteps: raising one p-value moves those it passes one place
// earlier in Holm's step-down, where they may fail.
func TestHoldsAtSteps(t *testing.T) {
	for _, tc := range []struct {
		p     []float64
		k     int
		to    float64
		holds bool
	}{
		// 0.01·3, 0.012·2, 0.02: all rejected. Raised to 0.024, the first
		// passes the other two, each now a place earlier: 0.012·3 = 0.036,
		// 0.02·2 = 0.04, then 0.024·1.
		{[]float64{0.01, 0.012, 0.02}, 0, 0.024, true},
		// Raised to 0.026, past both: 0.013·3 = 0.039, 0.02·2 = 0.04, then
		// 0.026·1.
		{[]float64{0.01, 0.013, 0.02}, 0, 0.026, true},
		// 0.01 raised past 0.0255, which then stands first: 0.0255·2 = 0.051.
		{[]float64{0.01, 0.0255}, 0, 0.03, false},
		{[]float64{0.01, 0.0255}, 0, 0.02, true},
		// Its own new multiplier: 0.001 raised to 0.03 passes nothing, 0.03·2.
		{[]float64{0.001, 0.04}, 0, 0.03, false},
		{[]float64{0.001, 0.04}, 0, 0.024, true},
	} {
		f := &Family{alpha: 0.05, p: tc.p}
		f.correct()
		if got := f.holdsAt(tc.k, tc.to); got != tc.holds {
			t.Errorf("p %v, p[%d] raised to %v: holds %v, want %v", tc.p, tc.k, tc.to, got, tc.holds)
		}
	}
}

// TestFragile: a separation that one question moved would undo, and one
// that it would not.
func TestFragile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    []string
		fragile bool
	}{
		// 6 to 0: p = 2^-5 = 0.031; 5 to 0 gives 0.0625.
		{"six to nothing", []string{"111111" + "1111", "000000" + "1111"}, true},
		// 10 to 0: 0.002; 9 to 0 gives 0.0039, 10 to 1 gives 0.0117.
		{"ten to nothing", []string{"1111111111" + "11", "0000000000" + "11"}, false},
		// 10 to 0 with no tie to turn into a loss: only 9 to 0.
		{"ten to nothing, no ties", []string{"1111111111", "0000000000"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Compare(matrixOf(t, tc.rows...), 0.05)
			if !f.Better(0, 1) {
				t.Fatalf("not separated: p %v", f.P(0, 1))
			}
			if f.Fragile(0, 1) != tc.fragile || f.Fragile(1, 0) != tc.fragile {
				t.Errorf("fragile %v, want %v", f.Fragile(0, 1), tc.fragile)
			}
		})
	}
	f := Compare(matrixOf(t, rowOf(5, 10), rowOf(4, 10)), 0.05)
	if f.Fragile(0, 1) {
		t.Error("a difference that is not significant is called fragile")
	}
}

// TestFragileRubric: on points, the nudge that counts may widen a loss,
// not only shrink a win, and the bound never hides a fragile pair.
func TestFragileRubric(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	fragile := 0
	for trial := range 200 {
		q, top := 8+rng.IntN(30), 2+rng.IntN(6)
		m := NewMatrix(q, top)
		m.Add(randomScores(rng, q, top, 0.7))
		m.Add(randomScores(rng, q, top, 0.4+0.3*rng.Float64()))
		f := Compare(m, 0.05)
		if !f.Better(0, 1) && !f.Better(1, 0) {
			continue
		}
		// Every single-point change against the model ahead, by brute force.
		hi, lo := 0, 1
		if m.sums[1] > m.sums[0] {
			hi, lo = 1, 0
		}
		a, b := rowScores(m, hi), rowScores(m, lo)
		worst := 0.0
		for i := range a {
			if a[i] > 0 {
				a[i]--
				worst = max(worst, SignFlip(diff(a, b)))
				a[i]++
			}
			if b[i] < top {
				b[i]++
				worst = max(worst, SignFlip(diff(a, b)))
				b[i]--
			}
		}
		d := m.Diffs(hi, lo)
		if got := SignFlipNudged(d, top); math.Abs(got-worst) > 1e-12 {
			t.Fatalf("trial %d: SignFlipNudged = %v, by brute force %v", trial, got, worst)
		}
		if bound := signFlipNudgedBound(d, top); bound < worst {
			t.Fatalf("trial %d: bound %v below the nudged p-value %v", trial, bound, worst)
		}
		want := worst >= 0.05 // a family of one pair: no correction
		if f.Fragile(0, 1) != want {
			t.Fatalf("trial %d: fragile %v, want %v (nudged p %v)", trial, f.Fragile(0, 1), want, worst)
		}
		if want {
			fragile++
		}
	}
	if fragile == 0 {
		t.Error("no fragile pair among the trials: the test checks nothing")
	}
}

func rowScores(m *Matrix, i int) []int {
	out := make([]int, m.q)
	for q := range out {
		out[q] = m.score(i, q)
	}
	return out
}

func diff(a, b []int) []int {
	d := make([]int, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}

// TestSignFlipNudgedIsMcNemarOn01: on 0/1 scores the nudge is the worse
// of a win becoming a tie and a tie becoming a loss.
func TestSignFlipNudgedIsMcNemarOn01(t *testing.T) {
	for b := 1; b <= 12; b++ {
		for c := 0; c < b; c++ {
			for ties := 0; ties <= 1; ties++ {
				d := slices.Repeat([]int{1}, b)
				d = append(d, slices.Repeat([]int{-1}, c)...)
				d = append(d, slices.Repeat([]int{0}, ties)...)
				want := McNemarExact(b-1, c)
				if ties > 0 {
					want = max(want, McNemarExact(b, c+1))
				}
				if got := SignFlipNudged(d, 1); math.Abs(got-want) > 1e-12*want {
					t.Errorf("%d to %d, %d ties: %v, want %v", b, c, ties, got, want)
				}
			}
		}
	}
}

// TestTooSmallToSeparate: the smallest attainable p-value, 2^(1−q), against
// Holm's first step over n(n−1)/2 pairs, not against alpha alone.
func TestTooSmallToSeparate(t *testing.T) {
	for _, tc := range []struct {
		q, n int
		want bool
	}{
		{5, 2, true},   // 0.0625 ≥ 0.05
		{6, 2, false},  // 0.03125
		{7, 5, true},   // 0.015625 · 10 = 0.156: 7 questions and 5 models never split
		{7, 2, false},  // 0.015625
		{10, 5, false}, // 0.00195 · 10 = 0.0195
		{10, 10, true}, // 0.00195 · 45 = 0.088
		{10, 1, false}, // no pair to compare
		{0, 3, true},
	} {
		if got := TooSmallToSeparate(tc.q, tc.n, 0.05); got != tc.want {
			t.Errorf("%d questions, %d models: %v, want %v", tc.q, tc.n, got, tc.want)
		}
	}
	// It is exact: one model right everywhere and the rest wrong separates
	// exactly when it is not too small.
	for q := 4; q <= 12; q++ {
		for n := 2; n <= 12; n++ {
			rows := []string{rowOf(q, q)}
			for range n - 1 {
				rows = append(rows, rowOf(0, q))
			}
			split := Compare(matrixOf(t, rows...), 0.05).Separated() > 0
			if split == TooSmallToSeparate(q, n, 0.05) {
				t.Errorf("%d questions, %d models: separated %v, too small %v", q, n, split, !split)
			}
		}
	}
}

func ExampleTooSmallToSeparate() {
	fmt.Println(TooSmallToSeparate(7, 5, 0.05), TooSmallToSeparate(7, 2, 0.05))
	// Output: true false
}
