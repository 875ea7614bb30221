package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/benchgate/benchgate/bot/queue"
	"github.com/benchgate/benchgate/internal/callcount"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// QueueAdapter stores the webhook's jobs in the durable queue. The queue
// bounds what waits (queue.Options.MaxWaiting): a verification, rerun,
// reproduction or acceptance beyond the bound fails with ErrOverloaded, while
// regenerations are always taken (only a merge makes one).
type QueueAdapter struct {
	Q *queue.Queue
	// StrangerVerifyEvery is the window in which a pull request takes one
	// /benchgate verify from strangers (0: StrangerVerifyEvery).
	StrangerVerifyEvery time.Duration
	// Now is the clock of that window (time.Now when nil).
	Now func() time.Time
}

// Enqueue implements Enqueuer.
func (a QueueAdapter) Enqueue(ctx context.Context, j Job) (bool, error) {
	switch j.Kind {
	case KindVerify:
		// Not superseding here: deliveries arrive out of order, and a
		// delayed event for an old head must not cancel the newest. The
		// job supersedes by the head GitHub gives (Worker.Supersede).
		key := j.WorkKey
		if j.Stranger && j.CommentID != 0 {
			key = a.strangerKey(j)
		}
		return a.Q.EnqueueVerify(ctx, queue.VerifyArgs{DeliveryID: j.DeliveryID, Repo: j.Repo, PR: j.PR, HeadSHA: j.HeadSHA, BaseRef: j.BaseRef, BaseSHA: j.BaseSHA, InstallationID: j.InstallationID,
			Rerequested: j.Rerequested, CommentID: j.CommentID, Commenter: j.Commenter, Stranger: j.Stranger, WorkKey: key})
	case KindRerun:
		return a.Q.EnqueueRerun(ctx, queue.RerunArgs{DeliveryID: j.DeliveryID, Repo: j.Repo, PR: j.PR, HeadSHA: j.HeadSHA, CommentID: j.CommentID, Commenter: j.Commenter, InstallationID: j.InstallationID, WorkKey: j.WorkKey})
	case KindReproduce:
		return a.Q.EnqueueReproduce(ctx, queue.ReproduceArgs{DeliveryID: j.DeliveryID, Repo: j.Repo, PR: j.PR, HeadSHA: j.HeadSHA, CommentID: j.CommentID, Commenter: j.Commenter, Branch: j.Branch, InstallationID: j.InstallationID, WorkKey: j.WorkKey})
	case KindAccept:
		return a.Q.EnqueueAccept(ctx, queue.AcceptArgs{DeliveryID: j.DeliveryID, Repo: j.Repo, PR: j.PR, HeadSHA: j.HeadSHA, CommentID: j.CommentID, Commenter: j.Commenter, Reason: j.Reason, Branch: j.Branch, InstallationID: j.InstallationID, WorkKey: j.WorkKey})
	case KindRegenerate:
		return a.Q.EnqueueRegenerate(ctx, queue.RegenerateArgs{DeliveryID: j.DeliveryID, Repo: j.Repo, AfterSHA: j.AfterSHA, Branch: j.Branch, InstallationID: j.InstallationID})
	}
	return false, fmt.Errorf("unknown job kind %q", j.Kind)
}

