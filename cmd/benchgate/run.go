package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/progress"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/score"
)

// endpointFlags are the flags that name an OpenAI-compatible endpoint.
type endpointFlags struct {
	baseURL, keyEnv         string
	workers                 int
	rps                     float64
	timeout                 time.Duration
	attempts                int
	priceInput, priceOutput optionalFloat
	azureVersion            string
	key                     string // read by check
}

func (e *endpointFlags) register(fl *flag.FlagSet, prefix, what string) {
	e.registerEndpoint(fl, prefix, what)
	fl.IntVar(&e.workers, "workers", 4, "concurrent requests")
	fl.Float64Var(&e.rps, "rps", 0, "at most this many requests per second (0: no limit)")
	fl.DurationVar(&e.timeout, "timeout", 120*time.Second, "time limit of each attempt")
	fl.IntVar(&e.attempts, "attempts", 5, "attempts per request before it counts as failed (429 and 5xx are retried with backoff, honouring Retry-After)")
	fl.Var(&e.priceInput, "price-input", "USD per million input tokens, for the cost ledger when the endpoint reports no cost")
	fl.Var(&e.priceOutput, "price-output", "USD per million output tokens")
}

// registerEndpoint registers only the flags that name the endpoint, for a
// second endpoint sharing the first one's limits.
func (e *endpointFlags) registerEndpoint(fl *flag.FlagSet, prefix, what string) {
	fl.StringVar(&e.baseURL, prefix+"base-url", "", "base URL of the "+what+"'s OpenAI-compatible endpoint (empty: OpenAI), e.g. https://openrouter.ai/api/v1 or http://localhost:11434/v1")
	fl.StringVar(&e.keyEnv, prefix+"api-key-env", "OPENAI_API_KEY", "environment variable holding the "+what+"'s API key")
	fl.StringVar(&e.azureVersion, prefix+"azure-api-version", "", "Azure OpenAI API version; the base URL is then the Azure resource's endpoint")
}

// check reads the key before anything is written: a local endpoint may
// take no key; any other needs one, and the error names the variable,
// never a value.
func (e *endpointFlags) check() error {
	key, err := llm.KeyFromEnv(e.keyEnv)
	if err != nil && !isLocal(e.baseURL) {
		return err
	}
	if e.workers < 1 {
		return errors.New("--workers must be at least 1")
	}
	e.key = key
	return nil
}

// client builds the client; check must have succeeded.
func (e *endpointFlags) client(ledger io.Writer, runID string) (*llm.Client, error) {
	return llm.New(llm.Config{
		BaseURL: e.baseURL, APIKey: e.key, Timeout: e.timeout, MaxAttempts: e.attempts, RPS: e.rps,
		Ledger: ledger, RunID: runID, PriceInput: e.priceInput.v, PriceOutput: e.priceOutput.v, AzureAPIVersion: e.azureVersion,
	})
}

