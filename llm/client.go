package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

const (
	defaultTimeout     = 180 * time.Second // Groundtruth's: a reasoning judge often takes minutes
	defaultMaxAttempts = 5
	backoffBase        = 500 * time.Millisecond
	backoffCap         = 30 * time.Second
	retryAfterCap      = 120 * time.Second
	maxResponseBytes   = 32 << 20
	openAIBaseURL      = "https://api.openai.com/v1"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the endpoint's base URL, such as
	// https://openrouter.ai/api/v1 or http://localhost:11434/v1. Empty
	// means OpenAI's. With AzureAPIVersion set it is the Azure resource's
	// endpoint, such as https://NAME.openai.azure.com.
	BaseURL string

	// APIKey is sent as a bearer token (Azure: in the api-key header).
	// Read it from the environment with KeyFromEnv. It is never written
	// to an error, a log or the ledger. Empty sends no key, for local
	// servers that take none.
	APIKey string

	// Timeout bounds each attempt, from sending the request to reading the
	// whole answer. 0 means 180 s.
	Timeout time.Duration

	// MaxAttempts is how many times a call is tried before giving up on a
	// transient failure. 0 means 5.
	MaxAttempts int

	// RPS caps the requests sent per second by all goroutines using the
	// client, retries included. 0 means no cap.
	RPS float64

	// Ledger receives one JSON line (a LedgerEntry) per attempt that may
	// have been billed: every answer, an error inside one included, and
	// every attempt that timed out after it was sent. Nil writes none.
	Ledger io.Writer

	// RunID is written into every ledger line.
	RunID string

	// PriceInput and PriceOutput are USD per million prompt and completion
	// tokens. When both are set, they give the cost of a call whose
	// endpoint does not report one.
	PriceInput, PriceOutput *float64

	// PriceCachedInput is USD per million prompt tokens read from the
	// provider's cache (OpenAI's usage.prompt_tokens_details.cached_tokens,
	// DeepSeek's usage.prompt_cache_hit_tokens), which providers bill at
	// a rate of their own. Nil prices them as PriceInput.
	PriceCachedInput *float64

	// Sleep waits between attempts; it must return early with ctx's error
	// when ctx is done. Nil sleeps for real. Tests set it to record the
	// waits. The rate limit always waits in real time.
	Sleep func(context.Context, time.Duration) error

	// HTTPClient sends the requests. Nil means a client with Timeout and
	// enough idle connections per host for many concurrent calls. A given
	// client is copied, not changed.
	HTTPClient *http.Client

	// AzureAPIVersion, when set, selects Azure OpenAI: BaseURL is the
	// resource endpoint, Request.Model is the deployment name, and this
	// is the api-version query parameter, such as 2024-06-01.
	AzureAPIVersion string

	// Deployments maps a model id to its Azure deployment name, such as
	// "openai/gpt-5.5" to "gpt55-judge". A model not in it is its own
	// deployment name, which an id with a slash cannot be. Azure only.
	Deployments map[string]string

	// TokenParam is the body field that carries Request.MaxTokens:
	// "max_tokens", "max_completion_tokens", or "" to choose by the model
	// id (max_completion_tokens for OpenAI's o-series and GPT-5 ids). When
	// the endpoint rejects the field with a 400 that names it, the call
	// is retried once with the other, which the client keeps for the
	// model, and the switch is logged and noted in the ledger.
	TokenParam string

	// ReasoningParam is how Request.ReasoningEffort is sent: "reasoning"
	// as OpenRouter's {"reasoning": {"effort": ...}}, "reasoning_effort"
	// as OpenAI's, Azure's, vLLM's and Ollama's top-level field, or "" for
	// OpenRouter's form at openrouter.ai and OpenAI's elsewhere.
	ReasoningParam string

	// OpenRouter says the endpoint is OpenRouter's, or a proxy in front
	// of it: Request.Provider is sent as OpenRouter's provider routing,
	// and the answer's provider is checked against it. A base URL on the
	// host openrouter.ai or one of its subdomains is OpenRouter's without
	// it. Other endpoints take no routing object (OpenAI refuses unknown
	// fields), so Request.Provider is not sent to them.
	OpenRouter bool

	// Log receives notices such as a switched token field. Nil means
	// slog.Default().
	Log *slog.Logger
}

