package llm

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	defaultTimeout     = 120 * time.Second
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
	// whole answer. 0 means 120 s.
	Timeout time.Duration

	// MaxAttempts is how many times a call is tried before giving up on a
	// transient failure. 0 means 5.
	MaxAttempts int

	// RPS caps the requests sent per second by all goroutines using the
	// client, retries included. 0 means no cap.
	RPS float64

	// Ledger receives one JSON line (a LedgerEntry) per answered call.
	// Nil writes none.
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
}

// String describes the configuration without the API key, so that
// printing a Config cannot leak it.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("llm.Config{BaseURL: %q, APIKey: %s, Timeout: %v, MaxAttempts: %d, RPS: %g, RunID: %q, AzureAPIVersion: %q}",
		c.BaseURL, key, c.Timeout, c.MaxAttempts, c.RPS, c.RunID, c.AzureAPIVersion)
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
	ledger      *ledger
	runID       string
	priceIn     *float64
	priceOut    *float64
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
		oc.AzureModelMapperFunc = func(model string) string { return model }
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
// 408, 5xx, timeouts and broken connections) with exponential backoff and
// full jitter, never sooner than the endpoint's Retry-After. A failure is
// an *Error.
//
// Temperature is always sent, 0 included; TopP when positive; Seed when
// set. MaxTokens is sent as max_tokens, except for the models go-openai
// knows to take only max_completion_tokens (OpenAI's o-series and GPT-5
// and later ids), which get that instead.
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	creq, patch, err := chatRequest(req)
	if err != nil {
		return Response{}, &Error{Model: req.Model, kind: ErrPermanent, msg: err.Error(), public: err.Error()}
	}
	var last *attempt
	for n := 1; ; n++ {
		if err := c.limit.wait(ctx); err != nil {
			return Response{}, c.stopped(req.Model, n-1, last, err)
		}
		a := c.try(ctx, creq, patch)
		a.n = n
		if a.err == nil {
			return c.answered(req, a), nil
		}
		if a.cancelled {
			return Response{}, c.stopped(req.Model, n, last, context.Cause(ctx))
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

// answered turns a successful attempt into a Response and ledger line.
func (c *Client) answered(req Request, a *attempt) Response {
	choice := a.resp.Choices[0]
	r := Response{
		Content:          choice.Message.Content,
		FinishReason:     string(choice.FinishReason),
		PromptTokens:     a.resp.Usage.PromptTokens,
		CompletionTokens: a.resp.Usage.CompletionTokens,
		CostUSD:          reportedCost(a.body),
		Latency:          a.latency,
		Attempts:         a.n,
	}
	if r.CostUSD == nil && c.priceIn != nil && c.priceOut != nil {
		cost := (float64(r.PromptTokens)**c.priceIn + float64(r.CompletionTokens)**c.priceOut) / 1e6
		r.CostUSD = &cost
	}
	c.ledger.write(LedgerEntry{
		Time:             a.end.UTC().Format(time.RFC3339),
		RunID:            c.runID,
		Kind:             req.Kind,
		QuestionID:       req.QuestionID,
		Model:            req.Model,
		PromptTokens:     r.PromptTokens,
		CompletionTokens: r.CompletionTokens,
		CostUSD:          r.CostUSD,
		LatencyMS:        r.Latency.Milliseconds(),
		Attempts:         r.Attempts,
	})
	return r
}

// chatRequest builds go-openai's request, and the body fields the
// transport must set because go-openai's omitempty tags would drop them
// when zero.
func chatRequest(req Request) (openai.ChatCompletionRequest, map[string]any, error) {
	var creq openai.ChatCompletionRequest
	if req.Model == "" {
		return creq, nil, errors.New("no model given")
	}
	if len(req.Messages) == 0 {
		return creq, nil, errors.New("no messages given")
	}
	if math.IsNaN(req.Temperature) || math.IsInf(req.Temperature, 0) || req.Temperature < 0 {
		return creq, nil, fmt.Errorf("temperature %v is not a non-negative number", req.Temperature)
	}
	if math.IsNaN(req.TopP) || math.IsInf(req.TopP, 0) || req.TopP < 0 {
		return creq, nil, fmt.Errorf("top_p %v is not a non-negative number", req.TopP)
	}
	if req.MaxTokens < 0 {
		return creq, nil, fmt.Errorf("max tokens %d is negative", req.MaxTokens)
	}
	creq = openai.ChatCompletionRequest{
		Model:       req.Model,
		Messages:    make([]openai.ChatCompletionMessage, len(req.Messages)),
		Temperature: float32(req.Temperature),
		TopP:        float32(req.TopP),
		Seed:        req.Seed,
	}
	for i, m := range req.Messages {
		creq.Messages[i] = openai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	if req.JSON {
		creq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	// The float64 values, not go-openai's float32 copies, so that 0.7 is
	// sent as 0.7.
	patch := map[string]any{"temperature": req.Temperature}
	if req.TopP > 0 {
		patch["top_p"] = req.TopP
	}
	if req.MaxTokens > 0 {
		if reasoningModel(req.Model) {
			creq.MaxCompletionTokens = req.MaxTokens
		} else {
			// go-openai's own max_tokens field is deprecated.
			patch["max_tokens"] = req.MaxTokens
		}
	}
	return creq, patch, nil
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
	resp    openai.ChatCompletionResponse
	body    []byte
	latency time.Duration
	end     time.Time

	err        error         // nil on success
	what       string        // what went wrong, worded for a person, without the key
	public     string        // what went wrong, for anyone: no address, no text from the endpoint or the transport
	status     int           // the HTTP status; 0 when none came back
	retryAfter time.Duration // from the Retry-After header; 0 when absent
	permanent  bool          // retrying cannot help
	cancelled  bool          // the caller's ctx is done
	cause      error         // the transport or context error, for errors.Is
}

func (c *Client) try(ctx context.Context, creq openai.ChatCompletionRequest, patch map[string]any) *attempt {
	ex := &exchange{patch: patch}
	actx, cancel := context.WithTimeout(context.WithValue(ctx, exchangeKey{}, ex), c.timeout)
	defer cancel()
	start := time.Now()
	resp, err := c.api.CreateChatCompletion(actx, creq)
	end := time.Now()

	ex.mu.Lock()
	defer ex.mu.Unlock()
	a := &attempt{resp: resp, body: ex.body, latency: end.Sub(start), end: end, status: ex.status, err: err}
	if ex.status != 0 {
		if d, ok := parseRetryAfter(ex.retryAfter, end); ok {
			a.retryAfter = d
		}
	}
	switch {
	case ctx.Err() != nil:
		a.err, a.cancelled, a.cause = ctx.Err(), true, context.Cause(ctx)
		a.what = "the call was cancelled"
		a.public = a.what
	case err == nil && len(resp.Choices) == 0:
		// OpenRouter reports an upstream failure as a 200 whose body is an
		// error object; treat it as the status it names.
		a.status, a.what, a.public = upstreamError(ex.body)
		a.err = errors.New(a.what)
		a.permanent = a.status != 0 && !retryable(a.status)
		a.what = c.redact(a.what)
	case err == nil:
	case ex.status >= 300:
		a.what, a.public = describeStatus(ex.status, ex.body)
		a.what = c.redact(a.what)
		a.permanent = !retryable(ex.status)
	case !ex.sent:
		// go-openai refused the request before sending it, for instance a
		// parameter its model table says the model does not take.
		a.what = c.redact("the request was not sent: " + err.Error())
		a.public = "the request was not sent"
		a.permanent = true
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		a.what = fmt.Sprintf("no complete answer within the %v timeout", c.timeout)
		a.public = a.what
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

// retryable reports whether a status is worth another attempt: rate
// limits, request timeouts and server errors, including the non-standard
// 529 "overloaded".
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// describeStatus words an answer's failing status: what, with a hint and
// the endpoint's own message, for whoever runs benchgate; public, the
// status alone, for anyone.
func describeStatus(status int, body []byte) (what, public string) {
	hint := ""
	switch status {
	case http.StatusUnauthorized:
		return "the endpoint rejected the API key (HTTP 401); check the variable named by --api-key-env", "the endpoint rejected the API key (HTTP 401)"
	case http.StatusForbidden:
		public, hint = "the endpoint refused access (HTTP 403)", "; the key may not be allowed this model"
	case http.StatusNotFound:
		public, hint = "the endpoint or the model was not found (HTTP 404)", "; check the base URL and the model id"
	case http.StatusBadRequest:
		public = "the endpoint rejected the request (HTTP 400)"
	case http.StatusTooManyRequests:
		public = "rate limited (HTTP 429)"
	default:
		public = fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	}
	return public + hint + suffix(endpointMessage(body)), public
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

// endpointMessage is the message of an OpenAI-style error body, or the
// start of any other body.
func endpointMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return clip(e.Error.Message)
	}
	return clip(strings.TrimSpace(string(body)))
}

func clip(s string) string {
	const limit = 300
	if len(s) > limit {
		return safetext.Cut(s, limit) + "…"
	}
	return s
}

// upstreamError reads a 200 answer without choices; public leaves out the
// endpoint's message.
func upstreamError(body []byte) (status int, what, public string) {
	var e struct {
		Error *struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != nil {
		if code, ok := e.Error.Code.(float64); ok && code >= 400 && code < 600 {
			status = int(code)
			what, public := describeStatus(status, body)
			return status, "the endpoint reported an upstream " + what, "the endpoint reported an upstream " + public
		}
		return 0, "the endpoint reported an error" + suffix(clip(e.Error.Message)), "the endpoint reported an error"
	}
	return 0, "the endpoint answered without any choices", "the endpoint answered without any choices"
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

// reportedCost is usage.cost from an answer's body, as OpenRouter gives
// it, or nil.
func reportedCost(body []byte) *float64 {
	var b struct {
		Usage struct {
			Cost json.RawMessage `json:"cost"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &b) != nil || len(b.Usage.Cost) == 0 {
		return nil
	}
	var cost float64
	if json.Unmarshal(b.Usage.Cost, &cost) != nil || cost < 0 {
		return nil
	}
	return &cost
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
var (
	ErrPermanent = errors.New("permanent failure")
	ErrExhausted = errors.New("retries exhausted")
)

// Error is a failed call. Its message says what happened, with the model
// and the attempts, and never holds the API key; it may hold the
// endpoint's address and messages, which are for whoever runs benchgate.
// Public says what may be told to anyone.
type Error struct {
	Model    string
	Attempts int // attempts made
	Status   int // HTTP status of the last answer; 0 when none came back

	kind   error // ErrPermanent, ErrExhausted or nil
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

// Unwrap gives ErrPermanent or ErrExhausted, and the transport or context
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
