package rerun

import (
	"context"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/extract"
	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/submission"
)

// How a re-asked question's reply ended (Reasked.Finish): only an
// answered reply is the model's answer; the others are what they are,
// never a wrong answer.
const (
	FinishAnswered = "answered" // the reply ended on its own with text
	FinishLength   = "length"   // cut at the token limit
	FinishRefused  = "refused"  // the endpoint's content filter withheld it
	FinishEmpty    = "empty"    // no text
)

// Reasked is one multiple-choice question asked again of the candidate.
type Reasked struct {
	Response llm.Response
	Letter   string // the letter the benchmark's extraction reads, "" for none
	Finish   string // FinishAnswered, FinishLength, FinishRefused or FinishEmpty
}

// Reasker asks a benchmark's questions again of one candidate model, as
// a submission's meta.json says it was asked: the benchmark's generation
// prompt (generate.PromptFor), the recorded sampling (reaskSampling), and
// its extraction policy. The spot-check and `benchgate reproduce` both
// ask through it.
type Reasker struct {
	LLM       llm.Completer
	Model     string // the id the endpoint serves
	prompt    *benchmark.Prompt
	policy    extract.Policy
	temp      *float64
	maxTokens int
	// Sampling says, for a report, which sampling the calls use.
	Sampling string
}

// NewReasker returns the Reasker of benchmark b's multiple-choice
// questions for a submission whose meta.json is meta (nil: none).
func NewReasker(c llm.Completer, model string, b *benchmark.Benchmark, meta *submission.Meta) (*Reasker, error) {
	policy, err := extract.Lookup(b.Entry.Extraction)
	if err != nil {
		return nil, err
	}
	r := &Reasker{LLM: c, Model: model, prompt: generate.PromptFor(b.Entry), policy: policy}
	r.temp, r.maxTokens, r.Sampling = reaskSampling(meta)
	return r, nil
}

// Request is the call that asks item it again.
func (r *Reasker) Request(it *benchmark.Item) llm.Request {
	return llm.Request{Model: r.Model, Messages: generate.MCQMessages(r.prompt, it),
		Temperature: r.temp, MaxTokens: r.maxTokens, Kind: llm.CallCandidate, QuestionID: it.ID}
}

// Ask asks item it again; the error is the failed call's.
func (r *Reasker) Ask(ctx context.Context, it *benchmark.Item) (Reasked, error) {
	resp, err := r.LLM.Complete(ctx, r.Request(it))
	out := Reasked{Response: resp}
	if err != nil {
		return out, err
	}
	switch {
	case resp.FinishReason == "content_filter":
		out.Finish = FinishRefused
	case strings.TrimSpace(resp.Content) == "":
		out.Finish = FinishEmpty
	case resp.FinishReason == "length":
		out.Finish = FinishLength
	default:
		out.Finish = FinishAnswered
	}
	out.Letter = r.policy.Extract(resp.Content).Letter
	return out, nil
}
