package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/publish"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/internal/gitserver"
	"github.com/benchgate/benchgate/reproduce"
)

// TestServeReproduce runs /benchgate reproduce through the App, against
// the fake GitHub, a git server holding the leaderboard repository and a
// candidate endpoint that gives the submitted answers again:
//   - asked by the pull request's author, it is refused with a reply and
//     asks the candidate nothing;
//   - asked by a maintainer, it runs: the report is posted as the check
//     run benchgate / reproduce and in the sticky comment, and the
//     record is committed to the default branch by the App;
//   - it counts towards the limits spot-checks count towards: with one
//     check allowed a pull request, a second is refused, with the reason;
//   - once the submission is merged, the board marks its entry
//     "reproduced"; a later push that changes the submission removes
//     the mark.
func TestServeReproduce(t *testing.T) {
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	const (
		dir  = "submissions/model-benchmark/repro-run"
		head = "5eed000000000000000000000000000000000050"
	)
	var git *gitserver.Server
	var cand *fakeopenai.Server
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		git = gitserver.NewWithAuth(t, a.gh.ValidToken)
		cfg.GitURL = git.URL + "/"
		cfg.AuthorName, cfg.AuthorEmail = "board-bot", "board-bot@example.org"
		cand = reproduceEndpoint(t, a.root, fakeopenai.Options{}, func(_ *benchmark.Item, submitted string) string { return submitted })
		cfg.CandidateBaseURL, cfg.CandidateAPIKey = cand.URL, testKey
		cfg.Limits.SpotChecksPerPR = 1
	}})
	git.CreateRepo(t, "geo/board", boardFiles(a.root), "main")
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 50, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: dir + "/meta.json", Status: "added", Content: a.meta},
		{Name: dir + "/scores.json", Status: "added", Content: a.scores},
	}})
	a.deliver("pull_request", "repro-open", prEvent("opened", 50, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })

	// The author may not spend the leaderboard's money.
	a.deliver("issue_comment", "repro-author", commentEvent(50, 901, newcomer, "/benchgate reproduce"))
	a.waitFor("the reply", func() bool { return a.hasComment(50, "only maintainers") })
	if !a.hasComment(50, "`/benchgate reproduce` asks the model the submission names again") {
		t.Errorf("the reply does not name the command: %v", a.gh.Comments("geo/board", 50))
	}
	if n := len(a.runs(prcheck.ReproduceCheckName, head)); n != 0 {
		t.Errorf("%d reproduce check runs after the author asked", n)
	}
	if calls, _ := cand.Stats(); calls != 0 {
		t.Errorf("the author's request made %d candidate calls", calls)
	}

	// A maintainer's runs.
	a.gh.SetPermission("geo/board", "maint", "write")
	a.deliver("issue_comment", "repro-maint", commentEvent(50, 902, "maint", "/benchgate reproduce"))
	a.waitFor("the reproduce check", func() bool { return len(a.runs(prcheck.ReproduceCheckName, head)) == 1 })
	r := a.runs(prcheck.ReproduceCheckName, head)[0]
	if r.Conclusion != "success" || !strings.Contains(r.Output.Summary, "benchgate reproduce: ✅ consistent") {
		t.Fatalf("the reproduction: %s\n%s", r.Conclusion, r.Output.Summary)
	}
	file := "reproductions/model-benchmark/repro-run.json"
	if !strings.Contains(r.Output.Summary, "Recorded in `"+file+"` on `main`") {
		t.Errorf("the report does not say where it was recorded:\n%s", r.Output.Summary)
	}
	if calls, _ := cand.Stats(); calls == 0 {
		t.Error("the candidate was not asked")
	}
	a.waitFor("the sticky comment's section", func() bool { return a.hasComment(50, "benchgate reproduce: ✅ consistent") })

	// The pull request's one check is spent.
	a.deliver("issue_comment", "repro-again", commentEvent(50, 903, "maint", "/benchgate reproduce"))
	a.waitFor("the refusal", func() bool { return a.runs(prcheck.ReproduceCheckName, head)[0].Conclusion == "neutral" })
	if s := a.runs(prcheck.ReproduceCheckName, head)[0].Output.Summary; !strings.Contains(s, "Reproduction not run") || !strings.Contains(s, "1 spot-checks and reproductions") {
		t.Errorf("the refusal says:\n%s", s)
	}

	files := git.Files(t, "geo/board", "main")
	rec, problems := reproduce.ParseRecord(file, files[file])
	if rec == nil {
		t.Fatalf("no record on main: %v", problems)
	}
	if rec.Submission != dir || rec.Verdict != reproduce.Consistent || rec.Checked == 0 || rec.SeedSource != "secret" || rec.Endpoint == "" {
		t.Errorf("record %+v", rec)
	}
	if log := git.Log(t, "geo/board", "main"); log[0].AuthorName != "board-bot" || !strings.Contains(log[0].Message+log[1].Message, "Record the reproduction of "+dir) {
		t.Errorf("the record's commit: %+v", log[:2])
	}

	// Merged: the board marks the entry.
	merged := git.Commit(t, "geo/board", "main", map[string][]byte{dir + "/meta.json": a.meta, dir + "/scores.json": a.scores}, "Merge #50")
	a.deliver("push", "repro-merge", pushEvent(merged, dir+"/meta.json"))
	a.waitFor("the mark", func() bool { m, _ := entryMark(t, git, dir); return m != nil })
	if m, _ := entryMark(t, git, dir); m["status"] != "reproduced" || m["checked"] != float64(rec.Checked) || m["date"] != rec.Date {
		t.Errorf("the entry's mark %v, want reproduced with the record's n and date", m)
	}

	// A later push that changes the submission loses it.
	changed := bytes.Replace(a.meta, []byte(`"temperature": 0.6`), []byte(`"temperature": 0.7`), 1)
	if bytes.Equal(changed, a.meta) {
		t.Fatal("the test's meta.json has no temperature of 0.6 to change")
	}
	edited := git.Commit(t, "geo/board", "main", map[string][]byte{dir + "/meta.json": changed}, "Change the submission")
	a.deliver("push", "repro-edit", pushEvent(edited, dir+"/meta.json"))
	a.waitFor("the board of the changed submission", func() bool {
		log := git.Log(t, "geo/board", "main")
		return log[0].Message == publish.CommitMessage && log[1].Hash == edited
	})
	if m, found := entryMark(t, git, dir); !found || m != nil {
		t.Errorf("the changed submission's entry (on the board: %v) keeps the mark %v", found, m)
	}
}

