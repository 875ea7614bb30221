package ranking

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/benchgate/benchgate/submission"
	"hash/fnv"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/stats"
	"github.com/benchgate/benchgate/verify"
)

// Options tune the statistics. The zero value gives the defaults.
type Options struct {
	AsOf       string  // the date printed on the board (YYYY-MM-DD); none when empty
	Resamples  int     // bootstrap resamples; 0 means 10,000
	Seed       uint64  // bootstrap seed; 0 means DefaultSeed
	Confidence float64 // of the intervals; 0 means 0.95
	Alpha      float64 // family-wise, of each track's paired tests together; 0 means 0.05
	// Cache, when set, keeps each benchmark-and-track ranking between runs
	// (and, through Generate, the rendered parts of the page), under a
	// hash of everything it depends on: adding one submission recomputes
	// only its own group.
	Cache Store
	// Accepted are the submissions in review that a maintainer accepted
	// (acceptance.Record), by path, for this version of each: they are
	// ranked, marked with the decision.
	Accepted map[string]*Acceptance
}

// Store keeps bytes under keys; filecache.Dir is one.
type Store interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte)
}

// DefaultSeed fixes the bootstrap so that the same submissions always give
// the same board.
const DefaultSeed = 20260101

var dateRe = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

func (o Options) withDefaults() (Options, error) {
	if o.Resamples == 0 {
		o.Resamples = 10000
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	switch {
	case o.AsOf != "" && !dateRe.MatchString(o.AsOf):
		return o, fmt.Errorf("as-of date %q is not YYYY-MM-DD", o.AsOf)
	case o.Resamples < 1000:
		return o, fmt.Errorf("%d bootstrap resamples are too few for 95%% intervals; use at least 1,000", o.Resamples)
	case o.Confidence <= 0 || o.Confidence >= 1:
		return o, fmt.Errorf("confidence %v is not between 0 and 1", o.Confidence)
	case o.Alpha <= 0 || o.Alpha >= 1:
		return o, fmt.Errorf("alpha %v is not between 0 and 1", o.Alpha)
	}
	return o, nil
}

// Source gives the benchmarks that results were verified against; a
// *verify.Verifier is one.
type Source interface {
	Registry() *benchmark.Registry
	Benchmark(key string) (*benchmark.Benchmark, finding.List)
}

// Build ranks the submissions that passed verification, benchmark by
// benchmark and track by track, and lists the others with their reason.
func Build(src Source, results []verify.Result, opts Options) (*Board, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	board := &Board{
		AsOf:       opts.AsOf,
		Method:     Method{Confidence: opts.Confidence, Resamples: opts.Resamples, Seed: opts.Seed, Alpha: opts.Alpha},
		Benchmarks: []Benchmark{},
	}
	byKey := map[string][]verify.Result{}
	for _, r := range results {
		if _, ok := src.Registry().Lookup(r.RubricKey); !ok {
			board.Unmatched = append(board.Unmatched, excluded(r, string(r.Status), reason(r)))
			continue
		}
		byKey[r.RubricKey] = append(byKey[r.RubricKey], r)
	}
	// Benchmarks are independent: they are built at once, each in its
	// place; their errors are reported together, in registry order.
	entries := src.Registry().Entries
	board.Benchmarks = make([]Benchmark, len(entries))
	errs := make([]error, len(entries))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			b, _ := src.Benchmark(e.Key)
			board.Benchmarks[i], errs[i] = buildBenchmark(e, b, byKey[e.Key], opts)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return board, nil
}

func buildBenchmark(e benchmark.Entry, b *benchmark.Benchmark, results []verify.Result, opts Options) (Benchmark, error) {
	out := Benchmark{Key: e.Key, Label: e.Label, Kind: e.Kind, JudgeModel: e.JudgeModel, Entries: []Entry{}, Excluded: []Excluded{}}
	out.Description, out.License, out.URL = e.Description, e.License, e.URL
	if b != nil {
		out.Questions = b.Questions()
		out.MaxScore = 1
		if b.Rubric != nil {
			out.MaxScore = float64(b.Rubric.TotalPoints)
		}
		out.MinPairedP = stats.MinPairedP(out.Questions)
		if b.Rubric != nil && out.Questions < MinCoveredQuestions {
			out.IntervalWarning = fmt.Sprintf("With %d %s, the intervals of the means cover less than their %.0f%%: by simulation the t interval covers 90.7%% at 5 questions and 92.2%% at 20 for a model with a tenth of its answers at 0, against 94.5%% at 50 (docs/PERFORMANCE.md). Read them as wider than drawn.",
				out.Questions, plural(out.Questions, "question", "questions"), 100*opts.Confidence)
		}
		if b.Stats != nil {
			out.KeyLetters = b.Stats.KeyCounts
			rate := b.Stats.LongestRate
			out.LongestRate = &rate
		}
	}
	groups := map[submission.Track][]verify.Result{}
	for _, r := range results {
		switch {
		case b == nil || r.Outcomes == nil || r.Meta == nil:
			out.Excluded = append(out.Excluded, excluded(r, string(r.Status), reason(r)))
		case r.Status == verify.Pass || (r.Status == verify.Review && opts.Accepted[r.Path] != nil):
			t := track(r.Path)
			groups[t] = append(groups[t], r)
		case onlyJudgeErrors(r):
			x := excluded(r, "other-judge", fmt.Sprintf("graded by %q; this benchmark ranks only answers graded by its fixed judge %q", r.Meta.JudgeModel, e.JudgeModel))
			s := meanPoints(r.Outcomes.Points)
			x.Score = &s
			out.Excluded = append(out.Excluded, x)
		default:
			out.Excluded = append(out.Excluded, excluded(r, string(r.Status), reason(r)))
		}
	}
	out.Tracks = []TrackStats{}
	for _, t := range submission.Tracks {
		g, err := cachedRankGroup(e, b, t, groups[t], opts)
		if err != nil {
			return out, err
		}
		if len(g.Entries) > 0 {
			// The decision is not part of the ranking (nor of its cache):
			// it only marks the entry.
			for i := range g.Entries {
				g.Entries[i].Acceptance = opts.Accepted[g.Entries[i].Path]
			}
			out.Entries = append(out.Entries, g.Entries...)
			out.Tracks = append(out.Tracks, g.Stats)
		}
	}
	sort.SliceStable(out.Excluded, func(i, j int) bool { return out.Excluded[i].Path < out.Excluded[j].Path })
	return out, nil
}

// rankedGroup is one benchmark and track, ranked: its entries, best first,
// and what its family of paired tests says as a whole. It is also what
// the cache keeps.
type rankedGroup struct {
	Entries []Entry
	Stats   TrackStats
}

// cachedRankGroup is rankGroup through the cache.
func cachedRankGroup(e benchmark.Entry, b *benchmark.Benchmark, track submission.Track, rs []verify.Result, opts Options) (rankedGroup, error) {
	if opts.Cache == nil || len(rs) == 0 {
		return rankGroup(e, b, track, rs, opts)
	}
	h := sha256.New()
	fmt.Fprintf(h, "rank-group 4\n%s\n%+v\n%s\n%s\n%s\n", filecache.CodeVersion(), Method{opts.Confidence, opts.Resamples, opts.Seed, opts.Alpha}, e.Key, b.SHA256, track)
	for _, r := range rs {
		d, err := r.Digest()
		if err != nil {
			return rankGroup(e, b, track, rs, opts)
		}
		h.Write(d[:])
	}
	key := hex.EncodeToString(h.Sum(nil))
	if data, ok := opts.Cache.Get(key); ok {
		if g, err := decodeGroup(data); err == nil && len(g.Entries) == len(rs) {
			return g, nil
		}
	}
	g, err := rankGroup(e, b, track, rs, opts)
	if err == nil {
		if data, err := encodeGroup(g); err == nil {
			opts.Cache.Put(key, data)
		}
	}
	return g, err
}

// encodeGroup is how a ranked group is cached: as leaderboard.json holds
// its entries and its track's statistics, which is every field of each
// (TestGroupRecordRoundTrip holds it to that).
func encodeGroup(g rankedGroup) ([]byte, error) { return json.Marshal(g) }

func decodeGroup(data []byte) (rankedGroup, error) {
	var g rankedGroup
	err := json.Unmarshal(data, &g)
	return g, err
}

// rankGroup ranks the passing submissions of one benchmark and track.
func rankGroup(e benchmark.Entry, b *benchmark.Benchmark, track submission.Track, rs []verify.Result, opts Options) (rankedGroup, error) {
	if len(rs) == 0 {
		return rankedGroup{}, nil
	}
	q := b.Questions()
	if q == 0 {
		return rankedGroup{}, fmt.Errorf("benchmark %q has no questions to rank on", e.Key)
	}
	maxScore := 1
	if b.Rubric != nil {
		maxScore = b.Rubric.TotalPoints
	}
	m := stats.NewMatrix(q, maxScore)
	var idx *mcqIndex
	if b.Rubric == nil {
		idx = newMCQIndex(b)
	}
	entries := make([]Entry, len(rs))
	for i, r := range rs {
		if _, err := m.Add(groupScores(r, b, q, false)); err != nil {
			return rankedGroup{}, fmt.Errorf("%s: %w", r.Path, err)
		}
		entries[i] = newEntry(r, b, idx, m.Mean(i))
	}
	seed := groupSeed(opts.Seed, e.Key, track)
	boot := m.Bootstrap(opts.Resamples, seed, opts.Confidence)
	for i := range entries {
		en := &entries[i]
		en.RankLow, en.RankHigh = boot.RankLo[i], boot.RankHi[i]
		if b.Rubric != nil {
			// The bootstrap's percentile interval takes a small sample's
			// spread at face value; the t interval holds its level far
			// better (docs/PERFORMANCE.md). The bootstrap still gives
			// the marginal rank ranges, which compare models on the same
			// draws.
			all, scored := rubricScores(rs[i].Outcomes.Points)
			en.CILow, en.CIHigh = stats.MeanInterval(all, maxScore, opts.Confidence)
			if len(scored) > 0 {
				lo, hi := stats.MeanInterval(scored, maxScore, opts.Confidence)
				en.Rubric.ScoredCILow, en.Rubric.ScoredCIHigh = &lo, &hi
			}
		} else {
			en.CILow, en.CIHigh = stats.Wilson(*en.Correct, q, opts.Confidence)
		}
	}
	fam := stats.Compare(m, opts.Alpha)
	best, worst := fam.Ranks()
	for i := range entries {
		entries[i].RankUB, entries[i].RankWorst, entries[i].CouldBeBest = best[i], worst[i], best[i] == 1
	}
	// Best first; equal scores in a stable, readable order. Nothing the
	// family says depends on this order.
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, c := &entries[order[x]], &entries[order[y]]
		if a.Score != c.Score {
			return a.Score > c.Score
		}
		if a.ModelName != c.ModelName {
			return a.ModelName < c.ModelName
		}
		return a.Slug < c.Slug
	})
	g := rankedGroup{Entries: make([]Entry, len(order)), Stats: TrackStats{
		Track:      track,
		Entries:    len(entries),
		Pairs:      fam.Pairs(),
		Separated:  fam.Separated(),
		TooSmall:   stats.TooSmallToSeparate(q, len(entries), opts.Alpha),
		Boundaries: []Separation{},
	}}
	separation := func(better, worse int, fragile bool) Separation {
		w, l := m.PairCounts(better, worse)
		return Separation{Better: entries[better].Slug, Worse: entries[worse].Slug, BetterWins: w, WorseWins: l,
			P: fam.P(better, worse), PHolm: fam.Adjusted(better, worse), Fragile: fragile}
	}
	// A boundary never falls between equal scores, so the first Above
	// entries in this order are the ones above it.
	bounds := fam.Boundaries()
	for k, bd := range bounds {
		s := separation(bd.Better, bd.Worse, bd.Fragile)
		s.Group = k + 1
		g.Stats.Boundaries = append(g.Stats.Boundaries, s)
	}
	for k, i := range order {
		en := entries[i]
		en.Group = 1
		for _, bd := range bounds {
			if k >= bd.Above {
				en.Group++
			}
		}
		// Competition ranking: equal scores share the better rank.
		en.Rank = k + 1
		if k > 0 && en.Score == g.Entries[k-1].Score {
			en.Rank = g.Entries[k-1].Rank
		}
		if en.CouldBeBest {
			g.Stats.CouldBeBest++
		}
		g.Entries[k] = en
	}
	if top, ok := fam.Top(); ok {
		s := separation(top.Better, top.Worse, top.Fragile)
		g.Stats.Top = &s
		if b.Rubric == nil {
			g.Stats.Unverifiable = unverifiableCheck(rs, b, q, best, opts.Alpha)
		}
	}
	return g, nil
}

