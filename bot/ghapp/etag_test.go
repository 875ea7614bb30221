package ghapp

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
)

// observed records the statuses Config.Observe is told of.
type observed struct {
	mu       sync.Mutex
	statuses []int
}

func (o *observed) observe(status, _ int) {
	o.mu.Lock()
	o.statuses = append(o.statuses, status)
	o.mu.Unlock()
}

func (o *observed) last() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.statuses) == 0 {
		return 0
	}
	return o.statuses[len(o.statuses)-1]
}

// setupObserved is setup with Config.Observe recording into the result.
func setupObserved(t *testing.T) (*fakegithub.Server, *App, *observed) {
	t.Helper()
	key := testKey()
	srv := fakegithub.New(t, appID, &key.PublicKey)
	srv.AddRepo(repo, "main")
	srv.AddInstallation(inst, repo)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	obs := &observed{}
	app, err := New(Config{AppID: appID, PrivateKey: pemKey, BaseURL: srv.URL, HTTPClient: srv.Client(), Sleep: (&sleeps{}).sleep, Observe: obs.observe})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Identify(context.Background()); err != nil {
		t.Fatal(err)
	}
	return srv, app, obs
}

func lastRequest(srv *fakegithub.Server) fakegithub.RequestLog {
	l := srv.Requests()
	return l[len(l)-1]
}

// TestConditionalReconcile: the reconcile loop's questions, asked again
// on unchanged data, are answered 304 and cost nothing; after a change the
// answer is fresh.
func TestConditionalReconcile(t *testing.T) {
	srv, app, obs := setupObserved(t)
	ctx := context.Background()
	sha := strings.Repeat("cd", 20)
	srv.AddPR(repo, fakegithub.PR{Number: 1, HeadSHA: sha})

	hasCheck := func() (string, error) {
		ok, err := app.HasCompletedCheck(ctx, inst, repo, sha, prcheck.CheckName)
		return fmt.Sprint(ok), err
	}
	openPulls := func() (string, error) {
		pulls, err := app.OpenPulls(ctx, inst, repo)
		var nums []int
		for _, p := range pulls {
			nums = append(nums, p.Number)
		}
		return fmt.Sprint(nums), err
	}
	installations := func() (string, error) {
		ids, err := app.Installations(ctx)
		return fmt.Sprint(ids), err
	}
	repositories := func() (string, error) {
		repos, err := app.Repositories(ctx, inst)
		return fmt.Sprint(repos), err
	}
	postCheck := func() {
		if _, err := app.PostCheck(ctx, inst, repo, sha, prcheck.CheckName, "", prcheck.CheckOutcome{Conclusion: prcheck.Success, Title: "t", Summary: "s"}); err != nil {
			t.Fatal(err)
		}
	}

	for _, step := range []struct {
		name        string
		change      func()
		call        func() (string, error)
		want        string
		notModified bool
		charged     int // requests charged to the installation's budget
	}{
		{"check runs", nil, hasCheck, "false", false, 1},
		{"check runs unchanged", nil, hasCheck, "false", true, 0},
		{"check runs after a new run", postCheck, hasCheck, "true", false, 1},
		{"check runs unchanged again", nil, hasCheck, "true", true, 0},
		{"open pulls", nil, openPulls, "[1]", false, 1},
		{"open pulls unchanged", nil, openPulls, "[1]", true, 0},
		{"open pulls after a new pull", func() { srv.AddPR(repo, fakegithub.PR{Number: 2}) }, openPulls, "[2 1]", false, 1},
		{"open pulls unchanged again", nil, openPulls, "[2 1]", true, 0},
		// The App's own listing is not metered by the fake, and its JWT,
		// signed afresh for each request, is never asked conditionally.
		{"installations", nil, installations, fmt.Sprint([]int64{inst}), false, 0},
		{"installations again", nil, installations, fmt.Sprint([]int64{inst}), false, 0},
		{"repositories", nil, repositories, "[" + repo + "]", false, 1},
		{"repositories unchanged", nil, repositories, "[" + repo + "]", true, 0},
	} {
		if step.change != nil {
			step.change()
		}
		budget, nm := srv.RateLimitRemaining(), srv.NotModified()
		got, err := step.call()
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got != step.want {
			t.Errorf("%s: %s, want %s", step.name, got, step.want)
		}
		wantNM, wantStatus := nm, http.StatusOK
		if step.notModified {
			wantNM, wantStatus = nm+1, http.StatusNotModified
		}
		if n := srv.NotModified(); n != wantNM {
			t.Errorf("%s: %d answers 304, want %d", step.name, n-nm, wantNM-nm)
		}
		if s := obs.last(); s != wantStatus {
			t.Errorf("%s: Observe last told of %d, want %d", step.name, s, wantStatus)
		}
		if spent := budget - srv.RateLimitRemaining(); spent != step.charged {
			t.Errorf("%s: %d requests charged, want %d", step.name, spent, step.charged)
		}
	}
}

