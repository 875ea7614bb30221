// Package queue is the durable job queue behind the GitHub App: every webhook
// delivery is written here, committed, and only then acknowledged with 202, so
// a crash after the reply can never lose work. Jobs are run by River workers
// on SQLite (single-node deployments, tests) or PostgreSQL.
package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Job kinds, stored in River's kind column. They are part of the on-disk
// format: renaming one orphans queued jobs of the old name.
const (
	KindVerify     = "benchgate_verify"
	KindRerun      = "benchgate_rerun"
	KindReproduce  = "benchgate_reproduce"
	KindAccept     = "benchgate_accept"
	KindRegenerate = "benchgate_regenerate"
)

// DefaultMaxAttempts is how many times a job runs before River discards it.
const DefaultMaxAttempts = 10

// DefaultDeliveryRetention is how long a seen X-GitHub-Delivery id is kept.
// GitHub only lets deliveries from the last few days be redelivered, so a
// week leaves a wide margin while keeping the table small.
const DefaultDeliveryRetention = 7 * 24 * time.Hour

// DefaultCompletedRetention is how long finished jobs stay in the database,
// for inspection; uniqueness does not count them (see uniqueByArgs).
const DefaultCompletedRetention = 24 * time.Hour

// VerifyArgs asks for a submission pull request at a given head to be
// verified. Jobs are unique by (Repo, PR, HeadSHA, BaseSHA) while they
// wait or run: a redelivery or a second event for the same head on the
// same base (opened + synchronize, say) never runs twice at once, and
// WorkKey keeps it from running again later.
type VerifyArgs struct {
	DeliveryID string `json:"delivery_id"`
	Repo       string `json:"repo" river:"unique"`
	PR         int    `json:"pr" river:"unique"`
	HeadSHA    string `json:"head_sha" river:"unique"`
	// BaseSHA and BaseRef are the base the delivery named, when it named
	// one: a pull request moved to another base is verified again.
	BaseSHA        string `json:"base_sha,omitempty" river:"unique"`
	BaseRef        string `json:"base_ref,omitempty"`
	InstallationID int64  `json:"installation_id"`
	// Rerequested: someone asked for this verification again. It
	// supersedes a waiting retry of the same head or pull request.
	Rerequested bool `json:"rerequested,omitempty"`
	// CommentID and Commenter name the /benchgate verify comment that
	// asked, if one did.
	CommentID int64  `json:"comment_id,omitempty"`
	Commenter string `json:"commenter,omitempty"`
	// Stranger: the commenter is not one of the repository's
	// collaborators, and the verification may not spend judge budget.
	Stranger bool `json:"stranger,omitempty"`
	// WorkKey, when set, names the work (see work.go): an enqueue whose
	// key is remembered is a duplicate.
	WorkKey string `json:"work_key,omitempty"`
}

// Kind implements river.JobArgs.
func (VerifyArgs) Kind() string { return KindVerify }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (VerifyArgs) InsertOpts() river.InsertOpts { return uniqueByArgs() }

// RerunArgs asks for a verification to be rerun because of a comment command.
// Jobs are unique by (Repo, PR, HeadSHA, CommentID): each command runs once.
type RerunArgs struct {
	DeliveryID     string `json:"delivery_id"`
	Repo           string `json:"repo" river:"unique"`
	PR             int    `json:"pr" river:"unique"`
	HeadSHA        string `json:"head_sha" river:"unique"`
	CommentID      int64  `json:"comment_id" river:"unique"`
	Commenter      string `json:"commenter"` // whose permission the job checks
	InstallationID int64  `json:"installation_id"`
	WorkKey        string `json:"work_key,omitempty"` // see VerifyArgs.WorkKey
}

// Kind implements river.JobArgs.
func (RerunArgs) Kind() string { return KindRerun }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (RerunArgs) InsertOpts() river.InsertOpts { return uniqueByArgs() }