// groupScores is a submission's score per question as the board ranks
// it: mcq 1 for a correct answer, else 0, and with uncredit set 0 for a
// correct answer that verification could not re-read; rubric the points,
// an unscored answer earning nothing.
func groupScores(r verify.Result, b *benchmark.Benchmark, q int, uncredit bool) []int {
	scores := make([]int, q)
	if b.Rubric != nil {
		for j, p := range r.Outcomes.Points {
			scores[j] = max(p, 0)
		}
		return scores
	}
	o := r.Outcomes
	for j, c := range o.Correct {
		if c && !(uncredit && j < len(o.Unverifiable) && o.Unverifiable[j]) {
			scores[j] = 1
		}
	}
	return scores
}

// unverifiableCheck compares which entries could be the best, as best
// says, with what the same family says once every credited answer that
// could not be verified is not credited; nil when no entry has one.
func unverifiableCheck(rs []verify.Result, b *benchmark.Benchmark, q int, best []int, alpha float64) *UnverifiableCheck {
	c := &UnverifiableCheck{}
	for _, r := range rs {
		o := r.Outcomes
		n := 0
		for j, v := range o.Unverifiable {
			if v && o.Correct[j] {
				n++
			}
		}
		if n > 0 {
			c.Entries++
			c.Answers += n
		}
	}
	if c.Entries == 0 {
		return nil
	}
	m := stats.NewMatrix(q, 1)
	for _, r := range rs {
		m.Add(groupScores(r, b, q, true)) // the same scores as the board's, or fewer: always valid
	}
	after, _ := stats.Compare(m, alpha).Ranks()
	c.Holds = true
	for i := range after {
		if after[i] == 1 {
			c.CouldBeBest++
		}
		if (after[i] == 1) != (best[i] == 1) {
			c.Holds = false
		}
	}
	return c
}

