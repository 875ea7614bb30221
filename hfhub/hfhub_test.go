package hfhub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/fakehub"
)

const ds = "EigenformAI/groundtruth-dynamic-benchmarking-submissions"

type world struct {
	hub               *fakehub.Hub
	owner, alice, bot *fakehub.User
	c                 *Client
	waits             []time.Duration
}

func newWorld(t *testing.T) *world {
	t.Helper()
	h := fakehub.New(t)
	w := &world{hub: h, owner: h.AddUser("eigenform-admin"), alice: h.AddUser("alice"), bot: h.AddUser("benchgate-bot")}
	h.AddToken("hf_owner", w.owner, fakehub.RoleWrite)
	h.AddToken("hf_alice", w.alice, fakehub.RoleWrite)
	h.AddToken("hf_bot", w.bot, fakehub.RoleWrite)
	h.AddToken("hf_bot_read", w.bot, fakehub.RoleRead)
	h.CreateDataset(ds, w.owner, false, map[string]fakehub.File{
		"README.md": {Content: []byte("# submissions\n")},
		"submissions/model-benchmark/base/meta.json":   {Content: []byte(`{"name":"base"}`)},
		"submissions/model-benchmark/base/scores.json": {Content: []byte(`{"a":1}`)},
	})
	h.AddWriter(ds, w.bot)
	w.c = w.client(t, "hf_bot")
	return w
}

