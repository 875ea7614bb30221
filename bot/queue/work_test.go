package queue

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// TestWorkOutlivesItsJob: work named by a key is queued once, whatever
// delivery ids ask for it, even after River has deleted its finished job.
func TestWorkOutlivesItsJob(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		tg.opts.CompletedRetention = time.Millisecond
		q := open(t, tg)
		rerun := func(delivery string) RerunArgs {
			return RerunArgs{DeliveryID: delivery, Repo: "acme/board", PR: 7, CommentID: 900, Commenter: "maint", WorkKey: "command:acme/board:900"}
		}
		if ok, err := q.EnqueueRerun(t.Context(), rerun("c-1")); err != nil || !ok {
			t.Fatalf("first: inserted=%v err=%v", ok, err)
		}
		var runs atomic.Int32
		if err := q.Start(t.Context(), Handlers{Rerun: func(context.Context, RerunArgs) error { runs.Add(1); return nil }}, 1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the rerun to complete", 10*time.Second, func() bool { return runs.Load() == 1 && count(t, q, KindRerun, "running") == 0 })
		stop(t, q)
		deleteFinished(t, q)
		if n := count(t, q, KindRerun, "completed"); n != 0 {
			t.Fatalf("%d completed rows left, want River's retention to have removed them", n)
		}
		for i := range 4 {
			if ok, err := q.EnqueueRerun(t.Context(), rerun(fmt.Sprint("replay-", i))); err != nil || ok {
				t.Fatalf("replay %d: inserted=%v err=%v, want a duplicate", i, ok, err)
			}
		}
		if ok, err := q.RememberedWork(t.Context(), "command:acme/board:900"); err != nil || !ok {
			t.Fatalf("remembered: %v %v", ok, err)
		}
		// Another comment is other work.
		other := rerun("c-2")
		other.CommentID, other.WorkKey = 901, "command:acme/board:901"
		if ok, err := q.EnqueueRerun(t.Context(), other); err != nil || !ok {
			t.Fatalf("another comment: inserted=%v err=%v", ok, err)
		}
	})
}

