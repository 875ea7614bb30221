package ranking

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"github.com/benchgate/benchgate/internal/golden"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/roundtrip"
)

// Hostile strings in the fixture. The ones that set parent.__xss are for
// the browser test, which looks for that global after loading the page.
const (
	hostileModel     = `<script>alert(1)</script>`
	hostileSubmitter = `"><svg onload=alert(1)>`
	hostileContact   = `javascript:alert(1)`
	hostileNotes     = "Ran with temperature 0.\n\n" +
		"<img src=x onerror=alert(1)>\n\n" +
		"Inline <img src=x onerror=\"parent.__xss='notes-img'\"> raw HTML.\n\n" +
		"<script>parent.__xss='notes-script'</script>\n\n" +
		"[x](javascript:alert(1)) and [y](JaVaScRiPt:parent.__xss='notes-link') and [z](data:text/html,hi)\n\n" +
		"![i](https://evil.example/p.png)\n\n" +
		"[report](https://example.org/report?a=1&b=2)\n\n" +
		"# A heading"
	hostileHarness = `loop<img src=x onerror="parent.__xss='harness'">`
	hostileReason  = `results.jsonl: <svg onload="parent.__xss='reason'"> is not JSON`
	hostileUnknown = `"onmouseover="parent.__xss='unmatched'`
)

// contributorLinks are the http(s) addresses of the fixture, the only
// places the page may point to outside itself.
var contributorLinks = []string{
	"https://github.com/alpha-lab/alpha-eval",
	"https://example.org/report?a=1&b=2",
	"https://github.com/loops/react-loop",
	"https://gamma.example/runs/2026-10",
	"https://example.org/rules",
	"https://example.org/mcq-mini",
	"https://github.com/example/board/pull/12",
	"https://github.com/example/board/commit/" + betaCommit,
}

// betaCommit is the commit that added the beta-mini entry, with no pull
// request named.
const betaCommit = "4851b8f60e5a270e3ae2a7998683806d3ef0d1d0"