// ReproduceArgs asks for a submission to be reproduced because of a
// comment command. Jobs are unique by (Repo, PR, HeadSHA, CommentID), as
// reruns are.
type ReproduceArgs struct {
	DeliveryID     string `json:"delivery_id"`
	Repo           string `json:"repo" river:"unique"`
	PR             int    `json:"pr" river:"unique"`
	HeadSHA        string `json:"head_sha" river:"unique"`
	CommentID      int64  `json:"comment_id" river:"unique"`
	Commenter      string `json:"commenter"` // whose permission the job checks
	Branch         string `json:"branch"`    // the default branch, where the record is committed
	InstallationID int64  `json:"installation_id"`
	WorkKey        string `json:"work_key,omitempty"` // see VerifyArgs.WorkKey
}

// Kind implements river.JobArgs.
func (ReproduceArgs) Kind() string { return KindReproduce }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (ReproduceArgs) InsertOpts() river.InsertOpts { return uniqueByArgs() }

// AcceptArgs asks for a maintainer's acceptance of a submission in
// review to be recorded because of a comment command (/benchgate accept).
// Jobs are unique by (Repo, PR, HeadSHA, CommentID), as reruns are.
type AcceptArgs struct {
	DeliveryID     string `json:"delivery_id"`
	Repo           string `json:"repo" river:"unique"`
	PR             int    `json:"pr" river:"unique"`
	HeadSHA        string `json:"head_sha" river:"unique"`
	CommentID      int64  `json:"comment_id" river:"unique"`
	Commenter      string `json:"commenter"` // whose permission the job checks
	Reason         string `json:"reason"`    // the rest of the command's line, checked by the job
	Branch         string `json:"branch"`    // the default branch, where the record is committed
	InstallationID int64  `json:"installation_id"`
	WorkKey        string `json:"work_key,omitempty"` // see VerifyArgs.WorkKey
}

// Kind implements river.JobArgs.
func (AcceptArgs) Kind() string { return KindAccept }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (AcceptArgs) InsertOpts() river.InsertOpts { return uniqueByArgs() }

// RegenerateArgs asks for the leaderboard to be regenerated after a push to
// the default branch. Jobs are unique by (Repo, AfterSHA), and coalesced
// per repository when they run (see coalesced).
type RegenerateArgs struct {
	DeliveryID     string `json:"delivery_id"`
	Repo           string `json:"repo" river:"unique"`
	AfterSHA       string `json:"after_sha" river:"unique"`
	Branch         string `json:"branch"` // the default branch the push went to
	InstallationID int64  `json:"installation_id"`
}

// Kind implements river.JobArgs.
func (RegenerateArgs) Kind() string { return KindRegenerate }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (RegenerateArgs) InsertOpts() river.InsertOpts { return uniqueByArgs() }

// uniqueByArgs makes the river:"unique" fields the job's unique key while
// a job with that key waits or runs: the same work asked for twice at once
// runs once. Work that is done is not a duplicate by uniqueness: a re-run
// someone asks for later (the Re-run button) runs again; a redelivered
// delivery is refused by its id (the deliveries table), and the same work
// asked for again under another id by its work key (work.go). No ByPeriod: period buckets are aligned to the clock, so two
// events a minute apart across a bucket boundary would both run.
func uniqueByArgs() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: activeStates}}
}

// activeStates are the states of a job that waits or runs.
var activeStates = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateRunning, rivertype.JobStateScheduled,
}

// Handlers are the functions the workers call. A non-nil error makes River
// retry the job with backoff until MaxAttempts; handlers must be idempotent
// because a job whose process died mid-run is run again (see
// Options.RescueStuckJobsAfter and Queue.RescueAbandoned). A nil handler
// makes jobs of that kind fail.
type Handlers struct {
	Verify     func(ctx context.Context, a VerifyArgs) error
	Rerun      func(ctx context.Context, a RerunArgs) error
	Reproduce  func(ctx context.Context, a ReproduceArgs) error
	Accept     func(ctx context.Context, a AcceptArgs) error
	Regenerate func(ctx context.Context, a RegenerateArgs) error
}

