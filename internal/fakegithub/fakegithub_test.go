package fakegithub

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const testAppID = 4242

// testKey is generated once because 2048-bit generation dominates run time.
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func signJWT(t *testing.T, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// goodClaims mirrors what ghinstallation sends: iat back-dated 30s, a
// short lifetime, iss as a string.
func goodClaims() map[string]any {
	now := time.Now()
	return map[string]any{"iss": strconv.Itoa(testAppID), "iat": now.Add(-30 * time.Second).Unix(), "exp": now.Add(2 * time.Minute).Unix()}
}

type resp struct {
	*http.Response
	body []byte
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

func do(t *testing.T, s *Server, method, path, auth string, body any) resp {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	return send(t, s, method, path, auth, nil, rd)
}

// send makes one request with extra header lines (nil for none).
func send(t *testing.T, s *Server, method, path, auth string, header http.Header, body io.Reader) resp {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+strings.TrimPrefix(path, "/"), body)
	if err != nil {
		t.Fatal(err)
	}
	if header != nil {
		req.Header = header.Clone()
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp{res, b}
}

func expectStatus(t *testing.T, r resp, want int) {
	t.Helper()
	if r.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d; body %s", r.Request.Method, r.Request.URL.Path, r.StatusCode, want, r.body)
	}
}

func newServer(t *testing.T) *Server {
	s := New(t, testAppID, &testKey().PublicKey)
	s.AddRepo("acme/bench", "main")
	return s
}

// installationToken performs the App's token exchange and returns the
// Authorization header value to use afterwards.
func installationToken(t *testing.T, s *Server) string {
	t.Helper()
	r := do(t, s, "POST", "app/installations/7/access_tokens", "Bearer "+signJWT(t, testKey(), goodClaims()), nil)
	expectStatus(t, r, http.StatusCreated)
	var tok struct {
		Token     string `json:"token"`
		ExpiresAt string `json:"expires_at"`
	}
	r.json(t, &tok)
	if !strings.HasPrefix(tok.Token, "ghs_") {
		t.Fatalf("token %q lacks ghs_ prefix", tok.Token)
	}
	if _, err := time.Parse(time.RFC3339, tok.ExpiresAt); err != nil {
		t.Fatalf("expires_at: %v", err)
	}
	return "token " + tok.Token
}

func TestJWT(t *testing.T) {
	s := newServer(t)
	other, err := rsa.GenerateKey(rand.Reader, 1024) // only needs to differ
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	numericIss := goodClaims()
	numericIss["iss"] = testAppID
	docsExample := map[string]any{"iss": testAppID, "iat": now.Add(-60 * time.Second).Unix(), "exp": now.Add(10 * time.Minute).Unix()}
	cases := []struct {
		name string
		jwt  string
		want int
	}{
		{"string iss", signJWT(t, testKey(), goodClaims()), http.StatusCreated},
		{"numeric iss", signJWT(t, testKey(), numericIss), http.StatusCreated},
		{"docs example: iat-60s, exp+10m", signJWT(t, testKey(), docsExample), http.StatusCreated},
		{"expired", signJWT(t, testKey(), map[string]any{"iss": testAppID, "iat": now.Add(-15 * time.Minute).Unix(), "exp": now.Add(-5 * time.Minute).Unix()}), http.StatusUnauthorized},
		{"too long", signJWT(t, testKey(), map[string]any{"iss": testAppID, "iat": now.Unix(), "exp": now.Add(30 * time.Minute).Unix()}), http.StatusUnauthorized},
		{"iat in future", signJWT(t, testKey(), map[string]any{"iss": testAppID, "iat": now.Add(5 * time.Minute).Unix(), "exp": now.Add(9 * time.Minute).Unix()}), http.StatusUnauthorized},
		{"fractional exp", signJWT(t, testKey(), map[string]any{"iss": testAppID, "iat": now.Unix(), "exp": float64(now.Add(time.Minute).Unix()) + 0.5}), http.StatusUnauthorized},
		{"wrong key", signJWT(t, other, goodClaims()), http.StatusUnauthorized},
		{"wrong iss", signJWT(t, testKey(), map[string]any{"iss": "999", "iat": now.Unix(), "exp": now.Add(time.Minute).Unix()}), http.StatusUnauthorized},
		{"garbage", "not.a.jwt", http.StatusUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, s, "POST", "app/installations/7/access_tokens", "Bearer "+c.jwt, nil)
			expectStatus(t, r, c.want)
			if c.want == http.StatusUnauthorized {
				var e struct {
					Message string `json:"message"`
					Doc     string `json:"documentation_url"`
				}
				r.json(t, &e)
				if e.Message == "" || e.Doc == "" {
					t.Errorf("401 body lacks message/documentation_url: %s", r.body)
				}
			}
		})
	}
	if got := s.TokensIssued(); got != 3 {
		t.Errorf("TokensIssued = %d, want 3", got)
	}
	r := do(t, s, "POST", "app/installations/7/access_tokens", "", nil)
	expectStatus(t, r, http.StatusUnauthorized)
}

func TestTokenRequired(t *testing.T) {
	s := newServer(t)
	s.AddPR("acme/bench", PR{Number: 1})
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", "", nil), http.StatusUnauthorized)
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", "token ghs_bogus", nil), http.StatusUnauthorized)
	// An App JWT is not an installation token.
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", "Bearer "+signJWT(t, testKey(), goodClaims()), nil), http.StatusUnauthorized)
	tok := installationToken(t, s)
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil), http.StatusOK)
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", "Bearer "+strings.TrimPrefix(tok, "token "), nil), http.StatusOK)

	// Tokens last an hour.
	s.SetClock(func() time.Time { return time.Now().Add(61 * time.Minute) })
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil), http.StatusUnauthorized)
}

