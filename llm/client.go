package llm

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/safetext"
	openai "github.com/sashabaranov/go-openai"
)

const (
	defaultTimeout     = 180 * time.Second // Groundtruth's: a reasoning judge often takes minutes
	defaultMaxAttempts = 5
	backoffBase        = 500 * time.Millisecond
	backoffCap         = 30 * time.Second
	retryAfterCap      = 120 * time.Second
	maxResponseBytes   = 32 << 20
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

	// Sleep waits between attempts; it must return early with ctx's error
	// when ctx is done. Nil sleeps for real. Tests set it to record the
	// waits. The rate limit always waits in real time.
	Sleep func(context.Context, time.Duration) error

	// HTTPClient sends the requests. Nil means a client with Timeout and
	// enough idle connections per host for many concurrent calls. A given
	// client is copied, not changed: its transport is wrapped to see
	// status, headers and body of every answer.
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

	// Log receives notices such as a switched token field. Nil means
	// slog.Default().
	Log *slog.Logger
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
	return fmt.Sprintf("llm.Config{BaseURL: %q, APIKey: %s, Timeout: %v, MaxAttempts: %d, RPS: %g, RunID: %q, AzureAPIVersion: %q, Deployments: %v, TokenParam: %q, ReasoningParam: %q}",
		c.BaseURL, key, c.Timeout, c.MaxAttempts, c.RPS, c.RunID, c.AzureAPIVersion, c.Deployments, c.TokenParam, c.ReasoningParam)
}

// GoString is String, for the %#v verb.
func (c Config) GoString() string { return c.String() }

// Client makes chat completions through an OpenAI-compatible endpoint,
// retrying transient failures, keeping to a request rate and writing a
// cost ledger. It is safe for concurrent use; share one per endpoint so
// that the rate limit holds across all callers.
type Client struct {
	api         *openai.Client
	key         string
	timeout     time.Duration
	maxAttempts int
	sleep       func(context.Context, time.Duration) error
	limit       *limiter
	flight      flight // adaptive concurrency; see adaptive.go
	ledger      *ledger
	runID       string
	priceIn     *float64
	priceOut    *float64
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
	for name, p := range map[string]*float64{"input": cfg.PriceInput, "output": cfg.PriceOutput} {
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
		priceIn:     cfg.PriceInput,
		priceOut:    cfg.PriceOutput,
		azure:       cfg.AzureAPIVersion != "",
		deployments: cfg.Deployments,
		tokenParam:  cfg.TokenParam,
		reasonParam: cfg.ReasoningParam,
		log:         cfg.Log,
		tokens:      map[string]string{},
	}
	if c.reasonParam == "" {
		c.reasonParam = ReasoningParamEffort
		if u, err := url.Parse(cfg.BaseURL); err == nil && (u.Hostname() == "openrouter.ai" || strings.HasSuffix(u.Hostname(), ".openrouter.ai")) {
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

	var hc http.Client
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	} else {
		t := http.DefaultTransport.(*http.Transport).Clone()
		// The default keeps 2 idle connections per host; a run with many
		// workers on one endpoint would otherwise reconnect constantly.
		t.MaxIdleConns = 256
		t.MaxIdleConnsPerHost = 256
		hc = http.Client{Transport: t, Timeout: c.timeout}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &recorder{base: base}

	var oc openai.ClientConfig
	if cfg.AzureAPIVersion != "" {
		oc = openai.DefaultAzureConfig(cfg.APIKey, cfg.BaseURL)
		oc.APIVersion = cfg.AzureAPIVersion
		// Deployments are named by their owner; go-openai's default
		// mapping rewrites some model names.
		oc.AzureModelMapperFunc = c.deployment
	} else {
		oc = openai.DefaultConfig(cfg.APIKey)
		if cfg.BaseURL != "" {
			oc.BaseURL = cfg.BaseURL
		}
	}
	oc.HTTPClient = &hc
	c.api = openai.NewClientWithConfig(oc)
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
			return Response{}, &Error{Model: req.Model, kind: ErrPermanent, msg: msg, public: "the model has no Azure deployment"}
		}
	}
	tokenParam := c.tokenField(req.Model)
	switched := false
	note := ""
	var last *attempt
	for n := 1; ; n++ {
		if err := c.admit(ctx); err != nil {
			return Response{}, c.stopped(req.Model, n-1, last, err)
		}
		creq, patch := c.chatRequest(req, tokenParam)
		a := c.try(ctx, creq, patch)
		c.settle(a)
		a.n = n
		if a.err == nil && req.Provider != "" {
			checkProvider(a, req.Provider)
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
				msg:    fmt.Sprintf("%s (attempt %d; an account error: the run stops, and resumes once it is fixed)", a.what, n),
				public: fmt.Sprintf("%s (attempt %d, an account error)", a.public, n), cause: a.cause}
		}
		if a.permanent {
			return Response{}, &Error{Model: req.Model, Attempts: n, Status: a.status, kind: ErrPermanent,
				msg:    fmt.Sprintf("%s (attempt %d, not retried)", a.what, n),
				public: fmt.Sprintf("%s (attempt %d, not retried)", a.public, n), cause: a.cause}
		}
		last = a
		if n >= c.maxAttempts {
			return Response{}, &Error{Model: req.Model, Attempts: n, Status: a.status, kind: ErrExhausted,
				msg:    fmt.Sprintf("gave up after %d attempts; the last: %s", n, a.what),
				public: fmt.Sprintf("gave up after %d attempts; the last: %s", n, a.public), cause: a.cause}
		}
		if err := c.sleep(ctx, backoff(n, a.retryAfter)); err != nil {
			return Response{}, c.stopped(req.Model, n, last, err)
		}
	}
}

