package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// openStarted opens tg with opts and starts workers calling verify.
func openStarted(t *testing.T, tg target, opts Options, verify func(context.Context, VerifyArgs) error) *Queue {
	t.Helper()
	q, err := OpenWithOptions(t.Context(), tg.url, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	if err := q.Start(t.Context(), Handlers{Verify: verify}, 2); err != nil {
		t.Fatal(err)
	}
	return q
}

// TestRescueJudgedByOwner: whether a long-running job is taken for hung
// depends on the RescueStuckJobsAfter of the replica running it, never on
// the maintainer's. A live replica's job within its own limit is left
// alone however short the maintainer's limit; one past it is rescued
// however long the maintainer's.
func TestRescueJudgedByOwner(t *testing.T) {
	for _, tt := range []struct {
		name              string
		owner, maintainer time.Duration
		rescued           bool
	}{
		{"within the owner's limit", time.Hour, 300 * time.Millisecond, false},
		{"past the owner's limit", 300 * time.Millisecond, time.Hour, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, tg target) {
				release := make(chan struct{})
				var runs atomic.Int32
				hang := func(ctx context.Context, a VerifyArgs) error {
					if runs.Add(1) == 1 {
						<-release
					}
					return nil
				}
				defer close(release)
				ownerOpts := tg.opts
				ownerOpts.JobTimeout, ownerOpts.RescueStuckJobsAfter = -1, tt.owner
				owner := openStarted(t, tg, ownerOpts, hang)
				mustEnqueue(t, owner, verify("d1", "aaa"), true)
				waitFor(t, "the job to start", 10*time.Second, func() bool { return runs.Load() == 1 })

				// Another replica's rescue, judging by its own limit,
				// must come to the same answer as the owner's.
				mOpts := tg.opts
				mOpts.JobTimeout, mOpts.RescueStuckJobsAfter = -1, tt.maintainer
				m, err := OpenWithOptions(t.Context(), tg.url, nil, mOpts)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				deadline := time.Now().Add(2 * time.Second)
				for time.Now().Before(deadline) && runs.Load() == 1 {
					if _, err := m.RescueAbandoned(t.Context()); err != nil {
						t.Fatal(err)
					}
					time.Sleep(100 * time.Millisecond)
				}
				if tt.rescued {
					waitFor(t, "the rescued job to run again", 10*time.Second, func() bool { return runs.Load() == 2 })
				} else if n := runs.Load(); n != 1 {
					t.Fatalf("the job ran %d times while its first run was within its replica's limit", n)
				}
			})
		})
	}
}

// TestSilentReplicaRescued: a replica that stops beating (cut off, or
// frozen) while a job runs loses the job to the others within a few
// heartbeats, and a job with no attempts left is discarded instead of
// running again.
func TestSilentReplicaRescued(t *testing.T) {
	for _, tt := range []struct {
		name        string
		maxAttempts int
		want        string
	}{
		{"attempts left", 5, "completed"},
		{"no attempts left", 1, "discarded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, tg target) {
				release := make(chan struct{})
				defer close(release)
				var firstRuns, otherRuns atomic.Int32
				opts := tg.opts
				opts.MaxAttempts, opts.JobTimeout = tt.maxAttempts, time.Hour
				silent := openStarted(t, tg, opts, func(ctx context.Context, a VerifyArgs) error {
					firstRuns.Add(1)
					<-release
					return nil
				})
				mustEnqueue(t, silent, verify("d1", "aaa"), true)
				waitFor(t, "the job to start", 10*time.Second, func() bool { return firstRuns.Load() == 1 })
				silent.stopTend() // it works on, but no longer beats
				<-silent.tendDone

				start := time.Now()
				other := openStarted(t, tg, opts, func(ctx context.Context, a VerifyArgs) error {
					otherRuns.Add(1)
					return nil
				})
				waitFor(t, "the job to be "+tt.want, 20*time.Second, func() bool { return count(t, other, KindVerify, tt.want) == 1 })
				if took, limit := time.Since(start), 20*opts.Heartbeat; took > limit {
					t.Errorf("rescued after %v, want within %v (a few heartbeats)", took, limit)
				}
				if want := map[string]int32{"completed": 1, "discarded": 0}[tt.want]; otherRuns.Load() != want {
					t.Errorf("the other replica ran it %d times, want %d", otherRuns.Load(), want)
				}
			})
		})
	}
}

