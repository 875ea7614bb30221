package fakehub_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/fakehub"
)

const ds = "EigenformAI/groundtruth-dynamic-benchmarking-submissions"

type world struct {
	hub               *fakehub.Hub
	owner, alice, bot *fakehub.User
	recv              *receiver
}

// receiver is a webhook endpoint that records what arrives and answers
// the statuses queued in answers (200 once they run out).
type receiver struct {
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	urls    []string
	answers []int
	srv     *httptest.Server
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.bodies = append(rc.bodies, b)
	rc.headers = append(rc.headers, r.Header.Clone())
	rc.urls = append(rc.urls, r.URL.String())
	status := http.StatusOK
	if len(rc.answers) > 0 {
		status, rc.answers = rc.answers[0], rc.answers[1:]
	}
	rc.mu.Unlock()
	w.WriteHeader(status)
}

func (rc *receiver) got() [][]byte {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.bodies)
}

func newWorld(t *testing.T) *world {
	t.Helper()
	h := fakehub.New(t)
	w := &world{hub: h, owner: h.AddUser("eigenform-admin"), alice: h.AddUser("alice"), bot: h.AddUser("benchgate-bot")}
	h.AddToken("hf_owner", w.owner, fakehub.RoleWrite)
	h.AddToken("hf_alice", w.alice, fakehub.RoleWrite)
	h.AddToken("hf_alice_read", w.alice, fakehub.RoleRead)
	h.AddToken("hf_bot", w.bot, fakehub.RoleWrite)
	h.CreateDataset(ds, w.owner, false, map[string]fakehub.File{
		"README.md": {Content: []byte("# submissions\n")},
		"submissions/model-benchmark/base/meta.json":   {Content: []byte(`{"name":"base"}`)},
		"submissions/model-benchmark/base/scores.json": {Content: []byte(`{"a":1}`)},
	})
	h.AddWriter(ds, w.bot)
	w.recv = &receiver{}
	w.recv.srv = httptest.NewServer(w.recv)
	t.Cleanup(w.recv.srv.Close)
	h.AddWebhook(w.recv.srv.URL+"/webhook/huggingface", "s3cret", fakehub.WebhookOptions{}, ds)
	return w
}

func (w *world) do(t *testing.T, method, path, token, ctype string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, w.hub.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func (w *world) postJSON(t *testing.T, path, token string, v any) (*http.Response, []byte) {
	t.Helper()
	b, _ := json.Marshal(v)
	return w.do(t, "POST", path, token, "application/json", b)
}

// keyPaths is the set of field paths of a JSON document, arrays marked [].
func keyPaths(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	out := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				out[p] = true
				walk(p, e)
			}
		case []any:
			for _, e := range x {
				walk(prefix+"[]", e)
			}
		}
	}
	walk("", v)
	return out
}

