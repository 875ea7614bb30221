package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strconv"

	"github.com/benchgate/benchgate/generate"
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("generate", "--benchmark KEY --model ID [--workers N] [--rps R] [--output FILE] [--format text|json]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository (registry and benchmarks)")
	key := fl.String("benchmark", "", "the benchmark's key in rubrics/rubrics.json")
	alias(fl, "rubric", "benchmark")
	model := fl.String("model", "", "the candidate model's id at the endpoint")
	output := fl.String("output", "", "the file to write and resume (default: KEY.MODEL.json; an mcq run writes scores.json rows, a rubric run the answers to score)")
	fl.String("ledger", "", ledgerHelp("the output with .ledger.jsonl added"))
	maxTokens := fl.Int("max-tokens", 0, "max tokens per answer (0: the endpoint's default)")
	temperature := fl.String("temperature", "0", "sampling temperature, or none to send none (reasoning models such as OpenAI's gpt-5 and o-series refuse one)")
	format := fl.String("format", "text", "output format: text, or json (one object: README.md has its fields)")
	var ep endpointFlags
	ep.register(fl, "", "candidate model")
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 || *key == "" || *model == "" {
		return usageError(fl, errors.New("--benchmark and --model are required, and nothing else"))
	}
	if err := oneOf(*format, []string{"text", "json"}); err != nil {
		return err
	}
	temp, err := parseTemperature(*temperature)
	if err != nil {
		return usageError(fl, err)
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	b, err := openBenchmark(root, *key)
	if err != nil {
		return err
	}
	if *output == "" {
		*output = *key + "." + unsafeName.ReplaceAllString(*model, "_") + ".json"
	}
	if err := ep.check(); err != nil {
		return err
	}
	ledger, closeLedger, err := openLedger(ledgerPath(fl, *output+".ledger.jsonl"))
	if err != nil {
		return err
	}
	defer closeLedger()
	client, err := ep.client(ledger, newRunID())
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sum, err := generate.Run(ctx, generate.Config{
		Bench: b, LLM: client, Model: *model, Workers: ep.workers, Temperature: temp, MaxTokens: *maxTokens,
		Output: *output, Progress: stderr, Terminal: isTerminal(stderr),
	})
	if *format == "json" {
		g := newGenerateJSON(*output, b.Entry.Key, *model, sum)
		if err != nil {
			g.Error = err.Error()
		} else {
			g.Next = sum.Next(*output, b)
		}
		if werr := writeJSON(stdout, g); werr != nil {
			return werr
		}
	} else {
		fmt.Fprintln(stdout, sum.Line(*output))
		if err == nil {
			fmt.Fprintln(stdout, sum.Next(*output, b))
		}
	}
	if err != nil {
		// An account error stops the run: the endpoint refuses it.
		return serviceFailed(err)
	}
	return exitWith(callsExit(sum.Failed, sum.Exhausted, sum.Done))
}

// parseTemperature reads --temperature: a number from 0 to 2, or none.
func parseTemperature(s string) (*float64, error) {
	if s == "none" {
		return nil, nil
	}
	t, err := strconv.ParseFloat(s, 64)
	if err != nil || t < 0 || t > 2 {
		return nil, fmt.Errorf("--temperature %q is not a number from 0 to 2, nor none", s)
	}
	return &t, nil
}
