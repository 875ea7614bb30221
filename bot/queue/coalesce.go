package queue

import (
	"context"
	"fmt"
	"time"
)

// Regenerations of one repository are coalesced: at most one runs at a
// time, across every replica, and the merges that arrive while it runs
// fold into one more run. A regeneration builds from the branch as it is
// when it runs, so a job queued after another covers it: an older job
// that finds a newer one waiting, running (it is trying the lock, or will
// again) or done ends at once. Of a burst of merges behind a running
// regeneration only the newest runs.

// coalesceWait is how long a regeneration waits (snoozed, not holding a
// worker) before it tries again while another of its repository runs.
const coalesceWait = 2 * time.Second

// busyError asks the engine to snooze the job for wait: the job did not
// fail and its attempt does not count.
type busyError struct{ wait time.Duration }

func (e *busyError) Error() string { return fmt.Sprintf("busy: trying again in %v", e.wait) }

// jobIDKey carries the running job's id in its context.
type jobIDKey struct{}

// coalesced wraps a regeneration handler with the rule above.
func (q *Queue) coalesced(regenerate func(ctx context.Context, a RegenerateArgs) error) func(ctx context.Context, a RegenerateArgs) error {
	if regenerate == nil {
		return nil
	}
	return func(ctx context.Context, a RegenerateArgs) error {
		id, _ := ctx.Value(jobIDKey{}).(int64)
		took, err := q.b.tryLock(ctx, "regenerate:"+a.Repo, func() error {
			newer, err := q.b.newerRegenerate(ctx, a.Repo, a.Branch, id)
			if err != nil {
				return err
			}
			if newer {
				q.logger.InfoContext(ctx, "queue: regeneration folded into a newer one", "repo", a.Repo, "after_sha", a.AfterSHA, "delivery", a.DeliveryID)
				return nil
			}
			return regenerate(ctx, a)
		})
		if err != nil {
			return err
		}
		if !took {
			return &busyError{wait: coalesceWait}
		}
		return nil
	}
}