// TestConditionalPageGrowth: a full page that names no next page is read
// in full each time, since its 304 would hide the page that a growing
// listing gains; pages that name the next one are asked conditionally.
func TestConditionalPageGrowth(t *testing.T) {
	srv, app, _ := setupObserved(t)
	ctx := context.Background()
	srv.AddPR(repo, fakegithub.PR{Number: 1, State: "closed"})
	for n := 2; n <= 101; n++ {
		srv.AddPR(repo, fakegithub.PR{Number: n})
	}
	count := func() int {
		t.Helper()
		pulls, err := app.OpenPulls(ctx, inst, repo)
		if err != nil {
			t.Fatal(err)
		}
		return len(pulls)
	}
	if n := count(); n != 100 {
		t.Fatalf("%d open pulls, want 100", n)
	}
	if n := count(); n != 100 {
		t.Fatalf("%d open pulls the second time, want 100", n)
	}
	if l := lastRequest(srv); l.IfNoneMatch != "" || l.Status != http.StatusOK {
		t.Errorf("the full last page was asked conditionally: %+v", l)
	}
	// Reopened, the oldest pull request lands on a second page, while
	// the first page's items stay the same.
	srv.AddPR(repo, fakegithub.PR{Number: 1})
	if n := count(); n != 101 {
		t.Fatalf("%d open pulls after one reopened, want 101", n)
	}
	nm := srv.NotModified()
	if n := count(); n != 101 {
		t.Fatalf("%d open pulls the second time, want 101", n)
	}
	if got := srv.NotModified() - nm; got != 2 {
		t.Errorf("%d of the two pages answered 304, want both", got)
	}
}

// TestConditionalInstallationsApart: one installation's remembered answer
// is never offered for, or served to, another.
func TestConditionalInstallationsApart(t *testing.T) {
	srv, app, _ := setupObserved(t)
	ctx := context.Background()
	const other, otherRepo = inst + 1, "geo/other"
	srv.AddRepo(otherRepo, "main")
	srv.AddInstallation(other, otherRepo)

	for _, step := range []struct {
		inst        int64
		want        string
		conditional bool
	}{
		{inst, "[" + repo + "]", false},
		{other, "[" + otherRepo + "]", false},
		{inst, "[" + repo + "]", true},
		{other, "[" + otherRepo + "]", true},
	} {
		repos, err := app.Repositories(ctx, step.inst)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(repos); got != step.want {
			t.Errorf("installation %d: %s, want %s", step.inst, got, step.want)
		}
		if l := lastRequest(srv); (l.IfNoneMatch != "") != step.conditional || (l.Status == http.StatusNotModified) != step.conditional {
			t.Errorf("installation %d: request %+v, want conditional %v", step.inst, l, step.conditional)
		}
	}
}

// origin is a test server for the transport alone: it answers each path
// with a body set by the test, "{who}" in it replaced by the caller's
// Authorization and Accept, tagged by its digest (or, when lax, one tag
// for everything, as a server whose tags collide), and counts requests in
// X-RateLimit-Remaining.
type origin struct {
	mu     sync.Mutex
	bodies map[string]string // by request URI
	links  map[string]string
	fail   int
	lax    bool
	n      int
	inm    string // the last request's If-None-Match
}

func (o *origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n++
	o.inm = r.Header.Get("If-None-Match")
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(5000-o.n))
	if o.fail != 0 {
		http.Error(w, "failing", o.fail)
		return
	}
	body, ok := o.bodies[r.URL.RequestURI()]
	if !ok {
		http.NotFound(w, r)
		return
	}
	body = strings.ReplaceAll(body, "{who}", r.Header.Get("Authorization")+" as "+r.Header.Get("Accept"))
	sum := sha256.Sum256([]byte(body))
	tag := `"` + hex.EncodeToString(sum[:8]) + `"`
	if o.lax {
		tag = `"same"`
	}
	if r.URL.Path != "/untagged" {
		w.Header().Set("ETag", tag)
	}
	if l := o.links[r.URL.RequestURI()]; l != "" {
		w.Header().Set("Link", l)
	}
	if r.URL.Path != "/untagged" && o.inm == tag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, body)
}

// authorizing stands in for the installation transport above the cache.
type authorizing struct {
	as   string
	next http.RoundTripper
}

func (a authorizing) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", a.as)
	return a.next.RoundTrip(r)
}