// htmlFixtureBoard is a small board with both kinds of benchmark, both
// tracks, prices, entries that are not ranked and hostile strings.
func htmlFixtureBoard() *Board {
	mcq := Benchmark{
		Key: "mcq-mini", Label: "MCQ mini", Kind: "mcq", Questions: 200, MaxScore: 1, MinPairedP: 0x1p-199,
		Description: "Two hundred four-choice questions on rocks.", License: "CC-BY-4.0", URL: "https://example.org/mcq-mini",
		KeyLetters:  map[string]int{"A": 50, "B": 52, "C": 49, "D": 49},
		LongestRate: new(0.315),
		Entries: []Entry{
			{
				Slug: "alpha-7b", Track: "model-benchmark", Path: "submissions/model-benchmark/alpha-7b",
				ModelName: "Alpha 7B", CandidateModelID: "alpha-lab/alpha-7b-2026-09",
				Score: 0.82, CILow: 0.762, CIHigh: 0.867, Rank: 1, RankLow: 1, RankHigh: 2, Group: 1, N: 200,
				Correct: new(164), RankUB: 1, RankWorst: 2, CouldBeBest: true,
				Submitter: "Alpha Lab", ContactOrRepo: "https://github.com/alpha-lab/alpha-eval", Date: "2026-10-02",
				Notes:       "Greedy decoding. Full logs: [report](https://example.org/report?a=1&b=2).\n\n* one `code` item\n* two",
				OpenWeights: new(false), PriceInput: new(3.0), PriceOutput: new(15.0),
				MCQ: &MCQDetail{
					MacroBySource: new(0.805), Sources: 4,
					ByDifficulty:  map[string]Count{"hard": {40, 60, 40.0 / 60}, "easy": {70, 75, 70.0 / 75}, "medium": {54, 65, 54.0 / 65}},
					ByDomain:      map[string]Count{"physics": {80, 100, 0.8}, "biology": {84, 100, 0.84}},
					Letters:       map[string]int{"A": 49, "B": 55, "C": 48, "D": 47, "none": 1},
					LongestPicked: new(0.36), ParseFailures: 1, EmptyResponses: 0, LengthFinishes: 2, Errors: 0,
					MeanLatencyMS: new(812.4),
				},
				Added:        &Provenance{Commit: "0123456789abcdef0123456789abcdef01234567", PR: 12, URL: "https://github.com/example/board/pull/12"},
				Reproduction: &Reproduction{Status: "reproduced", Checked: 150, Date: "2026-10-20"},
			},
			{
				Slug: "hostile", Track: "model-benchmark", Path: "submissions/model-benchmark/hostile",
				ModelName: hostileModel, CandidateModelID: "evil/model",
				Score: 0.79, CILow: 0.728, CIHigh: 0.841, Rank: 2, RankLow: 1, RankHigh: 3, Group: 1, N: 200,
				Correct: new(158), RankUB: 1, RankWorst: 2, CouldBeBest: true,
				Submitter: hostileSubmitter, ContactOrRepo: hostileContact, Date: "2026-10-05",
				Notes:       hostileNotes,
				OpenWeights: new(true), PriceInput: new(0.05), PriceOutput: new(0.15),
				MCQ: &MCQDetail{
					Letters:       map[string]int{"A": 60, "B": 50, "C": 45, "D": 45, "none": 0},
					ParseFailures: 0, EmptyResponses: 3, LengthFinishes: 0, Errors: 1,
				},
			},
			{
				Slug: "beta-mini", Track: "model-benchmark", Path: "submissions/model-benchmark/beta-mini",
				ModelName: "Beta Mini", CandidateModelID: "beta/mini",
				Score: 0.61, CILow: 0.541, CIHigh: 0.675, Rank: 3, RankLow: 3, RankHigh: 3, Group: 2, N: 200, RankUB: 3, RankWorst: 3,
				Correct: new(122), Submitter: "=2+5", ContactOrRepo: "beta@example.org", Date: "2026-10-09",
				MCQ:   &MCQDetail{Letters: map[string]int{"A": 50, "B": 50, "C": 50, "D": 50, "none": 0}},
				Added: &Provenance{Commit: betaCommit, URL: "https://github.com/example/board/commit/" + betaCommit},
			},
			{
				Slug: "alpha-7b-react", Track: "harness-benchmark", Path: "submissions/harness-benchmark/alpha-7b-react",
				ModelName: "Alpha 7B", CandidateModelID: "alpha-lab/alpha-7b-2026-09",
				Score: 0.88, CILow: 0.828, CIHigh: 0.92, Rank: 1, RankLow: 1, RankHigh: 1, Group: 1, RankUB: 1, RankWorst: 1, CouldBeBest: true, N: 200,
				Correct: new(176), Submitter: "Loops Inc.", ContactOrRepo: "https://github.com/loops/react-loop", Date: "2026-10-11",
				HarnessName: "ReAct loop", HarnessRepo: "https://github.com/loops/react-loop",
				PriceInput: new(3.0), PriceOutput: new(15.0),
				MCQ: &MCQDetail{Letters: map[string]int{"A": 50, "B": 51, "C": 50, "D": 49, "none": 0}},
			},
		},
		Tracks: []TrackStats{
			{Track: "model-benchmark", Entries: 3, Pairs: 3, Separated: 2, CouldBeBest: 2,
				Boundaries:   []Separation{{Group: 1, Better: "hostile", Worse: "beta-mini", BetterWins: 44, WorseWins: 8, P: 3.2e-7, PHolm: 6.4e-7}},
				Top:          &Separation{Better: "alpha-7b", Worse: "beta-mini", BetterWins: 50, WorseWins: 8, P: 1.1e-8, PHolm: 3.3e-8},
				Unverifiable: &UnverifiableCheck{Entries: 1, Answers: 3, CouldBeBest: 2, Holds: true}},
			{Track: "harness-benchmark", Entries: 1, CouldBeBest: 1, Boundaries: []Separation{}},
		},
		Excluded: []Excluded{
			{Slug: "broken", Track: "model-benchmark", Path: "submissions/model-benchmark/broken", ModelName: "Broken 1B", Status: "fail", Reason: hostileReason},
		},
	}
	rubric := Benchmark{
		Key: "essay-rubric", Label: "Essay rubric", Kind: "rubric", JudgeModel: "judge-x-2026", Questions: 40, MaxScore: 4, MinPairedP: 0x1p-39,
		Entries: []Entry{
			{
				Slug: "gamma-large", Track: "model-benchmark", Path: "submissions/model-benchmark/gamma-large",
				ModelName: "Gamma Large", CandidateModelID: "gamma/large",
				Score: 3.1, CILow: 2.87, CIHigh: 3.3, Rank: 1, RankLow: 1, RankHigh: 1, Group: 1, RankUB: 1, RankWorst: 1, CouldBeBest: true, N: 40,
				Submitter: "Gamma", ContactOrRepo: "https://gamma.example/runs/2026-10", Date: "2026-10-03",
				OpenWeights: new(true), PriceInput: new(10.0), PriceOutput: new(30.0),
				Rubric: &RubricDetail{GatePassRate: 0.95, Adjudications: 3, Unscored: 1, MeanScored: new(3.18)},
			},
			{
				Slug: "delta", Track: "model-benchmark", Path: "submissions/model-benchmark/delta",
				ModelName: "Delta", CandidateModelID: "delta/base",
				Score: 2.2, CILow: 1.95, CIHigh: 2.44, Rank: 2, RankLow: 2, RankHigh: 2, Group: 2, RankUB: 2, RankWorst: 2, N: 40,
				Submitter: "Delta", ContactOrRepo: "delta-team", Date: "2026-10-04",
				PriceInput: new(0.2),
				Rubric:     &RubricDetail{GatePassRate: 0.8, Adjudications: 0, Unscored: 4},
			},
			{
				Slug: "epsilon-tools", Track: "harness-benchmark", Path: "submissions/harness-benchmark/epsilon-tools",
				ModelName: "Epsilon", CandidateModelID: "eps/1",
				Score: 2.75, CILow: 2.5, CIHigh: 2.98, Rank: 1, RankLow: 1, RankHigh: 1, Group: 1, RankUB: 1, RankWorst: 1, CouldBeBest: true, N: 40,
				Submitter: "Eps", ContactOrRepo: "ftp://eps.example/", Date: "2026-10-06",
				HarnessName: hostileHarness, HarnessRepo: "ftp://eps.example/harness",
				Rubric: &RubricDetail{GatePassRate: 1, Adjudications: 1},
			},
		},
		Tracks: []TrackStats{
			{Track: "model-benchmark", Entries: 2, Pairs: 1, Separated: 1, CouldBeBest: 1,
				Boundaries: []Separation{{Group: 1, Better: "gamma-large", Worse: "delta", BetterWins: 7, WorseWins: 0, P: 0.0156, PHolm: 0.0156, Fragile: true}},
				Top:        &Separation{Better: "gamma-large", Worse: "delta", BetterWins: 7, WorseWins: 0, P: 0.0156, PHolm: 0.0156, Fragile: true}},
			{Track: "harness-benchmark", Entries: 1, CouldBeBest: 1, Boundaries: []Separation{}},
		},
		Excluded: []Excluded{
			{Slug: "zeta", Track: "model-benchmark", Path: "submissions/model-benchmark/zeta", ModelName: "Zeta", Status: "other-judge",
				Reason: `graded by "judge-y"; this benchmark ranks only answers graded by its fixed judge "judge-x-2026"`, Score: new(2.5)},
		},
	}
	return &Board{
		Title:        "Rocks & <Models>",
		Introduction: "Run by the **example** society. Read the [rules](https://example.org/rules) first.\n\n<script>parent.__xss='intro'</script>",
		AsOf:         "2026-11-29",
		Method:       Method{Confidence: 0.95, Resamples: 10000, Seed: DefaultSeed, Alpha: 0.05},
		Benchmarks:   []Benchmark{mcq, rubric},
		Unmatched: []Excluded{
			{Slug: "lost", Track: "model-benchmark", Path: "submissions/model-benchmark/lost", ModelName: hostileUnknown, Status: "fail", Reason: "rubric_key \"nope\" names no benchmark"},
		},
	}
}