// TestOneMaintainer: of three replicas on one database exactly one is the
// maintainer; when it stops, another takes over within a few heartbeats.
func TestOneMaintainer(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		var qs []*Queue
		for range 3 {
			qs = append(qs, openStarted(t, tg, tg.opts, func(context.Context, VerifyArgs) error { return nil }))
		}
		leaders := func() (n int, who *Queue) {
			for _, q := range qs {
				if q.Leading() {
					n, who = n+1, q
				}
			}
			return n, who
		}
		waitFor(t, "a maintainer", 10*time.Second, func() bool { n, _ := leaders(); return n == 1 })
		// It stays one over several heartbeats.
		for range 5 {
			time.Sleep(tg.opts.Heartbeat)
			if n, _ := leaders(); n != 1 {
				t.Fatalf("%d maintainers, want 1", n)
			}
		}
		_, old := leaders()
		if err := old.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "another maintainer", 10*time.Second, func() bool { n, who := leaders(); return n == 1 && who != old })
		reps, err := qs[0].Replicas(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		live, err := qs[0].LiveReplicas(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(reps) != 2 || live != 2 {
			t.Errorf("%d replica rows (%d live) after one stopped, want 2 and 2: %+v", len(reps), live, reps)
		}
		// One that goes silent is no longer live.
		qs[1].stopTend()
		<-qs[1].tendDone
		waitFor(t, "the silent replica to count as dead", 10*time.Second, func() bool {
			n, err := qs[0].LiveReplicas(t.Context())
			return err == nil && n == 1
		})
	})
}

// TestAdmissionAtomic: replicas admitting at once never let more than
// MaxWaiting jobs wait, and a refused delivery is not remembered (its
// redelivery is welcome once there is room).
func TestAdmissionAtomic(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		opts := tg.opts
		opts.MaxWaiting = 5
		var qs []*Queue
		for range 3 {
			q, err := OpenWithOptions(t.Context(), tg.url, nil, opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = q.Close() })
			qs = append(qs, q)
		}
		var wg sync.WaitGroup
		var inserted, full atomic.Int32
		var mu sync.Mutex
		var refused []string
		errs := make(chan error, 30)
		for i := range 30 {
			wg.Go(func() {
				a := VerifyArgs{DeliveryID: fmt.Sprint("d", i), Repo: "geo/board", PR: i + 1, HeadSHA: "aaa"}
				ok, err := qs[i%3].EnqueueVerify(context.Background(), a)
				switch {
				case errors.Is(err, ErrFull):
					full.Add(1)
					mu.Lock()
					refused = append(refused, a.DeliveryID)
					mu.Unlock()
				case err != nil:
					errs <- err
				case ok:
					inserted.Add(1)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if inserted.Load() != 5 || full.Load() != 25 {
			t.Fatalf("inserted %d, refused %d; want 5 and 25", inserted.Load(), full.Load())
		}
		if n, err := qs[0].Waiting(t.Context()); err != nil || n != 5 {
			t.Fatalf("waiting = %d (%v), want 5", n, err)
		}
		// A regeneration is taken even now.
		if ok, err := qs[0].EnqueueRegenerate(t.Context(), RegenerateArgs{DeliveryID: "push", Repo: "geo/board", AfterSHA: "f00d"}); err != nil || !ok {
			t.Fatalf("regeneration while full: %v %v", ok, err)
		}
		// Room again: a refused delivery's redelivery goes in.
		for pr := range 30 {
			if _, err := qs[0].SupersedeVerify(t.Context(), "geo/board", pr+1, "other", time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		ok, err := qs[1].EnqueueVerify(t.Context(), VerifyArgs{DeliveryID: refused[0], Repo: "geo/board", PR: 99, HeadSHA: "bbb"})
		if err != nil || !ok {
			t.Fatalf("redelivery of refused %s once there is room: %v %v", refused[0], ok, err)
		}
	})
}

// TestRegenerationsCoalesced: ten merges while a regeneration runs make
// one more regeneration, never two at once, across replicas; every job
// ends completed.
func TestRegenerationsCoalesced(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		var running, most, runs atomic.Int32
		started := make(chan struct{}, 20)
		// The first regeneration runs until all ten merges are queued, however
		// slow the machine: the burst arrives during it.
		release := make(chan struct{})
		regenerate := func(ctx context.Context, a RegenerateArgs) error {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			if runs.Add(1) == 1 {
				started <- struct{}{}
				select {
				case <-release:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			time.Sleep(100 * time.Millisecond)
			return nil
		}
		// SQLite serves one process; PostgreSQL replicas share the lock.
		replicas := 3
		if strings.HasPrefix(tg.url, "sqlite:") {
			replicas = 1
		}
		var qs []*Queue
		for range replicas {
			q, err := OpenWithOptions(t.Context(), tg.url, nil, tg.opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = q.Close() })
			if err := q.Start(t.Context(), Handlers{Regenerate: regenerate}, 4); err != nil {
				t.Fatal(err)
			}
			qs = append(qs, q)
		}
		merge := func(i int) {
			a := RegenerateArgs{DeliveryID: fmt.Sprint("push-", i), Repo: "geo/board", AfterSHA: fmt.Sprint("sha", i), Branch: "main"}
			if ok, err := qs[i%len(qs)].EnqueueRegenerate(t.Context(), a); err != nil || !ok {
				t.Fatalf("merge %d: %v %v", i, ok, err)
			}
		}
		merge(0)
		<-started
		for i := 1; i <= 10; i++ {
			merge(i)
		}
		close(release)
		waitFor(t, "every regeneration job to end", 30*time.Second, func() bool {
			return count(t, qs[0], KindRegenerate, "completed") == 11
		})
		if n := runs.Load(); n != 2 {
			t.Errorf("%d regenerations ran for a burst of 10 merges during one, want 2", n)
		}
		if m := most.Load(); m != 1 {
			t.Errorf("%d regenerations of one repository ran at once", m)
		}
	})
}

// TestLockedJobsAskTheQueue: jobs that hold a lock and ask the queue
// while they hold it (as a verification does around its comment) all
// finish with as many workers as a deployment may run: the locks cannot
// take every database connection.
func TestLockedJobsAskTheQueue(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		const jobs = 12
		q := open(t, tg)
		var done atomic.Int32
		err := q.Start(t.Context(), Handlers{Verify: func(ctx context.Context, a VerifyArgs) error {
			return q.WithLock(ctx, fmt.Sprint("pr-", a.PR), func() error {
				time.Sleep(200 * time.Millisecond) // so that all hold their locks at once
				if _, err := q.NewerVerify(ctx, a.Repo, a.PR, a.HeadSHA, time.Now().Add(-time.Hour)); err != nil {
					return err
				}
				done.Add(1)
				return nil
			})
		}}, jobs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			a := verify(fmt.Sprint("d", i), "aaa")
			a.PR = i + 1
			mustEnqueue(t, q, a, true)
		}
		waitFor(t, "every job to finish", 30*time.Second, func() bool { return done.Load() == jobs })
	})
}

