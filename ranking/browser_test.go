package ranking

import (
	"bytes"
	"context"
	"encoding/csv"
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

	"github.com/benchgate/benchgate/verify"
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

// harnessHTML loads the page in frames of the same origin, a desktop
// 1400 px wide and a 390 × 844 phone, works its controls as a reader
// would and writes what it saw, as JSON, into #result, which the test
// reads from the dumped DOM.
const harnessHTML = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>harness</title></head>
<body>
<pre id="result">pending</pre>
<script>
'use strict';
function finish(r) { document.getElementById('result').textContent = JSON.stringify(r); }
function load(src, w, h) {
  return new Promise(function (resolve) {
    var f = document.createElement('iframe');
    f.width = w; f.height = h;
    f.addEventListener('load', function () { resolve(f); }, { once: true });
    f.src = src;
    document.body.appendChild(f);
  });
}
function wait(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }
// tools gives the helpers that read one frame.
function tools(frame) {
  var w = frame.contentWindow, d = frame.contentDocument;
  var t = { w: w, d: d };
  t.all = function (sel, root) { return Array.prototype.slice.call((root || d).querySelectorAll(sel)); };
  t.rows = function () { return t.all('#entries tbody tr'); };
  t.shown = function (el) { return w.getComputedStyle(el).display !== 'none' && el.getClientRects().length > 0; };
  t.visible = function () { return t.rows().filter(t.shown); };
  t.head = function (col) { return d.querySelector('#entries thead th[data-col="' + col + '"]'); };
  t.keys = function (col) {
    var i = t.all('#entries thead th').indexOf(t.head(col));
    return t.visible().map(function (tr) { return tr.cells[i].getAttribute('data-sort'); });
  };
  t.click = function (col) { t.head(col).querySelector('button').click(); };
  t.set = function (id, v, type) {
    var el = d.getElementById(id);
    el.value = v;
    el.dispatchEvent(new w.Event(type, { bubbles: true }));
  };
  t.attrs = function (name) { return t.visible().map(function (tr) { return tr.getAttribute(name); }); };
  t.state = function () {
    return {
      model: d.getElementById('f-model').value, bench: d.getElementById('f-bench').value,
      track: d.getElementById('f-track').value, open: d.getElementById('f-open').value,
      sort: (t.all('#entries thead th[aria-sort]').map(function (th) { return th.getAttribute('data-col') + ' ' + th.getAttribute('aria-sort'); }))[0] || '',
      rows: t.attrs('data-model'), count: d.getElementById('count').textContent, hash: w.location.hash
    };
  };
  return t;
}
// scatters reads the score-against-price charts of a frame: no label may
// lie over another or over a mark, and the price axis has one format.
function scatters(t) {
  return t.all('svg.scatter-chart').map(function (svg) {
      var labels = t.all('.label', svg).map(function (l) { return { text: l.textContent, b: l.getBBox() }; });
      var marks = t.all('.point', svg).map(function (m) { return m.getBBox(); });
      var clashes = [];
      labels.forEach(function (a, i) {
        labels.forEach(function (b, j) { if (i < j && overlap(a.b, b.b)) { clashes.push(a.text + ' / ' + b.text); } });
        marks.forEach(function (m) { if (overlap(a.b, m)) { clashes.push(a.text + ' / a mark'); } });
        var p = svg.querySelector('.plot').getBBox();
        if (a.b.x < p.x || a.b.x + a.b.width > p.x + p.width) { clashes.push(a.text + ' / the plot edge'); }
      });
      return {
        bench: svg.getAttribute('data-bench'), labels: labels.map(function (l) { return l.text; }), clashes: clashes,
        xTicks: t.all('text.tick[text-anchor="middle"]', svg).map(function (x) { return x.textContent; })
      };
  });
}
// overlap is true of boxes closer than 2 px: labels that touch read as one.
function overlap(a, b) { var m = 2; return a.x < b.x + b.width + m && b.x < a.x + a.width + m && a.y < b.y + b.height + m && b.y < a.y + a.height + m; }

// waitFor polls until ok() holds, for at most ms milliseconds.
async function waitFor(ok, ms) {
  for (var t = 0; t < ms; t += 50) {
    if (ok()) { return true; }
    await wait(50);
  }
  return ok();
}
// explore opens the first row's answers, then the first answer's question,
// then the last model of that question, as a reader would, and says what
// each view showed and whether anything stuck out sideways.
async function explore(frame) {
  var t = tools(frame), d = t.d, x = {};
  var heading = function () { return d.getElementById('explorer-h').textContent; };
  var items = function (sel) { return t.all('#explorer-list > li' + (sel || '')).length; };
  var wide = function () { return Math.max(d.documentElement.scrollWidth, d.body.scrollWidth) - d.documentElement.clientWidth; };
  var link = d.querySelector('#entries a.answers-link');
  if (!link) { x.error = 'no answers link'; return x; }
  x.file = link.getAttribute('data-answers');
  link.click();
  await waitFor(function () { return items() > 0; }, 5000);
  x.shown = !d.getElementById('explorer').hidden;
  x.model = heading(); x.answers = items(); x.status = d.getElementById('explorer-status').textContent;
  x.responses = t.all('#explorer-list pre.x-response').length;
  x.hostileReason = t.all('#explorer-list p.x-q').some(function (p) { return p.textContent.indexOf('Judge: <img src=x onerror=') === 0; });
  x.markup = t.all('#explorer-list img, #explorer-list script').length;
  x.modelWide = wide();
  t.set('x-show', 'wrong', 'change');
  x.wrongShown = t.all('#explorer-list > li').filter(t.shown).length;
  x.wrongMarked = items('[data-wrong="true"]');
  t.set('x-show', '', 'change');
  d.querySelector('#explorer-list button.x-question').click();
  await waitFor(function () { return heading().indexOf('Question ') === 0 && items('.x-entry') > 0; }, 5000);
  x.question = heading(); x.questionEntries = items('.x-entry'); x.questionStatus = d.getElementById('explorer-status').textContent;
  x.choices = t.all('#explorer-list .x-choices li').length;
  x.questionWide = wide();
  var models = t.all('#explorer-list button.x-model');
  models[models.length - 1].click();
  await waitFor(function () { return heading().indexOf('Answers of ') === 0 && items() > 0; }, 5000);
  x.back = heading();
  x.hash = frame.contentWindow.location.hash;
  // The address keeps the view: opened afresh, it shows the same.
  var again = await load('/example.html' + x.hash, frame.width, frame.height);
  var ad = again.contentDocument;
  await waitFor(function () { return ad.querySelectorAll('#explorer-list > li').length > 0; }, 5000);
  x.reopened = ad.getElementById('explorer-h').textContent;
  again.remove();
  return x;
}

var r = {};
(async function () {
  try {
    var desk = await load('/index.html', 1400, 900);
    var t = tools(desk), d = t.d, w = t.w;
    r.desktopWidth = d.documentElement.clientWidth;
    r.filtersShown = !d.getElementById('filters').hidden;
    r.rows = t.rows().length;
    // The first click on Score sorts best first, the second turns it round.
    t.click('score'); r.scoreDesc = t.keys('score'); r.scoreDescBench = t.attrs('data-bench'); r.scoreDescAria = t.head('score').getAttribute('aria-sort');
    r.sortNote = d.getElementById('sort-note').hidden ? '' : d.getElementById('sort-note').textContent;
    t.click('score'); r.scoreAsc = t.keys('score'); r.scoreAscBench = t.attrs('data-bench'); r.scoreAscAria = t.head('score').getAttribute('aria-sort');
    t.click('price'); r.priceAsc = t.keys('price');
    t.click('rank'); r.rankAsc = t.keys('rank'); r.rankAscBench = t.attrs('data-bench'); r.scoreAriaAfter = t.head('score').getAttribute('aria-sort');

    t.set('f-model', 'ALPHA', 'input');
    r.modelFilter = t.attrs('data-model');
    r.countText = d.getElementById('count').textContent;
    t.set('f-model', '', 'input');
    t.set('f-bench', 'essay-rubric', 'change');
    r.benchFilter = t.attrs('data-bench');
    // The optional columns: none shows until its group is ticked.
    var breakCols = function () { return t.all('#entries thead th.c-break').filter(t.shown).map(function (th) { return th.textContent; }); };
    r.breakdown = { before: breakCols() };
    var box = d.querySelector('#columns input[data-group="difficulty"]');
    box.checked = true; box.dispatchEvent(new w.Event('change', { bubbles: true }));
    r.breakdown.after = breakCols();
    r.breakdown.cells = t.rows().map(function (tr) {
      return tr.getAttribute('data-model') + ' ' + t.all('td.c-break.g-difficulty', tr).map(function (td) { return td.textContent; }).join(' ');
    });
    box.checked = false; box.dispatchEvent(new w.Event('change', { bubbles: true }));
    r.breakdown.unticked = breakCols();
    t.set('f-bench', '', 'change');
    // The tab of one benchmark: its rows, its section, the others' hidden.
    d.querySelector('#bench-tabs [data-bench="essay-rubric"]').click();
    r.tab = {
      rows: t.attrs('data-bench'),
      selected: t.all('#bench-tabs [aria-selected="true"]').map(function (b) { return b.getAttribute('data-bench'); }),
      sections: t.all('section.bench[data-bench]').filter(t.shown).map(function (x) { return x.getAttribute('data-bench'); }),
      filter: d.getElementById('f-bench').value
    };
    t.set('f-track', 'harness-benchmark', 'change');
    r.benchTrackFilter = t.attrs('data-bench').map(function (b, i) { return b + '/' + t.attrs('data-track')[i]; });
    d.getElementById('f-reset').click();
    t.set('f-open', 'yes', 'change');
    r.openFilter = t.attrs('data-open');
    t.set('f-model', 'no such model', 'input');
    r.noMatchShown = !d.getElementById('no-match').hidden;
    d.getElementById('f-reset').click();
    r.afterReset = t.visible().length;
    r.afterResetHash = w.location.hash;

    // Ranks as the table prints them, in the board's order.
    t.click('rank'); t.click('rank'); t.click('rank');
    r.rankCells = t.visible().map(function (tr) {
      var td = tr.querySelector('td[data-label="Rank"]');
      return tr.getAttribute('data-model') + ' ' + td.querySelector('.ranks').textContent + (td.querySelector('span.best') ? ' could be #1' : '');
    });

    // State in the address: filters and a sort, then the same address
    // opened afresh.
    t.set('f-track', 'model-benchmark', 'change');
    t.set('f-open', 'yes', 'change');
    t.set('f-model', 'a', 'input');
    t.click('score');
    r.stateBefore = t.state();
    var again = await load('/index.html' + w.location.hash, 1400, 900);
    var t2 = tools(again);
    r.stateAfter = t2.state();
    r.stateScrolled = again.contentWindow.scrollY;
    t2.d.getElementById('f-reset').click();
    r.stateReset = t2.state();
    d.getElementById('f-reset').click();

    // The charts are folded under their tables; a reader opens them.
    r.foldsClosed = t.all('details.fold').filter(function (f) { return !f.open; }).length;
    t.all('details.fold').forEach(function (f) { f.open = true; });
    r.charts = t.all('svg.chart').map(function (svg) {
      var title = svg.querySelector(':scope > title'), desc = svg.querySelector(':scope > desc');
      return {
        kind: svg.classList.contains('scatter-chart') ? 'scatter' : 'rank',
        bench: svg.getAttribute('data-bench'),
        track: svg.getAttribute('data-track') || '',
        dots: t.all('.dot', svg).length,
        whiskers: t.all('.whisker', svg).length,
        points: t.all('.point', svg).length,
        title: title ? title.textContent : '',
        desc: desc ? desc.textContent : '',
        labelled: (svg.getAttribute('aria-labelledby') || '').split(' ').every(function (id) { return !!d.getElementById(id); }),
        width: svg.getBoundingClientRect().width
      };
    });
    r.scatters = scatters(t);
    var example = await load('/example.html', 1400, 900);
    r.exampleScatters = scatters(tools(example));
    r.explorer = await explore(example);
    var examplePhone = await load('/example.html', 390, 844);
    r.explorerPhone = await explore(examplePhone);
    r.heights = { desktop: example.contentDocument.documentElement.scrollHeight };
    r.title = d.title;
    r.h1 = d.querySelector('h1').textContent;
    r.intro = d.querySelector('.intro') ? d.querySelector('.intro').textContent.trim() : '';
    r.attribution = t.all('.bench[id^="bench-"]').map(function (s) {
      var a = s.querySelector('.attribution'), desc = s.querySelector('.description');
      return (desc ? desc.textContent : '') + ' | ' + (a ? a.textContent : '');
    });
    r.addedLinks = t.all('.facts div').filter(function (f) { return f.querySelector('dt').textContent === 'Added by'; }).map(function (f) {
      var a = f.querySelector('a');
      return f.closest('details').id + ' ' + f.querySelector('dd').textContent + ' ' + (a ? a.href : '');
    });

    r.scripts = t.all('script').length;
    r.loaders = t.all('img, iframe, object, embed, link, image, use, foreignObject').length;
    r.handlers = t.all('*').filter(function (el) {
      return Array.prototype.some.call(el.attributes, function (a) { return a.name.toLowerCase().indexOf('on') === 0; });
    }).map(function (el) { return el.tagName; });
    r.links = t.all('a[href]').map(function (a) { return a.href; });
    r.hostileShown = t.all('#entries td.model a').some(function (a) { return a.textContent === '<script>alert(1)<\/script>'; });
    r.resources = w.performance.getEntriesByType('resource').map(function (e) { return e.name; });

    // The CSV the page links to.
    var link = d.getElementById('csv-link');
    r.csvHref = link ? link.href : '';
    r.csv = link ? await (await fetch(link.href)).text() : '';

    // Print: the page's print rules applied to the screen, as printing
    // applies them.
    var seen = function (x) { return x.checkVisibility() && x.getBoundingClientRect().height > 0; };
    t.all('details.fold').forEach(function (f) { f.open = false; });
    r.entryDetailsShown = t.all('details.entry-details').filter(seen).length;
    var screenShown = t.all('details.entry-details .detail').filter(seen).length;
    var printRules = [];
    Array.prototype.forEach.call(d.styleSheets, function (sheet) {
      Array.prototype.forEach.call(sheet.cssRules, function (rule) {
        if (rule.media && rule.media.mediaText === 'print') { printRules.push(rule); rule.media.mediaText = 'all'; }
      });
    });
    var details = t.all('details.entry-details');
    r.print = {
      rules: printRules.length,
      details: details.length,
      open: details.filter(function (det) { return det.open; }).length,
      screenShown: screenShown,
      shown: details.filter(function (det) { return seen(det.querySelector('.detail')); }).length,
      tables: t.all('details .tables table').filter(seen).length,
      allTables: t.all('details .tables table').length,
      filters: t.shown(d.getElementById('filters')),
      toc: t.shown(d.querySelector('.toc'))
    };
    printRules.forEach(function (rule) { rule.media.mediaText = 'print'; });

    // A phone.
    var phone = await load('/index.html', 390, 844);
    var p = tools(phone), pd = p.d;
    r.heights.phone = examplePhone.contentDocument.documentElement.scrollHeight;
    r.heights.fixtureDesktop = d.documentElement.scrollHeight;
    r.heights.fixturePhone = pd.documentElement.scrollHeight;
    r.tableTopPhone = pd.getElementById('entries').getBoundingClientRect().top;
    // Each status on one line: none breaks inside a word.
    r.statusLines = t.all('.excluded-table td.c-status .status').concat(p.all('.excluded-table td.c-status .status')).map(function (x) {
      var lines = {};
      Array.prototype.forEach.call(x.getClientRects(), function (b) { lines[Math.round(b.top)] = true; });
      return x.textContent + ' ' + Object.keys(lines).length;
    });
    r.firstRowBottomPhone = p.visible()[0].getBoundingClientRect().bottom;
    var firstRows = p.visible().slice(0, 3);
    r.phone = {
      clientWidth: pd.documentElement.clientWidth,
      scrollWidth: Math.max(pd.documentElement.scrollWidth, pd.body.scrollWidth),
      overflowing: p.all('body *').filter(function (el) { var b = el.getBoundingClientRect(); return b.width > 0 && b.right > pd.documentElement.clientWidth + 0.5 && !el.closest('.sr-only, .skip'); }).map(function (el) { return el.tagName + '.' + el.className; }).slice(0, 10),
      cellOrder: firstRows.map(function (tr) {
        var cells = Array.prototype.slice.call(tr.cells).filter(p.shown);
        cells.sort(function (a, b) {
          var x = a.getBoundingClientRect(), y = b.getBoundingClientRect();
          return Math.abs(x.top - y.top) > 4 ? x.top - y.top : x.left - y.left;
        });
        return cells.map(function (c) { return c.getAttribute('data-label'); });
      }),
      charts: p.all('svg.chart').filter(p.shown).length,
      minis: p.all('svg.rankbar').filter(p.shown).length,
      entries: p.all('details').length,
      // The smallest text drawn in a shown chart, in CSS pixels.
      minChartText: Math.min.apply(null, p.all('svg').filter(p.shown).map(function (svg) {
        var vb = svg.viewBox.baseVal, scale = vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
        return Math.min.apply(null, p.all('text', svg).map(function (x) { return parseFloat(phone.contentWindow.getComputedStyle(x).fontSize) * scale; }).concat([1000]));
      }).concat([1000])),
      minText: Math.min.apply(null, p.all('main *').filter(function (el) {
        return p.shown(el) && !(el instanceof phone.contentWindow.SVGElement) && Array.prototype.some.call(el.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim() !== ''; });
      }).map(function (el) { return parseFloat(phone.contentWindow.getComputedStyle(el).fontSize); }))
    };

    d.querySelector('#entries td.model a[href="#bench-mcq-mini-model-beta-mini"]').click();
    await wait(300);
    var det = d.getElementById('bench-mcq-mini-model-beta-mini');
    r.detailsOpened = !!(det && det.open);
    r.xssParent = window.__xss === undefined ? null : String(window.__xss);
    r.xssFrame = [desk, again, phone].map(function (f) { return f.contentWindow.__xss; }).filter(function (x) { return x !== undefined; }).map(String)[0] || null;
  } catch (e) {
    r.error = String(e && e.stack || e);
  }
  finish(r);
})();
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

