package judge

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/benchgate/benchgate/llm"
)

// Prices are a model's cost in USD per million prompt, cached prompt and
// completion tokens: llm's, whose Cost is the one sum of them.
type Prices = llm.Prices

// The chat format's tokens around the messages: a few per message (role
// and separators) and a few that prime the reply. Real templates use 3 to
// 5 and 3; these are rounded up.
const (
	messageOverheadTokens = 8
	replyOverheadTokens   = 8
)

// PromptTokenBound returns an upper bound on the prompt tokens of msgs,
// from their bytes: a tokenizer that works on bytes (GPT's, Llama 3's,
// Qwen's) or falls back to them (SentencePiece) never makes a token of
// less than one byte, so a text of n bytes is at most n tokens; the chat
// format adds a few tokens per message and for the reply.
func PromptTokenBound(msgs []llm.Message) int {
	n := replyOverheadTokens
	for _, m := range msgs {
		n += len(m.Role) + len(m.Content) + messageOverheadTokens
	}
	return n
}

// WorstCost returns the most one call of req can cost at prices p: the
// prompt at PromptTokenBound, none of it or all of it cached, whichever
// costs more, and a completion of req.MaxTokens. ok is false when req
// sets no MaxTokens: nothing then bounds the completion.
func WorstCost(req llm.Request, p Prices) (usd float64, ok bool) {
	if req.MaxTokens <= 0 {
		return 0, false
	}
	prompt := PromptTokenBound(req.Messages)
	return max(p.Cost(prompt, 0, req.MaxTokens), p.Cost(prompt, prompt, req.MaxTokens)), true
}

// ErrBudget is wrapped by the error of a call that a Budget refused to
// make; the call was not sent.
var ErrBudget = errors.New("the budget cannot pay for another call")

// Budget bounds the calls made through Limit: at most MaxCalls of them,
// and, with Prices, never more than MaxUSD spent. Each call's worst case
// (WorstCost) is reserved before the call is sent, and the reservation is
// replaced by the call's cost once it returns (the cost the endpoint
// reports, or else its tokens at Prices), so no call can take the spend
// past MaxUSD. Without Prices the worst case is unknown: a call is then
// refused only once MaxUSD is spent, and the call before may go past it.
// A call that fails without a reply costs nothing (endpoints bill the
// tokens of replies). It is safe for concurrent use.
type Budget struct {
	MaxCalls int     // 0 means no limit on the number of calls
	MaxUSD   float64 // 0 means no limit on the spend
	Prices   *Prices // the model's prices, which bound a call's cost

	mu       sync.Mutex
	calls    int     // sent, or reserved to be sent
	spent    float64 // by the calls that returned
	reserved float64 // the worst cases of the calls under way
}

// Calls returns how many attempts were sent through the budget.
func (b *Budget) Calls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls
}

// Spent returns what the calls that returned cost, as far as it is known.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Limit returns a Completer that sends each call to next only once b has
// reserved it, and otherwise returns an error wrapping ErrBudget without
// sending it.
func (b *Budget) Limit(next llm.Completer) llm.Completer { return limited{b, next} }

type limited struct {
	b    *Budget
	next llm.Completer
}

func (l limited) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	worst, err := l.b.reserve(req)
	if err != nil {
		return llm.Response{}, err
	}
	resp, err := l.next.Complete(ctx, req)
	l.b.settle(worst, resp, llm.Attempts(resp, err))
	return resp, err
}

// reserve counts a call and its worst case, or refuses it.
func (b *Budget) reserve(req llm.Request) (float64, error) {
	var worst float64
	if b.MaxUSD > 0 && b.Prices != nil {
		w, ok := WorstCost(req, *b.Prices)
		if !ok {
			return 0, fmt.Errorf("%w: the call sets no max tokens, so nothing bounds its cost; give the judge a completion limit", ErrBudget)
		}
		worst = w
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.MaxCalls > 0 && b.calls >= b.MaxCalls:
		return 0, fmt.Errorf("%w: all %d calls allowed are made", ErrBudget, b.MaxCalls)
	case b.MaxUSD > 0 && b.Prices != nil && b.spent+b.reserved+worst > b.MaxUSD:
		return 0, fmt.Errorf("%w: its worst case is $%.4f (%d prompt tokens at most and %d of completion), and $%.4f of the $%.4f is spent or reserved", ErrBudget, worst, PromptTokenBound(req.Messages), req.MaxTokens, b.spent+b.reserved, b.MaxUSD)
	case b.MaxUSD > 0 && b.Prices == nil && b.spent >= b.MaxUSD:
		return 0, fmt.Errorf("%w: $%.4f of the $%.4f is spent", ErrBudget, b.spent, b.MaxUSD)
	}
	b.calls++
	b.reserved += worst
	return worst, nil
}

// settle replaces a call's reservation by its cost, and counts the
// attempts beyond the first one that reserve counted: each retry is a
// call the endpoint saw, and may have billed.
func (b *Budget) settle(worst float64, resp llm.Response, attempts int) {
	cost := 0.0
	switch {
	case resp.CostUSD != nil:
		cost = *resp.CostUSD
	case b.Prices != nil:
		cost = b.Prices.Cost(resp.PromptTokens, resp.CachedTokens, resp.CompletionTokens)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved -= worst
	b.spent += cost
	if attempts > 1 {
		b.calls += attempts - 1
	}
}