// deleteFinished removes finished jobs as River's cleaner does after
// CompletedRetention, without waiting for its schedule.
func deleteFinished(t *testing.T, q *Queue) {
	t.Helper()
	switch b := q.b.(type) {
	case *sqliteBackend:
		if _, err := b.db.ExecContext(t.Context(), `DELETE FROM river_job WHERE finalized_at IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
	case *pgBackend:
		if _, err := b.pool.Exec(t.Context(), `DELETE FROM `+b.jobs+` WHERE finalized_at IS NOT NULL`); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRerequestSupersedesRetry: a verification waiting out its retry's
// back-off holds the head's unique key; a request to verify again cancels
// it and is queued, while a plain event for that head is still a
// duplicate of it.
func TestRerequestSupersedesRetry(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		tg.opts.RetryPolicy = slowRetry{}
		q := open(t, tg)
		mustEnqueue(t, q, verify("opened", "aaa"), true)
		other := verify("other-pr", "ccc")
		other.PR = 8
		mustEnqueue(t, q, other, true)
		var runs atomic.Int32
		err := q.Start(t.Context(), Handlers{Verify: func(_ context.Context, a VerifyArgs) error {
			if !a.Rerequested {
				runs.Add(1)
				return errors.New("GitHub is down")
			}
			return nil
		}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the first attempts to fail", 10*time.Second, func() bool { return count(t, q, KindVerify, "retryable") == 2 })
		mustEnqueue(t, q, verify("synchronize", "aaa"), false)
		// The Re-run button names the head.
		again := verify("rerun-button", "aaa")
		again.Rerequested = true
		mustEnqueue(t, q, again, true)
		// A /benchgate verify comment names the pull request only.
		comment := VerifyArgs{DeliveryID: "verify-comment", Repo: "acme/board", PR: 8, CommentID: 77, Rerequested: true, InstallationID: 42}
		mustEnqueue(t, q, comment, true)
		waitFor(t, "the new requests to run", 10*time.Second, func() bool { return count(t, q, KindVerify, "completed") == 2 })
		stop(t, q)
		if n := count(t, q, KindVerify, "cancelled"); n != 2 || runs.Load() != 2 {
			t.Errorf("%d cancelled after %d failed attempts, want both waiting retries cancelled", n, runs.Load())
		}
	})
}

type slowRetry struct{}

func (slowRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(time.Hour) }

// TestVerdicts: a pull request's last verdict replaces the one before;
// the verdicts on a head are those of every pull request last verified
// there.
func TestVerdicts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		ctx := t.Context()
		if _, ok, err := q.LastVerdict(ctx, "acme/board", 1); err != nil || ok {
			t.Fatalf("before any: %v %v", ok, err)
		}
		at := time.Unix(1_800_000_000, 0)
		for _, v := range []Verdict{
			{Repo: "acme/board", PR: 1, HeadSHA: "h0", BaseSHA: "b1", Conclusion: "success", Title: "old", At: at},
			{Repo: "acme/board", PR: 1, HeadSHA: "h1", BaseSHA: "b1", BaseRef: "stale", Conclusion: "success", Title: "ok", At: at, Complete: true},
			{Repo: "acme/board", PR: 2, HeadSHA: "h1", BaseSHA: "b2", Conclusion: "failure", Title: "overwrites", At: at},
			{Repo: "acme/other", PR: 3, HeadSHA: "h1", BaseSHA: "b3", Conclusion: "failure", Title: "elsewhere", At: at},
		} {
			if err := q.RecordVerdict(ctx, v); err != nil {
				t.Fatal(err)
			}
		}
		v, ok, err := q.LastVerdict(ctx, "acme/board", 1)
		if err != nil || !ok || v.HeadSHA != "h1" || v.Title != "ok" || v.BaseRef != "stale" || !v.Complete || !v.At.Equal(at) {
			t.Fatalf("last verdict of #1: %+v %v %v", v, ok, err)
		}
		on, err := q.VerdictsOnHead(ctx, "acme/board", "h1")
		if err != nil || len(on) != 2 || on[0].PR != 1 || on[1].PR != 2 || on[1].Conclusion != "failure" || on[1].Complete {
			t.Fatalf("verdicts on h1: %+v %v", on, err)
		}
		if err := q.RecordVerdict(ctx, Verdict{Repo: "acme/board"}); err == nil {
			t.Error("a verdict without a pull request was recorded")
		}
	})
}

// TestWorkForgottenAfterRetention: the memory of work and verdicts is
// pruned once older than WorkRetention, as delivery ids are.
func TestWorkForgottenAfterRetention(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		tg.opts.WorkRetention = time.Second
		q := open(t, tg)
		ctx := t.Context()
		a := verify("d1", "aaa")
		a.WorkKey = "verify:acme/board#7@aaa..b1"
		mustEnqueue(t, q, a, true)
		if err := q.RecordVerdict(ctx, Verdict{Repo: "acme/board", PR: 7, HeadSHA: "aaa", BaseSHA: "b1", Conclusion: "success", Complete: true}); err != nil {
			t.Fatal(err)
		}
		if err := q.b.prune(ctx, time.Hour, time.Hour); err != nil {
			t.Fatal(err)
		}
		if ok, _ := q.RememberedWork(ctx, a.WorkKey); !ok {
			t.Fatal("work forgotten before its retention")
		}
		time.Sleep(2100 * time.Millisecond)
		if err := q.b.prune(ctx, time.Hour, time.Hour); err != nil {
			t.Fatal(err)
		}
		if ok, err := q.RememberedWork(ctx, a.WorkKey); err != nil || ok {
			t.Errorf("work remembered past its retention: %v %v", ok, err)
		}
		if _, ok, err := q.LastVerdict(ctx, "acme/board", 7); err != nil || ok {
			t.Errorf("verdict remembered past its retention: %v %v", ok, err)
		}
	})
}
