package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/fakeopenai"
)

// take lets n calls through f, failing the test if any has to wait.
func take(t *testing.T, f *flight, n int) {
	t.Helper()
	for i := range n {
		f.mu.Lock()
		free := len(f.queue) == 0 && f.room()
		f.mu.Unlock()
		if !free {
			t.Fatalf("call %d of %d would wait", i+1, n)
		}
		if err := f.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func state(f *flight) (limit, inFlight, queued int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.limit, f.inFlight, len(f.queue)
}

// queued waits until n callers wait in f's queue: it yields, never
// sleeps, so that it does not depend on the machine's speed.
func queued(f *flight, n int) {
	for {
		if _, _, q := state(f); q >= n {
			return
		}
		runtime.Gosched()
	}
}

func TestFlightRules(t *testing.T) {
	type step struct {
		take    int     // calls let through first
		release outcome // then one released with this outcome
		times   int     // that many times (0 means once)
		limit   int     // the limit after
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"answers alone never set a limit", []step{
			{take: 16, release: outcomeAnswered, times: 16, limit: 0},
		}},
		{"a refusal with 16 in flight: at most 15 fit", []step{
			{take: 16, release: outcomeRateLimited, limit: 15},
		}},
		{"12 refusals of 16 calls against a server admitting 4: 4", []step{
			{take: 16, release: outcomeRateLimited, times: 12, limit: 4},
		}},
		{"a refusal counts the calls in flight when it comes back", []step{
			{take: 16, release: outcomeAnswered, times: 12, limit: 0},
			{release: outcomeRateLimited, limit: 3},
		}},
		{"never below 1", []step{
			{take: 1, release: outcomeRateLimited, limit: 1},
			{take: 1, release: outcomeRateLimited, limit: 1},
		}},
		{"other failures change nothing", []step{
			{take: 8, release: outcomeOther, times: 8, limit: 0},
			{take: 4, release: outcomeRateLimited, limit: 3},
			{release: outcomeOther, times: 3, limit: 3},
			{take: 3, release: outcomeOther, times: 3, limit: 3},
		}},
		{"an answer below the full limit is no credit", []step{
			{take: 5, release: outcomeRateLimited, limit: 4},
			// 3 in flight of 4: answers while the limit holds nothing back.
			{release: outcomeAnswered, limit: 4},
			{take: 1, release: outcomeAnswered, times: 3, limit: 4},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f flight
			for i, s := range tt.steps {
				take(t, &f, s.take)
				for range max(1, s.times) {
					f.release(s.release)
				}
				if limit, _, _ := state(&f); limit != s.limit {
					t.Fatalf("step %d: limit %d, want %d", i+1, limit, s.limit)
				}
			}
		})
	}
}

// saturate releases answers with the limit fully used, letting a new call
// through after each, until the limit changes or n answers were released;
// it returns how many were. After a rise, the calls in flight are one
// fewer than the limit before it.
func saturate(t *testing.T, f *flight, n int) int {
	t.Helper()
	start, _, _ := state(f)
	for i := 1; i <= n; i++ {
		f.release(outcomeAnswered)
		if limit, _, _ := state(f); limit != start {
			return i
		}
		take(t, f, 1)
	}
	return n
}

func TestFlightGrowsSlowlyAndProbesLessAfterFailedProbes(t *testing.T) {
	var f flight
	take(t, &f, 16)
	for range 12 {
		f.release(outcomeRateLimited) // a server admitting 4
	}
	if limit, in, _ := state(&f); limit != 4 || in != 4 {
		t.Fatalf("limit %d with %d in flight, want 4 and 4", limit, in)
	}
	// limit × patience answers at the full limit raise it by one; each
	// refusal of the raised limit doubles the patience.
	for i, want := range []int{4, 8, 16, 32, 64, 128, 256, 256} {
		if got := saturate(t, &f, 1000); got != want {
			t.Fatalf("probe %d: raised after %d answers, want %d", i+1, got, want)
		}
		take(t, &f, 2) // four, and the fifth
		f.release(outcomeRateLimited)
		if limit, _, _ := state(&f); limit != 4 {
			t.Fatalf("probe %d: limit %d after the refusal, want 4", i+1, limit)
		}
	}
	// The endpoint now admits more: a rise that stands a whole period
	// (5 × 64 answers) halves the patience for the next one.
	if got := saturate(t, &f, 1000); got != 4*64 {
		t.Fatalf("raised after %d answers, want %d", got, 4*64)
	}
	take(t, &f, 2)
	if got := saturate(t, &f, 1000); got != 5*64 {
		t.Fatalf("raised again after %d answers, want %d", got, 5*64)
	}
	take(t, &f, 2)
	if got := saturate(t, &f, 1000); got != 6*32 {
		t.Fatalf("raised again after %d answers, want %d", got, 6*32)
	}
}

func TestFlightNeverAboveTheMostInFlight(t *testing.T) {
	var f flight
	take(t, &f, 6)
	f.release(outcomeRateLimited)
	// 5 in flight, limit 5, the most ever 6: raised to 6, then above the
	// most, where it holds nothing back and is dropped.
	if got := saturate(t, &f, 100); got != 5 {
		t.Fatalf("raised after %d answers, want 5", got)
	}
	take(t, &f, 2)
	if got := saturate(t, &f, 100); got != 6 {
		t.Fatalf("raised after %d answers, want 6", got)
	}
	if limit, _, _ := state(&f); limit != 0 {
		t.Fatalf("limit %d above the most calls in flight (6), want none (0)", limit)
	}
	c := Concurrency{RateLimited: f.refused, Limit: f.limit, Lowest: f.lowest, Most: f.most}
	if c != (Concurrency{RateLimited: 1, Limit: 0, Lowest: 5, Most: 6}) {
		t.Errorf("%+v", c)
	}
}

func TestFlightWaitersInOrder(t *testing.T) {
	var f flight
	take(t, &f, 2)
	f.release(outcomeRateLimited) // limit 1, one in flight
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			if err := f.acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			order <- i
		}()
		queued(&f, i+1)
	}
	for want := range 3 {
		f.release(outcomeOther)
		if got := <-order; got != want {
			t.Fatalf("caller %d let through, want %d", got, want)
		}
	}
	f.release(outcomeOther)
	if _, in, q := state(&f); in != 0 || q != 0 {
		t.Errorf("%d in flight, %d queued, want none", in, q)
	}
}

