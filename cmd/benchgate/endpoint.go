package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/progress"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
)

// endpointFlags are the flags that name an OpenAI-compatible endpoint.
type endpointFlags struct {
	baseURL, keyEnv         string
	workers                 int
	rps                     float64
	timeout                 time.Duration
	attempts                int
	priceInput, priceOutput optionalFloat
	priceCachedInput        optionalFloat
	azureVersion            string
	deployments             deploymentsFlag
	tokenParam              string
	key                     string    // read by check
	stderr                  io.Writer // where the client's notices go: the flag set's output
}

// deploymentsFlag is --deployment, given once per model: MODEL=DEPLOYMENT.
type deploymentsFlag struct{ m map[string]string }

func (d *deploymentsFlag) String() string {
	parts := make([]string, 0, len(d.m))
	for k, v := range d.m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (d *deploymentsFlag) argName() string { return "MODEL=DEPLOYMENT" }

func (d *deploymentsFlag) Set(s string) error {
	m, err := llm.ParseDeployments(s)
	if err != nil {
		return err
	}
	if d.m == nil {
		d.m = map[string]string{}
	}
	for k, v := range m {
		if prev, dup := d.m[k]; dup && prev != v {
			return fmt.Errorf("model %q is mapped to two deployments, %q and %q", k, prev, v)
		}
		d.m[k] = v
	}
	return nil
}

func (e *endpointFlags) register(fl *flag.FlagSet, prefix, what string) {
	e.registerEndpoint(fl, prefix, what)
	fl.IntVar(&e.workers, "workers", 4, "concurrent requests")
	fl.Float64Var(&e.rps, "rps", 0, "at most this many requests per second (0: no limit)")
	fl.DurationVar(&e.timeout, "timeout", 180*time.Second, "time limit of each attempt (a timed-out attempt is retried, and written to the ledger: it may have been billed)")
	fl.IntVar(&e.attempts, "attempts", 5, "attempts per request before it counts as failed (429, 5xx and errors inside an answer are retried with backoff, waiting what the endpoint asks; account errors such as no credits or a spent daily quota, and setup errors such as an unknown model, stop the run)")
	fl.Var(&e.priceInput, "price-input", "USD per million input tokens, for the cost ledger when the endpoint reports no cost")
	fl.Var(&e.priceOutput, "price-output", "USD per million output tokens")
	fl.Var(&e.priceCachedInput, "price-cached-input", "USD per million input tokens read from the provider's cache (OpenAI's cached_tokens, DeepSeek's prompt_cache_hit_tokens); default: the input price")
}

// registerEndpoint registers only the flags that name the endpoint, for a
// second endpoint sharing the first one's limits.
func (e *endpointFlags) registerEndpoint(fl *flag.FlagSet, prefix, what string) {
	e.stderr = fl.Output()
	fl.StringVar(&e.baseURL, prefix+"base-url", "", "base URL of the "+what+"'s OpenAI-compatible endpoint (empty: OpenAI), e.g. https://openrouter.ai/api/v1 or http://localhost:11434/v1")
	fl.StringVar(&e.keyEnv, prefix+"api-key-env", "OPENAI_API_KEY", "environment variable holding the "+what+"'s API key")
	fl.StringVar(&e.azureVersion, prefix+"azure-api-version", "", "Azure OpenAI API version; the base URL is then the Azure resource's endpoint")
	fl.Var(&e.deployments, prefix+"deployment", "Azure OpenAI: the deployment serving a model, MODEL=DEPLOYMENT (e.g. openai/gpt-5.5=gpt55-judge); repeat for more models")
	fl.StringVar(&e.tokenParam, prefix+"token-param", "", "the field carrying the token limit: max_tokens or max_completion_tokens (empty: by the model id; a 400 naming the field switches once)")
}

// check reads the key before anything is written: a local endpoint may
// take no key; any other needs one, and the error names the variable,
// never a value.
func (e *endpointFlags) check() error {
	key, err := llm.KeyFromEnv(e.keyEnv)
	if err != nil && !isLocal(e.baseURL) {
		return setupError(err)
	}
	if len(e.deployments.m) > 0 && e.azureVersion == "" {
		return errors.New("--deployment is for Azure OpenAI: give --azure-api-version too")
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
		Ledger: ledger, RunID: runID, PriceInput: e.priceInput.v, PriceOutput: e.priceOutput.v, PriceCachedInput: e.priceCachedInput.v, AzureAPIVersion: e.azureVersion,
		Deployments: e.deployments.m, TokenParam: e.tokenParam, Log: noticeLog(e.stderr),
	})
}

// noticeLog writes the client's notices to w as plain lines, without the
// time, as the CLI's other messages are.
func noticeLog(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
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
	return "cost ledger, one JSON line per attempt that may have been billed; \"\" for none (default: " + def + ")"
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

func isTerminal(w io.Writer) bool {
	f, ok := unwrapDiagnostics(w).(*os.File)
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

// rubricJudge opens the rubric benchmark key of the leaderboard in root
// and its fixed judge at the endpoint ep names, with the cost ledger at
// ledger; notRubric says why an mcq benchmark will not do. The returned
// function closes the ledger.
func rubricJudge(root, key, notRubric string, ep *endpointFlags, ledger string) (*benchmark.Benchmark, *judge.Judge, func() error, error) {
	b, err := openBenchmark(root, key)
	if err == nil && b.Rubric == nil {
		err = fmt.Errorf("benchmark %q is multiple choice: %s", key, notRubric)
	}
	if err == nil {
		err = ep.check()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	w, closeLedger, err := openLedger(ledger)
	if err != nil {
		return nil, nil, nil, err
	}
	j, err := newJudge(b, ep, w)
	if err != nil {
		closeLedger()
		return nil, nil, nil, err
	}
	return b, j, closeLedger, nil
}

// newJudge is benchmark b's fixed judge at the endpoint ep names, with
// the request parameters of the registry's judge contract: the same judge
// the App calls (see judge.Judge.For).
func newJudge(b *benchmark.Benchmark, ep *endpointFlags, ledger io.Writer) (*judge.Judge, error) {
	client, err := ep.client(ledger, newRunID())
	if err != nil {
		return nil, err
	}
	j := judge.Judge{LLM: client, Endpoint: client.Endpoint(), Cache: judgeCache(filecache.DefaultDir(os.Getenv)), Prices: judgePrices(ep.priceInput.v, ep.priceOutput.v, ep.priceCachedInput.v)}
	return j.For(b.Entry), nil
}

// judgePrices are the judge's prices when both are given, which lets a
// spot-check's budget reserve each call's worst case.
func judgePrices(in, out, cachedIn *float64) *judge.Prices {
	if in == nil || out == nil {
		return nil
	}
	return &judge.Prices{Input: *in, Output: *out, CachedInput: cachedIn}
}
