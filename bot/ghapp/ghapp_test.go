package ghapp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/benchgate/benchgate/internal/filecache"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/verify"
)

const (
	appID = 4242
	inst  = 77
	repo  = "geo/board"
)

// testKey is generated once: RSA generation is slow, more so under -race.
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// sleeps records the waits the App asks for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) reset() {
	s.mu.Lock()
	s.d = nil
	s.mu.Unlock()
}

func (s *sleeps) list() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func setup(t *testing.T) (*fakegithub.Server, *App, *sleeps) {
	t.Helper()
	key := testKey()
	srv := fakegithub.New(t, appID, &key.PublicKey)
	srv.AddRepo(repo, "main")
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	sl := &sleeps{}
	app, err := New(Config{AppID: appID, PrivateKey: pemKey, BaseURL: srv.URL, HTTPClient: srv.Client(), Sleep: sl.sleep})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Identify(context.Background()); err != nil {
		t.Fatal(err)
	}
	return srv, app, sl
}

func countRequests(srv *fakegithub.Server, method, pathPart string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Method == method && strings.Contains(r.Path, pathPart) {
			n++
		}
	}
	return n
}

func TestNewRejectsBadKeys(t *testing.T) {
	for _, key := range [][]byte{nil, []byte("not a key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte("junk")})} {
		if _, err := New(Config{AppID: 1, PrivateKey: key}); err == nil {
			t.Errorf("key %q accepted", key)
		}
	}
}

func TestUploadURL(t *testing.T) {
	for base, want := range map[string]string{
		"https://api.github.com/":        "https://uploads.github.com/",
		"https://ghe.example/api/v3/":    "https://ghe.example/api/uploads/",
		"http://127.0.0.1:1234/":         "http://127.0.0.1:1234/",
		"https://ghe.example/api/v3/x/":  "https://ghe.example/api/v3/x/",
		"https://ghe.example/prefix/v3/": "https://ghe.example/prefix/v3/",
	} {
		app, err := New(Config{AppID: 1, PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(testKey())}), BaseURL: base})
		if err != nil {
			t.Fatal(err)
		}
		c, err := app.Client(1)
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseURL.String() != base || c.UploadURL.String() != want {
			t.Errorf("%s: base %s upload %s, want %s", base, c.BaseURL, c.UploadURL, want)
		}
	}
}

func TestTokenCached(t *testing.T) {
	srv, app, _ := setup(t)
	srv.SetPermission(repo, "alice", "maintain")
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		ok, err := app.CanWrite(ctx, inst, repo, "alice")
		if err != nil || !ok {
			t.Fatalf("CanWrite: %v %v", ok, err)
		}
	}
	if n := srv.TokensIssued(); n != 1 {
		t.Errorf("%d tokens issued, want 1", n)
	}
}

func TestCanWrite(t *testing.T) {
	srv, app, _ := setup(t)
	for user, role := range map[string]string{"ad": "admin", "ma": "maintain", "wr": "write", "tr": "triage", "re": "read", "no": "none"} {
		srv.SetPermission(repo, user, role)
	}
	want := map[string]bool{"ad": true, "ma": true, "wr": true, "tr": false, "re": false, "no": false, "stranger": false}
	for user, w := range want {
		got, err := app.CanWrite(context.Background(), inst, repo, user)
		if err != nil || got != w {
			t.Errorf("%s: %v %v, want %v", user, got, err, w)
		}
	}
}

func TestPullRequestAndChangedFiles(t *testing.T) {
	srv, app, _ := setup(t)
	srv.SetFile(repo, "main", "docs/old.md", []byte("old\n"))
	var files []fakegithub.File
	for i := 0; i < 130; i++ {
		files = append(files, fakegithub.File{Name: fmt.Sprintf("submissions/model-benchmark/run%03d/meta.json", i), Status: "added", Content: []byte(fmt.Sprintf("{\"n\": %d}\n", i))})
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 80<<10) // over the contents API's 1 MB
	files = append(files,
		fakegithub.File{Name: "submissions/model-benchmark/run/big.json", Status: "added", Content: big},
		fakegithub.File{Name: "docs/gone.md", Status: "removed"},
		fakegithub.File{Name: "docs/new.md", Status: "renamed", PreviousName: "docs/old.md", Content: []byte("old\n")},
	)
	srv.AddPR(repo, fakegithub.PR{Number: 9, Author: "carol", HeadSHA: strings.Repeat("ab", 20), Files: files})
	srv.SetPermission(repo, "carol", "write")
	ctx := context.Background()

	info, baseRef, baseSHA, err := app.PullRequest(ctx, inst, repo, 9)
	if err != nil {
		t.Fatal(err)
	}
	if info.Author != "carol" || info.HeadSHA != strings.Repeat("ab", 20) || info.Number != 9 || info.Repo != repo || baseRef != "main" || len(baseSHA) != 40 {
		t.Errorf("PullRequest: %+v %q %q", info, baseRef, baseSHA)
	}

	got, err := app.ChangedFiles(ctx, inst, repo, 9, info.HeadSHA)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(files)+1 {
		t.Fatalf("%d files, want %d", len(got), len(files)+1)
	}
	byPath := map[string]prcheck.ChangedFile{}
	for _, f := range got {
		byPath[f.Path] = f
	}
	for _, f := range files {
		g := byPath[f.Name]
		if g.Status != f.Status {
			t.Errorf("%s: status %q", f.Name, g.Status)
		}
		if f.Status == "removed" {
			if g.Content != nil {
				t.Errorf("%s: removed file has content", f.Name)
			}
		} else if !bytes.Equal(g.Content, f.Content) {
			t.Errorf("%s: content %d bytes, want %d", f.Name, len(g.Content), len(f.Content))
		}
	}
	if g := byPath["docs/old.md"]; g.Status != "removed" {
		t.Errorf("a rename's old path: %+v", g)
	}
	if n := countRequests(srv, "GET", "/pulls/9/files"); n != 2 {
		t.Errorf("%d pages of files read, want 2", n)
	}
	if n := countRequests(srv, "GET", "/git/blobs/"); n != 1 {
		t.Errorf("%d blob reads, want 1 (for the file over 1 MB)", n)
	}

	// The cap on bytes read: the file over it is refused by its size,
	// before any of it is downloaded, as a verdict rather than an error
	// to retry.
	app.cfg.MaxChangedBytes = 1 << 20
	blobs := countRequests(srv, "GET", "/git/blobs/")
	_, err = app.ChangedFiles(ctx, inst, repo, 9, info.HeadSHA)
	var u *bot.Unverifiable
	if !errors.As(err, &u) || u.Conclusion != prcheck.Failure || !strings.Contains(u.Reason, "big.json` is 1.2 MiB (1310720 bytes)") || !strings.Contains(u.Reason, "at most 1.0 MiB (1048576 bytes)") {
		t.Errorf("cap: %v", err)
	}
	if n := countRequests(srv, "GET", "/git/blobs/") - blobs; n != 0 {
		t.Errorf("%d blobs downloaded past the cap", n)
	}
}

