package stats

import "testing"

// benchmarkBootstrap times one full bootstrap, B = 10,000, of n models on q
// questions scored 0..max, on all of GOMAXPROCS (use -cpu to vary it).
func benchmarkBootstrap(b *testing.B, n, q, max int) {
	m, _ := newRandomMatrix(b, 1, n, q, max)
	b.ResetTimer()
	for b.Loop() {
		m.Bootstrap(10000, 1, 0.95)
	}
}

// BenchmarkBootstrap1000x500 is the size the leaderboard must regenerate in
// well under a second: 1,000 models, 500 multiple-choice questions.
func BenchmarkBootstrap1000x500(b *testing.B) { benchmarkBootstrap(b, 1000, 500, 1) }

// BenchmarkBootstrapRubric50x50 is a rubric benchmark: 50 models, 50
// questions scored 0..10.
func BenchmarkBootstrapRubric50x50(b *testing.B) { benchmarkBootstrap(b, 50, 50, 10) }

// BenchmarkBootstrap20x7440 is a large multiple-choice benchmark: 20
// models, 7,440 questions.
func BenchmarkBootstrap20x7440(b *testing.B) { benchmarkBootstrap(b, 20, 7440, 1) }

// BenchmarkSignFlipRubric50 times the exact sign-flip test of two models
// on 50 rubric questions scored 0..10, the size of a rubric benchmark.
func BenchmarkSignFlipRubric50(b *testing.B) {
	m, _ := newRandomMatrix(b, 2, 2, 50, 10)
	d := m.Diffs(0, 1)
	for b.Loop() {
		SignFlip(d)
	}
}

// BenchmarkSignFlipRubric500 is a large rubric benchmark: 500 questions.
func BenchmarkSignFlipRubric500(b *testing.B) {
	m, _ := newRandomMatrix(b, 2, 2, 500, 10)
	d := m.Diffs(0, 1)
	for b.Loop() {
		SignFlip(d)
	}
}

// BenchmarkMcNemarExact times the worst case at 10,000 discordant pairs:
// an even split, where the most terms count.
func BenchmarkMcNemarExact(b *testing.B) {
	for b.Loop() {
		McNemarExact(5000, 5000)
	}
}

// benchmarkCompare times the family of n models on q questions scored
// 0..max: every pair's paired test (McNemar for 0/1, sign-flip otherwise)
// on all of GOMAXPROCS, Holm over all of them, the ranges of ranks, the
// groups' boundaries and the top separation with their fragility.
func benchmarkCompare(b *testing.B, n, q, max int) {
	m, _ := newRandomMatrix(b, 3, n, q, max)
	for b.Loop() {
		f := Compare(m, 0.05)
		f.Ranks()
		f.Boundaries()
		f.Top()
	}
}

// BenchmarkCompare200x500 is one benchmark and track of the 1,000 × 500
// board: 200 models on 500 multiple-choice questions, 19,900 pairs.
func BenchmarkCompare200x500(b *testing.B) { benchmarkCompare(b, 200, 500, 1) }

// BenchmarkCompare1000x500 is 1,000 models in one track: 499,500 pairs.
func BenchmarkCompare1000x500(b *testing.B) { benchmarkCompare(b, 1000, 500, 1) }

// BenchmarkCompareRubric72x50 is a rubric board of 72 models on 50
// questions scored 0..10.
func BenchmarkCompareRubric72x50(b *testing.B) { benchmarkCompare(b, 72, 50, 10) }