type harnessScatter struct {
	Bench   string
	Labels  []string
	Clashes []string
	XTicks  []string
}

type harnessState struct {
	Model, Bench, Track, Open string
	Sort                      string
	Rows                      []string
	Count, Hash               string
}

type harnessPrint struct {
	Rules, Details, Open, Shown int
	ScreenShown                 int
	Tables, AllTables           int
	Filters, TOC                bool
}

type harnessPhone struct {
	ClientWidth, ScrollWidth float64
	Overflowing              []string
	CellOrder                [][]string
	Charts, Minis, Entries   int
	MinChartText, MinText    float64
}

type harnessExplorer struct {
	Error, File              string
	Shown                    bool
	HostileReason            bool
	Markup                   int
	Model, Status            string
	Answers, Responses       int
	WrongShown, WrongMarked  int
	ModelWide, QuestionWide  float64
	Question, QuestionStatus string
	QuestionEntries, Choices int
	Back                     string
	Hash, Reopened           string
}

type harnessResult struct {
	Error                   string
	Explorer, ExplorerPhone harnessExplorer
	Heights                 map[string]float64
	Breakdown               struct{ Before, After, Cells, Unticked []string }
	Tab                     struct {
		Rows, Selected, Sections []string
		Filter                   string
	}
	EntryDetailsShown, FoldsClosed int
	TableTopPhone                  float64
	StatusLines                    []string
	FirstRowBottomPhone            float64
	DesktopWidth                   float64
	FiltersShown                   bool
	Rows                           int
	ScoreAsc, ScoreDesc            []string
	ScoreAscBench, ScoreDescBench  []string
	ScoreAscAria, ScoreDescAria    string
	SortNote                       string
	ScoreAriaAfter                 *string
	PriceAsc, RankAsc              []string
	RankAscBench                   []string
	ModelFilter                    []string
	CountText                      string
	BenchFilter                    []string
	BenchTrackFilter               []string
	OpenFilter                     []string
	NoMatchShown                   bool
	AfterReset                     int
	AfterResetHash                 string
	RankCells                      []string
	StateBefore, StateAfter        harnessState
	StateReset                     harnessState
	StateScrolled                  float64
	Charts                         []harnessChart
	Scatters, ExampleScatters      []harnessScatter
	Title, H1, Intro               string
	Attribution                    []string
	AddedLinks                     []string
	Scripts, Loaders               int
	Handlers                       []string
	Links                          []string
	HostileShown                   bool
	Resources                      []string
	CSVHref, CSV                   string
	Print                          harnessPrint
	Phone                          harnessPhone
	DetailsOpened                  bool
	XSSParent, XSSFrame            *string
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
	var csvBuf bytes.Buffer
	if err := RenderCSV(&csvBuf, board); err != nil {
		t.Fatal(err)
	}
	csvData := csvBuf.Bytes()
	// The example board, whose score-against-price chart puts two entries
	// at one price.
	// The example board as `benchgate leaderboard` writes it, with the
	// explorer's files beside the page.
	// A judge's reason that is markup stays text in the explorer.
	fsys := exampleBoard(t)
	for _, p := range []string{"submissions/model-benchmark/llama-3.3-70b-basin/scores.json", "submissions/model-benchmark/qwen3-32b-basin/scores.json"} {
		data := string(fsys[p].Data)
		if !strings.Contains(data, `"score_b_reason": "`) {
			t.Fatalf("%s has no score_b_reason", p)
		}
		fsys[p].Data = []byte(strings.Replace(data, `"score_b_reason": "`, `"score_b_reason": "<img src=x onerror=\"parent.__xss='explorer'\"> `, 1))
	}
	exampleGen, err := Generate(fsys, GenerateOptions{Verify: verify.Options{Today: today}, Board: Options{AsOf: "2026-11-29"}, Explore: true})
	if err != nil {
		t.Fatal(err)
	}
	if exampleGen.Board.Ranked() != exampleGenerated(t).Board.Ranked() {
		t.Fatal("the hostile reasons changed what is ranked")
	}
	example := exampleGen.Files["index.html"]

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
		case "/example.html":
			w.Write(example)
		case "/harness.html":
			io.WriteString(w, harnessHTML)
		case "/" + CSVFile:
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Write(csvData)
		default:
			if data, ok := exampleGen.Files[strings.TrimPrefix(r.URL.Path, "/")]; ok && strings.HasPrefix(r.URL.Path, "/"+ExploreDir+"/") {
				w.Header().Set("Content-Type", "application/json")
				w.Write(data)
				return
			}
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	dom := chromium(t, bin, "--hide-scrollbars", "--window-size=1500,1000", "--virtual-time-budget=20000", "--dump-dom", srv.URL+"/harness.html")
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
		if p != "/index.html" && p != "/example.html" && p != "/harness.html" && p != "/favicon.ico" && p != "/"+CSVFile && !strings.HasPrefix(p, "/"+ExploreDir+"/") {
			t.Errorf("the page requested %s", p)
		}
	}
	mu.Unlock()

	// The first screen on a desktop and on a phone, compared with the
	// golden screenshots by layout (checkScreenshot).
	for _, size := range []struct{ name, window string }{{"desktop.png", "1400,1000"}, {"phone.png", "390,844"}} {
		p := filepath.Join(t.TempDir(), size.name)
		chromium(t, bin, "--hide-scrollbars", "--window-size="+size.window, "--virtual-time-budget=2000", "--screenshot="+p, srv.URL+"/index.html")
		data, err := os.ReadFile(p)
		if err != nil || len(data) == 0 {
			t.Fatalf("no screenshot: %v", err)
		}
		checkScreenshot(t, "screens/"+size.name, data)
	}
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
	// Score, like rank, sorts within each benchmark, benchmarks in the
	// page's order: scores on different scales are never interleaved.
	var order []string
	for _, bm := range b.Benchmarks {
		order = append(order, bm.Key)
	}
	withinBench(t, "after one click on Score", order, r.ScoreDescBench, nums("score", r.ScoreDesc), false)
	withinBench(t, "after a second click on Score", order, r.ScoreAscBench, nums("score", r.ScoreAsc), true)
	if r.ScoreDescAria != "descending" || r.ScoreAscAria != "ascending" {
		t.Errorf("Score's aria-sort after one click %q, after two %q; want descending (best first), then ascending", r.ScoreDescAria, r.ScoreAscAria)
	}
	withinBench(t, "by rank", order, r.RankAscBench, nums("rank", r.RankAsc), true)
	if !strings.Contains(r.SortNote, "within each benchmark") {
		t.Errorf("sorting by score does not say it sorts within each benchmark: %q", r.SortNote)
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
	if strings.Join(r.Tab.Selected, ",") != "essay-rubric" || strings.Join(r.Tab.Sections, ",") != "essay-rubric" || r.Tab.Filter != "essay-rubric" || len(r.Tab.Rows) != wantRubric {
		t.Errorf("the essay-rubric tab shows %+v", r.Tab)
	}
	for _, v := range r.Tab.Rows {
		if v != "essay-rubric" {
			t.Errorf("the essay-rubric tab shows a row of %q", v)
		}
	}
	checkBreakdown(t, b, r)
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
	// Each model is listed once: in the table. Its details and the charts
	// wait until a reader opens them.
	if r.EntryDetailsShown != 0 || r.FoldsClosed == 0 {
		t.Errorf("before any is opened, %d entries' details show and %d charts are folded", r.EntryDetailsShown, r.FoldsClosed)
	}
	if !r.DetailsOpened {
		t.Error("following a model's link does not open its details")
	}
	checkExplorer(t, "on a desktop", r.Explorer)
	checkExplorer(t, "on a phone", r.ExplorerPhone)
	// A reader on a phone sees the table, and its first entry, on the
	// first screen.
	if r.TableTopPhone >= 844 || r.FirstRowBottomPhone > 844 {
		t.Errorf("on a phone the table starts at %.0f px and its first entry ends at %.0f px: not on the first screen of 844", r.TableTopPhone, r.FirstRowBottomPhone)
	}
	if len(r.StatusLines) == 0 {
		t.Error("no status cell on the page")
	}
	for _, l := range r.StatusLines {
		if !strings.HasSuffix(l, " 1") {
			t.Errorf("the status %q takes more than one line", l)
		}
	}
	t.Logf("page heights: %v", r.Heights)
	checkState(t, r)
	checkRanks(t, b, r)
	checkIdentity(t, r)
	checkCSV(t, b, r, origin)
	checkPrint(t, r)
	checkPhone(t, b, r)
	checkScatter(t, "the fixture", r.Scatters)
	checkScatter(t, "the example board", r.ExampleScatters)
}