func renderHTMLBytes(t *testing.T, b *Board) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := RenderHTML(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRenderHTMLGolden(t *testing.T) {
	got := renderHTMLBytes(t, htmlFixtureBoard())
	golden.Check(t, "index.html", got)
}

func TestRenderHTMLDeterministic(t *testing.T) {
	first := renderHTMLBytes(t, htmlFixtureBoard())
	for i := 0; i < 5; i++ {
		// Maps iterate in a new order every time; the page must not show it.
		if again := renderHTMLBytes(t, htmlFixtureBoard()); !bytes.Equal(first, again) {
			t.Fatal("two renderings of the same board differ")
		}
	}
}

// tag is a start tag of the page, with its attributes unescaped.
type tag struct {
	name  string
	attrs [][2]string
	text  string // the content of a script or style element
}

// scanTags reads the start tags of an HTML document the way a browser
// tokenizes them: quoted attribute values may hold '>' and spaces, and the
// content of script and style is raw text. It is enough for checking what
// the page asks the browser to do.
func scanTags(t *testing.T, s string) []tag {
	t.Helper()
	var tags []tag
	for i := 0; i < len(s); {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			break
		}
		i += lt + 1
		switch {
		case strings.HasPrefix(s[i:], "!--"):
			end := strings.Index(s[i:], "-->")
			if end < 0 {
				t.Fatal("unterminated comment")
			}
			i += end + 3
			continue
		case strings.HasPrefix(s[i:], "!"), strings.HasPrefix(s[i:], "/"):
			end := strings.IndexByte(s[i:], '>')
			i += end + 1
			continue
		case i < len(s) && !isASCIILetter(s[i]):
			continue // a '<' in text, which a browser shows as text
		}
		var tg tag
		j := i
		for j < len(s) && !isSpace(s[j]) && s[j] != '>' && s[j] != '/' {
			j++
		}
		tg.name = strings.ToLower(s[i:j])
		for {
			for j < len(s) && (isSpace(s[j]) || s[j] == '/') {
				j++
			}
			if j >= len(s) {
				t.Fatalf("unterminated <%s", tg.name)
			}
			if s[j] == '>' {
				j++
				break
			}
			k := j
			for k < len(s) && !isSpace(s[k]) && s[k] != '>' && s[k] != '=' && s[k] != '/' {
				k++
			}
			name := strings.ToLower(s[j:k])
			value := ""
			j = k
			if j < len(s) && s[j] == '=' {
				j++
				switch q := s[j]; q {
				case '"', '\'':
					end := strings.IndexByte(s[j+1:], q)
					if end < 0 {
						t.Fatalf("unterminated attribute %s of <%s", name, tg.name)
					}
					value = s[j+1 : j+1+end]
					j += end + 2
				default:
					k := j
					for k < len(s) && !isSpace(s[k]) && s[k] != '>' {
						k++
					}
					value = s[j:k]
					j = k
				}
			}
			tg.attrs = append(tg.attrs, [2]string{name, html.UnescapeString(value)})
		}
		if tg.name == "script" || tg.name == "style" {
			end := strings.Index(strings.ToLower(s[j:]), "</"+tg.name)
			if end < 0 {
				t.Fatalf("unterminated <%s>", tg.name)
			}
			tg.text = s[j : j+end]
			j += end
		}
		tags = append(tags, tg)
		i = j
	}
	return tags
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isSpace(c byte) bool       { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func TestRenderHTMLSafe(t *testing.T) {
	out := string(renderHTMLBytes(t, htmlFixtureBoard()))
	tags := scanTags(t, out)
	allowed := map[string]bool{}
	for _, u := range contributorLinks {
		allowed[u] = true
	}
	var scripts, styles []tag
	var csp string
	seenLinks := map[string]bool{}
	for _, tg := range tags {
		switch tg.name {
		case "script":
			scripts = append(scripts, tg)
		case "style":
			styles = append(styles, tg)
		case "img", "iframe", "object", "embed", "link", "base", "form", "image", "use", "foreignobject":
			t.Errorf("the page has a <%s> element", tg.name)
		}
		for _, a := range tg.attrs {
			name, value := a[0], a[1]
			switch {
			case strings.HasPrefix(name, "on"):
				t.Errorf("<%s> has an event handler attribute %s=%q", tg.name, name, value)
			case name == "style":
				t.Errorf("<%s> has a style attribute, which the page's policy blocks", tg.name)
			case name == "src" || name == "srcset" || name == "poster" || name == "action" || name == "formaction" || name == "background" || strings.HasSuffix(name, ":href"):
				t.Errorf("<%s> loads %s=%q", tg.name, name, value)
			case name == "href":
				switch {
				case strings.HasPrefix(value, "#"):
				case value == CSVFile && tg.name == "a": // beside the page
				case allowed[value]:
					seenLinks[value] = true
					if rel := attr(tg, "rel"); tg.name == "a" && rel != "nofollow noopener noreferrer" {
						t.Errorf("link to %s has rel=%q", value, rel)
					}
				default:
					t.Errorf("<%s> points outside the page: href=%q", tg.name, value)
				}
			case name == "http-equiv" && strings.EqualFold(value, "content-security-policy"):
				csp = attr(tg, "content")
			}
		}
	}
	for _, u := range contributorLinks {
		if !seenLinks[u] {
			t.Errorf("the contributor link %s is not a link on the page", u)
		}
	}
	if len(scripts) != 1 || len(styles) != 1 {
		t.Fatalf("want the page's own script and style only; got %d scripts and %d styles", len(scripts), len(styles))
	}
	if scripts[0].text != pageScript || styles[0].text != pageStyle || len(scripts[0].attrs) != 0 {
		t.Error("the script or style element is not exactly the embedded file")
	}
	// The policy allows exactly the page's own script and style.
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	for _, want := range []string{"default-src 'none'", "script-src " + hash(scripts[0].text), "style-src " + hash(styles[0].text), "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
		t.Errorf("Content-Security-Policy %q allows more than the page itself", csp)
	}
	lower := strings.ToLower(out)
	for _, bad := range []string{"javascript:alert", "javascript:parent"} {
		for _, tg := range tags {
			for _, a := range tg.attrs {
				if strings.Contains(strings.ToLower(a[1]), bad) && a[0] != "data-sort" && a[0] != "data-model" {
					t.Errorf("<%s %s=%q> carries a script URL", tg.name, a[0], a[1])
				}
			}
		}
	}
	for _, bad := range []string{"evil.example", "data:text/html", "<svg onload", "<img"} {
		if strings.Contains(lower, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	// The hostile strings are shown, as text.
	for _, s := range []string{hostileModel, hostileSubmitter, hostileContact, hostileReason, hostileUnknown, hostileHarness} {
		if !strings.Contains(out, html.EscapeString(s)) && !strings.Contains(out, templateEscape(s)) {
			t.Errorf("%q is not shown as text", s)
		}
	}
	// Notes: markdown kept, raw HTML dropped, an image as its alt text, a
	// link that is not http(s) as its text.
	for _, want := range []string{
		"<p>Ran with temperature 0.</p>",
		"<p>Inline  raw HTML.</p>",
		"<p>x and y and z</p>", // links to javascript: and data: as their text
		"<p>i</p>",             // the image as its alt text
		"<code>code</code>",
		`<a href="https://example.org/report?a=1&amp;b=2" rel="nofollow noopener noreferrer">report</a>`,
		`<p class="note-heading"><strong>A heading</strong></p>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the notes lack %q", want)
		}
	}
}

func attr(tg tag, name string) string {
	for _, a := range tg.attrs {
		if a[0] == name {
			return a[1]
		}
	}
	return ""
}

// templateEscape is how html/template escapes text: like html.EscapeString
// but with numeric references for quotes and a few more characters.
func templateEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

var chartCount = regexp.MustCompile(`<svg class="chart rank-chart"[^>]*data-bench="([^"]*)" data-track="([^"]*)" data-entries="(\d+)"`)

func TestRenderHTMLCharts(t *testing.T) {
	b := htmlFixtureBoard()
	out := string(renderHTMLBytes(t, b))
	got := map[string]string{}
	for _, m := range chartCount.FindAllStringSubmatch(out, -1) {
		got[m[1]+"/"+m[2]] = m[3]
	}
	want := map[string]string{
		"mcq-mini/model-benchmark": "3", "mcq-mini/harness-benchmark": "1",
		"essay-rubric/model-benchmark": "2", "essay-rubric/harness-benchmark": "1",
	}
	if len(got) != len(want) {
		t.Errorf("charts %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("chart %s has %s entries, want %s", k, got[k], v)
		}
	}
	// Scores versus price: every entry of the benchmark with both prices.
	for _, w := range []string{`data-bench="mcq-mini" data-points="3"`, `data-bench="essay-rubric" data-points="1"`} {
		if !strings.Contains(out, w) {
			t.Errorf("no scatter chart with %s", w)
		}
	}
	if !strings.Contains(out, "1 entry gives only one of them") {
		t.Error("the entry with only an input price is not mentioned")
	}
	if !strings.Contains(out, templateEscape(PriceFormula)) {
		t.Error("the price formula is not stated")
	}
	// The rubric axis runs to the rubric's maximum.
	if !strings.Contains(out, "Mean points per question (0–4)") {
		t.Error("the rubric axis does not state its maximum")
	}
}

// TestRenderHTMLTooSmall: on a track too small for any difference to be
// significant the page draws no group bands, marks no entry as one that
// could be #1 and says why.
func TestRenderHTMLTooSmall(t *testing.T) {
	b := htmlFixtureBoard()
	bm := &b.Benchmarks[1]
	bm.Questions, bm.MinPairedP = 3, 0.25
	for i := range bm.Tracks {
		ts := &bm.Tracks[i]
		ts.TooSmall, ts.Separated, ts.CouldBeBest, ts.Boundaries, ts.Top = true, 0, ts.Entries, nil, nil
	}
	for i := range bm.Entries {
		e := &bm.Entries[i]
		e.Group, e.RankUB, e.RankWorst, e.CouldBeBest = 1, 1, trackStats(bm, e.Track).Entries, true
	}
	out := string(renderHTMLBytes(t, b))
	section := out[strings.Index(out, `id="bench-essay-rubric"`):]
	for _, want := range []string{"With 3 questions and 2 entries no difference between two entries can be significant", "times 1, the number of pairs (Holm's first step), is not below α = 0.05"} {
		if !strings.Contains(section, templateEscape(want)) {
			t.Errorf("the rubric section does not say %q", want)
		}
	}
	if strings.Contains(section, `class="band`) || strings.Contains(section, `<span class="group">`) || strings.Contains(section, `<span class="best">`) {
		t.Error("groups or the could-be-#1 mark are drawn on a benchmark too small to tell models apart")
	}
	mcq := out[strings.Index(out, `id="bench-mcq-mini"`):strings.Index(out, `id="bench-essay-rubric"`)]
	if !strings.Contains(mcq, `class="band`) || !strings.Contains(mcq, `<span class="best">could be #1</span>`) {
		t.Error("the mcq benchmark lost its group bands or its could-be-#1 mark")
	}
}

// TestRenderHTMLOneRankInterval: the page shows each entry one range of
// ranks, the simultaneous one, as text and as a bar on a rank axis; the
// marginal bootstrap range is not on it.
func TestRenderHTMLOneRankInterval(t *testing.T) {
	out := string(renderHTMLBytes(t, htmlFixtureBoard()))
	// The method says what leaderboard.json holds beside the page.
	out = regexp.MustCompile(`<p class="method">[^<]*</p>`).ReplaceAllString(out, "")
	for _, gone := range []string{"Rank range", "rank range", "Tier", "Rank (UB)"} {
		if strings.Contains(out, gone) {
			t.Errorf("the page still shows %q", gone)
		}
	}
	// The chart of the mcq model track: three bars, two filled (could be
	// #1), the first two spanning ranks 1–2 of 3 and the last rank 3.
	chart := out[strings.Index(out, `data-bench="mcq-mini" data-track="model-benchmark" data-entries`):]
	chart = chart[:strings.Index(chart, "</svg>")]
	bars := regexp.MustCompile(`<rect class="rank-bar( best)?" x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)"`).FindAllStringSubmatch(chart, -1)
	if len(bars) != 4 { // the legend's and one per entry
		t.Fatalf("%d rank bars in the chart: %v", len(bars), bars)
	}
	want := [][3]string{{" best", "777", "146"}, {" best", "777", "146"}, {"", "1057", "6"}}
	for i, w := range want {
		if b := bars[i+1]; b[1] != w[0] || b[2] != w[1] || b[3] != w[2] {
			t.Errorf("entry %d: bar %q at %s, %s wide; want %q at %s, %s wide", i+1, b[1], b[2], b[3], w[0], w[1], w[2])
		}
	}
	if !strings.Contains(chart, ">could be #1</text>") {
		t.Error("the chart's legend does not say what a filled bar is")
	}
}

func TestWebURL(t *testing.T) {
	for s, want := range map[string]bool{
		"https://github.com/a/b":   true,
		"http://example.org/x?y=1": true,
		"HTTPS://EXAMPLE.ORG":      true,
		"javascript:alert(1)":      false,
		" https://example.org":     false,
		"https://":                 false,
		"//example.org":            false,
		"ftp://example.org":        false,
		"mailto:a@example.org":     false,
		"a@example.org":            false,
		"https://exa mple.org":     false,
		"https://example.org/\"x":  false,
		"data:text/html,hi":        false,
		"java\tscript:alert(1)":    false,
	} {
		if _, got := webURL(s); got != want {
			t.Errorf("webURL(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestRenderHTMLEmptyBoard(t *testing.T) {
	b := &Board{Method: Method{Confidence: 0.95, Resamples: 10000, Seed: DefaultSeed, Alpha: 0.05}, Benchmarks: []Benchmark{{Key: "k", Label: "K", Kind: "mcq", Entries: []Entry{}, Excluded: []Excluded{}}}}
	out := string(renderHTMLBytes(t, b))
	if !strings.Contains(out, "No submission has passed verification yet.") {
		t.Error("an empty benchmark does not say so")
	}
	if strings.Contains(out, "As of") {
		t.Error("a board without a date shows one")
	}
}

// TestPagePartKeysHoldEveryField: the cached parts of the page are keyed
// by their views as JSON. That key is sound only if the JSON holds every
// field the template can read, which roundtrip checks field by field, so
// that a view field JSON would leave out (unexported, or tagged "-")
// fails here instead of serving a stale part.
func TestPagePartKeysHoldEveryField(t *testing.T) {
	roundtrip.Check(t, func(v benchView) ([]byte, error) { return json.Marshal(v) }, func(data []byte) (benchView, error) {
		var v benchView
		err := json.Unmarshal(data, &v)
		return v, err
	})
	roundtrip.Check(t, func(v []rowView) ([]byte, error) { return json.Marshal(v) }, func(data []byte) ([]rowView, error) {
		var v []rowView
		err := json.Unmarshal(data, &v)
		return v, err
	})
}

// TestRankText: an entry's ranks are the simultaneous range, printed as
// one number where it is fixed, with what they rest on.
func TestRankText(t *testing.T) {
	for _, tt := range []struct {
		rank, ub, worst, n int
		best               bool
		text, title        string
	}{
		{1, 1, 1, 3, true, "1", "1st by score; ranks 1 of 3 hold with 95% confidence for all entries at once: no entry significantly better, 2 entries significantly worse; it could be #1"},
		{2, 1, 2, 3, true, "1–2", "2nd by score; ranks 1–2 of 3 hold with 95% confidence for all entries at once: no entry significantly better, 1 entry significantly worse; it could be #1"},
		{3, 3, 3, 3, false, "3", "3rd by score; ranks 3 of 3 hold with 95% confidence for all entries at once: 2 entries significantly better, no entry significantly worse"},
		{12, 11, 33, 67, false, "11–33", "12th by score; ranks 11–33 of 67 hold with 95% confidence for all entries at once: 10 entries significantly better, 34 entries significantly worse"},
	} {
		e := Entry{Rank: tt.rank, RankUB: tt.ub, RankWorst: tt.worst, CouldBeBest: tt.best}
		if got, title := rankText(e), rankTitle(e, tt.n); got != tt.text || title != tt.title {
			t.Errorf("rank %d, ranks %d–%d: %q (%q), want %q (%q)", tt.rank, tt.ub, tt.worst, got, title, tt.text, tt.title)
		}
	}
}

// TestRenderHTMLTableFirst: the table comes before the method, every row
// draws its rank interval as a bar, Score sorts best first on the first
// click, and a status cell is kept from breaking inside a word.
func TestRenderHTMLTableFirst(t *testing.T) {
	b := htmlFixtureBoard()
	out := string(renderHTMLBytes(t, b))
	table, method := strings.Index(out, `id="entries"`), strings.Index(out, `<p class="method">`)
	if table < 0 || method < 0 || method < table {
		t.Errorf("the table is at %d and the method at %d: the table must come first", table, method)
	}
	if n := strings.Count(out, `<svg class="rankbar"`); n != b.Ranked() {
		t.Errorf("%d rank bars in the table for %d entries", n, b.Ranked())
	}
	if !strings.Contains(out, `data-col="score" data-type="num" data-within="bench" data-first="descending"`) {
		t.Error("Score does not sort best first on the first click")
	}
	if !strings.Contains(out, `<td class="c-status"><span class="status">`) || !strings.Contains(pageStyle, ".excluded-table td.c-status { overflow-wrap: normal;") {
		t.Error("the status cell may break inside a word")
	}
}