// pushEvent is a push to main of commit after, which touched file.
func pushEvent(after, file string) string {
	return fmt.Sprintf(`{"ref": "refs/heads/main", "after": %q, "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "commits": [{"modified": [%q]}]}`, after, file)
}

// hasComment reports whether a comment on pull request n says want.
func (a *app) hasComment(n int, want string) bool {
	for _, c := range a.gh.Comments("geo/board", n) {
		if strings.Contains(c.Body, want) {
			return true
		}
	}
	return false
}

// entryMark is the reproduction mark of the entry of submission dir on
// the board published on main, nil when it has none; found reports
// whether the entry is there.
func entryMark(t *testing.T, git *gitserver.Server, dir string) (mark map[string]any, found bool) {
	t.Helper()
	data := git.Files(t, "geo/board", "main")["leaderboard/leaderboard.json"]
	if data == nil {
		return nil, false
	}
	var board struct {
		Benchmarks []struct {
			Entries []struct {
				Path         string         `json:"path"`
				Reproduction map[string]any `json:"reproduction"`
			} `json:"entries"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &board); err != nil {
		t.Fatalf("leaderboard.json: %v", err)
	}
	for _, b := range board.Benchmarks {
		for _, e := range b.Entries {
			if e.Path == dir {
				return e.Reproduction, true
			}
		}
	}
	return nil, false
}
