package stats

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// newRandomMatrix returns n models of spread skills on q questions scored
// 0..max, and their plain scores.
func newRandomMatrix(t testing.TB, seed uint64, n, q, max int) (*Matrix, [][]int) {
	rng := rand.New(rand.NewPCG(seed, 0))
	m := NewMatrix(q, max)
	rows := make([][]int, n)
	for i := range rows {
		rows[i] = randomScores(rng, q, max, 0.2+0.6*rng.Float64())
		if _, err := m.Add(rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	return m, rows
}

// TestTotals checks the bit-sliced total Σ count·score against the plain
// sum, including counts far above what a resample usually draws, so that
// every count plane is exercised.
func TestTotals(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, max := range []int{1, 3, 10, 1000} {
		for _, q := range []int{1, 7, 64, 100, 500, 1000} {
			m, rows := newRandomMatrix(t, uint64(q*max), 6, q, max)
			w := newResampler(m)
			for trial := range 20 {
				counts := make([]int, q)
				switch trial % 3 {
				case 0: // a real resample
					for range q {
						counts[rng.IntN(q)]++
					}
				case 1: // anything a resample could hold
					left := q
					for left > 0 {
						i, c := rng.IntN(q), 1+rng.IntN(left)
						counts[i] += c
						left -= c
					}
				case 2: // every question drawn every time but one
					counts[rng.IntN(q)] = q
				}
				for i, c := range counts {
					w.counts[i] = uint32(c)
				}
				w.encode(m)
				for i, row := range rows {
					want := 0
					for k, c := range counts {
						want += c * row[k]
					}
					if got := w.total(m, i); got != want {
						t.Fatalf("max %d, q %d, trial %d: total of model %d = %d, want %d", max, q, trial, i, got, want)
					}
				}
				if slices.ContainsFunc(w.counts, func(c uint32) bool { return c != 0 }) {
					t.Fatal("encode left counts behind")
				}
			}
		}
	}
}

// TestDraw checks that a resample draws exactly q questions, each equally
// likely, and depends on the seed and resample number only.
func TestDraw(t *testing.T) {
	for _, q := range []int{1, 2, 3, 7, 64, 1000} {
		m := NewMatrix(q, 1)
		w := newResampler(m)
		const rounds = 4000
		freq := make([]float64, q)
		for r := range rounds {
			w.draw(m, 3, uint64(r))
			got := 0
			for k, c := range w.counts {
				got += int(c)
				freq[k] += float64(c)
			}
			if got != q {
				t.Fatalf("q %d: drew %d questions", q, got)
			}
			clear(w.counts)
		}
		// Pearson's χ² against uniform, q−1 degrees of freedom: mean q−1,
		// standard deviation √(2(q−1)); 6 deviations is a generous bound.
		chi2, want := 0.0, float64(rounds)
		for _, f := range freq {
			chi2 += (f - want) * (f - want) / want
		}
		if limit := float64(q-1) + 6*math.Sqrt(2*float64(q-1)); chi2 > limit {
			t.Errorf("q %d: χ² = %.1f above %.1f", q, chi2, limit)
		}
	}
	m := NewMatrix(50, 1)
	w := newResampler(m)
	w.draw(m, 1, 5)
	first := slices.Clone(w.counts)
	clear(w.counts)
	w.draw(m, 1, 6)
	w.draw(m, 1, 5) // the state left by resample 6 must not matter
	clear(w.counts)
	w.draw(m, 1, 5)
	if !slices.Equal(first, w.counts) {
		t.Error("resample 5 drew differently the second time")
	}
}

// naiveBootstrap does what Bootstrap does with no tricks, from the same
// draws: totals as plain sums, ranks by sorting, percentiles from all b
// values sorted.
func naiveBootstrap(m *Matrix, rows [][]int, b int, seed uint64, conf float64) BootstrapResult {
	n, q := len(rows), len(rows[0])
	totals := make([][]int, n) // totals[i][r]
	ranks := make([][]int, n)
	w := newResampler(m)
	for r := range b {
		w.draw(m, seed, uint64(r))
		tot := make([]int, n)
		for i, row := range rows {
			for k, c := range w.counts {
				tot[i] += int(c) * row[k]
			}
			totals[i] = append(totals[i], tot[i])
		}
		clear(w.counts)
		desc := slices.Clone(tot)
		slices.Sort(desc)
		slices.Reverse(desc)
		for i := range rows {
			ranks[i] = append(ranks[i], 1+slices.Index(desc, tot[i]))
		}
	}
	tl := int(math.Floor(float64(b)*(1-conf)/2 + 1e-9))
	res := BootstrapResult{}
	for i := range rows {
		slices.Sort(totals[i])
		slices.Sort(ranks[i])
		res.Lo = append(res.Lo, float64(totals[i][tl])/float64(q))
		res.Hi = append(res.Hi, float64(totals[i][b-1-tl])/float64(q))
		res.RankLo = append(res.RankLo, ranks[i][tl])
		res.RankHi = append(res.RankHi, ranks[i][b-1-tl])
	}
	return res
}

func equalResults(a, b BootstrapResult) bool {
	return slices.Equal(a.Lo, b.Lo) && slices.Equal(a.Hi, b.Hi) &&
		slices.Equal(a.RankLo, b.RankLo) && slices.Equal(a.RankHi, b.RankHi)
}

func TestBootstrapNaive(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, q, max int
		b         int
		conf      float64
	}{
		{"mcq", 5, 37, 1, 500, 0.95},
		{"rubric", 40, 130, 10, 300, 0.95},
		{"many batches", 2500, 10, 1, 150, 0.9},
		{"spread totals", 6, 50, 1 << 12, 200, 0.8}, // ranked by sorting
		{"one resample", 3, 20, 1, 1, 0.95},
		{"one question", 4, 1, 1, 50, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, rows := newRandomMatrix(t, 11, tc.n, tc.q, tc.max)
			got := m.Bootstrap(tc.b, 99, tc.conf)
			want := naiveBootstrap(m, rows, tc.b, 99, tc.conf)
			if !equalResults(got, want) {
				t.Fatalf("Bootstrap = %+v\nnaive     %+v", got, want)
			}
		})
	}
}