// Options tune a Queue; the zero value gives production defaults.
type Options struct {
	// Schema is the PostgreSQL schema holding River's and the queue's tables
	// (created if missing). Empty uses the connection's search_path. Ignored
	// for SQLite, where the file itself is the namespace.
	Schema string
	// MaxAttempts is how many times a job runs before it is discarded.
	// Defaults to DefaultMaxAttempts.
	MaxAttempts int
	// RetryPolicy decides when a failed job runs again. Defaults to River's
	// exponential backoff.
	RetryPolicy river.ClientRetryPolicy
	// RescueStuckJobsAfter is how long a job may run in this process
	// before the maintainer takes it for hung and makes it available to
	// run again (a job whose process stopped beating is rescued sooner,
	// see Heartbeat). It is recorded with this replica's heartbeat, so each
	// replica's jobs are judged by its own setting. It must exceed the
	// longest legitimate run, or a job could run twice concurrently.
	// Defaults to twice JobTimeout (never, when JobTimeout is -1).
	RescueStuckJobsAfter time.Duration
	// Heartbeat is how often a working process records that it lives; a
	// process silent for three heartbeats is taken for dead and its running
	// jobs run again. Defaults to DefaultHeartbeat.
	Heartbeat time.Duration
	// MaxWaiting, when positive, bounds the verify, rerun, reproduce and accept jobs waiting
	// to run: an enqueue beyond it fails with ErrFull. The count and the
	// insert are one transaction, serialised across processes, so replicas
	// admitting at once cannot overshoot. Regenerations are always taken.
	MaxWaiting int
	// JobTimeout is how long a handler may run before its context is
	// cancelled (the attempt then fails and is retried). Verification calls
	// slow models, so set it generously; -1 disables it. Defaults to
	// River's 1 minute. RescueStuckJobsAfter must not be shorter.
	JobTimeout time.Duration
	// FetchPollInterval is how often workers poll for new jobs. SQLite has no
	// LISTEN/NOTIFY so polling is how jobs get picked up there. Defaults to
	// River's 1 second; River rejects values under 100ms.
	FetchPollInterval time.Duration
	// CompletedRetention is how long completed jobs are kept, which is also
	// the de-duplication window for finished jobs. Defaults to
	// DefaultCompletedRetention.
	CompletedRetention time.Duration
	// DeliveryRetention is how long seen delivery ids are kept. Defaults to
	// DefaultDeliveryRetention.
	DeliveryRetention time.Duration
	// WorkRetention is how long done work and verdicts are remembered
	// (see work.go). Defaults to DefaultWorkRetention.
	WorkRetention time.Duration
	// TestOnly disables River's start-up jitter of maintenance services,
	// which only slows tests down.
	TestOnly bool
}

// Stats is a snapshot for metrics.
type Stats struct {
	// Counts maps job kind to job state (River's state names: available,
	// running, retryable, completed, ...) to the number of jobs.
	Counts map[string]map[string]int
	// OldestAvailableAge is how long the oldest job ready to run has been
	// waiting; zero when nothing is waiting. A growing value means workers
	// are not keeping up.
	OldestAvailableAge time.Duration
}

// Queue is a durable job queue. Its methods are safe for concurrent use.
type Queue struct {
	b      backend
	opts   Options
	logger *slog.Logger

	leading   atomic.Bool
	lastPrune time.Time // of the maintain goroutine

	mu       sync.Mutex
	running  bool
	stopTend context.CancelFunc
	tendDone chan struct{}
}