// client is a client of the fake whose waits move the fake's clock.
func (w *world) client(t *testing.T, token string) *Client {
	c, err := New(Config{Endpoint: w.hub.URL, Token: token, Sleep: func(ctx context.Context, d time.Duration) error {
		w.waits = append(w.waits, d)
		w.hub.Advance(d)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var submission = map[string]fakehub.File{
	"submissions/model-benchmark/my-model/meta.json":   {Content: []byte(`{"name":"my-model"}`)},
	"submissions/model-benchmark/my-model/scores.json": {Content: []byte(`{"a":2}`)},
}

type changeWant struct{ status, path, content string }

func TestReadPRAndChangedFiles(t *testing.T) {
	big := strings.Repeat(`{"q":1}`+"\n", 300)
	for _, tc := range []struct {
		name  string
		setup func(w *world) int
		want  []changeWant
	}{
		{"a new submission", func(w *world) int {
			n, _ := w.hub.OpenPR(ds, w.alice, "Add my-model", "", submission)
			return n
		}, []changeWant{
			{Added, "submissions/model-benchmark/my-model/meta.json", `{"name":"my-model"}`},
			{Added, "submissions/model-benchmark/my-model/scores.json", `{"a":2}`},
		}},
		{"main moved after the PR opened", func(w *world) int {
			n, _ := w.hub.OpenPR(ds, w.alice, "Add my-model", "", submission)
			w.hub.Push(ds, "refs/heads/main", w.owner, "another merge", map[string]fakehub.File{
				"submissions/model-benchmark/other/meta.json": {Content: []byte(`{}`)},
			})
			return n
		}, []changeWant{
			{Added, "submissions/model-benchmark/my-model/meta.json", `{"name":"my-model"}`},
			{Added, "submissions/model-benchmark/my-model/scores.json", `{"a":2}`},
		}},
		{"a push that edits and removes", func(w *world) int {
			n, _ := w.hub.OpenPR(ds, w.alice, "Add my-model", "", submission)
			w.hub.Push(ds, "refs/pr/1", w.alice, "fix", map[string]fakehub.File{
				"submissions/model-benchmark/base/scores.json": {Content: []byte(`{"a":3}`)},
			}, "submissions/model-benchmark/base/meta.json")
			return n
		}, []changeWant{
			{Removed, "submissions/model-benchmark/base/meta.json", ""},
			{Modified, "submissions/model-benchmark/base/scores.json", `{"a":3}`},
			{Added, "submissions/model-benchmark/my-model/meta.json", `{"name":"my-model"}`},
			{Added, "submissions/model-benchmark/my-model/scores.json", `{"a":2}`},
		}},
		{"files on page 2 of the listing", func(w *world) int {
			w.hub.TreePageSize = 2
			w.hub.CommitsPageSize = 1
			n, _ := w.hub.OpenPR(ds, w.alice, "Add my-model", "", submission)
			return n
		}, []changeWant{
			{Added, "submissions/model-benchmark/my-model/meta.json", `{"name":"my-model"}`},
			{Added, "submissions/model-benchmark/my-model/scores.json", `{"a":2}`},
		}},
		{"an LFS file", func(w *world) int {
			n, _ := w.hub.OpenPR(ds, w.alice, "Add big", "", map[string]fakehub.File{
				"submissions/model-benchmark/big/scores.json": {Content: []byte(big), LFS: true},
			})
			return n
		}, []changeWant{{Added, "submissions/model-benchmark/big/scores.json", big}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			n := tc.setup(w)
			ctx := context.Background()
			pr, err := w.c.PR(ctx, ds, n)
			if err != nil {
				t.Fatal(err)
			}
			if pr.Head != w.hub.Head(ds, "refs/pr/1") || pr.Status != StatusOpen || pr.Author != "alice" || pr.Base != "refs/heads/main" {
				t.Fatalf("PR %+v", pr)
			}
			ch, err := w.c.ChangedFiles(ctx, pr, "submissions")
			if err != nil {
				t.Fatal(err)
			}
			var got []changeWant
			for _, f := range ch.Files {
				cw := changeWant{f.Status, f.Path, ""}
				if f.Status != Removed {
					data, err := w.c.ReadFile(ctx, ds, ch.Head, f.Entry)
					if err != nil {
						t.Fatal(err)
					}
					cw.content = string(data)
				}
				got = append(got, cw)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("changes\n got %q\nwant %q", got, tc.want)
			}
			for _, c := range w.hub.Calls() {
				if c.Host == "cdn" && c.Authorization != "" {
					t.Errorf("the token went to the LFS host: %+v", c)
				}
			}
		})
	}
}

// TestCallBudget: reading a typical submission's PR, what it changes and
// its two files takes at most 10 calls, plus one per extra page.
func TestCallBudget(t *testing.T) {
	for _, pageSize := range []int{1000, 3} {
		w := newWorld(t)
		w.hub.TreePageSize = pageSize
		n, _ := w.hub.OpenPR(ds, w.alice, "Add my-model", "", submission)
		w.hub.ResetCalls()
		ctx := context.Background()
		pr, err := w.c.PR(ctx, ds, n)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := w.c.ChangedFiles(ctx, pr, "submissions")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ch.Files {
			if _, err := w.c.ReadFile(ctx, ds, ch.Head, f.Entry); err != nil {
				t.Fatal(err)
			}
		}
		calls, extraPages := 0, 0
		for _, c := range w.hub.Calls() {
			calls++
			if strings.Contains(c.Query, "cursor=") {
				extraPages++
			}
			if strings.Contains(c.Path, "/refs/pr/") {
				t.Errorf("revision not encoded as one segment: %s", c.Path)
			}
		}
		if len(ch.Files) != 2 || calls > 10+extraPages {
			t.Errorf("page size %d: %d calls (%d extra pages) for %d files", pageSize, calls, extraPages, len(ch.Files))
		}
		if pageSize == 3 && extraPages == 0 {
			t.Error("the small page size made no second page")
		}
		t.Logf("page size %d: %d calls, %d extra pages", pageSize, calls, extraPages)
	}
}

func TestErrorsSayWhatTheHubSaid(t *testing.T) {
	w := newWorld(t)
	w.hub.CreateDataset("EigenformAI/private", w.owner, true, nil)
	ctx := context.Background()
	draft := func() int {
		c := w.client(t, "hf_alice")
		// An empty PR is a draft (hf-hub.md §1).
		if err := c.postJSON(ctx, apiPath(ds, "discussions"), map[string]any{"title": "Empty PR", "description": "", "pullRequest": true}, nil); err != nil {
			t.Fatal(err)
		}
		return 1
	}
	for _, tc := range []struct {
		name  string
		call  func() error
		kinds []error
		says  []string
	}{
		{"no such repo", func() error { _, err := w.c.PR(ctx, "nobody/nothing", 1); return err },
			[]error{ErrNotFound, ErrRepoNotFound}, []string{"401 RepoNotFound: Repository not found", "does not exist, is private or is gated"}},
		{"a private repo", func() error { _, err := w.c.Revision(ctx, "EigenformAI/private", "main"); return err },
			[]error{ErrRepoNotFound}, []string{"401 RepoNotFound"}},
		{"a bad token", func() error { _, err := w.client(t, "hf_wrong").Revision(ctx, ds, "main"); return err },
			[]error{ErrBadToken}, []string{"401: Invalid credentials in Authorization header"}},
		{"a read token writes", func() error {
			_, err := w.client(t, "hf_bot_read").Comment(ctx, ds, draft(), "hi")
			return err
		}, []error{ErrForbidden}, []string{"403: This token has no write permission"}},
		{"no such revision", func() error { _, err := w.c.Revision(ctx, ds, "refs/pr/9"); return err },
			[]error{ErrNotFound, ErrRevisionNotFound}, []string{"404 RevisionNotFound", "revision/refs%2Fpr%2F9"}},
		{"merging a draft", func() error { return w.c.Merge(ctx, ds, draft(), "") },
			[]error{ErrRefused}, []string{"400: This pull request is draft and cannot be merged"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil {
				t.Fatal("no error")
			}
			for _, k := range tc.kinds {
				if !errors.Is(err, k) {
					t.Errorf("%v is not %v", err, k)
				}
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "hf_") {
				t.Errorf("the error holds a token: %v", err)
			}
		})
	}
}

func TestRateLimitWaitsForTheReset(t *testing.T) {
	w := newWorld(t)
	w.hub.Quotas = map[string]int{fakehub.BucketAPI: 2, fakehub.BucketResolvers: 10, fakehub.BucketPages: 10}
	ctx := context.Background()
	w.hub.Advance(60 * time.Second) // 240 s left in the window
	for range 3 {
		if _, err := w.c.Revision(ctx, ds, "main"); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(w.waits, []time.Duration{241 * time.Second}) {
		t.Errorf("waits %v, want the reset plus a second", w.waits)
	}
	if rl, ok := w.c.LastRateLimit("api"); !ok || rl.Remaining != 1 || rl.Reset != 299*time.Second {
		t.Errorf("last rate limit %+v", rl)
	}
	// A bucket that stays spent ends in ErrRateLimited after the attempts.
	w.hub.Quotas = map[string]int{fakehub.BucketAPI: 0, fakehub.BucketResolvers: 10, fakehub.BucketPages: 10}
	w.waits = nil
	_, err := w.c.Revision(ctx, ds, "main")
	if !errors.Is(err, ErrRateLimited) || len(w.waits) != 4 {
		t.Errorf("%v after %d waits", err, len(w.waits))
	}
}

func TestCommentsMergeAndCommit(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	n, _ := w.hub.OpenPR(ds, w.alice, "Add my-model", "", submission)
	const marker = "<!-- benchgate:verdict -->"
	c, err := w.c.Comment(ctx, ds, n, marker+"\nchecking")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := w.c.PR(ctx, ds, n)
	if err != nil {
		t.Fatal(err)
	}
	found := FindComments(pr, "benchgate-bot", marker)
	if len(found) != 1 || found[0].ID != c.ID || len(FindComments(pr, "alice", marker)) != 0 {
		t.Fatalf("found %+v", found)
	}
	e, err := w.c.EditComment(ctx, ds, n, strings.ToUpper(c.ID), marker+"\npassed")
	if err != nil || !e.Edited || e.Raw != marker+"\npassed" {
		t.Fatalf("edit: %+v %v", e, err)
	}
	if st := w.hub.Discussion(ds, n); len(st.Comments) != 2 || st.Comments[1].Raw != marker+"\npassed" {
		t.Fatalf("hub state %+v", st)
	}
	if err := w.c.HideComment(ctx, ds, n, c.ID); err != nil {
		t.Fatal(err)
	}
	pr, _ = w.c.PR(ctx, ds, n)
	if len(FindComments(pr, "benchgate-bot", marker)) != 0 {
		t.Error("a hidden comment is still found")
	}
	if err := w.c.Merge(ctx, ds, n, "merged after verification"); err != nil {
		t.Fatal(err)
	}
	pr, _ = w.c.PR(ctx, ds, n)
	if pr.Status != StatusMerged || pr.MergeCommit == "" {
		t.Fatalf("after merge %+v", pr)
	}
	if err := w.c.Merge(ctx, ds, n, ""); !errors.Is(err, ErrRefused) {
		t.Errorf("a second merge: %v", err)
	}

	main, err := w.c.Revision(ctx, ds, "main")
	if err != nil {
		t.Fatal(err)
	}
	w.hub.Push(ds, "refs/heads/main", w.owner, "concurrent", map[string]fakehub.File{"x": {Content: []byte("x")}})
	req := CommitRequest{Summary: "Update the board", ParentCommit: main,
		Files: []CommitFile{{Path: "leaderboard/board.json", Content: []byte(`{"rows":[]}`)}}}
	if _, err := w.c.Commit(ctx, ds, "main", req, false); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), fakehub.ConflictMessage) {
		t.Fatalf("a stale parent: %v", err)
	}
	req.ParentCommit, _ = w.c.Revision(ctx, ds, "main")
	res, err := w.c.Commit(ctx, ds, "main", req, false)
	if err != nil || res.OID != w.hub.Head(ds, "refs/heads/main") {
		t.Fatalf("commit: %+v %v", res, err)
	}
	if got, _ := w.hub.FileAt(ds, "main", "leaderboard/board.json"); string(got) != `{"rows":[]}` {
		t.Errorf("board %q", got)
	}
	// create_pr opens a PR from a stranger.
	res, err = w.client(t, "hf_alice").Commit(ctx, ds, "main", CommitRequest{Summary: "Add x", Files: []CommitFile{{Path: "submissions/x/meta.json", Content: []byte("{}")}}}, true)
	if err != nil || !strings.HasSuffix(res.PRURL, "/discussions/2") {
		t.Fatalf("create_pr: %+v %v", res, err)
	}
}

func TestOpenPRsPages(t *testing.T) {
	w := newWorld(t)
	w.hub.DiscussionsPageSize = 2
	for range 3 {
		w.hub.OpenPR(ds, w.alice, "Add my-model", "", submission)
	}
	if err := w.c.SetStatus(context.Background(), ds, 2, StatusClosed, ""); err != nil {
		t.Fatal(err)
	}
	prs, err := w.c.OpenPRs(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	var nums []int
	for _, p := range prs {
		nums = append(nums, p.Num)
	}
	if !slices.Equal(nums, []int{3, 1}) {
		t.Errorf("open PRs %v", nums)
	}
}

// TestNextPageOnAnotherHostIsRefused: the token goes to the Hub's host
// only, whatever a Link header says.
func TestNextPageOnAnotherHostIsRefused(t *testing.T) {
	var sawToken []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawToken = append(sawToken, r.Header.Get("Authorization"))
		w.Write([]byte("[]"))
	}))
	defer other.Close()
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "<"+other.URL+"/api/datasets/a/b/tree/main?cursor=x>; rel=\"next\"")
		w.Write([]byte("[]"))
	}))
	defer hub.Close()
	c, _ := New(Config{Endpoint: hub.URL, Token: "hf_secret"})
	_, err := c.Tree(context.Background(), "a/b", "main", "")
	if !errors.Is(err, ErrMalformed) || len(sawToken) != 0 {
		t.Errorf("%v; the other host got %q", err, sawToken)
	}
}