func isLocal(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

func newRunID() string {
	var b [6]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// openLedger opens the cost ledger for appending, making its folder; ""
// is none: a nil writer.
func openLedger(path string) (io.Writer, func() error, error) {
	if path == "" {
		return nil, func() error { return nil }, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// ledgerHelp is the usage of --ledger, whose default is def.
func ledgerHelp(def string) string {
	return "cost ledger, one JSON line per billed call; \"\" for none (default: " + def + ")"
}

// cacheLedgerHelp says where cacheLedger is.
const cacheLedgerHelp = "ledger.jsonl in the cache folder, $" + filecache.EnvVar + " or else benchgate/ in the user cache folder; none without one"

// cacheLedger is the default cost ledger of a command that writes no file
// of its own, so that none is left in the working directory (often a
// leaderboard checkout): ledger.jsonl in the cache folder, or none
// without one.
func cacheLedger() string {
	dir := filecache.DefaultDir(os.Getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "ledger.jsonl")
}

// ledgerPath is the --ledger that was given, or else def.
func ledgerPath(fl *flag.FlagSet, def string) string {
	path := def
	fl.Visit(func(f *flag.Flag) {
		if f.Name == "ledger" {
			path = f.Value.String()
		}
	})
	return path
}

// openBenchmark opens a registry key of the leaderboard in root.
func openBenchmark(root, key string) (*benchmark.Benchmark, error) {
	b, err := benchmark.Open(os.DirFS(root), key)
	return b, registryPath(root, err)
}

// registryPath makes an unknown key's error name the registry of the
// leaderboard in root by its path from here.
func registryPath(root string, err error) error {
	var ke *benchmark.KeyError
	if errors.As(err, &ke) {
		ke.Registry = filepath.Join(root, benchmark.RegistryFile)
	}
	return err
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("generate", "--rubric KEY --model ID [--workers N] [--rps R] [--output FILE]", stderr)
	root := fl.String("root", ".", "the leaderboard repository (registry and benchmarks)")
	key := fl.String("rubric", "", "the benchmark's key in rubrics/rubrics.json")
	model := fl.String("model", "", "the candidate model's id at the endpoint")
	output := fl.String("output", "", "the file to write and resume (default: KEY.MODEL.json; an mcq run writes scores.json rows, a rubric run the answers to score)")
	ledgerPath := fl.String("ledger", "", "cost ledger, one JSON line per billed call (default: the output with .ledger.jsonl added)")
	maxTokens := fl.Int("max-tokens", 0, "max tokens per answer (0: the endpoint's default)")
	temperature := fl.Float64("temperature", 0, "sampling temperature")
	var ep endpointFlags
	ep.register(fl, "", "candidate model")
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 || *key == "" || *model == "" {
		return usageError(fl, errors.New("--rubric and --model are required, and nothing else"))
	}
	b, err := openBenchmark(*root, *key)
	if err != nil {
		return err
	}
	if *output == "" {
		*output = *key + "." + unsafeName.ReplaceAllString(*model, "_") + ".json"
	}
	if *ledgerPath == "" {
		*ledgerPath = *output + ".ledger.jsonl"
	}
	if err := ep.check(); err != nil {
		return err
	}
	ledger, closeLedger, err := openLedger(*ledgerPath)
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
		Bench: b, LLM: client, Model: *model, Workers: ep.workers, Temperature: *temperature, MaxTokens: *maxTokens,
		Output: *output, Progress: stderr, Terminal: isTerminal(stderr),
	})
	fmt.Fprintf(stdout, "%s: %d questions, %d already done, %d answered now, %d failed; spend $%.4f", *output, sum.Questions, sum.Skipped, sum.Done, sum.Failed, sum.SpendUSD)
	if sum.Unpriced > 0 {
		fmt.Fprintf(stdout, " (+%d calls of unknown cost)", sum.Unpriced)
	}
	fmt.Fprintln(stdout)
	if err != nil {
		return failed(err)
	}
	switch {
	case sum.Failed > 0:
		fmt.Fprintf(stdout, "%d calls failed; run the same command again to retry them.\n", sum.Failed)
		return exitWith(exitFail)
	case b.Rubric != nil:
		fmt.Fprintf(stdout, "next: benchgate score %s --rubric %s\n", *output, *key)
	default:
		fmt.Fprintf(stdout, "next: benchgate submit --rubric %s --scores %s --slug ... (see benchgate submit -h)\n", *key, *output)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && progress.IsTerminal(f)
}

// judgeCache is where judge results are kept between runs, in the
// judge/ folder of the cache folder dir ("" for none): for the CLI and the
// App alike.
func judgeCache(dir string) judge.Store {
	if dir == "" {
		return nil
	}
	return filecache.Dir(filepath.Join(dir, "judge"))
}

func newJudge(b *benchmark.Benchmark, ep *endpointFlags, ledger io.Writer, seed int) (*judge.Judge, error) {
	client, err := ep.client(ledger, newRunID())
	if err != nil {
		return nil, err
	}
	j := &judge.Judge{LLM: client, Model: b.Entry.JudgeModel, Cache: judgeCache(filecache.DefaultDir(os.Getenv))}
	if seed >= 0 {
		j.Seed = &seed
	}
	return j, nil
}

func runScore(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("score", "ANSWERS [--rubric KEY] [--output scores.json] [--pair OTHER]", stderr)
	root := fl.String("root", ".", "the leaderboard repository (registry and benchmarks)")
	key := fl.String("rubric", "", "the benchmark's key (default: the rubric benchmark whose questions the answers answer)")
	output := fl.String("output", "scores.json", "the scores.json to write")
	pair := fl.String("pair", "", "another answers file: compare the two pairwise instead of scoring")
	fl.String("ledger", "", ledgerHelp("the output with .ledger.jsonl added; with --pair, "+cacheLedgerHelp))
	seed := fl.Int("seed", 0, "seed sent to judges that take one (-1: none)")
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
	answers, err := score.ReadAnswers(pos[0])
	if err != nil {
		return err
	}
	if *key == "" {
		if *key, err = score.RubricFor(os.DirFS(*root), answers); err != nil {
			return err
		}
	}
	b, err := openBenchmark(*root, *key)
	if err == nil && b.Rubric == nil {
		err = fmt.Errorf("benchmark %q is multiple choice: its answers are scored by `benchgate generate` itself", *key)
	}
	if err != nil {
		return err
	}
	if err := ep.check(); err != nil {
		return err
	}
	defLedger := *output + ".ledger.jsonl"
	if *pair != "" {
		defLedger = cacheLedger()
	}
	ledger, closeLedger, err := openLedger(ledgerPath(fl, defLedger))
	if err != nil {
		return err
	}
	defer closeLedger()
	j, err := newJudge(b, &ep, ledger, *seed)
	if err != nil {
		return err
	}
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
			return failed(err)
		}
		return score.RenderPair(stdout, *format, pos[0], *pair, rep)
	}
	rows, sum, err := score.Grade(ctx, cfg, answers)
	if err == nil {
		err = score.Write(*output, rows)
	}
	if err != nil {
		return failed(err)
	}
	fmt.Fprintf(stdout, "%s: %d answers, %d scored, %d unscored, %d flagged for trying to instruct the judge; %d judge calls (%d answers from the cache), $%.4f\n",
		*output, sum.Answers, sum.Scored, sum.Unscored, sum.Flagged, sum.Calls, sum.Cached, sum.SpendUSD)
	if sum.Unscored > 0 {
		fmt.Fprintf(stdout, "the judge gave no valid verdict for %d answers after re-asking: they are unscored (null) and marked for adjudication.\n", sum.Unscored)
	}
	return nil
}

func runCalibrate(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("calibrate", "--rubric KEY [--min-agreement 0.8]", stderr)
	root := fl.String("root", ".", "the leaderboard repository (registry and benchmarks)")
	key := fl.String("rubric", "", "the rubric benchmark's key")
	minAgree := fl.Float64("min-agreement", judge.DefaultMinAgreement, "least share of fixtures the judge must grade within ±1 point of the expected total")
	fl.String("ledger", "", ledgerHelp(cacheLedgerHelp))
	seed := fl.Int("seed", 0, "seed sent to judges that take one (-1: none)")
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
	b, err := openBenchmark(*root, *key)
	if err == nil && b.Rubric == nil {
		err = fmt.Errorf("benchmark %q is multiple choice and has no judge to calibrate", *key)
	}
	if err != nil {
		return err
	}
	if err := ep.check(); err != nil {
		return err
	}
	ledger, closeLedger, err := openLedger(ledgerPath(fl, cacheLedger()))
	if err != nil {
		return err
	}
	defer closeLedger()
	j, err := newJudge(b, &ep, ledger, *seed)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cal, err := j.Calibrate(ctx, b.Rubric)
	if err != nil {
		return failed(err)
	}
	if err := judge.RenderCalibration(stdout, *format, cal, b.Entry.JudgeModel, *key, *minAgree); err != nil {
		return err
	}
	if cal.Agreement() < *minAgree {
		return failed(fmt.Errorf("agreement %.2f is below --min-agreement %.2f: the judge does not reproduce the rubric's fixtures", cal.Agreement(), *minAgree))
	}
	return nil
}
