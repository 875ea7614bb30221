package gitserver

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRepoRoundTrip(t *testing.T) {
	s := New(t, "secret")
	s.CreateRepo(t, "lb", map[string][]byte{"README.md": []byte("hi\n"), "a/b.txt": []byte("b")}, "main")

	files := s.Files(t, "lb", "main")
	if len(files) != 2 || string(files["README.md"]) != "hi\n" || string(files["a/b.txt"]) != "b" {
		t.Fatalf("Files after CreateRepo = %q", files)
	}

	hash := s.Commit(t, "lb", "main", map[string][]byte{"a/b.txt": nil, "c.txt": []byte("c")}, "Side change\n\nbody")
	files = s.Files(t, "lb", "main")
	if len(files) != 2 || string(files["c.txt"]) != "c" || files["a/b.txt"] != nil {
		t.Fatalf("Files after Commit = %q", files)
	}

	log := s.Log(t, "lb", "main")
	if len(log) != 2 {
		t.Fatalf("Log has %d commits, want 2: %+v", len(log), log)
	}
	if log[0].Hash != hash || log[0].Message != "Side change\n\nbody" || log[0].AuthorName != SideAuthorName || log[0].AuthorEmail != SideAuthorEmail {
		t.Fatalf("newest commit = %+v, want hash %s", log[0], hash)
	}
	if log[1].Message != "Initial commit" {
		t.Fatalf("oldest commit = %+v", log[1])
	}
}

func TestAuth(t *testing.T) {
	s := New(t, "secret")
	s.CreateRepo(t, "lb", map[string][]byte{"f": []byte("x")}, "main")
	url := s.RepoURL("lb") + "/info/refs?service=git-upload-pack"

	for _, tc := range []struct {
		name     string
		password string // empty: no auth header
		want     int
	}{
		{"no auth", "", http.StatusUnauthorized},
		{"wrong token", "nope", http.StatusUnauthorized},
		{"right token", "secret", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.password != "" {
				req.SetBasicAuth("x-access-token", tc.password)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if tc.want == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
			if tc.want == http.StatusOK && !strings.Contains(string(body), "refs/heads/main") {
				t.Fatalf("advertisement lacks refs/heads/main: %q", body)
			}
		})
	}
}

// TestCounts: each clone and each push over HTTP is counted once,
// whatever protocol version git speaks.
func TestCounts(t *testing.T) {
	s := New(t, "secret")
	s.CreateRepo(t, "lb", map[string][]byte{"f": []byte("x")}, "main")
	url := strings.Replace(s.RepoURL("lb"), "http://", "http://x-access-token:secret@", 1)
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, version := range []string{"0", "2"} {
		git(t.TempDir(), "-c", "protocol.version="+version, "clone", "-q", url, "w")
	}
	work := filepath.Join(t.TempDir(), "w")
	git(filepath.Dir(work), "clone", "-q", url, "w")
	os.WriteFile(filepath.Join(work, "g"), []byte("y"), 0o644)
	git(work, "add", "g")
	git(work, "commit", "-q", "-m", "g")
	git(work, "push", "-q", "origin", "HEAD:main")
	if s.Fetches() != 3 || s.Pushes() != 1 {
		t.Errorf("fetches %d, pushes %d; want 3 and 1", s.Fetches(), s.Pushes())
	}
}

// TestFilesWhileBranchMoves: Files reads one commit's tree even while merges
// land, so a path that turns from a file into a folder between two commits
// is never listed from one and read from the other.
func TestFilesWhileBranchMoves(t *testing.T) {
	s := New(t, "secret")
	s.CreateRepo(t, "lb", map[string][]byte{"x": []byte("file")}, "main")
	done := make(chan struct{})
	side := &goroutineTB{TB: t}
	t.Cleanup(func() { <-done }) // before the repository's folder is removed
	go func() {
		defer close(done)
		for i := 0; i < 40; i++ {
			if i%2 == 0 {
				s.Commit(side, "lb", "main", map[string][]byte{"x": nil, "x/y": []byte("folder")}, "To a folder")
			} else {
				s.Commit(side, "lb", "main", map[string][]byte{"x/y": nil, "x": []byte("file")}, "To a file")
			}
		}
	}()
	for reads := 0; ; reads++ {
		select {
		case <-done:
			if side.err != "" {
				t.Fatal(side.err)
			}
			t.Logf("%d consistent reads", reads)
			return
		default:
		}
		files := s.Files(t, "lb", "main")
		_, file := files["x"]
		_, folder := files["x/y"]
		if len(files) != 1 || file == folder {
			t.Fatalf("a tree that no commit has: %q", files)
		}
	}
}

// goroutineTB lets a helper goroutine use the server: a failure is recorded
// for the test goroutine to report instead of failing from the wrong one.
type goroutineTB struct {
	testing.TB
	err string
}

func (g *goroutineTB) Helper() {}

func (g *goroutineTB) Fatalf(format string, args ...any) {
	g.err = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
