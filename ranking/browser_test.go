package ranking

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// findChromium gives the browser the test drives, or "" when there is none.
func findChromium() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

// harnessHTML loads the page in a frame of the same origin, works its
// controls as a reader would and writes what it saw, as JSON, into
// #result, which the test reads from the dumped DOM.
const harnessHTML = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>harness</title></head>
<body>
<pre id="result">pending</pre>
<iframe id="page" src="/index.html" width="1300" height="900"></iframe>
<script>
'use strict';
var frame = document.getElementById('page');
function finish(r) { document.getElementById('result').textContent = JSON.stringify(r); }
frame.addEventListener('load', function () {
  var r = {};
  try {
    var w = frame.contentWindow, d = frame.contentDocument;
    var all = function (sel, root) { return Array.prototype.slice.call((root || d).querySelectorAll(sel)); };
    var rows = function () { return all('#entries tbody tr'); };
    var visible = function () { return rows().filter(function (tr) { return w.getComputedStyle(tr).display !== 'none'; }); };
    var head = function (col) { return d.querySelector('#entries thead th[data-col="' + col + '"]'); };
    var keys = function (col) {
      var i = all('#entries thead th').indexOf(head(col));
      return visible().map(function (tr) { return tr.cells[i].getAttribute('data-sort'); });
    };
    var click = function (col) { head(col).querySelector('button').click(); };
    var set = function (id, v, type) {
      var el = d.getElementById(id);
      el.value = v;
      el.dispatchEvent(new w.Event(type, { bubbles: true }));
    };
    var attrs = function (name) { return visible().map(function (tr) { return tr.getAttribute(name); }); };

    r.filtersShown = !d.getElementById('filters').hidden;
    r.rows = rows().length;
    click('score'); r.scoreAsc = keys('score'); r.scoreAscAria = head('score').getAttribute('aria-sort');
    click('score'); r.scoreDesc = keys('score'); r.scoreDescAria = head('score').getAttribute('aria-sort');
    click('price'); r.priceAsc = keys('price');
    click('rank'); r.rankAsc = keys('rank'); r.scoreAriaAfter = head('score').getAttribute('aria-sort');

    set('f-model', 'ALPHA', 'input');
    r.modelFilter = attrs('data-model');
    r.countText = d.getElementById('count').textContent;
    set('f-model', '', 'input');
    set('f-bench', 'essay-rubric', 'change');
    r.benchFilter = attrs('data-bench');
    set('f-track', 'harness-benchmark', 'change');
    r.benchTrackFilter = attrs('data-bench').map(function (b, i) { return b + '/' + attrs('data-track')[i]; });
    d.getElementById('f-reset').click();
    set('f-open', 'yes', 'change');
    r.openFilter = attrs('data-open');
    set('f-model', 'no such model', 'input');
    r.noMatchShown = !d.getElementById('no-match').hidden;
    d.getElementById('f-reset').click();
    r.afterReset = visible().length;

    r.charts = all('svg.chart').map(function (svg) {
      var title = svg.querySelector(':scope > title'), desc = svg.querySelector(':scope > desc');
      return {
        kind: svg.classList.contains('scatter-chart') ? 'scatter' : 'rank',
        bench: svg.getAttribute('data-bench'),
        track: svg.getAttribute('data-track') || '',
        dots: all('.dot', svg).length,
        whiskers: all('.whisker', svg).length,
        points: all('.point', svg).length,
        title: title ? title.textContent : '',
        desc: desc ? desc.textContent : '',
        labelled: (svg.getAttribute('aria-labelledby') || '').split(' ').every(function (id) { return !!d.getElementById(id); }),
        width: svg.getBoundingClientRect().width
      };
    });

    r.scripts = all('script').length;
    r.loaders = all('img, iframe, object, embed, link, image, use, foreignObject').length;
    r.handlers = all('*').filter(function (el) {
      return Array.prototype.some.call(el.attributes, function (a) { return a.name.toLowerCase().indexOf('on') === 0; });
    }).map(function (el) { return el.tagName; });
    r.links = all('a[href]').map(function (a) { return a.href; });
    r.hostileShown = all('#entries td.model a').some(function (a) { return a.textContent === '<script>alert(1)<\/script>'; });
    r.resources = w.performance.getEntriesByType('resource').map(function (e) { return e.name; });

    d.querySelector('#entries td.model a[href="#bench-mcq-mini-model-beta-mini"]').click();
  } catch (e) {
    r.error = String(e && e.stack || e);
    finish(r);
    return;
  }
  setTimeout(function () {
    var det = d.getElementById('bench-mcq-mini-model-beta-mini');
    r.detailsOpened = !!(det && det.open);
    r.xssParent = window.__xss === undefined ? null : String(window.__xss);
    r.xssFrame = frame.contentWindow.__xss === undefined ? null : String(frame.contentWindow.__xss);
    finish(r);
  }, 300);
});
</script>
</body>
</html>
`

type harnessChart struct {
	Kind, Bench, Track string
	Dots, Whiskers     int
	Points             int
	Title, Desc        string
	Labelled           bool
	Width              float64
}

type harnessResult struct {
	Error                       string
	FiltersShown                bool
	Rows                        int
	ScoreAsc, ScoreDesc         []string
	ScoreAscAria, ScoreDescAria string
	ScoreAriaAfter              *string
	PriceAsc, RankAsc           []string
	ModelFilter                 []string
	CountText                   string
	BenchFilter                 []string
	BenchTrackFilter            []string
	OpenFilter                  []string
	NoMatchShown                bool
	AfterReset                  int
	Charts                      []harnessChart
	Scripts, Loaders            int
	Handlers                    []string
	Links                       []string
	HostileShown                bool
	Resources                   []string
	DetailsOpened               bool
	XSSParent, XSSFrame         *string
}

// chromium runs the browser once, headless, with its own profile, and no
// way to reach any host but the test server.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	profile, err := os.MkdirTemp("", "benchgate-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: the browser's helpers may still be closing files in
	// the profile, and a failed cleanup must not fail the test.
	t.Cleanup(func() { os.RemoveAll(profile) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--disable-extensions", "--mute-audio",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--user-data-dir=" + profile,
	}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HOME="+profile)
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, tail(stderr.String(), 3000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

var resultRe = regexp.MustCompile(`(?s)<pre id="result">(.*?)</pre>`)

func TestPageInBrowser(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		t.Skip("Chromium is not installed: apt-get install chromium; .ci/run installs it")
	}
	board := htmlFixtureBoard()
	page := renderHTMLBytes(t, board)

	var mu sync.Mutex
	var requests []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/index.html":
			w.Write(page)
		case "/harness.html":
			io.WriteString(w, harnessHTML)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	dom := chromium(t, bin, "--virtual-time-budget=10000", "--dump-dom", srv.URL+"/harness.html")
	m := resultRe.FindSubmatch(dom)
	if m == nil {
		t.Fatalf("no result in the harness page:\n%s", tail(string(dom), 2000))
	}
	raw := html.UnescapeString(string(m[1]))
	var r harnessResult
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("harness result %q: %v", raw, err)
	}
	if r.Error != "" {
		t.Fatalf("the harness failed: %s", r.Error)
	}
	t.Logf("harness result: %s", raw)
	checkHarness(t, board, &r, srv.URL)

	mu.Lock()
	for _, p := range requests {
		if p != "/index.html" && p != "/harness.html" && p != "/favicon.ico" {
			t.Errorf("the page requested %s", p)
		}
	}
	mu.Unlock()

	shot := filepath.Join(t.TempDir(), "index.png")
	chromium(t, bin, "--hide-scrollbars", "--window-size=1400,1000", "--virtual-time-budget=2000", "--screenshot="+shot, srv.URL+"/index.html")
	info, err := os.Stat(shot)
	if err != nil || info.Size() == 0 {
		t.Fatalf("no screenshot: %v", err)
	}
	t.Logf("screenshot: %s", shot)
	// The temporary folder goes with the test; to look at the picture,
	// name a file to copy it to.
	if keep := os.Getenv("BENCHGATE_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Error(err)
		} else {
			t.Logf("screenshot copied to %s", keep)
		}
	}
}

func checkHarness(t *testing.T, b *Board, r *harnessResult, origin string) {
	t.Helper()
	total := 0
	for _, bm := range b.Benchmarks {
		total += len(bm.Entries)
	}
	if !r.FiltersShown {
		t.Error("the filters stayed hidden: the page's script did not run (is its hash in the policy?)")
	}
	if r.Rows != total {
		t.Errorf("the table has %d rows, want %d", r.Rows, total)
	}

	// Sorting: numerically, ascending then descending, announced by aria-sort.
	nums := func(name string, keys []string) []float64 {
		var out []float64
		for _, k := range keys {
			f, err := strconv.ParseFloat(k, 64)
			if err != nil {
				t.Errorf("%s: sort key %q is not a number", name, k)
			}
			out = append(out, f)
		}
		return out
	}
	asc := nums("score", r.ScoreAsc)
	if len(asc) != total || !sort.Float64sAreSorted(asc) {
		t.Errorf("after one click on Score the rows are %v, want ascending", r.ScoreAsc)
	}
	desc := nums("score", r.ScoreDesc)
	if len(desc) != total || !sort.SliceIsSorted(desc, func(i, j int) bool { return desc[i] > desc[j] }) {
		t.Errorf("after a second click on Score the rows are %v, want descending", r.ScoreDesc)
	}
	if r.ScoreAscAria != "ascending" || r.ScoreDescAria != "descending" {
		t.Errorf("aria-sort went %q then %q", r.ScoreAscAria, r.ScoreDescAria)
	}
	if r.ScoreAriaAfter != nil {
		t.Errorf("Score still has aria-sort=%q after sorting by rank", *r.ScoreAriaAfter)
	}
	// Entries without a price come last.
	var priced []string
	for i, k := range r.PriceAsc {
		if k == "" {
			for _, rest := range r.PriceAsc[i:] {
				if rest != "" {
					t.Errorf("by price, an entry without a price comes before a priced one: %v", r.PriceAsc)
				}
			}
			break
		}
		priced = append(priced, k)
	}
	if p := nums("price", priced); len(p) == 0 || !sort.Float64sAreSorted(p) {
		t.Errorf("by price the rows are %v, want ascending", r.PriceAsc)
	}
	if rk := nums("rank", r.RankAsc); !sort.Float64sAreSorted(rk) {
		t.Errorf("by rank the rows are %v", r.RankAsc)
	}

	// Filters.
	wantAlpha, wantRubric, wantOpen := 0, 0, 0
	for _, bm := range b.Benchmarks {
		for _, e := range bm.Entries {
			if strings.Contains(strings.ToLower(e.ModelName+" "+e.HarnessName), "alpha") {
				wantAlpha++
			}
			if bm.Key == "essay-rubric" {
				wantRubric++
			}
			if e.OpenWeights != nil && *e.OpenWeights {
				wantOpen++
			}
		}
	}
	if len(r.ModelFilter) != wantAlpha {
		t.Errorf("filtering by ALPHA shows %v, want %d rows", r.ModelFilter, wantAlpha)
	}
	for _, m := range r.ModelFilter {
		if !strings.Contains(m, "alpha") {
			t.Errorf("filtering by ALPHA shows %q", m)
		}
	}
	if want := strconv.Itoa(wantAlpha) + " of " + strconv.Itoa(total) + " entries shown"; r.CountText != want {
		t.Errorf("the count says %q, want %q", r.CountText, want)
	}
	if len(r.BenchFilter) != wantRubric {
		t.Errorf("the benchmark filter shows %v, want %d essay-rubric rows", r.BenchFilter, wantRubric)
	}
	for _, v := range r.BenchFilter {
		if v != "essay-rubric" {
			t.Errorf("the benchmark filter shows a row of %q", v)
		}
	}
	if len(r.BenchTrackFilter) != 1 || r.BenchTrackFilter[0] != "essay-rubric/harness-benchmark" {
		t.Errorf("benchmark and track filters show %v", r.BenchTrackFilter)
	}
	if len(r.OpenFilter) != wantOpen {
		t.Errorf("the open-weights filter shows %v, want %d rows", r.OpenFilter, wantOpen)
	}
	for _, v := range r.OpenFilter {
		if v != "yes" {
			t.Errorf("the open-weights filter shows a row with %q", v)
		}
	}
	if !r.NoMatchShown {
		t.Error("a filter that matches nothing does not say so")
	}
	if r.AfterReset != total {
		t.Errorf("after Reset %d rows show, want %d", r.AfterReset, total)
	}

	// Charts: a dot and a whisker per entry of each track; a mark per
	// priced entry in each scatter.
	wantCharts := map[string]int{}
	for _, bm := range b.Benchmarks {
		for _, e := range bm.Entries {
			wantCharts["rank "+bm.Key+" "+string(e.Track)]++
			if _, ok := blendedPrice(e); ok {
				wantCharts["scatter "+bm.Key+" "]++
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range r.Charts {
		k := c.Kind + " " + c.Bench + " " + c.Track
		seen[k] = true
		want, ok := wantCharts[k]
		switch {
		case !ok:
			t.Errorf("unexpected chart %s", k)
		case c.Kind == "rank" && (c.Dots != want || c.Whiskers != want):
			t.Errorf("chart %s has %d dots and %d whiskers, want %d", k, c.Dots, c.Whiskers, want)
		case c.Kind == "scatter" && (c.Points != want || c.Whiskers != want):
			t.Errorf("chart %s has %d points and %d whiskers, want %d", k, c.Points, c.Whiskers, want)
		}
		if c.Title == "" || c.Desc == "" || !c.Labelled {
			t.Errorf("chart %s lacks its title or description", k)
		}
		if c.Width < 100 {
			t.Errorf("chart %s is %.0f pixels wide", k, c.Width)
		}
	}
	for k := range wantCharts {
		if !seen[k] {
			t.Errorf("no chart %s", k)
		}
	}

	// Nothing hostile ran or even became markup.
	if r.XSSParent != nil || r.XSSFrame != nil {
		t.Errorf("a hostile payload ran: parent.__xss=%v, frame __xss=%v", orNil(r.XSSParent), orNil(r.XSSFrame))
	}
	if r.Scripts != 1 {
		t.Errorf("the page has %d script elements, want only its own", r.Scripts)
	}
	if r.Loaders != 0 {
		t.Errorf("the page has %d elements that load something", r.Loaders)
	}
	if len(r.Handlers) != 0 {
		t.Errorf("elements with event handler attributes: %v", r.Handlers)
	}
	if !r.HostileShown {
		t.Error("the hostile model name is not shown as text")
	}
	if len(r.Resources) != 0 {
		t.Errorf("the page loaded %v", r.Resources)
	}
	allowed := map[string]bool{}
	for _, u := range contributorLinks {
		allowed[u] = true
	}
	for _, l := range r.Links {
		if !strings.HasPrefix(l, origin+"/index.html#") && l != origin+"/"+CSVFile && !allowed[l] {
			t.Errorf("the page links to %q", l)
		}
	}
	if !r.DetailsOpened {
		t.Error("following a model's link does not open its details")
	}
}

func orNil(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