// strangerKey names a stranger's /benchgate verify by its pull request
// and the window of the clock it came in: the first of a window is
// queued, the others (and replays of it) are duplicates. Windows are
// aligned to the clock, so two may come a moment apart across a window's
// end, never more.
func (a QueueAdapter) strangerKey(j Job) string {
	every := a.StrangerVerifyEvery
	if every <= 0 {
		every = StrangerVerifyEvery
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	return fmt.Sprintf("stranger-verify:%s#%d@%d", j.Repo, j.PR, now().UnixNano()/int64(every))
}

// logged runs a job and logs its end with the delivery that caused it.
func (w *Worker) logged(ctx context.Context, j Job, run func(ctx context.Context) error) error {
	start := time.Now()
	ctx, calls := callcount.With(ctx)
	err := run(ctx)
	if w.OnCalls != nil {
		w.OnCalls(j.Kind, calls.N())
	}
	log := w.Log.With("kind", j.Kind, "delivery", j.DeliveryID, "repo", j.Repo, "pr", j.PR, "head_sha", j.HeadSHA, "ms", time.Since(start).Milliseconds(), "github_calls", calls.N())
	if err != nil {
		log.Warn("job failed; it will be retried", "err", err)
	} else {
		log.Info("job done")
	}
	return err
}

// Handlers runs the queue's jobs with w.
func (w *Worker) Handlers() queue.Handlers {
	return queue.Handlers{
		Verify: func(ctx context.Context, a queue.VerifyArgs) error {
			j := Job{Kind: KindVerify, DeliveryID: a.DeliveryID, Repo: a.Repo, PR: a.PR, HeadSHA: a.HeadSHA, BaseRef: a.BaseRef, BaseSHA: a.BaseSHA, InstallationID: a.InstallationID,
				Rerequested: a.Rerequested, CommentID: a.CommentID, Commenter: a.Commenter, Stranger: a.Stranger, WorkKey: a.WorkKey}
			return w.logged(ctx, j, func(ctx context.Context) error { return w.VerifyPR(ctx, j) })
		},
		Rerun: func(ctx context.Context, a queue.RerunArgs) error {
			j := Job{Kind: KindRerun, DeliveryID: a.DeliveryID, Repo: a.Repo, PR: a.PR, HeadSHA: a.HeadSHA, CommentID: a.CommentID, Commenter: a.Commenter, InstallationID: a.InstallationID}
			return w.logged(ctx, j, func(ctx context.Context) error { return w.Rerun(ctx, j) })
		},
		Reproduce: func(ctx context.Context, a queue.ReproduceArgs) error {
			j := Job{Kind: KindReproduce, DeliveryID: a.DeliveryID, Repo: a.Repo, PR: a.PR, HeadSHA: a.HeadSHA, CommentID: a.CommentID, Commenter: a.Commenter, Branch: a.Branch, InstallationID: a.InstallationID}
			return w.logged(ctx, j, func(ctx context.Context) error { return w.Reproduce(ctx, j) })
		},
		Accept: func(ctx context.Context, a queue.AcceptArgs) error {
			j := Job{Kind: KindAccept, DeliveryID: a.DeliveryID, Repo: a.Repo, PR: a.PR, HeadSHA: a.HeadSHA, CommentID: a.CommentID, Commenter: a.Commenter, Reason: a.Reason, Branch: a.Branch, InstallationID: a.InstallationID}
			return w.logged(ctx, j, func(ctx context.Context) error { return w.Accept(ctx, j) })
		},
		Regenerate: func(ctx context.Context, a queue.RegenerateArgs) error {
			sha, err := w.Regenerate(ctx, Job{Kind: KindRegenerate, DeliveryID: a.DeliveryID, Repo: a.Repo, AfterSHA: a.AfterSHA, InstallationID: a.InstallationID}, a.Branch)
			if err == nil {
				w.Log.Info("leaderboard regenerated", "repo", a.Repo, "after_sha", a.AfterSHA, "commit", sha)
			}
			return err
		},
	}
}

// Metrics are the App's Prometheus metrics.
type Metrics struct {
	Registry   *prometheus.Registry
	Deliveries *prometheus.CounterVec // by event label (Webhook.Observe) and outcome
	Jobs       *prometheus.GaugeVec   // by kind and state
	QueueAge   prometheus.Gauge       // seconds the oldest available job has waited
	Maintainer prometheus.Gauge       // 1 on the queue's maintainer
	Replicas   prometheus.Gauge       // replicas with a fresh heartbeat
	GitHub     *prometheus.CounterVec // GitHub responses by status
	RateLimit  prometheus.Gauge       // the last X-RateLimit-Remaining GitHub reported
	JudgeCalls prometheus.Counter
	JudgeSpend prometheus.Counter // USD
	// SpendToday is the judge spend of today's spot-checks (UTC), from
	// the ledger: it counts every process working the queue.
	SpendToday prometheus.Gauge
	Refusals   *prometheus.CounterVec // work refused by a limit, by limit
	Limit      *prometheus.GaugeVec   // the configured limits, by name
	// JobCalls is the REST calls each run of a job made to GitHub, by
	// kind: what a job spends of the installation's hourly budget.
	JobCalls *prometheus.HistogramVec
	// RefreshEvery is how long /metrics and /readyz reuse the queue's
	// figures before reading them again (0: DefaultRefreshEvery).
	RefreshEvery time.Duration
}

// SetLimits publishes the configured limits.
func (m *Metrics) SetLimits(l Limits) {
	m.Limit.WithLabelValues(LimitPRSpotChecks).Set(float64(l.SpotChecksPerPR))
	m.Limit.WithLabelValues(LimitAuthorSpotChecks).Set(float64(l.SpotChecksPerAuthorDay))
	m.Limit.WithLabelValues(LimitRepoSpotChecks).Set(float64(l.SpotChecksPerRepoDay))
	m.Limit.WithLabelValues(LimitDailySpend).Set(l.JudgeUSDPerDay)
	m.Limit.WithLabelValues("spot_check_usd").Set(l.SpotCheckUSD)
	m.Limit.WithLabelValues("spot_check_calls").Set(float64(l.SpotCheckCalls))
	m.Limit.WithLabelValues(LimitQueue).Set(float64(l.QueueWaiting))
}

// Refused counts work refused by a limit (Ledger.OnRefuse).
func (m *Metrics) Refused(limit string) { m.Refusals.WithLabelValues(limit).Inc() }

// ObserveGitHub records one GitHub response (ghapp.Config.Observe).
func (m *Metrics) ObserveGitHub(status, remaining int) {
	m.GitHub.WithLabelValues(strconv.Itoa(status)).Inc()
	if remaining >= 0 {
		m.RateLimit.Set(float64(remaining))
	}
}

// ObserveJobCalls records the GitHub calls of one run of a job
// (Worker.OnCalls).
func (m *Metrics) ObserveJobCalls(kind Kind, calls int64) {
	m.JobCalls.WithLabelValues(string(kind)).Observe(float64(calls))
}

// ObserveJudge records a spot-check's judge calls and spend
// (Worker.OnJudge).
func (m *Metrics) ObserveJudge(calls int, usd float64) {
	m.JudgeCalls.Add(float64(calls))
	m.JudgeSpend.Add(usd)
}

// NewMetrics registers the metrics on a registry of their own, with Go's
// runtime and process metrics beside them.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry:   prometheus.NewRegistry(),
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "benchgate_webhook_deliveries_total", Help: "Webhook deliveries by event (an event the App acts on, other, or unverified before the signature holds) and outcome (queued, duplicate, ignored, bad_signature, busy, …)."}, []string{"event", "outcome"}),
		Jobs:       prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "benchgate_jobs", Help: "Jobs in the queue by kind and state."}, []string{"kind", "state"}),
		QueueAge:   prometheus.NewGauge(prometheus.GaugeOpts{Name: "benchgate_queue_oldest_available_seconds", Help: "How long the oldest job waiting to run has waited."}),
		Maintainer: prometheus.NewGauge(prometheus.GaugeOpts{Name: "benchgate_queue_maintainer", Help: "1 when this replica is the queue's maintainer (it rescues abandoned jobs and reconciles), else 0."}),
		Replicas:   prometheus.NewGauge(prometheus.GaugeOpts{Name: "benchgate_queue_replicas", Help: "Replicas working the queue whose heartbeat is fresh."}),
		GitHub:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "benchgate_github_responses_total", Help: "Responses from GitHub's API by HTTP status (0: no response)."}, []string{"status"}),
		RateLimit:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "benchgate_github_rate_limit_remaining", Help: "The X-RateLimit-Remaining GitHub last reported."}),
		JudgeCalls: prometheus.NewCounter(prometheus.CounterOpts{Name: "benchgate_judge_calls_total", Help: "Judge calls made by spot-checks."}),
		JudgeSpend: prometheus.NewCounter(prometheus.CounterOpts{Name: "benchgate_judge_spend_usd_total", Help: "Reported or computed cost of the judge calls, in US dollars."}),
		SpendToday: prometheus.NewGauge(prometheus.GaugeOpts{Name: "benchgate_judge_spend_today_usd", Help: "Spend of today's spot-checks and reproductions (UTC day), spent or reserved, in US dollars."}),
		Refusals:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: "benchgate_limit_refusals_total", Help: "Spot-checks or deliveries refused by an abuse limit, by limit."}, []string{"limit"}),
		Limit:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "benchgate_limit", Help: "The configured abuse limits, by name."}, []string{"limit"}),
		JobCalls: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "benchgate_job_github_calls", Help: "REST calls to GitHub made by one run of a job, by kind.",
			Buckets: []float64{2, 5, 10, 15, 20, 30, 50, 100, 200, 500, 1000}}, []string{"kind"}),
	}
	m.Registry.MustRegister(m.Deliveries, m.Jobs, m.QueueAge, m.Maintainer, m.Replicas, m.GitHub, m.RateLimit, m.JudgeCalls, m.JudgeSpend, m.SpendToday, m.Refusals, m.Limit, m.JobCalls, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// QueueReader is what /metrics and /readyz read from the queue
// (*queue.Queue).
type QueueReader interface {
	Stats(ctx context.Context) (queue.Stats, error)
	Leading() bool
	LiveReplicas(ctx context.Context) (int, error)
	SpentSince(ctx context.Context, since time.Time) (float64, error)
}

// Refresh reads the queue's figures into the gauges.
func (m *Metrics) Refresh(ctx context.Context, q QueueReader) error {
	st, err := q.Stats(ctx)
	if err != nil {
		return err
	}
	m.Jobs.Reset()
	for kind, states := range st.Counts {
		for state, n := range states {
			m.Jobs.WithLabelValues(kind, state).Set(float64(n))
		}
	}
	m.QueueAge.Set(st.OldestAvailableAge.Seconds())
	m.Maintainer.Set(0)
	if q.Leading() {
		m.Maintainer.Set(1)
	}
	n, err := q.LiveReplicas(ctx)
	if err != nil {
		return err
	}
	m.Replicas.Set(float64(n))
	spent, err := q.SpentSince(ctx, queue.DayStart(time.Now()))
	if err != nil {
		return err
	}
	m.SpendToday.Set(spent)
	return nil
}

// DefaultRefreshEvery is how long the queue's figures are reused by
// /metrics and /readyz when Metrics.RefreshEvery is not set.
const DefaultRefreshEvery = 2 * time.Second

// queueReadTimeout bounds one read of the queue's figures, and how long a
// request to /metrics or /readyz waits for it.
const queueReadTimeout = 2 * time.Second

// queueFigures reads the queue's figures into the metrics at most once
// per ttl, however many ask, one read at a time: /metrics and /readyz
// answer anyone, and each read is a round trip on the queue's database,
// whose one SQLite connection the deliveries and the workers need.
type queueFigures struct {
	m   *Metrics
	q   QueueReader
	ttl time.Duration
	log *slog.Logger

	mu      sync.Mutex
	at      time.Time     // when the last read ended; zero before the first
	err     error         // how it ended
	reading chan struct{} // closed when the read under way ends; nil when none
}

// get returns when the last read ended and how, first reading again when
// that read is older than ttl; it joins a read under way rather than start
// another, and stops waiting when ctx ends.
func (f *queueFigures) get(ctx context.Context) (time.Time, error) {
	f.mu.Lock()
	if !f.at.IsZero() && time.Since(f.at) < f.ttl {
		defer f.mu.Unlock()
		return f.at, f.err
	}
	if f.reading == nil {
		f.reading = make(chan struct{})
		go f.read(f.reading)
	}
	done := f.reading
	f.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at, f.err
}

// read reads the figures, under a context of its own: the request that
// started it may go away, and others wait for it.
func (f *queueFigures) read(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), queueReadTimeout)
	defer cancel()
	err := f.m.Refresh(ctx, f.q)
	if err != nil {
		// Logged once per read, not once per request that sees it.
		f.log.Warn("cannot read the queue's figures", "err", err)
	}
	f.mu.Lock()
	f.at, f.err, f.reading = time.Now(), err, nil
	f.mu.Unlock()
	close(done)
}

