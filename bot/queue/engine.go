package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
)

// txOps are the few driver-specific transaction primitives the engine needs:
// River's drivers use different transaction types (*sql.Tx, pgx.Tx).
type txOps[TTx any] struct {
	begin    func(ctx context.Context) (TTx, error)
	commit   func(ctx context.Context, tx TTx) error
	rollback func(ctx context.Context, tx TTx) error
	// recordDelivery inserts a delivery id, reporting false if it was
	// already there.
	recordDelivery func(ctx context.Context, tx TTx, id, kind string) (bool, error)
	// recordWork inserts a work key (see work.go), reporting false if it
	// was already there.
	recordWork func(ctx context.Context, tx TTx, key, kind string) (bool, error)
	// cancelRetries cancels the verify jobs of r waiting to be retried
	// (retryable or scheduled); jobs available or running are left alone.
	cancelRetries func(ctx context.Context, tx TTx, r retryTarget) (int, error)
	// waiting counts the verify, rerun, reproduce and accept jobs waiting to run, holding
	// whatever lock makes the count and a following insert atomic across
	// processes until tx ends.
	waiting func(ctx context.Context, tx TTx) (int, error)
}

// ErrFull is returned by an enqueue when Options.MaxWaiting jobs already
// wait.
var ErrFull = errors.New("the queue is full")

// engine is the driver-independent part of a backend.
type engine[TTx any] struct {
	driver riverdriver.Driver[TTx]
	tx     txOps[TTx]
	opts   Options
	logger *slog.Logger
	// inserter is an insert-only client: it needs no workers, so jobs can be
	// enqueued before (or without) Start.
	inserter *river.Client[TTx]

	mu     sync.Mutex
	worker *river.Client[TTx]
	id     string // the worker client's id
}

func newEngine[TTx any](driver riverdriver.Driver[TTx], tx txOps[TTx], logger *slog.Logger, opts Options) (*engine[TTx], error) {
	e := &engine[TTx]{driver: driver, tx: tx, opts: opts, logger: logger}
	cfg := e.config()
	// Kinds are checked by the worker client at Start instead.
	cfg.SkipUnknownJobCheck = true
	c, err := river.NewClient(driver, cfg)
	if err != nil {
		return nil, fmt.Errorf("queue: river client: %w", err)
	}
	e.inserter = c
	return e, nil
}

func (e *engine[TTx]) config() *river.Config {
	return &river.Config{
		Logger:                      e.logger,
		Schema:                      e.opts.Schema,
		MaxAttempts:                 e.opts.MaxAttempts,
		RetryPolicy:                 e.opts.RetryPolicy,
		RescueStuckJobsAfter:        riverBackstop + max(e.opts.JobTimeout, 0),
		JobTimeout:                  e.opts.JobTimeout,
		FetchPollInterval:           e.opts.FetchPollInterval,
		CompletedJobRetentionPeriod: e.opts.CompletedRetention,
		TestOnly:                    e.opts.TestOnly,
	}
}

