package llm

import (
	"context"
	"net/http"
	"sync"
)

// flight holds back a client's calls when the endpoint says it is sent
// too many at once, and lets more through again as it keeps up: adaptive
// concurrency, after inspect_ai's adaptive connections, which back off on
// rate-limit retries and scale up while the provider keeps up
// (https://inspect.aisi.org.uk/models-concurrency.html).
//
// Until the first rate limit nothing is held back: the callers' own
// number (the workers) is the limit. A call refused with a rate limit
// while n calls were in flight, itself included, shows that at most n-1
// fit, and the limit drops to that: against a server that admits 4 at
// once, 16 calls sent together get 12 refusals that bring it down to 4 in
// one round, however many arrive. Each answer received while the limit is
// fully used is a credit; limit × patience credits raise it by one. A
// refusal right after such a rise (a failed probe) doubles the patience,
// up to maxPatience, so that a limit that has been found is probed ever
// more rarely and a call is seldom refused twice; a rise that stands for
// a whole period halves it again. A limit above the most calls ever in
// flight at once holds nothing back, and is dropped. Time plays no part:
// the rules are the same on a slow machine and a fast one.
//
// The zero value holds nothing back. A flight is safe for concurrent use.
type flight struct {
	mu       sync.Mutex
	limit    int // calls let through at once; 0: no limit
	inFlight int
	most     int       // the most calls in flight at once so far
	queue    []*waiter // first come, first served
	credit   int       // answers at the full limit since it last changed
	patience int       // credits needed per call of limit to raise it; 0 means 1
	probing  bool      // the limit was raised and has not yet stood a whole period

	refused int // rate-limit answers so far
	lowest  int // the lowest limit so far; 0: none was ever set
}

// maxPatience caps the patience: a limit found is probed at least once in
// 64 × limit answers, so that capacity the endpoint frees later is used.
const maxPatience = 64

// waiter is a caller waiting for its turn. ready is closed once it is let
// through.
type waiter struct {
	ready chan struct{}
}

// outcome is what an attempt says of the endpoint's capacity.
type outcome int

const (
	outcomeOther       outcome = iota // says nothing: a failure, or no answer
	outcomeAnswered                   // the endpoint kept up
	outcomeRateLimited                // too many calls at once
)

// acquire waits until the caller may send, or ctx is done. Every nil error
// must be matched by one release.
func (f *flight) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	if len(f.queue) == 0 && f.room() {
		f.enter()
		f.mu.Unlock()
		return nil
	}
	w := &waiter{ready: make(chan struct{})}
	f.queue = append(f.queue, w)
	f.mu.Unlock()

	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-w.ready:
		// Let through as ctx ended: give the place to the next caller.
		f.inFlight--
		f.admit()
	default:
		for i, q := range f.queue {
			if q == w {
				f.queue = append(f.queue[:i], f.queue[i+1:]...)
				break
			}
		}
	}
	return ctx.Err()
}

// release ends a call let through by acquire, with what its attempt said
// of the endpoint's capacity, and lets the next callers through.
func (f *flight) release(o outcome) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.inFlight // this call included
	f.inFlight--
	switch o {
	case outcomeRateLimited:
		f.refused++
		// The limit is never below the calls in flight, so fit is
		// always below the limit.
		fit := max(1, n-1)
		if f.probing {
			f.patience = min(2*f.patiences(), maxPatience)
		}
		f.limit, f.credit, f.probing = fit, 0, false
		if f.lowest == 0 || fit < f.lowest {
			f.lowest = fit
		}
	case outcomeAnswered:
		if f.limit == 0 || n < f.limit {
			break // the limit is not what holds the calls back
		}
		f.credit++
		if f.credit < f.limit*f.patiences() {
			break
		}
		if f.probing {
			// The last rise stood a whole period.
			f.patience = max(1, f.patiences()/2)
		}
		f.limit, f.credit, f.probing = f.limit+1, 0, true
		if f.limit > f.most {
			f.limit, f.patience, f.probing = 0, 1, false
		}
	}
	f.admit()
}

func (f *flight) patiences() int { return max(1, f.patience) }

// room reports whether one more call may be in flight. The caller holds
// f.mu.
func (f *flight) room() bool { return f.limit == 0 || f.inFlight < f.limit }

// enter counts a call let through. The caller holds f.mu.
func (f *flight) enter() {
	f.inFlight++
	f.most = max(f.most, f.inFlight)
}

// admit lets waiting callers through while there is room. The caller
// holds f.mu.
func (f *flight) admit() {
	for len(f.queue) > 0 && f.room() {
		w := f.queue[0]
		f.queue = f.queue[1:]
		f.enter()
		close(w.ready)
	}
}

// Concurrency says what adaptive concurrency has done with a client's
// calls so far.
type Concurrency struct {
	RateLimited int // attempts answered with a rate limit
	Limit       int // calls let through at once now; 0 when none are held back
	Lowest      int // the lowest limit so far; 0 when none was ever set
	Most        int // the most calls in flight at once
}

// Concurrency says what adaptive concurrency has done with the client's
// calls so far: how many attempts were rate limited, and how many calls
// it lets through at once.
func (c *Client) Concurrency() Concurrency {
	f := &c.flight
	f.mu.Lock()
	defer f.mu.Unlock()
	return Concurrency{RateLimited: f.refused, Limit: f.limit, Lowest: f.lowest, Most: f.most}
}

// admit waits for the call's turn: a place among the calls in flight,
// then the request rate. Every nil error must be matched by one settle.
func (c *Client) admit(ctx context.Context) error {
	if err := c.flight.acquire(ctx); err != nil {
		return err
	}
	if err := c.limit.wait(ctx); err != nil {
		c.flight.release(outcomeOther)
		return err
	}
	return nil
}

// settle gives up the place admit took, with what attempt a says of the
// endpoint's capacity: a 429 that is no spent quota, or OpenRouter's 402
// with Retry-After (its budget for calls in flight), says too many calls
// are out at once, as does such a status reported inside a 200.
func (c *Client) settle(a *attempt) {
	o := outcomeOther
	switch {
	case a.err == nil:
		o = outcomeAnswered
	case a.status == http.StatusTooManyRequests && !a.account,
		a.status == http.StatusPaymentRequired && !a.permanent,
		a.status == statusFlexCapacity:
		o = outcomeRateLimited
	}
	c.flight.release(o)
}