// isOpenRouter reports whether base is on openrouter.ai.
func isOpenRouter(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "openrouter.ai" || strings.HasSuffix(h, ".openrouter.ai")
}

// The values of Config.TokenParam and Config.ReasoningParam.
const (
	TokenParamMaxTokens           = "max_tokens"
	TokenParamMaxCompletionTokens = "max_completion_tokens"
	ReasoningParamObject          = "reasoning"
	ReasoningParamEffort          = "reasoning_effort"
)

// String describes the configuration without the API key, so that
// printing a Config cannot leak it.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("llm.Config{BaseURL: %q, APIKey: %s, Timeout: %v, MaxAttempts: %d, RPS: %g, RunID: %q, AzureAPIVersion: %q, Deployments: %v, TokenParam: %q, ReasoningParam: %q, OpenRouter: %t}",
		c.BaseURL, key, c.Timeout, c.MaxAttempts, c.RPS, c.RunID, c.AzureAPIVersion, c.Deployments, c.TokenParam, c.ReasoningParam, c.OpenRouter)
}

// GoString is String, for the %#v verb.
func (c Config) GoString() string { return c.String() }

// Client makes chat completions through an OpenAI-compatible endpoint,
// retrying transient failures, keeping to a request rate and writing a
// cost ledger. It is safe for concurrent use; share one per endpoint so
// that the rate limit holds across all callers.
type Client struct {
	http        *http.Client
	base        string // the base URL, without a trailing slash
	azureAPI    string // the api-version of an Azure endpoint; "" elsewhere
	openRouter  bool   // the endpoint is OpenRouter's (see Config.OpenRouter)
	key         string
	timeout     time.Duration
	maxAttempts int
	sleep       func(context.Context, time.Duration) error
	limit       *limiter
	flight      flight // adaptive concurrency; see adaptive.go
	ledger      *ledger
	runID       string
	prices      *Prices // nil unless both PriceInput and PriceOutput are given
	azure       bool
	deployments map[string]string
	tokenParam  string
	reasonParam string
	log         *slog.Logger

	mu     sync.Mutex
	tokens map[string]string // the token field learnt per model from a 400
}

var _ Completer = (*Client)(nil)