// withinBench checks that rows come benchmark by benchmark, in the page's
// order, and are sorted by their keys within each.
func withinBench(t *testing.T, what string, order, benches []string, keys []float64, asc bool) {
	t.Helper()
	if len(benches) != len(keys) || len(keys) == 0 {
		t.Errorf("%s: %d benchmarks for %d keys", what, len(benches), len(keys))
		return
	}
	pos := map[string]int{}
	for i, k := range order {
		pos[k] = i
	}
	for i := 1; i < len(keys); i++ {
		a, c := pos[benches[i-1]], pos[benches[i]]
		switch {
		case a > c:
			t.Errorf("%s: %s comes after %s: %v", what, benches[i], benches[i-1], benches)
		case a == c && asc && keys[i] < keys[i-1], a == c && !asc && keys[i] > keys[i-1]:
			t.Errorf("%s: within %s the keys are %v, not %s", what, benches[i], keys, map[bool]string{true: "ascending", false: "descending"}[asc])
		}
	}
}

// checkState: filters and sort order are in the address, and opening it
// restores them; Reset clears it.
func checkState(t *testing.T, r *harnessResult) {
	t.Helper()
	b, a := r.StateBefore, r.StateAfter
	if !strings.HasPrefix(b.Hash, "#all?") {
		t.Fatalf("the address does not keep the table's state: %q", b.Hash)
	}
	for _, want := range []string{"track=model-benchmark", "open=yes", "model=a", "sort=score", "dir=desc"} {
		if !strings.Contains(b.Hash, want) {
			t.Errorf("the address %q lacks %s", b.Hash, want)
		}
	}
	if b.Track != "model-benchmark" || b.Open != "yes" || b.Model != "a" || b.Sort != "score descending" || len(b.Rows) == 0 {
		t.Errorf("before the round trip the state is %+v", b)
	}
	if a.Track != b.Track || a.Open != b.Open || a.Model != b.Model || a.Bench != b.Bench || a.Sort != b.Sort || a.Count != b.Count || a.Hash != b.Hash ||
		strings.Join(a.Rows, "\n") != strings.Join(b.Rows, "\n") {
		t.Errorf("opening %q gives\n%+v\nwant\n%+v", b.Hash, a, b)
	}
	if r.StateScrolled <= 0 {
		t.Error("opening a link to a state of the table does not scroll to the table")
	}
	// Reset clears the filters from the address; the sort stays as the
	// reader chose it.
	if c := r.StateReset; c.Hash != "#all?sort=score&dir=desc" || c.Track != "" || c.Open != "" || c.Model != "" || c.Sort != "score descending" || len(c.Rows) != r.Rows {
		t.Errorf("after Reset the state is %+v", c)
	}
	if r.AfterResetHash != "" && r.AfterResetHash != "#all" && !strings.HasPrefix(r.AfterResetHash, "#all?sort=") {
		t.Errorf("after Reset the address keeps filters: %q", r.AfterResetHash)
	}
}