func TestUnknownRouteAndMethod(t *testing.T) {
	s := newServer(t)
	tok := installationToken(t, s)
	r := do(t, s, "GET", "repos/acme/bench/nonsense/x/y", tok, nil)
	expectStatus(t, r, http.StatusNotFound)
	if !strings.Contains(string(r.body), `"message":"Not Found"`) {
		t.Errorf("body %s", r.body)
	}
	expectStatus(t, do(t, s, "DELETE", "repos/acme/bench/pulls/1", tok, nil), http.StatusNotFound)
	expectStatus(t, do(t, s, "GET", "repos/acme/missing/pulls/1", tok, nil), http.StatusNotFound)
}

func TestPullRequests(t *testing.T) {
	s := newServer(t)
	s.SetFile("acme/bench", "main", "registry.yaml", []byte("base\n"))
	s.SetFile("acme/bench", "main", "old.txt", []byte("gone\n"))
	var files []File
	for i := range 75 {
		files = append(files, File{Name: fmt.Sprintf("submissions/f%02d.md", i), Status: "added", Content: []byte("x\n")})
	}
	files = append(files, File{Name: "old.txt", Status: "removed"}, File{Name: "registry.yaml", Status: "modified", Content: []byte("head\n")})
	s.AddPR("acme/bench", PR{Number: 5, Author: "alice", HeadRef: "feature", HeadRepo: "alice/bench", Files: files})
	s.AddPR("acme/bench", PR{Number: 6, State: "closed", Merged: true})
	tok := installationToken(t, s)

	r := do(t, s, "GET", "repos/acme/bench/pulls/5", tok, nil)
	expectStatus(t, r, http.StatusOK)
	var pr struct {
		Number int
		State  string
		Merged bool
		User   struct{ Login string }
		Head   struct {
			SHA, Ref string
			Repo     struct {
				FullName string `json:"full_name"`
			}
		}
		Base struct{ SHA, Ref string }
	}
	r.json(t, &pr)
	if pr.State != "open" || pr.Merged || pr.User.Login != "alice" || pr.Head.Ref != "feature" || pr.Head.Repo.FullName != "alice/bench" || pr.Base.Ref != "main" || len(pr.Head.SHA) != 40 || len(pr.Base.SHA) != 40 {
		t.Errorf("unexpected PR %+v", pr)
	}

	// Files come in pages linked by rel="next".
	var all []struct{ Filename, Status, SHA string }
	next := "repos/acme/bench/pulls/5/files?per_page=30"
	pages := 0
	for next != "" {
		r := do(t, s, "GET", next, tok, nil)
		expectStatus(t, r, http.StatusOK)
		var page []struct{ Filename, Status, SHA string }
		r.json(t, &page)
		all = append(all, page...)
		pages++
		next = ""
		for _, l := range strings.Split(r.Header.Get("Link"), ",") {
			if strings.Contains(l, `rel="next"`) {
				u := strings.Trim(strings.TrimSpace(strings.Split(l, ";")[0]), "<>")
				next = strings.TrimPrefix(u, s.URL)
			}
		}
	}
	if len(all) != 77 || pages != 3 {
		t.Fatalf("got %d files in %d pages, want 77 in 3", len(all), pages)
	}
	if all[75].Status != "removed" || all[76].Filename != "registry.yaml" || all[76].SHA != blobSHA([]byte("head\n")) {
		t.Errorf("tail files %+v", all[75:])
	}

	var list []struct{ Number int }
	r = do(t, s, "GET", "repos/acme/bench/pulls?state=open", tok, nil)
	expectStatus(t, r, http.StatusOK)
	r.json(t, &list)
	if len(list) != 1 || list[0].Number != 5 {
		t.Errorf("open PRs %+v", list)
	}
	r = do(t, s, "GET", "repos/acme/bench/pulls?state=all", tok, nil)
	r.json(t, &list)
	if len(list) != 2 {
		t.Errorf("all PRs %+v", list)
	}

	// The head commit is the base plus the PR's changes.
	read := func(path, ref string) (int, string) {
		r := do(t, s, "GET", "repos/acme/bench/contents/"+path+"?ref="+ref, tok, nil)
		if r.StatusCode != http.StatusOK {
			return r.StatusCode, ""
		}
		var f struct{ Content, Encoding string }
		r.json(t, &f)
		b, err := base64.StdEncoding.DecodeString(f.Content)
		if err != nil || f.Encoding != "base64" {
			t.Fatalf("content %q encoding %q: %v", f.Content, f.Encoding, err)
		}
		return 200, string(b)
	}
	if code, c := read("registry.yaml", pr.Head.SHA); c != "head\n" {
		t.Errorf("head registry.yaml = %d %q", code, c)
	}
	if code, c := read("registry.yaml", "main"); c != "base\n" {
		t.Errorf("base registry.yaml = %d %q", code, c)
	}
	if code, _ := read("old.txt", pr.Head.SHA); code != http.StatusNotFound {
		t.Errorf("removed file at head: %d", code)
	}
	if code, c := read("submissions/f07.md", "pull/5/head"); c != "x\n" {
		t.Errorf("pull/5/head file = %d %q", code, c)
	}
}