func scopeOf(t *testing.T, body []byte) string {
	var p struct {
		Event struct{ Action, Scope string }
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	return p.Event.Scope + "/" + p.Event.Action
}

// TestPayloadsMatchTheDocumentedExamples compares the field sets of the
// fake's deliveries with the Hub's own examples (hf-hub.md §3.3).
func TestPayloadsMatchTheDocumentedExamples(t *testing.T) {
	w := newWorld(t)
	num, _ := w.hub.OpenPR(ds, w.alice, "Add my-model", "please review", map[string]fakehub.File{
		"submissions/model-benchmark/my-model/meta.json": {Content: []byte(`{}`)},
	})
	if r, b := w.postJSON(t, "/api/datasets/"+ds+"/discussions/1/status", "hf_alice", map[string]string{"status": "closed"}); r.StatusCode != 200 {
		t.Fatalf("close: %d %s", r.StatusCode, b)
	}
	if num != 1 {
		t.Fatalf("PR number %d", num)
	}
	got := w.recv.got()
	if len(got) != 3 {
		t.Fatalf("%d deliveries, want 3", len(got))
	}
	for _, tc := range []struct {
		example string
		body    []byte
		// fields of the example the fake's dataset payload does not have,
		// and why.
		onlyInExample []string
	}{
		{"discussion-create-pr.json", got[0], nil},
		{"repo-content-updated-refs.json", got[1], []string{"repo.subdomain"}}, // Spaces only
		{"discussion-update-status.json", got[2], nil},
	} {
		t.Run(tc.example, func(t *testing.T) {
			ex, err := os.ReadFile("testdata/examples/" + tc.example)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := scopeOf(t, ex), scopeOf(t, tc.body); a != b {
				t.Fatalf("delivery is %s, example %s", b, a)
			}
			want, have := keyPaths(t, ex), keyPaths(t, tc.body)
			for _, k := range tc.onlyInExample {
				delete(want, k)
			}
			for k := range want {
				if !have[k] {
					t.Errorf("the fake's payload lacks %s", k)
				}
			}
			for k := range have {
				if !want[k] {
					t.Errorf("the fake's payload has %s, which the example has not", k)
				}
			}
		})
	}
}

func TestDeliveriesCarryOnlyTheSecret(t *testing.T) {
	w := newWorld(t)
	w.hub.Comment(ds, 0+mustOpen(t, w), w.alice, "hello")
	for i, hd := range w.recv.headers {
		if hd.Get("X-Webhook-Secret") != "s3cret" {
			t.Errorf("delivery %d: X-Webhook-Secret %q", i, hd.Get("X-Webhook-Secret"))
		}
		for k := range hd {
			if strings.HasPrefix(k, "X-") && k != "X-Webhook-Secret" {
				t.Errorf("delivery %d has %s, which the Hub does not send", i, k)
			}
		}
	}
	// The query-string variant (hf-hub.md §3.1 "Secret").
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	w.hub.AddWebhook(srv.URL+"/hook", "q-secret", fakehub.WebhookOptions{SecretInQuery: true}, ds)
	w.hub.Comment(ds, 1, w.alice, "again")
	if len(rc.urls) != 1 || !strings.Contains(rc.urls[0], "secret=q-secret") || rc.headers[0].Get("X-Webhook-Secret") != "" {
		t.Errorf("query secret delivery: %v %v", rc.urls, rc.headers)
	}
}

func mustOpen(t *testing.T, w *world) int {
	t.Helper()
	n, _ := w.hub.OpenPR(ds, w.alice, "Add my-model", "desc", map[string]fakehub.File{
		"submissions/model-benchmark/my-model/meta.json":   {Content: []byte(`{"name":"my-model"}`)},
		"submissions/model-benchmark/my-model/scores.json": {Content: []byte(`{"a":2}`)},
	})
	return n
}

func TestPROpeningEitherOrderAndReplay(t *testing.T) {
	w := newWorld(t)
	w.hub.Hold(true)
	mustOpen(t, w)
	p := w.hub.Pending()
	if len(p) != 2 || scopeOf(t, p[0].Body) != "discussion/create" || scopeOf(t, p[1].Body) != "repo.content/update" {
		t.Fatalf("pending: %d", len(p))
	}
	if err := w.hub.Send(p[1].ID, p[0].ID); err != nil {
		t.Fatal(err)
	}
	got := w.recv.got()
	if len(got) != 2 || scopeOf(t, got[0]) != "repo.content/update" || scopeOf(t, got[1]) != "discussion/create" {
		t.Fatalf("order not kept: %d", len(got))
	}
	var rc struct {
		UpdatedRefs []struct {
			Ref    string
			OldSha *string
			NewSha *string
		}
	}
	_ = json.Unmarshal(got[0], &rc)
	if len(rc.UpdatedRefs) != 1 || rc.UpdatedRefs[0].Ref != "refs/pr/1" || rc.UpdatedRefs[0].OldSha != nil || rc.UpdatedRefs[0].NewSha == nil {
		t.Fatalf("updatedRefs: %s", got[0])
	}
	if err := w.hub.Replay(p[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := w.recv.got(); len(got) != 3 || !bytes.Equal(got[2], got[1]) {
		t.Fatal("a replay is not byte-identical")
	}
}

func TestRetriesAfterFailure(t *testing.T) {
	w := newWorld(t)
	w.recv.answers = []int{500, 502}
	w.hub.Comment(ds, mustOpenQuiet(t, w), w.alice, "hi")
	ds := w.hub.Deliveries()
	last := ds[len(ds)-1]
	var st []int
	for _, a := range last.Attempts {
		st = append(st, a.Status)
	}
	if !slices.Equal(st, []int{500, 502, 200}) {
		t.Fatalf("attempts %v", st)
	}
	got := w.recv.got()
	if !bytes.Equal(got[len(got)-1], got[len(got)-3]) {
		t.Error("a retry changed the body")
	}
}

// mustOpenQuiet opens a PR and forgets its deliveries' answers.
func mustOpenQuiet(t *testing.T, w *world) int {
	answers := w.recv.answers
	w.recv.answers = nil
	n := mustOpen(t, w)
	w.recv.answers = answers
	return n
}

func TestDailyTriggerCap(t *testing.T) {
	w := newWorld(t)
	w.hub.TriggerCap = 4
	n := mustOpen(t, w) // 2 triggers
	w.hub.Comment(ds, n, w.alice, "one")
	w.hub.Comment(ds, n, w.alice, "two") // 4th
	w.hub.Comment(ds, n, w.alice, "three")
	d := w.hub.Deliveries()
	if len(d) != 5 || !d[4].Capped || d[3].Capped || len(w.recv.got()) != 4 {
		t.Fatalf("cap not applied: %d deliveries, %d received", len(d), len(w.recv.got()))
	}
	w.hub.Advance(24 * time.Hour)
	w.hub.Comment(ds, n, w.alice, "next day")
	if len(w.recv.got()) != 5 {
		t.Fatal("the cap did not reset after 24 hours")
	}
}

func TestOwnCommentsComeBackAsEvents(t *testing.T) {
	w := newWorld(t)
	n := mustOpen(t, w)
	base := "/api/datasets/" + ds + "/discussions/1"
	r, b := w.postJSON(t, base+"/comment", "hf_bot", map[string]string{"comment": "<!-- benchgate -->\npassed"})
	if r.StatusCode != 200 {
		t.Fatalf("comment: %d %s", r.StatusCode, b)
	}
	var nm struct {
		NewMessage struct {
			ID   string
			Type string
		}
	}
	_ = json.Unmarshal(b, &nm)
	if r, b := w.postJSON(t, base+"/comment/"+nm.NewMessage.ID+"/edit", "hf_bot", map[string]string{"content": "<!-- benchgate -->\nfailed"}); r.StatusCode != 200 {
		t.Fatalf("edit: %d %s", r.StatusCode, b)
	}
	if r, b := w.do(t, "POST", base+"/comment/"+nm.NewMessage.ID+"/hide", "hf_bot", "", nil); r.StatusCode != 200 {
		t.Fatalf("hide: %d %s", r.StatusCode, b)
	}
	got := w.recv.got()[2:]
	want := []string{"discussion.comment/create", "discussion.comment/update", "discussion.comment/update"}
	for i, g := range got {
		var p struct {
			Comment struct {
				ID      string
				Author  struct{ ID string }
				Content *string
				Hidden  bool
			}
		}
		_ = json.Unmarshal(g, &p)
		if scopeOf(t, g) != want[i] || p.Comment.Author.ID != w.bot.ID || p.Comment.ID != nm.NewMessage.ID {
			t.Errorf("event %d: %s", i, g)
		}
		if i == 2 && (!p.Comment.Hidden || p.Comment.Content != nil) {
			t.Errorf("a hidden comment's event carries its content: %s", g)
		}
	}
	st := w.hub.Discussion(ds, n)
	c := st.Comments[1]
	if !c.Hidden || c.Raw != "" || !c.Edited {
		t.Errorf("comment state %+v", c)
	}
	// Hidden for good: it cannot be edited back.
	if r, _ := w.postJSON(t, base+"/comment/"+nm.NewMessage.ID+"/edit", "hf_bot", map[string]string{"content": "x"}); r.StatusCode != 400 {
		t.Errorf("editing a hidden comment: %d", r.StatusCode)
	}
}

func TestTreePagesDirectoriesAndLFS(t *testing.T) {
	w := newWorld(t)
	w.hub.TreePageSize = 2
	big := bytes.Repeat([]byte("x"), 4096)
	_, head := w.hub.OpenPR(ds, w.alice, "Add big", "", map[string]fakehub.File{
		"submissions/model-benchmark/big/meta.json":   {Content: []byte(`{}`)},
		"submissions/model-benchmark/big/scores.json": {Content: big, LFS: true},
	})
	next := "/api/datasets/" + ds + "/tree/refs%2Fpr%2F1/submissions?recursive=true&expand=false"
	var all []map[string]any
	pages := 0
	for next != "" {
		r, b := w.do(t, "GET", next, "hf_bot", "", nil)
		if r.StatusCode != 200 {
			t.Fatalf("%s: %d %s", next, r.StatusCode, b)
		}
		pages++
		var page []map[string]any
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		next = ""
		if l := r.Header.Get("Link"); l != "" {
			u := l[strings.Index(l, "<")+1 : strings.Index(l, ">")]
			if !strings.HasSuffix(l, `rel="next"`) || !strings.HasPrefix(u, w.hub.URL) {
				t.Fatalf("Link %q", l)
			}
			next = strings.TrimPrefix(u, w.hub.URL)
		}
	}
	if pages < 3 {
		t.Errorf("%d pages of 2 entries", pages)
	}
	types := map[string]string{}
	for _, e := range all {
		types[e["path"].(string)] = e["type"].(string)
		if e["path"] == "submissions/model-benchmark/big/scores.json" {
			lfs, _ := e["lfs"].(map[string]any)
			if lfs == nil || lfs["size"].(float64) != 4096 || lfs["pointerSize"] == nil || e["xetHash"] == nil {
				t.Errorf("LFS entry %v", e)
			}
		}
	}
	if types["submissions/model-benchmark"] != "directory" || types["submissions/model-benchmark/big"] != "directory" || len(types) != 7 {
		t.Errorf("entries %v", types)
	}
	// expand adds lastCommit (hf-hub.md §2.3): for a folder too.
	_, b0 := w.do(t, "GET", "/api/datasets/"+ds+"/tree/"+head+"/submissions/model-benchmark?expand=true", "", "", nil)
	var dirs []struct {
		Path       string
		LastCommit struct{ ID string }
	}
	_ = json.Unmarshal(b0, &dirs)
	lc := map[string]string{}
	for _, d := range dirs {
		lc[d.Path] = d.LastCommit.ID
	}
	if lc["submissions/model-benchmark/big"] != head || lc["submissions/model-benchmark/base"] == head || lc["submissions/model-benchmark/base"] == "" {
		t.Errorf("folders' last commits %v", lc)
	}
	_, b := w.do(t, "GET", "/api/datasets/"+ds+"/tree/"+head+"/submissions/model-benchmark/big?expand=true", "", "", nil)
	var ex []struct {
		Path       string
		LastCommit struct{ ID string }
	}
	_ = json.Unmarshal(b, &ex)
	if len(ex) != 2 || ex[0].LastCommit.ID != head || ex[1].LastCommit.ID != head {
		t.Errorf("expand: %s", b)
	}
}

func TestRevisionIsOneEncodedSegment(t *testing.T) {
	w := newWorld(t)
	mustOpen(t, w)
	r, _ := w.do(t, "GET", "/api/datasets/"+ds+"/tree/refs/pr/1/submissions", "", "", nil)
	if r.StatusCode != 404 || r.Header.Get("X-Error-Code") != "RevisionNotFound" {
		t.Fatalf("unencoded revision: %d %q", r.StatusCode, r.Header.Get("X-Error-Code"))
	}
	w.hub.AcceptUnencodedRevision = true
	if r, b := w.do(t, "GET", "/api/datasets/"+ds+"/tree/refs/pr/1/submissions", "", "", nil); r.StatusCode != 200 {
		t.Fatalf("unencoded revision accepted on request: %d %s", r.StatusCode, b)
	}
}

func TestResolveRedirectsLFSToAnotherHost(t *testing.T) {
	w := newWorld(t)
	big := []byte(strings.Repeat("{\"k\":1}\n", 100))
	_, head := w.hub.OpenPR(ds, w.alice, "Add big", "", map[string]fakehub.File{
		"submissions/model-benchmark/big/scores.json": {Content: big, LFS: true},
	})
	path := "/datasets/" + ds + "/resolve/" + head + "/submissions/model-benchmark/big/scores.json"
	r, b := w.do(t, "GET", path, "hf_bot", "", nil)
	if r.StatusCode != 200 || !bytes.Equal(b, big) {
		t.Fatalf("resolve: %d", r.StatusCode)
	}
	var cdn []fakehub.Call
	for _, c := range w.hub.Calls() {
		if c.Host == "cdn" {
			cdn = append(cdn, c)
		}
	}
	if len(cdn) != 1 || cdn[0].Authorization != "" {
		t.Fatalf("the CDN saw %+v", cdn)
	}
	// A client that forwards its token is caught.
	req, _ := http.NewRequest("GET", w.hub.URL+path, nil)
	req.Header.Set("Authorization", "Bearer hf_bot")
	leaky := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		r.Header.Set("Authorization", via[0].Header.Get("Authorization"))
		return nil
	}}
	resp, err := leaky.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	calls := w.hub.Calls()
	if last := calls[len(calls)-1]; last.Host != "cdn" || last.Authorization != "Bearer hf_bot" {
		t.Fatalf("the leak was not recorded: %+v", last)
	}
	// raw is the pointer.
	r, b = w.do(t, "GET", strings.Replace(path, "/resolve/", "/raw/", 1), "", "", nil)
	if r.StatusCode != 200 || !strings.HasPrefix(string(b), "version https://git-lfs.github.com/spec/v1\noid sha256:") {
		t.Fatalf("raw: %d %q", r.StatusCode, b)
	}
	// A missing file.
	r, _ = w.do(t, "GET", "/datasets/"+ds+"/resolve/main/nope.json", "", "", nil)
	if r.StatusCode != 404 || r.Header.Get("X-Error-Code") != "EntryNotFound" {
		t.Fatalf("missing: %d %q", r.StatusCode, r.Header.Get("X-Error-Code"))
	}
	// A regular file: ETag is its git blob sha1 and X-Repo-Commit the commit.
	r, _ = w.do(t, "GET", "/datasets/"+ds+"/resolve/main/README.md", "", "", nil)
	readme := []byte("# submissions\n")
	sum := sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(readme))), readme...))
	if r.Header.Get("ETag") != `"`+hex.EncodeToString(sum[:])+`"` || r.Header.Get("X-Repo-Commit") != w.hub.Head(ds, "refs/heads/main") {
		t.Errorf("headers %v", r.Header)
	}
}

