package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/internal/syncbuf"
)

const testKey = "sk-test-5f3a9c1e7d2b4a60"

// waits records the backoff waits a client asked for, without sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

func newClient(t *testing.T, srv *fakeopenai.Server, set func(*Config)) (*Client, *waits) {
	t.Helper()
	w := &waits{}
	cfg := Config{BaseURL: srv.URL, APIKey: testKey, Sleep: w.sleep, RunID: "run-1"}
	if set != nil {
		set(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, w
}

func question() Request {
	return Request{
		Model:      "test/model-1",
		Messages:   []Message{{Role: "system", Content: "Answer with one letter."}, {Role: "user", Content: "Which is first? A B C D"}},
		Kind:       "candidate",
		QuestionID: "q-001",
	}
}

func TestCompleteSuccess(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{
		Key:     testKey,
		Latency: 20 * time.Millisecond,
		Reply: func(req fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{Content: "ANSWER: A (" + req.Messages[1].Content + ")", PromptTokens: 31, CompletionTokens: 9}
		},
	})
	c, _ := newClient(t, srv, nil)
	resp, err := c.Complete(context.Background(), question())
	if err != nil {
		t.Fatal(err)
	}
	want := Response{Content: "ANSWER: A (Which is first? A B C D)", Model: "test/model-1", FinishReason: "stop", PromptTokens: 31, CompletionTokens: 9, Attempts: 1, UsageKnown: true}
	got := resp
	got.Latency = 0
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("response\n got %+v\nwant %+v", got, want)
	}
	if resp.Latency < 20*time.Millisecond || resp.Latency > 5*time.Second {
		t.Errorf("latency %v, want about the server's 20ms", resp.Latency)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" || r.Model != "test/model-1" || len(r.Messages) != 2 ||
		r.Messages[0] != (fakeopenai.Message{Role: "system", Content: "Answer with one letter."}) {
		t.Errorf("server saw %+v", r)
	}
}

// TestRequestBody checks the JSON body itself: an omitempty tag drops zero
// numbers, and benchmarks depend on temperature 0 and seeds being sent.
func TestRequestBody(t *testing.T) {
	seed0, seed42 := 0, 42
	tests := []struct {
		name   string
		cfg    func(*Config)
		change func(*Request)
		has    []string // substrings of the raw body
		hasNot []string
		check  func(t *testing.T, r fakeopenai.Request)
	}{
		{
			name:   "nothing optional is sent unless set",
			change: func(*Request) {},
			hasNot: []string{`"temperature"`, `"top_p"`, `"seed"`, `"max_tokens"`, `"max_completion_tokens"`, `"response_format"`,
				`"reasoning"`, `"reasoning_effort"`, `"service_tier"`, `"provider"`},
			check: func(t *testing.T, r fakeopenai.Request) {
				if r.Temperature != nil {
					t.Errorf("temperature %v, want none", *r.Temperature)
				}
			},
		},
		{
			name:   "temperature 0 is sent when set",
			change: func(r *Request) { r.Temperature = new(0.0) },
			has:    []string{`"temperature":0`},
			check: func(t *testing.T, r fakeopenai.Request) {
				if r.Temperature == nil || *r.Temperature != 0 {
					t.Errorf("temperature %v, want 0", r.Temperature)
				}
			},
		},
		{
			name:   "temperature 0.7 keeps its decimal form",
			change: func(r *Request) { r.Temperature = new(0.7) },
			has:    []string{`"temperature":0.7`},
		},
		{
			name:   "top_p when set",
			change: func(r *Request) { r.TopP = 0.95 },
			has:    []string{`"top_p":0.95`},
		},
		{
			name:   "reasoning effort as OpenAI's top-level field away from OpenRouter",
			change: func(r *Request) { r.ReasoningEffort = "medium" },
			has:    []string{`"reasoning_effort":"medium"`},
			hasNot: []string{`"reasoning":`},
		},
		{
			name:   "service tier; no provider routing away from OpenRouter",
			change: func(r *Request) { r.ServiceTier, r.Provider = "flex", "openai" },
			has:    []string{`"service_tier":"flex"`},
			hasNot: []string{`"provider"`},
		},
		{
			name:   "provider routing to OpenRouter",
			cfg:    func(c *Config) { c.OpenRouter = true },
			change: func(r *Request) { r.Provider = "openai" },
			has:    []string{`"provider":{"allow_fallbacks":false,"order":["openai"]}`},
		},
		{
			name:   "seed 0 is sent",
			change: func(r *Request) { r.Seed = &seed0 },
			has:    []string{`"seed":0`},
			check: func(t *testing.T, r fakeopenai.Request) {
				if r.Seed == nil || *r.Seed != 0 {
					t.Errorf("seed %v, want 0", r.Seed)
				}
			},
		},
		{
			name:   "seed 42",
			change: func(r *Request) { r.Seed = &seed42 },
			has:    []string{`"seed":42`},
		},
		{
			name:   "JSON mode",
			change: func(r *Request) { r.JSON = true },
			has:    []string{`"response_format":{"type":"json_object"}`},
			check: func(t *testing.T, r fakeopenai.Request) {
				if r.ResponseFormat != "json_object" {
					t.Errorf("response_format %q", r.ResponseFormat)
				}
			},
		},
		{
			name:   "max_tokens",
			change: func(r *Request) { r.MaxTokens = 512 },
			has:    []string{`"max_tokens":512`},
			hasNot: []string{`"max_completion_tokens"`},
		},
		{
			name:   "max_completion_tokens for a model that takes only it",
			change: func(r *Request) { r.Model, r.MaxTokens = "o3-mini", 512 },
			has:    []string{`"max_completion_tokens":512`, `"model":"o3-mini"`},
			hasNot: []string{`"max_tokens"`},
		},
		{
			name: "everything at once, seed 0 and temperature 0",
			change: func(r *Request) {
				r.Seed, r.JSON, r.MaxTokens, r.TopP, r.Temperature = &seed0, true, 64, 1, new(0.0)
			},
			has: []string{`"temperature":0`, `"seed":0`, `"top_p":1`, `"max_tokens":64`, `"response_format":{"type":"json_object"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey})
			c, _ := newClient(t, srv, tt.cfg)
			req := question()
			tt.change(&req)
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests", len(reqs))
			}
			raw := string(reqs[0].Raw)
			if !json.Valid(reqs[0].Raw) {
				t.Fatalf("body is not valid JSON: %s", raw)
			}
			for _, s := range tt.has {
				if !strings.Contains(raw, s) {
					t.Errorf("body lacks %s: %s", s, raw)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(raw, s) {
					t.Errorf("body has %s: %s", s, raw)
				}
			}
			if tt.check != nil {
				tt.check(t, reqs[0])
			}
		})
	}
}

// TestMaxTokensField checks which field carries MaxTokens: max_tokens,
// except for the models go-openai's reasoning validator holds to
// max_completion_tokens (o1, o3, o4, GPT-5 and its GPT-6 ids).
func TestMaxTokensField(t *testing.T) {
	for model, field := range map[string]string{
		"test/model-1":   "max_tokens",
		"gpt-4o":         "max_tokens",
		"gpt-4.1-mini":   "max_tokens",
		"openai/o3-mini": "max_tokens", // an OpenRouter id: not one go-openai knows
		"o1":             "max_completion_tokens",
		"o1-mini":        "max_completion_tokens",
		"o3-mini":        "max_completion_tokens",
		"o4-mini":        "max_completion_tokens",
		"gpt-5":          "max_completion_tokens",
		"gpt-5-mini":     "max_completion_tokens",
		"gpt-6-sol":      "max_completion_tokens",
		"gpt-6-astra":    "max_completion_tokens",
	} {
		t.Run(model, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey})
			c, _ := newClient(t, srv, nil)
			req := question()
			req.Model, req.MaxTokens = model, 300
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests", len(reqs))
			}
			r := reqs[0]
			other := "max_completion_tokens"
			got, gotOther := r.MaxTokens, r.MaxCompletionTokens
			if field == "max_completion_tokens" {
				other, got, gotOther = "max_tokens", r.MaxCompletionTokens, r.MaxTokens
			}
			if got == nil || *got != 300 || gotOther != nil {
				t.Errorf("want %s 300 and no %s: %s", field, other, r.Raw)
			}
			if !strings.Contains(string(r.Raw), `"`+field+`":300`) {
				t.Errorf("body lacks %q: %s", field, r.Raw)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name        string
		fail        func(call int, req fakeopenai.Request) *fakeopenai.Failure
		maxAttempts int
		timeout     time.Duration

		wantErr      error // nil for success; else ErrPermanent or ErrExhausted
		wantCalls    int
		wantStatus   int           // of the error
		wantInErr    []string      // substrings of the error message
		minFirstWait time.Duration // the first backoff wait at least
		maxFirstWait time.Duration
	}{
		{
			name:         "429 with Retry-After 2 waits at least 2 s",
			fail:         fakeopenai.FailFirst(1, fakeopenai.Failure{Status: 429, RetryAfter: "2"}),
			wantCalls:    2,
			minFirstWait: 2 * time.Second,
			maxFirstWait: 2 * time.Second,
		},
		{
			name: "429 with Retry-After as an HTTP date",
			fail: fakeopenai.FailFirst(1, fakeopenai.Failure{Status: 429,
				RetryAfter: time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)}),
			wantCalls:    2,
			minFirstWait: 3 * time.Second, // the date has whole seconds
			maxFirstWait: 5 * time.Second,
		},
		{
			name:         "Retry-After beyond the cap waits the cap",
			fail:         fakeopenai.FailFirst(1, fakeopenai.Failure{Status: 503, RetryAfter: "600"}),
			wantCalls:    2,
			minFirstWait: 120 * time.Second,
			maxFirstWait: 120 * time.Second,
		},
		{
			name:         "503 then success",
			fail:         fakeopenai.FailFirst(1, fakeopenai.Failure{Status: 503}),
			wantCalls:    2,
			maxFirstWait: 500 * time.Millisecond, // the first backoff window
		},
		{
			name:      "502, 504 and 529 are retried",
			fail:      sequence(fakeopenai.Failure{Status: 502}, fakeopenai.Failure{Status: 504}, fakeopenai.Failure{Status: 529}),
			wantCalls: 4,
		},
		{
			name:      "a closed connection is retried",
			fail:      fakeopenai.FailFirst(2, fakeopenai.Failure{CloseConn: true}),
			wantCalls: 3,
		},
		{
			name:      "a hang past the timeout is retried",
			fail:      fakeopenai.FailFirst(1, fakeopenai.Failure{Hang: true}),
			timeout:   100 * time.Millisecond,
			wantCalls: 2,
		},
		{
			name:      "OpenRouter's error inside a 200 is retried",
			fail:      fakeopenai.FailFirst(1, fakeopenai.Failure{Status: 200, Body: `{"error":{"message":"upstream overloaded","code":502}}`}),
			wantCalls: 2,
		},
		{
			name:        "500 on every attempt",
			fail:        fakeopenai.FailFirst(100, fakeopenai.Failure{Status: 500}),
			maxAttempts: 3,
			wantErr:     ErrExhausted,
			wantCalls:   3,
			wantStatus:  500,
			wantInErr:   []string{"gave up after 3 attempts", "HTTP 500", `model "test/model-1"`},
		},
		{
			name:        "hangs on every attempt",
			fail:        fakeopenai.FailFirst(100, fakeopenai.Failure{Hang: true}),
			maxAttempts: 2,
			timeout:     100 * time.Millisecond,
			wantErr:     ErrExhausted,
			wantCalls:   2,
			wantInErr:   []string{"gave up after 2 attempts", "100ms timeout"},
		},
		{
			name:       "400 fails at once",
			fail:       fakeopenai.FailFirst(100, fakeopenai.Failure{Status: 400, Body: `{"error":{"message":"Invalid value for 'messages'","type":"invalid_request_error"}}`}),
			wantErr:    ErrPermanent,
			wantCalls:  1,
			wantStatus: 400,
			wantInErr:  []string{"rejected the request (HTTP 400): Invalid value for 'messages'", "attempt 1, not retried"},
		},
		{
			name:       "403 fails at once",
			fail:       fakeopenai.FailFirst(100, fakeopenai.Failure{Status: 403}),
			wantErr:    ErrPermanent,
			wantCalls:  1,
			wantStatus: 403,
			wantInErr:  []string{"HTTP 403"},
		},
		{
			name:       "Retry-After of an hour or more stops the run: a per-day limit",
			fail:       fakeopenai.FailFirst(100, fakeopenai.Failure{Status: 429, RetryAfter: "3600"}),
			wantErr:    ErrAccount,
			wantCalls:  1,
			wantStatus: 429,
			wantInErr:  []string{"a per-day limit is reached: the endpoint asks to wait 1h0m0s (Retry-After), until ", "an account error"},
		},
		{
			name:       "404 fails at once: a setup error",
			fail:       fakeopenai.FailFirst(100, fakeopenai.Failure{Status: 404}),
			wantErr:    ErrSetup,
			wantCalls:  1,
			wantStatus: 404,
			wantInErr:  []string{"model was not found (HTTP 404)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Fail: tt.fail})
			c, w := newClient(t, srv, func(cfg *Config) {
				cfg.MaxAttempts = tt.maxAttempts
				cfg.Timeout = tt.timeout
			})
			resp, err := c.Complete(context.Background(), question())
			calls, _ := srv.Stats()
			if calls != tt.wantCalls {
				t.Errorf("server saw %d calls, want %d", calls, tt.wantCalls)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if resp.Attempts != tt.wantCalls || resp.Content != "OK" {
					t.Errorf("attempts %d content %q, want %d and OK", resp.Attempts, resp.Content, tt.wantCalls)
				}
			} else {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v (%T), want an *Error matching %v", err, err, tt.wantErr)
				}
				for _, other := range []error{ErrPermanent, ErrExhausted, ErrAccount, ErrSetup} {
					if other != tt.wantErr && errors.Is(err, other) {
						t.Errorf("error matches both %v and %v: %v", tt.wantErr, other, err)
					}
				}
				if e.Attempts != tt.wantCalls || e.Status != tt.wantStatus || e.Model != "test/model-1" {
					t.Errorf("error fields attempts %d status %d model %q, want %d %d", e.Attempts, e.Status, e.Model, tt.wantCalls, tt.wantStatus)
				}
				for _, s := range tt.wantInErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q lacks %q", err, s)
					}
				}
			}
			ws := w.all()
			if len(ws) != tt.wantCalls-1 {
				t.Errorf("%d waits, want %d: %v", len(ws), tt.wantCalls-1, ws)
			}
			if len(ws) > 0 && tt.minFirstWait > 0 && ws[0] < tt.minFirstWait {
				t.Errorf("first wait %v, want at least %v", ws[0], tt.minFirstWait)
			}
			if len(ws) > 0 && tt.maxFirstWait > 0 && ws[0] > tt.maxFirstWait {
				t.Errorf("first wait %v, want at most %v", ws[0], tt.maxFirstWait)
			}
		})
	}
}

// sequence fails the first calls with fs, one each, in order.
func sequence(fs ...fakeopenai.Failure) func(int, fakeopenai.Request) *fakeopenai.Failure {
	return func(call int, _ fakeopenai.Request) *fakeopenai.Failure {
		if call <= len(fs) {
			return &fs[call-1]
		}
		return nil
	}
}

func TestUnauthorized(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Key: "sk-the-right-key-000000"})
	ledger := &syncbuf.Buffer{}
	c, w := newClient(t, srv, func(cfg *Config) { cfg.Ledger = ledger })
	start := time.Now()
	_, err := c.Complete(context.Background(), question())
	if err == nil {
		t.Fatal("no error for a wrong key")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v; a 401 must fail at once", d)
	}
	const want = `llm: model "test/model-1": the endpoint rejected the API key (HTTP 401); check the variable named by --api-key-env (attempt 1; an account error: the run stops, and resumes once it is fixed)`
	if err.Error() != want {
		t.Errorf("error\n got %s\nwant %s", err, want)
	}
	if !errors.Is(err, ErrAccount) || errors.Is(err, ErrPermanent) {
		t.Errorf("a 401 is not an account error, which every further call would meet: %v", err)
	}
	if calls, _ := srv.Stats(); calls != 1 {
		t.Errorf("%d calls, want 1", calls)
	}
	if len(w.all()) != 0 {
		t.Errorf("waited %v before failing", w.all())
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), ledger.String()} {
		if strings.Contains(s, testKey) {
			t.Errorf("the key leaked into %q", s)
		}
	}
	if ledger.String() != "" {
		t.Errorf("a refused call was written to the ledger: %s", ledger.String())
	}
}

// TestKeyNeverInErrors covers an endpoint that echoes the key in its
// error message, and printing the Config.
func TestKeyNeverInErrors(t *testing.T) {
	body := `{"error":{"message":"Incorrect API key provided: ` + testKey + `","type":"invalid_request_error"}}`
	for _, status := range []int{400, 403, 500} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{Fail: fakeopenai.FailFirst(100, fakeopenai.Failure{Status: status, Body: body})})
			c, _ := newClient(t, srv, func(cfg *Config) { cfg.MaxAttempts = 2 })
			_, err := c.Complete(context.Background(), question())
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("key in error: %v", err)
			}
			if !strings.Contains(err.Error(), "Incorrect API key provided: [API key]") {
				t.Errorf("the endpoint's message is not kept, redacted: %v", err)
			}
		})
	}
	cfg := Config{APIKey: testKey, BaseURL: "http://127.0.0.1:1/v1"}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%v", &cfg)} {
		if strings.Contains(s, testKey) {
			t.Errorf("printing a Config shows the key: %s", s)
		}
	}
}

func TestFinishReasonPassedThrough(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Reply: func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Content: "The answer is probably", FinishReason: "length", PromptTokens: 10, CompletionTokens: 4}
	}})
	c, _ := newClient(t, srv, nil)
	resp, err := c.Complete(context.Background(), question())
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "length" || resp.Content != "The answer is probably" {
		t.Errorf("got %+v", resp)
	}
}

func TestCost(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name          string
		reported      *float64
		priceIn, pOut *float64
		want          *float64
	}{
		{name: "usage.cost reported", reported: f(0.00123), want: f(0.00123)},
		{name: "usage.cost wins over prices", reported: f(0.5), priceIn: f(1), pOut: f(2), want: f(0.5)},
		{name: "usage.cost of 0 is a known cost", reported: f(0), priceIn: f(1), pOut: f(2), want: f(0)},
		{name: "from prices", priceIn: f(3), pOut: f(15), want: f((1000*3 + 200*15) / 1e6)},
		{name: "one price is not enough", priceIn: f(3)},
		{name: "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Options{Reply: func(fakeopenai.Request) fakeopenai.Reply {
				return fakeopenai.Reply{Content: "B", PromptTokens: 1000, CompletionTokens: 200, Cost: tt.reported}
			}})
			ledger := &syncbuf.Buffer{}
			c, _ := newClient(t, srv, func(cfg *Config) {
				cfg.PriceInput, cfg.PriceOutput, cfg.Ledger = tt.priceIn, tt.pOut, ledger
			})
			resp, err := c.Complete(context.Background(), question())
			if err != nil {
				t.Fatal(err)
			}
			var line map[string]any
			if err := json.Unmarshal([]byte(ledger.String()), &line); err != nil {
				t.Fatalf("ledger %q: %v", ledger.String(), err)
			}
			cost, inLedger := line["cost_usd"]
			switch {
			case tt.want == nil:
				if resp.CostUSD != nil {
					t.Errorf("cost %v, want unknown", *resp.CostUSD)
				}
				if !inLedger || cost != nil {
					t.Errorf("ledger has cost_usd %v (present %v) for an unknown cost, want null", cost, inLedger)
				}
			case resp.CostUSD == nil:
				t.Errorf("cost unknown, want %v", *tt.want)
			default:
				if diff := *resp.CostUSD - *tt.want; diff > 1e-12 || diff < -1e-12 {
					t.Errorf("cost %v, want %v", *resp.CostUSD, *tt.want)
				}
				if cost != *resp.CostUSD {
					t.Errorf("ledger cost_usd %v, response %v", cost, *resp.CostUSD)
				}
			}
		})
	}
}

func TestLedger(t *testing.T) {
	// Question q-003 fails once with 503; q-bad always with 400.
	var failedOnce sync.Once
	srv := fakeopenai.New(t, fakeopenai.Options{
		Key: testKey,
		Fail: func(call int, req fakeopenai.Request) *fakeopenai.Failure {
			switch req.Messages[0].Content {
			case "q-003":
				var f *fakeopenai.Failure
				failedOnce.Do(func() { f = &fakeopenai.Failure{Status: 503} })
				return f
			case "q-bad":
				return &fakeopenai.Failure{Status: 400}
			}
			return nil
		},
		Reply: func(req fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{Content: "A", PromptTokens: 50, CompletionTokens: 5, Cost: func() *float64 { v := 0.0001; return &v }()}
		},
	})
	ledger := &syncbuf.Buffer{}
	c, _ := newClient(t, srv, func(cfg *Config) { cfg.Ledger = ledger; cfg.RunID = "2026-12-01-a" })

	ids := []string{"q-001", "q-002", "q-003", "q-004", "q-005", "q-006", "q-bad"}
	var wg sync.WaitGroup
	errs := make([]error, len(ids))
	for i, id := range ids {
		wg.Go(func() {
			kind := CallCandidate
			if i%2 == 1 {
				kind = CallJudge
			}
			_, errs[i] = c.Complete(context.Background(), Request{
				Model: "test/model-1", Messages: []Message{{Role: "user", Content: id}}, Kind: kind, QuestionID: id,
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (err != nil) != (ids[i] == "q-bad") {
			t.Errorf("%s: error %v", ids[i], err)
		}
	}
	if c.LedgerErr() != nil {
		t.Errorf("LedgerErr: %v", c.LedgerErr())
	}

	lines := strings.Split(strings.TrimSuffix(ledger.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d ledger lines, want 6 (one per answered call; a 503 or a 400 is not billed):\n%s", len(lines), ledger.String())
	}
	wantKeys := "attempt cached_tokens completion_tokens cost_usd finish_reason kind latency_ms model outcome prompt_tokens question_id reasoning_tokens request_id run_id served_model time"
	seen := map[string]LedgerEntry{}
	for _, line := range lines {
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("ledger line %q: %v", line, err)
		}
		keys := make([]string, 0, len(raw))
		for k := range raw {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if got := strings.Join(keys, " "); got != wantKeys {
			t.Errorf("ledger keys %q, want %q", got, wantKeys)
		}
		var e LedgerEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if ts, err := time.Parse(time.RFC3339, e.Time); err != nil || !strings.HasSuffix(e.Time, "Z") || time.Since(ts) > time.Minute {
			t.Errorf("time %q is not a recent RFC 3339 UTC time", e.Time)
		}
		if e.RunID != "2026-12-01-a" || e.Model != "test/model-1" || e.PromptTokens == nil || *e.PromptTokens != 50 ||
			e.CompletionTokens == nil || *e.CompletionTokens != 5 || e.CostUSD == nil || *e.CostUSD != 0.0001 || e.LatencyMS < 0 ||
			e.Outcome != OutcomeAnswered || e.FinishReason != "stop" || e.ServedModel != "test/model-1" {
			t.Errorf("ledger entry %+v", e)
		}
		if _, dup := seen[e.QuestionID]; dup {
			t.Errorf("%s written twice", e.QuestionID)
		}
		seen[e.QuestionID] = e
	}
	for i, id := range ids[:6] {
		e, ok := seen[id]
		if !ok {
			t.Errorf("%s missing from the ledger", id)
			continue
		}
		wantKind := CallCandidate
		if i%2 == 1 {
			wantKind = CallJudge
		}
		wantAttempts := 1
		if id == "q-003" {
			wantAttempts = 2
		}
		if e.Kind != wantKind || e.Attempt != wantAttempts {
			t.Errorf("%s: kind %q attempt %d, want %q %d", id, e.Kind, e.Attempt, wantKind, wantAttempts)
		}
	}
	if strings.Contains(ledger.String(), testKey) {
		t.Error("the key is in the ledger")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestLedgerWriteErrorKeepsAnswer(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{})
	c, _ := newClient(t, srv, func(cfg *Config) { cfg.Ledger = failingWriter{} })
	resp, err := c.Complete(context.Background(), question())
	if err != nil || resp.Content != "OK" {
		t.Fatalf("got %+v, %v", resp, err)
	}
	if err := c.LedgerErr(); err == nil || err.Error() != "disk full" {
		t.Errorf("LedgerErr %v, want disk full", err)
	}
}

func TestRateLimit(t *testing.T) {
	const (
		n   = 9
		rps = 20.0
	)
	// The server refuses, with 429, anything faster than rps.
	srv := fakeopenai.New(t, fakeopenai.Options{RateLimit: rps, Latency: 10 * time.Millisecond})
	c, _ := newClient(t, srv, func(cfg *Config) { cfg.RPS = rps })
	var wg sync.WaitGroup
	start := time.Now()
	for range n {
		wg.Go(func() {
			if _, err := c.Complete(context.Background(), question()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if least := time.Duration(float64(n-1) / rps * float64(time.Second)); elapsed < least {
		t.Errorf("%d requests at %g/s took %v, want at least %v", n, rps, elapsed, least)
	}
	calls, status := srv.Stats()
	if calls != n || status[429] != 0 {
		t.Errorf("%d calls, statuses %v; want %d calls and no 429", calls, status, n)
	}
}

func TestLimiterSpacing(t *testing.T) {
	l := newLimiter(50) // 20 ms apart
	var mu sync.Mutex
	var times []time.Time
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if err := l.wait(context.Background()); err != nil {
				t.Error(err)
			}
			mu.Lock()
			times = append(times, time.Now())
			mu.Unlock()
		})
	}
	wg.Wait()
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	// Five intervals less the limiter's slack, less a little for the time
	// between a goroutine going through and reading the clock.
	if span := times[len(times)-1].Sub(times[0]); span < 90*time.Millisecond {
		t.Errorf("6 turns at 50/s spanned %v, want about 100ms", span)
	}
	if newLimiter(0) != nil {
		t.Error("RPS 0 must not limit")
	}
}

func TestLimiterCancelKeepsTurns(t *testing.T) {
	l := newLimiter(4) // 250 ms apart
	start := time.Now()
	if err := l.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := l.wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled wait: %v", err)
	}
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("a cancelled wait returned after %v", d)
	}
	// The cancelled caller took no turn: the next one goes 250 ms after
	// the first, not 500 ms.
	if err := l.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 240*time.Millisecond || d > 450*time.Millisecond {
		t.Errorf("the next turn came %v after the first, want about 250ms", d)
	}
	cancel()
	if err := l.wait(ctx); err == nil {
		t.Error("a done context was let through")
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name string
		opts fakeopenai.Options
		set  func(*Config)
		pre  func(t *testing.T, c *Client) // runs before the cancelled call
	}{
		{
			name: "while waiting for the rate limit",
			opts: fakeopenai.Options{},
			set:  func(cfg *Config) { cfg.RPS = 0.1 }, // a slot every 10 s
			pre: func(t *testing.T, c *Client) {
				if _, err := c.Complete(context.Background(), question()); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "while backing off after a 429",
			opts: fakeopenai.Options{Fail: fakeopenai.FailFirst(100, fakeopenai.Failure{Status: 429, RetryAfter: "60"})},
			set:  func(cfg *Config) { cfg.Sleep = nil }, // really sleep
		},
		{
			name: "while the endpoint hangs",
			opts: fakeopenai.Options{Fail: fakeopenai.FailFirst(100, fakeopenai.Failure{Hang: true})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, tt.opts)
			c, _ := newClient(t, srv, tt.set)
			if tt.pre != nil {
				tt.pre(t, c)
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(150*time.Millisecond, cancel)
			start := time.Now()
			_, err := c.Complete(ctx, question())
			took := time.Since(start)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want one matching context.Canceled", err)
			}
			if errors.Is(err, ErrPermanent) || errors.Is(err, ErrExhausted) {
				t.Errorf("a cancelled call matches a failure kind: %v", err)
			}
			if took > 1*time.Second {
				t.Errorf("returned %v after the call began; cancellation at 150ms must stop it promptly", took)
			}
		})
	}
}

func TestKeyFromEnv(t *testing.T) {
	const name = "BENCHGATE_TEST_LLM_KEY"
	t.Setenv(name, "  "+testKey+"\n")
	key, err := KeyFromEnv(name)
	if err != nil || key != testKey {
		t.Errorf("KeyFromEnv = %q, %v", key, err)
	}

	t.Setenv(name, " \t")
	if _, err := KeyFromEnv(name); err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty variable: %v", err)
	}

	const unset = "BENCHGATE_TEST_LLM_KEY_UNSET_9d1c"
	if _, err := KeyFromEnv(unset); err == nil || !strings.Contains(err.Error(), unset) || !strings.Contains(err.Error(), "not set") {
		t.Errorf("unset variable: %v", err)
	}
	if _, err := KeyFromEnv(""); err == nil {
		t.Error("no error for an empty name")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	neg := -1.0
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"base URL without scheme", Config{BaseURL: "openrouter.ai/api/v1"}, "not an http or https URL"},
		{"base URL of another scheme", Config{BaseURL: "ftp://example.com/v1"}, "not an http or https URL"},
		{"base URL with a query", Config{BaseURL: "http://127.0.0.1/v1?x=1"}, "query"},
		{"Azure without endpoint", Config{AzureAPIVersion: "2024-06-01"}, "Azure"},
		{"negative timeout", Config{Timeout: -time.Second}, "timeout"},
		{"negative attempts", Config{MaxAttempts: -1}, "attempts"},
		{"negative rate", Config{RPS: -2}, "rate"},
		{"negative price", Config{PriceInput: &neg}, "price"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error about %q", err, tt.want)
			}
		})
	}
	if _, err := New(Config{}); err != nil {
		t.Errorf("the zero Config (OpenAI, defaults) is valid: %v", err)
	}
}

func TestBadRequestNotSent(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{})
	c, _ := newClient(t, srv, nil)
	for _, req := range []Request{
		{Messages: question().Messages},
		{Model: "m"},
		{Model: "m", Messages: question().Messages, Temperature: new(-1.0)},
	} {
		if _, err := c.Complete(context.Background(), req); !errors.Is(err, ErrPermanent) {
			t.Errorf("%+v: error %v, want a permanent one", req, err)
		}
	}
	if calls, _ := srv.Stats(); calls != 0 {
		t.Errorf("%d invalid requests were sent", calls)
	}
}

func TestAzure(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey})
	c, _ := newClient(t, srv, func(cfg *Config) {
		cfg.BaseURL = strings.TrimSuffix(srv.URL, "/v1")
		cfg.AzureAPIVersion = "2024-06-01"
	})
	req := question()
	req.Model = "gpt-4o.benchmark"
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != "/openai/deployments/gpt-4o.benchmark/chat/completions" || r.Query != "api-version=2024-06-01" {
		t.Errorf("Azure request went to %s?%s", r.Path, r.Query)
	}
	if strings.Contains(string(r.Raw), `"temperature"`) {
		t.Errorf("Azure body has a temperature none was asked for: %s", r.Raw)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"2", 2 * time.Second, true},
		{" 0 ", 0, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"600", 600 * time.Second, true}, // backoff caps the wait
		{"1e300", 7 * 24 * time.Hour, true},
		{"Tue, 01 Dec 2026 10:00:07 GMT", 7 * time.Second, true},
		{"Tue, 01 Dec 2026 09:59:00 GMT", 0, true},
		{"Wed, 02 Dec 2026 10:00:00 GMT", 24 * time.Hour, true},
		{"", 0, false},
		{"-3", 0, false},
		{"NaN", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	for n := 1; n <= 40; n++ {
		window := min(backoffCap, backoffBase<<min(n-1, 16))
		for range 200 {
			if d := backoff(n, 0); d < 0 || d > window {
				t.Fatalf("backoff(%d) = %v, outside [0, %v]", n, d, window)
			}
		}
	}
	if d := backoff(1, 3*time.Second); d < 3*time.Second {
		t.Errorf("backoff ignored Retry-After: %v", d)
	}
	// Full jitter: the waits spread over the window rather than bunching.
	var lo, hi int
	for range 1000 {
		if backoff(3, 0) < time.Second {
			lo++
		} else {
			hi++
		}
	}
	if lo < 350 || hi < 350 {
		t.Errorf("backoff(3) over [0, 2s]: %d below 1 s, %d above", lo, hi)
	}
}

// TestPublicError: an error's Public message names the failure but never
// the endpoint's address nor anything the endpoint or the transport said,
// which stay in Error for the log. A judge that was down once put
// `Post "http://127.0.0.1:…/v1/chat/completions": dial tcp …` in a pull
// request's comment.
func TestPublicError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	const inside = "http://10.0.0.5:8000/v1" // an address only the endpoint's operator should see
	failing := func(f fakeopenai.Failure) *fakeopenai.Server {
		return fakeopenai.New(t, fakeopenai.Options{Fail: fakeopenai.FailFirst(100, f)})
	}
	tests := []struct {
		name       string
		srv        *fakeopenai.Server // nil: the closed port
		timeout    time.Duration
		cause      error // when set, the call is cancelled with it
		wantPublic string
		wantInErr  string // the detail Error keeps
	}{
		{name: "refused", wantPublic: `model "test/model-1": gave up after 2 attempts; the last: the endpoint could not be reached (connection refused)`, wantInErr: closed},
		{name: "closed without an answer", srv: failing(fakeopenai.Failure{CloseConn: true}),
			wantPublic: `model "test/model-1": gave up after 2 attempts; the last: the endpoint closed the connection without an answer`, wantInErr: "/chat/completions"},
		{name: "server error with the endpoint's message", srv: failing(fakeopenai.Failure{Status: 502, Body: `{"error": {"message": "upstream ` + inside + ` is down"}}`}),
			wantPublic: `model "test/model-1": gave up after 2 attempts; the last: HTTP 502 Bad Gateway`, wantInErr: inside},
		{name: "not found", srv: failing(fakeopenai.Failure{Status: 404, Body: `{"error": {"message": "no model at ` + inside + `"}}`}),
			wantPublic: `model "test/model-1": the endpoint or the model was not found (HTTP 404) (attempt 1, a setup error)`, wantInErr: inside},
		{name: "upstream error in a 200", srv: failing(fakeopenai.Failure{Status: 200, Body: `{"error": {"message": "provider ` + inside + ` failed", "code": 503}}`}),
			wantPublic: `model "test/model-1": gave up after 2 attempts; the last: the endpoint reported an error inside its answer: HTTP 503 Service Unavailable`, wantInErr: inside},
		{name: "timeout", srv: failing(fakeopenai.Failure{Hang: true}), timeout: 50 * time.Millisecond,
			wantPublic: `model "test/model-1": gave up after 2 attempts; the last: no complete answer within the 50ms timeout`, wantInErr: "50ms"},
		{name: "cancelled", srv: failing(fakeopenai.Failure{Hang: true}), cause: errors.New("shutting down " + inside),
			wantPublic: `model "test/model-1": stopped after 1 attempts (cancelled)`, wantInErr: inside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := "http://" + closed + "/v1"
			if tt.srv != nil {
				base = tt.srv.URL
			}
			c, err := New(Config{BaseURL: base, APIKey: testKey, MaxAttempts: 2, Timeout: tt.timeout, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.cause != nil {
				var cancel context.CancelCauseFunc
				ctx, cancel = context.WithCancelCause(ctx)
				time.AfterFunc(50*time.Millisecond, func() { cancel(tt.cause) })
			}
			_, err = c.Complete(ctx, question())
			if err == nil {
				t.Fatal("no error")
			}
			if got := Public(err); got != tt.wantPublic {
				t.Errorf("Public\n got %s\nwant %s", got, tt.wantPublic)
			}
			if got := Public(fmt.Errorf("judge x, question q: %w", err)); got != tt.wantPublic {
				t.Errorf("Public of a wrapped error: %s", got)
			}
			host := strings.TrimPrefix(strings.TrimSuffix(base, "/v1"), "http://")
			for _, s := range []string{host, "127.0.0.1", "10.0.0.5", "dial", "Post", testKey} {
				if strings.Contains(Public(err), s) {
					t.Errorf("Public names %q: %s", s, Public(err))
				}
			}
			if !strings.Contains(err.Error(), tt.wantInErr) {
				t.Errorf("Error lost the detail %q: %v", tt.wantInErr, err)
			}
		})
	}
	if got := Public(errors.New("dial tcp " + closed)); got != "the call failed" {
		t.Errorf("Public of another error = %q", got)
	}
}
