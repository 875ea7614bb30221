package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

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
