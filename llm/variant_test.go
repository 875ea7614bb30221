package llm

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/internal/syncbuf"
)

// TestProviderVariants calls each documented provider variant of
// fakeopenai through the client: what the call returns, the error and its
// kind, the calls made and the ledger lines written.
func TestProviderVariants(t *testing.T) {
	reply := fakeopenai.Reply{Content: "ANSWER: C", Reasoning: "Porosity falls with burial, so C.", PromptTokens: 120, CompletionTokens: 40,
		CachedTokens: 64, ReasoningTokens: 30}
	withCost := reply
	withCost.Cost = new(0.0021)
	tests := []struct {
		name     string
		opts     fakeopenai.Options
		cfg      func(*Config)
		req      func(*Request)
		reply    fakeopenai.Reply
		attempts int

		wantErr       error // nil, ErrPermanent, ErrExhausted, ErrAccount or ErrSetup
		wantInErr     string
		wantContent   string
		wantReasoning string
		wantFinish    string
		wantCalls     int
		wantOutcomes  []string      // the ledger lines' outcomes, in order
		wantWait      time.Duration // the first wait at least, when set
		check         func(t *testing.T, resp Response, lines []LedgerEntry, reqs []fakeopenai.Request)
	}{
		{
			name: "OpenAI: token breakdown kept", opts: fakeopenai.Options{Variant: fakeopenai.OpenAI}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if resp.CachedTokens != 64 || resp.ReasoningTokens != 30 || !resp.UsageKnown {
					t.Errorf("response tokens %+v", resp)
				}
				if l := lines[0]; l.CachedTokens == nil || *l.CachedTokens != 64 || l.ReasoningTokens == nil || *l.ReasoningTokens != 30 {
					t.Errorf("ledger breakdown %+v", l)
				}
			},
		},
		{
			name: "OpenRouter: reasoning, provider and cost", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterReasoning}, reply: withCost,
			wantContent: "ANSWER: C", wantReasoning: reply.Reasoning, wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if resp.CostUSD == nil || *resp.CostUSD != 0.0021 || resp.Provider != "OpenAI" {
					t.Errorf("cost %v provider %q", resp.CostUSD, resp.Provider)
				}
				if l := lines[0]; l.Provider != "OpenAI" || l.CostUSD == nil || *l.CostUSD != 0.0021 {
					t.Errorf("ledger %+v", l)
				}
			},
		},
		{
			name: "OpenRouter: the pinned provider served the call", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterReasoning},
			reply: fakeopenai.Reply{Content: "x", Provider: "Google AI Studio"}, req: func(r *Request) { r.Provider = "google-ai-studio" },
			cfg:         func(c *Config) { c.OpenRouter = true },
			wantContent: "x", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, _ Response, _ []LedgerEntry, reqs []fakeopenai.Request) {
				if !strings.Contains(string(reqs[0].Raw), `"provider":{"allow_fallbacks":false,"order":["google-ai-studio"]}`) {
					t.Errorf("body %s", reqs[0].Raw)
				}
			},
		},
		{
			name: "OpenRouter: another provider served the call", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterReasoning},
			reply: fakeopenai.Reply{Content: "x", Provider: "Together"}, req: func(r *Request) { r.Provider = "openai" },
			cfg:     func(c *Config) { c.OpenRouter = true },
			wantErr: ErrPermanent, wantInErr: `served by "Together", not by the provider "openai"`, wantCalls: 1, wantOutcomes: []string{OutcomeFailed},
		},
		{
			name: "vLLM 0.11+: reasoning", opts: fakeopenai.Options{Variant: fakeopenai.VLLMReasoning}, reply: reply,
			wantContent: "ANSWER: C", wantReasoning: reply.Reasoning, wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "older vLLM: reasoning_content", opts: fakeopenai.Options{Variant: fakeopenai.VLLMReasoningContent}, reply: reply,
			wantContent: "ANSWER: C", wantReasoning: reply.Reasoning, wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "vLLM without a reasoning parser: the thinking stays in the content", opts: fakeopenai.Options{Variant: fakeopenai.VLLMNoParser}, reply: reply,
			wantContent: "<think>\n" + reply.Reasoning + "\n</think>\n\nANSWER: C", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "Ollama: reasoning, no breakdown", opts: fakeopenai.Options{Variant: fakeopenai.Ollama}, reply: reply,
			wantContent: "ANSWER: C", wantReasoning: reply.Reasoning, wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if resp.CachedTokens != 0 || resp.PromptTokens != 120 {
					t.Errorf("response %+v", resp)
				}
			},
		},
		{
			name: "no usage: unknown, not free", opts: fakeopenai.Options{Variant: fakeopenai.NoUsage}, reply: reply,
			cfg:         func(c *Config) { c.PriceInput, c.PriceOutput = new(3.0), new(15.0) },
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if resp.UsageKnown || resp.CostUSD != nil {
					t.Errorf("usage known %v cost %v, want both unknown", resp.UsageKnown, resp.CostUSD)
				}
				if l := lines[0]; l.PromptTokens != nil || l.CompletionTokens != nil || l.CostUSD != nil {
					t.Errorf("ledger %+v, want null tokens and cost", l)
				}
			},
		},
		{
			name: "Azure content filter on the completion: a success, finish reason kept", opts: fakeopenai.Options{Variant: fakeopenai.AzureContentFilterCompletion}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "content_filter", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "finish reasons are kept as given", opts: fakeopenai.Options{}, reply: fakeopenai.Reply{Content: "x", FinishReason: "tool_calls"},
			wantContent: "x", wantFinish: "tool_calls", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "OpenRouter error in the choice: the partial text is no answer, retried", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterErrorInChoice, VariantCalls: 1}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeFailed, OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if l := lines[0]; l.FinishReason != "error" || l.CostUSD == nil || *l.CostUSD != 0.00002 || l.Attempt != 1 {
					t.Errorf("the failed attempt's ledger line %+v: it was billed", l)
				}
				if resp.Attempts != 2 {
					t.Errorf("attempts %d", resp.Attempts)
				}
			},
		},
		{
			name: "OpenRouter error in the choice on every attempt", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterErrorInChoice}, attempts: 2,
			wantErr: ErrExhausted, wantInErr: "error inside its answer: HTTP 502", wantCalls: 2, wantOutcomes: []string{OutcomeFailed, OutcomeFailed},
		},
		{
			name: "OpenRouter top-level error beside a choice", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterErrorTopLevel, VariantCalls: 1}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeFailed, OutcomeAnswered},
		},
		{
			name: "Azure content filter on the prompt", opts: fakeopenai.Options{Variant: fakeopenai.AzureContentFilterPrompt},
			wantErr: ErrPermanent, wantInErr: "content filter refused the prompt (HTTP 400)", wantCalls: 1,
		},
		{
			name: "OpenRouter 402: no credits stops the run", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterNoCredits},
			wantErr: ErrAccount, wantInErr: "not enough credits (HTTP 402); add credits", wantCalls: 1,
		},
		{
			name: "OpenRouter 402 with Retry-After: the budget frees, retried", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterBudgetRetryAfter, VariantCalls: 1}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "OpenAI 429 insufficient_quota: a billing error, not retried", opts: fakeopenai.Options{Variant: fakeopenai.OpenAIInsufficientQuota},
			wantErr: ErrAccount, wantInErr: "quota is spent (HTTP 429 insufficient_quota)", wantCalls: 1,
		},
		{
			name: "o-series deployment rejects max_tokens: switched once and kept", opts: fakeopenai.Options{Variant: fakeopenai.OSeriesMaxTokens}, reply: reply,
			req:         func(r *Request) { r.Model, r.MaxTokens = "reasoning-judge", 4096 },
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, reqs []fakeopenai.Request) {
				if reqs[0].MaxTokens == nil || reqs[1].MaxCompletionTokens == nil || *reqs[1].MaxCompletionTokens != 4096 || reqs[1].MaxTokens != nil {
					t.Errorf("bodies %s then %s", reqs[0].Raw, reqs[1].Raw)
				}
				if !strings.Contains(lines[0].Note, "rejected max_tokens; sent max_completion_tokens") {
					t.Errorf("ledger note %q", lines[0].Note)
				}
			},
		},
		{
			name: "o-series with --token-param max_completion_tokens: one call", opts: fakeopenai.Options{Variant: fakeopenai.OSeriesMaxTokens}, reply: reply,
			cfg:         func(c *Config) { c.TokenParam = TokenParamMaxCompletionTokens },
			req:         func(r *Request) { r.Model, r.MaxTokens = "reasoning-judge", 4096 },
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "GPT-5 rejects temperature 0", opts: fakeopenai.Options{Variant: fakeopenai.GPT5Temperature},
			req:     func(r *Request) { r.Temperature = new(0.0) },
			wantErr: ErrSetup, wantInErr: "the model takes no temperature: set the judge contract's \"temperature\": null", wantCalls: 1,
		},
		{
			name: "GPT-5 without a temperature answers", opts: fakeopenai.Options{Variant: fakeopenai.GPT5Temperature}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "Mistral: thinking chunks are the reasoning, text chunks the content", opts: fakeopenai.Options{Variant: fakeopenai.MistralThinking}, reply: reply,
			wantContent: "ANSWER: C", wantReasoning: reply.Reasoning, wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "OpenRouter streams an answer not asked to: read, not retried", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterStream}, reply: withCost,
			wantContent: "ANSWER: C", wantReasoning: reply.Reasoning, wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if resp.CostUSD == nil || *resp.CostUSD != 0.0021 || resp.Provider != "OpenAI" || resp.CachedTokens != 64 || resp.Model != "test/model-1" {
					t.Errorf("response %+v", resp)
				}
			},
		},
		{
			name: "OpenAI refusal: kept, in the response and the ledger, never an empty answer", opts: fakeopenai.Options{Variant: fakeopenai.OpenAIRefusal}, reply: reply,
			wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				const want = "I'm sorry, but I can't help with that request."
				if resp.Refusal != want || resp.Unanswered() != "refusal" {
					t.Errorf("refusal %q, unanswered %q", resp.Refusal, resp.Unanswered())
				}
				if lines[0].Refusal != want {
					t.Errorf("ledger %+v", lines[0])
				}
			},
		},
		{
			name: "DeepSeek: cache hits priced at the cached rate", opts: fakeopenai.Options{Variant: fakeopenai.DeepSeek}, reply: reply,
			cfg:         func(c *Config) { c.PriceInput, c.PriceOutput, c.PriceCachedInput = new(0.28), new(0.42), new(0.028) },
			wantContent: "ANSWER: C", wantReasoning: reply.Reasoning, wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				want := (56*0.28 + 64*0.028 + 40*0.42) / 1e6
				if resp.CachedTokens != 64 || resp.ReasoningTokens != 30 || resp.CostUSD == nil || math.Abs(*resp.CostUSD-want) > 1e-15 {
					t.Errorf("cached %d reasoning %d cost %v, want 64, 30, %v", resp.CachedTokens, resp.ReasoningTokens, resp.CostUSD, want)
				}
				if l := lines[0]; l.CachedTokens == nil || *l.CachedTokens != 64 || l.CostUSD == nil || *l.CostUSD != *resp.CostUSD {
					t.Errorf("ledger %+v", l)
				}
			},
		},
		{
			name: "a fixed model served as its dated snapshot", opts: fakeopenai.Options{}, reply: fakeopenai.Reply{Content: "x", Model: "gpt-4o-2024-08-06"},
			req:         func(r *Request) { r.Model, r.FixedModel = "gpt-4o", true },
			wantContent: "x", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if resp.Model != "gpt-4o-2024-08-06" || lines[0].ServedModel != "gpt-4o-2024-08-06" || lines[0].Model != "gpt-4o" {
					t.Errorf("served %q, ledger %+v", resp.Model, lines[0])
				}
			},
		},
		{
			name: "a fixed model served by another: retried once, then refused", opts: fakeopenai.Options{}, reply: fakeopenai.Reply{Content: "x", Model: "gpt-4o-mini-2024-07-18"},
			req:     func(r *Request) { r.Model, r.FixedModel = "gpt-4o", true },
			wantErr: ErrPermanent, wantInErr: `served by the model "gpt-4o-mini-2024-07-18", not by "gpt-4o"`, wantCalls: 2, wantOutcomes: []string{OutcomeFailed, OutcomeFailed},
		},
		{
			name: "another model is no matter for a call not fixed to one", opts: fakeopenai.Options{}, reply: fakeopenai.Reply{Content: "x", Model: "gpt-4o-mini-2024-07-18"},
			req:         func(r *Request) { r.Model = "gpt-4o" },
			wantContent: "x", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "an unreadable 200, then a readable one", opts: fakeopenai.Options{Fail: fakeopenai.FailFirst(1, fakeopenai.Failure{Status: 200, Body: "<html>upstream busy</html>"})}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeFailed, OutcomeAnswered},
		},
		{
			name: "an unreadable 200 twice: retried once only, saying what came", opts: fakeopenai.Options{Fail: fakeopenai.FailFirst(9, fakeopenai.Failure{Status: 200, Body: "<html>upstream busy " + testKey + "</html>"})},
			wantErr: ErrSetup, wantInErr: `(HTTP 200, application/json, 51 bytes) could not be read: not a JSON chat completion: invalid character '<' looking for beginning of value; it began "<html>upstream busy [API key]</html>"`,
			wantCalls: 2, wantOutcomes: []string{OutcomeFailed, OutcomeFailed},
		},
		{
			name: "Azure 429: retry-after-ms is waited, not the rounded retry-after", opts: fakeopenai.Options{Variant: fakeopenai.AzureRetryAfterMS, VariantCalls: 1}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeAnswered}, wantWait: 1500 * time.Millisecond,
		},
		{
			name: "OpenAI 429 without Retry-After: the longer x-ratelimit-reset is waited", opts: fakeopenai.Options{Variant: fakeopenai.OpenAIRateLimitReset, VariantCalls: 1}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeAnswered}, wantWait: time.Second,
		},
		{
			name: "Groq 498, flex capacity: transient, retried", opts: fakeopenai.Options{Variant: fakeopenai.GroqFlexCapacity, VariantCalls: 2}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 3, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "Groq 498 on every attempt says so", opts: fakeopenai.Options{Variant: fakeopenai.GroqFlexCapacity}, attempts: 2,
			wantErr: ErrExhausted, wantInErr: "the flex tier is at capacity (HTTP 498)", wantCalls: 2,
		},
		{
			name: "Gemini 429: RetryInfo.retryDelay in the array body is waited", opts: fakeopenai.Options{Variant: fakeopenai.GeminiRetryInfo, VariantCalls: 1}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeAnswered}, wantWait: 3 * time.Second,
		},
		{
			name: "Gemini's per-day quota stops the run, saying when it resets", opts: fakeopenai.Options{Variant: fakeopenai.GeminiDailyQuota},
			wantErr: ErrAccount, wantInErr: "a per-day limit (GenerateRequestsPerDayPerProjectPerModel-FreeTier) is reached: it resets at midnight Pacific time", wantCalls: 1,
		},
		{
			name: "OpenRouter 404 no endpoints: a setup error, the run stops", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterNoEndpoints},
			wantErr: ErrSetup, wantInErr: "no provider serves the model as asked (HTTP 404); check the model id, the provider the judge contract pins", wantCalls: 1,
		},
		{
			name: "an unknown field: a setup error", opts: fakeopenai.Options{Variant: fakeopenai.OpenAIUnknownField},
			cfg: func(c *Config) { c.OpenRouter = true }, req: func(r *Request) { r.Provider = "openai" },
			wantErr: ErrSetup, wantInErr: "does not take a field of the request (HTTP 400); leave the field it names out", wantCalls: 1,
		},
		{
			name: "the provider pin is not sent away from OpenRouter", opts: fakeopenai.Options{Variant: fakeopenai.OpenAIUnknownField}, reply: reply,
			req:         func(r *Request) { r.Provider = "openai" },
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
		},
		{
			name: "Mistral model_length: read as length, an answer cut short, the native reason in the ledger", opts: fakeopenai.Options{Variant: fakeopenai.MistralModelLength}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "length", wantCalls: 1, wantOutcomes: []string{OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if resp.Unanswered() != "length" {
					t.Errorf("unanswered %q, want length", resp.Unanswered())
				}
				if l := lines[0]; l.FinishReason != "length" || l.NativeFinishReason != "model_length" {
					t.Errorf("ledger finish %q native %q", l.FinishReason, l.NativeFinishReason)
				}
			},
		},
		{
			name: "TGI 422: a string error is the message, not retried", opts: fakeopenai.Options{Variant: fakeopenai.TGIValidation},
			wantErr: ErrPermanent, wantInErr: "HTTP 422 Unprocessable Entity: Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096", wantCalls: 1,
		},
		{
			name: "older vLLM's top-level error naming a field it does not take: a setup error", opts: fakeopenai.Options{Variant: fakeopenai.VLLMTopLevelError},
			cfg: func(c *Config) { c.OpenRouter = true }, req: func(r *Request) { r.Provider = "openai" },
			wantErr: ErrSetup, wantInErr: "does not take a field of the request (HTTP 400); leave the field it names out (the judge contract's or the flags' setting that sends it): [{'type': 'extra_forbidden', 'loc': ('body', 'provider')", wantCalls: 1,
		},
		{
			name: "Cerebras 429 without Retry-After: the spent per-minute limit's reset, in seconds, is waited", opts: fakeopenai.Options{Variant: fakeopenai.CerebrasTokensMinute, VariantCalls: 1}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeAnswered}, wantWait: 11382 * time.Millisecond,
		},
		{
			name: "Cerebras per-day request limit spent: the run stops, saying when it resets", opts: fakeopenai.Options{Variant: fakeopenai.CerebrasRequestsDay},
			wantErr: ErrAccount, wantInErr: "a per-day limit is reached: the endpoint asks to wait 9h10m11s (x-ratelimit-reset-requests-day)", wantCalls: 1,
		},
		{
			name: "OpenRouter's free models per day: the reset in the error's metadata, 12 hours ahead, stops the run", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterFreeDaily},
			wantErr: ErrAccount, wantInErr: "free-models-per-day. Add 10 credits to unlock 1000 free model requests per day; a per-day limit is reached: the endpoint asks to wait 1", wantCalls: 1,
		},
		{
			name: "OpenRouter's free models per minute: the reset in the error's metadata is waited", opts: fakeopenai.Options{Variant: fakeopenai.OpenRouterFreeMinute, VariantCalls: 1}, reply: reply,
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeAnswered}, wantWait: 20 * time.Second,
		},
		{
			name: "a gateway's HTML 502: retried, the page's title in the message, not its markup", opts: fakeopenai.Options{Variant: fakeopenai.GatewayHTML}, attempts: 2,
			wantErr: ErrExhausted, wantInErr: `HTTP 502 Bad Gateway: an HTML page from a gateway or proxy in front of the endpoint, titled "api.example.com | 502: Bad gateway" (attempt 2; the endpoint's request id: req_fake000002)`, wantCalls: 2,
		},
		{
			name: "a 200 without choices: paid for, retried once only", opts: fakeopenai.Options{Fail: fakeopenai.FailFirst(9, fakeopenai.Failure{Status: 200,
				Body: `{"id":"x","object":"chat.completion","model":"test/model-1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":0}}`})},
			wantErr: ErrPermanent, wantInErr: "answered without any choices (attempt 2, the second such answer; not retried again; the endpoint's request id: req_fake000002)",
			wantCalls: 2, wantOutcomes: []string{OutcomeFailed, OutcomeFailed},
			check: func(t *testing.T, _ Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if lines[0].RequestID != "req_fake000001" || lines[1].RequestID != "req_fake000002" {
					t.Errorf("ledger request ids %q %q", lines[0].RequestID, lines[1].RequestID)
				}
			},
		},
		{
			name: "a timed-out attempt is written: it may have been billed",
			opts: fakeopenai.Options{Fail: fakeopenai.FailFirst(1, fakeopenai.Failure{Hang: true})}, reply: reply,
			cfg:         func(c *Config) { c.Timeout = 150 * time.Millisecond },
			wantContent: "ANSWER: C", wantFinish: "stop", wantCalls: 2, wantOutcomes: []string{OutcomeTimeout, OutcomeAnswered},
			check: func(t *testing.T, resp Response, lines []LedgerEntry, _ []fakeopenai.Request) {
				if l := lines[0]; l.PromptTokens != nil || l.CostUSD != nil || l.Attempt != 1 || l.LatencyMS < 150 {
					t.Errorf("timeout line %+v, want attempt 1, unknown tokens and cost", l)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Key = testKey
			if opts.Reply == nil {
				opts.Reply = func(fakeopenai.Request) fakeopenai.Reply { return tt.reply }
			}
			srv := fakeopenai.New(t, opts)
			ledger := &syncbuf.Buffer{}
			c, w := newClient(t, srv, func(cfg *Config) {
				cfg.Ledger, cfg.MaxAttempts = ledger, tt.attempts
				if tt.cfg != nil {
					tt.cfg(cfg)
				}
			})
			req := question()
			if tt.req != nil {
				tt.req(&req)
			}
			resp, err := c.Complete(context.Background(), req)
			if calls, _ := srv.Stats(); calls != tt.wantCalls {
				t.Errorf("%d calls, want %d", calls, tt.wantCalls)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantInErr) {
					t.Errorf("error %v, want %v with %q", err, tt.wantErr, tt.wantInErr)
				}
				for _, other := range []error{ErrPermanent, ErrExhausted, ErrAccount, ErrSetup} {
					if other != tt.wantErr && errors.Is(err, other) {
						t.Errorf("error %v is also %v", err, other)
					}
				}
			} else if err != nil {
				t.Fatalf("error %v", err)
			}
			if resp.Content != tt.wantContent || resp.Reasoning != tt.wantReasoning || resp.FinishReason != tt.wantFinish {
				t.Errorf("content %q reasoning %q finish %q, want %q %q %q", resp.Content, resp.Reasoning, resp.FinishReason, tt.wantContent, tt.wantReasoning, tt.wantFinish)
			}
			lines := ledgerLines(t, ledger.String())
			var outcomes []string
			for _, l := range lines {
				outcomes = append(outcomes, l.Outcome)
			}
			if strings.Join(outcomes, " ") != strings.Join(tt.wantOutcomes, " ") {
				t.Errorf("ledger outcomes %q, want %q:\n%s", outcomes, tt.wantOutcomes, ledger.String())
			}
			if ws := w.all(); tt.wantWait > 0 && (len(ws) == 0 || ws[0] < tt.wantWait) {
				t.Errorf("waits %v, want the first at least %v", ws, tt.wantWait)
			}
			if tt.check != nil {
				tt.check(t, resp, lines, srv.Requests())
			}
		})
	}
}