// TestRank checks both ways of ranking, counting and sorting, against the
// definition: 1 plus the number of totals strictly above.
func TestRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	w := &resampler{}
	for _, tc := range []struct{ n, span int }{{1, 1}, {5, 3}, {50, 100}, {50, 1000}, {1000, 30}, {7, 1 << 40}} {
		for range 20 {
			totals := make([]int, tc.n)
			for i := range totals {
				totals[i] = 1000 + rng.IntN(tc.span)
			}
			ranks := make([]int32, tc.n)
			w.rank(totals, ranks)
			for i, ti := range totals {
				want := int32(1)
				for _, tj := range totals {
					if tj > ti {
						want++
					}
				}
				if ranks[i] != want {
					t.Fatalf("rank of %d in %v = %d, want %d", ti, totals, ranks[i], want)
				}
			}
		}
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	m, _ := newRandomMatrix(t, 3, 300, 200, 1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one := m.Bootstrap(1000, 7, 0.95)
	if again := m.Bootstrap(1000, 7, 0.95); !equalResults(one, again) {
		t.Fatal("same seed, different results")
	}
	for _, procs := range []int{2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		if got := m.Bootstrap(1000, 7, 0.95); !equalResults(one, got) {
			t.Fatalf("GOMAXPROCS %d changed the result", procs)
		}
	}
	if other := m.Bootstrap(1000, 8, 0.95); equalResults(one, other) {
		t.Fatal("seeds 7 and 8 gave the same result")
	}
}

// TestBootstrapWilson compares the percentile interval of one model right
// on 400 of 500 questions with Wilson's interval for 400/500: both
// approximate the same sampling distribution.
func TestBootstrapWilson(t *testing.T) {
	scores := make([]int, 500)
	for i := range 400 {
		scores[i] = 1
	}
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(scores), func(i, j int) { scores[i], scores[j] = scores[j], scores[i] })
	m := NewMatrix(500, 1)
	if _, err := m.Add(scores); err != nil {
		t.Fatal(err)
	}
	r := m.Bootstrap(10000, 1, 0.95)
	lo, hi := Wilson(400, 500, 0.95)
	if math.Abs(r.Lo[0]-lo) > 0.004 || math.Abs(r.Hi[0]-hi) > 0.004 {
		t.Errorf("bootstrap interval [%v, %v], Wilson [%v, %v]", r.Lo[0], r.Hi[0], lo, hi)
	}
	if r.RankLo[0] != 1 || r.RankHi[0] != 1 {
		t.Errorf("a lone model ranks %d..%d", r.RankLo[0], r.RankHi[0])
	}
}

