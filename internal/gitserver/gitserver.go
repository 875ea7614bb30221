// Package gitserver runs a real git smart-HTTP server for tests.
//
// It serves bare repositories through git's own `git http-backend`, so
// clients under test talk to the same protocol implementation a hosted git
// service uses, including its rejection of non-fast-forward pushes.
package gitserver

import (
	"bytes"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Side-commit identity used by Commit and CreateRepo, distinct from any
// identity a client under test would use so tests can tell them apart.
const (
	SideAuthorName  = "Side Author"
	SideAuthorEmail = "side@example.com"
)

// Server is a git smart-HTTP server backed by a folder of bare repositories.
type Server struct {
	// URL is the server's base URL; repository name is served at
	// URL + "/" + name + ".git".
	URL string
	// Root is the folder holding the bare repositories (name + ".git").
	Root string

	git string
	// fetches and pushes count the fetch (clone) and push sessions
	// served.
	fetches, pushes atomic.Int64
}

// Fetches counts the clones and fetches served.
func (s *Server) Fetches() int { return int(s.fetches.Load()) }

// Pushes counts the pushes served, accepted or not.
func (s *Server) Pushes() int { return int(s.pushes.Load()) }

// Commit describes one commit in a branch's history.
type Commit struct {
	Hash        string
	AuthorName  string
	AuthorEmail string
	Message     string
	Committed   time.Time // the committer's time
}

// New starts a server that accepts only requests whose HTTP basic auth
// password equals token (any username, as GitHub does for
// "x-access-token"). The server is closed when the test ends. The test is
// skipped when git is not installed.
func New(t testing.TB, token string) *Server {
	t.Helper()
	return NewWithAuth(t, func(password string) bool {
		return subtle.ConstantTimeCompare([]byte(password), []byte(token)) == 1
	})
}

// NewWithAuth is New with the password check given: for example the
// installation tokens a fake GitHub issued.
func NewWithAuth(t testing.TB, valid func(password string) bool) *Server {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("gitserver: git executable not found in PATH; skipping test that needs a real git server")
	}
	s := &Server{Root: t.TempDir(), git: git}
	backend := &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Dir:  s.Root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + s.Root,
			"GIT_HTTP_EXPORT_ALL=1",
			// Keep the developer's own git configuration out of the server.
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=" + os.DevNull,
			"HOME=" + s.Root,
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pass, ok := r.BasicAuth()
		if !ok || !valid(pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="gitserver"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		// Each clone, fetch or push begins with one ref advertisement,
		// whatever the protocol version makes of the rest.
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs") {
			switch r.URL.Query().Get("service") {
			case "git-upload-pack":
				s.fetches.Add(1)
			case "git-receive-pack":
				s.pushes.Add(1)
			}
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// RepoURL returns the clone URL of the named repository.
func (s *Server) RepoURL(name string) string {
	return s.URL + "/" + name + ".git"
}

func (s *Server) gitDir(name string) string {
	return filepath.Join(s.Root, name+".git")
}

// run executes git against the named bare repository and returns stdout.
func (s *Server) run(t testing.TB, name string, stdin []byte, extraEnv []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(s.git, append([]string{"--git-dir", s.gitDir(name)}, args...)...)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME="+SideAuthorName,
		"GIT_AUTHOR_EMAIL="+SideAuthorEmail,
		"GIT_COMMITTER_NAME="+SideAuthorName,
		"GIT_COMMITTER_EMAIL="+SideAuthorEmail,
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gitserver: git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// CreateRepo creates a bare repository whose branch holds one commit with
// files (slash-separated path → contents).
func (s *Server) CreateRepo(t testing.TB, name string, files map[string][]byte, branch string) {
	t.Helper()
	cmd := exec.Command(s.git, "init", "--quiet", "--bare", "--initial-branch="+branch, s.gitDir(name))
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gitserver: git init %s: %v\n%s", name, err, out)
	}
	// http-backend refuses pushes from unauthenticated CGI requests (no
	// REMOTE_USER) unless receive-pack is enabled explicitly.
	s.run(t, name, nil, nil, "config", "http.receivepack", "true")
	s.commit(t, name, branch, "", files, nil, "Initial commit")
}

// Commit adds a commit on branch that writes files over the branch's current
// tree (a nil value deletes that path), as another merge would, and returns
// its hash. The ref is moved with a compare-and-swap, exactly like a push.
func (s *Server) Commit(t testing.TB, name, branch string, files map[string][]byte, message string) string {
	t.Helper()
	parent := strings.TrimSpace(s.run(t, name, nil, nil, "rev-parse", "--verify", "refs/heads/"+branch+"^{commit}"))
	return s.commit(t, name, branch, parent, files, nil, message)
}

// CommitSymlinks is Commit for symbolic links: each path becomes a link
// (git mode 120000) to its target, in place of whatever the path held;
// files beneath a path that was a folder are removed.
func (s *Server) CommitSymlinks(t testing.TB, name, branch string, links map[string]string, message string) string {
	t.Helper()
	parent := strings.TrimSpace(s.run(t, name, nil, nil, "rev-parse", "--verify", "refs/heads/"+branch+"^{commit}"))
	files := map[string][]byte{}
	out := s.run(t, name, nil, nil, "ls-tree", "-r", "-z", "--name-only", parent)
	for _, p := range strings.Split(out, "\x00") {
		for l := range links {
			if strings.HasPrefix(p, l+"/") {
				files[p] = nil
			}
		}
	}
	return s.commit(t, name, branch, parent, files, links, message)
}

// Fsck runs git fsck --strict on the repository and returns its complaints
// ("" when there are none).
func (s *Server) Fsck(t testing.TB, name string) string {
	t.Helper()
	cmd := exec.Command(s.git, "--git-dir", s.gitDir(name), "fsck", "--strict", "--no-dangling")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func (s *Server) commit(t testing.TB, name, branch, parent string, files map[string][]byte, links map[string]string, message string) string {
	t.Helper()
	// A private index file lets us build the tree inside the bare repository
	// without a worktree.
	index := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + index}
	if parent != "" {
		s.run(t, name, nil, env, "read-tree", parent)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// --index-info works without a worktree; mode 0 removes an entry.
	var info bytes.Buffer
	for _, p := range paths {
		if files[p] == nil {
			info.WriteString("0 0000000000000000000000000000000000000000\t" + p + "\x00")
			continue
		}
		blob := strings.TrimSpace(s.run(t, name, files[p], nil, "hash-object", "-w", "--stdin"))
		info.WriteString("100644 " + blob + "\t" + p + "\x00")
	}
	for _, p := range sortedKeys(links) {
		blob := strings.TrimSpace(s.run(t, name, []byte(links[p]), nil, "hash-object", "-w", "--stdin"))
		info.WriteString("120000 " + blob + "\t" + p + "\x00")
	}
	s.run(t, name, info.Bytes(), env, "update-index", "-z", "--index-info")
	tree := strings.TrimSpace(s.run(t, name, nil, env, "write-tree"))
	args := []string{"commit-tree", tree, "-m", message}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	hash := strings.TrimSpace(s.run(t, name, nil, nil, args...))
	update := []string{"update-ref", "refs/heads/" + branch, hash}
	if parent != "" {
		update = append(update, parent)
	}
	s.run(t, name, nil, nil, update...)
	return hash
}

// Files returns every file in the tree at branch's tip, all read from one
// commit (slash-separated path → contents).
func (s *Server) Files(t testing.TB, name, branch string) map[string][]byte {
	t.Helper()
	// Resolve the branch once: a push landing between the listing and the
	// reads would otherwise mix two trees (a path that was a file in one is
	// a folder in the next).
	ref := strings.TrimSpace(s.run(t, name, nil, nil, "rev-parse", "--verify", "refs/heads/"+branch+"^{commit}"))
	out := s.run(t, name, nil, nil, "ls-tree", "-r", "-z", "--name-only", ref)
	files := map[string][]byte{}
	for _, p := range strings.Split(out, "\x00") {
		if p == "" {
			continue
		}
		files[p] = []byte(s.run(t, name, nil, nil, "cat-file", "blob", ref+":"+p))
	}
	return files
}

// Log returns the history of branch, newest first.
func (s *Server) Log(t testing.TB, name, branch string) []Commit {
	t.Helper()
	// NUL separates fields and RS separates records because messages may
	// contain newlines.
	out := s.run(t, name, nil, nil, "log", "--format=%H%x00%an%x00%ae%x00%cI%x00%B%x1e", "refs/heads/"+branch)
	var log []Commit
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x00", 5)
		if len(f) != 5 {
			t.Fatalf("gitserver: unexpected log record %q", rec)
		}
		when, err := time.Parse(time.RFC3339, f[3])
		if err != nil {
			t.Fatalf("gitserver: commit time %q: %v", f[3], err)
		}
		log = append(log, Commit{Hash: f[0], AuthorName: f[1], AuthorEmail: f[2], Committed: when, Message: strings.TrimRight(f[4], "\n")})
	}
	return log
}

// HasBranch reports whether the repository has the branch, without
// failing the test when it does not (yet).
func (s *Server) HasBranch(name, branch string) bool {
	cmd := exec.Command(s.git, "--git-dir", s.gitDir(name), "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	return cmd.Run() == nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ReadFolders reads every file under the named folders of root, by
// slash-separated path relative to root: what CreateRepo or Commit take, to
// seed a repository from a folder on disk. A file that cannot be read is
// left out.
func ReadFolders(root string, folders ...string) map[string][]byte {
	files := map[string][]byte{}
	for _, dir := range folders {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				if data, err := os.ReadFile(p); err == nil {
					files[filepath.ToSlash(rel)] = data
				}
			}
			return nil
		})
	}
	return files
}
