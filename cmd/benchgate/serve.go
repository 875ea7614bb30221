package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/ghapp"
	"github.com/benchgate/benchgate/bot/queue"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
)

// appGit gives publish the clone URL and an installation token.
type appGit struct {
	cfg bot.Config
	app *ghapp.App
}

func (g appGit) CloneURL(repo string) string { return g.cfg.CloneURL(repo) }
func (g appGit) Token(ctx context.Context, inst int64) (string, error) {
	return g.app.Token(ctx, inst)
}

func runServe(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("serve", "[--workers N] [--drain 60s] (configuration from BENCHGATE_* variables; see docs/github-app.md)", stderr)
	workers := fl.Int("workers", 4, "jobs run at once")
	drain := fl.Duration("drain", 60*time.Second, "on SIGTERM, how long running jobs may take to finish")
	configFile := fl.String("config", "", "an optional YAML file with the settings (keys: the variables' names without BENCHGATE_, in lower case); the environment overrides it")
	reconcile := fl.Duration("reconcile", 10*time.Minute, "how often open pull requests without a benchgate check are looked for (also at start-up); 0: never")
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 {
		return usageError(fl, nil)
	}
	getenv := os.Getenv
	if *configFile != "" {
		data, err := os.ReadFile(*configFile)
		if err == nil {
			getenv, err = bot.WithFile(os.Getenv, data, *configFile)
		}
		if err != nil {
			return setupError(err)
		}
	}
	cfg, err := bot.LoadConfig(getenv, os.ReadFile)
	if err != nil {
		return &exitError{code: exitSetup, err: err, bare: true} // "benchgate serve cannot start: ..."
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, cfg, nil, *workers, *drain, *reconcile, stderr)
}

// serve runs the App with cfg until ctx ends, on l, or when l is nil on a
// listener of its own at cfg.Listen. The port is taken first, so that one
// in use stops the App before it opens its queue.
func serve(ctx context.Context, cfg bot.Config, l net.Listener, workers int, drain time.Duration, reconcile time.Duration, stderr io.Writer) error {
	if l == nil {
		var err error
		if l, err = net.Listen("tcp", cfg.Listen); err != nil {
			return setupError(fmt.Errorf("BENCHGATE_LISTEN=%s: %v", cfg.Listen, err))
		}
	}
	served := false
	defer func() {
		if !served {
			l.Close()
		}
	}()
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	log.Info("configuration", "config", cfg.String())
	logDatabase(log, cfg.DatabaseURL)
	warnUnset(log, cfg)
	metrics := bot.NewMetrics()
	metrics.SetLimits(cfg.Limits)
	gcfg := ghapp.Config{AppID: cfg.AppID, PrivateKey: cfg.PrivateKey, BaseURL: cfg.GitHubAPIURL, Observe: metrics.ObserveGitHub}
	if cfg.CacheDir != "" {
		gcfg.Blobs = filecache.Dir(filepath.Join(cfg.CacheDir, "blobs"))
	}
	app, err := ghapp.New(gcfg)
	if err != nil {
		return setupError(err)
	}
	w := &bot.Worker{GH: app, Git: appGit{cfg, app}, RerunSecret: cfg.RerunSecret, RerunBudget: cfg.Limits.SpotCheckCalls, AutoRerun: cfg.RerunPolicy == bot.RerunAuto, OnJudge: metrics.ObserveJudge, OnCalls: metrics.ObserveJobCalls, BoardDir: cfg.BoardDir, BoardBranch: cfg.BoardBranch, Author: commitAuthor(cfg, app), Log: log}
	if cfg.PublishMode == bot.PublishPR {
		w.Propose = app
	}
	if cfg.CacheDir != "" {
		w.Cache = filecache.Dir(cfg.CacheDir)
	}
	if cfg.JudgeBaseURL != "" {
		if cfg.JudgePriceInput == nil {
			log.Warn("no judge prices (BENCHGATE_JUDGE_PRICE_INPUT, BENCHGATE_JUDGE_PRICE_OUTPUT): the daily judge budget counts only the cost an endpoint reports")
		}
		client, err := llm.New(llm.Config{BaseURL: cfg.JudgeBaseURL, APIKey: cfg.JudgeAPIKey, Timeout: cfg.JudgeTimeout, PriceInput: cfg.JudgePriceInput, PriceOutput: cfg.JudgePriceOutput,
			PriceCachedInput: cfg.JudgePriceCachedInput, AzureAPIVersion: cfg.JudgeAzureAPIVersion, Deployments: cfg.JudgeDeployments, TokenParam: cfg.JudgeTokenParam, Log: log})
		if err != nil {
			return setupError(fmt.Errorf("judge: %v", err))
		}
		// The model and request parameters are each benchmark's, from
		// its registry entry (judge.Judge.For), as for the CLI.
		w.Judge = &judge.Judge{LLM: client, Endpoint: client.Endpoint(), Cache: judgeCache(cfg.CacheDir), Prices: judgePrices(cfg.JudgePriceInput, cfg.JudgePriceOutput, cfg.JudgePriceCachedInput)}
	}
	if cfg.CandidateBaseURL != "" {
		if w.Candidate, err = candidate(cfg, log); err != nil {
			return setupError(err)
		}
	}
	q, err := queue.OpenWithOptions(ctx, cfg.DatabaseURL, log, queue.Options{JobTimeout: cfg.JobTimeout, RescueStuckJobsAfter: 2 * cfg.JobTimeout, MaxWaiting: cfg.Limits.QueueWaiting})
	if err != nil {
		return setupError(fmt.Errorf("the queue's database: %v", err))
	}
	defer q.Close()
	w.Budget = &bot.Ledger{Q: q, Limits: cfg.Limits, OnRefuse: metrics.Refused}
	w.Newer = q.NewerVerify
	w.Lock = q.WithLock
	w.Verdicts = q
	w.Supersede = func(ctx context.Context, repo string, pr int, head string, before time.Time) error {
		_, err := q.SupersedeVerify(ctx, repo, pr, head, before)
		return err
	}
	adapter := bot.QueueAdapter{Q: q}
	backlog := &bot.Backlog{}
	hook := &bot.Webhook{Secrets: cfg.WebhookSecrets, Queue: adapter, Log: log, Backlog: backlog}
	// The App learns who it is from GitHub before it recognises its own
	// comments and runs, signs its commits or reconciles; until then
	// /readyz says so and jobs that need it wait for their retry.
	go func() {
		if !learnIdentity(ctx, app, log) || reconcile <= 0 {
			return
		}
		// A delivery refused for want of room is looked for as soon as
		// the queue has room, by this replica, whichever leads.
		go backlog.HealWhenDrained(ctx, cfg.Limits.QueueWaiting, q.Waiting, app, adapter, log)
		bot.ReconcileEvery(ctx, reconcile, q.Leading, app, adapter, log)
	}()
	ready := func() error {
		if _, ok := app.Identity(); !ok {
			return ghapp.ErrNoIdentity
		}
		return nil
	}
	mux := bot.Mux(hook, q, metrics, log, ready)
	served = true // Serve closes it
	if err := bot.Serve(ctx, l, mux, q, w.Handlers(), workers, drain, log); err != nil {
		return setupError(err) // it cannot listen, or the queue failed
	}
	return nil
}

