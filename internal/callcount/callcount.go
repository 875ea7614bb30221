// Package callcount counts the requests made on behalf of one piece of
// work, such as one job's calls to GitHub's REST API: the work carries a
// counter in its context, and the transport that makes the requests adds
// to it. The counts are what an installation's hourly budget is spent on.
package callcount

import (
	"context"
	"sync/atomic"
)

type key struct{}

// Counter counts calls; safe for concurrent use.
type Counter struct{ n atomic.Int64 }

// N is the calls counted so far.
func (c *Counter) N() int64 { return c.n.Load() }

// With returns a context that counts the calls made with it in c.
func With(ctx context.Context) (context.Context, *Counter) {
	c := &Counter{}
	return context.WithValue(ctx, key{}, c), c
}

// Add counts one call made with ctx; nothing when ctx counts none.
func Add(ctx context.Context) {
	if c, ok := ctx.Value(key{}).(*Counter); ok {
		c.n.Add(1)
	}
}
