// Package fakeopenai is an in-process stand-in for an OpenAI-compatible
// chat completions endpoint, for tests and load measurements that must not
// leave the machine.
//
// It models the part of the documented API that benchgate uses:
//
//   - POST to any path ending in /chat/completions (the URL is
//     http://127.0.0.1:PORT/v1, so the usual path is /v1/chat/completions;
//     an Azure-style /openai/deployments/NAME/chat/completions is accepted
//     too, and its query string is recorded);
//   - authentication by "Authorization: Bearer KEY" (or Azure's "api-key"
//     header), answered with 401 and an OpenAI-style error object when the
//     key is wrong;
//   - a JSON body with model, messages (string content, or an array of text
//     parts), temperature, top_p, seed, max_tokens, max_completion_tokens
//     and response_format; malformed JSON, a missing model, no messages, or
//     a temperature or top_p out of range are answered with 400;
//   - the non-streaming response object: id, object "chat.completion",
//     created, model, choices[{index, message{role, content}, logprobs,
//     finish_reason}] and usage{prompt_tokens, completion_tokens,
//     total_tokens, prompt_tokens_details, completion_tokens_details},
//     with OpenRouter's usage.cost when the reply gives one;
//   - errors as {"error": {"message", "type", "param", "code"}}, and 429
//     with a Retry-After header in seconds when a rate limit is exceeded,
//     or without one when a limit on concurrent calls is (MaxConcurrent).
//
// Where providers differ from OpenAI (where the reasoning text is, the
// token breakdown, errors inside a 200, content filters, billing errors,
// parameters a model refuses), Options.Variant answers as one documented
// provider does; see Variant.
//
// Streaming is modelled only as a server that streams every answer
// (OpenRouterStream); tools, n > 1, logprobs and every other endpoint are
// not. Replies, latency and failures are scripted by Options;
// GullibleJudge scripts a grading judge that obeys the answers it grades.
package fakeopenai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options script a Server. The zero value answers every request with "OK".
type Options struct {
	// Key is the API key a request must carry. Empty accepts any request,
	// as local servers such as Ollama do.
	Key string

	// Latency is how long the server takes before a successful reply.
	// Failures are answered at once (a hang waits for the client).
	Latency time.Duration

	// Reply decides the reply from the parsed request. Nil answers "OK",
	// with token counts estimated from the words of the messages.
	Reply func(req Request) Reply

	// Fail, when it returns non-nil for a call, answers that call with the
	// failure instead of a reply. Calls are numbered from 1 in the order
	// the server reads them; it is consulted after the key, the body and
	// the rate limit have been checked. FailFirst builds a common one.
	Fail func(call int, req Request) *Failure

	// RateLimit, when positive, is the number of requests a second the
	// server accepts: a token bucket refilled at this rate, holding at most
	// RateBurst tokens, that each accepted request takes one token from.
	// A request that finds no token gets 429 with Retry-After.
	RateLimit float64

	// RateBurst is the bucket's capacity; 0 means 2. A burst of 2 absorbs
	// the few milliseconds of scheduling jitter between a client sending
	// and this server reading, as real providers' limits do, while the
	// long-run rate stays capped at RateLimit.
	RateBurst int

	// Variant answers as one provider documents it; the zero value is
	// OpenAI's shape. See Variant.
	Variant Variant

	// VariantCalls is how many calls, from the first, a failure variant
	// answers with its failure; 0 means every call.
	VariantCalls int

	// MaxConcurrent, when positive, is how many calls the server works on
	// at once: a call that arrives while that many are being answered gets
	// 429 at once, without Retry-After, as inference services with a
	// concurrency limit answer ("Concurrency limit reached for requests",
	// https://docs.wandb.ai/support/inference/articles/api-error-code-429-concurrency-limit-rea).
	// A call holds its place from the rate-limit check to its reply.
	MaxConcurrent int
}