// repoFile reads a file of this repository.
func repoFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures.Root(t), p))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// seedBase puts the repository's own registry and rubrics on main, and
// returns what it put there.
func seedBase(t *testing.T, srv *fakegithub.Server) map[string][]byte {
	t.Helper()
	seeded := map[string][]byte{}
	paths, err := filepath.Glob(filepath.Join(fixtures.Root(t), "rubrics", "*.json*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no rubrics: %v", err)
	}
	for _, p := range paths {
		rel := "rubrics/" + filepath.Base(p)
		seeded[rel] = repoFile(t, rel)
	}
	for _, f := range []string{"meta.json", "scores.json"} {
		rel := "submissions/model-benchmark/qwen3-32b-reservoir/" + f
		seeded[rel] = repoFile(t, rel)
	}
	for p, data := range seeded {
		srv.SetFile(repo, "main", p, data)
	}
	return seeded
}

func TestBaseFS(t *testing.T) {
	srv, app, _ := setup(t)
	seeded := seedBase(t, srv)
	srv.SetFile(repo, "main", "README.md", []byte("# board\n"))
	fsys, err := app.BaseFS(context.Background(), inst, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	var expected []string
	for p := range seeded {
		expected = append(expected, p)
	}
	if err := fstest.TestFS(fsys, expected...); err != nil {
		t.Fatal(err)
	}
	var walked []string
	err = fs.WalkDir(fsys, "rubrics", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			walked = append(walked, p)
		}
		return nil
	})
	if err != nil || len(walked) != 3 {
		t.Errorf("walk: %v %v", walked, err)
	}
	for p, want := range seeded {
		got, err := fs.ReadFile(fsys, p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v", p, len(got), err)
		}
	}
	if info, err := fs.Lstat(fsys, "submissions/model-benchmark/qwen3-32b-reservoir"); err != nil || !info.IsDir() {
		t.Errorf("Lstat: %v %v", info, err)
	}
	if _, err := fs.Stat(fsys, "rubrics/nope.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of a missing file: %v", err)
	}
	// Each blob is fetched once however often it is read.
	before := countRequests(srv, "GET", "/git/blobs/")
	fs.ReadFile(fsys, "rubrics/rubrics.json")
	if after := countRequests(srv, "GET", "/git/blobs/"); after != before {
		t.Errorf("a cached blob was read again")
	}
}

var checkOpts = verify.Options{Today: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}

// checkPR runs the whole path a verify job takes.
func checkPR(t *testing.T, app *App, number int) (prcheck.PRInfo, prcheck.CheckOutcome) {
	t.Helper()
	ctx := context.Background()
	info, baseRef, _, err := app.PullRequest(ctx, inst, repo, number)
	if err != nil {
		t.Fatal(err)
	}
	files, err := app.ChangedFiles(ctx, inst, repo, number, info.HeadSHA)
	if err != nil {
		t.Fatal(err)
	}
	base, err := app.BaseFS(ctx, inst, repo, baseRef)
	if err != nil {
		t.Fatal(err)
	}
	return info, prcheck.CheckPR(base, info, files, checkOpts)
}

func submissionPR(number int, headSHA string, meta, scores []byte) fakegithub.PR {
	dir := "submissions/model-benchmark/new-run/"
	// By the submitter the example meta.json names, as the check requires.
	return fakegithub.PR{Number: number, Author: "example-lab", HeadSHA: headSHA, Files: []fakegithub.File{
		{Name: dir + "meta.json", Status: "added", Content: meta},
		{Name: dir + "scores.json", Status: "added", Content: scores},
	}}
}