func TestFlightCancelledWaiterFreesNothingItDidNotTake(t *testing.T) {
	var f flight
	take(t, &f, 2)
	f.release(outcomeRateLimited) // limit 1, one in flight

	// A waiter that gives up before its turn takes nothing and frees
	// nothing: the call in flight still holds the only place.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- f.acquire(ctx) }()
	queued(&f, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire: %v", err)
	}
	if _, in, q := state(&f); in != 1 || q != 0 {
		t.Fatalf("%d in flight, %d queued after the waiter gave up, want 1 and 0", in, q)
	}
	f.release(outcomeOther)
	if _, in, _ := state(&f); in != 0 {
		t.Fatalf("%d in flight, want 0", in)
	}

	// A waiter let through as it gives up either goes, or hands its
	// place on: never two in flight under a limit of 1, never a place lost.
	for range 200 {
		take(t, &f, 1)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { done <- f.acquire(ctx) }()
		queued(&f, 1)
		f.release(outcomeOther) // its turn
		cancel()
		err := <-done
		_, in, _ := state(&f)
		switch {
		case err == nil && in == 1:
			f.release(outcomeOther)
		case err != nil && in == 0:
		default:
			t.Fatalf("acquire %v with %d in flight", err, in)
		}
	}
	if limit, in, q := state(&f); limit != 1 || in != 0 || q != 0 {
		t.Errorf("limit %d, %d in flight, %d queued, want 1, 0, 0", limit, in, q)
	}
}

func TestFlightConcurrentUse(t *testing.T) {
	var f flight
	var now, peak atomic.Int64
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 300 {
				ctx, cancel := context.WithCancel(context.Background())
				if r.IntN(10) == 0 {
					cancel() // some give up at once
				}
				if err := f.acquire(ctx); err != nil {
					cancel()
					continue
				}
				cancel()
				n := now.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				runtime.Gosched()
				now.Add(-1)
				f.release(outcome(r.IntN(3)))
			}
		})
	}
	wg.Wait()
	limit, in, q := state(&f)
	if in != 0 || q != 0 || limit < 0 || limit > 32 || int(peak.Load()) > f.most {
		t.Errorf("limit %d, %d in flight, %d queued, peak %d, most %d", limit, in, q, peak.Load(), f.most)
	}
}

// TestClientAdaptsToConcurrencyLimit sends 16 calls at once through one
// client, and 48 more as they end, to a server that admits 4 at once:
// the refusals bring the client down to 4 in flight in one round, and
// every call is answered.
func TestClientAdaptsToConcurrencyLimit(t *testing.T) {
	hold := make(chan struct{})
	srv := fakeopenai.New(t, fakeopenai.Options{MaxConcurrent: 4, Reply: func(fakeopenai.Request) fakeopenai.Reply {
		<-hold // the first four wait until the others are refused
		return fakeopenai.Reply{Content: "OK"}
	}})
	// Retried at once: no backoff spreads the retries out, and each
	// refusal is still taken for what it says. The attempts are more
	// than a call can be refused: once in the first round, then once per
	// probe, of which 64 answers see 4 (after 4, 8, 16 and 32 answers).
	c, err := New(Config{BaseURL: srv.URL, MaxAttempts: 6, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 64)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 4 {
				_, err := c.Complete(context.Background(), Request{Model: "m", Messages: []Message{{Role: "user", Content: "Hi"}}})
				errs <- err
			}
		})
	}
	// 4 calls held by the server, the 12 others refused and waiting.
	for {
		if limit, in, q := state(&c.flight); limit == 4 && in == 4 && q == 12 {
			break
		}
		runtime.Gosched()
	}
	close(hold)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got := c.Concurrency()
	_, status := srv.Stats()
	if got.Lowest != 4 || got.Most != 16 || got.RateLimited != status[429] || status[200] != 64 {
		t.Errorf("concurrency %+v; server statuses %v", got, status)
	}
}
