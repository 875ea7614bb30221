package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/submission"
)

// boardBenchmark loads the benchmark key of the board at root.
func boardBenchmark(t *testing.T, root, key string) *benchmark.Benchmark {
	t.Helper()
	fsys := os.DirFS(root)
	reg, err := benchmark.LoadRegistry(fsys)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := reg.Lookup(key)
	if !ok {
		t.Fatalf("no benchmark %q in the board's registry", key)
	}
	b, fs := benchmark.Load(fsys, e)
	if b == nil {
		t.Fatal(fs)
	}
	return b
}

// calibrationFixtures counts the calibration fixtures of the board's rubric.
func calibrationFixtures(t *testing.T, root string) int {
	t.Helper()
	b := boardBenchmark(t, root, "basin-analysis")
	n := 0
	for _, q := range b.Rubric.Questions {
		n += len(q.Calibration)
	}
	return n
}

func readLedger(t *testing.T, path string) []llm.LedgerEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []llm.LedgerEntry
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var e llm.LedgerEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("ledger line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// TestCalibrateVariants runs `benchgate calibrate` against a judge
// endpoint answering as each provider documents it: the exit, the
// message, the calls made and the ledger.
func TestCalibrateVariants(t *testing.T) {
	root := copyBoard(t)
	n := calibrationFixtures(t, root)
	tests := []struct {
		name    string
		opts    fakeopenai.Options
		flags   []string
		code    int
		calls   int      // 0 means one per fixture
		out     []string // in stdout
		stderr  []string
		ledger  int    // lines; 0 means one per fixture
		failed  int    // ledger lines with outcome failed
		served  string // the model the endpoint says served each call; "" the one asked
		noteSet bool
	}{
		{name: "OpenRouter reasoning judge", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterReasoning},
			code: exitFail, out: []string{"within ±1 point 33%"}},
		{name: "an error inside a 200 is retried, not graded", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterErrorInChoice, VariantCalls: 1},
			code: exitFail, calls: n + 1, ledger: n + 1, failed: 1, out: []string{"within ±1 point 33%"}},
		{name: "402 without Retry-After stops the run", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterNoCredits},
			code: exitSetup, calls: 1, ledger: -1, stderr: []string{"not enough credits (HTTP 402)", "an account error: the run stops"}},
		{name: "429 insufficient_quota stops the run", opts: fakeopenai.Options{Variant: fakeopenai.OpenAIInsufficientQuota},
			code: exitSetup, calls: 1, ledger: -1, stderr: []string{"quota is spent (HTTP 429 insufficient_quota)"}},
		{name: "402 with Retry-After is waited out", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterBudgetRetryAfter, VariantCalls: 1},
			code: exitFail, calls: n + 1, ledger: n, out: []string{"within ±1 point 33%"}},
		{name: "a prompt Azure's filter refuses leaves its fixture unscored", opts: fakeopenai.Options{Variant: fakeopenai.AzureContentFilterPrompt},
			code: exitFail, ledger: -1, out: []string{"within ±1 point 0%", "unscored"}},
		{name: "GPT-5 refusing the contract's temperature: a setup error stops the run at once", opts: fakeopenai.Options{Variant: fakeopenai.GPT5Temperature},
			code: exitSetup, calls: 1, ledger: -1, stderr: []string{`set the judge contract's "temperature": null`, "a setup error"}},
		{name: "o-series refusing max_tokens: switched once", opts: fakeopenai.Options{Variant: fakeopenai.OSeriesMaxTokens},
			code: exitFail, calls: n + 1, ledger: n, noteSet: true, out: []string{"within ±1 point 33%"}, stderr: []string{"rejected the token limit's field"}},
		{name: "Mistral: the verdict in text chunks beside thinking chunks", opts: fakeopenai.Options{Variant: fakeopenai.MistralThinking},
			code: exitFail, out: []string{"within ±1 point 33%"}},
		{name: "OpenRouter streaming every answer: read, not retried", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterStream},
			code: exitFail, out: []string{"within ±1 point 33%"}},
		{name: "DeepSeek: reasoning_content and cache hits", opts: fakeopenai.Options{Variant: fakeopenai.DeepSeek},
			code: exitFail, out: []string{"within ±1 point 33%"}},
		{name: "a judge that refuses grades nothing: each fixture re-asked, then unscored", opts: fakeopenai.Options{Variant: fakeopenai.OpenAIRefusal},
			code: exitFail, calls: 4 * n, out: []string{"within ±1 point 0%"}},
		{name: "a judge served by another model grades nothing: retried once, then unscored", opts: fakeopenai.Options{}, served: "openai/gpt-4o-mini",
			code: exitFail, calls: 2 * n, failed: 2 * n, out: []string{"within ±1 point 0%"}},
		{name: "a judge served as its dated snapshot grades", opts: fakeopenai.Options{}, served: "gpt-5.5-2026-03-05",
			code: exitFail, out: []string{"within ±1 point 33%"}},
		{name: "OpenRouter's 404 no endpoints stops the run with the fix", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterNoEndpoints},
			code: exitSetup, calls: 1, ledger: -1, stderr: []string{"no provider serves the model as asked (HTTP 404); check the model id, the provider the judge contract pins", "a setup error"}},
		{name: "Gemini's per-day quota stops the run, saying when it resets", opts: fakeopenai.Options{Variant: fakeopenai.GeminiDailyQuota},
			code: exitSetup, calls: 1, ledger: -1, stderr: []string{"a per-day limit (GenerateRequestsPerDayPerProjectPerModel-FreeTier) is reached: it resets at midnight Pacific time"}},
		{name: "Groq's 498 is transient", opts: fakeopenai.Options{Variant: fakeopenai.GroqFlexCapacity, VariantCalls: 1},
			code: exitFail, calls: n + 1, ledger: n, out: []string{"within ±1 point 33%"}},
		{name: "Cerebras's per-day request limit stops the run, saying when it resets", opts: fakeopenai.Options{Variant: fakeopenai.CerebrasRequestsDay},
			code: exitSetup, calls: 1, ledger: -1, stderr: []string{"a per-day limit is reached: the endpoint asks to wait 9h10m11s (x-ratelimit-reset-requests-day)"}},
		{name: "a gateway's HTML 502 is transient", opts: fakeopenai.Options{Variant: fakeopenai.GatewayHTML, VariantCalls: 1},
			code: exitFail, calls: n + 1, ledger: n, out: []string{"within ±1 point 33%"}},
		{name: "OpenRouter's free models per day stop the run, saying when the limit resets", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterFreeDaily},
			code: exitSetup, calls: 1, ledger: -1, stderr: []string{"free-models-per-day", "a per-day limit is reached: the endpoint asks to wait", "(x-ratelimit-reset)"}},
		{name: "TGI's 422 with a string error leaves each fixture unscored, not retried", opts: fakeopenai.Options{Variant: fakeopenai.TGIValidation},
			code: exitFail, ledger: -1, out: []string{"within ±1 point 0%", "unscored"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BENCHGATE_TEST_KEY", testKey)
			t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
			opts := tt.opts
			opts.Key, opts.Reply = testKey, servedBy(tt.served, boardReplies(t, root))
			srv := fakeopenai.New(t, opts)
			ledger := filepath.Join(t.TempDir(), "ledger.jsonl")
			// One grading at a time, so that the calls counted are the
			// variant's alone, not those of other workers in flight when
			// an account error stops the run.
			args := append([]string{"calibrate", "--root", root, "--rubric", "basin-analysis", "--judge-base-url", srv.URL,
				"--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", ledger, "--workers", "1"}, tt.flags...)
			code, out, stderr := runCLI(t, args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, stderr)
			}
			for _, s := range tt.out {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			wantCalls := tt.calls
			if wantCalls == 0 {
				wantCalls = n
			}
			reqs := srv.Requests()
			if len(reqs) != wantCalls {
				t.Errorf("%d calls, want %d", len(reqs), wantCalls)
			}
			// The judge contract of the registry, as sent.
			for _, s := range []string{`"temperature":0`, `"top_p":1`, `"reasoning_effort":"medium"`, `"service_tier":"flex"`, fmt.Sprintf(`"max_tokens":%d`, contractMaxTokens(t, root))} {
				if !strings.Contains(string(reqs[0].Raw), s) {
					t.Errorf("the judge's body lacks %s: %s", s, reqs[0].Raw)
				}
			}
			if strings.Contains(string(reqs[0].Raw), `"seed"`) {
				t.Errorf("a seed the contract does not set was sent: %s", reqs[0].Raw)
			}
			lines := readLedger(t, ledger)
			wantLines := tt.ledger
			switch wantLines {
			case 0:
				wantLines = wantCalls
			case -1:
				wantLines = 0 // refused calls are not billed
			}
			failed, noted := 0, false
			for _, l := range lines {
				if l.Outcome == llm.OutcomeFailed {
					failed++
				}
				if l.Note != "" {
					noted = true
				}
				if l.Kind != llm.CallJudge || l.Model != "openai/gpt-5.5" {
					t.Errorf("ledger line %+v", l)
				}
			}
			if len(lines) != wantLines || failed != tt.failed || noted != tt.noteSet {
				t.Errorf("ledger: %d lines (%d failed, noted %v), want %d (%d, %v)", len(lines), failed, noted, wantLines, tt.failed, tt.noteSet)
			}
		})
	}
}

