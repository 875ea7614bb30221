// Command boardsim measures by simulation how often a board's rank
// statistics make a false claim when its models are equal, or equal in
// blocks: the family-wise error of stats.Compare, the one family of
// paired tests every board is ranked by (see docs/PERFORMANCE.md).
//
//	go run ./bench/boardsim [-questions FILE] [-boards 2000] [-models 10,30,67] [-alpha 0.05] [-seed 1] [-rubric 50]
//
// The difficulty of each question is the share of models that got it
// right in a FormationEval per-question results file (FILE: upstream's
// eval/results/questions.csv, or the three-model cut of it in
// ../shared/fixtures/formationeval), so that easy and hard questions, and
// the questions every model gets right, come as often as on that board.
// Two kinds of board are drawn:
//
//   - equal: every model answers question j right with that question's
//     probability p_j, each answer on its own;
//   - blocks: models come in blocks of five (the last may be smaller);
//     a block's models are equal, and block b answers question j right
//     with probability logistic(logit(p_j) + δ_b), the δ_b evenly spaced
//     from −2 to +2 (p_j is first kept within half a model of 0 and 1).
//
// A false claim is a pair declared different whose true accuracies are
// equal, or declared in the wrong direction. The family-wise error is the
// share of boards with at least one; each entry's range of ranks holds
// its true rank on every board without one, so one minus it bounds their
// joint coverage, which is measured too. With -rubric N, boards of N
// questions scored 0..10 are drawn as well: a model's points on question j
// are Binomial(10, p), questions drawn from the file's at random, and the
// test is the sign-flip test. The same flags always print the same figures.
package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/stats"
)

func main() {
	file := flag.String("questions", "../shared/fixtures/formationeval/responses_3_models.csv", "FormationEval per-question results (eval/results/questions.csv) giving the questions' difficulties")
	boards := flag.Int("boards", 2000, "simulated boards per row")
	sizes := flag.String("models", "10,30,67", "numbers of models, comma-separated")
	alpha := flag.Float64("alpha", 0.05, "family-wise level")
	seed := flag.Uint64("seed", 1, "seed of the simulation")
	rubric := flag.Int("rubric", 0, "questions of the rubric boards (0: none)")
	flag.Parse()
	ns, err := parseSizes(*sizes)
	if flag.NArg() > 0 || err != nil || *boards <= 0 || !(*alpha > 0 && *alpha < 1) || *rubric < 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/boardsim [-questions FILE] [-boards N] [-models 10,30,67] [-alpha A] [-seed N] [-rubric Q]")
		os.Exit(2)
	}
	f, err := os.Open(*file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "boardsim: %v\n(the difficulties come from FormationEval's eval/results/questions.csv, or ../shared/fixtures/formationeval/responses_3_models.csv)\n", err)
		os.Exit(1)
	}
	p, models, err := difficulties(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "boardsim: %s: %v\n", *file, err)
		os.Exit(1)
	}
	fmt.Printf("%d questions, difficulties from %d models of %s; mean p %.3f, %d questions every model got right, %d none did\n",
		len(p), models, *file, mean(p), count(p, 1), count(p, 0))
	fmt.Printf("%d boards per row, α = %g, seed %d\n\n", *boards, *alpha, *seed)
	fmt.Println("| Board | Models | Family-wise error (± s.e.) | All ranges hold | Pairs separated, mean |")
	fmt.Println("|---|---|---|---|---|")
	kinds := []string{"mcq"}
	if *rubric > 0 {
		kinds = append(kinds, "rubric")
	}
	for _, kind := range kinds {
		for _, blocks := range []bool{false, true} {
			for _, n := range ns {
				c := config{kind: kind, blocks: blocks, models: n, p: p, rubricQ: *rubric, clip: 0.5 / float64(models), alpha: *alpha}
				r := c.run(*boards, *seed)
				se := math.Sqrt(r.fwer * (1 - r.fwer) / float64(*boards))
				fmt.Printf("| %s | %d | %.2f%% ± %.2f%% | %.2f%% | %.1f of %d |\n", c.name(), n, 100*r.fwer, 100*se, 100*r.covered, r.separated, n*(n-1)/2)
			}
		}
	}
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("bad number of models %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// difficulties reads a FormationEval per-question results file and gives,
// per question, the share of its models that answered right, and the
// number of models.
func difficulties(r io.Reader) ([]float64, int, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, 0, err
	}
	if len(recs) < 2 {
		return nil, 0, errors.New("no questions")
	}
	var cols []int
	for i, h := range recs[0] {
		if strings.HasSuffix(h, "_correct") {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return nil, 0, errors.New("no <model>_correct column")
	}
	p := make([]float64, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		right := 0
		for _, c := range cols {
			switch rec[c] {
			case "True":
				right++
			case "False":
			default:
				return nil, 0, fmt.Errorf("question %s: %q is neither True nor False", rec[0], rec[c])
			}
		}
		p = append(p, float64(right)/float64(len(cols)))
	}
	return p, len(cols), nil
}

type config struct {
	kind    string // mcq or rubric
	blocks  bool
	models  int
	p       []float64
	rubricQ int
	clip    float64 // blocks: p kept within [clip, 1−clip]
	alpha   float64
}

func (c config) name() string {
	s := c.kind
	if c.kind == "rubric" {
		s += fmt.Sprintf(" (%d questions, 0–10)", c.rubricQ)
	} else {
		s += fmt.Sprintf(" (%d questions)", len(c.p))
	}
	if c.blocks {
		return s + ", blocks of five"
	}
	return s + ", all equal"
}

// ability is each model's shift on the logit scale: 0 for all on an
// equal board; by block, from −2 to +2, on a board of blocks.
func (c config) ability() []float64 {
	a := make([]float64, c.models)
	if !c.blocks {
		return a
	}
	nb := (c.models + 4) / 5
	for i := range a {
		if nb > 1 {
			a[i] = -2 + 4*float64(i/5)/float64(nb-1)
		}
	}
	return a
}

type result struct {
	fwer, covered, separated float64
}

// run draws boards on all cores; board k's draws depend on the seed, the
// row and k alone, so the figures do not depend on the cores.
func (c config) run(boards int, seed uint64) result {
	ability := c.ability()
	row := uint64(c.models)<<2 | map[bool]uint64{false: 0, true: 1}[c.blocks]<<1 | map[string]uint64{"mcq": 0, "rubric": 1}[c.kind]
	type tally struct{ false, uncovered, separated int }
	out := make([]tally, boards)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for k := range next {
				rng := rand.New(rand.NewPCG(seed, row<<32|uint64(k)))
				m, truth := c.board(rng, ability)
				f := stats.Compare(m, c.alpha)
				out[k] = tally{boolInt(falseClaim(f, truth)), boolInt(!ranksHold(f, truth)), f.Separated()}
			}
		})
	}
	for k := range boards {
		next <- k
	}
	close(next)
	wg.Wait()
	var t tally
	for _, o := range out {
		t.false += o.false
		t.uncovered += o.uncovered
		t.separated += o.separated
	}
	b := float64(boards)
	return result{fwer: float64(t.false) / b, covered: 1 - float64(t.uncovered)/b, separated: float64(t.separated) / b}
}