// checkRanks: each entry shows its one range of ranks, and those that
// could be #1 say so.
func checkRanks(t *testing.T, b *Board, r *harnessResult) {
	t.Helper()
	var want []string
	for _, bm := range b.Benchmarks {
		for _, e := range bm.Entries {
			s := strings.ToLower(strings.TrimSpace(e.ModelName+" "+e.HarnessName)) + " " + rankText(e)
			if bestMarked(trackStats(&bm, e.Track), e) {
				s += " could be #1"
			}
			want = append(want, s)
		}
	}
	sort.Strings(want)
	got := append([]string(nil), r.RankCells...)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rank cells\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	found := false
	for _, c := range r.RankCells {
		found = found || strings.HasSuffix(c, "<script>alert(1)</script> 1–2 could be #1")
	}
	if !found {
		t.Errorf("the second entry, which no entry is significantly better than, does not show ranks 1–2 and could be #1: %v", r.RankCells)
	}
}

// checkIdentity: the maintainer's title and introduction, and each
// benchmark's description, licence and source.
func checkIdentity(t *testing.T, r *harnessResult) {
	t.Helper()
	if r.Title != "Rocks & <Models> as of 2026-11-29" || r.H1 != "Rocks & <Models>" {
		t.Errorf("title %q, heading %q", r.Title, r.H1)
	}
	if !strings.HasPrefix(r.Intro, "Run by the example society. Read the rules first.") || strings.Contains(r.Intro, "script") {
		t.Errorf("introduction %q", r.Intro)
	}
	if len(r.Attribution) != 2 || r.Attribution[0] != "Two hundred four-choice questions on rocks. | Licence: CC-BY-4.0. Source: https://example.org/mcq-mini." || r.Attribution[1] != " | " {
		t.Errorf("attribution %q", r.Attribution)
	}
	want := []string{
		"bench-mcq-mini-model-alpha-7b pull request #12 https://github.com/example/board/pull/12",
		"bench-mcq-mini-model-beta-mini commit " + betaCommit[:12] + " https://github.com/example/board/commit/" + betaCommit,
	}
	if strings.Join(r.AddedLinks, "\n") != strings.Join(want, "\n") {
		t.Errorf("added-by links\n%s\nwant\n%s", strings.Join(r.AddedLinks, "\n"), strings.Join(want, "\n"))
	}
}

