package stats

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// BootstrapResult holds, per model in the order added, what a bootstrap of
// the questions says about it.
type BootstrapResult struct {
	// Lo and Hi bound the percentile interval of the model's mean score.
	Lo, Hi []float64
	// RankLo and RankHi bound the ranks the model takes in the central
	// share of resamples; 1 is best, so RankLo <= RankHi.
	RankLo, RankHi []int
}

// Bootstrap resamples the questions b times with replacement and reports,
// for every model, a percentile interval of its mean at level conf and the
// range of ranks it holds.
//
// Every resample is shared by all models, so comparisons between models are
// paired: a hard draw of questions is hard for everyone. In each resample a
// model's rank is 1 plus the number of models with a strictly higher total,
// so tied models share the better rank. With t = ⌊b·(1−conf)/2⌋, Lo and Hi
// are the (t+1)-th smallest and (t+1)-th largest of the model's b resampled
// means, and RankLo and RankHi the same order statistics of its b ranks; at
// least a conf share of resamples lies within each range.
//
// Resample r draws from a PCG generator seeded from (seed, r) alone, so the
// result depends on the arguments and the data, never on how many
// goroutines (runtime.GOMAXPROCS) share the work. Bootstrap panics if b < 1
// or conf is outside (0, 1).
func (m *Matrix) Bootstrap(b int, seed uint64, conf float64) BootstrapResult {
	if b < 1 || !(conf > 0 && conf < 1) {
		panic(fmt.Sprintf("stats: Bootstrap(%d, _, %v): want b >= 1 and 0 < conf < 1", b, conf))
	}
	n := m.Models()
	res := BootstrapResult{
		Lo:     make([]float64, n),
		Hi:     make([]float64, n),
		RankLo: make([]int, n),
		RankHi: make([]int, n),
	}
	if n == 0 {
		return res
	}

	// Resamples are processed in batches: first each resample's totals and
	// ranks (parallel over resamples), then per-model histograms (parallel
	// over models, so no locks). Memory is a batch of about 2^17 totals and
	// ranks plus the histograms, not b × n values, however many goroutines
	// run.
	procs := max(1, min(runtime.GOMAXPROCS(0), b))
	batch := min(b, max(64, (1<<17)/n))
	totals := make([]int, batch*n) // totals[r*n+i]: model i in resample r of the batch
	ranks := make([]int32, batch*n)
	workers := make([]*resampler, procs)
	for w := range workers {
		workers[w] = newResampler(m)
	}
	sumHist := make([]histogram, n)
	rankHist := make([]histogram, n)
	var wg sync.WaitGroup
	for start := 0; start < b; start += batch {
		count := min(batch, b-start)
		var next atomic.Int64
		for _, w := range workers {
			wg.Go(func() {
				for {
					r := int(next.Add(1) - 1)
					if r >= count {
						return
					}
					w.run(m, seed, uint64(start+r), totals[r*n:(r+1)*n], ranks[r*n:(r+1)*n])
				}
			})
		}
		wg.Wait()
		chunk := (n + procs - 1) / procs
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			wg.Go(func() {
				for i := lo; i < hi; i++ {
					for r := range count {
						sumHist[i].add(totals[r*n+i])
						rankHist[i].add(int(ranks[r*n+i]))
					}
				}
			})
		}
		wg.Wait()
	}

	t := tail(b, conf)
	for i := range n {
		res.Lo[i] = float64(sumHist[i].nth(t+1)) / float64(m.q)
		res.Hi[i] = float64(sumHist[i].nth(b-t)) / float64(m.q)
		res.RankLo[i] = rankHist[i].nth(t + 1)
		res.RankHi[i] = rankHist[i].nth(b - t)
	}
	return res
}

// tail returns how many of b ordered values fall outside each end of a
// central interval at level conf: ⌊b·(1−conf)/2⌋, with a little slack so
// that 10000 × 0.05 / 2 counts as 250 whichever way it rounds, and never so
// many that the ends cross.
func tail(b int, conf float64) int {
	x := float64(b) * (1 - conf) / 2
	t := int(math.Floor(x * (1 + 1e-12)))
	return min(t, (b-1)/2)
}

// resampler holds one goroutine's scratch space for drawing and scoring
// resamples.
type resampler struct {
	pcg    rand.PCG
	counts []uint32 // times each question was drawn
	planes []uint64 // bit-planes of counts: plane k at [k*words:][:words]
	used   int      // planes that may be non-zero after the last encode
	hist   []int32  // counting-sort buffer for ranks
	sorted []int    // sort buffer for ranks when totals are spread out

	// Workers' resamplers are allocated together; without padding two of
	// them can share a cache line, and every PCG step by one core would
	// evict the other's.
	_ [128]byte
}

// lowPlanes is how many count planes encode and total handle in one pass:
// a question is drawn 8 times or more in a resample with probability about
// 1e-5, so planes above these are nearly always empty.
const lowPlanes = 3

func newResampler(m *Matrix) *resampler {
	return &resampler{
		counts: make([]uint32, m.q),
		planes: make([]uint64, max(lowPlanes, bits.Len(uint(m.q)))*m.words),
	}
}

// run draws resample r and writes every model's total score in it to totals
// and its rank to ranks.
func (w *resampler) run(m *Matrix, seed, r uint64, totals []int, ranks []int32) {
	w.draw(m, seed, r)
	w.encode(m)
	for i := range totals {
		totals[i] = w.total(m, i)
	}
	w.rank(totals, ranks)
}

