package llm

import (
	"context"
	"time"
)

// limiter lets callers through one at a time, each at least interval after
// the one before: a token bucket with a burst of 1, shared by every
// goroutine using the client, so that over any stretch of a run the rate
// never exceeds RPS.
//
// The spacing is measured from when the previous caller was actually let
// through, not from a precomputed schedule. On a busy machine a goroutine
// can wake tens of milliseconds late; with a schedule, the callers whose
// slots passed meanwhile would then all go at once and the endpoint would
// see a burst. Measured this way, a late wake-up lowers the rate instead.
// Only the timer's usual lateness, up to slack, is forgiven, so that it
// does not lower the rate of every run by a percent or two: then the next
// turn is counted from the time the caller should have gone. Any n+1
// callers in a row therefore span at least n intervals less one slack.
type limiter struct {
	interval time.Duration
	slack    time.Duration

	// turn holds a value while a caller waits for its turn. Waiters on a
	// full channel are served first come, first served.
	turn chan struct{}
	last time.Time // when the previous caller went through; guarded by turn
}

func newLimiter(rps float64) *limiter {
	if rps <= 0 {
		return nil
	}
	interval := time.Duration(float64(time.Second) / rps)
	return &limiter{
		interval: interval,
		slack:    min(interval/10, time.Millisecond),
		turn:     make(chan struct{}, 1),
	}
}

// wait blocks until the caller may send, or ctx is done. A nil limiter
// never waits. A caller that gives up leaves the next one's turn as it was.
func (l *limiter) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil || l == nil {
		return err
	}
	select {
	case l.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-l.turn }()

	if l.last.IsZero() {
		l.last = time.Now()
		return nil
	}
	due := l.last.Add(l.interval)
	if d := time.Until(due); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if now := time.Now(); now.Sub(due) > l.slack {
		l.last = now
	} else {
		l.last = due
	}
	return nil
}
