package judge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/benchmark"

	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/llm"
)

// realJudge is a Judge over a real llm.Client talking to srv.
func realJudge(t *testing.T, srv *fakeopenai.Server) *Judge {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", MaxAttempts: 3,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	return &Judge{LLM: c, Model: "j"}
}

// TestCalibrateFailures: a fixture whose call fails for good is unscored
// and the others are graded; an account error stops at once.
func TestCalibrateFailures(t *testing.T) {
	r := loadFixtureRubric(t)
	n := 0
	for _, q := range r.Questions {
		n += len(q.Calibration)
	}
	verdicts := fixtureJudge(t, r, nil)
	reply := func(req fakeopenai.Request) fakeopenai.Reply {
		msgs := make([]llm.Message, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = llm.Message{Role: m.Role, Content: m.Content}
		}
		resp, _ := verdicts.reply(0, llm.Request{Messages: msgs, QuestionID: questionOf(r, req)})
		return fakeopenai.Reply{Content: resp.Content}
	}

	t.Run("content filter on one call", func(t *testing.T) {
		srv := fakeopenai.New(t, fakeopenai.Options{Variant: fakeopenai.AzureContentFilterPrompt, VariantCalls: 1, Reply: reply})
		cal, err := realJudge(t, srv).Calibrate(context.Background(), r, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(cal.Fixtures) != n || cal.Unscored != 1 || cal.Scored != n-1 || cal.Fixtures[0].Scored ||
			!strings.Contains(strings.Join(cal.Fixtures[0].Problems, " "), "content filter") {
			t.Errorf("calibration %+v", cal)
		}
		if calls, _ := srv.Stats(); calls != n || cal.Usage.Calls != n {
			t.Errorf("%d calls, usage %d, want %d", calls, cal.Usage.Calls, n)
		}
	})
	t.Run("no credits", func(t *testing.T) {
		srv := fakeopenai.New(t, fakeopenai.Options{Variant: fakeopenai.OpenRouterNoCredits, Reply: reply})
		cal, err := realJudge(t, srv).Calibrate(context.Background(), r, 1, 1)
		if !errors.Is(err, llm.ErrAccount) || len(cal.Fixtures) != 0 {
			t.Errorf("error %v, fixtures %d", err, len(cal.Fixtures))
		}
		if calls, _ := srv.Stats(); calls != 1 || cal.Usage.Calls != 1 {
			t.Errorf("%d calls, usage %d, want 1: an account error is the last call", calls, cal.Usage.Calls)
		}
	})
	t.Run("retried attempts count as calls", func(t *testing.T) {
		srv := fakeopenai.New(t, fakeopenai.Options{Variant: fakeopenai.OpenRouterErrorInChoice, VariantCalls: 2, Reply: reply})
		cal, err := realJudge(t, srv).Calibrate(context.Background(), r, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if calls, _ := srv.Stats(); calls != n+2 || cal.Usage.Calls != n+2 {
			t.Errorf("%d calls, usage %d, want %d", calls, cal.Usage.Calls, n+2)
		}
	})
}

// questionOf finds the question a grading request is about.
func questionOf(r *benchmark.Rubric, req fakeopenai.Request) string {
	for _, m := range req.Messages {
		for _, q := range r.Questions {
			if strings.Contains(m.Content, q.Text) {
				return q.ID
			}
		}
	}
	return ""
}

// TestBudgetCountsAttempts: a call that took three attempts takes three
// of the budget's calls.
func TestBudgetCountsAttempts(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Variant: fakeopenai.OpenRouterErrorInChoice, VariantCalls: 2})
	c := realJudge(t, srv).LLM
	b := &Budget{MaxCalls: 4}
	lim := b.Limit(c)
	req := llm.Request{Model: "j", Messages: []llm.Message{{Role: "user", Content: "q"}}}
	if _, err := lim.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if b.Calls() != 3 {
		t.Errorf("budget counts %d calls, want 3 attempts", b.Calls())
	}
	if _, err := lim.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := lim.Complete(context.Background(), req); !errors.Is(err, ErrBudget) {
		t.Errorf("fifth attempt allowed: %v", err)
	}
}