// checkProvider fails an answer served by another provider than the one
// the call pinned: OpenRouter names who served it in the answer's
// provider field, by display name ("Google AI Studio") where routing
// takes a slug ("google-ai-studio", or "deepinfra/fp8" for one of its
// endpoints). An answer that names none is taken as given.
func checkProvider(a *attempt, want string) {
	got := a.answer.Provider
	if got == "" {
		return
	}
	slug, _, _ := strings.Cut(want, "/")
	if providerKey(got) == providerKey(slug) {
		return
	}
	a.what = fmt.Sprintf("the answer was served by %q, not by the provider %q the call is pinned to", clip(got), want)
	a.public = "the answer was served by another provider than the one the call is pinned to"
	a.err = errors.New(a.what)
	a.permanent = true
}

// providerKey is a provider's name or slug in lower case, letters and
// digits only.
func providerKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
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

// rejectsParam reports whether a 400's error object says the endpoint
// does not take the body field name, as OpenAI words it ("Unsupported
// parameter: 'max_tokens' is not supported with this model.", param
// "max_tokens") and as older Azure API versions do ("Unrecognized request
// argument supplied: max_completion_tokens").
func rejectsParam(e *apiError, name string) bool {
	if e == nil {
		return false
	}
	if e.Param == name && (e.code() == "unsupported_parameter" || strings.Contains(strings.ToLower(e.Message), "not supported")) {
		return true
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, name) && (strings.Contains(msg, "unsupported parameter") || strings.Contains(msg, "unrecognized request argument"))
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
	r := a.answer.response()
	r.CostUSD = c.cost(a.answer)
	r.Latency = a.latency
	r.Attempts = a.n
	return r
}

