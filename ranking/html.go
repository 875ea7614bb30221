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
	// pageCSP allows the page's own style and script, by hash, and nothing
	// else: no request leaves the page, and markup that slipped past
	// escaping could neither run script nor load anything.
	pageCSP = "default-src 'none'; style-src '" + cspHash(pageStyle) + "'; script-src '" + cspHash(pageScript) +
		"'; img-src data:; base-uri 'none'; form-action 'none'"
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
	Rank, N, TierSort     int
	RankText, RankTitle   string
	Tier                  string // the number, or "–" where no tier can be drawn
	RankRange, RankSort   string
	Model, Harness, Match string
	Anchor                string
	Score, CI, ScoreSort  string
	Submitter             string
	Open                  string
	Price, PriceTitle     string
	PriceSort             string
}

type entryView struct {
	ID                   string
	Rank                 int
	RankText             string
	Mini                 *miniChart
	Tier                 string // "Tier 2", or "" where no tier can be drawn
	Model, Harness       string
	Score, CI, RankRange string
	Facts                []fact
	Tables               []detailTable
	Remarks              []string
	Notes                template.HTML
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
			tv := trackView{ID: ids.make(bv.ID + "-" + trackShort(t)), Name: trackName(t), Note: tierNoteText(bm, es, b.Method.Alpha)}
			tv.Chart = newRankChart(tv.ID+"-chart", bm, t, es, b.Method)
			for _, e := range es {
				ev := newEntryView(ids.make(bv.ID+"-"+trackShort(t)+"-"+e.Slug), bm, e, b.Method.Alpha)
				tv.Entries = append(tv.Entries, ev)
				v.Rows = append(v.Rows, newRowView(bm, bv.Label, e, ev.ID))
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
	return v
}

// methodText says how the numbers were computed, for LEADERBOARD.md and
// the page alike.
func methodText(m Method) string {
	return "Every number is computed by benchgate from the merged submissions that passed verification. " +
		fmt.Sprintf("Intervals are %.0f%%: Wilson score intervals for accuracy, and Student t intervals over questions for rubric means, where an unscored answer counts as 0, the conservative score that ranks; beside it, each entry gives the mean over its scored answers with its own interval. ", 100*m.Confidence) +
		fmt.Sprintf("The rank range is the span of ranks a model holds in the central share of paired bootstrap resamples of the questions (%s resamples, seed %d). ", thousands(m.Resamples), m.Seed) +
		"Two models are compared on the same questions by an exact paired test: McNemar's for accuracy, the sign-flip test for rubric means. " +
		fmt.Sprintf("A tier starts at its leader, the best model not yet placed, and holds the models below it up to the first one significantly worse than the leader (Holm-corrected over the leader's comparisons, α = %g), which starts the next tier. ", m.Alpha) +
		"Rank (UB) is 1 + the number of models significantly better than a model (Holm-corrected over its comparisons with the models above it): the best rank the evidence leaves it."
}

func newRowView(bm *Benchmark, label string, e Entry, anchor string) rowView {
	r := rowView{
		Bench:      bm.Key,
		BenchLabel: label,
		Track:      string(e.Track),
		TrackLabel: trackShortName(e.Track),
		Rank:       e.Rank,
		RankText:   rankText(e),
		RankTitle:  rankTitle(e),
		Tier:       tierCell(bm, e),
		TierSort:   e.Tier,
		N:          e.N,
		RankRange:  rankRange(e),
		RankSort:   fmt.Sprintf("%d.%04d", e.RankLow, e.RankHigh),
		Model:      e.ModelName,
		Harness:    harnessSuffix(e),
		Match:      strings.ToLower(strings.TrimSpace(e.ModelName + " " + e.HarnessName)),
		Anchor:     anchor,
		Submitter:  e.Submitter,
		Open:       openWeights(e.OpenWeights),
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

func newEntryView(id string, bm *Benchmark, e Entry, alpha float64) entryView {
	ev := entryView{ID: id, Rank: e.Rank, RankText: rankText(e), Mini: newMiniChart(bm, e), Model: e.ModelName, Harness: harnessSuffix(e), RankRange: rankRange(e)}
	if !bm.TooSmall {
		ev.Tier = "Tier " + strconv.Itoa(e.Tier)
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
	add("Rank range", ev.RankRange)
	add("Rank (UB)", rankUBText(e))
	add("Tier", tierText(bm, e, alpha))
	add("Submission", e.Path)
	if a := e.Added; a != nil {
		f := fact{Label: "Added by", Text: addedText(a)}
		if u, ok := webURL(a.URL); ok {
			f.URL = u
		}
		ev.Facts = append(ev.Facts, f)
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

// tierNoteText is the tier note of LEADERBOARD.md as plain text; the page's
// template escapes it.
func tierNoteText(bm *Benchmark, es []Entry, alpha float64) string {
	return tierNoteFor(bm, es, alpha, func(s string) string { return s })
}

// tierNoteFor says in words what the tiers of one track show, each name
// passed through escape.
func tierNoteFor(bm *Benchmark, es []Entry, alpha float64, escape func(string) string) string {
	if bm.IntervalWarning != "" {
		return tierNote(bm, es, alpha, escape) + " " + escape(bm.IntervalWarning)
	}
	return tierNote(bm, es, alpha, escape)
}

func tierNote(bm *Benchmark, es []Entry, alpha float64, escape func(string) string) string {
	if len(es) == 1 {
		return "One entry so far."
	}
	if bm.TooSmall {
		return fmt.Sprintf("With %d %s no difference between models can be significant: the paired test's smallest possible p-value, %.4g, is above α = %g. So these models are not split into tiers, and their order is not evidence that one is better than another.",
			bm.Questions, plural(bm.Questions, "question", "questions"), bm.MinPairedP, alpha)
	}
	var parts []string
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[j].Tier == es[i].Tier {
			j++
		}
		if j-i > 1 {
			names := make([]string, 0, j-i-1)
			for _, e := range es[i+1 : j] {
				names = append(names, escape(displayName(e)))
			}
			verb := "does not show " + names[0]
			if len(names) > 1 {
				verb = "shows none of " + strings.Join(names, ", ")
			}
			parts = append(parts, fmt.Sprintf("Tier %d: the paired test %s to be worse than its leader, %s.", es[i].Tier, verb, escape(displayName(es[i]))))
		}
		i = j
	}
	if len(parts) == 0 {
		return "Each model is significantly worse than the one above it, so each is a tier of its own."
	}
	return strings.Join(parts, " ")
}

// tierCell is an entry's tier in a table: its number, or "–" on a
// benchmark too small to tell any two models apart.
func tierCell(bm *Benchmark, e Entry) string {
	if bm.TooSmall {
		return "–"
	}
	return strconv.Itoa(e.Tier)
}

// tierText says an entry's tier in words, with the test that placed it.
func tierText(bm *Benchmark, e Entry, alpha float64) string {
	switch {
	case bm.TooSmall:
		return fmt.Sprintf("none: with %d %s no difference can be significant", bm.Questions, plural(bm.Questions, "question", "questions"))
	case e.TierP == nil:
		return fmt.Sprintf("%d, its leader", e.Tier)
	case *e.TierP < alpha:
		return fmt.Sprintf("%d, its leader: significantly worse than the previous tier's leader (p = %.4g, Holm-adjusted)", e.Tier, *e.TierP)
	default:
		return fmt.Sprintf("%d: not shown worse than its leader (p = %.4g, Holm-adjusted)", e.Tier, *e.TierP)
	}
}

// rankText is an entry's rank as the page prints it: its place by score,
// from the best the evidence leaves it (Rank (UB)) where that is better, so
// that models the tests do not tell apart do not read as 1, 2, 3.
func rankText(e Entry) string {
	if e.RankUB < e.Rank {
		return fmt.Sprintf("%d–%d", e.RankUB, e.Rank)
	}
	return strconv.Itoa(e.Rank)
}

// rankTitle says what rankText means.
func rankTitle(e Entry) string {
	better := e.RankUB - 1
	s := fmt.Sprintf("%s by score; %d %s significantly better", ordinal(e.Rank), better, plural(better, "model is", "models are"))
	if e.RankUB < e.Rank {
		s += fmt.Sprintf(", so the evidence leaves it any rank from %d to %d", e.RankUB, e.Rank)
	}
	return s
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

// rankUBText says how many models are proven better than an entry.
func rankUBText(e Entry) string {
	better := e.RankUB - 1
	if better == 0 {
		return "1: no model is significantly better"
	}
	return fmt.Sprintf("%d: %d %s significantly better", e.RankUB, better, plural(better, "model is", "models are"))
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