// TestWorkersNeedConnections: a PostgreSQL queue refuses to start more
// workers than its connection pool can serve, saying what to change.
func TestWorkersNeedConnections(t *testing.T) {
	tg := backends()[1].new(t)
	url := tg.url + "&pool_max_conns=10"
	if !strings.Contains(tg.url, "?") {
		url = tg.url + "?pool_max_conns=10"
	}
	q, err := OpenWithOptions(t.Context(), url, nil, tg.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	err = q.Start(t.Context(), Handlers{}, 4)
	if err == nil || !strings.Contains(err.Error(), "pool_max_conns") {
		t.Fatalf("4 workers on 10 connections: %v, want a refusal naming pool_max_conns", err)
	}
	if err := q.Start(t.Context(), Handlers{}, 3); err != nil {
		t.Fatalf("3 workers on 10 connections: %v", err)
	}
}

// TestDrainKeepsBeating: a replica stopping gracefully beats on while its
// running jobs drain, however long that takes, so the others never take
// them for abandoned and run them twice.
func TestDrainKeepsBeating(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		release := make(chan struct{})
		var draining, others atomic.Int32
		opts := tg.opts
		opts.JobTimeout = time.Hour
		// A heartbeat of 500 ms: three missed beats are then 1.5 s of
		// silence, which a disk busy with other tests' fsyncs does not
		// cause, while a replica that stopped beating is still seen.
		opts.Heartbeat = 500 * time.Millisecond
		a := openStarted(t, tg, opts, func(context.Context, VerifyArgs) error {
			draining.Add(1)
			<-release
			return nil
		})
		mustEnqueue(t, a, verify("d1", "aaa"), true)
		waitFor(t, "the job to start", 10*time.Second, func() bool { return draining.Load() == 1 })
		b := openStarted(t, tg, opts, func(context.Context, VerifyArgs) error {
			others.Add(1)
			return nil
		})
		stopped := make(chan error, 1)
		go func() { stopped <- a.Stop(context.Background()) }()
		// Far longer than three heartbeats, with the other replica
		// rescuing all the while.
		deadline := time.Now().Add(10 * opts.Heartbeat)
		for time.Now().Before(deadline) {
			if _, err := b.RescueAbandoned(t.Context()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(opts.Heartbeat / 2)
		}
		close(release)
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		if n := others.Load(); n != 0 {
			t.Errorf("the draining replica's job also ran %d times on the other", n)
		}
		if c := count(t, b, KindVerify, "completed"); c != 1 {
			t.Errorf("completed = %d, want 1", c)
		}
	})
}
