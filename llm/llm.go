// Package llm is benchgate's one door to language models: chat completions
// from any OpenAI-compatible endpoint (OpenRouter, OpenAI, Azure OpenAI,
// vLLM, Ollama, Mistral, DeepSeek, Groq, Gemini). Callers depend on the
// small Completer interface; Client implements it with retries, rate
// limiting and a cost ledger. The files split by concern: wire.go and
// stream.go are the wire format, retry.go and wait.go classification and
// waiting, attempt.go one attempt, client.go the client and its retries.
package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Message is one chat message.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// Request is one chat completion to make.
type Request struct {
	Model       string
	Messages    []Message
	Temperature *float64 // sent only when set: GPT-5-class reasoning models reject any, 0 included
	TopP        float64  // 0 means the endpoint's default (1)
	MaxTokens   int      // 0 means the endpoint's default
	Seed        *int     // sent where the endpoint takes one
	JSON        bool     // ask for a JSON object (response_format json_object)

	// ReasoningEffort, when set ("low", "medium", "high", ...), asks a
	// reasoning model for that much thinking; Config.ReasoningParam says
	// how it is sent.
	ReasoningEffort string
	// ServiceTier, when set, is sent as service_tier (OpenAI's "flex",
	// "priority", ...).
	ServiceTier string
	// Provider, when set, pins OpenRouter's routing to that provider,
	// without fallbacks, so that a fixed judge is not served by another
	// host's build of the model. It is sent to OpenRouter only (see
	// Config.OpenRouter): other endpoints serve one build and refuse the
	// field.
	Provider string
	// FixedModel says that the answer must come from Model itself, as a
	// fixed judge's must: an answer whose served model is not the same
	// model (see SameModel) is a failed attempt, tried once more and then
	// a permanent failure that names the model that served it.
	FixedModel bool

	// For the cost ledger: what the call is for.
	Kind       CallKind
	QuestionID string
}

// CallKind says what a call is for, in the cost ledger.
type CallKind string

// The kinds of call.
const (
	CallCandidate CallKind = "candidate" // the model under evaluation
	CallJudge     CallKind = "judge"     // the benchmark's fixed judge
)

// Response is a completed call.
type Response struct {
	Content   string
	Reasoning string // the reasoning text beside the answer (reasoning, reasoning_content or thinking parts), if any
	// Refusal is the model's refusal, as OpenAI reports it beside an
	// empty content: the call succeeded and was billed, but the model
	// declined, and its content is no answer.
	Refusal string
	// Model is the model that served the call, as the answer names it
	// (often a dated id such as gpt-4o-2024-08-06); "" when it did not.
	Model        string
	FinishReason string // in OpenAI's words: "stop", "length", ...; Mistral's "model_length" is "length"
	// NativeFinishReason is the finish reason as the endpoint sent it,
	// when FinishReason translates it; "" otherwise.
	NativeFinishReason string
	PromptTokens       int
	CompletionTokens   int
	CostUSD            *float64 // when the endpoint reports it, or prices were given
	Latency            time.Duration
	Attempts           int // 1 when the first try succeeded

	// The token breakdown, as OpenAI and OpenRouter report it in
	// usage.prompt_tokens_details and usage.completion_tokens_details.
	CachedTokens    int
	ReasoningTokens int
	// UsageKnown reports that the answer carried usage; without it the
	// token counts are unknown rather than 0, and no cost is computed.
	UsageKnown bool
	// Provider is who served the call, as OpenRouter reports it.
	Provider string
}

// Unanswered says why a successful call holds no complete answer to
// grade, or returns "" when it holds one: the model refused ("refusal"),
// a content filter cut the completion ("content_filter"), or the token
// limit did ("length"). The finish reasons are OpenAI's
// (https://platform.openai.com/docs/api-reference/chat/object).
func (r Response) Unanswered() string {
	switch {
	case r.Refusal != "":
		return "refusal"
	case r.FinishReason == "content_filter", r.FinishReason == "length":
		return r.FinishReason
	}
	return ""
}

// Completer makes chat completions. Client is the real one; tests use
// their own.
type Completer interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// ParseDeployments reads Azure deployment mappings written
// MODEL=DEPLOYMENT, several separated by commas, such as
// "openai/gpt-5.5=gpt55-judge", into a map for Config.Deployments.
func ParseDeployments(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		model, dep, ok := strings.Cut(item, "=")
		model, dep = strings.TrimSpace(model), strings.TrimSpace(dep)
		if !ok || model == "" || dep == "" {
			return nil, fmt.Errorf("deployment %q is not written MODEL=DEPLOYMENT, such as openai/gpt-5.5=gpt55-judge", item)
		}
		if prev, dup := out[model]; dup && prev != dep {
			return nil, fmt.Errorf("model %q is mapped to two deployments, %q and %q", model, prev, dep)
		}
		out[model] = dep
	}
	return out, nil
}

// Attempts returns how many attempts a call made, from its response or,
// when it failed, from the *Error in err: a call that failed after three
// attempts made three, all of which count against a cap on calls.
func Attempts(resp Response, err error) int {
	var e *Error
	if err != nil && errors.As(err, &e) {
		return e.Attempts
	}
	if err == nil && resp.Attempts == 0 {
		return 1 // a Completer that does not count its attempts made one
	}
	return resp.Attempts
}