func TestContents(t *testing.T) {
	s := newServer(t)
	long := bytes.Repeat([]byte("rubric line\n"), 20)
	s.SetFile("acme/bench", "main", "rubrics/a.md", long)
	s.SetFile("acme/bench", "main", "rubrics/deep/b.md", []byte("b"))
	tok := installationToken(t, s)

	r := do(t, s, "GET", "repos/acme/bench/contents/rubrics/a.md?ref=main", tok, nil)
	expectStatus(t, r, http.StatusOK)
	var f struct{ Type, Encoding, Content, SHA, Path string }
	r.json(t, &f)
	if !strings.Contains(f.Content, "\n") {
		t.Error("content should be wrapped like GitHub's")
	}
	b, err := base64.StdEncoding.DecodeString(f.Content)
	if err != nil || !bytes.Equal(b, long) || f.Type != "file" || f.Path != "rubrics/a.md" {
		t.Errorf("file %+v decode %v", f, err)
	}

	r = do(t, s, "GET", "repos/acme/bench/contents/rubrics", tok, nil) // default branch
	expectStatus(t, r, http.StatusOK)
	var dir []struct{ Type, Name, Path string }
	r.json(t, &dir)
	if len(dir) != 2 || dir[0].Name != "a.md" || dir[0].Type != "file" || dir[1].Name != "deep" || dir[1].Type != "dir" {
		t.Errorf("listing %+v", dir)
	}

	r = do(t, s, "GET", "repos/acme/bench/contents/nope.md?ref=main", tok, nil)
	expectStatus(t, r, http.StatusNotFound)
	if !strings.Contains(string(r.body), `"message":"Not Found"`) {
		t.Errorf("404 body %s", r.body)
	}
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/contents/rubrics/a.md?ref=no-such-branch", tok, nil), http.StatusNotFound)

	// The same files through the git data API.
	r = do(t, s, "GET", "repos/acme/bench/git/trees/main?recursive=1", tok, nil)
	expectStatus(t, r, http.StatusOK)
	var tree struct {
		Tree []struct{ Path, Type, SHA string }
	}
	r.json(t, &tree)
	var paths []string
	for _, e := range tree.Tree {
		paths = append(paths, e.Type+":"+e.Path)
	}
	if got := strings.Join(paths, " "); got != "tree:rubrics blob:rubrics/a.md tree:rubrics/deep blob:rubrics/deep/b.md" {
		t.Errorf("tree = %s", got)
	}
	r = do(t, s, "GET", "repos/acme/bench/git/trees/"+tree.Tree[0].SHA, tok, nil)
	expectStatus(t, r, http.StatusOK)
	r.json(t, &tree)
	if len(tree.Tree) != 2 || tree.Tree[0].Path != "a.md" || tree.Tree[1].Type != "tree" {
		t.Errorf("subtree %+v", tree.Tree)
	}
	r = do(t, s, "GET", "repos/acme/bench/git/blobs/"+tree.Tree[0].SHA, tok, nil)
	expectStatus(t, r, http.StatusOK)
	var blob struct{ Content, Encoding string }
	r.json(t, &blob)
	if b, _ := base64.StdEncoding.DecodeString(blob.Content); !bytes.Equal(b, long) || blob.Encoding != "base64" {
		t.Errorf("blob %+v", blob)
	}
}

// TestSymlinks: git keeps a symbolic link as a blob holding its target
// path (mode 120000). The PR files listing gives that blob's sha; the
// contents API follows a link to a regular file of the repository and
// answers with that file, and describes any other link as type "symlink".
func TestSymlinks(t *testing.T) {
	s := newServer(t)
	other := []byte(`{"other": true}` + "\n")
	s.SetFile("acme/bench", "main", "submissions/m/other/scores.json", other)
	s.SetFile("acme/bench", "main", "submissions/m/other/meta.json", []byte("{}\n"))
	links := map[string]string{
		"submissions/m/mine/scores.json": "../other/scores.json",       // a regular file: followed
		"submissions/m/mine/meta.json":   "../../../../etc/passwd",     // leaves the repository
		"submissions/m/mine/README.md":   "/etc/hosts",                 // absolute
		"submissions/m/mine/all":         "../other",                   // a folder
		"submissions/m/mine/gone.json":   "missing.json",               // nothing there
		"submissions/m/mine/chain.json":  "scores.json",                // another link
		"submissions/m/mine/self.json":   "../mine/../other/meta.json", // followed after cleaning
	}
	var files []File
	for name, target := range links {
		files = append(files, File{Name: name, Status: "added", SymlinkTarget: target, Content: []byte("ignored")})
	}
	s.AddPR("acme/bench", PR{Number: 8, HeadSHA: strings.Repeat("ab", 20), Files: files})
	tok := installationToken(t, s)
	head := strings.Repeat("ab", 20)

	r := do(t, s, "GET", "repos/acme/bench/pulls/8/files", tok, nil)
	expectStatus(t, r, http.StatusOK)
	var listed []struct {
		Filename, Status, SHA string
		Additions             int
	}
	r.json(t, &listed)
	if len(listed) != len(links) {
		t.Fatalf("listed %d files, want %d", len(listed), len(links))
	}
	for _, f := range listed {
		if f.SHA != blobSHA([]byte(links[f.Filename])) || f.Additions != 1 {
			t.Errorf("%s listed with sha %s and %d additions, want the link blob's sha and 1", f.Filename, f.SHA, f.Additions)
		}
	}

	type content struct {
		Type, Name, Path, SHA, Encoding, Content string
		Target                                   *string
		Size                                     int
	}
	get := func(path string) content {
		t.Helper()
		r := do(t, s, "GET", "repos/acme/bench/contents/"+path+"?ref="+head, tok, nil)
		expectStatus(t, r, http.StatusOK)
		var c content
		r.json(t, &c)
		return c
	}
	for path, want := range map[string]string{
		"submissions/m/mine/scores.json": "submissions/m/other/scores.json",
		"submissions/m/mine/self.json":   "submissions/m/other/meta.json",
	} {
		c := get(path)
		data, _ := base64.StdEncoding.DecodeString(c.Content)
		wantData := other
		if strings.HasSuffix(want, "meta.json") {
			wantData = []byte("{}\n")
		}
		if c.Type != "file" || c.Path != want || c.Name != want[strings.LastIndex(want, "/")+1:] || c.SHA != blobSHA(wantData) || c.Target != nil || !bytes.Equal(data, wantData) {
			t.Errorf("%s: %+v, want the file %s itself", path, c, want)
		}
	}
	for _, path := range []string{"submissions/m/mine/meta.json", "submissions/m/mine/README.md", "submissions/m/mine/all", "submissions/m/mine/gone.json", "submissions/m/mine/chain.json"} {
		c := get(path)
		if c.Type != "symlink" || c.Path != path || c.Target == nil || *c.Target != links[path] || c.SHA != blobSHA([]byte(links[path])) || c.Size != len(links[path]) || c.Content != "" || c.Encoding != "" {
			t.Errorf("%s: %+v, want the symlink object", path, c)
		}
	}

	// A folder listing names links as such, without their targets.
	r = do(t, s, "GET", "repos/acme/bench/contents/submissions/m/mine?ref="+head, tok, nil)
	expectStatus(t, r, http.StatusOK)
	var dir []content
	r.json(t, &dir)
	if len(dir) != len(links) {
		t.Fatalf("listing %+v", dir)
	}
	for _, c := range dir {
		if c.Type != "symlink" || c.Target != nil || c.SHA != blobSHA([]byte(links[c.Path])) {
			t.Errorf("listed %+v", c)
		}
	}

	// The trees API gives mode 120000 for a link, and its blob is the target.
	r = do(t, s, "GET", "repos/acme/bench/git/trees/"+head+"?recursive=1", tok, nil)
	expectStatus(t, r, http.StatusOK)
	var tree struct {
		Tree []struct{ Path, Mode, Type, SHA string }
	}
	r.json(t, &tree)
	seen := 0
	for _, e := range tree.Tree {
		target, isLink := links[e.Path]
		switch {
		case isLink:
			seen++
			if e.Mode != "120000" || e.Type != "blob" || e.SHA != blobSHA([]byte(target)) {
				t.Errorf("tree entry %+v", e)
			}
			r := do(t, s, "GET", "repos/acme/bench/git/blobs/"+e.SHA, tok, nil)
			expectStatus(t, r, http.StatusOK)
			var blob struct{ Content string }
			r.json(t, &blob)
			if b, _ := base64.StdEncoding.DecodeString(blob.Content); string(b) != target {
				t.Errorf("blob of %s = %q, want %q", e.Path, b, target)
			}
		case e.Type == "blob" && e.Mode != "100644":
			t.Errorf("regular file %+v", e)
		}
	}
	if seen != len(links) {
		t.Errorf("tree has %d links, want %d: %+v", seen, len(links), tree.Tree)
	}
}