// MinCoveredQuestions is the size of a rubric benchmark from which the t
// interval of a mean held its 95% in the simulation of docs/PERFORMANCE.md
// (94.5% at 50 questions, 93.4% at 30, 92.2% at 20 and 90.7% at 5); a
// smaller one's board says so (Benchmark.IntervalWarning).
const MinCoveredQuestions = 50

// rubricScores returns a rubric submission's points per question with an
// unscored answer counted as 0, and the points of the scored answers only.
func rubricScores(points []int) (all, scored []int) {
	all = make([]int, len(points))
	for j, p := range points {
		all[j] = max(p, 0)
		if p >= 0 {
			scored = append(scored, p)
		}
	}
	return all, scored
}

func groupSeed(seed uint64, key string, track submission.Track) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key + "\x00" + string(track)))
	return seed ^ h.Sum64()
}

func newEntry(r verify.Result, b *benchmark.Benchmark, idx *mcqIndex, mean float64) Entry {
	m := r.Meta
	en := Entry{
		Slug:             slug(r.Path),
		Track:            track(r.Path),
		Path:             r.Path,
		ModelName:        m.ModelName,
		CandidateModelID: m.CandidateModelID,
		Score:            mean,
		N:                b.Questions(),
		Submitter:        m.Submitter,
		ContactOrRepo:    m.ContactOrRepo,
		Date:             m.Date,
		HarnessName:      m.HarnessName,
		HarnessRepo:      m.HarnessRepo,
		Notes:            m.Notes,
		OpenWeights:      m.OpenWeights,
		PriceInput:       m.PriceInput,
		PriceOutput:      m.PriceOutput,
	}
	s := r.Summary
	if b.Rubric != nil {
		d := &RubricDetail{Adjudications: deref(s.Adjudications), Unscored: deref(s.Unscored), MeanScored: s.Mean}
		if s.GatePassRate != nil {
			d.GatePassRate = *s.GatePassRate
		}
		en.Rubric = d
		return en
	}
	correct := 0
	for _, c := range r.Outcomes.Correct {
		if c {
			correct++
		}
	}
	en.Correct = &correct
	en.MCQ = mcqDetail(r, idx)
	return en
}