// checkCSV: the page links to leaderboard.csv, which holds a row per
// entry with every column, and no cell a spreadsheet would run.
func checkCSV(t *testing.T, b *Board, r *harnessResult, origin string) {
	t.Helper()
	if r.CSVHref != origin+"/"+CSVFile {
		t.Errorf("the CSV link goes to %q", r.CSVHref)
	}
	if !strings.Contains(r.CSV, "\r\n") {
		t.Error("the CSV lines do not end in CRLF (RFC 4180)")
	}
	recs, err := csv.NewReader(strings.NewReader(r.CSV)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV the page links to does not parse: %v", err)
	}
	if len(recs) != b.Ranked()+1 || strings.Join(recs[0], ",") != strings.Join(CSVColumns, ",") {
		t.Fatalf("the CSV has %d records, header %v", len(recs), recs[0])
	}
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	i := 1
	for _, bm := range b.Benchmarks {
		for _, e := range bm.Entries {
			rec := recs[i]
			i++
			if rec[col["benchmark"]] != bm.Key || rec[col["path"]] != e.Path || rec[col["rank"]] != strconv.Itoa(e.Rank) || rec[col["rank_ub"]] != strconv.Itoa(e.RankUB) {
				t.Errorf("CSV row %d is %v, want %s", i-1, rec, e.Path)
			}
			if got, _ := strconv.ParseFloat(rec[col["score"]], 64); got != e.Score {
				t.Errorf("CSV row %d: score %q, want %v", i-1, rec[col["score"]], e.Score)
			}
			for _, c := range rec {
				if c != "" && strings.ContainsRune("=+-@", rune(c[0])) {
					t.Errorf("CSV row %d: cell %q would be a formula", i-1, c)
				}
			}
		}
	}
	// The hostile name stays text; the submitter that looked like a
	// formula is kept as text.
	if !strings.Contains(r.CSV, hostileModel) || !strings.Contains(r.CSV, ",'=2+5,") {
		t.Errorf("the CSV does not keep the model names and the formula-like submitter as text:\n%s", r.CSV)
	}
	if !strings.Contains(r.CSV, ",0123456789abcdef0123456789abcdef01234567,12,https://github.com/example/board/pull/12") {
		t.Error("the CSV does not say which pull request added an entry")
	}
}

