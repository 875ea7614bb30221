package ranking

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// heightHarness loads the page at 1400 px and at 390 × 844 and writes
// their heights, where the table starts, and how long the first row's
// answers take to show, into #result.
const heightHarness = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>heights</title></head>
<body><pre id="result">pending</pre>
<script>
'use strict';
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
async function measure(w, h) {
  var f = await load('/index.html', w, h), d = f.contentDocument, m = {};
  m.height = d.documentElement.scrollHeight;
  m.width = Math.max(d.documentElement.scrollWidth, d.body.scrollWidth);
  var table = d.getElementById('entries');
  m.tableTop = table ? table.getBoundingClientRect().top : -1;
  var link = d.querySelector('a.answers-link');
  if (link) {
    var t0 = f.contentWindow.performance.now();
    link.click();
    for (var i = 0; i < 200 && d.querySelectorAll('#explorer-list > li').length === 0; i++) { await wait(25); }
    m.explorerMS = Math.round(f.contentWindow.performance.now() - t0);
    m.answers = d.querySelectorAll('#explorer-list > li').length;
  }
  return m;
}
(async function () {
  var r = {};
  try {
    r.desktop = await measure(1400, 900);
    r.phone = await measure(390, 844);
  } catch (e) { r.error = String(e); }
  document.getElementById('result').textContent = JSON.stringify(r);
})();
</script></body></html>`

// TestPageHeights measures a generated leaderboard folder, named by
// $BENCHGATE_PAGE_DIR (bench/pagesize writes one), in Chromium: the page's
// height on a desktop and on a phone, where the table starts on each, and
// the time the first row's answers take to open. docs/PERFORMANCE.md
// records what it gave.
func TestPageHeights(t *testing.T) {
	dir := os.Getenv("BENCHGATE_PAGE_DIR")
	if dir == "" {
		t.Skip("set BENCHGATE_PAGE_DIR to a folder of generated leaderboard files to measure them")
	}
	bin := findChromium()
	if bin == "" {
		t.Skip("Chromium is not installed: apt-get install chromium; .ci/run installs it")
	}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/harness.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(heightHarness))
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dom := chromium(t, bin, "--hide-scrollbars", "--window-size=1500,1000", "--virtual-time-budget=20000", "--dump-dom", srv.URL+"/harness.html")
	m := resultRe.FindSubmatch(dom)
	if m == nil {
		t.Fatalf("no result in the harness page:\n%s", tail(string(dom), 2000))
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &r); err != nil {
		t.Fatal(err)
	}
	if r["error"] != nil {
		t.Fatalf("the harness failed: %v", r["error"])
	}
	t.Logf("desktop (1400 px): %v", r["desktop"])
	t.Logf("phone (390 × 844): %v", r["phone"])
}
