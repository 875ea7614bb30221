package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"

	"github.com/benchgate/benchgate/score"
)

func runScore(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("score", "ANSWERS [--benchmark KEY] [--output scores.json] [--pair OTHER]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository (registry and benchmarks)")
	key := fl.String("benchmark", "", "the benchmark's key (default: the rubric benchmark whose questions the answers answer)")
	alias(fl, "rubric", "benchmark")
	output := fl.String("output", "scores.json", "the scores.json to write")
	pair := fl.String("pair", "", "another answers file: compare the two pairwise instead of scoring")
	fl.String("ledger", "", ledgerHelp("the output with .ledger.jsonl added; with --pair, "+cacheLedgerHelp))
	format := fl.String("format", "text", "pairwise report format: text or json")
	var ep endpointFlags
	ep.register(fl, "judge-", "judge")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(fl, nil)
	}
	if *pair != "" {
		if err := oneOf(*format, score.PairFormats); err != nil {
			return err
		}
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	answers, err := score.ReadAnswers(pos[0])
	if err != nil {
		return err
	}
	if *key == "" {
		if *key, err = score.RubricFor(boardFS(root), answers); err != nil {
			return err
		}
	}
	defLedger := *output + ".ledger.jsonl"
	if *pair != "" {
		defLedger = cacheLedger()
	}
	b, j, closeLedger, err := rubricJudge(root, *key, "its answers are scored by `benchgate generate` itself", &ep, ledgerPath(fl, defLedger))
	if err != nil {
		return err
	}
	defer closeLedger()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := score.Config{Bench: b, Judge: j, Workers: ep.workers, Progress: stderr, Terminal: isTerminal(stderr)}
	if *pair != "" {
		other, err := score.ReadAnswers(*pair)
		if err != nil {
			return err
		}
		rep, err := score.Compare(ctx, cfg, answers, other)
		if err != nil {
			return serviceFailed(err)
		}
		return score.RenderPair(stdout, *format, pos[0], *pair, rep)
	}
	rows, sum, err := score.Grade(ctx, cfg, answers)
	if err == nil {
		err = score.Write(*output, rows)
	}
	if errors.Is(err, score.ErrSetup) {
		return setupError(err)
	}
	if err != nil {
		return serviceFailed(err)
	}
	if _, err := io.WriteString(stdout, sum.Text(*output)); err != nil {
		return err
	}
	down := 0 // an account error stops Grade: what is not permanent ran out of retries
	for _, f := range sum.Failures {
		if !f.Permanent {
			down++
		}
	}
	if code := callsExit(len(sum.Failures), down, sum.Scored); code != exitOK {
		return exitWith(code)
	}
	if sum.Incomplete() {
		// The file is written, but answers another run may grade are not.
		return exitWith(exitFail)
	}
	return nil
}
