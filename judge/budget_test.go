package judge

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/llm"
)

// biller is a judge endpoint whose every call costs what bill says, the
// count of calls it was sent kept.
type biller struct {
	mu    sync.Mutex
	calls int
	bill  func(req llm.Request) llm.Response
	err   error
}

func (b *biller) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	b.mu.Lock()
	b.calls++
	b.mu.Unlock()
	if b.err != nil {
		return llm.Response{}, b.err
	}
	return b.bill(req), nil
}

func TestBudget(t *testing.T) {
	prices := Prices{Input: 1.25, Output: 10}
	req := llm.Request{Model: "j", MaxTokens: 4096, Messages: []llm.Message{{Role: "system", Content: strings.Repeat("rubric ", 900)}, {Role: "user", Content: strings.Repeat("answer ", 1200)}}}
	worst, ok := WorstCost(req, prices)
	if !ok || worst != prices.Cost(PromptTokenBound(req.Messages), 0, 4096) {
		t.Fatalf("WorstCost = %v, %v", worst, ok)
	}
	// What an endpoint may bill: the worst case itself, reported or
	// counted in tokens, or less.
	reportWorst := func(llm.Request) llm.Response { return llm.Response{CostUSD: new(worst)} }
	tokensWorst := func(r llm.Request) llm.Response {
		return llm.Response{PromptTokens: PromptTokenBound(r.Messages), CompletionTokens: r.MaxTokens}
	}
	quarter := func(llm.Request) llm.Response { return llm.Response{CostUSD: new(worst / 4)} }
	const n = 5
	tests := []struct {
		name      string
		maxCalls  int
		maxUSD    float64
		prices    *Prices
		req       llm.Request
		bill      func(llm.Request) llm.Response
		fail      error
		calls     int  // sent to the endpoint
		overshoot bool // the spend may pass MaxUSD (no prices)
	}{
		{"room for n worst cases and half: n calls", 0, n*worst + worst/2, &prices, req, reportWorst, nil, n, false},
		{"the same billed in tokens", 0, n*worst + worst/2, &prices, req, tokensWorst, nil, n, false},
		{"exactly n worst cases", 0, n * worst, &prices, req, reportWorst, nil, n, false},
		{"cheaper calls: more of them, never past the budget", 0, n * worst, &prices, req, quarter, nil, 4*(n-1) + 1, false},
		{"a call count", n, 0, nil, req, reportWorst, nil, n, false},
		{"calls and dollars: the first limit reached", 3, n * worst, &prices, req, reportWorst, nil, 3, false},
		{"no completion limit: no call", 0, 1, &prices, llm.Request{Model: "j", Messages: req.Messages}, reportWorst, nil, 0, false},
		{"failed calls cost nothing", n, worst, &prices, req, reportWorst, errors.New("HTTP 503"), n, false},
		{"no prices: checked before each call only", 0, 2.5 * worst, nil, req, reportWorst, nil, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &Budget{MaxCalls: tt.maxCalls, MaxUSD: tt.maxUSD, Prices: tt.prices}
			end := &biller{bill: tt.bill, err: tt.fail}
			c := b.Limit(end)
			var refused error
			for i := 0; i < 100 && refused == nil; i++ {
				if _, err := c.Complete(context.Background(), tt.req); errors.Is(err, ErrBudget) {
					refused = err
				}
			}
			if refused == nil {
				t.Fatal("the budget never refused a call")
			}
			if end.calls != tt.calls || b.Calls() != tt.calls {
				t.Errorf("%d calls sent (budget counts %d), want %d; refused: %v", end.calls, b.Calls(), tt.calls, refused)
			}
			if !tt.overshoot && b.MaxUSD > 0 && b.Spent() > b.MaxUSD {
				t.Errorf("spent $%.6f of a $%.6f budget", b.Spent(), b.MaxUSD)
			}
			if tt.overshoot && b.Spent() <= b.MaxUSD {
				t.Errorf("spent $%.6f: the case shows no overshoot", b.Spent())
			}
		})
	}
}

// Concurrent calls reserve their worst cases together: forty at once on
// a budget of ten worst cases send ten, and the spend stays within it.
func TestBudgetConcurrent(t *testing.T) {
	prices := Prices{Input: 1, Output: 4}
	req := llm.Request{Model: "j", MaxTokens: 1000, Messages: []llm.Message{{Role: "user", Content: strings.Repeat("x", 5000)}}}
	worst, _ := WorstCost(req, prices)
	start := make(chan struct{})
	end := &biller{bill: func(llm.Request) llm.Response {
		<-start // every reservation is made before any call returns
		return llm.Response{CostUSD: new(worst)}
	}}
	b := &Budget{MaxUSD: 10 * worst, Prices: &prices}
	c := b.Limit(end)
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Complete(context.Background(), req); errors.Is(err, ErrBudget) {
				mu.Lock()
				refused++
				mu.Unlock()
			}
		}()
	}
	for {
		mu.Lock()
		r := refused
		mu.Unlock()
		if r == 30 {
			break
		}
		runtime.Gosched()
	}
	close(start)
	wg.Wait()
	if end.calls != 10 || b.Spent() > b.MaxUSD {
		t.Errorf("%d calls, $%.4f of $%.4f", end.calls, b.Spent(), b.MaxUSD)
	}
}

func TestPromptTokenBound(t *testing.T) {
	msgs := []llm.Message{{Role: "system", Content: "Grade."}, {Role: "user", Content: "Réponse: 10 €"}}
	bytes := 0
	for _, m := range msgs {
		bytes += len(m.Content)
	}
	if got := PromptTokenBound(msgs); got < bytes || got != bytes+len("system")+len("user")+2*messageOverheadTokens+replyOverheadTokens {
		t.Errorf("PromptTokenBound = %d for %d bytes of content", got, bytes)
	}
}