func TestErrorsAndThe401Trap(t *testing.T) {
	w := newWorld(t)
	w.hub.CreateDataset("EigenformAI/private", w.owner, true, map[string]fakehub.File{"a": {Content: []byte("a")}})
	for _, tc := range []struct {
		name, method, path, token string
		status                    int
		code, msg                 string
	}{
		{"missing repo", "GET", "/api/datasets/nobody/nothing/refs", "hf_bot", 401, "RepoNotFound", "Repository not found"},
		{"private repo, anonymous", "GET", "/api/datasets/EigenformAI/private/refs", "", 401, "RepoNotFound", "Repository not found"},
		{"private repo, stranger", "GET", "/api/datasets/EigenformAI/private/refs", "hf_alice", 401, "RepoNotFound", "Repository not found"},
		{"private repo, owner", "GET", "/api/datasets/EigenformAI/private/refs", "hf_owner", 200, "", ""},
		{"bad token", "GET", "/api/datasets/" + ds + "/refs", "hf_nope", 401, "", "Invalid credentials in Authorization header"},
		{"read token writes", "POST", "/api/datasets/" + ds + "/discussions/1/comment", "hf_alice_read", 403, "", "This token has no write permission"},
		{"missing revision", "GET", "/api/datasets/" + ds + "/revision/nope", "", 404, "RevisionNotFound", "Invalid rev id: nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := w.do(t, tc.method, tc.path, tc.token, "application/json", []byte(`{"comment":"x"}`))
			if r.StatusCode != tc.status || r.Header.Get("X-Error-Code") != tc.code || r.Header.Get("X-Error-Message") != tc.msg {
				t.Errorf("%d %q %q", r.StatusCode, r.Header.Get("X-Error-Code"), r.Header.Get("X-Error-Message"))
			}
		})
	}
}

