package ranking

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/submission"
	"html/template"
	"io"
	"net/url"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/internal/filecache"
)

// The page's template, style and script live in files of their own so that
// they read as HTML, CSS and JavaScript; they are compiled into the binary
// so that the published page never depends on anything beside it.
//
//go:embed page/index.html.tmpl page/style.css page/script.js
var pageFiles embed.FS

var (
	pageStyle  = mustReadPage("page/style.css")
	pageScript = mustReadPage("page/script.js")
	pageTmpl   = template.Must(template.New("index.html.tmpl").ParseFS(pageFiles, "page/index.html.tmpl"))
	// pageCSP allows the page's own style and script, by hash, and one
	// kind of request: its own script fetching the explorer's files from
	// the page's own origin (connect-src 'self'). No request leaves that
	// origin, and markup that slipped past escaping could neither run
	// script nor load anything.
	pageCSP = "default-src 'none'; style-src '" + cspHash(pageStyle) + "'; script-src '" + cspHash(pageScript) +
		"'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
)

func mustReadPage(name string) string {
	b, err := pageFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// PriceFormula says how the single price shown for an entry is made from
// its input and output prices.
const PriceFormula = "(3 × input price + output price) / 4"

// RenderHTML writes index.html: one self-contained page with a sortable,
// filterable table of every entry, a chart per benchmark and track, the
// details of each submission and the submissions that are not ranked. It
// loads nothing from anywhere, and the same board gives the same bytes.
func RenderHTML(w io.Writer, b *Board) error { return renderHTML(w, b, nil) }

// renderHTML is RenderHTML, with the page's parts kept in cache when it is
// set: a board of many submissions is mostly the rows of the table and
// the benchmarks' sections, and adding one submission changes the parts
// of one benchmark only.
func renderHTML(w io.Writer, b *Board, cache Store) error {
	v := newPageView(b)
	// The parts are rendered on their own, in parallel: each benchmark's
	// section, and its rows of the table in chunks.
	const rowsPerChunk = 200
	var jobs []func() error
	v.Sections = make([]template.HTML, len(v.Benchmarks))
	for i := range v.Benchmarks {
		jobs = append(jobs, func() error {
			return execute(cache, &v.Sections[i], "bench", &v.Benchmarks[i])
		})
	}
	var chunks [][]rowView
	for lo := 0; lo < len(v.Rows); {
		hi := lo + 1
		for hi < len(v.Rows) && hi-lo < rowsPerChunk && v.Rows[hi].Bench == v.Rows[lo].Bench {
			hi++
		}
		chunks = append(chunks, v.Rows[lo:hi])
		lo = hi
	}
	v.RowChunks = make([]template.HTML, len(chunks))
	for i, rows := range chunks {
		jobs = append(jobs, func() error { return execute(cache, &v.RowChunks[i], "rows", rows) })
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, job := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = job()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// execute renders one named part of the page into dst, through cache
// when it is set. The part is keyed by its data as JSON, which holds
// every exported field and so everything the template can read, and by
// the build, which holds the template.
func execute(cache Store, dst *template.HTML, name string, data any) error {
	var key string
	if cache != nil {
		if js, err := json.Marshal(data); err == nil {
			h := sha256.New()
			fmt.Fprintf(h, "html-part 1\n%s\n%s\n", filecache.CodeVersion(), name)
			h.Write(js)
			key = hex.EncodeToString(h.Sum(nil))
			if html, ok := cache.Get(key); ok {
				*dst = template.HTML(html)
				return nil
			}
		}
	}
	var sb bytes.Buffer
	if err := pageTmpl.ExecuteTemplate(&sb, name, data); err != nil {
		return err
	}
	*dst = template.HTML(sb.String())
	if key != "" {
		cache.Put(key, sb.Bytes())
	}
	return nil
}

type pageView struct {
	Title        string
	Intro        template.HTML // the maintainer's introduction, rendered like notes
	CSVFile      string
	CSP          string
	Style        template.CSS
	Script       template.JS
	AsOf         string
	Method       string
	PriceFormula string
	HasPrices    bool
	Benchmarks   []benchView
	Sections     []template.HTML // Benchmarks, rendered
	RowChunks    []template.HTML // Rows, rendered
	Rows         []rowView
	Tracks       []option
	Unmatched    []excludedView
	Explore      bool // the explorer's files are beside the page
	// Breakdowns are the table's optional columns, hidden until a reader
	// asks for them: accuracy by difficulty and by domain, from the
	// breakdowns of the multiple-choice entries.
	Breakdowns []breakdownGroup
}

// breakdownGroup is a set of optional columns the reader shows together.
type breakdownGroup struct {
	ID, Label string
	Columns   []breakdownColumn
}

type breakdownColumn struct{ Col, Label string }

// breakdownCell is an entry's value in one optional column.
type breakdownCell struct {
	Group          string
	Text, Sort     string
	Correct, Total int
}

type option struct{ Value, Label string }

type benchView struct {
	ID, Key, Label, Kind string
	Description, License string
	URL                  string // set only for an http(s) address
	Questions            int
	Judge                string
	LongestRate          string
	Tracks               []trackView
	Scatter              *scatterChart
	Unpriced             int // entries with prices that give only one of the two
	Excluded             []excludedView
	PriceFormula         string
}

type trackView struct {
	ID, Name, Note string
	Chart          *rankChart
	Entries        []entryView
}

type rowView struct {
	Bench, BenchLabel     string
	Track, TrackLabel     string
	Rank, N, GroupSort    int
	RankText, RankTitle   string
	RankBar               *miniChart // rank_ub..rank_worst of 1..n, the place a dot
	CouldBeBest           bool
	Group                 string // the number, or "–" where no group can be drawn
	Model, Harness, Match string
	Anchor                string
	Answers               string          // the entry's explorer file, "" when none is written
	Breakdown             []breakdownCell // one per column of pageView.Breakdowns, in order
	Score, CI, ScoreSort  string
	Submitter             string
	Open                  string
	Price, PriceTitle     string
	PriceSort             string
}

type entryView struct {
	ID             string
	Rank           int
	RankText       string
	Mini, RankMini *miniChart
	Group          string // "Group 2", or "" where no group can be drawn
	CouldBeBest    bool
	Model, Harness string
	Score, CI      string
	Facts          []fact
	Tables         []detailTable
	Remarks        []string
	Notes          template.HTML
}

// fact is one labelled value; URL is set only for http(s) addresses.
type fact struct{ Label, Text, URL string }

type detailTable struct {
	Caption string
	Head    []cell
	Rows    [][]cell
}

type cell struct {
	Text string
	Num  bool
}

type excludedView struct {
	Path, Model, Status, Reason string
}

func newPageView(b *Board) pageView {
	ids := idSet{}
	v := pageView{
		Title:        boardTitle(b),
		Intro:        renderNotes(b.Introduction),
		CSVFile:      CSVFile,
		CSP:          pageCSP,
		Style:        template.CSS(pageStyle),
		Script:       template.JS(pageScript),
		AsOf:         b.AsOf,
		Method:       methodText(b.Method),
		PriceFormula: PriceFormula,
		Tracks:       trackOptions(),
		Explore:      b.explore,
	}
	for i := range b.Benchmarks {
		bm := &b.Benchmarks[i]
		bv := benchView{PriceFormula: PriceFormula,
			ID:          ids.make("bench-" + bm.Key),
			Key:         bm.Key,
			Label:       benchLabel(bm),
			Kind:        kindName(bm.Kind),
			Questions:   bm.Questions,
			Judge:       bm.JudgeModel,
			Description: bm.Description,
			License:     bm.License,
		}
		if u, ok := webURL(bm.URL); ok {
			bv.URL = u
		}
		if bm.LongestRate != nil {
			bv.LongestRate = pct(*bm.LongestRate)
		}
		for _, t := range submission.Tracks {
			var es []Entry
			for _, e := range bm.Entries {
				if e.Track == t {
					es = append(es, e)
				}
			}
			if len(es) == 0 {
				continue
			}
			ts := trackStats(bm, t)
			tv := trackView{ID: ids.make(bv.ID + "-" + trackShort(t)), Name: trackName(t), Note: familyNoteFor(bm, es, b.Method.Alpha, func(s string) string { return s })}
			tv.Chart = newRankChart(tv.ID+"-chart", bm, ts, es, b.Method)
			for _, e := range es {
				ev := newEntryView(ids.make(bv.ID+"-"+trackShort(t)+"-"+e.Slug), bm, ts, len(es), e)
				tv.Entries = append(tv.Entries, ev)
				r := newRowView(bm, ts, len(es), bv.Label, e, ev.ID)
				if b.explore {
					r.Answers = AnswersFile(bm, e)
				}
				v.Rows = append(v.Rows, r)
			}
			bv.Tracks = append(bv.Tracks, tv)
		}
		bv.Scatter, bv.Unpriced = newScatterChart(bv.ID+"-price", bm, b.Method.Confidence)
		if bv.Scatter != nil {
			v.HasPrices = true
		}
		for _, x := range bm.Excluded {
			bv.Excluded = append(bv.Excluded, newExcludedView(x))
		}
		v.Benchmarks = append(v.Benchmarks, bv)
	}
	for _, x := range b.Unmatched {
		v.Unmatched = append(v.Unmatched, newExcludedView(x))
	}
	addBreakdowns(b, &v)
	return v
}

// breakdownKinds are the optional columns: what each breaks the score
// down by, and how its keys are ordered.
var breakdownKinds = []struct {
	ID, Label string
	of        func(*MCQDetail) map[string]Count
	order     func([]string)
}{
	{"difficulty", "Accuracy by difficulty", func(d *MCQDetail) map[string]Count { return d.ByDifficulty }, sortDifficulties},
	{"domain", "Accuracy by domain", func(d *MCQDetail) map[string]Count { return d.ByDomain }, func([]string) {}},
}

// addBreakdowns gives the table a column per difficulty and per domain
// any entry has, and each row its accuracy there ("–" where it has none).
// Rows are in board order, so entry i of the board is row i.
func addBreakdowns(b *Board, v *pageView) {
	var entries []*Entry
	for i := range b.Benchmarks {
		for _, t := range submission.Tracks {
			for j := range b.Benchmarks[i].Entries {
				if b.Benchmarks[i].Entries[j].Track == t {
					entries = append(entries, &b.Benchmarks[i].Entries[j])
				}
			}
		}
	}
	if len(entries) != len(v.Rows) {
		return
	}
	for _, k := range breakdownKinds {
		keys := map[string]bool{}
		for _, e := range entries {
			if e.MCQ != nil {
				for key := range k.of(e.MCQ) {
					keys[key] = true
				}
			}
		}
		if len(keys) == 0 {
			continue
		}
		order := sortedKeys(keys)
		k.order(order)
		g := breakdownGroup{ID: k.ID, Label: k.Label}
		for i, key := range order {
			g.Columns = append(g.Columns, breakdownColumn{Col: k.ID + "-" + strconv.Itoa(i+1), Label: key})
		}
		v.Breakdowns = append(v.Breakdowns, g)
		for i, e := range entries {
			for _, key := range order {
				c := breakdownCell{Group: k.ID, Text: "–"}
				if e.MCQ != nil {
					if n, ok := k.of(e.MCQ)[key]; ok {
						c.Text, c.Sort, c.Correct, c.Total = pct(n.Accuracy), strconv.FormatFloat(n.Accuracy, 'f', 4, 64), n.Correct, n.Total
					}
				}
				v.Rows[i].Breakdown = append(v.Rows[i].Breakdown, c)
			}
		}
	}
}

// methodText says how the numbers were computed, for LEADERBOARD.md and
// the page alike.
func methodText(m Method) string {
	return "Every number is computed by benchgate from the merged submissions that passed verification. " +
		fmt.Sprintf("Intervals are %.0f%%: Wilson score intervals for accuracy, and Student t intervals over questions for rubric means, where an unscored answer counts as 0, the conservative score that ranks; beside it, each entry gives the mean over its scored answers with its own interval. ", 100*m.Confidence) +
		"Within each benchmark and track, every two entries are compared on the same questions by an exact paired test (McNemar's for accuracy, the sign-flip test for rubric means), " +
		fmt.Sprintf("and all n(n−1)/2 of these tests are Holm-corrected together as one family fixed in advance (α = %g): the chance that the board calls any two equal entries different is at most %g%%, so what follows holds for all entries at once with %g%% confidence. ", m.Alpha, 100*m.Alpha, 100*(1-m.Alpha)) +
		"An entry's ranks run from 1 + the number of entries significantly better than it to n − the number significantly worse; it could be #1 when no entry is significantly better. " +
		"A boundary between groups stands where every entry above is significantly better than every entry below; each is given with the comparison across it nearest to undoing it (a fragile one if any, else the one with the largest adjusted p-value): the questions each of the two entries won over the other, and the p-value before and after Holm's correction. " +
		"The top separation, the weakest of the comparisons that keep entries from being #1, is given the same way; on multiple-choice questions the family is also computed again with the credited answers that verification could not re-read (responses stored cut short) not credited, to say whether the same entries could still be #1. " +
		"A separation is fragile when one answer credited differently (one question moved against the better entry), the other p-values as they are, would undo it. " +
		fmt.Sprintf("leaderboard.json also gives each entry's bootstrap rank range (%s paired resamples of the questions, seed %d), which is marginal: it holds for one entry at a time, not for all at once.", thousands(m.Resamples), m.Seed)
}

func newRowView(bm *Benchmark, ts *TrackStats, n int, label string, e Entry, anchor string) rowView {
	r := rowView{
		Bench:       bm.Key,
		BenchLabel:  label,
		Track:       string(e.Track),
		TrackLabel:  trackShortName(e.Track),
		Rank:        e.Rank,
		RankText:    rankText(e),
		RankTitle:   rankTitle(e, n),
		RankBar:     newRankMini(e, n),
		CouldBeBest: bestMarked(ts, e),
		Group:       groupCell(ts, e),
		GroupSort:   e.Group,
		N:           e.N,
		Model:       e.ModelName,
		Harness:     harnessSuffix(e),
		Match:       strings.ToLower(strings.TrimSpace(e.ModelName + " " + e.HarnessName)),
		Anchor:      anchor,
		Submitter:   e.Submitter,
		Open:        openWeights(e.OpenWeights),
	}
	r.Score, r.CI = scoreText(bm, e)
	// The table mixes scales, so it sorts by the share of the maximum score.
	r.ScoreSort = strconv.FormatFloat(share(bm, e.Score), 'f', 6, 64)
	r.Price, r.PriceTitle = priceText(e)
	if p, ok := blendedPrice(e); ok {
		r.PriceSort = strconv.FormatFloat(p, 'f', 6, 64)
	}
	return r
}

func newEntryView(id string, bm *Benchmark, ts *TrackStats, n int, e Entry) entryView {
	ev := entryView{ID: id, Rank: e.Rank, RankText: rankText(e), Mini: newMiniChart(bm, e), RankMini: newRankMini(e, n),
		Model: e.ModelName, Harness: harnessSuffix(e), CouldBeBest: bestMarked(ts, e)}
	if separates(ts) {
		ev.Group = "Group " + strconv.Itoa(e.Group)
	}
	ev.Score, ev.CI = scoreText(bm, e)
	add := func(label, text string) {
		if text != "" {
			ev.Facts = append(ev.Facts, fact{Label: label, Text: text})
		}
	}
	addURL := func(label, text string) {
		if text == "" {
			return
		}
		f := fact{Label: label, Text: text}
		if u, ok := webURL(text); ok {
			f.URL = u
		}
		ev.Facts = append(ev.Facts, f)
	}
	add("Submitter", e.Submitter)
	addURL("Contact or repository", e.ContactOrRepo)
	add("Date", e.Date)
	add("Model ID", e.CandidateModelID)
	add("Harness", e.HarnessName)
	addURL("Harness repository", e.HarnessRepo)
	add("Open weights", openWeights(e.OpenWeights))
	add("Price, USD per million tokens", priceFact(e))
	if e.Correct != nil {
		add("Correct", fmt.Sprintf("%d of %d", *e.Correct, e.N))
	} else {
		add("Questions", strconv.Itoa(e.N))
	}
	add("Ranks, 95% for all entries at once", rankFact(bm, ts, n, e))
	add("Group", groupFact(ts, e))
	add("Submission", e.Path)
	if a := e.Added; a != nil {
		f := fact{Label: "Added by", Text: addedText(a)}
		if u, ok := webURL(a.URL); ok {
			f.URL = u
		}
		ev.Facts = append(ev.Facts, f)
	}
	if r := e.Reproduction; r != nil {
		add("Reproduction", reproductionText(r))
	}
	if a := e.Acceptance; a != nil {
		add("Review", acceptanceText(a))
	}
	if d := e.MCQ; d != nil {
		ev.Tables, ev.Remarks = mcqTables(bm, d)
	}
	if d := e.Rubric; d != nil {
		add("Gate pass rate", pct(d.GatePassRate))
		add("Adjudications", strconv.Itoa(d.Adjudications))
		add("Unscored answers", strconv.Itoa(d.Unscored))
		if d.MeanScored != nil {
			text := fmt.Sprintf("%.2f", *d.MeanScored)
			if d.ScoredCILow != nil && d.ScoredCIHigh != nil {
				text += fmt.Sprintf(" (%.2f–%.2f; the score above, which ranks, counts unscored answers as 0)", *d.ScoredCILow, *d.ScoredCIHigh)
			}
			add("Mean over scored answers", text)
		}
	}
	ev.Notes = renderNotes(e.Notes)
	return ev
}

func mcqTables(bm *Benchmark, d *MCQDetail) ([]detailTable, []string) {
	var tables []detailTable
	var remarks []string
	if d.MacroBySource != nil {
		remarks = append(remarks, fmt.Sprintf("Macro accuracy by source: %s, the mean of the accuracies on %d sources, so that a large source does not dominate.", pct(*d.MacroBySource), d.Sources))
	}
	counts := func(caption, name string, m map[string]Count, order func([]string)) {
		if len(m) == 0 {
			return
		}
		keys := sortedKeys(m)
		order(keys)
		t := detailTable{Caption: caption, Head: []cell{{Text: name}, {Text: "Correct", Num: true}, {Text: "Questions", Num: true}, {Text: "Accuracy", Num: true}}}
		for _, k := range keys {
			c := m[k]
			t.Rows = append(t.Rows, []cell{{Text: k}, {Text: strconv.Itoa(c.Correct), Num: true}, {Text: strconv.Itoa(c.Total), Num: true}, {Text: pct(c.Accuracy), Num: true}})
		}
		tables = append(tables, t)
	}
	counts("By difficulty", "Difficulty", d.ByDifficulty, sortDifficulties)
	counts("By domain", "Domain", d.ByDomain, func([]string) {})

	if len(d.Letters) > 0 || len(bm.KeyLetters) > 0 {
		letters := map[string]bool{}
		chosen, keyed := 0, 0
		for k, n := range d.Letters {
			letters[k] = true
			chosen += n
		}
		for k, n := range bm.KeyLetters {
			letters[k] = true
			keyed += n
		}
		keys := sortedKeys(letters)
		// "none" is no answer at all, so it goes after the letters.
		sort.SliceStable(keys, func(i, j int) bool { return keys[i] != "none" && keys[j] == "none" })
		t := detailTable{Caption: "Chosen letters against the answer key", Head: []cell{{Text: "Letter"}, {Text: "Chosen", Num: true}, {Text: "Share chosen", Num: true}, {Text: "Key", Num: true}, {Text: "Share of key", Num: true}}}
		for _, k := range keys {
			t.Rows = append(t.Rows, []cell{{Text: k}, {Text: strconv.Itoa(d.Letters[k]), Num: true}, {Text: ratio(d.Letters[k], chosen), Num: true}, {Text: strconv.Itoa(bm.KeyLetters[k]), Num: true}, {Text: ratio(bm.KeyLetters[k], keyed), Num: true}})
		}
		tables = append(tables, t)
	}
	if d.LongestPicked != nil {
		s := fmt.Sprintf("Where one choice is uniquely the longest, this model picks it %s of the time", pct(*d.LongestPicked))
		if bm.LongestRate != nil {
			s += fmt.Sprintf("; it is the key in %s of all questions", pct(*bm.LongestRate))
		}
		remarks = append(remarks, s+".")
	}
	latency := "–"
	if d.MeanLatencyMS != nil {
		latency = fmt.Sprintf("%.0f ms", *d.MeanLatencyMS)
	}
	tables = append(tables, detailTable{
		Caption: "Diagnostics",
		Head:    []cell{{Text: "Parse failures", Num: true}, {Text: "Empty responses", Num: true}, {Text: "Length finishes", Num: true}, {Text: "Errors", Num: true}, {Text: "Mean latency", Num: true}},
		Rows: [][]cell{{
			{Text: strconv.Itoa(d.ParseFailures), Num: true}, {Text: strconv.Itoa(d.EmptyResponses), Num: true},
			{Text: strconv.Itoa(d.LengthFinishes), Num: true}, {Text: strconv.Itoa(d.Errors), Num: true}, {Text: latency, Num: true},
		}},
	})
	return tables, remarks
}

// sortDifficulties puts the usual difficulty words in their natural order
// and anything else after them, alphabetically.
func sortDifficulties(keys []string) {
	rank := map[string]int{"easy": 1, "medium": 2, "hard": 3, "expert": 4}
	sort.SliceStable(keys, func(i, j int) bool {
		ri, rj := rank[strings.ToLower(keys[i])], rank[strings.ToLower(keys[j])]
		if ri == 0 {
			ri = 100
		}
		if rj == 0 {
			rj = 100
		}
		return ri < rj
	})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func ratio(n, of int) string {
	if of == 0 {
		return "–"
	}
	return pct(float64(n) / float64(of))
}

func newExcludedView(x Excluded) excludedView {
	status := x.Status
	if x.Score != nil {
		status += fmt.Sprintf(" (self-reported %.2f)", *x.Score)
	}
	return excludedView{Path: x.Path, Model: x.ModelName, Status: status, Reason: x.Reason}
}

// scoreText gives an entry's score and its interval as the page prints them.
func scoreText(bm *Benchmark, e Entry) (score, ci string) {
	if bm.Kind == benchmark.KindMCQ {
		return pct(e.Score), fmt.Sprintf("%.1f–%.1f%%", 100*e.CILow, 100*e.CIHigh)
	}
	return fmt.Sprintf("%.2f / %s", e.Score, trimFloat(bm.MaxScore)), fmt.Sprintf("%.2f–%.2f", e.CILow, e.CIHigh)
}

// share is a score as a fraction of the benchmark's maximum.
func share(bm *Benchmark, s float64) float64 {
	if bm.MaxScore > 0 {
		return s / bm.MaxScore
	}
	return s
}

// blendedPrice is PriceFormula; it needs both prices.
func blendedPrice(e Entry) (float64, bool) {
	if e.PriceInput == nil || e.PriceOutput == nil {
		return 0, false
	}
	return (3**e.PriceInput + *e.PriceOutput) / 4, true
}

func priceText(e Entry) (text, title string) {
	if p, ok := blendedPrice(e); ok {
		return money(p), fmt.Sprintf("input %s, output %s per million tokens", money(*e.PriceInput), money(*e.PriceOutput))
	}
	switch {
	case e.PriceInput != nil:
		return "in " + money(*e.PriceInput), "input " + money(*e.PriceInput) + " per million tokens; no output price"
	case e.PriceOutput != nil:
		return "out " + money(*e.PriceOutput), "output " + money(*e.PriceOutput) + " per million tokens; no input price"
	}
	return "", ""
}

func priceFact(e Entry) string {
	var parts []string
	if e.PriceInput != nil {
		parts = append(parts, "input "+money(*e.PriceInput))
	}
	if e.PriceOutput != nil {
		parts = append(parts, "output "+money(*e.PriceOutput))
	}
	if p, ok := blendedPrice(e); ok {
		return money(p) + " blended (" + strings.Join(parts, ", ") + ")"
	}
	if len(parts) == 1 {
		return parts[0] + "; no blended price without both"
	}
	return ""
}

func money(v float64) string {
	if v != 0 && v < 0.01 {
		return "$" + strconv.FormatFloat(v, 'g', 2, 64)
	}
	return fmt.Sprintf("$%.2f", v)
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func openWeights(p *bool) string {
	switch {
	case p == nil:
		return "unknown"
	case *p:
		return "yes"
	}
	return "no"
}

func trackShort(t submission.Track) string { return t.Short() }

// trackShortName is the track's label: "Model" or "Harness".
func trackShortName(t submission.Track) string {
	s := t.Short()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// trackOptions are the page's track filter, one per track.
func trackOptions() []option {
	var out []option
	for _, t := range submission.Tracks {
		out = append(out, option{string(t), trackShortName(t)})
	}
	return out
}

// rankFact is an entry's ranks in words, for its details.
func rankFact(bm *Benchmark, ts *TrackStats, n int, e Entry) string {
	if !separates(ts) {
		return fmt.Sprintf("%s of %d: with %d %s no difference can be significant", rankText(e), n, bm.Questions, plural(bm.Questions, "question", "questions"))
	}
	return fmt.Sprintf("%s of %d: %s", rankText(e), n, rankWords(e, n))
}

// groupFact is an entry's group in words, for its details.
func groupFact(ts *TrackStats, e Entry) string {
	if !separates(ts) {
		return "none: no two entries can be told apart"
	}
	return fmt.Sprintf("%d of %d", e.Group, len(ts.Boundaries)+1)
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// addedText names the pull request or commit that added an entry.
func addedText(a *Provenance) string {
	switch {
	case a.PR > 0:
		return "pull request #" + strconv.Itoa(a.PR)
	case len(a.Commit) >= 12:
		return "commit " + a.Commit[:12]
	}
	return "commit " + a.Commit
}

// webURL reports whether s is an http(s) address that is safe to link to.
// Anything else a contributor wrote (an e-mail address, a javascript: URL)
// is shown as text.
func webURL(s string) (string, bool) {
	if s == "" || strings.ContainsAny(s, " \\\"'<>`") {
		return "", false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return "", false
		}
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return s, true
}

// idSet hands out element ids that are readable, valid in a URL fragment
// and unique on the page, whatever the keys and slugs they come from.
type idSet map[string]bool

func (s idSet) make(from string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(from) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.TrimRight(b.String(), "-")
	if id == "" {
		id = "x"
	}
	if s[id] {
		for n := 2; ; n++ {
			if c := fmt.Sprintf("%s-%d", id, n); !s[c] {
				id = c
				break
			}
		}
	}
	s[id] = true
	return id
}

// harnessSuffix is the harness to show after the model's name, unless the
// name already says it.
func harnessSuffix(e Entry) string {
	if displayName(e) == e.ModelName {
		return ""
	}
	return e.HarnessName
}