func annotations(n int) []map[string]any {
	var out []map[string]any
	for i := range n {
		out = append(out, map[string]any{"path": "a.go", "start_line": i + 1, "end_line": i + 1, "annotation_level": "warning", "message": fmt.Sprintf("m%d", i)})
	}
	return out
}

func TestCheckRuns(t *testing.T) {
	s := newServer(t)
	s.AddPR("acme/bench", PR{Number: 3, HeadSHA: strings.Repeat("a", 40)})
	sha := strings.Repeat("a", 40)
	tok := installationToken(t, s)
	create := func(body map[string]any) resp {
		return do(t, s, "POST", "repos/acme/bench/check-runs", tok, body)
	}

	for name, body := range map[string]map[string]any{
		"51 annotations":               {"name": "bench", "head_sha": sha, "output": map[string]any{"title": "t", "summary": "s", "annotations": annotations(51)}},
		"summary too long":             {"name": "bench", "head_sha": sha, "output": map[string]any{"title": "t", "summary": strings.Repeat("é", 65536)}},
		"bad conclusion":               {"name": "bench", "head_sha": sha, "conclusion": "great"},
		"stale":                        {"name": "bench", "head_sha": sha, "conclusion": "stale"},
		"completed without conclusion": {"name": "bench", "head_sha": sha, "status": "completed"},
		"bad level":                    {"name": "bench", "head_sha": sha, "output": map[string]any{"title": "t", "summary": "s", "annotations": []map[string]any{{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "error", "message": "m"}}}},
		"columns across lines":         {"name": "bench", "head_sha": sha, "output": map[string]any{"title": "t", "summary": "s", "annotations": []map[string]any{{"path": "a", "start_line": 1, "end_line": 2, "start_column": 1, "annotation_level": "notice", "message": "m"}}}},
		"unknown sha":                  {"name": "bench", "head_sha": strings.Repeat("b", 40)},
		"no name":                      {"head_sha": sha},
	} {
		t.Run(name, func(t *testing.T) {
			r := create(body)
			expectStatus(t, r, http.StatusUnprocessableEntity)
		})
	}
	if n := len(s.CheckRuns("acme/bench")); n != 0 {
		t.Fatalf("%d check runs stored after refusals", n)
	}

	// A summary of exactly 65535 characters (multi-byte) is fine.
	r := create(map[string]any{"name": "bench", "head_sha": sha, "status": "in_progress", "output": map[string]any{"title": "t", "summary": strings.Repeat("é", 65535), "annotations": annotations(50)}})
	expectStatus(t, r, http.StatusCreated)
	var run struct {
		ID         int64
		Status     string
		Conclusion *string
		Output     struct {
			AnnotationsCount int `json:"annotations_count"`
		}
		PullRequests []struct{ Number int } `json:"pull_requests"`
	}
	r.json(t, &run)
	if run.Status != "in_progress" || run.Conclusion != nil || run.Output.AnnotationsCount != 50 || len(run.PullRequests) != 1 {
		t.Errorf("created %+v", run)
	}
	patch := func(body map[string]any) resp {
		return do(t, s, "PATCH", fmt.Sprintf("repos/acme/bench/check-runs/%d", run.ID), tok, body)
	}
	expectStatus(t, patch(map[string]any{"output": map[string]any{"title": "t", "summary": "s", "annotations": annotations(51)}}), http.StatusUnprocessableEntity)
	expectStatus(t, patch(map[string]any{"output": map[string]any{"title": "t", "summary": "s", "annotations": annotations(50)}}), http.StatusOK)
	r = patch(map[string]any{"conclusion": "failure", "output": map[string]any{"title": "done", "summary": "final", "annotations": annotations(20)}})
	expectStatus(t, r, http.StatusOK)
	r.json(t, &run)
	if run.Status != "completed" || run.Conclusion == nil || *run.Conclusion != "failure" || run.Output.AnnotationsCount != 120 {
		t.Errorf("after patches %+v", run)
	}
	runs := s.CheckRuns("acme/bench")
	if len(runs) != 1 || len(runs[0].Output.Annotations) != 120 || runs[0].Output.Summary != "final" || runs[0].Updates != 2 || runs[0].CompletedAt.IsZero() {
		t.Errorf("stored %+v", runs)
	}

	// Listing by ref: "latest" keeps the newest run per name.
	expectStatus(t, create(map[string]any{"name": "bench", "head_sha": sha, "conclusion": "success"}), http.StatusCreated)
	expectStatus(t, create(map[string]any{"name": "other", "head_sha": sha, "status": "queued"}), http.StatusCreated)
	list := func(q string) (total int, names []string) {
		r := do(t, s, "GET", "repos/acme/bench/commits/"+sha+"/check-runs"+q, tok, nil)
		expectStatus(t, r, http.StatusOK)
		var l struct {
			TotalCount int `json:"total_count"`
			CheckRuns  []struct {
				Name       string
				Conclusion *string
			} `json:"check_runs"`
		}
		r.json(t, &l)
		for _, c := range l.CheckRuns {
			names = append(names, c.Name)
		}
		return l.TotalCount, names
	}
	if n, names := list(""); n != 2 || len(names) != 2 {
		t.Errorf("latest: %d %v", n, names)
	}
	if n, _ := list("?filter=all"); n != 3 {
		t.Errorf("all: %d", n)
	}
	if n, names := list("?check_name=bench"); n != 1 || names[0] != "bench" {
		t.Errorf("check_name: %d %v", n, names)
	}
	if n, _ := list("?check_name=other&status=completed"); n != 0 {
		t.Errorf("status filter: %d", n)
	}
	// A PR's head branch resolves to its head sha.
	r = do(t, s, "GET", "repos/acme/bench/commits/pr-3/check-runs?filter=all", tok, nil)
	expectStatus(t, r, http.StatusOK)
	r = do(t, s, "GET", fmt.Sprintf("repos/acme/bench/check-runs/%d/annotations?per_page=100&page=2", runs[0].ID), tok, nil)
	expectStatus(t, r, http.StatusOK)
	var anns []Annotation
	r.json(t, &anns)
	if len(anns) != 20 || anns[0].Message != "m0" {
		t.Errorf("annotations page 2: %d", len(anns))
	}
}