// New checks cfg and returns a client for it.
func New(cfg Config) (*Client, error) {
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("llm: base URL %q is not an http or https URL such as https://openrouter.ai/api/v1", cfg.BaseURL)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("llm: base URL %q must not have a query or fragment", cfg.BaseURL)
		}
	} else if cfg.AzureAPIVersion != "" {
		return nil, errors.New("llm: Azure OpenAI needs the resource endpoint as base URL")
	}
	switch {
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("llm: timeout %v is negative", cfg.Timeout)
	case cfg.MaxAttempts < 0:
		return nil, fmt.Errorf("llm: max attempts %d is negative", cfg.MaxAttempts)
	case cfg.RPS < 0 || math.IsNaN(cfg.RPS) || math.IsInf(cfg.RPS, 0):
		return nil, fmt.Errorf("llm: rate %v is not a finite, non-negative number of requests a second", cfg.RPS)
	}
	switch cfg.TokenParam {
	case "", TokenParamMaxTokens, TokenParamMaxCompletionTokens:
	default:
		return nil, fmt.Errorf("llm: token parameter %q is neither %s nor %s", cfg.TokenParam, TokenParamMaxTokens, TokenParamMaxCompletionTokens)
	}
	switch cfg.ReasoningParam {
	case "", ReasoningParamObject, ReasoningParamEffort:
	default:
		return nil, fmt.Errorf("llm: reasoning parameter %q is neither %s nor %s", cfg.ReasoningParam, ReasoningParamObject, ReasoningParamEffort)
	}
	if len(cfg.Deployments) > 0 && cfg.AzureAPIVersion == "" {
		return nil, errors.New("llm: deployments are given but the endpoint is not Azure OpenAI (set its API version)")
	}
	for model, dep := range cfg.Deployments {
		if model == "" || dep == "" || strings.ContainsAny(dep, "/?#% ") {
			return nil, fmt.Errorf("llm: deployment %q for model %q is not a deployment name (letters, digits, '-', '_' and '.')", dep, model)
		}
	}
	for name, p := range map[string]*float64{"input": cfg.PriceInput, "output": cfg.PriceOutput, "cached input": cfg.PriceCachedInput} {
		if p != nil && (*p < 0 || math.IsNaN(*p) || math.IsInf(*p, 0)) {
			return nil, fmt.Errorf("llm: %s price %v is not a finite, non-negative number of USD per million tokens", name, *p)
		}
	}

	c := &Client{
		key:         cfg.APIKey,
		timeout:     cfg.Timeout,
		maxAttempts: cfg.MaxAttempts,
		sleep:       cfg.Sleep,
		limit:       newLimiter(cfg.RPS),
		runID:       cfg.RunID,
		azure:       cfg.AzureAPIVersion != "",
		deployments: cfg.Deployments,
		tokenParam:  cfg.TokenParam,
		reasonParam: cfg.ReasoningParam,
		log:         cfg.Log,
		tokens:      map[string]string{},
	}
	if cfg.PriceInput != nil && cfg.PriceOutput != nil {
		c.prices = &Prices{Input: *cfg.PriceInput, Output: *cfg.PriceOutput, CachedInput: cfg.PriceCachedInput}
	}
	c.base = strings.TrimRight(cfg.BaseURL, "/")
	if c.base == "" {
		c.base = openAIBaseURL
	}
	c.azureAPI = cfg.AzureAPIVersion
	c.openRouter = cfg.OpenRouter || isOpenRouter(c.base)
	if c.reasonParam == "" {
		c.reasonParam = ReasoningParamEffort
		if c.openRouter {
			c.reasonParam = ReasoningParamObject
		}
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.timeout == 0 {
		c.timeout = defaultTimeout
	}
	if c.maxAttempts == 0 {
		c.maxAttempts = defaultMaxAttempts
	}
	if c.sleep == nil {
		c.sleep = sleep
	}
	if cfg.Ledger != nil {
		c.ledger = &ledger{w: cfg.Ledger}
	}

	if cfg.HTTPClient != nil {
		hc := *cfg.HTTPClient
		c.http = &hc
	} else {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// The default keeps 2 idle connections per host; a run with many
		// workers on one endpoint would otherwise reconnect constantly.
		t.MaxIdleConns = 256
		t.MaxIdleConnsPerHost = 256
		c.http = &http.Client{Transport: t, Timeout: c.timeout}
	}
	return c, nil
}

// KeyFromEnv returns the API key held by the environment variable name,
// with surrounding white space removed. The error names the variable,
// never a value.
func KeyFromEnv(name string) (string, error) {
	if name == "" {
		return "", errors.New("llm: no environment variable named for the API key")
	}
	v, ok := os.LookupEnv(name)
	if !ok {
		return "", fmt.Errorf("llm: the environment variable %s, which should hold the API key, is not set", name)
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", fmt.Errorf("llm: the environment variable %s, which should hold the API key, is empty", name)
	}
	return v, nil
}

// Endpoint names the endpoint the client calls: its base URL, OpenAI's
// when none was given. It holds no key.
func (c *Client) Endpoint() string { return c.base }

// LedgerErr returns the first error met writing the ledger, or nil. A
// failed ledger write does not fail the call, whose answer is already paid
// for; check this at the end of a run.
func (c *Client) LedgerErr() error { return c.ledger.failure() }