func TestConditionalTransport(t *testing.T) {
	o := &origin{bodies: map[string]string{
		"/a":                  "A1 {who}",
		"/big":                strings.Repeat("x", 200),
		"/untagged":           "U {who}",
		"/list?per_page=2":    "[1, 2]",
		"/list?per_page=3":    "[1, 2]",
		"/paged?per_page=2":   "[1, 2]",
		"/wrapped?per_page=2": `{"total_count": 9, "check_runs": [1, 2]}`,
		"/default":            "[" + strings.Repeat("0,", 29) + "0]",
	}, links: map[string]string{"/paged?per_page=2": `<http://x/paged?page=2>; rel="next"`}}
	ts := httptest.NewServer(o)
	defer ts.Close()
	cache := newETagCache(128, 1<<10)
	clients := map[int64]*http.Client{}
	for _, scope := range []int64{1, 2} {
		clients[scope] = &http.Client{Transport: authorizing{fmt.Sprint("token inst", scope), conditional{next: ts.Client().Transport, cache: cache}}}
	}

	for _, step := range []struct {
		name        string
		change      func()
		method      string
		scope       int64
		path        string
		accept      string
		status      int
		body        string // "" for the origin's body as is
		conditional bool   // sent with If-None-Match
	}{
		{"first", nil, "GET", 1, "/a", "", 200, "A1 token inst1 as ", false},
		{"again", nil, "GET", 1, "/a", "", 200, "A1 token inst1 as ", true},
		{"changed", func() { o.bodies["/a"] = "A2 {who}" }, "GET", 1, "/a", "", 200, "A2 token inst1 as ", true},
		{"unchanged after the change", nil, "GET", 1, "/a", "", 200, "A2 token inst1 as ", true},
		{"another Accept", nil, "GET", 1, "/a", "text/plain", 200, "A2 token inst1 as text/plain", false},
		{"error answer", func() { o.fail = http.StatusBadGateway }, "GET", 1, "/a", "", 502, "failing\n", true},
		{"kept through the error", func() { o.fail = 0 }, "GET", 1, "/a", "", 200, "A2 token inst1 as ", true},
		{"not a GET", nil, "POST", 1, "/a", "", 200, "A2 token inst1 as ", false},
		{"another installation, colliding tags", func() { o.lax = true }, "GET", 2, "/a", "", 200, "A2 token inst2 as ", false},
		{"own installation, colliding tags", nil, "GET", 1, "/a", "", 200, "A2 token inst1 as ", true},
		{"too big", nil, "GET", 1, "/big", "", 200, strings.Repeat("x", 200), false},
		{"too big, not kept", nil, "GET", 1, "/big", "", 200, strings.Repeat("x", 200), false},
		{"no tag", func() { o.lax = false }, "GET", 1, "/untagged", "", 200, "U token inst1 as ", false},
		{"no tag, not kept", nil, "GET", 1, "/untagged", "", 200, "U token inst1 as ", false},
		{"full last page", nil, "GET", 1, "/list?per_page=2", "", 200, "[1, 2]", false},
		{"full last page, not kept", nil, "GET", 1, "/list?per_page=2", "", 200, "[1, 2]", false},
		{"short last page", nil, "GET", 1, "/list?per_page=3", "", 200, "[1, 2]", false},
		{"short last page, kept", nil, "GET", 1, "/list?per_page=3", "", 200, "[1, 2]", true},
		{"full page with a next", nil, "GET", 1, "/paged?per_page=2", "", 200, "[1, 2]", false},
		{"full page with a next, kept", nil, "GET", 1, "/paged?per_page=2", "", 200, "[1, 2]", true},
		{"full wrapped page", nil, "GET", 1, "/wrapped?per_page=2", "", 200, `{"total_count": 9, "check_runs": [1, 2]}`, false},
		{"full wrapped page, not kept", nil, "GET", 1, "/wrapped?per_page=2", "", 200, `{"total_count": 9, "check_runs": [1, 2]}`, false},
		{"full page of the default size", nil, "GET", 1, "/default", "", 200, "[" + strings.Repeat("0,", 29) + "0]", false},
		{"full page of the default size, not kept", nil, "GET", 1, "/default", "", 200, "[" + strings.Repeat("0,", 29) + "0]", false},
	} {
		if step.change != nil {
			o.mu.Lock()
			step.change()
			o.mu.Unlock()
		}
		req, err := http.NewRequest(step.method, ts.URL+step.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if step.accept != "" {
			req.Header.Set("Accept", step.accept)
		}
		resp, err := clients[step.scope].Do(req)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: reading the body: %v", step.name, err)
		}
		o.mu.Lock()
		n, inm := o.n, o.inm
		o.mu.Unlock()
		// A POST's body is not the listing; only its status matters.
		if resp.StatusCode != step.status || (step.method == "GET" && string(body) != step.body) {
			t.Errorf("%s: %d %q, want %d %q", step.name, resp.StatusCode, body, step.status, step.body)
		}
		if (inm != "") != step.conditional {
			t.Errorf("%s: sent If-None-Match %q, want conditional %v", step.name, inm, step.conditional)
		}
		if got, want := resp.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(5000-n); got != want {
			t.Errorf("%s: X-RateLimit-Remaining %s, want the latest, %s", step.name, got, want)
		}
		if step.status == 200 && resp.Header.Get("Content-Type") != "application/json" && step.method == "GET" {
			t.Errorf("%s: Content-Type %q", step.name, resp.Header.Get("Content-Type"))
		}
	}
}