func TestComments(t *testing.T) {
	s := newServer(t)
	s.AddPR("acme/bench", PR{Number: 9})
	for i := range 35 {
		s.AddComment("acme/bench", 9, "bob", "User", fmt.Sprintf("c%d", i))
	}
	mine := s.AddComment("acme/bench", 9, s.AppSlug+"[bot]", "Bot", "old report")
	tok := installationToken(t, s)

	type comment struct {
		ID   int64
		Body string
		User struct{ Login, Type string }
		App  *struct{ ID int64 } `json:"performed_via_github_app"`
	}
	var got []comment
	for page := 1; ; page++ {
		r := do(t, s, "GET", fmt.Sprintf("repos/acme/bench/issues/9/comments?per_page=10&page=%d", page), tok, nil)
		expectStatus(t, r, http.StatusOK)
		var cs []comment
		r.json(t, &cs)
		got = append(got, cs...)
		if !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
			break
		}
	}
	if len(got) != 36 || got[0].Body != "c0" || got[0].User.Type != "User" || got[0].App != nil {
		t.Fatalf("listed %d, first %+v", len(got), got[0])
	}
	if last := got[35]; last.ID != mine || last.User.Type != "Bot" || last.App == nil || last.App.ID != testAppID {
		t.Errorf("App comment %+v", last)
	}

	r := do(t, s, "PATCH", fmt.Sprintf("repos/acme/bench/issues/comments/%d", mine), tok, map[string]string{"body": "new report"})
	expectStatus(t, r, http.StatusOK)
	r = do(t, s, "POST", "repos/acme/bench/issues/9/comments", tok, map[string]string{"body": "hello"})
	expectStatus(t, r, http.StatusCreated)
	var c comment
	r.json(t, &c)
	if c.User.Login != s.AppSlug+"[bot]" || c.User.Type != "Bot" || c.App == nil {
		t.Errorf("created %+v", c)
	}
	expectStatus(t, do(t, s, "POST", "repos/acme/bench/issues/9/comments", tok, map[string]string{"body": ""}), http.StatusUnprocessableEntity)
	expectStatus(t, do(t, s, "POST", "repos/acme/bench/issues/9/comments", tok, map[string]string{"body": strings.Repeat("x", 65537)}), http.StatusUnprocessableEntity)
	expectStatus(t, do(t, s, "POST", "repos/acme/bench/issues/404/comments", tok, map[string]string{"body": "x"}), http.StatusNotFound)
	expectStatus(t, do(t, s, "PATCH", "repos/acme/bench/issues/comments/1", tok, map[string]string{"body": "x"}), http.StatusNotFound)

	ev := s.CommentEvents()
	if len(ev) != 2 || ev[0].Op != "edit" || ev[0].ID != mine || ev[1].Op != "create" || ev[1].Body != "hello" {
		t.Errorf("events %+v", ev)
	}
	cs := s.Comments("acme/bench", 9)
	if len(cs) != 37 || cs[35].Body != "new report" {
		t.Errorf("stored %d comments", len(cs))
	}

	expectStatus(t, do(t, s, "POST", "repos/acme/bench/issues/9/reactions", tok, map[string]string{"content": "eyes"}), http.StatusCreated)
	expectStatus(t, do(t, s, "POST", "repos/acme/bench/issues/9/reactions", tok, map[string]string{"content": "eyes"}), http.StatusOK)
	expectStatus(t, do(t, s, "POST", "repos/acme/bench/issues/9/reactions", tok, map[string]string{"content": "wow"}), http.StatusUnprocessableEntity)
	if rs := s.Reactions("acme/bench"); len(rs) != 1 || rs[0].Issue != 9 {
		t.Errorf("reactions %+v", rs)
	}
}