// Complete makes one chat completion, retrying transient failures (429,
// 408, 5xx, timeouts, broken connections and errors reported inside a 200
// answer) with exponential backoff and full jitter, never sooner than the
// endpoint's Retry-After. A failure is an *Error; one that concerns the
// account rather than the call (a rejected key, no credits, no quota) is
// ErrAccount, and the run should stop.
//
// Temperature is sent when set, TopP when positive, Seed when set.
// MaxTokens is sent in the field Config.TokenParam names; see there.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	if err := checkRequest(req); err != nil {
		return Response{}, &Error{Model: req.Model, kind: ErrPermanent, msg: err.Error(), public: err.Error()}
	}
	if c.azure {
		if _, ok := c.deployments[req.Model]; !ok && strings.ContainsAny(req.Model, "/?#% ") {
			msg := fmt.Sprintf("%q is not an Azure deployment name; map the model to its deployment (--deployment %s=NAME)", req.Model, req.Model)
			return Response{}, &Error{Model: req.Model, kind: ErrSetup, msg: msg, public: "the model has no Azure deployment"}
		}
	}
	tokenParam := c.tokenField(req.Model)
	switched := false
	note := ""
	var last *attempt
	retriedOnce := false // an answer worth one more attempt only came
	for n := 1; ; n++ {
		if err := c.admit(ctx); err != nil {
			return Response{}, c.stopped(req.Model, n-1, last, err)
		}
		body, err := json.Marshal(c.body(req, tokenParam))
		if err != nil {
			// Strings and finite numbers only: checkRequest saw to that.
			return Response{}, &Error{Model: req.Model, kind: ErrPermanent, msg: "encoding the request: " + err.Error(), public: "the request could not be encoded"}
		}
		a := c.try(ctx, req, body)
		c.settle(a)
		a.n = n
		if a.err == nil && req.Provider != "" && c.openRouter {
			checkProvider(a, req.Provider)
		}
		if a.err == nil && req.FixedModel {
			c.checkModel(a, req.Model)
		}
		c.bill(req, a, note)
		if a.err == nil {
			return c.answered(a), nil
		}
		if a.cancelled {
			return Response{}, c.stopped(req.Model, n, last, context.Cause(ctx))
		}
		if req.MaxTokens > 0 && !switched && a.status == http.StatusBadRequest && rejectsParam(a.apiErr, tokenParam) {
			// An o-series deployment refuses max_tokens, an older server
			// max_completion_tokens: try the other once, and keep it.
			from := tokenParam
			tokenParam = otherTokenParam(from)
			switched = true
			note = fmt.Sprintf("the endpoint rejected %s; sent %s instead", from, tokenParam)
			c.mu.Lock()
			c.tokens[req.Model] = tokenParam
			c.mu.Unlock()
			c.log.Warn("llm: the endpoint rejected the token limit's field; retrying with the other (set --token-param to skip the rejected call)",
				"model", req.Model, "rejected", from, "sent", tokenParam)
			last = a
			continue
		}
		if a.account {
			return Response{}, &Error{Model: req.Model, Attempts: n, Status: a.status, kind: ErrAccount,
				msg:    fmt.Sprintf("%s (attempt %d; an account error: the run stops, and resumes once it is fixed%s)", a.what, n, a.idNote()),
				public: fmt.Sprintf("%s (attempt %d, an account error)", a.public, n), cause: a.cause}
		}
		if a.setup {
			return Response{}, &Error{Model: req.Model, Attempts: n, Status: a.status, kind: ErrSetup,
				msg:    fmt.Sprintf("%s (attempt %d; a setup error: every call would fail so, and the run stops%s)", a.what, n, a.idNote()),
				public: fmt.Sprintf("%s (attempt %d, a setup error)", a.public, n), cause: a.cause}
		}
		if a.permanent {
			return Response{}, &Error{Model: req.Model, Attempts: n, Status: a.status, kind: ErrPermanent,
				msg:    fmt.Sprintf("%s (attempt %d, not retried%s)", a.what, n, a.idNote()),
				public: fmt.Sprintf("%s (attempt %d, not retried)", a.public, n), cause: a.cause}
		}
		if a.once && retriedOnce {
			// Another model served the call twice: this call fails. An
			// answer that cannot be read twice: every call would fail so.
			kind, note := error(ErrPermanent), "not retried again"
			if a.answer == nil {
				kind, note = ErrSetup, "a setup error: every call would fail so, and the run stops"
			}
			return Response{}, &Error{Model: req.Model, Attempts: n, Status: a.status, kind: kind,
				msg:    fmt.Sprintf("%s (attempt %d, the second such answer; %s%s)", a.what, n, note, a.idNote()),
				public: fmt.Sprintf("%s (attempt %d, the second such answer)", a.public, n), cause: a.cause}
		}
		retriedOnce = retriedOnce || a.once
		last = a
		if n >= c.maxAttempts {
			msg := fmt.Sprintf("gave up after %d attempts; the last: %s", n, a.what)
			if id := a.idNote(); id != "" {
				msg += fmt.Sprintf(" (attempt %d%s)", n, id)
			}
			return Response{}, &Error{Model: req.Model, Attempts: n, Status: a.status, kind: ErrExhausted,
				msg:    msg,
				public: fmt.Sprintf("gave up after %d attempts; the last: %s", n, a.public), cause: a.cause}
		}
		if err := c.sleep(ctx, backoff(n, a.retryAfter)); err != nil {
			return Response{}, c.stopped(req.Model, n, last, err)
		}
	}
}