// cost is what an answer cost: as the endpoint reports it, or else from
// the prices and the usage; nil when neither is known.
func (c *Client) cost(ans *answer) *float64 {
	if ans == nil || ans.Usage == nil {
		return nil
	}
	if cost := ans.Usage.cost(); cost != nil {
		return cost
	}
	if c.priceIn == nil || c.priceOut == nil || ans.Usage.PromptTokens == nil || ans.Usage.CompletionTokens == nil {
		return nil
	}
	cost := (float64(*ans.Usage.PromptTokens)**c.priceIn + float64(*ans.Usage.CompletionTokens)**c.priceOut) / 1e6
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
	}
	if a.answer != nil {
		r := a.answer.response()
		e.FinishReason, e.Provider = r.FinishReason, r.Provider
		if r.UsageKnown {
			e.PromptTokens, e.CompletionTokens = &r.PromptTokens, &r.CompletionTokens
			e.CachedTokens, e.ReasoningTokens = &r.CachedTokens, &r.ReasoningTokens
		}
		e.CostUSD = c.cost(a.answer)
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

// chatRequest builds go-openai's request, and the body fields the
// transport must set because go-openai's types cannot carry them: zero
// values its omitempty tags would drop, float64 values it would round to
// float32, and OpenRouter's fields.
func (c *Client) chatRequest(req Request, tokenParam string) (openai.ChatCompletionRequest, map[string]any) {
	creq := openai.ChatCompletionRequest{
		Model:    req.Model,
		Messages: make([]openai.ChatCompletionMessage, len(req.Messages)),
		Seed:     req.Seed,
	}
	for i, m := range req.Messages {
		creq.Messages[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	if req.JSON {
		creq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	patch := map[string]any{}
	if req.Temperature != nil {
		patch["temperature"] = *req.Temperature
	}
	if req.TopP > 0 {
		patch["top_p"] = req.TopP
	}
	if req.MaxTokens > 0 {
		// Set in the body rather than in go-openai's fields, whose
		// validator refuses max_tokens for the models it knows.
		patch[tokenParam] = req.MaxTokens
	}
	if req.ReasoningEffort != "" {
		if c.reasonParam == ReasoningParamObject {
			patch["reasoning"] = map[string]string{"effort": req.ReasoningEffort}
		} else {
			patch["reasoning_effort"] = req.ReasoningEffort
		}
	}
	if req.ServiceTier != "" {
		patch["service_tier"] = req.ServiceTier
	}
	if req.Provider != "" {
		// OpenRouter's provider routing: this provider or none.
		patch["provider"] = map[string]any{"order": []string{req.Provider}, "allow_fallbacks": false}
	}
	return creq, patch
}

// reasoningModel reports whether go-openai's reasoning validator holds
// model to the limits of a reasoning model, which take
// max_completion_tokens and refuse max_tokens. Its max_tokens check reads
// the deprecated MaxTokens field; it refuses logprobs for the same models
// (o1, o3, o4, GPT-5 and its GPT-6 ids), so the validator is asked about a
// request with logprobs instead.
func reasoningModel(model string) bool {
	return openai.NewReasoningValidator().Validate(openai.ChatCompletionRequest{Model: model, LogProbs: true}) != nil
}

// attempt is one try of a call.
type attempt struct {
	n       int
	answer  *answer // the parsed 200 answer, when one came
	latency time.Duration
	end     time.Time

	err        error         // nil on success
	what       string        // what went wrong, worded for a person, without the key
	public     string        // what went wrong, for anyone: no address, no text from the endpoint or the transport
	status     int           // the HTTP status, or the one an error inside a 200 names; 0 when none
	apiErr     *apiError     // the endpoint's error object, if any
	retryAfter time.Duration // from the Retry-After header; 0 when absent
	permanent  bool          // retrying cannot help
	account    bool          // the account, not the call, is at fault: no call can succeed
	cancelled  bool          // the caller's ctx is done
	timedOut   bool          // sent, and no complete answer within the timeout
	cause      error         // the transport or context error, for errors.Is
}

func (c *Client) try(ctx context.Context, creq openai.ChatCompletionRequest, patch map[string]any) *attempt {
	ex := &exchange{patch: patch}
	actx, cancel := context.WithTimeout(context.WithValue(ctx, exchangeKey{}, ex), c.timeout)
	defer cancel()
	start := time.Now()
	_, err := c.api.CreateChatCompletion(actx, creq)
	end := time.Now()

	ex.mu.Lock()
	defer ex.mu.Unlock()
	a := &attempt{latency: end.Sub(start), end: end, status: ex.status, err: err}
	hasRetryAfter := false
	if ex.status != 0 {
		if d, ok := parseRetryAfter(ex.retryAfter, end); ok {
			a.retryAfter, hasRetryAfter = d, true
		}
	}
	switch {
	case ctx.Err() != nil:
		a.err, a.cancelled, a.cause = ctx.Err(), true, context.Cause(ctx)
		a.what = "the call was cancelled"
		a.public = a.what
	case err == nil:
		ans, perr := parseAnswer(ex.body)
		if perr != nil {
			a.err = perr
			a.what = c.redact("the answer (HTTP 200) could not be read: " + perr.Error())
			a.public = "the answer (HTTP 200) could not be read"
			return a
		}
		a.answer = ans
		c.inAnswerError(a, ans, hasRetryAfter)
	case ex.status >= 300:
		a.apiErr = parseAPIError(ex.body)
		a.what, a.public = describeStatus(ex.status, a.apiErr, ex.body)
		a.what = c.redact(a.what)
		a.permanent, a.account = classify(ex.status, a.apiErr, hasRetryAfter)
	case !ex.sent:
		// go-openai refused the request before sending it.
		a.what = c.redact("the request was not sent: " + err.Error())
		a.public = "the request was not sent"
		a.permanent = true
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		a.what = fmt.Sprintf("no complete answer within the %v timeout (raise --timeout for a slow reasoning model)", c.timeout)
		a.public = fmt.Sprintf("no complete answer within the %v timeout", c.timeout)
		a.timedOut = true
		a.cause = err
	case ex.status != 0:
		a.what = c.redact(fmt.Sprintf("the answer (HTTP %d) could not be read: %v", ex.status, err))
		a.public = fmt.Sprintf("the answer (HTTP %d) could not be read", ex.status)
		a.cause = err
	default:
		// The transport's words name the endpoint ("Post \"http://…\":
		// dial tcp …"): the public message names only the failure.
		a.what = c.redact("the connection failed: " + err.Error())
		a.public = connectionFailure(err)
		a.cause = err
	}
	return a
}

// inAnswerError fails an attempt whose 200 answer reports an error: a
// top-level error object, an error in the choice, or finish_reason
// "error", which OpenRouter sends when the provider failed after it began
// to answer, beside whatever partial text it had
// (https://openrouter.ai/docs/api/reference/errors-and-debugging). The
// partial text is not an answer. An answer without choices fails too.
func (c *Client) inAnswerError(a *attempt, ans *answer, hasRetryAfter bool) {
	e := ans.Error
	if e == nil && len(ans.Choices) > 0 {
		e = ans.Choices[0].Error
	}
	switch {
	case e != nil:
		a.apiErr = e
		a.status = e.status()
		if a.status != 0 {
			what, public := describeStatus(a.status, e, nil)
			a.what, a.public = "the endpoint reported an error inside its answer: "+what, "the endpoint reported an error inside its answer: "+public
			a.permanent, a.account = classify(a.status, e, hasRetryAfter)
		} else {
			a.what = "the endpoint reported an error inside its answer" + suffix(clip(e.Message))
			a.public = "the endpoint reported an error inside its answer"
		}
	case len(ans.Choices) == 0:
		a.what, a.public = "the endpoint answered without any choices", "the endpoint answered without any choices"
	case ans.Choices[0].FinishReason != nil && *ans.Choices[0].FinishReason == "error":
		a.what, a.public = "the answer ended with finish_reason \"error\": the provider failed while answering", "the answer ended with finish_reason \"error\""
	default:
		return
	}
	a.what = c.redact(a.what)
	a.err = errors.New(a.what)
}

// classify says whether a failure with status (and the endpoint's error
// object, if any) is permanent, and whether it is the account's. OpenAI
// answers a spent quota with 429 insufficient_quota, which no wait cures;
// OpenRouter a lack of credits with 402, except that a 402 with
// Retry-After is its in-flight budget, free again once running calls end
// (https://openrouter.ai/docs/api/reference/limits).
func classify(status int, e *apiError, hasRetryAfter bool) (permanent, account bool) {
	switch {
	case status == http.StatusUnauthorized:
		return true, true
	case status == http.StatusPaymentRequired:
		return !hasRetryAfter, !hasRetryAfter
	case status == http.StatusTooManyRequests && e != nil && (e.code() == "insufficient_quota" || e.Type == "insufficient_quota"):
		return true, true
	case status == 0 || retryable(status):
		return false, false
	}
	return true, false
}

// retryable reports whether a status is worth another attempt: rate
// limits, request timeouts and server errors, including the non-standard
// 529 "overloaded".
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// describeStatus words a failing status: what, with a hint and the
// endpoint's own message, for whoever runs benchgate; public, the status
// alone, for anyone. body is the raw answer, for a message that is not an
// error object.
func describeStatus(status int, e *apiError, body []byte) (what, public string) {
	hint := ""
	switch status {
	case http.StatusUnauthorized:
		return "the endpoint rejected the API key (HTTP 401); check the variable named by --api-key-env", "the endpoint rejected the API key (HTTP 401)"
	case http.StatusPaymentRequired:
		public, hint = "the account has not enough credits (HTTP 402)", "; add credits or raise the key's limit"
	case http.StatusForbidden:
		public, hint = "the endpoint refused access (HTTP 403)", "; the key may not be allowed this model, or a moderation check flagged the prompt"
	case http.StatusNotFound:
		public, hint = "the endpoint or the model was not found (HTTP 404)", "; check the base URL, the model id and, on Azure, its deployment"
	case http.StatusBadRequest:
		public = "the endpoint rejected the request (HTTP 400)"
		switch {
		case e != nil && e.code() == "content_filter":
			// Azure's content filter refused the prompt
			// (https://learn.microsoft.com/azure/ai-services/openai/concepts/content-filter).
			public, hint = "the endpoint's content filter refused the prompt (HTTP 400)", ""
		case e != nil && e.Param == "temperature":
			hint = "; the model takes no temperature: leave it unset (the registry's judge temperature, or --temperature)"
		}
	case http.StatusTooManyRequests:
		public = "rate limited (HTTP 429)"
		if e != nil && (e.code() == "insufficient_quota" || e.Type == "insufficient_quota") {
			public, hint = "the account's quota is spent (HTTP 429 insufficient_quota)", "; check the plan and billing details"
		}
	default:
		public = fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	}
	msg := ""
	if e != nil {
		msg = clip(e.Message)
	} else {
		msg = clip(strings.TrimSpace(string(body)))
	}
	return public + hint + suffix(msg), public
}

// connectionFailure words a failed connection for anyone: which kind of
// failure, not where to.
func connectionFailure(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the endpoint could not be reached (connection refused)"
	case errors.As(err, &dns):
		return "the endpoint could not be reached (its host name did not resolve)"
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return "the endpoint could not be reached (no route to it)"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection to the endpoint was reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the endpoint closed the connection without an answer"
	case errors.As(err, &cert), errors.As(err, &record):
		return "the TLS connection to the endpoint failed"
	}
	return "the connection to the endpoint failed"
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

func clip(s string) string {
	const limit = 300
	if len(s) > limit {
		return safetext.Cut(s, limit) + "…"
	}
	return s
}

// apiError is an OpenAI-style error object, as OpenAI, Azure, vLLM,
// Ollama and OpenRouter send it, at the top of a failing answer or, from
// OpenRouter, inside a 200 one. Its code is a string (OpenAI's
// "insufficient_quota") or a number (OpenRouter's HTTP status).
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Param   string          `json:"param"`
	Code    json.RawMessage `json:"code"`
}

// code is the error's code as a string.
func (e *apiError) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(e.Code))
}

// status is the HTTP status a numeric code names, or 0.
func (e *apiError) status() int {
	var n float64
	if json.Unmarshal(e.Code, &n) == nil && n >= 400 && n < 600 && n == math.Trunc(n) {
		return int(n)
	}
	return 0
}

// parseAPIError reads the error object of a failing answer, or nil.
func parseAPIError(body []byte) *apiError {
	var b struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(body, &b) != nil {
		return nil
	}
	return b.Error
}

// answer is a 200 answer's body, as far as benchgate reads it.
type answer struct {
	Provider string    `json:"provider"` // OpenRouter's
	Choices  []choice  `json:"choices"`
	Usage    *usage    `json:"usage"`
	Error    *apiError `json:"error"`
}

type choice struct {
	Message struct {
		Content *string `json:"content"`
		// The reasoning beside the answer: "reasoning" from OpenRouter,
		// vLLM 0.11 and later, and Ollama; "reasoning_content" from older
		// vLLM and DeepSeek
		// (https://docs.vllm.ai/en/stable/features/reasoning_outputs/).
		Reasoning        *string `json:"reasoning"`
		ReasoningContent *string `json:"reasoning_content"`
	} `json:"message"`
	FinishReason *string   `json:"finish_reason"`
	Error        *apiError `json:"error"`
}

type usage struct {
	PromptTokens        *int            `json:"prompt_tokens"`
	CompletionTokens    *int            `json:"completion_tokens"`
	Cost                json.RawMessage `json:"cost"` // OpenRouter's, in USD
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func parseAnswer(body []byte) (*answer, error) {
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// known reports whether the usage gives both token counts.
func (u *usage) known() bool {
	return u != nil && u.PromptTokens != nil && u.CompletionTokens != nil
}

// cost is usage.cost, or nil when absent or not a non-negative number.
func (u *usage) cost() *float64 {
	if len(u.Cost) == 0 {
		return nil
	}
	var cost float64
	if json.Unmarshal(u.Cost, &cost) != nil || cost < 0 {
		return nil
	}
	return &cost
}

func (u *usage) cached() int {
	if u == nil || u.PromptTokensDetails == nil {
		return 0
	}
	return u.PromptTokensDetails.CachedTokens
}

func (u *usage) reasoning() int {
	if u == nil || u.CompletionTokensDetails == nil {
		return 0
	}
	return u.CompletionTokensDetails.ReasoningTokens
}

// response is the Response an answer gives, without cost and timing.
func (a *answer) response() Response {
	var r Response
	if len(a.Choices) > 0 {
		ch := a.Choices[0]
		if ch.Message.Content != nil {
			r.Content = *ch.Message.Content
		}
		switch {
		case ch.Message.Reasoning != nil && *ch.Message.Reasoning != "":
			r.Reasoning = *ch.Message.Reasoning
		case ch.Message.ReasoningContent != nil:
			r.Reasoning = *ch.Message.ReasoningContent
		}
		if ch.FinishReason != nil {
			r.FinishReason = *ch.FinishReason
		}
	}
	if a.Usage.known() {
		r.UsageKnown = true
		r.PromptTokens, r.CompletionTokens = *a.Usage.PromptTokens, *a.Usage.CompletionTokens
		r.CachedTokens, r.ReasoningTokens = a.Usage.cached(), a.Usage.reasoning()
	}
	r.Provider = a.Provider
	return r
}

// redact removes the API key from text that came from elsewhere (an
// endpoint's message, a transport error), in case it was echoed.
func (c *Client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[API key]")
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// backoff is the wait after failed attempt n: full jitter over an
// exponentially growing window, but never less than the endpoint asked.
func backoff(n int, retryAfter time.Duration) time.Duration {
	window := backoffCap
	if n <= 16 {
		window = min(backoffCap, backoffBase<<(n-1))
	}
	d := time.Duration(rand.Int64N(int64(window) + 1))
	return max(d, min(retryAfter, retryAfterCap))
}

// parseRetryAfter reads a Retry-After value: delay seconds (a fraction is
// accepted) or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(secs) || secs < 0 {
			return 0, false
		}
		if secs > retryAfterCap.Seconds() {
			return retryAfterCap, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), retryAfterCap), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// exchange carries one attempt's request fields in and what came back
// out, through the request's context: go-openai shows neither the headers
// nor the raw body of an answer, and cannot send a zero temperature.
type exchange struct {
	patch map[string]any

	mu         sync.Mutex
	sent       bool
	status     int
	retryAfter string
	body       []byte
}

type exchangeKey struct{}

// recorder is the HTTP transport under go-openai. It sets the exchange's
// fields in the JSON body, then records the status, Retry-After and body
// of the answer.
type recorder struct {
	base http.RoundTripper
}

func (t *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return t.base.RoundTrip(req)
	}
	if len(ex.patch) > 0 && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		if body, err = patchJSON(body, ex.patch); err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	ex.mu.Lock()
	ex.sent = true
	ex.mu.Unlock()

	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	_ = resp.Body.Close()

	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.status = resp.StatusCode
	ex.retryAfter = resp.Header.Get("Retry-After")
	if err != nil {
		return nil, err
	}
	if len(body) > maxResponseBytes {
		return nil, fmt.Errorf("the answer is larger than %d bytes", maxResponseBytes)
	}
	ex.body = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// patchJSON sets fields of a JSON object.
func patchJSON(body []byte, fields map[string]any) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("the request body is not a JSON object: %w", err)
	}
	for k, v := range fields {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		obj[k] = b
	}
	return json.Marshal(obj)
}