func (e *engine[TTx]) enqueue(ctx context.Context, deliveryID, workKey string, retry *retryTarget, args river.JobArgs) (_ bool, err error) {
	tx, err := e.tx.begin(ctx)
	if err != nil {
		return false, fmt.Errorf("queue: begin: %w", err)
	}
	defer func() {
		if err != nil {
			// The caller gets the insert error; a rollback failure adds
			// nothing it could act on.
			_ = e.tx.rollback(context.WithoutCancel(ctx), tx)
		}
	}()
	if deliveryID != "" {
		fresh, err := e.tx.recordDelivery(ctx, tx, deliveryID, args.Kind())
		if err != nil {
			return false, fmt.Errorf("queue: record delivery: %w", err)
		}
		if !fresh {
			return false, e.tx.rollback(ctx, tx)
		}
	}
	if workKey != "" {
		fresh, err := e.tx.recordWork(ctx, tx, workKey, args.Kind())
		if err != nil {
			return false, fmt.Errorf("queue: record work: %w", err)
		}
		if !fresh {
			// Done or queued before under another delivery id: the
			// delivery id is kept, the work is not queued again.
			return false, e.tx.commit(ctx, tx)
		}
	}
	if retry != nil {
		n, err := e.tx.cancelRetries(ctx, tx, *retry)
		if err != nil {
			return false, fmt.Errorf("queue: supersede waiting retries: %w", err)
		}
		if n > 0 {
			e.logger.InfoContext(ctx, "queue: a new request superseded waiting retries", "repo", retry.repo, "pr", retry.pr, "head_sha", retry.head, "cancelled", n)
		}
	}
	if e.opts.MaxWaiting > 0 && args.Kind() != KindRegenerate {
		n, err := e.tx.waiting(ctx, tx)
		if err != nil {
			return false, fmt.Errorf("queue: count waiting jobs: %w", err)
		}
		if n >= e.opts.MaxWaiting {
			// Rolled back with the delivery id: a redelivery once there
			// is room is welcome.
			return false, fmt.Errorf("%w (%d jobs wait)", ErrFull, n)
		}
	}
	res, err := e.inserter.InsertTx(ctx, tx, args, nil)
	if err != nil {
		return false, fmt.Errorf("queue: insert %s: %w", args.Kind(), err)
	}
	// Commit even for a unique duplicate so the delivery id is remembered.
	if err := e.tx.commit(ctx, tx); err != nil {
		return false, fmt.Errorf("queue: commit: %w", err)
	}
	return !res.UniqueSkippedAsDuplicate, nil
}

// start makes the worker client, calls ready with its id known (see
// replicaID), then starts working.
func (e *engine[TTx]) start(ctx context.Context, h Handlers, workers int, ready func(context.Context) error) error {
	ws := river.NewWorkers()
	river.AddWorker(ws, river.WorkFunc(func(ctx context.Context, j *river.Job[VerifyArgs]) error {
		if h.Verify == nil {
			return errors.New("queue: no verify handler")
		}
		return h.Verify(ctx, j.Args)
	}))
	river.AddWorker(ws, river.WorkFunc(func(ctx context.Context, j *river.Job[RerunArgs]) error {
		if h.Rerun == nil {
			return errors.New("queue: no rerun handler")
		}
		return h.Rerun(ctx, j.Args)
	}))
	river.AddWorker(ws, river.WorkFunc(func(ctx context.Context, j *river.Job[ReproduceArgs]) error {
		if h.Reproduce == nil {
			return errors.New("queue: no reproduce handler")
		}
		return h.Reproduce(ctx, j.Args)
	}))
	river.AddWorker(ws, river.WorkFunc(func(ctx context.Context, j *river.Job[AcceptArgs]) error {
		if h.Accept == nil {
			return errors.New("queue: no accept handler")
		}
		return h.Accept(ctx, j.Args)
	}))
	river.AddWorker(ws, river.WorkFunc(func(ctx context.Context, j *river.Job[RegenerateArgs]) error {
		if h.Regenerate == nil {
			return errors.New("queue: no regenerate handler")
		}
		err := h.Regenerate(context.WithValue(ctx, jobIDKey{}, j.ID), j.Args)
		var busy *busyError
		if errors.As(err, &busy) {
			return river.JobSnooze(busy.wait)
		}
		return err
	}))
	cfg := e.config()
	cfg.Workers = ws
	cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: workers}}
	c, err := river.NewClient(e.driver, cfg)
	if err != nil {
		return fmt.Errorf("queue: river worker client: %w", err)
	}
	e.mu.Lock()
	e.id = c.ID()
	e.mu.Unlock()
	if err := ready(ctx); err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	// River stops hard when the Start context ends; workers should live
	// until Stop, whatever the caller's start-up context does.
	if err := c.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("queue: start workers: %w", err)
	}
	e.mu.Lock()
	e.worker = c
	e.mu.Unlock()
	return nil
}

func (e *engine[TTx]) replicaID() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.id
}

func (e *engine[TTx]) stop(ctx context.Context) error {
	e.mu.Lock()
	c := e.worker
	e.worker = nil
	e.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Stop(ctx)
}