// deployment is Azure's deployment name for model.
func (c *Client) deployment(model string) string {
	if d, ok := c.deployments[model]; ok {
		return d
	}
	return model
}

// tokenField is the field that carries a call's token limit.
func (c *Client) tokenField(model string) string {
	c.mu.Lock()
	learnt := c.tokens[model]
	c.mu.Unlock()
	switch {
	case learnt != "":
		return learnt
	case c.tokenParam != "":
		return c.tokenParam
	case reasoningModel(model):
		return TokenParamMaxCompletionTokens
	}
	return TokenParamMaxTokens
}

func otherTokenParam(p string) string {
	if p == TokenParamMaxTokens {
		return TokenParamMaxCompletionTokens
	}
	return TokenParamMaxTokens
}

// stopped is the error for a call abandoned because ctx was done. The
// cause is the caller's and may say anything, so the public message
// only names its kind.
func (c *Client) stopped(model string, attempts int, last *attempt, cause error) error {
	why := "cancelled"
	if errors.Is(cause, context.DeadlineExceeded) {
		why = "out of time"
	}
	e := &Error{Model: model, Attempts: attempts, cause: cause,
		msg:    fmt.Sprintf("stopped after %d attempts: %v", attempts, cause),
		public: fmt.Sprintf("stopped after %d attempts (%s)", attempts, why)}
	if last != nil && !last.cancelled {
		e.Status = last.status
		e.msg += "; the last: " + last.what
		e.public += "; the last: " + last.public
	}
	return e
}

// answered turns a successful attempt into a Response.
func (c *Client) answered(a *attempt) Response {
	ans := a.answer
	r := Response{
		Content: ans.content, Reasoning: ans.reasoning, Refusal: ans.refusal, FinishReason: ans.finish, NativeFinishReason: ans.native, Provider: ans.provider, Model: ans.model,
		CostUSD: c.cost(ans), Latency: a.latency, Attempts: a.n,
	}
	if ans.usage.known {
		r.UsageKnown = true
		r.PromptTokens, r.CompletionTokens = ans.usage.prompt, ans.usage.completion
		r.CachedTokens, r.ReasoningTokens = ans.usage.cached, ans.usage.reasoning
	}
	return r
}

// cost is what an answer cost: as the endpoint reports it, or else from
// the prices and the usage; nil when neither is known.
func (c *Client) cost(ans *answer) *float64 {
	if ans == nil {
		return nil
	}
	if ans.usage.cost != nil {
		return ans.usage.cost
	}
	if c.prices == nil || !ans.usage.known {
		return nil
	}
	cost := c.prices.Cost(ans.usage.prompt, ans.usage.cached, ans.usage.completion)
	return &cost
}