// TestRerunVariants runs `benchgate rerun` on the board's rubric
// submission against judges answering in the documented variants.
func TestRerunVariants(t *testing.T) {
	root := copyBoard(t)
	sub := root + "/submissions/model-benchmark/qwen3-32b-basin"
	// Each spot-check first has the judge grade this many of the rubric's
	// calibration fixtures: all of them, the example rubric having fewer
	// than the rule's number. The judge gives every answer full marks, so
	// the reported scores are below its own, and with the fixtures graded
	// as expected the five questions, each graded twice, rule out an
	// inflation.
	fx := min(rerun.DefaultRule().DriftFixtures, 15)
	// A consistent check grades its canaries last: the example rubric's
	// five answers make two (four answers against the fifth question,
	// then the fifth against another).
	const canaries = 2
	tests := []struct {
		name   string
		opts   fakeopenai.Options
		flags  []string
		code   int
		calls  int // the server's, and the report's
		reason string
		faults int
		failed int    // failed ledger lines
		served string // the model the endpoint says served each call; "" the one asked
	}{
		{name: "an OpenRouter reasoning judge", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterReasoning},
			code: exitOK, calls: fx + 2*5 + canaries, reason: "is ruled out"},
		{name: "an error inside a 200 counts as a call", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterErrorInChoice, VariantCalls: 1},
			code: exitOK, calls: fx + 2*5 + canaries + 1, failed: 1, reason: "is ruled out"},
		{name: "failed attempts count against the call cap", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterErrorInChoice, VariantCalls: 2},
			flags: []string{"--max-calls", "4"}, code: exitInconclusive, calls: 4, failed: 2, reason: "the budget ran out after 4 calls"},
		{name: "402 stops the spot-check at once", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterNoCredits},
			code: exitSetup, calls: 1, faults: 1, reason: "the judge's account was refused"},
		{name: "429 insufficient_quota stops the spot-check at once", opts: fakeopenai.Options{Variant: fakeopenai.OpenAIInsufficientQuota},
			code: exitSetup, calls: 1, faults: 1, reason: "the judge's account was refused"},
		{name: "Azure's prompt filter is a judge fault, not evidence", opts: fakeopenai.Options{Variant: fakeopenai.AzureContentFilterPrompt},
			code: exitInconclusive, calls: 5, faults: 5, reason: "the judge failed on 5 of the 5 calibration fixtures"},
		{name: "a Mistral judge's text chunks", opts: fakeopenai.Options{Variant: fakeopenai.MistralThinking},
			code: exitOK, calls: fx + 2*5 + canaries, reason: "is ruled out"},
		{name: "a judge streaming every answer", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterStream},
			code: exitOK, calls: fx + 2*5 + canaries, reason: "is ruled out"},
		{name: "a judge served by another model is a fault, not evidence", opts: fakeopenai.Options{}, served: "openai/gpt-4o-mini",
			code: exitInconclusive, calls: 2 * 5, faults: 5, failed: 2 * 5, reason: "the judge failed on 5 of the 5 calibration fixtures"},
		{name: "OpenRouter's 404 no endpoints stops the spot-check at once", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterNoEndpoints},
			code: exitSetup, calls: 1, faults: 1, reason: "the judge's endpoint refused the setup"},
		{name: "Gemini's per-day quota stops the spot-check at once", opts: fakeopenai.Options{Variant: fakeopenai.GeminiDailyQuota},
			code: exitSetup, calls: 1, faults: 1, reason: "the judge's account was refused"},
		{name: "Cerebras's per-day request limit stops the spot-check at once", opts: fakeopenai.Options{Variant: fakeopenai.CerebrasRequestsDay},
			code: exitSetup, calls: 1, faults: 1, reason: "the judge's account was refused"},
		{name: "a gateway's HTML 502 is retried, not a fault", opts: fakeopenai.Options{Variant: fakeopenai.GatewayHTML, VariantCalls: 1},
			code: exitOK, calls: fx + 2*5 + canaries + 1, reason: "is ruled out"},
		{name: "OpenRouter's free models per day stop the spot-check at once", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterFreeDaily},
			code: exitSetup, calls: 1, faults: 1, reason: "the judge's account was refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BENCHGATE_TEST_KEY", testKey)
			t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
			t.Setenv("BENCHGATE_RERUN_SECRET", "s3cret")
			opts := tt.opts
			opts.Key, opts.Reply = testKey, servedBy(tt.served, calibratedReplies(t, root))
			srv := fakeopenai.New(t, opts)
			ledger := filepath.Join(t.TempDir(), "ledger.jsonl")
			args := append([]string{"rerun", sub, "--root", root, "--format", "json", "--judge-base-url", srv.URL,
				"--judge-api-key-env", "BENCHGATE_TEST_KEY", "--attempts", "3", "--ledger", ledger}, tt.flags...)
			code, out, stderr := runCLI(t, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, stderr)
			}
			var rep struct {
				Calls  int    `json:"calls"`
				Reason string `json:"reason"`
				Faults int    `json:"judge_faults"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			calls, _ := srv.Stats()
			if calls != tt.calls || rep.Calls != tt.calls {
				t.Errorf("server saw %d calls, the report counts %d, want %d", calls, rep.Calls, tt.calls)
			}
			if rep.Faults != tt.faults {
				t.Errorf("%d judge faults, want %d", rep.Faults, tt.faults)
			}
			if !strings.Contains(rep.Reason, tt.reason) {
				t.Errorf("reason %q lacks %q", rep.Reason, tt.reason)
			}
			failed := 0
			for _, l := range readLedger(t, ledger) {
				if l.Outcome == llm.OutcomeFailed {
					failed++
				}
			}
			if failed != tt.failed {
				t.Errorf("%d failed ledger lines, want %d", failed, tt.failed)
			}
		})
	}
}

// TestGenerateVariants runs `benchgate generate` on the multiple-choice
// board against a candidate endpoint answering as each provider documents
// it (internal/fakeopenai's variants cite the pages): the rows written,
// the exit and message, the calls made and the ledger.
func TestGenerateVariants(t *testing.T) {
	root := copyBoard(t)
	const questions = 40
	tests := []struct {
		name      string
		variant   fakeopenai.Variant
		failFirst bool // the variant answers only the first call
		flags     []string
		code      int
		calls     int    // at most, when maxCalls; else exactly
		maxCalls  bool   // a run stopped early: calls is a bound (one per worker)
		answered  int    // rows with a letter
		reasoning string // every answered row's reasoning field
		out       string // in stdout or stderr
		ledger    int    // lines; -1: not checked
		reply     *fakeopenai.Reply
		finish    string // every row's finish reason, when set
	}{
		{name: "OpenRouter: reasoning beside the content", variant: fakeopenai.OpenRouterReasoning,
			calls: questions, answered: questions, reasoning: "Porosity first.", ledger: questions},
		{name: "vLLM before 0.11: reasoning_content", variant: fakeopenai.VLLMReasoningContent,
			calls: questions, answered: questions, reasoning: "Porosity first.", ledger: questions},
		{name: "Ollama: reasoning", variant: fakeopenai.Ollama,
			calls: questions, answered: questions, reasoning: "Porosity first.", ledger: questions},
		{name: "vLLM without a reasoning parser: the think block stays in the response", variant: fakeopenai.VLLMNoParser,
			calls: questions, answered: questions, ledger: questions},
		{name: "no usage: the cost is unknown, not zero", variant: fakeopenai.NoUsage,
			calls: questions, answered: questions, out: "+40 calls of unknown cost", ledger: questions},
		{name: "an error inside a 200 is retried, never kept as the answer", variant: fakeopenai.OpenRouterErrorInChoice, failFirst: true,
			calls: questions + 1, answered: questions, ledger: questions + 1},
		{name: "a top-level error inside a 200 likewise", variant: fakeopenai.OpenRouterErrorTopLevel, failFirst: true,
			calls: questions + 1, answered: questions, ledger: questions + 1},
		{name: "402 with Retry-After is waited out", variant: fakeopenai.OpenRouterBudgetRetryAfter, failFirst: true,
			calls: questions + 1, answered: questions, ledger: -1},
		{name: "402 without Retry-After stops the run", variant: fakeopenai.OpenRouterNoCredits,
			code: exitSetup, calls: 4, maxCalls: true, out: "not enough credits (HTTP 402)", ledger: -1},
		{name: "429 insufficient_quota stops the run", variant: fakeopenai.OpenAIInsufficientQuota,
			code: exitSetup, calls: 4, maxCalls: true, out: "quota is spent (HTTP 429 insufficient_quota)", ledger: -1},
		{name: "Azure's filter refusing a prompt fails that question only", variant: fakeopenai.AzureContentFilterPrompt, failFirst: true,
			code: exitFail, calls: questions, answered: questions - 1, out: "content filter refused the prompt", ledger: -1},
		{name: "o-series refusing max_tokens: the field is switched once", variant: fakeopenai.OSeriesMaxTokens, failFirst: true,
			calls: questions + 1, answered: questions, ledger: -1},
		{name: "gpt-5 refusing a temperature: --temperature 0 stops the run, a setup error", variant: fakeopenai.GPT5Temperature,
			code: exitSetup, calls: 4, maxCalls: true, answered: 0, out: "--temperature none", ledger: -1},
		{name: "gpt-5 with --temperature none answers", variant: fakeopenai.GPT5Temperature, flags: []string{"--temperature", "none"},
			calls: questions, answered: questions, ledger: questions},
		{name: "Mistral: text chunks the response, thinking chunks the reasoning", variant: fakeopenai.MistralThinking,
			calls: questions, answered: questions, reasoning: "Porosity first.", ledger: questions},
		{name: "OpenRouter streaming every answer: read once, not retried", variant: fakeopenai.OpenRouterStream,
			calls: questions, answered: questions, reasoning: "Porosity first.", ledger: questions},
		{name: "DeepSeek: reasoning_content, cache hits priced at their rate", variant: fakeopenai.DeepSeek,
			flags: []string{"--price-input", "1", "--price-output", "2", "--price-cached-input", "0.1"},
			calls: questions, answered: questions, reasoning: "Porosity first.", out: "spend $0.0005", ledger: questions}, // 40 × (2×1 + 8×0.1 + 5×2) / 1e6
		{name: "a refusal fails the question, kept in the row and the ledger", variant: fakeopenai.OpenAIRefusal,
			code: exitFail, calls: questions, answered: 0, finish: "refusal", out: "40 × the model refused to answer (refusal)", ledger: questions},
		{name: "a letter in the reasoning only: empty, failed, not answered", variant: fakeopenai.VLLMReasoning, reply: &fakeopenai.Reply{Reasoning: "The answer is B."},
			code: exitFail, calls: questions, answered: 0, finish: "empty", out: "40 failed (40 refused, filtered or empty)", ledger: questions},
		{name: "Groq's 498 is transient", variant: fakeopenai.GroqFlexCapacity, failFirst: true,
			calls: questions + 1, answered: questions, reasoning: "", ledger: questions},
		{name: "OpenRouter's 404 no endpoints stops the run with the fix", variant: fakeopenai.OpenRouterNoEndpoints,
			code: exitSetup, calls: 4, maxCalls: true, out: "no provider serves the model as asked (HTTP 404)", ledger: -1},
		{name: "Gemini's per-day quota stops the run, saying when it resets", variant: fakeopenai.GeminiDailyQuota,
			code: exitSetup, calls: 4, maxCalls: true, out: "is reached: it resets at midnight Pacific time", ledger: -1},
		{name: "a completion Azure's filter cut fails the question, keeping its finish", variant: fakeopenai.AzureContentFilterCompletion,
			code: exitFail, calls: questions, answered: questions, finish: "content_filter", out: "a content filter cut the reply", ledger: questions},
		{name: "Mistral's model_length: the row's finish is length, not stop", variant: fakeopenai.MistralModelLength,
			calls: questions, answered: questions, finish: "length", ledger: questions},
		{name: "Cerebras's per-day request limit stops the run, saying when it resets", variant: fakeopenai.CerebrasRequestsDay,
			code: exitSetup, calls: 4, maxCalls: true, out: "a per-day limit is reached: the endpoint asks to wait 9h10m11s", ledger: -1},
		{name: "a gateway's HTML 502 is transient", variant: fakeopenai.GatewayHTML, failFirst: true,
			calls: questions + 1, answered: questions, reasoning: "", ledger: questions},
		{name: "OpenRouter's free models per day stop the run, saying when the limit resets", variant: fakeopenai.OpenRouterFreeDaily,
			code: exitSetup, calls: 4, maxCalls: true, out: "a per-day limit is reached: the endpoint asks to wait", ledger: -1},
		{name: "TGI's string error: each question failed with its message", variant: fakeopenai.TGIValidation,
			code: exitFail, calls: questions, answered: 0, out: "HTTP 422 Unprocessable Entity: Input validation error", ledger: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BENCHGATE_TEST_KEY", testKey)
			reply := fakeopenai.Reply{Content: "The answer is B.", Reasoning: "Porosity first.", PromptTokens: 10, CompletionTokens: 5, CachedTokens: 8}
			if tt.reply != nil {
				reply = *tt.reply
				reply.PromptTokens, reply.CompletionTokens = 10, 5
			}
			opts := fakeopenai.Options{Key: testKey, Variant: tt.variant, Reply: func(fakeopenai.Request) fakeopenai.Reply { return reply }}
			if tt.failFirst {
				opts.VariantCalls = 1
			}
			srv := fakeopenai.New(t, opts)
			out := filepath.Join(t.TempDir(), "answers.json")
			args := append([]string{"generate", "--root", root, "--rubric", "reservoir-mcq", "--model", "m", "--base-url", srv.URL,
				"--api-key-env", "BENCHGATE_TEST_KEY", "--output", out, "--max-tokens", "256"}, tt.flags...)
			code, stdout, stderr := runCLI(t, args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			if tt.out != "" && !strings.Contains(stdout+stderr, tt.out) {
				t.Errorf("output lacks %q:\n%s%s", tt.out, stdout, stderr)
			}
			calls, _ := srv.Stats()
			if tt.maxCalls && calls > tt.calls || !tt.maxCalls && calls != tt.calls {
				t.Errorf("%d calls, want %d (at most: %v)", calls, tt.calls, tt.maxCalls)
			}
			var rows []map[string]any
			if data, err := os.ReadFile(out); err == nil {
				if err := json.Unmarshal(data, &rows); err != nil {
					t.Fatal(err)
				}
			}
			answered := 0
			for _, r := range rows {
				if r["answer"] == "B" {
					answered++
					if got, _ := r["reasoning"].(string); got != tt.reasoning {
						t.Errorf("row %v: reasoning %q, want %q", r["id"], got, tt.reasoning)
					}
					if r["response"] == "" || strings.Contains(fmt.Sprint(r["response"]), "error") {
						t.Errorf("row %v kept %q as its response", r["id"], r["response"])
					}
					// Token counts are the endpoint's, or absent when it gave none: never a made-up 0.
					_, hasPrompt := r["prompt_tokens"]
					_, hasCompletion := r["completion_tokens"]
					if usage := tt.variant != fakeopenai.NoUsage; hasPrompt != usage || hasCompletion != usage {
						t.Errorf("row %v: prompt_tokens %v, completion_tokens %v; the endpoint reported usage: %t", r["id"], r["prompt_tokens"], r["completion_tokens"], usage)
					}
				}
			}
			if answered != tt.answered && !tt.maxCalls {
				t.Errorf("%d rows answered, want %d", answered, tt.answered)
			}
			for _, r := range rows {
				if tt.finish != "" && r["finish_reason"] != tt.finish {
					t.Errorf("row %v: finish_reason %v, want %s", r["id"], r["finish_reason"], tt.finish)
				}
				if tt.finish == "refusal" && r["error"] != "refusal: I'm sorry, but I can't help with that request." {
					t.Errorf("row %v: error %v, want the refusal", r["id"], r["error"])
				}
			}
			if tt.finish == "refusal" {
				for _, l := range readLedger(t, out+".ledger.jsonl") {
					if l.Refusal == "" || l.ServedModel != "m" {
						t.Errorf("ledger line %+v lacks the refusal or the served model", l)
					}
				}
			}
			if tt.ledger >= 0 {
				if n := len(readLedger(t, out+".ledger.jsonl")); n != tt.ledger {
					t.Errorf("%d ledger lines, want %d", n, tt.ledger)
				}
			}
			if tt.finish != "" && tt.code == exitFail {
				// The next run asks every failed question again.
				before, _ := srv.Stats()
				runCLI(t, args...)
				if after, _ := srv.Stats(); after-before != questions {
					t.Errorf("resume asked %d questions again, want %d", after-before, questions)
				}
			}
		})
	}
}

// TestScoreVariants runs `benchgate score` on the rubric board's answers
// against a judge endpoint answering as each provider documents it: what
// scores.json holds, the exit and message, the calls made.
func TestScoreVariants(t *testing.T) {
	root := copyBoard(t)
	rub := boardBenchmark(t, root, "basin-analysis")
	n := len(rub.Rubric.Questions)
	var answers []submission.AnswerRow
	for _, q := range rub.Rubric.Questions {
		a := submission.AnswerRow{ID: q.ID, Question: q.Text, Answer: "An answer to " + q.ID + "."}
		a.AnswerClean, _ = submission.DefaultAnswerRule(true).Graded(a.Answer, a.Reasoning)
		answers = append(answers, a)
	}
	data, _ := json.MarshalIndent(answers, "", "  ")
	answersFile := filepath.Join(t.TempDir(), "answers.json")
	if err := os.WriteFile(answersFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		variant   fakeopenai.Variant
		failFirst bool
		code      int
		calls     int // exactly; with stopped, at most
		stopped   bool
		scored    int // rows with a score; -1: no scores.json
		out       string
		served    string // the model the endpoint says served each call; "" the one asked
		contract  string // JSON members added to the registry's judge contract
	}{
		{name: "OpenRouter: a reasoning judge's verdict is its content", variant: fakeopenai.OpenRouterReasoning, calls: n, scored: n},
		{name: "an error inside a 200 is retried, never graded", variant: fakeopenai.OpenRouterErrorInChoice, failFirst: true, calls: n + 1, scored: n},
		{name: "402 with Retry-After is waited out", variant: fakeopenai.OpenRouterBudgetRetryAfter, failFirst: true, calls: n + 1, scored: n},
		{name: "o-series refusing max_tokens: switched once", variant: fakeopenai.OSeriesMaxTokens, failFirst: true, calls: n + 1, scored: n},
		{name: "Azure's filter refusing one prompt: that row unscored, the rest written", variant: fakeopenai.AzureContentFilterPrompt, failFirst: true,
			code: exitFail, calls: n, scored: n - 1, out: "content filter refused the prompt"},
		{name: "402 without Retry-After stops the run, writing nothing", variant: fakeopenai.OpenRouterNoCredits,
			code: exitSetup, calls: 2, stopped: true, scored: -1, out: "not enough credits (HTTP 402)"},
		{name: "429 insufficient_quota stops the run, writing nothing", variant: fakeopenai.OpenAIInsufficientQuota,
			code: exitSetup, calls: 2, stopped: true, scored: -1, out: "quota is spent"},
		{name: "GPT-5 refusing the contract's temperature: the run stops, writing nothing", variant: fakeopenai.GPT5Temperature,
			code: exitSetup, calls: n, stopped: true, scored: -1, out: `set the judge contract's "temperature": null`},
		{name: "Mistral: a verdict in text chunks", variant: fakeopenai.MistralThinking, calls: n, scored: n},
		{name: "OpenRouter streaming every answer: graded, not retried", variant: fakeopenai.OpenRouterStream, calls: n, scored: n},
		{name: "DeepSeek: reasoning_content and cache hits", variant: fakeopenai.DeepSeek, calls: n, scored: n},
		{name: "a judge that refuses: re-asked, then unscored, never a grade", variant: fakeopenai.OpenAIRefusal, calls: 4 * n, scored: 0,
			out: "the judge gave no valid verdict for 5 answers"},
		{name: "a judge served as its dated snapshot grades", served: "gpt-5.5-2026-03-05", calls: n, scored: n},
		{name: "Groq's 498 is transient", variant: fakeopenai.GroqFlexCapacity, failFirst: true, calls: n + 1, scored: n},
		{name: "OpenRouter's 404 no endpoints stops the run with the fix, writing nothing", variant: fakeopenai.OpenRouterNoEndpoints,
			code: exitSetup, calls: 2, stopped: true, scored: -1, out: "no provider serves the model as asked (HTTP 404)"},
		{name: "the contract's provider pin is not sent away from OpenRouter", variant: fakeopenai.OpenAIUnknownField, contract: `"provider": "openai"`,
			calls: n, scored: n},
		{name: "Gemini's per-day quota stops the run", variant: fakeopenai.GeminiDailyQuota,
			code: exitSetup, calls: 2, stopped: true, scored: -1, out: "a per-day limit (GenerateRequestsPerDayPerProjectPerModel-FreeTier) is reached"},
		{name: "a judge served by another model: retried once, then unscored with that reason", served: "openai/gpt-4o-mini",
			code: exitFail, calls: 2 * n, scored: 0, out: `the answer was served by the model "openai/gpt-4o-mini", not by "openai/gpt-5.5"`},
		{name: "Cerebras's per-day request limit stops the run, writing nothing", variant: fakeopenai.CerebrasRequestsDay,
			code: exitSetup, calls: 2, stopped: true, scored: -1, out: "a per-day limit is reached: the endpoint asks to wait 9h10m11s"},
		{name: "a gateway's HTML 502 is transient", variant: fakeopenai.GatewayHTML, failFirst: true, calls: n + 1, scored: n},
		{name: "OpenRouter's free models per day stop the run, writing nothing", variant: fakeopenai.OpenRouterFreeDaily,
			code: exitSetup, calls: 2, stopped: true, scored: -1, out: "a per-day limit is reached: the endpoint asks to wait"},
		{name: "TGI's string error: each row unscored with its message", variant: fakeopenai.TGIValidation,
			code: exitFail, calls: n, scored: 0, out: "Input validation error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BENCHGATE_TEST_KEY", testKey)
			t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
			root := root
			if tt.contract != "" {
				root = withContract(t, tt.contract)
			}
			opts := fakeopenai.Options{Key: testKey, Variant: tt.variant, Reply: servedBy(tt.served, boardReplies(t, root))}
			if tt.failFirst {
				opts.VariantCalls = 1
			}
			srv := fakeopenai.New(t, opts)
			scores := filepath.Join(t.TempDir(), "scores.json")
			code, stdout, stderr := runCLI(t, "score", answersFile, "--root", root, "--output", scores, "--judge-base-url", srv.URL,
				"--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "", "--workers", "2")
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			if tt.out != "" && !strings.Contains(stdout+stderr, tt.out) {
				t.Errorf("output lacks %q:\n%s%s", tt.out, stdout, stderr)
			}
			if calls, _ := srv.Stats(); tt.stopped && calls > tt.calls || !tt.stopped && calls != tt.calls {
				t.Errorf("%d calls, want %d (at most: %v)", calls, tt.calls, tt.stopped)
			}
			data, err := os.ReadFile(scores)
			if tt.scored < 0 {
				if err == nil {
					t.Errorf("a stopped run wrote scores.json:\n%.300s", data)
				}
				return
			}
			var rows []submission.RubricRecord
			if err := json.Unmarshal(data, &rows); err != nil || len(rows) != n {
				t.Fatalf("scores.json: %v, %d rows", err, len(rows))
			}
			scored := 0
			for _, r := range rows {
				if r.Score != nil {
					scored++
				} else if !strings.HasPrefix(r.Reason, "unscored:") || !r.AdjudicationRequired {
					t.Errorf("unscored row %s without its reason: %+v", r.ID, r)
				}
			}
			if scored != tt.scored {
				t.Errorf("%d rows scored, want %d", scored, tt.scored)
			}
		})
	}
}

