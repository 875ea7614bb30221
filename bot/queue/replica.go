package queue

import (
	"context"
	"time"
)

// Several processes (replicas) may work one queue. Each records a
// heartbeat while it works; one of them at a time, the maintainer, runs
// the queue's upkeep: it rescues the running jobs of replicas that stopped
// beating (killed, crashed, cut off) so that they run again within about
// three heartbeats instead of River's stuck-job timeout, and it prunes old
// delivery ids and replica rows. Callers use Leading to run their own
// once-per-deployment work (the App's reconcile) on the maintainer only.

// DefaultHeartbeat is how often a working replica records that it lives.
const DefaultHeartbeat = 10 * time.Second

// staleBeats is how many heartbeats a replica may miss before its running
// jobs are taken for abandoned.
const staleBeats = 3

// riverBackstop is River's own stuck-job rescue, kept only as a last
// resort: it is run by River's leader with the leader's own setting, so a
// short one would rescue jobs still running on a replica with a longer job
// timeout. The queue's rescue uses the setting of the replica running the
// job instead.
const riverBackstop = 24 * time.Hour

// rescueNote is recorded as the attempt's error on a rescued job, where
// River keeps its attempts' errors.
const rescueNote = "rescued: the replica running this job stopped recording its heartbeat, or the job ran past that replica's RescueStuckJobsAfter"

// waitingQuery counts the jobs that Options.MaxWaiting bounds.
func waitingQuery(jobs string) string {
	return `SELECT count(*) FROM ` + jobs + ` WHERE state IN ('available', 'pending', 'retryable', 'scheduled') AND kind IN ('` + KindVerify + `', '` + KindRerun + `', '` + KindReproduce + `', '` + KindAccept + `')`
}

// Replica is a process working the queue, as its heartbeat row says.
type Replica struct {
	ID string
	// Beat is when it last recorded its heartbeat.
	Beat time.Time
	// RescueAfter is how long its jobs may run before they are taken for
	// hung and run again elsewhere; zero means never.
	RescueAfter time.Duration
	// Live: its last heartbeat is recent enough that its jobs are its own.
	Live bool
}

// ID is this process's replica (and River client) id, or "" before Start.
func (q *Queue) ID() string { return q.b.replicaID() }

// Leading reports whether this process is the queue's maintainer. A
// queue that was never started never leads.
func (q *Queue) Leading() bool { return q.leading.Load() }

// Replicas lists the replicas with a heartbeat row, live or not.
func (q *Queue) Replicas(ctx context.Context) ([]Replica, error) { return q.b.replicas(ctx) }

// LiveReplicas counts the replicas whose heartbeat is fresh.
func (q *Queue) LiveReplicas(ctx context.Context) (int, error) {
	rs, err := q.b.replicas(ctx)
	n := 0
	for _, r := range rs {
		if r.Live {
			n++
		}
	}
	return n, err
}

// RescueAbandoned makes the running jobs of replicas that stopped beating
// (and jobs running past their replica's RescueAfter) available again, or
// discards them when they have no attempts left. The maintainer does this
// every heartbeat; it is exported for tests and tools.
func (q *Queue) RescueAbandoned(ctx context.Context) (int, error) {
	return q.b.rescue(ctx, q.staleAfter())
}

func (q *Queue) staleAfter() time.Duration { return staleBeats * q.opts.Heartbeat }

// rescueAfter is how long this replica lets a job run before others may
// take it for hung.
func (q *Queue) rescueAfter() time.Duration {
	switch {
	case q.opts.RescueStuckJobsAfter > 0:
		return q.opts.RescueStuckJobsAfter
	case q.opts.JobTimeout < 0:
		return 0
	case q.opts.JobTimeout == 0:
		return 2 * time.Minute // twice River's default job timeout
	}
	return 2 * q.opts.JobTimeout
}

// maintain runs tend every heartbeat until ctx ends; Start has run the
// first round.
func (q *Queue) maintain(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(q.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		q.tend(ctx)
	}
}

// tend beats, contends for the maintainer's role and, while it holds it,
// rescues and prunes. Each step has its own deadline, so a slow query
// cannot make this replica miss heartbeats for long.
func (q *Queue) tend(ctx context.Context) {
	step := func(what string, f func(ctx context.Context) error) {
		sctx, cancel := context.WithTimeout(ctx, q.opts.Heartbeat)
		defer cancel()
		if err := f(sctx); err != nil && ctx.Err() == nil {
			q.logger.WarnContext(ctx, "queue: "+what+" failed", "err", err)
		}
	}
	step("heartbeat", func(ctx context.Context) error { return q.b.heartbeat(ctx, q.opts.Heartbeat, q.rescueAfter()) })
	step("maintainer election", func(ctx context.Context) error {
		lead, err := q.b.lead(ctx, q.opts.Heartbeat)
		if lead != q.leading.Load() {
			q.logger.InfoContext(ctx, "queue: maintainer role changed", "replica", q.ID(), "leading", lead)
		}
		q.leading.Store(lead)
		return err
	})
	if !q.leading.Load() {
		return
	}
	step("rescue of abandoned jobs", func(ctx context.Context) error {
		n, err := q.RescueAbandoned(ctx)
		if n > 0 {
			q.logger.WarnContext(ctx, "queue: rescued jobs abandoned by a replica", "jobs", n)
		}
		return err
	})
	if time.Since(q.lastPrune) >= time.Hour {
		q.lastPrune = time.Now()
		step("pruning", func(ctx context.Context) error {
			return q.b.prune(ctx, q.opts.DeliveryRetention, q.opts.CompletedRetention)
		})
	}
}
