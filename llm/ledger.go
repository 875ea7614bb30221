package llm

import (
	"encoding/json"
	"io"
	"sync"
)

// LedgerEntry is one line of the cost ledger: one attempt of a call that
// may have been billed. That is every attempt that got an answer,
// including an answer that reported an error, and every attempt that
// timed out after it was sent, for which the provider may have done the
// work and billed it. A call that needed three attempts can so have three
// lines. What the answer did not say is null, never 0.
type LedgerEntry struct {
	Time         string   `json:"time"` // RFC 3339, UTC, when the attempt ended
	RunID        string   `json:"run_id"`
	Kind         CallKind `json:"kind"` // from Request.Kind
	QuestionID   string   `json:"question_id"`
	Model        string   `json:"model"`
	Attempt      int      `json:"attempt"`                 // 1 for a call's first try
	Outcome      string   `json:"outcome"`                 // OutcomeAnswered, OutcomeFailed or OutcomeTimeout
	FinishReason string   `json:"finish_reason,omitempty"` // in OpenAI's words
	// NativeFinishReason is the finish reason as the endpoint sent it,
	// when benchgate reads it as one of OpenAI's, such as Mistral's
	// "model_length", read as "length".
	NativeFinishReason string `json:"native_finish_reason,omitempty"`
	Provider           string `json:"provider,omitempty"`     // who served it, as OpenRouter reports
	ServedModel        string `json:"served_model,omitempty"` // the model that served it, as the answer names it
	Refusal            string `json:"refusal,omitempty"`      // the model's refusal, when it declined
	// Token counts: null when the answer carried no usage, or none came.
	PromptTokens     *int `json:"prompt_tokens"`
	CompletionTokens *int `json:"completion_tokens"`
	CachedTokens     *int `json:"cached_tokens"`    // of the prompt, read from a provider's cache
	ReasoningTokens  *int `json:"reasoning_tokens"` // of the completion, spent reasoning
	// CostUSD is as the endpoint reports it, or from the prices and a
	// known usage; null when unknown.
	CostUSD   *float64 `json:"cost_usd"`
	LatencyMS int64    `json:"latency_ms"`
	Note      string   `json:"note,omitempty"` // what the client changed, such as a switched token field
	// RequestID is the endpoint's id of the request, from a header such
	// as x-request-id, which its support asks for about a charge or a
	// failure.
	RequestID string `json:"request_id,omitempty"`
}

// The outcomes of a ledger line.
const (
	OutcomeAnswered = "answered" // the call succeeded with this attempt
	OutcomeFailed   = "failed"   // an answer that reported an error: retried, or the call failed
	OutcomeTimeout  = "timeout"  // sent, and no complete answer in time
)

// ledger writes entries as JSON lines. Each line goes out in one Write
// under a lock, so lines from concurrent calls never interleave.
type ledger struct {
	mu  sync.Mutex
	w   io.Writer
	err error // the first write error
}

func (l *ledger) write(e LedgerEntry) {
	if l == nil {
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		// The entry holds only strings and numbers; cost is finite.
		panic("llm: encoding a ledger entry: " + err.Error())
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(line); err != nil && l.err == nil {
		l.err = err
	}
}

func (l *ledger) failure() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
