package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/llm"
)

// testRubric is a small rubric that uses every element the prompt shows:
// object and plain-string variants, global and per question, fail
// examples, required concepts, indicative terms and do-not-credit items.
func testRubric() *benchmark.Rubric {
	return &benchmark.Rubric{
		Name:          "Seals (test)",
		TotalPoints:   10,
		GateFailScore: 0,
		GlobalVariants: []benchmark.Variant{
			{Canonical: "mercury injection capillary pressure", Variants: []string{"MICP", "Hg-air capillary pressure"}, Note: "a laboratory measurement"},
			{Canonical: "DHI = direct hydrocarbon indicator"}, // a plain-string variant
		},
		Questions: []benchmark.RubricQuestion{{
			ID:          "S1",
			Title:       "Seal capacity",
			Text:        "What controls the height of the hydrocarbon column a shale top seal can hold?",
			ModelAnswer: "The capillary entry pressure of the largest connected pore throats, set against the buoyancy of the column.",
			Principle:   "A seal fails when buoyancy exceeds the capillary entry pressure of its pore throats.",
			Gate: benchmark.Gate{
				ComponentID:   "G1",
				Points:        4,
				PassCondition: "Names capillary entry pressure as the control on column height.",
				FailExamples:  []string{"Says only that shale is impermeable.", "Attributes the seal to permeability alone."},
			},
			Components: []benchmark.Component{
				{ID: "G1", Points: 4, IsGate: true, CreditIf: "capillary entry pressure is named as the control"},
				{ID: "P2", Points: 6, CreditIf: "links pore-throat radius and interfacial tension to the entry pressure"},
			},
			RequiredConcepts: []string{"capillary entry pressure", "buoyancy of the column"},
			IndicativeTerms:  []string{"Washburn-Laplace", "pore-throat radius"},
			DoNotCredit:      []string{"Claiming that low permeability alone makes a seal."},
			AcceptedVariants: []benchmark.Variant{
				{Canonical: "pore throat", Variants: []string{"pore-throat", "throat"}},
				{Canonical: "IFT = interfacial tension"},
			},
		}},
	}
}

// fake is a scripted llm.Completer: reply gets the 1-based number of the
// call and the request.
type fake struct {
	mu    sync.Mutex
	reqs  []llm.Request
	reply func(n int, req llm.Request) (llm.Response, error)
}

func (f *fake) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	n := len(f.reqs)
	f.mu.Unlock()
	return f.reply(n, req)
}

func (f *fake) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// script returns a fake that answers the calls in order with contents,
// served as a dated snapshot of the model asked for, as OpenAI answers.
func script(t *testing.T, contents ...string) *fake {
	return &fake{reply: func(n int, req llm.Request) (llm.Response, error) {
		if n > len(contents) {
			t.Errorf("call %d, but only %d replies were scripted", n, len(contents))
			return llm.Response{}, fmt.Errorf("unexpected call %d", n)
		}
		cost := 0.001
		return llm.Response{Content: contents[n-1], Model: req.Model + "-2026-01-01", FinishReason: "stop", PromptTokens: 100, CompletionTokens: 10, CostUSD: &cost}, nil
	}}
}

var fenceRe = regexp.MustCompile(`<<<ANSWER ((?:[AB] )?[0-9a-f]{32})>>>\n`)

// fenced returns the texts fenced in the first user message (the prompt),
// in order.
func fenced(t *testing.T, req llm.Request) []string {
	t.Helper()
	var user string
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
			break
		}
	}
	var out []string
	for _, m := range fenceRe.FindAllStringSubmatchIndex(user, -1) {
		b := user[m[2]:m[3]]
		rest := user[m[1]:]
		end := strings.Index(rest, "<<<END "+b+">>>\n")
		if end < 0 {
			t.Fatalf("no end marker for boundary %s", b)
		}
		out = append(out, strings.TrimSuffix(rest[:end], "\n"))
	}
	return out
}

// verdictJSON renders a verdict with the given awards (in component
// order), maxima taken from q, and total the sum unless overridden.
func verdictJSON(q *benchmark.RubricQuestion, gate bool, awards ...int) string {
	v := Verdict{GatePassed: gate, GateReason: "because"}
	sum := 0
	for i, c := range q.Components {
		a := 0
		if i < len(awards) {
			a = awards[i]
		}
		sum += a
		v.Components = append(v.Components, ComponentAward{ID: c.ID, Awarded: float64(a), Maximum: float64(c.Points), Reason: "r " + c.ID})
	}
	v.Total = float64(sum)
	b, _ := json.Marshal(v)
	return string(b)
}