// backend hides the driver-specific transaction type River is generic over.
type backend interface {
	// enqueue records deliveryID and workKey (each when not empty),
	// cancels the waiting retries retry names (when not nil) and inserts
	// the job in one transaction, reporting whether a job was inserted.
	enqueue(ctx context.Context, deliveryID, workKey string, retry *retryTarget, args river.JobArgs) (bool, error)
	start(ctx context.Context, h Handlers, workers int, ready func(context.Context) error) error
	stop(ctx context.Context) error
	supersedeVerify(ctx context.Context, repo string, pr int, keepHead string, before time.Time) (int, error)
	newerVerify(ctx context.Context, repo string, pr int, head string, since time.Time) (bool, error)
	// withLock runs fn holding the lock named key, across every process
	// working the queue.
	withLock(ctx context.Context, key string, fn func() error) error
	// tryLock is withLock when the lock is free; it reports false, without
	// running fn, when another holds it.
	tryLock(ctx context.Context, key string, fn func() error) (bool, error)
	// newerRegenerate reports whether a regeneration of repo's branch
	// queued after job id waits, runs or ran (and so reads a branch with
	// everything job id was queued for).
	newerRegenerate(ctx context.Context, repo, branch string, id int64) (bool, error)
	// replicaID is the worker client's id once started.
	replicaID() string
	// heartbeat records that this replica lives, with how often it beats
	// and how long its jobs may run.
	heartbeat(ctx context.Context, every, rescueAfter time.Duration) error
	// forget removes this replica's heartbeat row and gives up the
	// maintainer's role.
	forget(ctx context.Context) error
	// lead takes or keeps the maintainer's role, reporting whether this
	// process holds it.
	lead(ctx context.Context, every time.Duration) (bool, error)
	replicas(ctx context.Context) ([]Replica, error)
	// rescue makes abandoned running jobs available again (see
	// Queue.RescueAbandoned); orphanAfter is how long a job whose replica
	// has no heartbeat row at all may run before it counts as abandoned.
	rescue(ctx context.Context, orphanAfter time.Duration) (int, error)
	// prune deletes delivery ids older than deliveries and the rows of
	// replicas silent for longer than replicas.
	prune(ctx context.Context, deliveries, replicas time.Duration) error
	stats(ctx context.Context) (Stats, error)
	recordVerdict(ctx context.Context, v Verdict) error
	lastVerdict(ctx context.Context, repo string, pr int) (Verdict, bool, error)
	verdictsOnHead(ctx context.Context, repo, head string) ([]Verdict, error)
	rememberedWork(ctx context.Context, key string) (bool, error)
	admit(ctx context.Context, now time.Time, sc SpotCheck, decide func(Usage) Grant) (Grant, bool, error)
	settle(ctx context.Context, key string, calls int, usd float64) error
	release(ctx context.Context, key string) error
	spentSince(ctx context.Context, since time.Time) (float64, error)
	waiting(ctx context.Context) (int, error)
	close() error
}

// Open opens the queue database from a URL, "sqlite:PATH" (PATH may be
// ":memory:") or "postgres://…", and migrates River's schema.
func Open(ctx context.Context, url string, logger *slog.Logger) (*Queue, error) {
	return OpenWithOptions(ctx, url, logger, Options{})
}

// OpenWithOptions is Open with tuning; see Options.
func OpenWithOptions(ctx context.Context, url string, logger *slog.Logger, opts Options) (*Queue, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.CompletedRetention <= 0 {
		opts.CompletedRetention = DefaultCompletedRetention
	}
	if opts.DeliveryRetention <= 0 {
		opts.DeliveryRetention = DefaultDeliveryRetention
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.WorkRetention <= 0 {
		opts.WorkRetention = DefaultWorkRetention
	}
	var (
		b   backend
		err error
	)
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		b, err = openSQLite(ctx, strings.TrimPrefix(url, "sqlite:"), logger, opts)
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		b, err = openPostgres(ctx, url, logger, opts)
	default:
		return nil, fmt.Errorf("queue: unsupported database URL scheme (want sqlite: or postgres://)")
	}
	if err != nil {
		return nil, err
	}
	return &Queue{b: b, opts: opts, logger: logger}, nil
}

// Close stops workers if they are still running (without waiting for them)
// and closes the database. Call Stop first for a graceful shutdown.
func (q *Queue) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // an already-done context: stop without draining
	stopErr := q.Stop(ctx)
	if errors.Is(stopErr, context.Canceled) {
		stopErr = nil
	}
	return errors.Join(stopErr, q.b.close())
}

// EnqueueVerify durably enqueues a verification; inserted is false when the
// delivery id was already seen, its work key is remembered, or an equal
// job waits or runs. A rerequested verification first cancels the
// waiting retries of its head (or, head unknown, of its pull request).
func (q *Queue) EnqueueVerify(ctx context.Context, a VerifyArgs) (inserted bool, err error) {
	return q.b.enqueue(ctx, a.DeliveryID, a.WorkKey, a.rerequest(), a)
}