// ErrPermanent and ErrExhausted tell failures apart with errors.Is: a
// permanent failure (a bad request, a rejected key, an unknown model) will
// fail again however often it is tried; an exhausted one failed
// transiently on every attempt and may succeed later. An *Error that is
// neither was stopped by its context; errors.Is finds context.Canceled or
// context.DeadlineExceeded in it.
//
// ErrAccount is a failure of the account rather than of the call: a
// rejected key, no credits (402 without Retry-After), a spent quota (429
// insufficient_quota). Every further call would fail the same way, so a
// run stops on it, keeping what it has, to resume once it is fixed. It is
// not ErrPermanent: the call itself may well succeed later.
var (
	ErrPermanent = errors.New("permanent failure")
	ErrExhausted = errors.New("retries exhausted")
	ErrAccount   = errors.New("account error")
)

// Error is a failed call. Its message says what happened, with the model
// and the attempts, and never holds the API key; it may hold the
// endpoint's address and messages, which are for whoever runs benchgate.
// Public says what may be told to anyone.
type Error struct {
	Model    string
	Attempts int // attempts made
	Status   int // HTTP status of the last answer; 0 when none came back

	kind   error // ErrPermanent, ErrExhausted, ErrAccount or nil
	msg    string
	public string
	cause  error // a transport or context error
}

// Error says what happened, to which model, after how many attempts.
func (e *Error) Error() string {
	return fmt.Sprintf("llm: model %q: %s", e.Model, e.msg)
}

// Public says what happened as Error does, but names the failure only (a
// refused connection, a timeout, an HTTP status), never the endpoint's
// address or anything the endpoint or the transport said: for a pull
// request's comment, read by contributors, while Error goes to the log.
func (e *Error) Public() string {
	return fmt.Sprintf("model %q: %s", e.Model, e.public)
}

// Public returns what may be told of a failed call to anyone: the Public
// message of the *Error in err, or for any other error only that the
// call failed.
func Public(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Public()
	}
	return "the call failed"
}

// Unwrap gives ErrPermanent, ErrExhausted or ErrAccount, and the transport or context
// error behind the failure, if any.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}
