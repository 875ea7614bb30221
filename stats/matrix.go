package stats

import (
	"fmt"
	"math"
	"math/bits"
)

// Matrix holds the integer scores, 0..Max, of a set of models on the same
// questions, one row per model.
//
// Each row is stored as bit-planes: plane j is a bitset over the questions
// holding bit j of every score. A resample can then be scored for every
// model with AND and popcount over 64 questions at a time; see Bootstrap.
type Matrix struct {
	q      int      // questions
	max    int      // highest allowed score
	planes int      // bit-planes per model: bits.Len(max)
	words  int      // 64-bit words per plane
	bits   []uint64 // model i's plane j is bits[(i*planes+j)*words:][:words]
	sums   []int    // total score of each model
}

// NewMatrix returns an empty matrix for q questions scored 0..max; max is 1
// for right-or-wrong data. It panics if q or max is outside
// 1..math.MaxInt32: such a call is a programming error, not bad data.
func NewMatrix(q, max int) *Matrix {
	if q < 1 || q > math.MaxInt32 || max < 1 || max > math.MaxInt32 {
		panic(fmt.Sprintf("stats: NewMatrix(%d, %d): q and max must be in 1..%d", q, max, math.MaxInt32))
	}
	return &Matrix{q: q, max: max, planes: bits.Len(uint(max)), words: (q + 63) / 64}
}

// Add appends one model's scores, one per question, and returns the model's
// index. If a score is missing or out of range, Add returns -1 and an error
// naming the first bad value and its index, and leaves m unchanged.
func (m *Matrix) Add(scores []int) (int, error) {
	if len(scores) != m.q {
		return -1, fmt.Errorf("stats: got %d scores, want one per question (%d)", len(scores), m.q)
	}
	sum := 0
	for i, s := range scores {
		if s < 0 || s > m.max {
			return -1, fmt.Errorf("stats: score %d at index %d is outside 0..%d", s, i, m.max)
		}
		sum += s
	}
	n := m.planes * m.words
	start := len(m.bits)
	m.bits = append(m.bits, make([]uint64, n)...)
	row := m.bits[start:]
	for i, s := range scores {
		w, bit := i>>6, uint64(1)<<(i&63)
		for j := 0; s != 0; j, s = j+1, s>>1 {
			if s&1 != 0 {
				row[j*m.words+w] |= bit
			}
		}
	}
	m.sums = append(m.sums, sum)
	return len(m.sums) - 1, nil
}

// Models returns the number of models added.
func (m *Matrix) Models() int { return len(m.sums) }

// Questions returns the number of questions, q of NewMatrix.
func (m *Matrix) Questions() int { return m.q }

// Max returns the highest allowed score, max of NewMatrix.
func (m *Matrix) Max() int { return m.max }

// Mean returns model i's mean score per question; for 0/1 data, its accuracy.
func (m *Matrix) Mean(i int) float64 {
	return float64(m.sums[i]) / float64(m.q)
}

// row returns model i's bit-planes.
func (m *Matrix) row(i int) []uint64 {
	n := m.planes * m.words
	return m.bits[i*n : (i+1)*n]
}

// score returns model i's score on question q.
func (m *Matrix) score(i, q int) int {
	row := m.row(i)
	w, sh := q>>6, uint(q&63)
	s := 0
	for j := range m.planes {
		s |= int(row[j*m.words+w]>>sh&1) << j
	}
	return s
}

// PairCounts returns the number of questions on which model i scores higher
// than model j (b) and lower (c). For 0/1 data these are the discordant
// pairs that McNemarExact tests: i right and j wrong, and the reverse.
func (m *Matrix) PairCounts(i, j int) (b, c int) {
	if m.planes == 1 {
		x, y := m.row(i), m.row(j)
		for w := range x {
			b += bits.OnesCount64(x[w] &^ y[w])
			c += bits.OnesCount64(y[w] &^ x[w])
		}
		return b, c
	}
	for q := range m.q {
		switch si, sj := m.score(i, q), m.score(j, q); {
		case si > sj:
			b++
		case si < sj:
			c++
		}
	}
	return b, c
}

// Diffs returns, per question, model i's score minus model j's: the input
// of SignFlip.
func (m *Matrix) Diffs(i, j int) []int {
	d := make([]int, m.q)
	for q := range d {
		d[q] = m.score(i, q) - m.score(j, q)
	}
	return d
}
