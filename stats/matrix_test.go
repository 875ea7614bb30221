package stats

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomScores returns q scores in 0..max, a model of the given skill (the
// chance of each point).
func randomScores(rng *rand.Rand, q, max int, skill float64) []int {
	s := make([]int, q)
	for i := range s {
		for range max {
			if rng.Float64() < skill {
				s[i]++
			}
		}
	}
	return s
}

func TestMatrixAddErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scores []int
		want   string // in the error; "" for none
	}{
		{"valid", []int{0, 3, 10, 7}, ""},
		{"short", []int{0, 3, 10}, "got 3 scores, want one per question (4)"},
		{"long", []int{0, 3, 10, 1, 1}, "got 5 scores"},
		{"nil", nil, "got 0 scores"},
		{"negative", []int{0, -1, 10, 7}, "score -1 at index 1 is outside 0..10"},
		{"too high", []int{0, 1, 10, 11}, "score 11 at index 3 is outside 0..10"},
		{"first bad named", []int{12, -4, 10, 7}, "score 12 at index 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMatrix(4, 10)
			i, err := m.Add(tc.scores)
			if tc.want == "" {
				if err != nil || i != 0 || m.Models() != 1 {
					t.Fatalf("Add(%v) = %d, %v; want 0, nil", tc.scores, i, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Add(%v) error = %v, want one containing %q", tc.scores, err, tc.want)
			}
			if i != -1 || m.Models() != 0 {
				t.Fatalf("failed Add(%v) returned %d and left %d models", tc.scores, i, m.Models())
			}
		})
	}
}

func TestNewMatrixPanics(t *testing.T) {
	for _, tc := range []struct{ q, max int }{{0, 1}, {-1, 1}, {5, 0}, {5, -2}, {1 << 40, 1}, {5, 1 << 40}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewMatrix(%d, %d) did not panic", tc.q, tc.max)
				}
			}()
			NewMatrix(tc.q, tc.max)
		}()
	}
}

// TestMatrixRoundTrip checks that what goes in comes out: means, pair
// counts and differences against the plain scores, for 0/1 and rubric data,
// at question counts around word boundaries.
func TestMatrixRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, max := range []int{1, 2, 10, 255} {
		for _, q := range []int{1, 5, 63, 64, 65, 130, 500} {
			m := NewMatrix(q, max)
			var rows [][]int
			for i := range 4 {
				s := randomScores(rng, q, max, rng.Float64())
				if i == 3 {
					s = slices.Clone(rows[0]) // a tie
				}
				if idx, err := m.Add(s); err != nil || idx != i {
					t.Fatalf("Add = %d, %v", idx, err)
				}
				rows = append(rows, s)
			}
			if m.Models() != 4 || m.Questions() != q || m.Max() != max {
				t.Fatalf("Models, Questions, Max = %d, %d, %d", m.Models(), m.Questions(), m.Max())
			}
			for i, ri := range rows {
				sum := 0
				for _, v := range ri {
					sum += v
				}
				if got, want := m.Mean(i), float64(sum)/float64(q); got != want {
					t.Errorf("max %d, q %d: Mean(%d) = %v, want %v", max, q, i, got, want)
				}
				for j, rj := range rows {
					var b, c int
					d := make([]int, q)
					for k := range q {
						d[k] = ri[k] - rj[k]
						if d[k] > 0 {
							b++
						} else if d[k] < 0 {
							c++
						}
					}
					if gb, gc := m.PairCounts(i, j); gb != b || gc != c {
						t.Errorf("max %d, q %d: PairCounts(%d, %d) = %d, %d, want %d, %d", max, q, i, j, gb, gc, b, c)
					}
					if got := m.Diffs(i, j); !slices.Equal(got, d) {
						t.Errorf("max %d, q %d: Diffs(%d, %d) = %v, want %v", max, q, i, j, got, d)
					}
				}
			}
		}
	}
}
