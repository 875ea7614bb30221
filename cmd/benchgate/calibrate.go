package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/atomicfile"
	"github.com/benchgate/benchgate/judge"
)

// defaultRecordRuns is how many runs of the judge a calibration record
// holds unless --runs says otherwise: the spot-check pairs them, run 1
// with 2, 3 with 4 and so on, as the honest pairs its jump test measures
// the judge's own rate of big jumps on (rerun.Controls), so an even number
// wastes none. Sixteen brought the detection of failed answers raised to
// full marks to 95% in the simulation of docs/PERFORMANCE.md, where four
// left it at 91%; the gradings go --workers at a time.
const defaultRecordRuns = 16

func runCalibrate(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("calibrate", "--benchmark KEY [--min-agreement 0.8] [--record] [--runs N]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository (registry and benchmarks)")
	key := fl.String("benchmark", "", "the rubric benchmark's key")
	alias(fl, "rubric", "benchmark")
	minAgree := fl.Float64("min-agreement", judge.DefaultMinAgreement, "least share of gradings the judge must make within ±1 point of the expected total")
	record := fl.Bool("record", false, "write the judge's grades as the benchmark's calibration record, beside the benchmark file (rubrics/KEY.calibration.json for rubrics/KEY.json), for the spot-check; not written below --min-agreement")
	runs := fl.Int("runs", 0, fmt.Sprintf("grade every fixture `N` times, the runs after the first never read from its cache (default: %d with --record, else 1)", defaultRecordRuns))
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
	n := 1
	if *record {
		n = defaultRecordRuns
	}
	if given(fl, "runs") {
		if *runs < 1 {
			return usageError(fl, errors.New("--runs must be at least 1"))
		}
		n = *runs
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
	cal, err := j.Calibrate(ctx, b.Rubric, n, ep.workers)
	if err != nil {
		// Calibrate stops only when the endpoint or the account fails
		// (or on Ctrl-C): no agreement was measured.
		if *record {
			err = fmt.Errorf("%w\nno calibration record was written; the grades made so far are cached, so the same command resumes without paying for them again", err)
		}
		return serviceFailed(err)
	}
	if err := judge.RenderCalibration(stdout, *format, cal, b.Entry.JudgeModel, *key, *minAgree); err != nil {
		return err
	}
	if cal.Agreement() < *minAgree {
		msg := fmt.Sprintf("agreement %.2f is below --min-agreement %.2f: the judge does not reproduce the rubric's fixtures", cal.Agreement(), *minAgree)
		if *record {
			msg += "; no calibration record was written, since a judge that does not is no reference to check it against later"
		}
		return failed(errors.New(msg))
	}
	if !*record {
		return nil
	}
	// Notes go where they do not spoil the JSON.
	notes := stdout
	if *format == "json" {
		notes = stderr
	}
	return writeRecord(notes, root, b, cal.Record(b, j, time.Now()))
}

// writeRecord writes rec, the calibration record of benchmark b, at its
// place in the leaderboard at root, whole or not at all, and says how to
// commit it.
func writeRecord(w io.Writer, root string, b *benchmark.Benchmark, rec *benchmark.CalibrationRecord) error {
	data, err := rec.Encode()
	if err != nil {
		return err
	}
	rel := benchmark.RecordPath(b.Entry)
	// What is written is what the benchmark's loading reads back.
	if back, fs := benchmark.ParseRecord(rel, data, b); back == nil || len(fs) > 0 {
		return fmt.Errorf("the calibration record would not be usable, so it was not written: %s", fs[0])
	}
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("writing the calibration record: %w", err)
	}
	msg := fmt.Sprintf("%s: calibration record, judge %s, %s, runs: %d", b.Entry.Key, rec.JudgeModel, rec.Recorded, rec.Runs)
	_, err = fmt.Fprintf(w, "wrote %s (%d gradings, %d unscored)\n\nTo commit it:\n\n  git add %s\n  git commit -m %q\n\nRecord it again after the rubric or the judge changes: a record made for another rubric file, judge or judge contract is stale, and the spot-check does without it.\n",
		path, len(rec.Grades), len(rec.Unscored), path, msg)
	return err
}

// given reports whether flag name was set on the command line.
func given(fl *flag.FlagSet, name string) bool {
	set := false
	fl.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