// draw draws q questions with replacement for resample r and counts how many
// times each was drawn. Each 64-bit PCG output gives two 32-bit numbers,
// mapped to [0, q) by multiplication (Lemire's method); the few that would
// bias the result are rejected, so every question is exactly equally likely.
func (w *resampler) draw(m *Matrix, seed, r uint64) {
	w.pcg.Seed(seed, mix64(r))
	q := uint32(m.q)
	reject := -q % q // 2^32 mod q: products with a low half below it are biased
	counts := w.counts
	for left := m.q; left > 0; {
		x := w.pcg.Uint64()
		if p := uint64(uint32(x)) * uint64(q); uint32(p) >= reject {
			counts[p>>32]++
			left--
		}
		if left == 0 {
			break
		}
		if p := (x >> 32) * uint64(q); uint32(p) >= reject {
			counts[p>>32]++
			left--
		}
	}
}

// encode turns the counts of the last draw into bit-planes, 64 questions at
// a time without branches, and resets the counts to 0.
func (w *resampler) encode(m *Matrix) {
	counts, planes, words := w.counts, w.planes, m.words
	if w.used > lowPlanes {
		clear(planes[lowPlanes*words : w.used*words])
	}
	var seen uint32 // OR of all counts: its length is that of the largest
	for word := range words {
		chunk := counts[word*64 : min(len(counts), word*64+64)]
		var p0, p1, p2 uint64
		var all uint32
		for i, c := range chunk {
			p0 |= uint64(c&1) << uint(i)
			p1 |= uint64(c>>1&1) << uint(i)
			p2 |= uint64(c>>2&1) << uint(i)
			all |= c
		}
		planes[word], planes[words+word], planes[2*words+word] = p0, p1, p2
		for k := lowPlanes; all>>k != 0; k++ {
			var p uint64
			for i, c := range chunk {
				p |= uint64(c>>k&1) << uint(i)
			}
			planes[k*words+word] = p
		}
		seen |= all
	}
	clear(counts)
	w.used = max(lowPlanes, bits.Len32(seen))
}

// total returns model i's total score in the last resample encoded:
// Σ_q count_q·score_q = Σ_j Σ_k 2^(j+k)·popcount(count plane k AND score
// plane j). The low count planes share one pass over the model's words.
func (w *resampler) total(m *Matrix, i int) int {
	words := m.words
	row := m.row(i)
	c0 := w.planes[:words]
	c1 := w.planes[words : 2*words]
	c2 := w.planes[2*words : 3*words]
	sum := 0
	for j := range m.planes {
		x := row[j*words : (j+1)*words]
		c0, c1, c2 := c0[:len(x)], c1[:len(x)], c2[:len(x)]
		var n0, n1, n2 int
		for v, xv := range x {
			n0 += bits.OnesCount64(xv & c0[v])
			n1 += bits.OnesCount64(xv & c1[v])
			n2 += bits.OnesCount64(xv & c2[v])
		}
		sum += (n0 + n1<<1 + n2<<2) << j
		for k := lowPlanes; k < w.used; k++ {
			c := w.planes[k*words : (k+1)*words]
			c = c[:len(x)]
			n := 0
			for v, xv := range x {
				n += bits.OnesCount64(xv & c[v])
			}
			sum += n << (j + k)
		}
	}
	return sum
}

// rank sets ranks[i] to 1 plus the number of totals strictly above
// totals[i]. Totals are integers, usually within a narrow span, so a
// counting sort does it in linear time; widely spread totals are sorted.
func (w *resampler) rank(totals []int, ranks []int32) {
	lo, hi := slices.Min(totals), slices.Max(totals)
	if span := hi - lo + 1; span <= 4*len(totals)+256 {
		if cap(w.hist) < span {
			w.hist = make([]int32, span)
		}
		h := w.hist[:span]
		clear(h)
		for _, t := range totals {
			h[t-lo]++
		}
		var above int32
		for v := span - 1; v >= 0; v-- {
			above, h[v] = above+h[v], above
		}
		for i, t := range totals {
			ranks[i] = 1 + h[t-lo]
		}
		return
	}
	w.sorted = append(w.sorted[:0], totals...)
	slices.Sort(w.sorted)
	for i, t := range totals {
		j, _ := slices.BinarySearch(w.sorted, t+1) // first total above t
		ranks[i] = int32(1 + len(totals) - j)
	}
}

// histogram counts integer values; its range grows to fit what it is given,
// which for one model's totals or ranks is usually narrow.
type histogram struct {
	off    int     // value counted by counts[0]
	counts []int32 // counts[v-off]
}

func (h *histogram) add(v int) {
	if i := v - h.off; uint(i) < uint(len(h.counts)) {
		h.counts[i]++
		return
	}
	h.grow(v)
	h.counts[v-h.off]++
}

// grow widens the range to include v, with room to spare on that side so
// that a drifting model costs few copies.
func (h *histogram) grow(v int) {
	if len(h.counts) == 0 {
		h.off, h.counts = v-8, make([]int32, 17)
		return
	}
	lo, hi := h.off, h.off+len(h.counts)
	pad := len(h.counts)/2 + 8
	if v < lo {
		lo = v - pad
	}
	if v >= hi {
		hi = v + 1 + pad
	}
	c := make([]int32, hi-lo)
	copy(c[h.off-lo:], h.counts)
	h.off, h.counts = lo, c
}

// nth returns the r-th smallest value counted, 1-based.
func (h *histogram) nth(r int) int {
	seen := 0
	for i, c := range h.counts {
		seen += int(c)
		if seen >= r {
			return h.off + i
		}
	}
	panic("stats: histogram holds fewer values than asked for")
}