func TestRateLimitWindows(t *testing.T) {
	w := newWorld(t)
	w.hub.Quotas = map[string]int{fakehub.BucketAPI: 3, fakehub.BucketResolvers: 10, fakehub.BucketPages: 10}
	// The clock starts at 10:00:00, so the window resets in 300 s.
	for i, want := range []string{`"api";r=2;t=300`, `"api";r=1;t=300`, `"api";r=0;t=300`} {
		r, _ := w.do(t, "GET", "/api/datasets/"+ds+"/refs", "hf_bot", "", nil)
		if r.StatusCode != 200 || r.Header.Get("RateLimit") != want || r.Header.Get("RateLimit-Policy") != `"fixed window";"api";q=3;w=300` {
			t.Fatalf("call %d: %d %q %q", i, r.StatusCode, r.Header.Get("RateLimit"), r.Header.Get("RateLimit-Policy"))
		}
	}
	w.hub.Advance(100 * time.Second)
	r, _ := w.do(t, "GET", "/api/datasets/"+ds+"/refs", "hf_bot", "", nil)
	if r.StatusCode != 429 || r.Header.Get("RateLimit") != `"api";r=0;t=200` || r.Header.Get("Retry-After") != "200" {
		t.Fatalf("over quota: %d %q %q", r.StatusCode, r.Header.Get("RateLimit"), r.Header.Get("Retry-After"))
	}
	// Another bucket is still open.
	if r, _ := w.do(t, "GET", "/datasets/"+ds+"/resolve/main/README.md", "hf_bot", "", nil); r.StatusCode != 200 {
		t.Fatalf("resolvers bucket: %d", r.StatusCode)
	}
	w.hub.Advance(200 * time.Second)
	if r, _ := w.do(t, "GET", "/api/datasets/"+ds+"/refs", "hf_bot", "", nil); r.StatusCode != 200 || r.Header.Get("RateLimit") != `"api";r=2;t=300` {
		t.Fatalf("next window: %d %q", r.StatusCode, r.Header.Get("RateLimit"))
	}
}