func TestEndToEnd(t *testing.T) {
	srv, app, _ := setup(t)
	seeded := seedBase(t, srv)
	meta := seeded["submissions/model-benchmark/qwen3-32b-reservoir/meta.json"]
	scores := seeded["submissions/model-benchmark/qwen3-32b-reservoir/scores.json"]
	good, bad := strings.Repeat("1", 40), strings.Repeat("2", 40)
	srv.AddPR(repo, submissionPR(1, good, meta, scores))
	srv.AddPR(repo, submissionPR(2, bad, meta, []byte(strings.Replace(string(scores), `"correct": true`, `"correct": false`, 1))))
	ctx := context.Background()

	info, out := checkPR(t, app, 1)
	if out.Conclusion != prcheck.Success {
		t.Fatalf("conclusion %s: %s", out.Conclusion, out.Summary)
	}
	id, err := app.PostCheck(ctx, inst, repo, info.HeadSHA, prcheck.CheckName, "", out)
	if err != nil {
		t.Fatal(err)
	}
	runs := srv.CheckRuns(repo)
	if len(runs) != 1 || runs[0].ID != id || runs[0].Name != "benchgate / verify" || runs[0].Conclusion != "success" || runs[0].HeadSHA != good || runs[0].Status != "completed" {
		t.Fatalf("runs: %+v", runs)
	}

	info, out = checkPR(t, app, 2)
	if out.Conclusion != prcheck.Failure || len(out.Annotations) == 0 {
		t.Fatalf("conclusion %s, %d annotations", out.Conclusion, len(out.Annotations))
	}
	id2, err := app.PostCheck(ctx, inst, repo, info.HeadSHA, prcheck.CheckName, "", out)
	if err != nil {
		t.Fatal(err)
	}
	runs = srv.CheckRuns(repo)
	if len(runs) != 2 || runs[1].ID != id2 || runs[1].Conclusion != "failure" || len(runs[1].Output.Annotations) != len(out.Annotations) {
		t.Fatalf("runs: %+v", runs)
	}
	if a := runs[1].Output.Annotations[0]; a.Path != "submissions/model-benchmark/new-run/scores.json" || a.AnnotationLevel != "failure" || a.StartLine < 2 {
		t.Errorf("annotation %+v", a)
	}

	// Posting again for the same head updates the one run, without
	// repeating its annotations.
	again, err := app.PostCheck(ctx, inst, repo, info.HeadSHA, prcheck.CheckName, "", out)
	if err != nil || again != id2 {
		t.Fatalf("again: %d %v", again, err)
	}
	runs = srv.CheckRuns(repo)
	if len(runs) != 2 || runs[1].Updates != 1 || len(runs[1].Output.Annotations) != len(out.Annotations) {
		t.Errorf("after a second post: %d runs, %d updates, %d annotations", len(runs), runs[1].Updates, len(runs[1].Output.Annotations))
	}

	// The sticky comment carries the outcome.
	if _, changed, err := app.UpsertComment(ctx, inst, repo, 2, out.Comment); err != nil || !changed {
		t.Fatalf("comment: %v %v", changed, err)
	}
	if c := srv.Comments(repo, 2); len(c) != 1 || !strings.HasPrefix(c[0].Body, prcheck.StickyMarker) {
		t.Errorf("comments: %+v", c)
	}
}

// findings lists a result's findings as severity:code:file, sorted.
func findings(r verify.Result) []string {
	var out []string
	for _, f := range append(slices.Clone(r.Errors), r.Warnings...) {
		out = append(out, fmt.Sprintf("%s:%s:%s", f.Severity, f.Code, f.File))
	}
	slices.Sort(out)
	return out
}

// symlinkPR adds submissions/model-benchmark/new-run with a regular
// meta.json and a scores.json that is a symbolic link to target.
func symlinkPR(number int, meta []byte, target string) fakegithub.PR {
	dir := "submissions/model-benchmark/new-run/"
	return fakegithub.PR{Number: number, Author: "example-lab", HeadSHA: strings.Repeat(fmt.Sprintf("%02x", number), 20), Files: []fakegithub.File{
		{Name: dir + "meta.json", Status: "added", Content: meta},
		{Name: dir + "scores.json", Status: "added", SymlinkTarget: target},
	}}
}