// checkPrint: under the print rules every entry's breakdown shows and the
// controls do not.
func checkPrint(t *testing.T, r *harnessResult) {
	t.Helper()
	p := r.Print
	if p.Rules == 0 {
		t.Fatal("the page has no print rules")
	}
	if p.ScreenShown != 0 {
		t.Errorf("on the screen %d closed details show their contents: the test cannot tell", p.ScreenShown)
	}
	if p.Details == 0 || p.Shown != p.Details || p.Open != 0 {
		t.Errorf("printing shows %d of %d closed details (%d open)", p.Shown, p.Details, p.Open)
	}
	if p.AllTables == 0 || p.Tables != p.AllTables {
		t.Errorf("printing shows %d of %d breakdown tables", p.Tables, p.AllTables)
	}
	if p.Filters || p.TOC {
		t.Errorf("printing shows the filters (%v) or the benchmark links (%v)", p.Filters, p.TOC)
	}
}

// checkPhone: at 390 px nothing scrolls sideways, each entry starts with
// its model and score, and no chart's text is too small to read.
func checkPhone(t *testing.T, b *Board, r *harnessResult) {
	t.Helper()
	p := r.Phone
	if p.ClientWidth != 390 || p.ScrollWidth > p.ClientWidth {
		t.Errorf("on a phone the page is %v px wide in a %v px screen: %v", p.ScrollWidth, p.ClientWidth, p.Overflowing)
	}
	if len(p.Overflowing) > 0 {
		t.Errorf("on a phone these stick out on the right: %v", p.Overflowing)
	}
	if len(p.CellOrder) != 3 {
		t.Fatalf("on a phone %d rows show", len(p.CellOrder))
	}
	for _, cells := range p.CellOrder {
		if len(cells) < 10 || cells[0] != "Model" || cells[1] != "Score" {
			t.Errorf("on a phone an entry reads %v; want Model and Score first and every column shown", cells)
		}
	}
	if p.MinChartText < 11 {
		t.Errorf("on a phone a chart's text is %.1f px", p.MinChartText)
	}
	if p.MinText < 11 {
		t.Errorf("on a phone some text is %.1f px", p.MinText)
	}
	if p.Minis != b.Ranked() {
		t.Errorf("on a phone %d rank bars show for %d entries, want one in each row", p.Minis, b.Ranked())
	}
	if r.DesktopWidth != 1400 {
		t.Errorf("the desktop frame is %v px wide", r.DesktopWidth)
	}
}

