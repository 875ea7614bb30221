package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/benchgate/benchgate/ranking"
)

// TestLeaderboardTitleAndHistory: the title and introduction come from
// leaderboard.md in the root, --title overrides the title, and in a git
// checkout each entry links to the pull request that added it.
func TestLeaderboardTitleAndHistory(t *testing.T) {
	root := copyBoard(t)
	if err := os.WriteFile(filepath.Join(root, ranking.IntroFile), []byte("# Reservoir models\n\nKept by the example lab.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://github.com/geo/board.git"}})
	wt, _ := repo.Worktree()
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.org", When: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit("Start the board (#3)", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		args  []string
		title string
	}{{nil, "Reservoir models"}, {[]string{"--title", "Given here"}, "Given here"}} {
		out := t.TempDir()
		args := append([]string{"leaderboard", "--root", root, "--out", out, "--cache", ""}, tt.args...)
		if code, stdout, stderr := runCLI(t, args...); code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		read := func(name string) string {
			data, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			return string(data)
		}
		page, board, table := read("index.html"), read("leaderboard.json"), read(ranking.CSVFile)
		if !strings.Contains(page, "<h1>"+tt.title+"</h1>") || !strings.Contains(page, "Kept by the example lab.") {
			t.Errorf("the page does not show the title %q and the introduction", tt.title)
		}
		if !strings.Contains(page, `href="https://github.com/geo/board/pull/3"`) || !strings.Contains(board, `"pull_request": 3`) || !strings.Contains(table, ",3,https://github.com/geo/board/pull/3,,,\r\n") {
			t.Error("the entries do not link to the pull request that added them")
		}
	}
}

// TestLeaderboardExplorer: the explorer's files are written beside the
// page, replaced whole on the next run, and removed by a run with
// --explore=false, so that a page without the explorer is never published
// beside an earlier run's answers.
func TestLeaderboardExplorer(t *testing.T) {
	root := copyBoard(t)
	out := t.TempDir()
	explore := filepath.Join(out, ranking.ExploreDir)
	if code, stdout, stderr := runCLI(t, "leaderboard", "--root", root, "--out", out, "--cache", ""); code != exitOK || !strings.Contains(stdout, "explorer file(s) in") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	stale := filepath.Join(explore, "gone.json")
	if err := os.WriteFile(stale, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "leaderboard", "--root", root, "--out", out, "--cache", ""); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a file of an earlier run is left in %s: %v", explore, err)
	}
	if code, _, stderr := runCLI(t, "leaderboard", "--root", root, "--out", out, "--cache", "", "--explore=false"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(explore); !os.IsNotExist(err) {
		t.Errorf("--explore=false left %s: %v", explore, err)
	}
}