// Reply is what the server answers a successful call with.
type Reply struct {
	Content          string
	FinishReason     string // "stop" when empty
	PromptTokens     int
	CompletionTokens int
	Cost             *float64 // usage.cost in USD, as OpenRouter reports it; omitted when nil
	Reasoning        string   // the reasoning text, placed as the Variant's provider places it
	CachedTokens     int      // usage.prompt_tokens_details.cached_tokens, in the variants that report it
	ReasoningTokens  int      // usage.completion_tokens_details.reasoning_tokens, likewise
	Provider         string   // OpenRouter's provider field; "OpenAI" when empty
	// Model is the model that served the call, the answer's model; the
	// one asked for when empty. OpenAI answers an alias with the dated
	// snapshot it points to, such as gpt-4o-2024-08-06
	// (https://platform.openai.com/docs/models); Azure with the model of
	// the deployment, not its name
	// (https://learn.microsoft.com/azure/ai-foundry/openai/reference).
	Model string
	// Refusal is the refusal of the OpenAIRefusal variant.
	Refusal string
}

// Failure is an injected failure. Hang and CloseConn take precedence over
// Status.
type Failure struct {
	Status     int    // HTTP status to answer with, such as 429, 500 or 503
	RetryAfter string // the Retry-After header, when not empty
	Body       string // the raw body; empty gives an OpenAI-style error object
	Hang       bool   // never answer: wait until the client gives up
	CloseConn  bool   // close the connection without answering
}

// FailFirst returns a Fail function that answers the first n calls with f
// and lets the others through.
func FailFirst(n int, f Failure) func(call int, req Request) *Failure {
	return func(call int, _ Request) *Failure {
		if call <= n {
			return &f
		}
		return nil
	}
}

// Message is one parsed chat message.
type Message struct {
	Role    string
	Content string // text parts are joined with newlines
}

// Request is one call as the server received it. The optional parameters
// are nil when the body did not carry them, so that tests can tell "sent as
// 0" from "not sent".
type Request struct {
	Call   int    // 1 for the first call the server read
	Status int    // the status answered; 0 for a hang or a closed connection
	Path   string // the URL path, such as /v1/chat/completions
	Query  string // the raw query, such as api-version=2024-06-01 for Azure

	Model               string
	Messages            []Message
	Temperature         *float64
	TopP                *float64
	Seed                *int64
	MaxTokens           *int
	MaxCompletionTokens *int
	ResponseFormat      string // response_format.type; "" when absent

	Raw []byte // the body exactly as received
}

// Server is a running fake endpoint.
type Server struct {
	// URL is the base URL to give a client, ending in /v1.
	URL string

	opts    Options
	srv     *http.Server
	closing chan struct{}
	once    sync.Once
	served  chan struct{}

	mu       sync.Mutex
	requests []*Request
	status   map[int]int
	tokens   float64
	refilled time.Time
	working  int // calls holding a place under MaxConcurrent
}

// New starts a server for a test and closes it when the test ends. It fails
// the test if the server cannot start.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := NewServer(opts)
	if err != nil {
		t.Fatalf("fakeopenai: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a server on 127.0.0.1 on a free port. Call Close when
// done.
func NewServer(opts Options) (*Server, error) {
	if opts.RateLimit < 0 || math.IsNaN(opts.RateLimit) || math.IsInf(opts.RateLimit, 0) {
		return nil, fmt.Errorf("rate limit %v is not a finite number of requests a second", opts.RateLimit)
	}
	if opts.RateBurst < 0 {
		return nil, fmt.Errorf("rate burst %d is negative", opts.RateBurst)
	}
	if !opts.Variant.valid() {
		return nil, fmt.Errorf("unknown variant %q", opts.Variant)
	}
	if opts.VariantCalls < 0 {
		return nil, fmt.Errorf("variant calls %d is negative", opts.VariantCalls)
	}
	if opts.MaxConcurrent < 0 {
		return nil, fmt.Errorf("max concurrent %d is negative", opts.MaxConcurrent)
	}
	if opts.RateBurst == 0 {
		opts.RateBurst = 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	s := &Server{
		URL:      "http://" + ln.Addr().String() + "/v1",
		opts:     opts,
		closing:  make(chan struct{}),
		served:   make(chan struct{}),
		status:   map[int]int{},
		tokens:   float64(opts.RateBurst),
		refilled: time.Now(),
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// Close stops the server, ending hung requests and open connections.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		_ = s.srv.Close()
		<-s.served
	})
}

// Requests returns copies of the calls received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
	}
	return out
}

