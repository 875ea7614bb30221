package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
)

// TestServeRerunReplays: a press of Re-run (on a check run, or on the
// whole suite) sent four more times under new delivery ids verifies once;
// a person's next press verifies again.
func TestServeRerunReplays(t *testing.T) {
	queueDatabases(t, func(t *testing.T, database string) {
		a, _ := identityApp(t, database, nil)
		head := strings.Repeat("a7", 20)
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 86, Author: newcomer, HeadSHA: head, Files: a.submission("submissions/model-benchmark/run-86/", newcomer)})
		a.deliver("pull_request", "rr-open", string(a.gh.PullRequestEvent("geo/board", "opened", 86, nil)))
		a.waitFor("the verification", func() bool { return a.conclusion(head) == "success" })

		// Each verification asked for again posts a check run of its own.
		verifications := func(want int, what string) {
			t.Helper()
			a.waitFor(what, func() bool { return len(a.runs(prcheck.CheckName, head)) >= want })
			time.Sleep(time.Second)
			if n := len(a.runs(prcheck.CheckName, head)); n != want {
				t.Fatalf("%s: %d check runs, want %d", what, n, want)
			}
		}
		// A press, verified, then sent four more times under new delivery
		// ids once its verification is done: a replay may come at any time.
		duplicates := map[string]float64{}
		press := func(event, name, body string, want int) {
			t.Helper()
			a.deliver(event, name, body)
			a.waitFor("the press's verification", func() bool { return len(a.runs(prcheck.CheckName, head)) >= want && a.conclusion(head) == "success" })
			for i := range 4 {
				a.deliver(event, fmt.Sprintf("%s-replayed-%d", name, i), body)
			}
			duplicates[event] += 4
			a.waitFor("the replays to be refused", func() bool {
				return a.metric(fmt.Sprintf(`benchgate_webhook_deliveries_total{event=%q,outcome="duplicate"}`, event)) == duplicates[event]
			})
			verifications(want, name)
		}

		first := a.runs(prcheck.CheckName, head)[0].ID
		press("check_run", "rr-run-1", string(a.gh.CheckRunRerequested("geo/board", first, "maint")), 2)
		second := a.runs(prcheck.CheckName, head)[1].ID
		press("check_run", "rr-run-2", string(a.gh.CheckRunRerequested("geo/board", second, "maint")), 3)
		press("check_suite", "rr-suite-1", string(a.gh.CheckSuiteRerequested("geo/board", head, "maint")), 4)
		press("check_suite", "rr-suite-2", string(a.gh.CheckSuiteRerequested("geo/board", head, "maint")), 5)
	})
}

// TestServeSharedHeadLostAndClosed: one branch proposed to a stale
// branch (a harmless submission there) and then to main (where it
// overwrites someone else's), the second pull request's delivery lost.
// The head's check is complete, from the first, yet reconcile finds the
// second unverified by its own verdict and verifies it: the check shows
// its failure. Once the failing pull request is closed, the head's check
// shows the open one's verdict again, from memory, with nothing verified
// again and no spot-check.
func TestServeSharedHeadLostAndClosed(t *testing.T) {
	queueDatabases(t, func(t *testing.T, database string) {
		a, logs := identityAppReconciling(t, database, 500*time.Millisecond, func(a *app, cfg *bot.Config) { cfg.RerunPolicy = bot.RerunAuto })
		dir := "submissions/model-benchmark/run-87/"
		a.merged(dir, "other-lab")
		head := strings.Repeat("b8", 20)
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 87, Author: newcomer, HeadSHA: head, HeadRef: "two-bases", BaseRef: "stale", Files: a.submission(dir, newcomer)})
		a.deliver("pull_request", "lc-open-87", string(a.gh.PullRequestEvent("geo/board", "opened", 87, nil)))
		a.waitFor("the first verification", func() bool {
			return a.conclusion(head) == "success" && len(a.gh.Comments("geo/board", 87)) == 1
		})

		// #88's opened delivery is lost.
		a.gh.OpenFromBranch("geo/board", 88, 87, "main")
		a.waitFor("reconcile to verify #88", func() bool {
			return a.conclusion(head) == "failure" && len(a.gh.Comments("geo/board", 88)) == 1
		})
		rs := a.runs(prcheck.CheckName, head)
		if last := rs[len(rs)-1]; !strings.HasPrefix(last.Output.Title, "#88: ") {
			t.Errorf("the head's check after reconcile: %q, want #88's verdict", last.Output.Title)
		}
		a.waitFor("#87's comment to name #88", func() bool {
			cs := a.gh.Comments("geo/board", 87)
			return len(cs) == 1 && strings.Contains(cs[0].Body, "#88's, not this pull request's")
		})
		time.Sleep(time.Second) // reconcile passes meanwhile queue nothing more
		spotChecks := strings.Count(logs.String(), `"msg":"spot-check"`)
		answered := strings.Count(logs.String(), "verify answered from the last verdict")
		runs := len(a.gh.CheckRuns("geo/board"))

		closed := string(a.gh.ClosePR("geo/board", 88, false))
		a.deliver("pull_request", "lc-close-88", closed)
		a.waitFor("the head's check to show #87's verdict", func() bool { return a.conclusion(head) == "success" })
		rs = a.runs(prcheck.CheckName, head)
		last := rs[len(rs)-1]
		if !strings.HasPrefix(last.Output.Title, "#87: ") || !strings.Contains(last.Output.Summary, "#88, which had this commit as its head, is closed") || !strings.Contains(last.Output.Summary, "#87 into `stale`") {
			t.Errorf("the head's check once #88 is closed: %q\n%s", last.Output.Title, last.Output.Summary)
		}
		if n := len(a.gh.CheckRuns("geo/board")); n != runs {
			t.Errorf("%d check runs after the close, want %d: the head's run is updated, nothing verified again", n, runs)
		}
		calls := a.callsDuring(2*time.Second, func() {
			for i := range 4 {
				a.deliver("pull_request", fmt.Sprint("lc-close-88-replayed-", i), closed)
			}
		})
		for _, c := range calls {
			// Reconcile passes go on: they list and read checks, and post
			// nothing.
			if strings.HasPrefix(c, "POST ") || strings.HasPrefix(c, "PATCH ") {
				t.Errorf("a replayed close made %s", c)
			}
		}
		if n := strings.Count(logs.String(), `"msg":"spot-check"`); n != spotChecks {
			t.Errorf("%d spot-checks after the close, want %d", n, spotChecks)
		}
		if n := strings.Count(logs.String(), "verify answered from the last verdict"); n != answered {
			t.Errorf("a closed pull request's deliveries led to %d verifications", n-answered)
		}
	})
}
