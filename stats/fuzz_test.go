package stats

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// FuzzWilson checks that any arguments give an interval or NaN, never a
// panic, and that valid arguments give an interval in [0, 1] around k/n.
func FuzzWilson(f *testing.F) {
	f.Fuzz(func(t *testing.T, k, n int, conf float64) {
		lo, hi := Wilson(k, n, conf)
		valid := 0 <= k && k <= n && conf > 0 && conf < 1
		if !valid {
			if !math.IsNaN(lo) || !math.IsNaN(hi) {
				t.Fatalf("Wilson(%d, %d, %v) = [%v, %v], want NaN", k, n, conf, lo, hi)
			}
			return
		}
		if math.IsNaN(lo) || math.IsNaN(hi) || !(0 <= lo && lo <= hi && hi <= 1) {
			t.Fatalf("Wilson(%d, %d, %v) = [%v, %v]", k, n, conf, lo, hi)
		}
		if n > 0 {
			phat := float64(k) / float64(n)
			if lo > phat+1e-12 || hi < phat-1e-12 {
				t.Fatalf("Wilson(%d, %d, %v) = [%v, %v] misses %v", k, n, conf, lo, hi, phat)
			}
		}
	})
}

// FuzzMcNemar checks that any counts give a p-value in [0, 1], the same
// either way round, or NaN for negative counts.
func FuzzMcNemar(f *testing.F) {
	f.Fuzz(func(t *testing.T, b, c int) {
		p := McNemarExact(b, c)
		if b < 0 || c < 0 {
			if !math.IsNaN(p) {
				t.Fatalf("McNemarExact(%d, %d) = %v, want NaN", b, c, p)
			}
			return
		}
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Fatalf("McNemarExact(%d, %d) = %v", b, c, p)
		}
		if q := McNemarExact(c, b); q != p {
			t.Fatalf("McNemarExact(%d, %d) = %v but McNemarExact(%d, %d) = %v", b, c, p, c, b, q)
		}
	})
}

// FuzzSignFlip: for any differences, each byte a signed difference, the
// sign-flip p-value is the share that enumeration counts, between the
// smallest attainable and 1, and the same with every sign reversed.
func FuzzSignFlip(f *testing.F) {
	f.Add([]byte{1, 2, 3, 255, 0, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16 {
			data = data[:16]
		}
		d, neg := make([]int, len(data)), make([]int, len(data))
		nonzero := 0
		for i, b := range data {
			d[i], neg[i] = int(int8(b)), -int(int8(b))
			if b != 0 {
				nonzero++
			}
		}
		p := SignFlip(d)
		if want := bruteSignFlip(d); !near(p, want, 1e-13) {
			t.Fatalf("SignFlip(%v) = %v, enumeration gives %v", d, p, want)
		}
		if p < MinPairedP(nonzero) || p > 1 {
			t.Fatalf("SignFlip(%v) = %v, outside [%v, 1]", d, p, MinPairedP(nonzero))
		}
		if q := SignFlip(neg); q != p {
			t.Fatalf("SignFlip(%v) = %v but SignFlip(%v) = %v", d, p, neg, q)
		}
	})
}

// FuzzMatrixAdd adds a row of fuzzed scores, each byte a signed score,
// with extra (if not 0) in the middle: invalid rows must be refused with an
// error naming the value and leave the matrix as it was, valid rows must
// come back unchanged.
func FuzzMatrixAdd(f *testing.F) {
	f.Fuzz(func(t *testing.T, q uint8, max uint16, data []byte, extra int) {
		if q == 0 || max == 0 {
			return // NewMatrix refuses these by panicking, as documented
		}
		m := NewMatrix(int(q), int(max))
		zero := make([]int, q)
		if _, err := m.Add(zero); err != nil {
			t.Fatal(err)
		}
		scores := make([]int, len(data))
		for i, b := range data {
			scores[i] = int(int8(b))
		}
		if extra != 0 && len(scores) > 0 {
			scores[len(scores)/2] = extra
		}
		i, err := m.Add(scores)
		var bad error
		if len(scores) != int(q) {
			bad = fmt.Errorf("got %d scores", len(scores))
		} else {
			for k, s := range scores {
				if s < 0 || s > int(max) {
					bad = fmt.Errorf("score %d at index %d", s, k)
					break
				}
			}
		}
		if bad != nil {
			if err == nil || !strings.Contains(err.Error(), bad.Error()) || i != -1 || m.Models() != 1 {
				t.Fatalf("Add(%v) = %d, %v; want -1 and an error with %q", scores, i, err, bad)
			}
			return
		}
		if err != nil || i != 1 || m.Models() != 2 {
			t.Fatalf("Add(%v) = %d, %v", scores, i, err)
		}
		sum := 0
		for _, s := range scores {
			sum += s
		}
		if mean := m.Mean(1); math.IsNaN(mean) || mean != float64(sum)/float64(q) {
			t.Fatalf("Mean = %v, want %v", mean, float64(sum)/float64(q))
		}
		d := m.Diffs(1, 0)
		for k := range d {
			if d[k] != scores[k] {
				t.Fatalf("stored scores %v, want %v", d, scores)
			}
		}
	})
}