func ndjson(lines ...any) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestCommitAPIParentCheck(t *testing.T) {
	w := newWorld(t)
	parent := w.hub.Head(ds, "refs/heads/main")
	body := func(parent string) []byte {
		lines := []any{
			map[string]any{"key": "header", "value": map[string]any{"summary": "Update board", "description": "", "parentCommit": parent}},
			map[string]any{"key": "file", "value": map[string]any{"path": "leaderboard/board.json", "encoding": "base64",
				"content": base64.StdEncoding.EncodeToString([]byte(`{"rows":[]}`))}},
		}
		if parent != "" {
			lines = append(lines, map[string]any{"key": "deletedFile", "value": map[string]any{"path": "README.md"}})
		}
		return ndjson(lines...)
	}
	w.hub.Push(ds, "refs/heads/main", w.owner, "concurrent change", map[string]fakehub.File{"other.txt": {Content: []byte("x")}})
	r, b := w.do(t, "POST", "/api/datasets/"+ds+"/commit/main", "hf_bot", "application/x-ndjson", body(parent))
	if r.StatusCode != 412 || r.Header.Get("X-Error-Message") != fakehub.ConflictMessage {
		t.Fatalf("stale parent: %d %s", r.StatusCode, b)
	}
	parent = w.hub.Head(ds, "refs/heads/main")
	r, b = w.do(t, "POST", "/api/datasets/"+ds+"/commit/main", "hf_bot", "application/x-ndjson", body(parent))
	if r.StatusCode != 200 {
		t.Fatalf("commit: %d %s", r.StatusCode, b)
	}
	var out struct{ CommitOid string }
	_ = json.Unmarshal(b, &out)
	if out.CommitOid != w.hub.Head(ds, "refs/heads/main") {
		t.Fatal("main did not move to the commit")
	}
	if got, _ := w.hub.FileAt(ds, "main", "leaderboard/board.json"); string(got) != `{"rows":[]}` {
		t.Errorf("board %q", got)
	}
	if _, ok := w.hub.FileAt(ds, "main", "README.md"); ok {
		t.Error("README.md not deleted")
	}
	// A stranger cannot commit to main, but can open a PR with create_pr=1.
	r, _ = w.do(t, "POST", "/api/datasets/"+ds+"/commit/main", "hf_alice", "application/x-ndjson", body(""))
	if r.StatusCode != 403 {
		t.Errorf("a stranger's commit to main: %d", r.StatusCode)
	}
	r, b = w.do(t, "POST", "/api/datasets/"+ds+"/commit/main?create_pr=1", "hf_alice", "application/x-ndjson", body(""))
	if r.StatusCode != 200 || !strings.Contains(string(b), "/discussions/1") {
		t.Errorf("create_pr: %d %s", r.StatusCode, b)
	}
	if st := w.hub.Discussion(ds, 1); st.Status != fakehub.StatusOpen || len(st.Commits) != 1 {
		t.Errorf("PR %+v", st)
	}
}

