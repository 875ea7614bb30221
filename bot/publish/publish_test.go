package publish

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/gitserver"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

const (
	token  = "ghs_testtoken0123456789"
	branch = "main"
	repo   = "leaderboard"
)

func setup(t *testing.T) (*gitserver.Server, Config) {
	t.Helper()
	s := gitserver.New(t, token)
	s.CreateRepo(t, repo, map[string][]byte{
		"README.md":             []byte("# Leaderboard\n"),
		"submissions/alpha.txt": []byte("alpha 10\n"),
	}, branch)
	// Every tree any test pushes must pass git fsck.
	t.Cleanup(func() {
		if out := s.Fsck(t, repo); out != "" {
			t.Errorf("git fsck: %s", out)
		}
	})
	return s, Config{
		RepoURL:     s.RepoURL(repo),
		Token:       token,
		Branch:      branch,
		AuthorName:  "benchgate[bot]",
		AuthorEmail: "123+benchgate[bot]@users.noreply.github.com",
		OutDir:      "leaderboard",
	}
}

// rankSubmissions is a stand-in generator: it lists submissions/ in the
// checked-out tree, so its output depends on what the branch holds.
func rankSubmissions(ctx context.Context, tree Tree) (map[string][]byte, error) {
	dir := tree.Dir
	entries, err := fs.ReadDir(os.DirFS(dir), "submissions")
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, e := range entries {
		data, err := fs.ReadFile(os.DirFS(dir), "submissions/"+e.Name())
		if err != nil {
			return nil, err
		}
		b.Write(data)
	}
	return map[string][]byte{"index.md": []byte(b.String()), "data/count.txt": []byte{byte('0' + len(entries))}}, nil
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func TestPublishWritesAndCommitsAsApp(t *testing.T) {
	s, cfg := setup(t)
	hash, err := Publish(ctx(t), cfg, rankSubmissions)
	if err != nil {
		t.Fatal(err)
	}
	files := s.Files(t, repo, branch)
	if got := string(files["leaderboard/index.md"]); got != "alpha 10\n" {
		t.Errorf("leaderboard/index.md = %q", got)
	}
	if got := string(files["leaderboard/data/count.txt"]); got != "1" {
		t.Errorf("leaderboard/data/count.txt = %q", got)
	}
	if string(files["README.md"]) != "# Leaderboard\n" {
		t.Errorf("README.md changed: %q", files["README.md"])
	}
	log := s.Log(t, repo, branch)
	if len(log) != 2 {
		t.Fatalf("log has %d commits, want 2", len(log))
	}
	if log[0].Hash != hash || log[0].AuthorName != cfg.AuthorName || log[0].AuthorEmail != cfg.AuthorEmail || log[0].Message != CommitMessage {
		t.Errorf("head commit = %+v, want %s by %s <%s>", log[0], hash, cfg.AuthorName, cfg.AuthorEmail)
	}
}

func TestPublishUnchangedPushesNothing(t *testing.T) {
	s, cfg := setup(t)
	if _, err := Publish(ctx(t), cfg, rankSubmissions); err != nil {
		t.Fatal(err)
	}
	before := s.Log(t, repo, branch)
	hash, err := Publish(ctx(t), cfg, rankSubmissions)
	if err != nil {
		t.Fatal(err)
	}
	if hash != "" {
		t.Errorf("second Publish returned %q, want \"\"", hash)
	}
	if after := s.Log(t, repo, branch); len(after) != len(before) || after[0].Hash != before[0].Hash {
		t.Errorf("second Publish moved the branch: %+v", after)
	}
}

func TestPublishRemovesStaleOutputs(t *testing.T) {
	s, cfg := setup(t)
	s.Commit(t, repo, branch, map[string][]byte{"leaderboard/old.md": []byte("stale")}, "old output")
	if _, err := Publish(ctx(t), cfg, rankSubmissions); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Files(t, repo, branch)["leaderboard/old.md"]; ok {
		t.Error("leaderboard/old.md survived regeneration")
	}
}

func TestPublishWrongTokenDoesNotLeakIt(t *testing.T) {
	s, cfg := setup(t)
	cfg.Token = "ghs_wrongtoken_must_not_leak"
	called := false
	_, err := Publish(ctx(t), cfg, func(context.Context, Tree) (map[string][]byte, error) {
		called = true
		return nil, nil
	})
	if err == nil {
		t.Fatal("Publish with a wrong token succeeded")
	}
	t.Logf("error: %v", err)
	if strings.Contains(err.Error(), cfg.Token) {
		t.Errorf("error leaks the token: %v", err)
	}
	if !errors.Is(err, transport.ErrAuthenticationRequired) && !errors.Is(err, transport.ErrAuthorizationFailed) {
		t.Errorf("error %v is not an authentication error", err)
	}
	if !strings.Contains(err.Error(), "clone") {
		t.Errorf("error %q does not say which step failed", err)
	}
	if called {
		t.Error("regenerate ran without a checkout")
	}
	if len(s.Log(t, repo, branch)) != 1 {
		t.Error("branch moved")
	}
}

func TestPublishRetriesAfterSideCommit(t *testing.T) {
	s, cfg := setup(t)
	var calls atomic.Int32
	var side string
	var heads []string
	regen := func(ctx context.Context, tree Tree) (map[string][]byte, error) {
		heads = append(heads, tree.Head)
		if tree.Time.IsZero() || time.Since(tree.Time) > time.Hour {
			t.Errorf("the tree's time %v is not its head commit's", tree.Time)
		}
		out, err := rankSubmissions(ctx, tree)
		// Another merge lands between our clone and our push.
		if calls.Add(1) == 1 {
			side = s.Commit(t, repo, branch, map[string][]byte{"submissions/beta.txt": []byte("beta 20\n")}, "Merge beta")
		}
		return out, err
	}
	hash, err := Publish(ctx(t), cfg, regen)
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("regenerate ran %d times, want 2 (one rejected push, one retry)", n)
	}
	if len(heads) != 2 || heads[1] != side || heads[0] == side {
		t.Errorf("regenerated from heads %q; want the first clone's, then the side commit %s", heads, side)
	}
	files := s.Files(t, repo, branch)
	if string(files["submissions/beta.txt"]) != "beta 20\n" {
		t.Error("side commit lost")
	}
	if got := string(files["leaderboard/index.md"]); got != "alpha 10\nbeta 20\n" {
		t.Errorf("leaderboard/index.md = %q, want it regenerated from the tree with beta", got)
	}
	log := s.Log(t, repo, branch)
	if len(log) != 3 || log[0].Hash != hash || log[0].AuthorName != cfg.AuthorName || log[1].Message != "Merge beta" {
		t.Errorf("log = %+v", log)
	}
}

