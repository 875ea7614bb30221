package main

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/internal/fakegithub"
)

// TestServeHealsRefusalWhenDrained: a delivery refused because the queue
// is full (503) is verified as soon as the queue has room, long before
// the next reconcile pass (an hour away here), though GitHub never
// delivers it again. The App's two workers are held inside GitHub calls
// for pull requests 1 and 2, pull request 3 waits, filling the queue's
// bound of 1, and the delivery for pull request 4 is refused.
func TestServeHealsRefusalWhenDrained(t *testing.T) {
	release := make(chan struct{})
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	defer open()
	var held atomic.Int32
	a := startAppWith(t, appOptions{reconcile: time.Hour, edit: func(a *app, cfg *bot.Config) {
		cfg.Limits.QueueWaiting = 1
		a.gh.AddInstallation(7, "geo/board")
	}})
	a.waitFor("the start-up reconcile pass", func() bool {
		for _, r := range a.gh.Requests() {
			if r.Method == http.MethodGet && r.Path == "/repos/geo/board/pulls" {
				return true
			}
		}
		return false
	})
	heads := map[int]string{}
	for n := 1; n <= 4; n++ {
		heads[n] = strings.Repeat(string(rune('0'+n)), 40)
		a.pr(n, heads[n], a.scores)
	}
	a.gh.Inject(func(r *http.Request, _ int) *fakegithub.Fault {
		p := r.URL.Path
		if strings.HasPrefix(p, "/repos/geo/board/pulls/1") || strings.HasPrefix(p, "/repos/geo/board/pulls/2") {
			select {
			case <-release:
			default:
				held.Add(1)
				<-release
			}
		}
		return nil
	})
	a.deliver("pull_request", "d1", prEvent("opened", 1, heads[1]))
	a.waitFor("one worker held", func() bool { return held.Load() >= 1 })
	a.deliver("pull_request", "d2", prEvent("opened", 2, heads[2]))
	a.waitFor("both workers held", func() bool { return held.Load() >= 2 })
	a.deliver("pull_request", "d3", prEvent("opened", 3, heads[3]))
	if code := signedRequest(t, a.addr, "pull_request", "d4", prEvent("opened", 4, heads[4]), a.secret); code != http.StatusServiceUnavailable {
		t.Fatalf("the delivery beyond the bound: %d, want 503", code)
	}
	released := time.Now()
	open()
	done := func(head string) bool {
		for _, r := range a.gh.CheckRuns("geo/board") {
			if r.HeadSHA == head && r.Status == "completed" {
				return true
			}
		}
		return false
	}
	a.waitFor("the refused pull request's verification", func() bool { return done(heads[4]) })
	t.Logf("the refused pull request was verified %v after the queue was let drain", time.Since(released).Round(10*time.Millisecond))
	a.waitFor("every verification", func() bool { return done(heads[1]) && done(heads[2]) && done(heads[3]) })
	a.stop()
	per := map[string]int{}
	for _, r := range a.gh.CheckRuns("geo/board") {
		per[r.HeadSHA]++
		if r.Conclusion != "success" {
			t.Errorf("check run %+v, want success", r)
		}
	}
	for n, h := range heads {
		if per[h] != 1 {
			t.Errorf("pull request %d has %d check runs, want 1", n, per[h])
		}
	}
}