// bill writes the ledger line of an attempt that may have been billed: an
// answer, an error inside one included, or a timeout after sending, for
// which the provider may have done the work. note says what the client
// changed on the way, if anything.
func (c *Client) bill(req Request, a *attempt, note string) {
	outcome := ""
	switch {
	case a.answer != nil && a.err == nil:
		outcome = OutcomeAnswered
	case a.answer != nil:
		outcome = OutcomeFailed
	case a.timedOut:
		outcome = OutcomeTimeout
	case a.status == http.StatusOK && !a.cancelled:
		outcome = OutcomeFailed // a 200 that could not be read was still produced
	default:
		return // refused, or never sent: not billed
	}
	e := LedgerEntry{
		Time:       a.end.UTC().Format(time.RFC3339),
		RunID:      c.runID,
		Kind:       req.Kind,
		QuestionID: req.QuestionID,
		Model:      req.Model,
		Attempt:    a.n,
		Outcome:    outcome,
		LatencyMS:  a.latency.Milliseconds(),
		Note:       note,
		RequestID:  a.requestID,
	}
	if ans := a.answer; ans != nil {
		e.FinishReason, e.NativeFinishReason, e.Provider, e.ServedModel, e.Refusal = ans.finish, ans.native, ans.provider, ans.model, ans.refusal
		if u := ans.usage; u.known {
			e.PromptTokens, e.CompletionTokens = &u.prompt, &u.completion
			e.CachedTokens, e.ReasoningTokens = &u.cached, &u.reasoning
		}
		e.CostUSD = c.cost(ans)
	}
	c.ledger.write(e)
}

// checkRequest checks what the endpoint would reject anyway.
func checkRequest(req Request) error {
	switch {
	case req.Model == "":
		return errors.New("no model given")
	case len(req.Messages) == 0:
		return errors.New("no messages given")
	case req.Temperature != nil && (math.IsNaN(*req.Temperature) || math.IsInf(*req.Temperature, 0) || *req.Temperature < 0):
		return fmt.Errorf("temperature %v is not a non-negative number", *req.Temperature)
	case math.IsNaN(req.TopP) || math.IsInf(req.TopP, 0) || req.TopP < 0:
		return fmt.Errorf("top_p %v is not a non-negative number", req.TopP)
	case req.MaxTokens < 0:
		return fmt.Errorf("max tokens %d is negative", req.MaxTokens)
	}
	return nil
}

// body builds the request body of a call.
func (c *Client) body(req Request, tokenParam string) chatBody {
	b := chatBody{Model: req.Model, Messages: make([]wireMessage, len(req.Messages)), Temperature: req.Temperature, Seed: req.Seed,
		ServiceTier: req.ServiceTier}
	if c.azure {
		b.Model = c.deployment(req.Model)
	}
	for i, m := range req.Messages {
		b.Messages[i] = wireMessage(m)
	}
	if req.JSON {
		b.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	if req.TopP > 0 {
		b.TopP = &req.TopP
	}
	if req.MaxTokens > 0 {
		n := req.MaxTokens
		if tokenParam == TokenParamMaxCompletionTokens {
			b.MaxCompletionTokens = &n
		} else {
			b.MaxTokens = &n
		}
	}
	if req.ReasoningEffort != "" {
		if c.reasonParam == ReasoningParamObject {
			b.Reasoning = &reasoningObject{Effort: req.ReasoningEffort}
		} else {
			b.ReasoningEffort = req.ReasoningEffort
		}
	}
	if req.Provider != "" && c.openRouter {
		// OpenRouter's provider routing: this provider or none.
		b.Provider = &providerRouting{Order: []string{req.Provider}, AllowFallbacks: false}
	}
	return b
}

// endpoint is the URL a call for model is posted to: BaseURL's
// /chat/completions, or on Azure the deployment's.
func (c *Client) endpoint(model string) string {
	if c.azure {
		return c.base + "/openai/deployments/" + url.PathEscape(c.deployment(model)) + "/chat/completions?api-version=" + url.QueryEscape(c.azureAPI)
	}
	return c.base + "/chat/completions"
}

// reasoningModel reports whether go-openai's reasoning validator holds
// model to the limits of a reasoning model (its list of OpenAI's model
// families is the one use left of go-openai: requests and answers are
// benchgate's own wire types), which take
// max_completion_tokens and refuse max_tokens. Its max_tokens check reads
// the deprecated MaxTokens field; it refuses logprobs for the same models
// (o1, o3, o4, GPT-5 and its GPT-6 ids), so the validator is asked about a
// request with logprobs instead.
func reasoningModel(model string) bool {
	return openai.NewReasoningValidator().Validate(openai.ChatCompletionRequest{Model: model, LogProbs: true}) != nil
}

// redact removes the API key from text that came from elsewhere (an
// endpoint's message, a transport error), in case it was echoed.
func (c *Client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[API key]")
}
