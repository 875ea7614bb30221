package main

import (
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
)

// TestServeEndToEnd runs the App against a fake GitHub: a signed
// pull_request delivery ends in one check run and one comment.
func TestServeEndToEnd(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("a", 40)
	a.pr(3, head, a.scores)
	a.deliver("pull_request", "delivery-1", prEvent("opened", 3, head))
	a.waitFor("the check run and the comment", func() bool {
		return len(a.gh.CheckRuns("geo/board")) > 0 && len(a.gh.Comments("geo/board", 3)) > 0
	})
	runs := a.gh.CheckRuns("geo/board")
	if len(runs) != 1 || runs[0].Name != prcheck.CheckName || runs[0].Conclusion != "success" || runs[0].HeadSHA != head {
		t.Fatalf("check runs: %+v", runs)
	}
	if cs := a.gh.Comments("geo/board", 3); len(cs) != 1 || !strings.Contains(cs[0].Body, prcheck.StickyMarker) {
		t.Errorf("comments: %+v", cs)
	}
}

// TestServeReconcilesMissedDeliveries: an open pull request whose
// delivery never arrived is found and verified at start-up.
func TestServeReconcilesMissedDeliveries(t *testing.T) {
	head := strings.Repeat("b", 40)
	a := startAppWith(t, appOptions{reconcile: time.Hour, edit: func(a *app, cfg *bot.Config) {
		a.gh.AddInstallation(7, "geo/board")
		a.pr(4, head, a.scores)
	}})
	a.waitFor("the reconciled check run", func() bool { return len(a.gh.CheckRuns("geo/board")) > 0 })
	a.stop()
	if runs := a.gh.CheckRuns("geo/board"); len(runs) != 1 || runs[0].HeadSHA != head || runs[0].Conclusion != "success" {
		t.Errorf("check runs: %+v", runs)
	}
}
