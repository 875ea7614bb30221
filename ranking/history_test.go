package ranking

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestGitHistory: each submission folder is attributed to the commit that
// brought it onto the branch, with the pull request a merge or squash
// names, and later edits do not move it.
func TestGitHistory(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"git@github.com:geo/board.git"}}); err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	when := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	commit := func(msg string, parents []plumbing.Hash, files ...string) plumbing.Hash {
		t.Helper()
		for _, f := range files {
			p := filepath.Join(dir, "board", f)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(msg), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(filepath.ToSlash(filepath.Join("board", f))); err != nil {
				t.Fatal(err)
			}
		}
		when = when.Add(time.Hour)
		sig := &object.Signature{Name: "t", Email: "t@example.org", When: when}
		h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, Parents: parents, AllowEmptyCommits: true})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	first := commit("Start the board", nil, "rubrics/rubrics.json", "submissions/model-benchmark/a/meta.json")
	squash := commit("Add b (#7)", nil, "submissions/model-benchmark/b/meta.json")
	// A pull request merged with a merge commit: its own commit adds the
	// folder on a side line; the merge brings it onto the branch.
	side := commit("Add c", []plumbing.Hash{squash}, "submissions/harness-benchmark/c/meta.json")
	merge := commit("Merge pull request #9 from geo/c\n\nAdd c", []plumbing.Hash{squash, side})
	commit("Fix a's notes (#10)", []plumbing.Hash{merge}, "submissions/model-benchmark/a/meta.json")

	h, err := GitHistory(filepath.Join(dir, "board"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := History{
		"submissions/model-benchmark/a":   {Commit: first.String(), URL: "https://github.com/geo/board/commit/" + first.String()},
		"submissions/model-benchmark/b":   {Commit: squash.String(), PR: 7, URL: "https://github.com/geo/board/pull/7"},
		"submissions/harness-benchmark/c": {Commit: merge.String(), PR: 9, URL: "https://github.com/geo/board/pull/9"},
	}
	if len(h) != len(want) {
		t.Errorf("history %+v, want %+v", h, want)
	}
	for k, w := range want {
		if h[k] != w {
			t.Errorf("%s: %+v, want %+v", k, h[k], w)
		}
	}
	// A page given explicitly wins over the remote.
	h, _ = GitHistory(filepath.Join(dir, "board"), "https://git.example/geo/board")
	if got := h["submissions/model-benchmark/b"].URL; got != "https://git.example/geo/board/pull/7" {
		t.Errorf("with a page given: %q", got)
	}

	// Outside a repository there is no history, and no error.
	if h, err := GitHistory(t.TempDir(), ""); err != nil || len(h) != 0 {
		t.Errorf("outside a repository: %v, %v", h, err)
	}
}

func TestGitHubPage(t *testing.T) {
	for remote, want := range map[string]string{
		"https://github.com/geo/board.git":              "https://github.com/geo/board",
		"https://github.com/geo/board":                  "https://github.com/geo/board",
		"https://x-access-token@github.com/geo/b.x.git": "https://github.com/geo/b.x",
		"git@github.com:geo/board.git":                  "https://github.com/geo/board",
		"ssh://git@github.com/geo/board.git":            "https://github.com/geo/board",
		"https://gitlab.com/geo/board.git":              "",
		"https://github.com/geo":                        "",
		"file:///tmp/board":                             "",
	} {
		if got := GitHubPage(remote); got != want {
			t.Errorf("GitHubPage(%q) = %q, want %q", remote, got, want)
		}
	}
}