// TestSymlinkedFiles: a pull request whose scores.json is a symbolic link
// is refused with layout.symlink, as the CLI refuses the same link in a
// checkout, whether GitHub follows the link (a file of the repository) or
// describes it (a path outside the repository).
func TestSymlinkedFiles(t *testing.T) {
	srv, app, _ := setup(t)
	seeded := seedBase(t, srv)
	meta := seeded["submissions/model-benchmark/qwen3-32b-reservoir/meta.json"]
	tests := []struct {
		name   string
		number int
		target string
	}{
		{"to another submission's, which GitHub follows", 11, "../qwen3-32b-reservoir/scores.json"},
		{"out of the repository, which GitHub describes", 12, "../../../../../etc/passwd"},
	}
	for _, tt := range tests {
		srv.AddPR(repo, symlinkPR(tt.number, meta, tt.target))
	}
	ctx := context.Background()
	for _, tt := range tests {
		n, target := tt.number, tt.target
		t.Run(tt.name, func(t *testing.T) {
			files, err := app.ChangedFiles(ctx, inst, repo, n, strings.Repeat(fmt.Sprintf("%02x", n), 20))
			if err != nil {
				t.Fatal(err)
			}
			byPath := map[string]prcheck.ChangedFile{}
			for _, f := range files {
				byPath[path.Base(f.Path)] = f
			}
			if f := byPath["scores.json"]; !f.Symlink || string(f.Content) != target {
				t.Errorf("scores.json: symlink %v, content %.60q; want a link to %q", f.Symlink, f.Content, target)
			}
			if f := byPath["meta.json"]; f.Symlink || !bytes.Equal(f.Content, meta) {
				t.Errorf("meta.json: symlink %v, %d bytes", f.Symlink, len(f.Content))
			}

			_, out := checkPR(t, app, n)
			if out.Conclusion != prcheck.Failure || out.Report == nil {
				t.Fatalf("conclusion %s: %s", out.Conclusion, out.Summary)
			}
			app := findings(out.Report.Submissions[0])
			if !slices.Equal(app, []string{"error:layout.symlink:submissions/model-benchmark/new-run/scores.json"}) {
				t.Errorf("the App's findings: %v", app)
			}

			// The CLI on a checkout of the same head: the base files, the
			// new meta.json and scores.json as a real symbolic link.
			root := t.TempDir()
			for p, data := range seeded {
				writeFile(t, filepath.Join(root, p), data)
			}
			dir := filepath.Join(root, "submissions", "model-benchmark", "new-run")
			writeFile(t, filepath.Join(dir, "meta.json"), meta)
			if err := os.Symlink(target, filepath.Join(dir, "scores.json")); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			v, err := verify.New(os.DirFS(root), checkOpts)
			if err != nil {
				t.Fatal(err)
			}
			res := v.Verify("submissions/model-benchmark/new-run")
			if cli := findings(res); res.Status != out.Report.Submissions[0].Status || !slices.Equal(cli, app) {
				t.Errorf("the CLI says %s %v, the App %s %v", res.Status, cli, out.Report.Submissions[0].Status, app)
			}
		})
	}
}

// TestSymlinkSignals: a followed link is told even if GitHub's answer
// carried the link's own path (then by its sha, which is not the listed
// blob's), or if the listing carried no sha (then by its path).
func TestSymlinkSignals(t *testing.T) {
	srv, _, _ := setup(t)
	seeded := seedBase(t, srv)
	meta := seeded["submissions/model-benchmark/qwen3-32b-reservoir/meta.json"]
	target := "../qwen3-32b-reservoir/scores.json"
	srv.AddPR(repo, symlinkPR(13, meta, target))
	samePath := func(p string, body any) {
		if m, ok := body.(map[string]any); ok && strings.Contains(p, "/contents/") {
			m["path"] = strings.SplitN(p, "/contents/", 2)[1]
		}
	}
	for _, tt := range []struct {
		name    string
		rewrite func(path string, body any)
		want    string
		wantErr string
	}{
		{"the link's path", samePath, target, ""},
		{"no listed sha", func(p string, body any) {
			if list, ok := body.([]any); ok && strings.HasSuffix(p, "/files") {
				for _, f := range list {
					delete(f.(map[string]any), "sha")
				}
			}
		}, target, ""},
		// Another blob at the listed path also comes from a push between
		// the listing and the read: then the head has moved, and the
		// files are not taken for links but read again later.
		{"the head moved", func(p string, body any) {
			samePath(p, body)
			if m, ok := body.(map[string]any); ok && strings.HasSuffix(p, "/pulls/13") {
				m["head"].(map[string]any)["sha"] = strings.Repeat("e", 40)
			}
		}, "", "moved from"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key := testKey()
			pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
			client := &http.Client{Transport: rewriter{srv.Client().Transport, tt.rewrite}}
			app, err := New(Config{AppID: appID, PrivateKey: pemKey, BaseURL: srv.URL, HTTPClient: client, Sleep: (&sleeps{}).sleep})
			if err != nil {
				t.Fatal(err)
			}
			files, err := app.ChangedFiles(context.Background(), inst, repo, 13, strings.Repeat("0d", 20))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				link := path.Base(f.Path) == "scores.json"
				if f.Symlink != link || link && string(f.Content) != tt.want || !link && !bytes.Equal(f.Content, meta) {
					t.Errorf("%s: symlink %v, content %.40q", f.Path, f.Symlink, f.Content)
				}
			}
		})
	}
}

// rewriter edits GitHub's JSON answers on their way to the App.
type rewriter struct {
	next    http.RoundTripper
	rewrite func(path string, body any)
}

func (r rewriter) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.next.RoundTrip(req)
	if err != nil || res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		return res, err
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	var body any
	if err := json.Unmarshal(raw, &body); err == nil {
		r.rewrite(req.URL.Path, body)
		raw, _ = json.Marshal(body)
	}
	res.Body = io.NopCloser(bytes.NewReader(raw))
	res.ContentLength = int64(len(raw))
	res.Header.Del("Content-Length")
	return res, nil
}

