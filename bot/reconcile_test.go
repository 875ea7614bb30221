package bot

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot/queue"
)

type fakeLister struct{ done map[string]bool }

func (fakeLister) Installations(ctx context.Context) ([]int64, error) { return []int64{1, 2}, nil }
func (fakeLister) Repositories(ctx context.Context, inst int64) ([]string, error) {
	return map[int64][]string{1: {"geo/a"}, 2: {"geo/b"}}[inst], nil
}
func (fakeLister) OpenPulls(ctx context.Context, inst int64, repo string) ([]OpenPull, error) {
	return []OpenPull{{Number: 1, HeadSHA: repo + "-h1", BaseRef: "main"}, {Number: 2, HeadSHA: repo + "-h2", BaseRef: "main"}}, nil
}
func (l fakeLister) HasCompletedCheck(ctx context.Context, inst int64, repo, head, name string) (bool, error) {
	return l.done[head], nil
}

// TestReconcile runs over the real queue, as serve does: it queues the
// pull requests without a completed check on their head or without a
// verdict for their head on their base (geo/b's #1, whose head's check
// another pull request may have completed; geo/b's #2, last verified on
// another base), queues nothing twice while those jobs wait, and queues
// them again once their jobs ended without a check (here cancelled; a
// job that failed for good is the same), however soon.
func TestReconcile(t *testing.T) {
	qq, err := queue.Open(t.Context(), "sqlite::memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer qq.Close()
	q := QueueAdapter{Q: qq}
	l := fakeLister{done: map[string]bool{"geo/a-h2": true, "geo/b-h1": true, "geo/b-h2": true}}
	for _, v := range []queue.Verdict{
		{Repo: "geo/a", PR: 2, HeadSHA: "geo/a-h2", BaseSHA: "b", BaseRef: "main", Conclusion: "success", Complete: true},
		{Repo: "geo/b", PR: 2, HeadSHA: "geo/b-h2", BaseSHA: "b", BaseRef: "stale", Conclusion: "success", Complete: true},
	} {
		if err := qq.RecordVerdict(t.Context(), v); err != nil {
			t.Fatal(err)
		}
	}
	n, err := Reconcile(t.Context(), l, q, quietLog())
	if err != nil || n != 3 {
		t.Fatalf("queued %d, %v; want the 3 pull requests without a completed check or a verdict for their head and base", n, err)
	}
	if n, err := Reconcile(t.Context(), l, q, quietLog()); err != nil || n != 0 {
		t.Errorf("second reconcile queued %d (%v); the jobs still wait", n, err)
	}
	for _, pr := range []struct {
		repo string
		n    int
	}{{"geo/a", 1}, {"geo/b", 1}, {"geo/b", 2}} {
		if _, err := qq.SupersedeVerify(t.Context(), pr.repo, pr.n, "none", time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := Reconcile(t.Context(), l, q, quietLog()); err != nil || n != 3 {
		t.Errorf("reconcile after the jobs ended without a check queued %d (%v), want 3", n, err)
	}
}

// countingLister counts its listings of open pull requests.
type countingLister struct {
	fakeLister
	pulls atomic.Int32
}

func (l *countingLister) OpenPulls(ctx context.Context, inst int64, repo string) ([]OpenPull, error) {
	l.pulls.Add(1)
	return l.fakeLister.OpenPulls(ctx, inst, repo)
}

// TestReconcileLeaderOnly: ReconcileEvery lists GitHub only while it
// leads, and at once when it becomes the leader.
func TestReconcileLeaderOnly(t *testing.T) {
	defer func(d time.Duration) { reconcileCheck = d }(reconcileCheck)
	reconcileCheck = 20 * time.Millisecond
	var leading atomic.Bool
	l := &countingLister{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ReconcileEvery(ctx, time.Hour, leading.Load, l, &memQueue{}, quietLog())
	}()
	time.Sleep(10 * reconcileCheck)
	if n := l.pulls.Load(); n != 0 {
		t.Errorf("a replica that does not lead listed pull requests %d times", n)
	}
	leading.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for l.pulls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := l.pulls.Load(); n != 2 { // one per repository
		t.Errorf("on becoming the leader: %d listings, want 2", n)
	}
	cancel()
	<-done
}