// mcqIndex numbers a benchmark's difficulties, domains and sources once,
// so that each entry's breakdowns are counted in arrays, not maps.
type mcqIndex struct {
	difficulties, domains, sources []string
	difficulty, source             []int   // per item; -1 when absent
	domain                         [][]int // per item
	longest                        []int   // per item: the uniquely longest choice, or -1
}

func newMCQIndex(b *benchmark.Benchmark) *mcqIndex {
	x := &mcqIndex{}
	number := func(names *[]string, ids map[string]int, name string) int {
		if name == "" {
			return -1
		}
		i, ok := ids[name]
		if !ok {
			i = len(*names)
			ids[name] = i
			*names = append(*names, name)
		}
		return i
	}
	dIDs, domIDs, sIDs := map[string]int{}, map[string]int{}, map[string]int{}
	for i := range b.Items {
		it := &b.Items[i]
		x.difficulty = append(x.difficulty, number(&x.difficulties, dIDs, it.Difficulty))
		x.source = append(x.source, number(&x.sources, sIDs, it.SourceID))
		var doms []int
		for _, d := range it.Domains {
			doms = append(doms, number(&x.domains, domIDs, d))
		}
		x.domain = append(x.domain, doms)
		x.longest = append(x.longest, it.LongestChoice())
	}
	return x
}