// EnqueueRerun durably enqueues a rerun; see EnqueueVerify.
func (q *Queue) EnqueueRerun(ctx context.Context, a RerunArgs) (inserted bool, err error) {
	return q.b.enqueue(ctx, a.DeliveryID, a.WorkKey, nil, a)
}

// EnqueueReproduce durably enqueues a reproduction; see EnqueueVerify.
func (q *Queue) EnqueueReproduce(ctx context.Context, a ReproduceArgs) (inserted bool, err error) {
	return q.b.enqueue(ctx, a.DeliveryID, a.WorkKey, nil, a)
}

// EnqueueAccept durably enqueues an acceptance; see EnqueueVerify.
func (q *Queue) EnqueueAccept(ctx context.Context, a AcceptArgs) (inserted bool, err error) {
	return q.b.enqueue(ctx, a.DeliveryID, a.WorkKey, nil, a)
}

// EnqueueRegenerate durably enqueues a regeneration; see EnqueueVerify.
func (q *Queue) EnqueueRegenerate(ctx context.Context, a RegenerateArgs) (inserted bool, err error) {
	return q.b.enqueue(ctx, a.DeliveryID, "", nil, a)
}

// Start runs up to workers jobs at a time, calling h, until Stop or Close.
// It returns once workers are running.
func (q *Queue) Start(ctx context.Context, h Handlers, workers int) error {
	if workers <= 0 {
		return errors.New("queue: workers must be positive")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running {
		return errors.New("queue: already started")
	}
	// The heartbeat row exists before the first job is fetched, so the
	// maintainer never takes this replica's jobs for orphans.
	beat := func(ctx context.Context) error { return q.b.heartbeat(ctx, q.opts.Heartbeat, q.rescueAfter()) }
	h.Regenerate = q.coalesced(h.Regenerate)
	if err := q.b.start(ctx, h, workers, beat); err != nil {
		return err
	}
	q.running = true
	// Upkeep runs only in processes that work the queue, so an
	// insert-only process never pays for it.
	// The first round runs now, so that Leading is known when Start
	// returns.
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	q.stopTend, q.tendDone = cancel, make(chan struct{})
	q.tend(tctx)
	go q.maintain(tctx, q.tendDone)
	return nil
}

// Stop stops fetching jobs and waits for running ones to finish until ctx
// ends; then it returns ctx's error and abandons them (their jobs stay
// running in the database and are rescued by the maintainer soon after,
// since this replica no longer beats).
func (q *Queue) Stop(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.running {
		return nil
	}
	q.running = false
	// It beats on while running jobs drain: a replica silent for three
	// heartbeats would have them run again elsewhere meanwhile.
	err := q.b.stop(ctx)
	q.stopTend()
	<-q.tendDone
	q.leading.Store(false)
	// Whatever Stop left running is abandoned now: without the row the
	// maintainer rescues it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return errors.Join(err, q.b.forget(fctx))
}

// SupersedeVerify cancels verify jobs for repo/pr whose head is not keepHead,
// which were queued before before and have not started (available,
// scheduled, retryable or pending). keepHead is the pull request's head as
// GitHub gave it at before: a job queued earlier for another head is
// stale, while one queued since may be for a newer push. Running jobs are
// left alone: they finish and their result is simply stale.
func (q *Queue) SupersedeVerify(ctx context.Context, repo string, pr int, keepHead string, before time.Time) (cancelled int, err error) {
	return q.b.supersedeVerify(ctx, repo, pr, keepHead, before)
}

// WithLock runs fn while holding the lock named key, for every process
// working the queue: on PostgreSQL a session advisory lock, on SQLite
// (one process) a lock of this Queue's. Work that must not interleave
// across replicas, such as finding and creating a pull request's one
// comment, runs under it.
func (q *Queue) WithLock(ctx context.Context, key string, fn func() error) error {
	return q.b.withLock(ctx, key, fn)
}

// NewerVerify reports whether a verify job for repo/pr with another head
// than head was queued after since, in any state.
func (q *Queue) NewerVerify(ctx context.Context, repo string, pr int, head string, since time.Time) (bool, error) {
	return q.b.newerVerify(ctx, repo, pr, head, since)
}

// Stats counts jobs by kind and state and measures queueing delay.
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	return q.b.stats(ctx)
}