func TestETagCacheLRU(t *testing.T) {
	c := newETagCache(8, 10)
	key := func(s string) etagKey { return etagKey{url: s} }
	put := func(k string, n int) {
		c.put(&etagEntry{key: key(k), etag: `"` + k + `"`, body: make([]byte, n)})
	}
	for _, step := range []struct {
		op    func()
		kept  []string
		bytes int
	}{
		{func() { put("a", 4); put("b", 4) }, []string{"a", "b"}, 8},
		{func() { c.get(key("a")); put("c", 4) }, []string{"a", "c"}, 8}, // b was least recently used
		{func() { put("a", 6) }, []string{"a", "c"}, 10},                 // replaced, not added
		{func() { put("d", 1) }, []string{"a", "d"}, 7},
		{func() { c.remove(key("a")) }, []string{"d"}, 1},
		{func() { c.remove(key("zz")) }, []string{"d"}, 1},
	} {
		step.op()
		var kept []string
		for _, k := range []string{"a", "b", "c", "d"} {
			c.mu.Lock()
			_, ok := c.byKey[key(k)]
			c.mu.Unlock()
			if ok {
				kept = append(kept, k)
			}
		}
		if !slices.Equal(kept, step.kept) || c.bytes != step.bytes || c.lru.Len() != len(step.kept) {
			t.Errorf("kept %v (%d bytes, %d listed), want %v (%d bytes)", kept, c.bytes, c.lru.Len(), step.kept, step.bytes)
		}
	}
}

func TestListingLen(t *testing.T) {
	for _, c := range []struct {
		body string
		n    int
		ok   bool
	}{
		{`[]`, 0, true},
		{` [1, {"a": [1,2,3]}, "x"] `, 3, true},
		{`{"total_count": 5, "repositories": [1, 2], "repository_selection": "selected"}`, 2, true},
		{`{"total_count": 0, "check_runs": []}`, 0, true},
		{`{"id": 1, "labels": [1, 2, 3]}`, 0, false}, // an object, not a listing
		{`{"total_count": 3}`, 0, false},
		{`[1, 2`, 0, false},
		{``, 0, false},
	} {
		n, ok := listingLen([]byte(c.body))
		if n != c.n || ok != c.ok {
			t.Errorf("listingLen(%s) = %d %v, want %d %v", c.body, n, ok, c.n, c.ok)
		}
	}
}

// TestConditionalPerToken: GitHub's tags are per token, so the answers
// kept under a token that was replaced are not offered for the new one:
// the first question after the renewal is answered in full (and charged),
// the next one 304 again.
func TestConditionalPerToken(t *testing.T) {
	srv, app, _ := setupObserved(t)
	ctx := context.Background()
	sha := strings.Repeat("ef", 20)
	srv.AddPR(repo, fakegithub.PR{Number: 1, HeadSHA: sha})
	ask := func() {
		t.Helper()
		if _, err := app.HasCompletedCheck(ctx, inst, repo, sha, prcheck.CheckName); err != nil {
			t.Fatal(err)
		}
	}
	ask()
	for _, step := range []struct {
		name        string
		change      func()
		notModified bool
		charged     int
	}{
		{"same token", nil, true, 0},
		{"a new token", srv.RevokeTokens, false, 1},
		{"the new token again", nil, true, 0},
	} {
		if step.change != nil {
			step.change()
		}
		budget := srv.RateLimitRemaining()
		ask()
		l := lastRequest(srv)
		if (l.Status == http.StatusNotModified) != step.notModified {
			t.Errorf("%s: %+v, want 304 %v", step.name, l, step.notModified)
		}
		if spent := budget - srv.RateLimitRemaining(); spent != step.charged {
			t.Errorf("%s: %d charged, want %d", step.name, spent, step.charged)
		}
	}
}