func TestPermissions(t *testing.T) {
	s := newServer(t)
	for user, role := range map[string]string{"ada": "admin", "max": "maintain", "wes": "write", "tri": "triage", "rea": "read"} {
		s.SetPermission("acme/bench", user, role)
	}
	tok := installationToken(t, s)
	check := func(user, perm, role string) {
		t.Helper()
		r := do(t, s, "GET", "repos/acme/bench/collaborators/"+user+"/permission", tok, nil)
		expectStatus(t, r, http.StatusOK)
		var p struct {
			Permission string
			RoleName   string `json:"role_name"`
		}
		r.json(t, &p)
		if p.Permission != perm || p.RoleName != role {
			t.Errorf("%s: got %+v, want %s/%s", user, p, perm, role)
		}
	}
	check("ada", "admin", "admin")
	check("max", "write", "maintain")
	check("wes", "write", "write")
	check("tri", "read", "triage")
	check("rea", "read", "read")
	check("stranger", "read", "read")
	s.SetPrivate("acme/bench", true)
	check("stranger", "none", "none")
}

func TestRateLimit(t *testing.T) {
	s := newServer(t)
	s.AddPR("acme/bench", PR{Number: 1})
	tok := installationToken(t, s)
	reset := time.Now().Add(30 * time.Minute)
	s.SetRateLimit(2, reset)

	for i, want := range []string{"1", "0"} {
		r := do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil)
		expectStatus(t, r, http.StatusOK)
		h := r.Header
		if h.Get("X-RateLimit-Remaining") != want || h.Get("X-RateLimit-Limit") != "5000" || h.Get("X-RateLimit-Resource") != "core" ||
			h.Get("X-RateLimit-Reset") != strconv.FormatInt(reset.Unix(), 10) || h.Get("X-RateLimit-Used") != strconv.Itoa(4999+i) {
			t.Errorf("request %d headers %v", i, h)
		}
	}
	r := do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil)
	expectStatus(t, r, http.StatusForbidden)
	if r.Header.Get("X-RateLimit-Remaining") != "0" || !strings.Contains(string(r.body), "API rate limit exceeded for installation ID 7") {
		t.Errorf("exhausted: %v %s", r.Header, r.body)
	}
	// Once the window resets the budget returns.
	s.SetClock(func() time.Time { return reset.Add(time.Second) })
	r = do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil)
	expectStatus(t, r, http.StatusOK)
	if r.Header.Get("X-RateLimit-Remaining") != "4999" {
		t.Errorf("after reset remaining %s", r.Header.Get("X-RateLimit-Remaining"))
	}
}

func TestFaults(t *testing.T) {
	s := newServer(t)
	s.AddPR("acme/bench", PR{Number: 1})
	tok := installationToken(t, s)

	s.Inject(func(r *http.Request, n int) *Fault {
		if r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/pulls/1") {
			s.Inject(nil) // one-shot; the hook may call the server
			return &Fault{Status: http.StatusForbidden, RetryAfter: "7"}
		}
		return nil
	})
	r := do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil)
	expectStatus(t, r, http.StatusForbidden)
	var e struct {
		Message string
		Doc     string `json:"documentation_url"`
	}
	r.json(t, &e)
	if r.Header.Get("Retry-After") != "7" || !strings.HasPrefix(e.Message, "You have exceeded a secondary rate limit") || !strings.HasSuffix(e.Doc, "secondary-rate-limits") {
		t.Errorf("secondary: %v %+v", r.Header, e)
	}
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil), http.StatusOK)

	s.FailNext(2, http.StatusBadGateway)
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil), http.StatusBadGateway)
	expectStatus(t, do(t, s, "POST", "app/installations/7/access_tokens", "Bearer "+signJWT(t, testKey(), goodClaims()), nil), http.StatusBadGateway)
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil), http.StatusOK)

	reset := time.Now().Add(time.Hour)
	s.Inject(func(r *http.Request, n int) *Fault {
		return &Fault{Status: http.StatusForbidden, RateLimitReset: reset}
	})
	r = do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil)
	expectStatus(t, r, http.StatusForbidden)
	if r.Header.Get("X-RateLimit-Remaining") != "0" || r.Header.Get("X-RateLimit-Reset") != strconv.FormatInt(reset.Unix(), 10) {
		t.Errorf("primary fault headers %v", r.Header)
	}
	s.Inject(nil)

	logs := s.Requests()
	var statuses []int
	for _, l := range logs {
		statuses = append(statuses, l.Status)
	}
	want := []int{201, 403, 200, 502, 502, 200, 403}
	if fmt.Sprint(statuses) != fmt.Sprint(want) {
		t.Errorf("logged statuses %v, want %v", statuses, want)
	}
	if logs[1].Method != "GET" || logs[1].Path != "/repos/acme/bench/pulls/1" {
		t.Errorf("log entry %+v", logs[1])
	}
}

// doWith is do for a GET with extra request header lines.
func doWith(t *testing.T, s *Server, path, auth string, header http.Header) resp {
	t.Helper()
	if header == nil {
		header = http.Header{}
	}
	return send(t, s, "GET", path, auth, header, nil)
}

func TestNoneMatch(t *testing.T) {
	const tag = `"abc"`
	for _, c := range []struct {
		fields []string
		want   bool
	}{
		{nil, false},
		{[]string{""}, false},
		{[]string{`"abc"`}, true},
		{[]string{`W/"abc"`}, true},
		{[]string{`"x", "abc"`}, true},
		{[]string{`"x",W/"abc" `}, true},
		{[]string{`"x"`, `"abc"`}, true},
		{[]string{"*"}, true},
		{[]string{" * "}, true},
		{[]string{`"x"`}, false},
		{[]string{`"abcd"`}, false},
		{[]string{`"ab"`}, false},
		{[]string{"abc"}, false},
		{[]string{`"abc`}, false},
		{[]string{`junk, "abc"`}, false}, // malformed from the start
		{[]string{`"a,b", "abc"`}, true}, // commas may sit inside a tag
		{[]string{`"a,b"`}, false},
	} {
		if got := noneMatch(c.fields, tag); got != c.want {
			t.Errorf("noneMatch(%q, %s) = %v, want %v", c.fields, tag, got, c.want)
		}
	}
	if !noneMatch([]string{`"abc"`}, `W/"abc"`) {
		t.Error("a strong If-None-Match does not match the weak tag of the same value")
	}
}