// withContract is a copy of the board whose rubric benchmark's judge
// contract has members added.
func withContract(t *testing.T, members string) string {
	t.Helper()
	root := copyBoard(t)
	path := filepath.Join(root, "rubrics", "rubrics.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `"service_tier": "flex"`, `"service_tier": "flex", `+members, 1)
	if changed == string(data) {
		t.Fatal("the registry's judge contract has no service_tier to add members after")
	}
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// servedBy makes reply's answers say model served them, when it is set.
func servedBy(model string, reply func(fakeopenai.Request) fakeopenai.Reply) func(fakeopenai.Request) fakeopenai.Reply {
	if model == "" {
		return reply
	}
	return func(req fakeopenai.Request) fakeopenai.Reply {
		r := reply(req)
		r.Model = model
		return r
	}
}

// TestGenerateTemperatureFlag: --temperature takes a number from 0 to 2 or
// none; anything else is a usage error naming the value, before any call.
func TestGenerateTemperatureFlag(t *testing.T) {
	root := copyBoard(t)
	for _, v := range []string{"hot", "-0.5", "2.5", ""} {
		code, _, stderr := runCLI(t, "generate", "--root", root, "--rubric", "reservoir-mcq", "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "--temperature", v)
		if code != exitUsage || !strings.Contains(stderr, fmt.Sprintf("--temperature %q is not a number from 0 to 2, nor none", v)) {
			t.Errorf("--temperature %q: exit %d\n%s", v, code, stderr)
		}
	}
	for _, tt := range []struct {
		in   string
		want *float64
	}{{"none", nil}, {"0", new(0.0)}, {"0.7", new(0.7)}, {"2", new(2.0)}} {
		got, err := parseTemperature(tt.in)
		if err != nil || (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("parseTemperature(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// TestGenerateRubricModelLength runs `benchgate generate` on the rubric
// board against Mistral answering with finish_reason model_length, which
// its API reference lists for an answer the model's context window cut:
// no row is written for an answer cut short, the ledger keeps the native
// reason, the message says what to change, and resume asks again.
func TestGenerateRubricModelLength(t *testing.T) {
	root := copyBoard(t)
	n := len(boardBenchmark(t, root, "basin-analysis").Rubric.Questions)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Variant: fakeopenai.MistralModelLength, Reply: func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Content: "Vitrinite reflectance rises with", PromptTokens: 10, CompletionTokens: 256}
	}})
	out := filepath.Join(t.TempDir(), "answers.json")
	args := []string{"generate", "--root", root, "--rubric", "basin-analysis", "--model", "m", "--base-url", srv.URL,
		"--api-key-env", "BENCHGATE_TEST_KEY", "--output", out, "--max-tokens", "256"}
	code, stdout, stderr := runCLI(t, args...)
	if code != exitFail {
		t.Errorf("exit %d, want %d\n%s%s", code, exitFail, stdout, stderr)
	}
	errs, _ := os.ReadFile(out + ".errors.jsonl")
	if want := "(finish_reason model_length, read as length, 256 completion tokens) mid-answer, and a rubric answer cut short is not graded; the prompt and --max-tokens may exceed the model's context window"; strings.Count(string(errs), want) != n {
		t.Errorf("errors file lacks %d × %q:\n%s", n, want, errs)
	}
	var rows []submission.AnswerRow
	if data, err := os.ReadFile(out); err == nil {
		if err := json.Unmarshal(data, &rows); err != nil {
			t.Fatal(err)
		}
	}
	if len(rows) != 0 {
		t.Errorf("%d rows written for answers cut short: %+v", len(rows), rows)
	}
	lines := readLedger(t, out+".ledger.jsonl")
	if len(lines) != n {
		t.Errorf("%d ledger lines, want %d: each answer was paid for", len(lines), n)
	}
	for _, l := range lines {
		if l.FinishReason != "length" || l.NativeFinishReason != "model_length" {
			t.Errorf("ledger line finish %q native %q", l.FinishReason, l.NativeFinishReason)
		}
	}
	before, _ := srv.Stats()
	runCLI(t, args...)
	if after, _ := srv.Stats(); after-before != n {
		t.Errorf("resume asked %d questions again, want %d", after-before, n)
	}
}