// ready says what is amiss with the queue, as of the last read: nil when
// it answered within ttl and the read's timeout.
func (f *queueFigures) ready(ctx context.Context) error {
	at, err := f.get(ctx)
	switch {
	case at.IsZero():
		return errors.New("the queue's database has not answered yet")
	case err != nil:
		return fmt.Errorf("the queue's database does not answer (%s ago)", time.Since(at).Round(time.Millisecond))
	case time.Since(at) > f.ttl+queueReadTimeout:
		return fmt.Errorf("the queue's database last answered %s ago", time.Since(at).Round(time.Millisecond))
	}
	return nil
}

// Mux serves the App's endpoints: POST /webhook, GET /healthz (the
// process answers), GET /readyz (ready, when set, finds nothing amiss,
// and the queue's database answered its last read) and GET /metrics. The
// queue's figures behind the last two are read at most once per
// m.RefreshEvery, whoever asks.
func Mux(hook *Webhook, q QueueReader, m *Metrics, log *slog.Logger, ready func() error) *http.ServeMux {
	mux := http.NewServeMux()
	hook.Observe = func(event, outcome string) {
		m.Deliveries.WithLabelValues(event, outcome).Inc()
		if outcome == "overloaded" {
			m.Refused(LimitQueue)
		}
	}
	ttl := m.RefreshEvery
	if ttl <= 0 {
		ttl = DefaultRefreshEvery
	}
	figures := &queueFigures{m: m, q: q, ttl: ttl, log: log}
	mux.Handle("/webhook", hook)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if ready != nil {
			if err := ready(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		ctx, cancel := context.WithTimeout(r.Context(), queueReadTimeout)
		defer cancel()
		if err := figures.ready(ctx); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	metrics := promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), queueReadTimeout)
		defer cancel()
		figures.get(ctx)
		metrics.ServeHTTP(w, r)
	})
	return mux
}

// Serve runs the HTTP server on l and the queue's workers until ctx ends,
// then stops taking deliveries, drains running jobs (up to drain) and
// returns. It closes l. The caller listens, so that a port in use is
// known before anything starts, and a test can hold its port from the
// moment it chooses it.
func Serve(ctx context.Context, l net.Listener, mux http.Handler, q *queue.Queue, h queue.Handlers, workers int, drain time.Duration, log *slog.Logger) error {
	if err := q.Start(ctx, h, workers); err != nil {
		l.Close()
		return err
	}
	// A slow sender cannot hold a connection for long: ten seconds for
	// the headers, two minutes for a whole request (a 25 MB delivery
	// needs about 1.7 Mbit/s).
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	log.Info("benchgate serving", "listen", l.Addr().String())
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	shutdown, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	srv.Shutdown(shutdown)
	if qerr := q.Stop(shutdown); qerr != nil && err == nil {
		err = qerr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("benchgate stopped")
	return err
}