func TestConditionalRequests(t *testing.T) {
	s := newServer(t)
	sha := strings.Repeat("a", 40)
	s.AddPR("acme/bench", PR{Number: 3, HeadSHA: sha})
	s.AddPR("acme/bench", PR{Number: 4})
	tok := installationToken(t, s)
	runs := "repos/acme/bench/commits/" + sha + "/check-runs"

	first := doWith(t, s, runs, tok, nil)
	expectStatus(t, first, http.StatusOK)
	tag := first.Header.Get("ETag")
	if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		t.Fatalf("ETag %q is not a quoted strong tag", tag)
	}
	remaining := first.Header.Get("X-RateLimit-Remaining")
	if again := doWith(t, s, runs, tok, nil); again.Header.Get("ETag") != tag {
		t.Fatalf("the same answer has ETag %q, then %q", tag, again.Header.Get("ETag"))
	}
	if r, _ := strconv.Atoi(remaining); s.RateLimitRemaining() != r-1 {
		t.Fatalf("remaining %d after a second 200, want %d", s.RateLimitRemaining(), r-1)
	}
	budget := s.RateLimitRemaining()

	cases := []struct {
		name string
		inm  []string
		want int
	}{
		{"same tag", []string{tag}, http.StatusNotModified},
		{"other tag", []string{`"0000"`}, http.StatusOK},
		{"weak form", []string{"W/" + tag}, http.StatusNotModified},
		{"in a list", []string{`"0000", ` + tag}, http.StatusNotModified},
		{"unquoted", []string{strings.Trim(tag, `"`)}, http.StatusOK},
		{"on a later line", []string{`"0000"`, tag}, http.StatusNotModified},
		{"star", []string{"*"}, http.StatusNotModified},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := s.RateLimitRemaining()
			r := doWith(t, s, runs, tok, http.Header{"If-None-Match": c.inm})
			expectStatus(t, r, c.want)
			if r.Header.Get("ETag") != tag {
				t.Errorf("ETag %q, want %q", r.Header.Get("ETag"), tag)
			}
			charge := 1
			if c.want == http.StatusNotModified {
				charge = 0
				if len(r.body) != 0 || r.Header.Get("Content-Type") != "" {
					t.Errorf("304 with body %q and Content-Type %q", r.body, r.Header.Get("Content-Type"))
				}
			}
			if got, want := r.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(before-charge); got != want {
				t.Errorf("X-RateLimit-Remaining %s, want %s", got, want)
			}
			if got := s.RateLimitRemaining(); got != before-charge {
				t.Errorf("remaining %d afterwards, want %d", got, before-charge)
			}
		})
	}
	if got, want := s.NotModified(), 5; got != want {
		t.Errorf("NotModified() = %d, want %d", got, want)
	}
	if got, want := s.RateLimitRemaining(), budget-2; got != want {
		t.Errorf("remaining %d after the cases, want %d (only the two 200s charged)", got, want)
	}
	var logged, want []int
	for _, l := range s.Requests()[len(s.Requests())-len(cases):] {
		logged = append(logged, l.Status)
	}
	for _, c := range cases {
		want = append(want, c.want)
	}
	if !slices.Equal(logged, want) {
		t.Errorf("logged statuses %v, want %v", logged, want)
	}

	// A new check run on the ref changes the answer and so its tag.
	expectStatus(t, do(t, s, "POST", "repos/acme/bench/check-runs", tok, map[string]any{"name": "bench", "head_sha": sha}), http.StatusCreated)
	changed := doWith(t, s, runs, tok, http.Header{"If-None-Match": {tag}})
	expectStatus(t, changed, http.StatusOK)
	var list struct {
		TotalCount int `json:"total_count"`
	}
	changed.json(t, &list)
	if newTag := changed.Header.Get("ETag"); newTag == "" || newTag == tag || list.TotalCount != 1 {
		t.Errorf("after a new check run: ETag %q (was %q), total_count %d", newTag, tag, list.TotalCount)
	}

	// A 304 of a page carries no Link: a client cannot learn of pages
	// from it, as from GitHub.
	pulls := "repos/acme/bench/pulls?per_page=1"
	page := doWith(t, s, pulls, tok, nil)
	expectStatus(t, page, http.StatusOK)
	if page.Header.Get("Link") == "" {
		t.Fatal("page 1 of 2 without a Link header")
	}
	nm := doWith(t, s, pulls, tok, http.Header{"If-None-Match": {page.Header.Get("ETag")}})
	expectStatus(t, nm, http.StatusNotModified)
	if nm.Header.Get("Link") != "" {
		t.Errorf("304 with Link %q", nm.Header.Get("Link"))
	}

	// Only successful GETs are tagged.
	if r := doWith(t, s, "repos/acme/bench/pulls/99", tok, nil); r.StatusCode != http.StatusNotFound || r.Header.Get("ETag") != "" {
		t.Errorf("missing pull request: status %d, ETag %q", r.StatusCode, r.Header.Get("ETag"))
	}
	if r := do(t, s, "POST", "repos/acme/bench/check-runs", tok, map[string]any{"name": "bench", "head_sha": sha}); r.Header.Get("ETag") != "" {
		t.Errorf("POST answered with ETag %q", r.Header.Get("ETag"))
	}

	// App (JWT) endpoints are conditional too.
	jwt := "Bearer " + signJWT(t, testKey(), goodClaims())
	app := doWith(t, s, "app", jwt, nil)
	expectStatus(t, app, http.StatusOK)
	expectStatus(t, doWith(t, s, "app", jwt, http.Header{"If-None-Match": {app.Header.Get("ETag")}}), http.StatusNotModified)
}

