package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/acceptance"
	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/gitserver"
	"github.com/benchgate/benchgate/internal/mdtext"
)

// TestServeAccept runs /benchgate accept through the App, against the
// fake GitHub and a git server holding the leaderboard repository:
//   - asked by the pull request's author, it is refused with a reply and
//     records nothing;
//   - asked by a maintainer without a reason, it says one is needed;
//   - asked by a maintainer with one, the decision is committed to the
//     default branch under acceptances/, bound to the submission's digest
//     at the head, and the head's verify check turns to success, accepted
//     after review, the reason shown escaped;
//   - the same comment delivered again does nothing; the same reason in
//     another comment commits nothing; another reason replaces the record,
//     also once the record is on the pull request's base;
//   - a pull request that passes, and one that is not a submission, are
//     answered with why; a pull request that only adds a record is
//     neutral;
//   - a pull request of the same version, verified once the record is on
//     its base, is accepted by the record; one of another version is not;
//   - once merged, the board ranks the entry with the decision.
func TestServeAccept(t *testing.T) {
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	const (
		dir    = "submissions/model-benchmark/truncated-run"
		file   = "acceptances/model-benchmark/truncated-run.json"
		head   = "acce000000000000000000000000000000000060"
		reason = "the source stored responses cut at 500 characters [FormationEval] and read letters from the whole ones"
	)
	var git *gitserver.Server
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		git = gitserver.NewWithAuth(t, a.gh.ValidToken)
		cfg.GitURL = git.URL + "/"
		cfg.AuthorName, cfg.AuthorEmail = "board-bot", "board-bot@example.org"
	}})
	git.CreateRepo(t, "geo/board", boardFiles(a.root), "main")
	scores := reviewScores(t, a.scores)
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 60, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: dir + "/meta.json", Status: "added", Content: a.meta},
		{Name: dir + "/scores.json", Status: "added", Content: scores},
	}})
	a.deliver("pull_request", "accept-open", prEvent("opened", 60, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	verifyRun := func() fakegithub.CheckRun { return a.runs(prcheck.CheckName, head)[0] }
	if r := verifyRun(); r.Conclusion != "action_required" {
		t.Fatalf("the submission is not in review: %s %s", r.Conclusion, r.Output.Title)
	}

	// The author may not accept their own submission.
	a.deliver("issue_comment", "accept-author", commentEvent(60, 1001, newcomer, "/benchgate accept "+reason))
	a.waitFor("the refusal", func() bool { return a.hasComment(60, "only maintainers") })
	if !a.hasComment(60, "`/benchgate accept` records the decision to rank a submission that verification sent to review") {
		t.Errorf("the reply does not say what the command does: %v", a.gh.Comments("geo/board", 60))
	}

	// A maintainer's command needs a reason.
	a.gh.SetPermission("geo/board", "maint", "write")
	a.deliver("issue_comment", "accept-bare", commentEvent(60, 1002, "maint", "/benchgate accept"))
	a.waitFor("the answer", func() bool { return a.hasComment(60, "a reason is required") })
	if !a.hasComment(60, "`/benchgate accept <reason>`") {
		t.Errorf("the answer does not say how to give the reason: %v", a.gh.Comments("geo/board", 60))
	}
	if f := git.Files(t, "geo/board", "main")[file]; f != nil || verifyRun().Conclusion != "action_required" {
		t.Fatalf("refused commands recorded %s, check %s", f, verifyRun().Conclusion)
	}

	// A maintainer's decision.
	a.deliver("issue_comment", "accept-maint", commentEvent(60, 1003, "maint", "Read all three.\n/benchgate accept "+reason))
	a.waitFor("the accepted check", func() bool { return verifyRun().Conclusion == "success" })
	r := verifyRun()
	if r.Output.Title != prcheck.AcceptedTitle || !strings.Contains(r.Output.Summary, "**accepted after review:** "+mdtext.Escape(reason)) ||
		!strings.Contains(r.Output.Summary, "3 answers could not be verified; accepted by @maint") || !strings.Contains(r.Output.Summary, "Recorded in `"+file+"` on `main`") {
		t.Errorf("the accepted check: %s\n%s", r.Output.Title, r.Output.Summary)
	}
	if mdtext.Escape(reason) == reason {
		t.Fatal("the test's reason has nothing to escape")
	}
	a.waitFor("the sticky comment", func() bool { return a.hasComment(60, "benchgate: "+prcheck.AcceptedTitle) })
	record := func() *acceptance.Record {
		t.Helper()
		rec, problems := acceptance.ParseRecord(file, git.Files(t, "geo/board", "main")[file])
		if rec == nil {
			t.Fatalf("no record on main: %v", problems)
		}
		return rec
	}
	if rec := record(); rec.Submission != dir || rec.Reason != reason || rec.AcceptedBy != "maint" || rec.Unverifiable != 3 || rec.Digest == "" {
		t.Errorf("record %+v", rec)
	}
	log := git.Log(t, "geo/board", "main")
	if log[0].AuthorName != "board-bot" || !strings.Contains(log[0].Message, "Record the acceptance of "+dir) {
		t.Errorf("the record's commit: %+v", log[0])
	}

	// Replayed, the comment does nothing; the same reason again commits
	// nothing; another replaces the record.
	runsBefore := len(a.gh.CheckRuns("geo/board"))
	a.deliver("issue_comment", "accept-replay", commentEvent(60, 1003, "maint", "Read all three.\n/benchgate accept "+reason))
	a.waitFor("the replay taken for a duplicate", func() bool {
		return a.metric(`benchgate_webhook_deliveries_total{event="issue_comment",outcome="duplicate"}`) == 1
	})
	a.deliver("issue_comment", "accept-same", commentEvent(60, 1004, "maint", "/benchgate accept "+reason))
	a.waitFor("the same decision's check", func() bool {
		return strings.Contains(verifyRun().Output.Summary, "`"+file+"` on `main` already holds this decision.")
	})
	if n := len(git.Log(t, "geo/board", "main")); n != len(log) {
		t.Errorf("the same decision again made %d commits", n-len(log))
	}
	const other = "letters checked by hand against the source's table"
	a.deliver("issue_comment", "accept-other", commentEvent(60, 1005, "maint", "/benchgate accept "+other))
	a.waitFor("the replaced record", func() bool {
		rec, _ := acceptance.ParseRecord(file, git.Files(t, "geo/board", "main")[file])
		return rec != nil && rec.Reason == other
	})
	a.waitFor("the check of the new reason", func() bool { return strings.Contains(verifyRun().Output.Summary, other) })
	if n := len(a.gh.CheckRuns("geo/board")); n != runsBefore {
		t.Errorf("%d check runs after the replays, %d before: the check run is posted on, not added", n, runsBefore)
	}
	if n := countComments(a, 60, "only maintainers") + countComments(a, 60, "a reason is required"); n != 2 {
		t.Errorf("%d refusals, want 2", n)
	}

	// A submission that passes needs no decision.
	const passHead = "acce000000000000000000000000000000000061"
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 61, Author: newcomer, HeadSHA: passHead, BaseRef: "main", Files: []fakegithub.File{
		{Name: "submissions/model-benchmark/passing-run/meta.json", Status: "added", Content: a.meta},
		{Name: "submissions/model-benchmark/passing-run/scores.json", Status: "added", Content: a.scores},
	}})
	a.deliver("issue_comment", "accept-pass", commentEvent(61, 1006, "maint", "/benchgate accept "+reason))
	a.waitFor("the answer", func() bool { return a.hasComment(61, "passes verification: it is ranked without a decision") })

	// A pull request adding only a record is no submission: neutral, and
	// nothing to accept.
	const recHead = "acce000000000000000000000000000000000062"
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 62, Author: "maint", HeadSHA: recHead, BaseRef: "main", Files: []fakegithub.File{
		{Name: "acceptances/model-benchmark/other-run.json", Status: "added", Content: []byte(`{"format": "benchgate acceptance 1"}`)},
	}})
	a.deliver("pull_request", "accept-records", prEvent("opened", 62, recHead))
	a.waitFor("its check", func() bool { return len(a.runs(prcheck.CheckName, recHead)) == 1 })
	if r := a.runs(prcheck.CheckName, recHead)[0]; r.Conclusion != "neutral" || r.Output.Title != "Not a submission" {
		t.Errorf("a pull request of a record: %s %q", r.Conclusion, r.Output.Title)
	}
	a.deliver("issue_comment", "accept-records-cmd", commentEvent(62, 1007, "maint", "/benchgate accept "+reason))
	a.waitFor("the answer", func() bool {
		return a.hasComment(62, "this pull request is not a submission verification sent to review (Not a submission), so there is nothing to accept.")
	})

	// The record on the base accepts the version it names whenever it is
	// verified, and no other.
	a.gh.SetFile("geo/board", "main", file, git.Files(t, "geo/board", "main")[file])
	const sameHead, changedHead = "acce000000000000000000000000000000000063", "acce000000000000000000000000000000000064"
	changed := bytes.Replace(a.meta, []byte(`"temperature": 0.6`), []byte(`"temperature": 0.7`), 1)
	if bytes.Equal(changed, a.meta) {
		t.Fatal("the test's meta.json has no temperature of 0.6 to change")
	}
	for n, pr := range map[int]struct {
		head string
		meta []byte
		want string
	}{63: {sameHead, a.meta, "success"}, 64: {changedHead, changed, "action_required"}} {
		a.gh.AddPR("geo/board", fakegithub.PR{Number: n, Author: newcomer, HeadSHA: pr.head, BaseRef: "main", Files: []fakegithub.File{
			{Name: dir + "/meta.json", Status: "added", Content: pr.meta},
			{Name: dir + "/scores.json", Status: "added", Content: scores},
		}})
		a.deliver("pull_request", "accept-version-"+pr.head, prEvent("opened", n, pr.head))
		a.waitFor("its check", func() bool { return len(a.runs(prcheck.CheckName, pr.head)) == 1 })
		if r := a.runs(prcheck.CheckName, pr.head)[0]; r.Conclusion != pr.want {
			t.Errorf("pull request %d verified with the record on its base: %s %q, want %s", n, r.Conclusion, r.Output.Title, pr.want)
		}
	}

	// With the record on its base, a new reason still replaces it.
	const third = "three letters read from the source's own table"
	a.deliver("issue_comment", "accept-third", commentEvent(60, 1008, "maint", "/benchgate accept "+third))
	a.waitFor("the check of the third reason", func() bool { return strings.Contains(verifyRun().Output.Summary, third) })
	if s := verifyRun().Output.Summary; strings.Contains(s, other) || verifyRun().Conclusion != "success" {
		t.Errorf("the check of the third reason: %s\n%s", verifyRun().Conclusion, s)
	}

	// Merged: the board ranks the entry, accepted.
	merged := git.Commit(t, "geo/board", "main", map[string][]byte{dir + "/meta.json": a.meta, dir + "/scores.json": scores}, "Merge #60")
	a.deliver("push", "accept-merge", pushEvent(merged, dir+"/meta.json"))
	a.waitFor("the accepted entry", func() bool { return entryAcceptance(t, git, dir) != nil })
	if acc := entryAcceptance(t, git, dir); acc["reason"] != third || acc["unverifiable"] != float64(3) || acc["accepted_by"] != "maint" {
		t.Errorf("the entry's acceptance %v", acc)
	}
}

// countComments counts the comments on pull request n that say want.
func countComments(a *app, n int, want string) int {
	count := 0
	for _, c := range a.gh.Comments("geo/board", n) {
		if strings.Contains(c.Body, want) {
			count++
		}
	}
	return count
}

// entryAcceptance is the acceptance of the entry of submission dir on the
// board published on main, nil when it has none or is not there.
func entryAcceptance(t *testing.T, git *gitserver.Server, dir string) map[string]any {
	t.Helper()
	data := git.Files(t, "geo/board", "main")["leaderboard/leaderboard.json"]
	if data == nil {
		return nil
	}
	var board struct {
		Benchmarks []struct {
			Entries []struct {
				Path       string         `json:"path"`
				Acceptance map[string]any `json:"acceptance"`
			} `json:"entries"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &board); err != nil {
		t.Fatalf("leaderboard.json: %v", err)
	}
	for _, b := range board.Benchmarks {
		for _, e := range b.Entries {
			if e.Path == dir {
				return e.Acceptance
			}
		}
	}
	return nil
}
