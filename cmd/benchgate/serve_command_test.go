package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
)

// TestServeQuotedCommands: a maintainer's comments that quote, show or
// hide a command (an HTML <blockquote>, a markdown quote, a fence, an HTML
// comment, a character reference) start nothing in the running App; the
// command written on a line of its own then runs once.
func TestServeQuotedCommands(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("c", 40)
	a.pr(14, head, a.scores)
	a.gh.SetPermission("geo/board", "maint", "maintain")
	a.deliver("pull_request", "qc-1", prEvent("opened", 14, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })

	for i, body := range []string{
		"<blockquote>\n\n/benchgate rerun\n\n</blockquote>\n\nThat was the earlier request.",
		"<blockquote>\n\nSomeone asked:\n\n/benchgate rerun",
		"> /benchgate rerun\n\nNot again, please.",
		"Type this:\n```\n/benchgate rerun\n```",
		"<!--\n/benchgate rerun\n-->",
		"&#47;benchgate rerun",
	} {
		a.deliver("issue_comment", fmt.Sprint("qc-quoted-", i), commentEvent(14, int64(700+i), "maint", body))
	}
	a.deliver("issue_comment", "qc-real", commentEvent(14, 720, "maint", "Looks odd.\n/benchgate rerun"))
	a.waitFor("the rerun check", func() bool { return len(a.runs(prcheck.RerunCheckName, head)) == 1 })
	time.Sleep(300 * time.Millisecond)
	if n := len(a.runs(prcheck.RerunCheckName, head)); n != 1 {
		t.Errorf("%d rerun check runs, want 1: a quoted or hidden command ran", n)
	}
	if n := a.metric(`benchgate_jobs{kind="benchgate_rerun",state="completed"}`); n != 1 {
		t.Errorf("%v rerun jobs completed, want 1", n)
	}
}
