package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/verify"
)

func runRerun(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("rerun", "PATH [--root DIR] [--max-calls N] [--max-usd X] [--seed HEX | --secret-file FILE] [--format text|json|markdown]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository")
	maxCalls := fl.Int("max-calls", 0, "stop after this many model calls (0: no limit); a check stopped early is inconclusive")
	maxUSD := fl.Float64("max-usd", 0, "stop once this much has been spent (0: no limit)")
	format := fl.String("format", "text", "output format: text, json or markdown (what the App posts)")
	seedFlag := fl.String("seed", "", "replay a check: the seed its report gave (16 hex digits); without it the sample's seed comes from the leaderboard's secret, or is drawn at random and printed")
	secretFile := fl.String("secret-file", "", "a file holding the leaderboard's rerun secret (instead of BENCHGATE_RERUN_SECRET), which keys the sample as the App does")
	fl.String("ledger", "", ledgerHelp(cacheLedgerHelp))
	sample := fl.Int("sample", 20, "mcq: questions re-asked of the candidate when --candidate-base-url is set")
	candModel := fl.String("model", "", "mcq: the candidate model to re-ask (default: meta.json's candidate_model_id)")
	alias(fl, "candidate-model", "model")
	var judgeEP, candEP endpointFlags
	judgeEP.register(fl, "judge-", "judge")
	candEP.registerEndpoint(fl, "candidate-", "candidate model (mcq, optional)")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(fl, nil)
	}
	if err := oneOf(*format, rerun.Formats); err != nil {
		return err
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
	cfg := rerun.Config{MaxCalls: *maxCalls, MaxUSD: *maxUSD, Sample: *sample}
	if cfg.Seed, cfg.Secret, err = sampleSeed(fl, *seedFlag, *secretFile); err != nil {
		return err
	}
	ledger, closeLedger, err := openLedger(ledgerPath(fl, cacheLedger()))
	if err != nil {
		return err
	}
	defer closeLedger()
	if b, _ := v.Benchmark(res.RubricKey); b != nil && b.Rubric != nil {
		judgeEP.workers = max(judgeEP.workers, 1)
		if err := judgeEP.check(); err != nil {
			return err
		}
		if cfg.Judge, err = newJudge(b, &judgeEP, ledger); err != nil {
			return err
		}
	} else if candEP.baseURL != "" {
		candEP.workers, candEP.timeout, candEP.attempts, candEP.rps = 1, judgeEP.timeout, judgeEP.attempts, judgeEP.rps
		if err := candEP.check(); err != nil {
			return err
		}
		client, err := candEP.client(ledger, newRunID())
		if err != nil {
			return err
		}
		cfg.Candidate, cfg.CandidateModel = client, *candModel
		if cfg.CandidateModel == "" && res.Meta != nil {
			cfg.CandidateModel = res.Meta.CandidateModelID
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := rerun.Check(ctx, v, dir, cfg)
	if serviceDown(err) {
		return setupError(err)
	} else if err != nil {
		return err
	}
	// The report says what failed; whoever runs the check also gets why.
	for _, f := range rep.Fixtures {
		if f.Err != nil {
			fmt.Fprintf(stderr, "benchgate rerun: calibration fixture %s: %v\n", f.FixtureID, f.Err)
		}
	}
	for _, q := range rep.Questions {
		if q.Err != nil {
			fmt.Fprintf(stderr, "benchgate rerun: question %s: %v\n", q.ID, q.Err)
		}
	}
	if err := rerun.Render(stdout, *format, rep); err != nil {
		return err
	}
	if noneAnswered(rep) {
		return setupError(fmt.Errorf("the endpoint answered no call (see above), so there is no verdict on %s; fix the endpoint or its key and run the check again", dir))
	}
	switch rep.Verdict {
	case rerun.VerdictConsistent:
		return nil
	case rerun.VerdictInconsistent:
		return exitWith(exitFail)
	}
	return exitWith(exitInconclusive)
}

// noneAnswered reports a check in which every call failed for want of
// the service (serviceDown), which says nothing of the submission; calls
// the endpoint refused (a content filter) leave it inconclusive.
func noneAnswered(rep rerun.Report) bool {
	var errs []error
	for _, f := range rep.Fixtures {
		errs = append(errs, f.Err)
	}
	for _, q := range rep.Questions {
		errs = append(errs, q.Err)
	}
	return rep.Verdict == rerun.VerdictInconclusive && allServiceDown(errs)
}

// allServiceDown reports that there were calls and every one of them
// failed for want of the service: the rule by which rerun and reproduce
// both end with exitSetup rather than a verdict.
func allServiceDown(errs []error) bool {
	for _, err := range errs {
		if !serviceDown(err) {
			return false
		}
	}
	return len(errs) > 0
}

// sampleSeed reads what keys a check's sample, for rerun and reproduce
// alike: --seed replays a check; else the leaderboard's secret, from
// --secret-file or BENCHGATE_RERUN_SECRET, keys it as the App does; else
// both are nil and the check draws a seed at random and prints it.
func sampleSeed(fl *flag.FlagSet, seedFlag, secretFile string) (*uint64, []byte, error) {
	switch env := os.Getenv("BENCHGATE_RERUN_SECRET"); {
	case seedFlag != "":
		seed, err := rerun.ParseSeed(seedFlag)
		if err != nil {
			return nil, nil, usageError(fl, fmt.Errorf("--seed: %w", err))
		}
		return &seed, nil, nil
	case secretFile != "":
		data, err := os.ReadFile(secretFile)
		if err != nil {
			return nil, nil, fmt.Errorf("--secret-file: %w", err)
		}
		secret := bytes.TrimRight(data, "\r\n")
		if len(secret) == 0 {
			return nil, nil, fmt.Errorf("--secret-file: %s is empty; it should hold the leaderboard's rerun secret", secretFile)
		}
		return nil, secret, nil
	case env != "":
		return nil, []byte(env), nil
	}
	return nil, nil, nil
}