// checkScatter: the labels of the score-against-price chart do not
// overlap each other or the marks, and its price axis has one format.
func checkScatter(t *testing.T, board string, scatters []harnessScatter) {
	t.Helper()
	if len(scatters) == 0 {
		t.Fatalf("%s: no score-against-price chart", board)
	}
	for _, s := range scatters {
		if len(s.Clashes) > 0 {
			t.Errorf("%s, %s: labels overlap: %v", board, s.Bench, s.Clashes)
		}
		if len(s.Labels) == 0 {
			t.Errorf("%s, %s: no labels", board, s.Bench)
		}
		decimals := -1
		for _, tick := range s.XTicks {
			d := 0
			if i := strings.IndexByte(tick, '.'); i >= 0 {
				d = len(strings.TrimRight(tick[i+1:], "k"))
			}
			if decimals >= 0 && d != decimals {
				t.Errorf("%s, %s: the price axis mixes formats: %v", board, s.Bench, s.XTicks)
				break
			}
			decimals = d
		}
	}
}

func orNil(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// checkExplorer: the first row's answers open below the table, one per
// question with its response; an answer's question shows every entry's
// answer to it; a model of the question opens its answers; nothing sticks
// out sideways.
func checkExplorer(t *testing.T, where string, x harnessExplorer) {
	t.Helper()
	if x.Error != "" {
		t.Fatalf("%s, the explorer: %s", where, x.Error)
	}
	if !x.Shown || !strings.HasPrefix(x.Model, "Answers of ") || x.Answers == 0 || x.Responses != x.Answers {
		t.Errorf("%s, opening %s shows %q with %d answers and %d responses (shown %v): %s", where, x.File, x.Model, x.Answers, x.Responses, x.Shown, x.Status)
	}
	if !x.HostileReason || x.Markup != 0 {
		t.Errorf("%s, a judge's reason that is markup is shown as text: %v; markup elements in the explorer: %d", where, x.HostileReason, x.Markup)
	}
	if x.WrongMarked == 0 || x.WrongShown != x.WrongMarked {
		t.Errorf("%s, showing wrong answers only leaves %d of %d, %d of them wrong", where, x.WrongShown, x.Answers, x.WrongMarked)
	}
	if !strings.HasPrefix(x.Question, "Question ") || x.QuestionEntries == 0 || !strings.Contains(x.QuestionStatus, "entries") {
		t.Errorf("%s, a question's view is %q with %d entries: %s", where, x.Question, x.QuestionEntries, x.QuestionStatus)
	}
	if !strings.HasPrefix(x.Hash, "#answers=explore%2F") || x.Reopened != x.Back {
		t.Errorf("%s, the address %q opened afresh shows %q, want %q", where, x.Hash, x.Reopened, x.Back)
	}
	if !strings.HasPrefix(x.Back, "Answers of ") {
		t.Errorf("%s, a model of the question opens %q", where, x.Back)
	}
	if x.ModelWide > 0 || x.QuestionWide > 0 {
		t.Errorf("%s, the explorer scrolls sideways by %.0f px (answers) and %.0f px (question)", where, x.ModelWide, x.QuestionWide)
	}
}

// checkBreakdown: the accuracy by difficulty shows only when asked for,
// one column per difficulty, with each entry's accuracy there.
func checkBreakdown(t *testing.T, b *Board, r *harnessResult) {
	t.Helper()
	x := r.Breakdown
	if len(x.Before) != 0 || len(x.Unticked) != 0 {
		t.Errorf("optional columns show unasked: %v, after unticking %v", x.Before, x.Unticked)
	}
	if strings.Join(x.After, ",") != "easy,medium,hard" {
		t.Errorf("by difficulty the columns are %v", x.After)
	}
	var want []string
	for _, bm := range b.Benchmarks {
		for _, tr := range []string{"model-benchmark", "harness-benchmark"} {
			for _, e := range bm.Entries {
				if string(e.Track) != tr {
					continue
				}
				s := strings.ToLower(strings.TrimSpace(e.ModelName + " " + e.HarnessName))
				for _, k := range []string{"easy", "medium", "hard"} {
					if c, ok := mcqOf(e).ByDifficulty[k]; ok {
						s += " " + pct(c.Accuracy)
					} else {
						s += " –"
					}
				}
				want = append(want, s)
			}
		}
	}
	got := append([]string(nil), x.Cells...)
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("accuracy by difficulty\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func mcqOf(e Entry) *MCQDetail {
	if e.MCQ == nil {
		return &MCQDetail{}
	}
	return e.MCQ
}