func TestDraftsConflictsAndMerge(t *testing.T) {
	w := newWorld(t)
	base := "/api/datasets/" + ds + "/discussions"
	r, b := w.postJSON(t, base, "hf_alice", map[string]any{"title": "Empty PR", "description": "d", "pullRequest": true})
	if r.StatusCode != 200 || w.hub.Discussion(ds, 1).Status != fakehub.StatusDraft {
		t.Fatalf("draft: %d %s", r.StatusCode, b)
	}
	if r, _ := w.postJSON(t, base+"/1/merge", "hf_owner", nil); r.StatusCode != 400 {
		t.Errorf("merging a draft: %d", r.StatusCode)
	}
	if r, _ := w.postJSON(t, base+"/1/status", "hf_owner", map[string]string{"status": "open"}); r.StatusCode != 403 {
		t.Errorf("publishing another's draft: %d", r.StatusCode)
	}
	if r, _ := w.postJSON(t, base+"/1/status", "hf_alice", map[string]string{"status": "merged"}); r.StatusCode != 400 {
		t.Errorf("setting merged by status: %d", r.StatusCode)
	}
	if r, _ := w.postJSON(t, base+"/1/status", "hf_alice", map[string]string{"status": "open"}); r.StatusCode != 200 {
		t.Errorf("publishing: %d", r.StatusCode)
	}

	// PR 2 and main both change the same file: a conflict.
	n := mustOpen(t, w)
	w.hub.Push(ds, "refs/heads/main", w.owner, "main edits", map[string]fakehub.File{
		"submissions/model-benchmark/my-model/meta.json": {Content: []byte(`{"name":"other"}`)},
	})
	_, b = w.do(t, "GET", base+"/2", "hf_bot", "", nil)
	var det struct {
		FilesWithConflicts any
		Diff               *string
		Changes            map[string]string
	}
	_ = json.Unmarshal(b, &det)
	if c, _ := det.FilesWithConflicts.([]any); len(c) != 1 || det.Diff != nil || det.Changes["base"] != "refs/heads/main" {
		t.Fatalf("details: %s", b)
	}
	w.hub.ConflictsAsBool = true
	_, b = w.do(t, "GET", base+"/2?diff=1", "hf_bot", "", nil)
	_ = json.Unmarshal(b, &det)
	if det.FilesWithConflicts != true || det.Diff == nil || !strings.Contains(*det.Diff, "diff --git a/submissions/model-benchmark/my-model/scores.json") {
		t.Fatalf("details with diff: %s", b)
	}
	if r, _ := w.postJSON(t, base+"/2/merge", "hf_owner", nil); r.StatusCode != 400 {
		t.Errorf("merging a conflict: %d", r.StatusCode)
	}
	// Resolve on the PR by taking main's version; then a writer merges.
	w.hub.Push(ds, "refs/pr/2", w.alice, "take main's meta", map[string]fakehub.File{
		"submissions/model-benchmark/my-model/meta.json": {Content: []byte(`{"name":"other"}`)},
	})
	if r, _ := w.postJSON(t, base+"/2/merge", "hf_alice", nil); r.StatusCode != 403 {
		t.Errorf("a non-writer merges: %d", r.StatusCode)
	}
	before := len(w.recv.got())
	if r, b := w.postJSON(t, base+"/2/merge", "hf_bot", map[string]string{"comment": "merged by benchgate"}); r.StatusCode != 200 {
		t.Fatalf("merge: %d %s", r.StatusCode, b)
	}
	st := w.hub.Discussion(ds, n)
	if st.Status != fakehub.StatusMerged || st.MergeCommit != w.hub.Head(ds, "refs/heads/main") {
		t.Fatalf("after merge %+v", st)
	}
	if got, _ := w.hub.FileAt(ds, "main", "submissions/model-benchmark/my-model/scores.json"); string(got) != `{"a":2}` {
		t.Errorf("main lacks the PR's file: %q", got)
	}
	got := w.recv.got()[before:]
	if len(got) != 2 || scopeOf(t, got[0]) != "discussion/update" || scopeOf(t, got[1]) != "repo.content/update" ||
		!strings.Contains(string(got[0]), `"mergeCommitId":"`+st.MergeCommit) {
		t.Errorf("merge deliveries: %q", got)
	}
	if r, _ := w.postJSON(t, base+"/2/merge", "hf_bot", nil); r.StatusCode != 400 {
		t.Errorf("merging twice: %d", r.StatusCode)
	}
}