// candidate is the endpoint /benchgate reproduce asks, as configured.
func candidate(cfg bot.Config, log *slog.Logger) (*bot.Candidate, error) {
	if cfg.CandidatePriceInput == nil {
		log.Warn("no candidate prices (BENCHGATE_CANDIDATE_PRICE_INPUT, BENCHGATE_CANDIDATE_PRICE_OUTPUT): the daily budget counts only the cost the candidate endpoint reports")
	}
	client, err := llm.New(llm.Config{BaseURL: cfg.CandidateBaseURL, APIKey: cfg.CandidateAPIKey, Timeout: cfg.CandidateTimeout, PriceInput: cfg.CandidatePriceInput, PriceOutput: cfg.CandidatePriceOutput,
		PriceCachedInput: cfg.CandidatePriceCachedInput, Log: log})
	if err != nil {
		return nil, fmt.Errorf("candidate endpoint: %v", err)
	}
	c := &bot.Candidate{LLM: client, Models: cfg.CandidateModels, Prices: judgePrices(cfg.CandidatePriceInput, cfg.CandidatePriceOutput, cfg.CandidatePriceCachedInput)}
	if u, err := url.Parse(cfg.CandidateBaseURL); err == nil {
		c.Endpoint = u.Host
	}
	return c, nil
}

// warnUnset says at start-up what will not work for want of a setting
// that serve can run without.
func warnUnset(log *slog.Logger, cfg bot.Config) {
	if cfg.JudgeBaseURL == "" {
		log.Warn("no judge (BENCHGATE_JUDGE_BASE_URL is unset): spot-checks of rubric submissions cannot run; /benchgate rerun on one reports that no judge is configured", "unset", "BENCHGATE_JUDGE_BASE_URL")
	}
	if cfg.CandidateBaseURL == "" {
		log.Warn("no candidate endpoint (BENCHGATE_CANDIDATE_API_KEY and BENCHGATE_CANDIDATE_BASE_URL are unset): /benchgate reproduce reports that the model cannot be asked", "unset", "BENCHGATE_CANDIDATE_API_KEY")
	}
}

// logDatabase says where a SQLite queue lives, and loudly when it is the
// default file in the working directory: a container or a unit started
// elsewhere would begin with an empty queue and lose the waiting jobs.
func logDatabase(log *slog.Logger, dbURL string) {
	file, ok := strings.CutPrefix(dbURL, "sqlite:")
	if !ok || file == ":memory:" {
		return
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	if dbURL == bot.DefaultDatabaseURL {
		log.Warn("the job queue is the SQLite file "+file+", in the working directory, since BENCHGATE_DATABASE_URL is unset; "+
			"to keep jobs across restarts and upgrades set BENCHGATE_DATABASE_URL=sqlite:/var/lib/benchgate/benchgate.db (a persistent volume) or postgres://…", "database", file)
		return
	}
	log.Info("the job queue's database", "sqlite", file)
}

// commitAuthor signs the App's leaderboard commits: as configured, or as
// GitHub shows the App once it has learned its identity.
func commitAuthor(cfg bot.Config, app *ghapp.App) func() (string, string, error) {
	return func() (string, string, error) {
		if cfg.AuthorName != "" {
			return cfg.AuthorName, cfg.AuthorEmail, nil
		}
		id, ok := app.Identity()
		if !ok {
			return "", "", ghapp.ErrNoIdentity
		}
		return id.CommitName(), id.CommitEmail(), nil
	}
}

// learnIdentity asks GitHub who the App is until it answers, waiting
// longer after each failure (up to a minute); false when ctx ended first.
func learnIdentity(ctx context.Context, app *ghapp.App, log *slog.Logger) bool {
	wait := time.Second
	for {
		id, err := app.Identify(ctx)
		if err == nil {
			log.Info("the App's identity, as GitHub gives it", "app_id", id.AppID, "slug", id.Slug, "bot_user", id.BotLogin, "bot_user_id", id.BotUserID)
			return true
		}
		log.Error("cannot learn the App's identity from GitHub; retrying", "err", err, "retry_in", wait.String())
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Minute)
	}
}
