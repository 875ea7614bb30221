package bot

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Backlog remembers that the queue refused a delivery for want of room
// (ErrOverloaded), so that the verification it asked for is looked for as
// soon as the queue has room again, not at the next reconcile pass: GitHub
// does not redeliver a refused delivery by itself. Each process keeps its
// own, so the replica that refused is the one that looks, whichever
// replica leads. The zero Backlog is ready; a nil one records nothing.
type Backlog struct {
	once sync.Once
	wake chan struct{} // one pending refusal: refusals before the next pass are one pass
}

func (b *Backlog) init() { b.once.Do(func() { b.wake = make(chan struct{}, 1) }) }

// Refused records that a delivery was refused for want of room.
func (b *Backlog) Refused() {
	if b == nil {
		return
	}
	b.init()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// drainPoll is how often HealWhenDrained asks how many jobs wait while a
// refusal is pending, and drainRetry how long it waits after a pass that
// failed; variables for tests.
var (
	drainPoll  = time.Second
	drainRetry = 30 * time.Second
)

// HealWhenDrained runs until ctx ends: after each refusal it waits until
// fewer than limit jobs wait (waiting counts them, as the queue's bound
// does), then reconciles, which queues the verification of every open pull
// request whose head has no completed check or which has no verdict for
// its head on its base (Reconcile), the refused ones among them.
// A pass that meets a full queue again, or fails, is made again later.
func (b *Backlog) HealWhenDrained(ctx context.Context, limit int, waiting func(context.Context) (int, error), l Lister, q Enqueuer, log *slog.Logger) {
	b.init()
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.wake:
		}
		for {
			n, err := waiting(ctx)
			if err == nil && n < limit {
				break
			}
			if err != nil && ctx.Err() == nil {
				log.Warn("cannot count the waiting jobs after a refusal", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(drainPoll):
			}
		}
		n, err := Reconcile(ctx, l, q, log)
		switch {
		case errors.Is(err, ErrOverloaded):
			// Full again before every missed verification was queued:
			// the rest waits for the next room.
			b.Refused()
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			log.Warn("reconcile after the queue drained failed; trying again", "err", err, "in", drainRetry.String())
			select {
			case <-ctx.Done():
				return
			case <-time.After(drainRetry):
			}
			b.Refused()
		default:
			log.Info("reconciled after the queue drained", "queued", n)
		}
	}
}