func TestListDiscussionsPages(t *testing.T) {
	w := newWorld(t)
	w.hub.DiscussionsPageSize = 2
	for range 3 {
		mustOpen(t, w)
	}
	w.hub.Comment(ds, 1, w.alice, "x")
	var nums []int
	for p := 0; ; p++ {
		_, b := w.do(t, "GET", "/api/datasets/"+ds+"/discussions?type=pull_request&status=open&p="+string(rune('0'+p)), "", "", nil)
		var page struct {
			Discussions []struct{ Num int }
			Count       int
			Start       int
		}
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Discussions {
			nums = append(nums, d.Num)
		}
		if page.Start+len(page.Discussions) >= page.Count {
			break
		}
	}
	if !slices.Equal(nums, []int{3, 2, 1}) {
		t.Errorf("listed %v", nums)
	}
}

func TestWhoamiIsStrictlyLimited(t *testing.T) {
	w := newWorld(t)
	w.hub.Quotas[fakehub.BucketWhoami] = 2
	for i, want := range []int{200, 200, 429} {
		r, b := w.do(t, "GET", "/api/whoami-v2", "hf_bot", "", nil)
		if r.StatusCode != want {
			t.Fatalf("call %d: %d %s", i, r.StatusCode, b)
		}
		if i == 0 && !strings.Contains(string(b), `"id":"`+w.bot.ID+`"`) {
			t.Errorf("whoami: %s", b)
		}
		if i == 2 && !strings.HasPrefix(r.Header.Get("RateLimit"), `"whoami";r=0;`) {
			t.Errorf("RateLimit %q", r.Header.Get("RateLimit"))
		}
	}
}