func ledgerLines(t *testing.T, s string) []LedgerEntry {
	t.Helper()
	var out []LedgerEntry
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if line == "" {
			continue
		}
		var e LedgerEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("ledger line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// TestTokenFieldLearnt checks that once a model's deployment rejected
// max_tokens, later calls send max_completion_tokens at once.
func TestTokenFieldLearnt(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Variant: fakeopenai.OSeriesMaxTokens})
	c, _ := newClient(t, srv, nil)
	req := question()
	req.Model, req.MaxTokens = "reasoning-judge", 100
	for range 3 {
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if calls, status := srv.Stats(); calls != 4 || status[400] != 1 {
		t.Errorf("%d calls (%v), want 4 with one 400", calls, status)
	}
}

// TestAzureDeployments maps a judge id, which holds a slash, to its Azure
// deployment instead of making it a path.
func TestAzureDeployments(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey})
	azure := func(cfg *Config) {
		cfg.BaseURL = strings.TrimSuffix(srv.URL, "/v1")
		cfg.AzureAPIVersion = "2025-04-01-preview"
		cfg.Deployments = map[string]string{"openai/gpt-5.5": "gpt55-judge"}
	}
	c, _ := newClient(t, srv, azure)
	req := question()
	req.Model = "openai/gpt-5.5"
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; r.Path != "/openai/deployments/gpt55-judge/chat/completions" || r.Query != "api-version=2025-04-01-preview" {
		t.Errorf("request went to %s?%s", r.Path, r.Query)
	}
	req.Model = "openai/gpt-4.1"
	_, err := c.Complete(context.Background(), req)
	if !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), "--deployment openai/gpt-4.1=NAME") {
		t.Errorf("unmapped id with a slash: %v", err)
	}
	if calls, _ := srv.Stats(); calls != 1 {
		t.Errorf("%d calls, want the unmapped one not sent", calls)
	}
	if _, err := New(Config{BaseURL: srv.URL, Deployments: map[string]string{"m": "d"}}); err == nil {
		t.Error("deployments without Azure accepted")
	}
}