func TestPublishGivesUpAfterMaxAttempts(t *testing.T) {
	s, cfg := setup(t)
	cfg.MaxAttempts = 2
	var calls atomic.Int32
	regen := func(ctx context.Context, tree Tree) (map[string][]byte, error) {
		n := calls.Add(1)
		s.Commit(t, repo, branch, map[string][]byte{"submissions/x.txt": []byte{byte('0' + n)}}, "Merge")
		return rankSubmissions(ctx, tree)
	}
	_, err := Publish(ctx(t), cfg, regen)
	if !errors.Is(err, ErrTooManyAttempts) {
		t.Fatalf("err = %v, want ErrTooManyAttempts", err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("regenerate ran %d times, want 2", n)
	}
}

func TestPublishConcurrent(t *testing.T) {
	s, cfg := setup(t)
	// Each publisher appends its own line to the current leaderboard, so the
	// final file shows whether the later one regenerated from a tree that
	// included the earlier one's push.
	var ready sync.WaitGroup
	ready.Add(2)
	appendLine := func(line string) Regenerate {
		var first sync.Once
		return func(ctx context.Context, tree Tree) (map[string][]byte, error) {
			dir := tree.Dir
			// Hold both publishers until both have cloned, which forces
			// one of the two pushes to be rejected.
			first.Do(func() { ready.Done(); ready.Wait() })
			old, err := os.ReadFile(dir + "/leaderboard/log.txt")
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			return map[string][]byte{"log.txt": append(old, line+"\n"...)}, nil
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, line := range []string{"first", "second"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Publish(ctx(t), cfg, appendLine(line))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := string(s.Files(t, repo, branch)["leaderboard/log.txt"])
	if got != "first\nsecond\n" && got != "second\nfirst\n" {
		t.Errorf("leaderboard/log.txt = %q, want both lines", got)
	}
	if log := s.Log(t, repo, branch); len(log) != 3 {
		t.Errorf("log has %d commits, want 3: %+v", len(log), log)
	}
}

func TestPublishRejectsPathsOutsideOutDir(t *testing.T) {
	s, cfg := setup(t)
	_, err := Publish(ctx(t), cfg, func(context.Context, Tree) (map[string][]byte, error) {
		return map[string][]byte{"../README.md": []byte("pwned")}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "invalid path") {
		t.Fatalf("err = %v, want invalid path", err)
	}
	if string(s.Files(t, repo, branch)["README.md"]) != "# Leaderboard\n" {
		t.Error("README.md overwritten")
	}
}

func TestScrubHidesTokenKeepsSentinel(t *testing.T) {
	err := scrub(errors.Join(transport.ErrAuthorizationFailed, errors.New("https://x-access-token:"+token+"@example.com")), token)
	if strings.Contains(err.Error(), token) {
		t.Errorf("token not scrubbed: %v", err)
	}
	if !errors.Is(err, transport.ErrAuthorizationFailed) {
		t.Error("sentinel lost")
	}
	if errors.Unwrap(err) != nil {
		t.Error("scrubbed error exposes the raw error")
	}
}

// TestPublishReplacesWhatIsAtOutDir: whatever the branch holds at the
// output path (here a symbolic link a merged pull request put there) is
// replaced by the new folder, and every pushed tree passes git fsck.
func TestPublishReplacesWhatIsAtOutDir(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(s *gitserver.Server)
	}{
		{"a symbolic link", func(s *gitserver.Server) {
			s.CommitSymlinks(t, repo, branch, map[string]string{"leaderboard": "submissions"}, "Replace the leaderboard with a link")
		}},
		{"a file", func(s *gitserver.Server) {
			s.Commit(t, repo, branch, map[string][]byte{"leaderboard": []byte("not a folder\n")}, "Replace the leaderboard with a file")
		}},
		{"a folder with other files", func(s *gitserver.Server) {
			s.Commit(t, repo, branch, map[string][]byte{"leaderboard/stale.md": []byte("old\n"), "leaderboard/data/x": []byte("x")}, "Old outputs")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, cfg := setup(t)
			tt.setup(s)
			if _, err := Publish(ctx(t), cfg, rankSubmissions); err != nil {
				t.Fatal(err)
			}
			if out := s.Fsck(t, repo); out != "" {
				t.Fatalf("git fsck: %s", out)
			}
			files := s.Files(t, repo, branch)
			var under []string
			for p := range files {
				if p == "leaderboard" || strings.HasPrefix(p, "leaderboard/") {
					under = append(under, p)
				}
			}
			sort.Strings(under)
			if strings.Join(under, " ") != "leaderboard/data/count.txt leaderboard/index.md" || string(files["leaderboard/index.md"]) != "alpha 10\n" {
				t.Errorf("the output path holds %v", under)
			}
		})
	}
}

// TestPublishHistory: with History the checkout holds the branch's whole
// history, for a Regenerate that reads which commit added what; without
// it, the tip alone.
func TestPublishHistory(t *testing.T) {
	for _, history := range []bool{false, true} {
		s, cfg := setup(t)
		s.Commit(t, repo, branch, map[string][]byte{"submissions/beta.txt": []byte("beta 9\n")}, "Add beta (#2)")
		cfg.History = history
		var commits int
		_, err := Publish(ctx(t), cfg, func(ctx context.Context, tree Tree) (map[string][]byte, error) {
			r, err := git.PlainOpen(tree.Dir)
			if err != nil {
				return nil, err
			}
			log, err := r.Log(&git.LogOptions{})
			if err != nil {
				return nil, err
			}
			commits = 0
			log.ForEach(func(*object.Commit) error { commits++; return nil })
			return rankSubmissions(ctx, tree)
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 1, true: 2}[history]; commits != want {
			t.Errorf("History %v: the checkout has %d commits, want %d", history, commits, want)
		}
	}
}

// TestWrite: Write commits its files where they belong, with the message
// given, touching nothing else (no leaderboard folder is cleared);
// retries on a moved branch; commits nothing when the branch already
// holds the files; and refuses a path through a link the branch holds.
func TestWrite(t *testing.T) {
	s, cfg := setup(t)
	cfg.OutDir = ""
	cfg.Message = "Record a reproduction (benchgate)"
	s.Commit(t, repo, branch, map[string][]byte{"leaderboard/index.md": []byte("kept")}, "board")
	var calls atomic.Int32
	files := func(context.Context, Tree) (map[string][]byte, error) {
		if calls.Add(1) == 1 {
			s.Commit(t, repo, branch, map[string][]byte{"submissions/beta.txt": []byte("beta 20\n")}, "Merge beta")
		}
		return map[string][]byte{"reproductions/model/alpha.json": []byte("{}\n")}, nil
	}
	hash, err := Write(ctx(t), cfg, files)
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("files ran %d times, want 2 (one rejected push, one retry)", n)
	}
	got := s.Files(t, repo, branch)
	for p, want := range map[string]string{"reproductions/model/alpha.json": "{}\n", "leaderboard/index.md": "kept", "submissions/beta.txt": "beta 20\n", "README.md": "# Leaderboard\n"} {
		if string(got[p]) != want {
			t.Errorf("%s = %q, want %q", p, got[p], want)
		}
	}
	log := s.Log(t, repo, branch)
	if log[0].Hash != hash || log[0].Message != cfg.Message || log[0].AuthorName != cfg.AuthorName {
		t.Errorf("head commit = %+v", log[0])
	}
	if hash, err := Write(ctx(t), cfg, files); err != nil || hash != "" {
		t.Errorf("writing the same file again: %q, %v; want no commit", hash, err)
	}
	s.CommitSymlinks(t, repo, branch, map[string]string{"linked": "/tmp"}, "a link")
	_, err = Write(ctx(t), cfg, func(context.Context, Tree) (map[string][]byte, error) {
		return map[string][]byte{"linked/x.json": []byte("{}")}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "linked") {
		t.Errorf("a write through a link: %v", err)
	}
}
