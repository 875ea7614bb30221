package llm

import (
	"encoding/json"
	"io"
	"sync"
)

// LedgerEntry is one line of the cost ledger: a call that was answered,
// and so billed. A call that needed retries is written once, when it
// succeeds, with the number of attempts it took.
type LedgerEntry struct {
	Time             string   `json:"time"` // RFC 3339, UTC, when the answer came
	RunID            string   `json:"run_id"`
	Kind             CallKind `json:"kind"` // from Request.Kind
	QuestionID       string   `json:"question_id"`
	Model            string   `json:"model"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"` // absent when unknown
	LatencyMS        int64    `json:"latency_ms"`
	Attempts         int      `json:"attempts"`
}

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