// TestReasoningParam sends the reasoning effort in OpenRouter's form at
// openrouter.ai, and as set.
func TestReasoningParam(t *testing.T) {
	for _, tt := range []struct {
		param, want string
	}{
		{ReasoningParamObject, `"reasoning":{"effort":"medium"}`},
		{ReasoningParamEffort, `"reasoning_effort":"medium"`},
	} {
		srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey})
		c, _ := newClient(t, srv, func(cfg *Config) { cfg.ReasoningParam = tt.param })
		req := question()
		req.ReasoningEffort = "medium"
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if raw := string(srv.Requests()[0].Raw); !strings.Contains(raw, tt.want) {
			t.Errorf("%s: body %s lacks %s", tt.param, raw, tt.want)
		}
	}
	c, err := New(Config{BaseURL: "https://openrouter.ai/api/v1"})
	if err != nil || c.reasonParam != ReasoningParamObject {
		t.Errorf("openrouter.ai: %v %q", err, c.reasonParam)
	}
	if c, _ := New(Config{}); c.reasonParam != ReasoningParamEffort {
		t.Errorf("OpenAI: %q", c.reasonParam)
	}
}

func TestParseDeployments(t *testing.T) {
	m, err := ParseDeployments(" openai/gpt-5.5=gpt55 , o3=o3-prod,")
	if err != nil || len(m) != 2 || m["openai/gpt-5.5"] != "gpt55" || m["o3"] != "o3-prod" {
		t.Errorf("%v %v", m, err)
	}
	for _, bad := range []string{"gpt55", "=d", "m=", "m=a,m=b"} {
		if _, err := ParseDeployments(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSameModel holds the rule for a served model on the shapes providers
// answer with.
func TestSameModel(t *testing.T) {
	for _, tt := range []struct {
		asked, served string
		want          bool
	}{
		{"gpt-4o", "gpt-4o", true},
		{"gpt-4o", "", true},                                      // not said: taken as given
		{"gpt-4o", "gpt-4o-2024-08-06", true},                     // OpenAI: an alias served as its snapshot
		{"o3", "o3-2025-04-16", true},                             // likewise
		{"gpt-4-turbo", "gpt-4-turbo-2024-04-09", true},           // likewise
		{"gpt-4", "gpt-4-0613", true},                             // an older, four-digit stamp
		{"claude-3-5-sonnet", "claude-3-5-sonnet-20241022", true}, // an eight-digit one
		{"mistral-large-latest", "mistral-large-2411", true},      // an alias ending in -latest
		{"gemini-1.5-pro", "gemini-1.5-pro-002", true},            // a three-digit one
		{"openai/gpt-4o", "openai/gpt-4o", true},                  // OpenRouter answers with the slug
		{"openai/gpt-4o", "gpt-4o-2024-08-06", true},              // or the upstream's name
		{"openai/gpt-4o:nitro", "openai/gpt-4o", true},            // a variant suffix
		{"openai/gpt-5.5", "gpt-5.5-2026-03-05", true},            // Azure: the model id of a mapped deployment
		{"GPT-4o", "gpt-4o-2024-08-06", true},                     // letter case
		{"qwen3:8b", "qwen3:8b", true},                            // Ollama's tags are the name
		{"gpt-4o", "gpt-4o-mini-2024-07-18", false},               // another model
		{"gpt-4o-2024-05-13", "gpt-4o-2024-08-06", false},         // a snapshot asked for is kept
		{"gpt-4o", "gpt-4o-20", false},                            // not a stamp
		{"gpt-4o", "gpt-4o-audio-preview-2024-12-17", false},      // more than a stamp
		{"openai/gpt-4o", "anthropic/gpt-4o", false},              // another vendor
		{"qwen3:8b", "qwen3:32b", false},                          // another size
		{"mistral-large-latest", "mistral-small-2503", false},
		{"deepseek-chat", "deepseek-reasoner", false},
	} {
		if got := SameModel(tt.asked, tt.served); got != tt.want {
			t.Errorf("SameModel(%q, %q) = %v, want %v", tt.asked, tt.served, got, tt.want)
		}
	}
}

// FuzzSameModel: a served name the same as the one asked is always the
// same model, and no input panics.
func FuzzSameModel(f *testing.F) {
	f.Add("gpt-4o", "gpt-4o-2024-08-06")
	f.Add("openai/gpt-4o:free", "gpt-4o")
	f.Add("mistral-large-latest", "mistral-large-2411")
	f.Fuzz(func(t *testing.T, asked, served string) {
		if !SameModel(asked, asked) {
			t.Errorf("%q is not the same model as itself", asked)
		}
		_ = SameModel(asked, served)
	})
}