// Stats returns how many chat completion calls the server received and
// how many it answered with each status (0 counts hangs and closed
// connections).
func (s *Server) Stats() (calls int, status map[int]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	status = make(map[int]int, len(s.status))
	for k, v := range s.status {
		status[k] = v
	}
	return len(s.requests), status
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url",
			fmt.Sprintf("Unknown request URL: %s %s.", r.Method, r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed",
			fmt.Sprintf("%s is not allowed on %s; use POST.", r.Method, r.URL.Path))
		return
	}
	raw, readErr := io.ReadAll(io.LimitReader(r.Body, 32<<20))

	req := &Request{Path: r.URL.Path, Query: r.URL.RawQuery, Raw: raw}
	invalid := ""
	if readErr != nil {
		invalid = "Could not read the request body: " + readErr.Error()
	} else {
		invalid = parse(req)
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	req.Call = len(s.requests)
	snapshot := *req
	s.mu.Unlock()
	// OpenAI names every request in x-request-id
	// (https://platform.openai.com/docs/api-reference/debugging-requests).
	w.Header().Set("x-request-id", fmt.Sprintf("req_fake%06d", snapshot.Call))

	status := s.respond(w, r, snapshot, invalid)

	s.mu.Lock()
	req.Status = status
	s.status[status]++
	s.mu.Unlock()
}

// respond answers one call and returns the status it answered with.
// invalid says what is wrong with the body, or is "".
func (s *Server) respond(w http.ResponseWriter, r *http.Request, req Request, invalid string) int {
	if !s.authorized(r) {
		return writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
			"Incorrect API key provided. You can find your API key in your account settings.")
	}
	if invalid != "" {
		return writeError(w, http.StatusBadRequest, "invalid_request_error", nil, invalid)
	}
	if wait, ok := s.take(); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(wait))
		return writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded",
			fmt.Sprintf("Rate limit reached for requests: limit %g per second. Please try again in %ds.", s.opts.RateLimit, wait))
	}
	leave, ok := s.enter()
	if !ok {
		return writeError(w, http.StatusTooManyRequests, "requests", "concurrency_limit_exceeded",
			fmt.Sprintf("Concurrency limit reached for requests: at most %d at once.", s.opts.MaxConcurrent))
	}
	defer leave()
	if status, ok := s.variantFailure(w, req); ok {
		return status
	}
	if s.opts.Fail != nil {
		if f := s.opts.Fail(req.Call, req); f != nil {
			return s.fail(w, r, f)
		}
	}
	if s.opts.Latency > 0 {
		t := time.NewTimer(s.opts.Latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return 0
		case <-s.closing:
			return 0
		}
	}
	reply := defaultReply(req)
	if s.opts.Reply != nil {
		reply = s.opts.Reply(req)
	}
	// The place is free before the client can read the reply and send
	// its next call, which must not find it still taken.
	leave()
	body := s.replyBody(req, reply)
	if s.opts.Variant == OpenRouterStream {
		return writeStream(w, body)
	}
	return writeJSON(w, http.StatusOK, body)
}

func (s *Server) authorized(r *http.Request) bool {
	if s.opts.Key == "" {
		return true
	}
	if r.Header.Get("Authorization") == "Bearer "+s.opts.Key {
		return true
	}
	return r.Header.Get("api-key") == s.opts.Key
}

// take takes a token from the rate-limit bucket. When there is none it
// returns how many whole seconds until there will be one.
func (s *Server) take() (retryAfter int, ok bool) {
	if s.opts.RateLimit <= 0 {
		return 0, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	burst := float64(s.opts.RateBurst)
	s.tokens = math.Min(burst, s.tokens+now.Sub(s.refilled).Seconds()*s.opts.RateLimit)
	s.refilled = now
	if s.tokens >= 1 {
		s.tokens--
		return 0, true
	}
	return max(1, int(math.Ceil((1-s.tokens)/s.opts.RateLimit))), false
}

// enter takes a place among the calls being answered, if MaxConcurrent
// leaves one, and returns the function that frees it, which may be
// called more than once.
func (s *Server) enter() (leave func(), ok bool) {
	if s.opts.MaxConcurrent <= 0 {
		return func() {}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.working >= s.opts.MaxConcurrent {
		return nil, false
	}
	s.working++
	return sync.OnceFunc(func() {
		s.mu.Lock()
		s.working--
		s.mu.Unlock()
	}), true
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, f *Failure) int {
	switch {
	case f.Hang:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return 0
	case f.CloseConn:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return 0
			}
		}
		// Without hijacking, the nearest thing is to abort the handler,
		// which makes the server drop the connection.
		panic(http.ErrAbortHandler)
	}
	status := f.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, f.Body)
		return status
	}
	typ, code := "server_error", any(nil)
	switch {
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status < 500:
		typ = "invalid_request_error"
	}
	return writeError(w, status, typ, code, fmt.Sprintf("Injected failure: %s.", http.StatusText(status)))
}