// board draws one board: its matrix of scores and each model's true
// accuracy (rubric: true mean points), equal for equal abilities.
func (c config) board(rng *rand.Rand, ability []float64) (*stats.Matrix, []float64) {
	qs := c.p
	top := 1
	if c.kind == "rubric" {
		top = 10
		qs = make([]float64, c.rubricQ)
		for j := range qs {
			qs[j] = c.p[rng.IntN(len(c.p))]
		}
	}
	m := stats.NewMatrix(len(qs), top)
	truth := make([]float64, c.models)
	scores := make([]int, len(qs))
	for i := range c.models {
		for j, pj := range qs {
			q := pj
			if c.blocks {
				q = shift(pj, ability[i], c.clip)
			}
			truth[i] += float64(top) * q / float64(len(qs))
			scores[j] = 0
			for range top {
				if rng.Float64() < q {
					scores[j]++
				}
			}
		}
		if _, err := m.Add(scores); err != nil {
			panic(err)
		}
	}
	// Abilities equal to the last bit give equal truths; sums in another
	// order could differ in the last bit, so equal abilities are made
	// exactly equal.
	for i := range truth {
		for k := range i {
			if ability[k] == ability[i] {
				truth[i] = truth[k]
				break
			}
		}
	}
	return m, truth
}

// shift moves p by a on the logit scale, p first kept within [clip, 1−clip].
func shift(p, a, clip float64) float64 {
	p = min(max(p, clip), 1-clip)
	return 1 / (1 + math.Exp(-(math.Log(p/(1-p)) + a)))
}

// falseClaim reports whether the family declares some pair different
// whose true values are equal, or declares it the wrong way round.
func falseClaim(f *stats.Family, truth []float64) bool {
	n := f.Models()
	for i := range n {
		for j := range n {
			if f.Better(i, j) && truth[i] <= truth[j] {
				return true
			}
		}
	}
	return false
}

// ranksHold reports whether every model's range of ranks holds its true
// rank, 1 + the models truly better.
func ranksHold(f *stats.Family, truth []float64) bool {
	best, worst := f.Ranks()
	for i := range truth {
		rank := 1
		for j := range truth {
			if truth[j] > truth[i] {
				rank++
			}
		}
		if rank < best[i] || rank > worst[i] {
			return false
		}
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func mean(p []float64) float64 {
	s := 0.0
	for _, v := range p {
		s += v
	}
	return s / float64(len(p))
}

func count(p []float64, v float64) int {
	n := 0
	for _, x := range p {
		if x == v {
			n++
		}
	}
	return n
}
