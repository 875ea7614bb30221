// Package llm is benchgate's one door to language models: chat completions
// from any OpenAI-compatible endpoint (OpenRouter, OpenAI, Azure OpenAI,
// vLLM, Ollama). Callers depend on the small Completer interface; Client
// implements it with retries, rate limiting and a cost ledger.
package llm

import (
	"context"
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
	Temperature float64 // 0 by default: benchmarks want the model's most likely answer
	TopP        float64 // 0 means the endpoint's default (1)
	MaxTokens   int     // 0 means the endpoint's default
	Seed        *int    // sent where the endpoint takes one
	JSON        bool    // ask for a JSON object (response_format json_object)

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
	Content          string
	Reasoning        string // the reasoning text beside the answer (reasoning or reasoning_content), if any
	FinishReason     string // as the endpoint reports it: "stop", "length", ...
	PromptTokens     int
	CompletionTokens int
	CostUSD          *float64 // when the endpoint reports it, or prices were given
	Latency          time.Duration
	Attempts         int // 1 when the first try succeeded
}

// Completer makes chat completions. Client is the real one; tests use
// their own.
type Completer interface {
	Complete(ctx context.Context, req Request) (Response, error)
}