func TestRelTarget(t *testing.T) {
	for _, tt := range []struct{ link, to, want string }{
		{"a/b/c", "a/b/d", "d"},
		{"a/b/c", "a/x/d", "../x/d"},
		{"a/b/c", "y", "../../y"},
		{"c", "a/b", "a/b"},
		{"a/c", "a/b/c", "b/c"},
	} {
		if got := relTarget(tt.link, tt.to); got != tt.want {
			t.Errorf("relTarget(%q, %q) = %q, want %q", tt.link, tt.to, got, tt.want)
		}
		if got := path.Join(path.Dir(tt.link), relTarget(tt.link, tt.to)); got != tt.to {
			t.Errorf("%s → %s leads to %s", tt.link, tt.to, got)
		}
	}
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAnnotationBatches(t *testing.T) {
	srv, app, _ := setup(t)
	head := strings.Repeat("3", 40)
	srv.AddPR(repo, fakegithub.PR{Number: 3, HeadSHA: head})
	var anns []prcheck.Annotation
	for i := 1; i <= 120; i++ {
		anns = append(anns, prcheck.Annotation{Path: "x.json", StartLine: i, EndLine: i, Level: prcheck.LevelFailure, Title: "t", Message: fmt.Sprintf("problem %d", i)})
	}
	// One the core could produce but GitHub would refuse is made valid.
	anns = append(anns[:119], prcheck.Annotation{Path: "x.json", Level: "odd", Message: "problem 120"})
	out := prcheck.CheckOutcome{Conclusion: prcheck.Failure, Title: "120 problems", Summary: "many", Annotations: anns}
	if _, err := app.PostCheck(context.Background(), inst, repo, head, "", "", out); err != nil {
		t.Fatal(err)
	}
	runs := srv.CheckRuns(repo)
	if len(runs) != 1 || runs[0].Name != prcheck.CheckName || len(runs[0].Output.Annotations) != 120 || runs[0].Updates != 2 {
		t.Fatalf("runs: %d, annotations %d, updates %d", len(runs), len(runs[0].Output.Annotations), runs[0].Updates)
	}
	if creates, patches := countRequests(srv, "POST", "/check-runs"), countRequests(srv, "PATCH", "/check-runs/"); creates != 1 || patches != 2 {
		t.Errorf("%d creates, %d updates; want 1 and 2", creates, patches)
	}
	for i, a := range runs[0].Output.Annotations {
		if a.Message != fmt.Sprintf("problem %d", i+1) {
			t.Errorf("annotation %d: %+v", i, a)
		}
	}
	if last := runs[0].Output.Annotations[119]; last.StartLine != 1 || last.EndLine != 1 || last.AnnotationLevel != "warning" {
		t.Errorf("the fixed annotation: %+v", last)
	}
}

func TestUpsertComment(t *testing.T) {
	srv, app, _ := setup(t)
	srv.AddPR(repo, fakegithub.PR{Number: 4})
	// Someone pastes the marker; it is not the App's comment.
	human := srv.AddComment(repo, 4, "mallory", "User", prcheck.Sticky("fake verdict"))
	// A user whose name mimics the App's is not a Bot.
	mimic := srv.AddComment(repo, 4, srv.AppSlug+"[bot]", "User", prcheck.Sticky("fake verdict"))
	ctx := context.Background()
	body := prcheck.Sticky("first")
	id, changed, err := app.UpsertComment(ctx, inst, repo, 4, body)
	if err != nil || !changed || id == human || id == mimic {
		t.Fatalf("first: %d %v %v", id, changed, err)
	}
	id2, changed, err := app.UpsertComment(ctx, inst, repo, 4, body)
	if err != nil || changed || id2 != id {
		t.Fatalf("same body: %d %v %v", id2, changed, err)
	}
	id3, changed, err := app.UpsertComment(ctx, inst, repo, 4, prcheck.Sticky("second"))
	if err != nil || !changed || id3 != id {
		t.Fatalf("new body: %d %v %v", id3, changed, err)
	}
	var ops []string
	for _, e := range srv.CommentEvents() {
		ops = append(ops, e.Op)
	}
	if strings.Join(ops, ",") != "create,edit" {
		t.Errorf("comment events %v, want create then edit", ops)
	}
	cs := srv.Comments(repo, 4)
	if len(cs) != 3 || cs[0].Body != prcheck.Sticky("fake verdict") || cs[2].Body != prcheck.Sticky("second") || cs[2].User.Type != "Bot" {
		t.Errorf("comments: %+v", cs)
	}

	if err := app.Reply(ctx, inst, repo, 4, "Only maintainers may ask for a rerun."); err != nil {
		t.Fatal(err)
	}
	if cs := srv.Comments(repo, 4); len(cs) != 4 || cs[3].Body != "Only maintainers may ask for a rerun." {
		t.Errorf("reply: %+v", cs)
	}
	// The same request again, many times: one answer. The same words from
	// someone else do not count as the App's.
	srv.AddComment(repo, 4, "mallory", "User", "Thanks, @mallory. Only maintainers.")
	for range 5 {
		if err := app.Reply(ctx, inst, repo, 4, "Only maintainers may ask for a rerun."); err != nil {
			t.Fatal(err)
		}
		if err := app.Reply(ctx, inst, repo, 4, "Thanks, @mallory. Only maintainers."); err != nil {
			t.Fatal(err)
		}
	}
	if cs := srv.Comments(repo, 4); len(cs) != 6 {
		t.Errorf("%d comments after repeated replies, want 6 (one reply each)", len(cs))
	}
}

func TestRetries(t *testing.T) {
	srv, app, sl := setup(t)
	srv.SetPermission(repo, "alice", "admin")
	ctx := context.Background()

	// A secondary limit and a gateway error on the token exchange itself,
	// then gateway errors on the call.
	srv.FailNext(1, http.StatusForbidden)
	srv.FailNext(1, http.StatusBadGateway)
	if ok, err := app.CanWrite(ctx, inst, repo, "alice"); err != nil || !ok {
		t.Fatalf("after a 403 and a 502 on the token: %v %v", ok, err)
	}
	srv.FailNext(2, http.StatusServiceUnavailable)
	if ok, err := app.CanWrite(ctx, inst, repo, "alice"); err != nil || !ok {
		t.Fatalf("after two 503s: %v %v", ok, err)
	}
	if d := sl.list(); len(d) != 4 || d[0] != time.Second || d[1] != 2*time.Second || d[2] != time.Second || d[3] != 2*time.Second {
		t.Errorf("backoff waits %v", d)
	}

	// A secondary rate limit: wait Retry-After, then retry.
	sl.reset()
	srv.AddPR(repo, fakegithub.PR{Number: 1})
	srv.FailNext(1, http.StatusForbidden)
	if err := app.Reply(ctx, inst, repo, 1, "hi"); err != nil {
		t.Fatalf("after a secondary limit: %v", err)
	}
	if c := srv.Comments(repo, 1); len(c) != 1 {
		t.Errorf("%d comments after a retried reply, want 1", len(c))
	}
	if d := sl.list(); len(d) != 1 || d[0] != time.Second {
		t.Errorf("secondary-limit waits %v", d)
	}

	// A primary rate limit: wait until the reset.
	sl.reset()
	reset := time.Now().Add(30 * time.Second)
	var once sync.Once
	srv.Inject(func(r *http.Request, n int) *fakegithub.Fault {
		var f *fakegithub.Fault
		once.Do(func() { f = &fakegithub.Fault{Status: http.StatusForbidden, RateLimitReset: reset} })
		return f
	})
	if ok, err := app.CanWrite(ctx, inst, repo, "alice"); err != nil || !ok {
		t.Fatalf("after a primary limit: %v %v", ok, err)
	}
	srv.Inject(nil)
	if d := sl.list(); len(d) != 1 || d[0] < 25*time.Second || d[0] > 32*time.Second {
		t.Errorf("primary-limit waits %v", d)
	}

	// A limit resetting later than MaxWait is returned, not waited for.
	sl.reset()
	app.cfg.MaxWait = 10 * time.Second
	srv.Inject(func(r *http.Request, n int) *fakegithub.Fault {
		return &fakegithub.Fault{Status: http.StatusForbidden, RateLimitReset: time.Now().Add(time.Hour)}
	})
	if _, err := app.CanWrite(ctx, inst, repo, "alice"); err == nil || len(sl.list()) != 0 {
		t.Errorf("a long limit: %v, waits %v", err, sl.list())
	}
	srv.Inject(nil)

	// Gateway errors that do not stop give up after MaxAttempts.
	sl.reset()
	srv.FailNext(DefaultMaxAttempts, http.StatusBadGateway)
	_, err := app.CanWrite(ctx, inst, repo, "alice")
	if err == nil || len(sl.list()) != DefaultMaxAttempts-1 {
		t.Errorf("persistent 502: %v, waits %v", err, sl.list())
	}
	if err != nil && strings.Contains(err.Error(), "ghs_") {
		t.Errorf("an error names a token: %v", err)
	}

	// A cancelled context stops the waiting.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := app.CanWrite(cctx, inst, repo, "alice"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if n := srv.TokensIssued(); n != 1 {
		t.Errorf("%d tokens issued", n)
	}
}