func TestLatency(t *testing.T) {
	s := newServer(t)
	s.AddPR("acme/bench", PR{Number: 1})
	tok := installationToken(t, s)
	const lat = 100 * time.Millisecond
	s.SetLatency(lat, lat)

	start := time.Now()
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil), http.StatusOK)
	if d := time.Since(start); d < lat {
		t.Fatalf("one request took %v, less than the %v latency", d, lat)
	}

	// Served one at a time under the lock, 10 requests would take at
	// least 10 latencies; overlapping, about one.
	const n = 10
	start = time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", s.URL+"repos/acme/bench/pulls/1", nil)
			req.Header.Set("Authorization", tok)
			res, err := s.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Errorf("status %d", res.StatusCode)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d < lat || d >= 5*lat {
		t.Errorf("%d concurrent requests with %v latency took %v, want between one and five latencies", n, lat, d)
	}

	s.SetLatency(0, 0)
	start = time.Now()
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil), http.StatusOK)
	if d := time.Since(start); d >= lat {
		t.Errorf("a request took %v with the latency removed", d)
	}
}

func TestLatencyRange(t *testing.T) {
	s := newServer(t)
	for _, c := range []struct{ min, max time.Duration }{
		{0, 0},
		{5 * time.Millisecond, 5 * time.Millisecond},
		{10 * time.Millisecond, 20 * time.Millisecond},
		{0, time.Millisecond},
	} {
		s.SetLatency(c.min, c.max)
		seen := map[time.Duration]bool{}
		for range 1000 {
			s.mu.Lock()
			d := s.latencyLocked()
			s.mu.Unlock()
			if d < c.min || d > c.max {
				t.Fatalf("SetLatency(%v, %v) drew %v", c.min, c.max, d)
			}
			seen[d] = true
		}
		if c.min != c.max && len(seen) < 2 {
			t.Errorf("SetLatency(%v, %v) always drew the same delay", c.min, c.max)
		}
	}
	for _, c := range []struct{ min, max time.Duration }{{-1, 0}, {2, 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("SetLatency(%v, %v) did not panic", c.min, c.max)
				}
			}()
			s.SetLatency(c.min, c.max)
		}()
	}
}

// TestInstallationPages: both installation listings come in pages, with
// total_count counting every repository.
func TestInstallationPages(t *testing.T) {
	s := newServer(t)
	for _, r := range []string{"acme/b2", "acme/b3"} {
		s.AddRepo(r, "main")
	}
	s.AddInstallation(7, "acme/bench", "acme/b2", "acme/b3")
	s.AddInstallation(8, "acme/b2")
	s.AddInstallation(9, "acme/b3")
	tok := installationToken(t, s)
	jwt := "Bearer " + signJWT(t, testKey(), goodClaims())

	for _, c := range []struct {
		path, auth string
		want       string
		next       bool
	}{
		{"installation/repositories?per_page=2", tok, "[acme/bench acme/b2]", true},
		{"installation/repositories?per_page=2&page=2", tok, "[acme/b3]", false},
		{"installation/repositories", tok, "[acme/bench acme/b2 acme/b3]", false},
		{"app/installations?per_page=2", jwt, "[7 8]", true},
		{"app/installations?per_page=2&page=2", jwt, "[9]", false},
	} {
		r := do(t, s, "GET", c.path, c.auth, nil)
		expectStatus(t, r, http.StatusOK)
		var got []string
		if strings.HasPrefix(c.path, "app/") {
			var list []struct{ ID int64 }
			r.json(t, &list)
			for _, in := range list {
				got = append(got, strconv.FormatInt(in.ID, 10))
			}
		} else {
			var page struct {
				TotalCount   int `json:"total_count"`
				Repositories []struct {
					FullName string `json:"full_name"`
				}
			}
			r.json(t, &page)
			if page.TotalCount != 3 {
				t.Errorf("%s: total_count %d, want 3", c.path, page.TotalCount)
			}
			for _, p := range page.Repositories {
				got = append(got, p.FullName)
			}
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s: %v, want %s", c.path, got, c.want)
		}
		if next := strings.Contains(r.Header.Get("Link"), `rel="next"`); next != c.next {
			t.Errorf("%s: Link %q, want a next page %v", c.path, r.Header.Get("Link"), c.next)
		}
	}
}

// TestGitHubAsItIs: a secondary limit that names no time, a revoked
// token, tags that differ by token, and private mode, each as GitHub
// answers it.
func TestGitHubAsItIs(t *testing.T) {
	s := newServer(t)
	s.AddPR("acme/bench", PR{Number: 1})
	tok := installationToken(t, s)

	s.Inject(func(r *http.Request, n int) *Fault {
		s.Inject(nil)
		return &Fault{Status: http.StatusForbidden, Secondary: true}
	})
	r := do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil)
	expectStatus(t, r, http.StatusForbidden)
	var e struct {
		Message string
		Doc     string `json:"documentation_url"`
	}
	r.json(t, &e)
	if r.Header.Get("Retry-After") != "" || r.Header.Get("X-RateLimit-Remaining") == "0" || !strings.HasPrefix(e.Message, "You have exceeded a secondary rate limit") || !strings.HasSuffix(e.Doc, "secondary-rate-limits") {
		t.Errorf("secondary without a time: %v %+v", r.Header, e)
	}

	first := do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil)
	expectStatus(t, first, http.StatusOK)
	if v := first.Header.Get("Vary"); !strings.Contains(v, "Authorization") {
		t.Errorf("Vary %q", v)
	}
	tag := first.Header.Get("ETag")
	expectStatus(t, doWith(t, s, "repos/acme/bench/pulls/1", tok, http.Header{"If-None-Match": {tag}}), http.StatusNotModified)

	s.RevokeTokens()
	expectStatus(t, do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil), http.StatusUnauthorized)
	other := installationToken(t, s)
	r = doWith(t, s, "repos/acme/bench/pulls/1", other, http.Header{"If-None-Match": {tag}})
	expectStatus(t, r, http.StatusOK)
	if r.Header.Get("ETag") == tag || !bytes.Equal(r.body, first.body) {
		t.Errorf("another token, same answer: tag %s (the first token's %s)", r.Header.Get("ETag"), tag)
	}

	s.mu.Lock() // set before the first request, outside this test
	s.PrivateMode = true
	s.mu.Unlock()
	expectStatus(t, do(t, s, "GET", "users/octocat", "", nil), http.StatusUnauthorized)
	expectStatus(t, do(t, s, "GET", "users/octocat", other, nil), http.StatusOK)
}