func TestEscapeSegment(t *testing.T) {
	for in, want := range map[string]string{
		"refs/pr/7": "refs%2Fpr%2F7", "main": "main", "v1.0_x-y~": "v1.0_x-y~", "a b?#": "a%20b%3F%23", "é": "%C3%A9",
	} {
		if got := escapeSegment(in); got != want {
			t.Errorf("escapeSegment(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNewRefusesBadSettings(t *testing.T) {
	for _, cfg := range []Config{{Endpoint: "ftp://x"}, {Endpoint: "huggingface.co"}, {Token: "hf_x\n"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	if _, err := ParseRepo("a/b/c"); err == nil {
		t.Error("a/b/c accepted")
	}
	if _, err := ParseRepo(ds); err != nil {
		t.Error(err)
	}
}

func TestWhoamiIsAskedOnce(t *testing.T) {
	w := newWorld(t)
	for range 3 {
		u, err := w.c.Whoami(context.Background())
		if err != nil || u.ID != w.bot.ID || u.Name != "benchgate-bot" {
			t.Fatalf("%+v %v", u, err)
		}
	}
	if n := len(w.hub.Calls()); n != 1 {
		t.Errorf("%d calls to whoami-v2", n)
	}
}

func TestReadFileChecks(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	head, _ := w.c.Revision(ctx, ds, "main")
	es, err := w.c.Tree(ctx, ds, head, "submissions/model-benchmark/base")
	if err != nil || len(es) != 2 {
		t.Fatalf("%v %v", es, err)
	}
	meta := es[0]
	w.hub.ResetCalls()
	for _, tc := range []struct {
		name   string
		commit string
		entry  func(Entry) Entry
		says   string
	}{
		{"a moving ref", "main", func(e Entry) Entry { return e }, "not a commit id"},
		{"over the size limit", head, func(e Entry) Entry { e.Size = 17 << 20; return e }, "over the limit"},
		{"a directory", head, func(e Entry) Entry { e.Type = TypeDirectory; return e }, "not a file"},
		{"content that is not the listed blob", head, func(e Entry) Entry { e.OID = strings.Repeat("0", 40); return e }, "differs from the listing's oid"},
		{"an LFS entry whose object differs", head, func(e Entry) Entry { e.LFS = &LFS{OID: strings.Repeat("0", 64), Size: e.Size}; return e }, "sha256 or size differs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.c.ReadFile(ctx, ds, tc.commit, tc.entry(meta))
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("got %v, want %q", err, tc.says)
			}
		})
	}
	// The first three are refused before any call.
	if n := len(w.hub.Calls()); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
	if data, err := w.c.ReadFile(ctx, ds, head, meta); err != nil || string(data) != `{"name":"base"}` {
		t.Errorf("%q %v", data, err)
	}
}