func mcqDetail(r verify.Result, x *mcqIndex) *MCQDetail {
	o := r.Outcomes
	s := r.Summary
	d := &MCQDetail{
		ByDifficulty:   map[string]Count{},
		ByDomain:       map[string]Count{},
		Letters:        map[string]int{"A": 0, "B": 0, "C": 0, "D": 0, "none": 0},
		ParseFailures:  deref(s.ParseFailures),
		EmptyResponses: deref(s.EmptyResponses),
		LengthFinishes: deref(s.LengthFinishes),
		Errors:         deref(s.Errors),
		MeanLatencyMS:  s.MeanLatencyMS,
	}
	byDiff := make([]Count, len(x.difficulties))
	byDom := make([]Count, len(x.domains))
	bySource := make([]Count, len(x.sources))
	var letters [5]int // A–D, none
	uniqueLongest, pickedLongest := 0, 0
	for i, ok := range o.Correct {
		add := func(c *Count) {
			c.Total++
			if ok {
				c.Correct++
			}
		}
		if k := x.difficulty[i]; k >= 0 {
			add(&byDiff[k])
		}
		for _, k := range x.domain[i] {
			add(&byDom[k])
		}
		if k := x.source[i]; k >= 0 {
			add(&bySource[k])
		}
		l := o.Letters[i]
		if l >= 'A' && l <= 'D' {
			letters[l-'A']++
		} else {
			letters[4]++
		}
		if li := x.longest[i]; li >= 0 {
			uniqueLongest++
			if l == benchmark.Letters[li] {
				pickedLongest++
			}
		}
	}
	for i, n := range letters[:4] {
		d.Letters[string(benchmark.Letters[i])] = n
	}
	d.Letters["none"] = letters[4]
	fill := func(m map[string]Count, names []string, counts []Count) {
		for i, c := range counts {
			if c.Total > 0 {
				c.Accuracy = float64(c.Correct) / float64(c.Total)
				m[names[i]] = c
			}
		}
	}
	fill(d.ByDifficulty, x.difficulties, byDiff)
	fill(d.ByDomain, x.domains, byDom)
	if len(x.sources) > 0 {
		sum := 0.0
		for _, c := range bySource {
			sum += float64(c.Correct) / float64(c.Total)
		}
		macro := sum / float64(len(x.sources))
		d.MacroBySource = &macro
		d.Sources = len(x.sources)
	}
	// Over all questions, like the benchmark's own rate of keys that are
	// the longest choice: a model with no length bias that answers every
	// question right matches that rate; one drawn to long answers exceeds it.
	if uniqueLongest > 0 {
		rate := float64(pickedLongest) / float64(len(o.Correct))
		d.LongestPicked = &rate
	}
	return d
}

func meanPoints(points []int) float64 {
	if len(points) == 0 {
		return 0
	}
	sum := 0
	for _, p := range points {
		sum += max(p, 0)
	}
	return float64(sum) / float64(len(points))
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// onlyJudgeErrors reports whether a result failed only because its answers
// were graded by another judge than the benchmark's.
func onlyJudgeErrors(r verify.Result) bool {
	if r.Status != verify.Fail || len(r.Errors) == 0 || r.Outcomes == nil || r.Outcomes.Points == nil {
		return false
	}
	for _, f := range r.Errors {
		if f.Code != "judge.mismatch" && f.Code != "judge.row-mismatch" {
			return false
		}
	}
	return true
}

func excluded(r verify.Result, status, why string) Excluded {
	x := Excluded{Slug: slug(r.Path), Track: track(r.Path), Path: r.Path, Status: status, Reason: why}
	if r.Meta != nil {
		x.ModelName = r.Meta.ModelName
	}
	return x
}

// reason gives the first thing a maintainer must look at.
func reason(r verify.Result) string {
	list := r.Errors
	if len(list) == 0 {
		list = r.Warnings
	}
	if len(list) == 0 {
		return "not verified"
	}
	f := list[0]
	s := strings.TrimPrefix(f.String(), r.Path+"/")
	if n := len(list) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more)", n)
	}
	return s
}

// slug and track read a verified submission's folder.
func slug(p string) string {
	f, _ := submission.ParseFolder(p)
	return f.Slug
}

func track(p string) submission.Track {
	f, _ := submission.ParseFolder(p)
	return f.Track
}
