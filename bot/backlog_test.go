package bot

import (
	"context"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot/queue"
)

// TestBacklogHealsWhenDrained: over the real queue with room for one
// waiting job, a refusal makes no pass while the queue is full, one pass
// as soon as it has room, and, when that pass fills the queue again before
// every missed head is queued, another once there is room again.
func TestBacklogHealsWhenDrained(t *testing.T) {
	defer func(d time.Duration) { drainPoll = d }(drainPoll)
	drainPoll = 10 * time.Millisecond
	qq, err := queue.OpenWithOptions(t.Context(), "sqlite::memory:", nil, queue.Options{MaxWaiting: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer qq.Close()
	q := QueueAdapter{Q: qq}
	if _, err := q.Enqueue(t.Context(), Job{Kind: KindVerify, DeliveryID: "d0", Repo: "geo/x", PR: 9, HeadSHA: "x9", InstallationID: 1}); err != nil {
		t.Fatal(err)
	}
	var nilBacklog *Backlog
	nilBacklog.Refused() // a Webhook without a backlog records nothing
	b := &Backlog{}
	l := &countingLister{fakeLister: fakeLister{done: map[string]bool{}}}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.HealWhenDrained(ctx, 1, qq.Waiting, l, q, quietLog())
	}()
	defer func() { cancel(); <-done }()
	b.Refused()
	b.Refused() // refusals before a pass make one pass
	time.Sleep(200 * time.Millisecond)
	if n := l.pulls.Load(); n != 0 {
		t.Fatalf("%d listings while the queue was full", n)
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	// Room: the waiting job ends (here cancelled).
	if _, err := qq.SupersedeVerify(t.Context(), "geo/x", 9, "none", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	waitUntil("a pass once the queue has room", func() bool { return l.pulls.Load() > 0 })
	waitUntil("one missed head queued", func() bool { n, _ := qq.Waiting(t.Context()); return n == 1 })
	// That pass met the bound after one head: the rest waits for room.
	first := l.pulls.Load()
	time.Sleep(200 * time.Millisecond)
	if l.pulls.Load() != first {
		t.Fatalf("passes while the queue was full again: %d listings, then %d", first, l.pulls.Load())
	}
	if _, err := qq.SupersedeVerify(t.Context(), "geo/a", 1, "none", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	waitUntil("another pass once there is room again", func() bool { return l.pulls.Load() > first })
}