// parse fills req from its raw body and returns what is wrong with it, or
// "" when it is a valid chat completion request.
func parse(req *Request) string {
	var body struct {
		Model               *string           `json:"model"`
		Messages            []json.RawMessage `json:"messages"`
		Temperature         *float64          `json:"temperature"`
		TopP                *float64          `json:"top_p"`
		Seed                *int64            `json:"seed"`
		MaxTokens           *int              `json:"max_tokens"`
		MaxCompletionTokens *int              `json:"max_completion_tokens"`
		ResponseFormat      *struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	dec := json.NewDecoder(bytes.NewReader(req.Raw))
	if err := dec.Decode(&body); err != nil {
		return "We could not parse the JSON body of your request: " + err.Error()
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "We could not parse the JSON body of your request: data after the JSON object."
	}
	if body.Model != nil {
		req.Model = *body.Model
	}
	req.Temperature, req.TopP, req.Seed = body.Temperature, body.TopP, body.Seed
	req.MaxTokens, req.MaxCompletionTokens = body.MaxTokens, body.MaxCompletionTokens
	if body.ResponseFormat != nil {
		req.ResponseFormat = body.ResponseFormat.Type
	}
	for i, raw := range body.Messages {
		m, err := parseMessage(raw)
		if err != nil {
			return fmt.Sprintf("Invalid value for 'messages[%d]': %v.", i, err)
		}
		req.Messages = append(req.Messages, m)
	}
	switch {
	case req.Model == "":
		return "You must provide a model parameter."
	case len(req.Messages) == 0:
		return "'messages' must contain at least one message."
	case req.Temperature != nil && (*req.Temperature < 0 || *req.Temperature > 2):
		return fmt.Sprintf("Invalid 'temperature': %g; it must be between 0 and 2.", *req.Temperature)
	case req.TopP != nil && (*req.TopP < 0 || *req.TopP > 1):
		return fmt.Sprintf("Invalid 'top_p': %g; it must be between 0 and 1.", *req.TopP)
	}
	return ""
}

func parseMessage(raw json.RawMessage) (Message, error) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return Message{}, err
	}
	if m.Role == "" {
		return Message{}, errors.New("a message needs a role")
	}
	var text string
	if err := json.Unmarshal(m.Content, &text); err == nil {
		return Message{Role: m.Role, Content: text}, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return Message{}, errors.New("content must be a string or an array of parts")
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return Message{Role: m.Role, Content: strings.Join(texts, "\n")}, nil
}

func defaultReply(req Request) Reply {
	return Reply{Content: "OK", PromptTokens: promptWords(req), CompletionTokens: 1}
}

// promptWords is a rough count of a request's prompt tokens, about what a
// tokenizer gives for English words, plus the few tokens each message
// costs in the chat format.
func promptWords(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(strings.Fields(m.Content)) + 4
	}
	return n
}

// writeError writes an error object shaped like OpenAI's. code is a string
// or nil.
func writeError(w http.ResponseWriter, status int, typ string, code any, msg string) int {
	type apiError struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    any     `json:"code"`
	}
	return writeJSON(w, status, struct {
		Error apiError `json:"error"`
	}{apiError{Message: msg, Type: typ, Code: code}})
}

func writeJSON(w http.ResponseWriter, status int, v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value written here is built from plain types.
		panic(fmt.Sprintf("fakeopenai: encoding a response: %v", err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
	return status
}