func TestTokenForGit(t *testing.T) {
	srv, app, _ := setup(t)
	tok, err := app.Token(context.Background(), 7)
	if err != nil || !strings.HasPrefix(tok, "ghs_") {
		t.Fatalf("token %q, %v", tok, err)
	}
	again, _ := app.Token(context.Background(), 7)
	if again != tok || srv.TokensIssued() != 1 {
		t.Errorf("token not cached: %d issued", srv.TokensIssued())
	}
}

// TestIdentify: the App learns its slug and bot user from GitHub, and
// recognises nothing as its own before it has.
func TestIdentify(t *testing.T) {
	key := testKey()
	srv := fakegithub.New(t, appID, &key.PublicKey)
	srv.AppSlug = "someone-elses-name"
	srv.AddRepo(repo, "main")
	srv.AddPR(repo, fakegithub.PR{Number: 4})
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	app, err := New(Config{AppID: appID, PrivateKey: pemKey, BaseURL: srv.URL, HTTPClient: srv.Client(), Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, ok := app.Identity(); ok {
		t.Fatal("an identity before Identify")
	}
	if _, _, err := app.UpsertComment(ctx, inst, repo, 4, prcheck.Sticky("x")); !errors.Is(err, ErrNoIdentity) {
		t.Fatalf("UpsertComment before Identify: %v", err)
	}
	id, err := app.Identify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bot := "someone-elses-name[bot]"
	want := Identity{AppID: appID, Slug: "someone-elses-name", Name: "someone-elses-name", BotLogin: bot, BotUserID: srv.UserID(bot)}
	if got, _ := app.Identity(); id != want || got != want {
		t.Fatalf("identity %+v, want %+v", id, want)
	}
	if id.CommitName() != bot || id.CommitEmail() != fmt.Sprintf("%d+%s@users.noreply.github.com", srv.UserID(bot), bot) {
		t.Errorf("commit author %s <%s>", id.CommitName(), id.CommitEmail())
	}
	if _, _, err := app.UpsertComment(ctx, inst, repo, 4, prcheck.Sticky("x")); err != nil {
		t.Fatal(err)
	}
	if cs := srv.Comments(repo, 4); len(cs) != 1 || cs[0].User.Login != bot {
		t.Errorf("comments %+v", cs)
	}
	// GitHub down at start-up: an error, and still no identity.
	other, _ := New(Config{AppID: appID, PrivateKey: pemKey, BaseURL: srv.URL, HTTPClient: srv.Client(), Sleep: (&sleeps{}).sleep, MaxAttempts: 1})
	srv.FailNext(1, http.StatusBadGateway)
	if _, err := other.Identify(ctx); err == nil {
		t.Error("Identify succeeded against a 502")
	}
	if _, ok := other.Identity(); ok {
		t.Error("an identity after a failed Identify")
	}
}

// TestTooManyRequests: GitHub's 429, which go-github does not read as a
// rate limit, is waited out in place by Retry-After or X-RateLimit-Reset,
// on installation calls and on the App's own (the installation listing).
func TestTooManyRequests(t *testing.T) {
	srv, app, sl := setup(t)
	srv.AddInstallation(inst, repo)
	ctx := context.Background()
	var once atomic.Bool
	srv.Inject(func(r *http.Request, n int) *fakegithub.Fault {
		if r.URL.Path == "/repos/"+repo+"/collaborators/alice/permission" && once.CompareAndSwap(false, true) {
			return &fakegithub.Fault{Status: http.StatusTooManyRequests, RetryAfter: "7"}
		}
		return nil
	})
	sl.reset()
	if ok, err := app.CanWrite(ctx, inst, repo, "alice"); err != nil || ok {
		t.Fatalf("after a 429: %v %v", ok, err)
	}
	if d := sl.list(); len(d) != 1 || d[0] != 7*time.Second {
		t.Errorf("waits %v, want the 7 s Retry-After", d)
	}
	reset := time.Now().Add(20 * time.Second)
	once.Store(false)
	srv.Inject(func(r *http.Request, n int) *fakegithub.Fault {
		if r.URL.Path == "/app/installations" && once.CompareAndSwap(false, true) {
			return &fakegithub.Fault{Status: http.StatusTooManyRequests, RateLimitReset: reset}
		}
		return nil
	})
	sl.reset()
	ids, err := app.Installations(ctx)
	if err != nil || len(ids) != 1 {
		t.Fatalf("installations after a 429: %v %v", ids, err)
	}
	if d := sl.list(); len(d) != 1 || d[0] < 15*time.Second || d[0] > 22*time.Second {
		t.Errorf("waits %v, want about 20 s, to the reset", d)
	}
}

// TestBlobsKept: with Config.Blobs, a base branch's blob is downloaded
// once, and a kept copy that no longer hashes to its sha is not used.
func TestBlobsKept(t *testing.T) {
	key := testKey()
	srv := fakegithub.New(t, appID, &key.PublicKey)
	srv.AddRepo(repo, "main")
	srv.SetFile(repo, "main", "rubrics/rubrics.json", []byte(`{"benchmarks": []}`))
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	blobs := &filecache.Memory{}
	app, err := New(Config{AppID: appID, PrivateKey: pemKey, BaseURL: srv.URL, HTTPClient: srv.Client(), Sleep: (&sleeps{}).sleep, Blobs: blobs})
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		fsys, err := app.BaseFS(context.Background(), inst, repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		data, err := fs.ReadFile(fsys, "rubrics/rubrics.json")
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for i := 0; i < 3; i++ {
		if got := read(); got != `{"benchmarks": []}` {
			t.Fatalf("read %q", got)
		}
	}
	if n := countRequests(srv, "GET", "/git/blobs/"); n != 1 {
		t.Errorf("%d blob downloads for three reads, want 1", n)
	}
	for _, k := range blobs.Keys() {
		blobs.Put(k, []byte(`{"benchmarks": [tampered]}`))
	}
	if got := read(); got != `{"benchmarks": []}` {
		t.Errorf("a kept blob that does not hash to its sha was used: %q", got)
	}
	if n := countRequests(srv, "GET", "/git/blobs/"); n != 2 {
		t.Errorf("%d blob downloads, want 2 (the tampered copy replaced)", n)
	}
}

// TestSecondaryLimitWithoutRetryAfter: a secondary limit that names no
// time (GitHub then asks for at least a minute, and exponentially longer
// while it holds) is waited out in place, a minute and then two, even
// with a MaxWait under a minute; it is not taken for the primary limit's
// reset, up to an hour away, and refused as too long.
func TestSecondaryLimitWithoutRetryAfter(t *testing.T) {
	srv, app, sl := setup(t)
	srv.SetPermission(repo, "alice", "admin")
	srv.SetRateLimit(4000, time.Now().Add(50*time.Minute))
	ctx := context.Background()
	for _, maxWait := range []time.Duration{DefaultMaxWait, 10 * time.Second} {
		app.cfg.MaxWait = maxWait
		sl.reset()
		var n atomic.Int32
		srv.Inject(func(r *http.Request, _ int) *fakegithub.Fault {
			if strings.HasSuffix(r.URL.Path, "/permission") && n.Add(1) <= 2 {
				return &fakegithub.Fault{Status: http.StatusForbidden, Secondary: true}
			}
			return nil
		})
		if ok, err := app.CanWrite(ctx, inst, repo, "alice"); err != nil || !ok {
			t.Fatalf("MaxWait %v: after two secondary limits: %v %v", maxWait, ok, err)
		}
		if d := sl.list(); !slices.Equal(d, []time.Duration{time.Minute, 2 * time.Minute}) && maxWait == DefaultMaxWait {
			t.Errorf("MaxWait %v: waits %v, want 1m then 2m", maxWait, d)
		} else if maxWait < time.Minute && !slices.Equal(d, []time.Duration{time.Minute, time.Minute}) {
			t.Errorf("MaxWait %v: waits %v, want a minute each", maxWait, d)
		}
	}
	srv.Inject(nil)
}

// TestRevokedToken: a token GitHub refuses (401) is replaced by a new
// one, once per call, and the call made again at once; a 401 that
// persists is returned rather than retried with the same token.
func TestRevokedToken(t *testing.T) {
	srv, app, sl := setup(t)
	srv.SetPermission(repo, "alice", "admin")
	ctx := context.Background()
	if ok, err := app.CanWrite(ctx, inst, repo, "alice"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	srv.RevokeTokens()
	if ok, err := app.CanWrite(ctx, inst, repo, "alice"); err != nil || !ok {
		t.Fatalf("after the token was revoked: %v %v", ok, err)
	}
	if n := srv.TokensIssued(); n != 2 {
		t.Errorf("%d tokens issued, want the first and its replacement", n)
	}
	if d := sl.list(); len(d) != 0 {
		t.Errorf("waits %v before using a new token", d)
	}
	// A 401 on every request: one new token, then the error.
	srv.Inject(func(r *http.Request, _ int) *fakegithub.Fault {
		if strings.HasSuffix(r.URL.Path, "/permission") {
			return &fakegithub.Fault{Status: http.StatusUnauthorized, Message: "Bad credentials"}
		}
		return nil
	})
	defer srv.Inject(nil)
	if _, err := app.CanWrite(ctx, inst, repo, "alice"); err == nil {
		t.Error("a persistent 401 succeeded")
	}
	if n := srv.TokensIssued(); n != 3 {
		t.Errorf("%d tokens issued, want one more for the persistent 401", n)
	}
	if n := countRequests(srv, "GET", "/collaborators/alice/permission"); n != 5 {
		t.Errorf("%d permission requests, want 5: 3 before, then the 401 and its one retry with a new token", n)
	}
}

// TestTransientErrorsRetried: GitHub's 500 and 422 are retried in place,
// with backoff, rather than failing the call and with it the job.
func TestTransientErrorsRetried(t *testing.T) {
	srv, app, sl := setup(t)
	srv.AddPR(repo, fakegithub.PR{Number: 3})
	ctx := context.Background()
	if _, err := app.Token(ctx, inst); err != nil { // so that the faults meet the calls
		t.Fatal(err)
	}
	for _, status := range []int{http.StatusInternalServerError, http.StatusUnprocessableEntity} {
		sl.reset()
		before := len(srv.Comments(repo, 3))
		srv.FailNext(1, status)
		if _, err := app.CreateComment(ctx, inst, repo, 3, fmt.Sprint("after ", status)); err != nil {
			t.Fatalf("after a %d: %v", status, err)
		}
		if n := len(srv.Comments(repo, 3)) - before; n != 1 {
			t.Errorf("%d: %d comments posted, want 1", status, n)
		}
		if d := sl.list(); len(d) != 1 || d[0] != time.Second {
			t.Errorf("%d: waits %v, want one backoff of 1s", status, d)
		}
	}
	// Bounded: a 500 that persists gives up after MaxAttempts.
	sl.reset()
	srv.FailNext(DefaultMaxAttempts, http.StatusInternalServerError)
	if _, err := app.CreateComment(ctx, inst, repo, 3, "never"); err == nil || len(sl.list()) != DefaultMaxAttempts-1 {
		t.Errorf("a persistent 500: %v, waits %v", err, sl.list())
	}
}

// TestIdentifyPrivateMode: on GitHub Enterprise Server in private mode,
// which answers nothing without credentials, the App reads its bot user
// as an installation and becomes ready.
func TestIdentifyPrivateMode(t *testing.T) {
	key := testKey()
	srv := fakegithub.New(t, appID, &key.PublicKey)
	srv.PrivateMode = true
	srv.AddRepo(repo, "main")
	srv.AddInstallation(inst, repo)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	app, err := New(Config{AppID: appID, PrivateKey: pemKey, BaseURL: srv.URL, HTTPClient: srv.Client(), Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	id, err := app.Identify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if bot := fakegithub.DefaultAppSlug + "[bot]"; id.BotLogin != bot || id.BotUserID != srv.UserID(bot) {
		t.Errorf("identity %+v", id)
	}
	// The fake refuses anonymous reads in private mode, so the read
	// above carried a token; check that it would have refused one.
	resp, err := srv.Client().Get(srv.URL + "users/" + fakegithub.DefaultAppSlug + "%5Bbot%5D")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("an anonymous read in private mode: %d, want 401", resp.StatusCode)
	}
}