// TestBootstrapCoverage checks that the 95% interval contains the true
// accuracy in about 95% of simulated benchmarks.
func TestBootstrapCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const trials, q, p = 300, 500, 0.8
	rng := rand.New(rand.NewPCG(2, 2))
	covered := 0
	for trial := range trials {
		m := NewMatrix(q, 1)
		if _, err := m.Add(randomScores(rng, q, 1, p)); err != nil {
			t.Fatal(err)
		}
		r := m.Bootstrap(1000, uint64(trial), 0.95)
		if r.Lo[0] <= p && p <= r.Hi[0] {
			covered++
		}
	}
	if share := float64(covered) / trials; share < 0.90 || share > 0.99 {
		t.Errorf("95%% intervals covered the truth in %.3f of trials", share)
	}
}

func TestBootstrapRanks(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const q = 400
	m := NewMatrix(q, 1)
	add := func(s []int) {
		if _, err := m.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	twin := randomScores(rng, q, 1, 0.6)
	add(randomScores(rng, q, 1, 0.95)) // 0: clearly best
	add(twin)                          // 1 and 3: identical
	add(randomScores(rng, q, 1, 0.6))  // 2: as good as the twins
	add(twin)
	add(randomScores(rng, q, 1, 0.1)) // 4: clearly worst
	r := m.Bootstrap(10000, 5, 0.95)
	if r.RankLo[0] != 1 || r.RankHi[0] != 1 {
		t.Errorf("best model ranks %d..%d, want 1..1", r.RankLo[0], r.RankHi[0])
	}
	if r.RankLo[4] != 5 || r.RankHi[4] != 5 {
		t.Errorf("worst model ranks %d..%d, want 5..5", r.RankLo[4], r.RankHi[4])
	}
	if r.RankLo[1] != r.RankLo[3] || r.RankHi[1] != r.RankHi[3] || r.Lo[1] != r.Lo[3] || r.Hi[1] != r.Hi[3] {
		t.Errorf("identical models differ: %+v", r)
	}
	// Tied in every resample, the twins share the better rank, so neither
	// is ever 4th.
	if r.RankLo[1] != 2 || r.RankHi[1] != 3 {
		t.Errorf("twins rank %d..%d, want 2..3", r.RankLo[1], r.RankHi[1])
	}
	// The rival is either above both twins or below them: 2nd or 4th.
	if r.RankLo[2] != 2 || r.RankHi[2] != 4 {
		t.Errorf("the twins' rival ranks %d..%d, want 2..4", r.RankLo[2], r.RankHi[2])
	}
	for i := range 5 {
		if !(r.Lo[i] <= m.Mean(i) && m.Mean(i) <= r.Hi[i]) {
			t.Errorf("model %d: mean %v outside [%v, %v]", i, m.Mean(i), r.Lo[i], r.Hi[i])
		}
	}
}

func TestBootstrapEmpty(t *testing.T) {
	r := NewMatrix(10, 1).Bootstrap(100, 1, 0.95)
	if len(r.Lo) != 0 || len(r.RankHi) != 0 {
		t.Errorf("no models gave %+v", r)
	}
}

func TestBootstrapPanics(t *testing.T) {
	m, _ := newRandomMatrix(t, 1, 2, 10, 1)
	for _, tc := range []struct {
		b    int
		conf float64
	}{{0, 0.95}, {-5, 0.95}, {100, 0}, {100, 1}, {100, math.NaN()}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Bootstrap(%d, _, %v) did not panic", tc.b, tc.conf)
				}
			}()
			m.Bootstrap(tc.b, 1, tc.conf)
		}()
	}
}

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		b    int
		conf float64
		want int
	}{
		{10000, 0.95, 250},
		{1000, 0.95, 25},
		{2000, 0.9, 100},
		{999, 0.95, 24},
		{1, 0.95, 0},
		{39, 0.95, 0},
		{40, 0.95, 1},
		{2, 1e-9, 0},
		{3, 1e-9, 1},
	} {
		if got := tail(tc.b, tc.conf); got != tc.want {
			t.Errorf("tail(%d, %v) = %d, want %d", tc.b, tc.conf, got, tc.want)
		}
	}
}

func TestHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	var h histogram
	var all []int
	for range 5000 {
		v := rng.IntN(1000) - 300
		if rng.IntN(2) == 0 {
			v = 40 + rng.IntN(5) // mostly narrow, sometimes far off
		}
		h.add(v)
		all = append(all, v)
	}
	slices.Sort(all)
	for _, r := range []int{1, 2, 100, 2500, 4999, 5000} {
		if got := h.nth(r); got != all[r-1] {
			t.Errorf("nth(%d) = %d, want %d", r, got, all[r-1])
		}
	}
}