// TestNoiseEvents: the dataset viewer's ref and the parquet-converter's
// discussion arrive as any other event does (hf-hub.md §3.4).
func TestNoiseEvents(t *testing.T) {
	w := newWorld(t)
	conv := w.hub.AddUser("parquet-converter")
	w.hub.SetRef(ds, "refs/convert/parquet", w.hub.Head(ds, "refs/heads/main"))
	w.hub.OpenDiscussion(ds, conv, "[bot] Conversion to Parquet", "converted")
	got := w.recv.got()
	if len(got) != 2 || !strings.Contains(string(got[0]), `"ref":"refs/convert/parquet","oldSha":null`) ||
		!strings.Contains(string(got[1]), `"isPullRequest":false`) || strings.Contains(string(got[1]), `"changes"`) {
		t.Errorf("noise: %q", got)
	}
	// "Delete ref": newSha null.
	w.hub.SetRef(ds, "refs/convert/parquet", "")
	if g := w.recv.got(); !strings.Contains(string(g[2]), `"newSha":null`) {
		t.Errorf("deleted ref: %s", g[2])
	}
}

// TestRetriesAfterATimeout: an attempt that outlasts DeliveryTimeout is a
// failure and is retried.
func TestRetriesAfterATimeout(t *testing.T) {
	h := fakehub.New(t)
	owner := h.AddUser("owner")
	h.CreateDataset(ds, owner, false, nil)
	h.DeliveryTimeout = 50 * time.Millisecond
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			time.Sleep(200 * time.Millisecond)
		}
	}))
	defer srv.Close()
	h.AddWebhook(srv.URL, "s", fakehub.WebhookOptions{}, ds)
	h.OpenDiscussion(ds, owner, "A question", "?")
	d := h.Deliveries()
	if len(d) != 1 || len(d[0].Attempts) != 2 || d[0].Attempts[0].Err == "" || d[0].Attempts[1].Status != 200 {
		t.Errorf("attempts %+v", d[0].Attempts)
	}
}
