package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/benchgate/benchgate/judge"
)

func runCalibrate(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("calibrate", "--benchmark KEY [--min-agreement 0.8]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository (registry and benchmarks)")
	key := fl.String("benchmark", "", "the rubric benchmark's key")
	alias(fl, "rubric", "benchmark")
	minAgree := fl.Float64("min-agreement", judge.DefaultMinAgreement, "least share of fixtures the judge must grade within ±1 point of the expected total")
	fl.String("ledger", "", ledgerHelp(cacheLedgerHelp))
	format := fl.String("format", "text", "output format: text or json")
	var ep endpointFlags
	ep.register(fl, "judge-", "judge")
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 || *key == "" {
		return usageError(fl, nil)
	}
	if err := oneOf(*format, judge.CalibrationFormats); err != nil {
		return err
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	b, j, closeLedger, err := rubricJudge(root, *key, "it has no judge to calibrate", &ep, ledgerPath(fl, cacheLedger()))
	if err != nil {
		return err
	}
	defer closeLedger()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cal, err := j.Calibrate(ctx, b.Rubric, 1)
	if err != nil {
		// Calibrate stops only when the endpoint or the account fails
		// (or on Ctrl-C): no agreement was measured.
		return serviceFailed(err)
	}
	if err := judge.RenderCalibration(stdout, *format, cal, b.Entry.JudgeModel, *key, *minAgree); err != nil {
		return err
	}
	if cal.Agreement() < *minAgree {
		return failed(fmt.Errorf("agreement %.2f is below --min-agreement %.2f: the judge does not reproduce the rubric's fixtures", cal.Agreement(), *minAgree))
	}
	return nil
}
