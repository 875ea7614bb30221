package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/queue"
	"github.com/benchgate/benchgate/internal/fakegithub"
)

// TestServeDayBudgetTooSmallForOneCall: with less of the day's judge
// budget left than one call's worst case, a maintainer's /benchgate rerun
// is refused as the spent day it is, naming when the budget resets,
// instead of running as an inconclusive check of no calls; and the
// refused check counts towards none of the pull request's limits.
func TestServeDayBudgetTooSmallForOneCall(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "q.db")
	head := strings.Repeat("b", 40)
	var calls func() int
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		judge := fakeEndpoint(t, a.root)
		calls = func() int { return len(judge.Requests()) }
		meta := exampleMeta(t, a.root, "submissions/model-benchmark/qwen3-32b-basin")
		scores, err := os.ReadFile(filepath.Join(a.root, "submissions/model-benchmark/qwen3-32b-basin/scores.json"))
		if err != nil {
			t.Fatal(err)
		}
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 31, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
			{Name: "submissions/model-benchmark/late-run/meta.json", Status: "added", Content: meta},
			{Name: "submissions/model-benchmark/late-run/scores.json", Status: "added", Content: scores},
		}})
		a.gh.SetPermission("geo/board", "maint", "admin")
		cfg.JudgeBaseURL, cfg.JudgeAPIKey = judge.URL, testKey
		in, out := 3.0, 15.0 // USD per million tokens
		cfg.JudgePriceInput, cfg.JudgePriceOutput = &in, &out
		cfg.DatabaseURL = db
		// Earlier spot-checks today left a hundredth of a cent.
		q, err := queue.Open(t.Context(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		now := time.Now()
		if _, _, err := q.Admit(t.Context(), now, queue.SpotCheck{Key: "earlier", Repo: "other/board", PR: 1}, cfg.Limits.Decide); err != nil {
			t.Fatal(err)
		}
		if err := q.Settle(t.Context(), "earlier", 60, cfg.Limits.JudgeUSDPerDay-0.0001); err != nil {
			t.Fatal(err)
		}
	}})
	a.deliver("pull_request", "late-1", prEvent("opened", 31, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	a.deliver("issue_comment", "late-2", commentEvent(31, 902, "maint", "/benchgate rerun"))
	a.waitFor("the rerun check", func() bool { return len(a.runs(prcheck.RerunCheckName, head)) == 1 })
	rc := a.runs(prcheck.RerunCheckName, head)[0]
	if rc.Conclusion != "neutral" || !strings.Contains(rc.Output.Summary, "Today's judge budget") || !strings.Contains(rc.Output.Summary, "resets at 00:00 UTC") {
		t.Errorf("rerun check %s: %s\n%s", rc.Conclusion, rc.Output.Title, rc.Output.Summary)
	}
	if n := calls(); n != 0 {
		t.Errorf("%d judge calls on a day with no budget for one", n)
	}
	if n := a.metric(`benchgate_limit_refusals_total{limit="daily_spend"}`); n != 1 {
		t.Errorf("%g daily-spend refusals counted, want 1", n)
	}
	a.stop()
	q, err := queue.Open(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	// The pull request's spot-checks: none counted. Admitting one now
	// sees no earlier admission for it.
	var seen queue.Usage
	if _, _, err := q.Admit(t.Context(), time.Now(), queue.SpotCheck{Key: "probe", Repo: "geo/board", PR: 31, Author: newcomer}, func(u queue.Usage) queue.Grant {
		seen = u
		return queue.Grant{}
	}); err != nil {
		t.Fatal(err)
	}
	if seen.PR != 0 || seen.AuthorDay != 0 || seen.RepoDay != 0 {
		t.Errorf("the refused check was counted: %+v", seen)
	}
}
