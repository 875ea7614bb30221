package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/benchgate/benchgate/internal/atomicfile"
	"github.com/benchgate/benchgate/submission"

	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/verify"
)

// openRouterKeyEnv holds the key of the endpoint `benchgate reproduce`
// asks by default (reproduce.DefaultBaseURL).
const openRouterKeyEnv = "OPENROUTER_API_KEY"

func runReproduce(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("reproduce", "PATH [--root DIR] [--base-url URL] [--api-key-env VAR] [--model-map ID=SERVED,...] [--max-calls N] [--max-usd X] [--seed HEX | --secret-file FILE] [--record] [--format text|json|markdown]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository")
	maxCalls := fl.Int("max-calls", reproduce.DefaultMaxCalls, "stop after this many calls (the judge's included, for a rubric); a check stopped early is inconclusive")
	maxUSD := fl.Float64("max-usd", 0, "stop before a call that could take the spend past this (0: no limit); with --price-input and --price-output each call's worst case is reserved")
	format := fl.String("format", "text", "output format: text, json or markdown (for a pull request's comment)")
	seedFlag := fl.String("seed", "", "replay a check: the seed its report gave (16 hex digits); without it the sample's seed comes from the leaderboard's secret, or is drawn at random and printed")
	secretFile := fl.String("secret-file", "", "a file holding the leaderboard's rerun secret (instead of BENCHGATE_RERUN_SECRET), which keys the sample as the App does")
	modelMap := fl.String("model-map", "", "the ids the endpoint serves the submissions' models under, ID=SERVED, comma-separated (e.g. Qwen/Qwen3-32B=qwen/qwen3-32b); adds to the benchmark's reproduce_models")
	record := fl.Bool("record", false, "write the check's record to reproductions/<track>/<slug>.json in the leaderboard repository, for the board")
	fl.String("ledger", "", ledgerHelp(cacheLedgerHelp))
	var candEP, judgeEP endpointFlags
	candEP.register(fl, "", "claimed model")
	judgeEP.registerEndpoint(fl, "judge-", "judge (rubric benchmarks)")
	// OpenRouter by default, unlike generate: one key reaches the models
	// of most submissions.
	for name, def := range map[string]string{"base-url": reproduce.DefaultBaseURL, "api-key-env": openRouterKeyEnv} {
		f := fl.Lookup(name)
		f.DefValue = def
		if err := f.Value.Set(def); err != nil {
			return err
		}
	}
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(fl, nil)
	}
	if err := oneOf(*format, reproduce.Formats); err != nil {
		return err
	}
	models, err := reproduce.ParseModelMap(*modelMap)
	if err != nil {
		return usageError(fl, fmt.Errorf("--model-map: %w", err))
	}
	if *maxCalls < 1 {
		return usageError(fl, fmt.Errorf("--max-calls must be at least 1"))
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	v, err := verify.New(boardFS(root), verify.Options{})
	if err != nil {
		return err
	}
	dirs, err := selectSubmissions(root, pos, nil)
	if err != nil || len(dirs) != 1 {
		return fmt.Errorf("name one submission folder (%v)", err)
	}
	dir := dirs[0]
	res := v.Verify(dir)
	cfg := reproduce.Config{MaxCalls: *maxCalls, MaxUSD: *maxUSD, Prices: judgePrices(candEP.priceInput.v, candEP.priceOutput.v, candEP.priceCachedInput.v)}
	if cfg.Seed, cfg.Secret, err = sampleSeed(fl, *seedFlag, *secretFile); err != nil {
		return err
	}
	cfg.Models = models
	if u, err := url.Parse(candEP.baseURL); err == nil {
		cfg.Endpoint = u.Host
	}
	ledger, closeLedger, err := openLedger(ledgerPath(fl, cacheLedger()))
	if err != nil {
		return err
	}
	defer closeLedger()
	candEP.workers = 1
	if err := candEP.check(); err != nil {
		return err
	}
	client, err := candEP.client(ledger, newRunID())
	if err != nil {
		return err
	}
	cfg.Candidate = client
	if b, _ := v.Benchmark(res.RubricKey); b != nil && b.Rubric != nil {
		judgeEP.workers, judgeEP.timeout, judgeEP.attempts, judgeEP.rps = 1, candEP.timeout, candEP.attempts, candEP.rps
		if err := judgeEP.check(); err != nil {
			return err
		}
		if cfg.Judge, err = newJudge(b, &judgeEP, ledger); err != nil {
			return err
		}
	}
	cfg.Preflight = func(e reproduce.Estimate) {
		cost := "cost unknown until the endpoint reports it"
		if e.USD != nil {
			cost = fmt.Sprintf("at most $%.4f", *e.USD)
		}
		fmt.Fprintf(stderr, "benchgate reproduce: at most %d calls, %s (%s)\n", e.Calls, cost, e.Note)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := reproduce.Check(ctx, v, dir, cfg)
	if serviceDown(err) {
		return setupError(err)
	} else if err != nil {
		return err
	}
	for _, q := range rep.Questions {
		if q.Err != nil {
			fmt.Fprintf(stderr, "benchgate reproduce: question %s: %v\n", q.ID, q.Err)
		}
	}
	if rep.SeedSource == rerun.SeedRandom {
		fmt.Fprintf(stderr, "benchgate reproduce: no rerun secret is set, so the sample's seed was drawn at random: %s (--seed %s replays this check)\n", rep.Seed, rep.Seed)
	}
	if err := reproduce.Render(stdout, *format, rep); err != nil {
		return err
	}
	if *record {
		if err := writeReproduction(root, dir, rep); err != nil {
			return err
		}
	}
	if reproduceNoneAnswered(rep) {
		return setupError(fmt.Errorf("the endpoint answered no call (see above), so there is no verdict on %s; fix the endpoint or its key and run the check again", dir))
	}
	switch rep.Verdict {
	case reproduce.Consistent:
		return nil
	case reproduce.Inconsistent:
		return exitWith(exitFail)
	}
	return exitWith(exitInconclusive)
}

// reproduceNoneAnswered reports a check in which every call failed for
// want of the service, which says nothing of the submission.
func reproduceNoneAnswered(rep reproduce.Report) bool {
	var errs []error
	for _, q := range rep.Questions {
		errs = append(errs, q.Err)
	}
	return rep.Verdict == reproduce.Inconclusive && allServiceDown(errs)
}

// writeReproduction writes rep's record where the board reads it.
func writeReproduction(root, dir string, rep reproduce.Report) error {
	f, ok := submission.ParseFolder(dir)
	if !ok {
		return fmt.Errorf("%s is not a submission folder (%s/<track>/<slug>), so its record has no place", dir, submission.Dir)
	}
	data, err := reproduce.NewRecord(rep, time.Now()).Encode()
	if err != nil {
		return err
	}
	file := filepath.Join(root, filepath.FromSlash(reproduce.RecordPath(f)))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(file, data)
}
