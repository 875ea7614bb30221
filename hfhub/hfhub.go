// Package hfhub is a client for the parts of the Hugging Face Hub's API a
// submission bot needs on a dataset: reading a pull request, its files at
// its head commit and what it changes, writing comments, merging, and
// committing; and it reads and authenticates the Hub's webhooks. Section
// numbers in comments refer to hf-hub.md, the Hub's API as its official
// clients and documentation describe it.
//
// Answers are parsed strictly into raw types, then validated into the
// exported ones; an answer missing a field the client relies on is an
// error naming the field, not a zero value.
package hfhub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultEndpoint is the Hub (hf-hub.md §2.1 "Base URL").
const DefaultEndpoint = "https://huggingface.co"

// Config configures a Client.
type Config struct {
	// Endpoint is the Hub's base URL; DefaultEndpoint when empty.
	Endpoint string
	// Token is sent as a bearer token to the Hub's host only.
	Token string
	// HTTP is the client used; http.DefaultClient's transport when nil.
	// Its redirect policy is replaced: the client follows redirects
	// itself so that the token never leaves the Hub's host.
	HTTP *http.Client
	// MaxAttempts bounds the tries of one call (5 when 0, as
	// huggingface_hub retries: hf-hub.md §4).
	MaxAttempts int
	// MaxFileSize refuses a file larger than this before it is
	// downloaded (hf-hub.md §2.3 "Size"); 16 MiB when 0.
	MaxFileSize int64
	// MaxPages bounds how many pages one listing may take; 100 when 0.
	MaxPages int
	// Sleep waits between attempts; a timer when nil.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client calls the Hub. It is safe for concurrent use.
type Client struct {
	base     *url.URL
	token    string
	http     *http.Client
	attempts int
	maxFile  int64
	maxPages int
	sleep    func(ctx context.Context, d time.Duration) error

	mu     sync.Mutex
	last   map[string]RateLimit
	whoami *User
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	ep := cfg.Endpoint
	if ep == "" {
		ep = DefaultEndpoint
	}
	u, err := url.Parse(strings.TrimRight(ep, "/"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("hfhub: endpoint %q: want an http(s) base URL such as %s", ep, DefaultEndpoint)
	}
	if strings.ContainsAny(cfg.Token, " \r\n\t") {
		return nil, errors.New("hfhub: the token has white space in it: check the token file")
	}
	hc := &http.Client{}
	if cfg.HTTP != nil {
		*hc = *cfg.HTTP
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &Client{base: u, token: cfg.Token, http: hc, attempts: cfg.MaxAttempts, maxFile: cfg.MaxFileSize,
		maxPages: cfg.MaxPages, sleep: cfg.Sleep, last: map[string]RateLimit{}}
	if c.attempts <= 0 {
		c.attempts = 5
	}
	if c.maxFile <= 0 {
		c.maxFile = 16 << 20
	}
	if c.maxPages <= 0 {
		c.maxPages = 100
	}
	if c.sleep == nil {
		c.sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			}
		}
	}
	return c, nil
}

// Repo is a dataset id, namespace/name.
type Repo string

var repoRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$`)

// ParseRepo checks a dataset id.
func ParseRepo(s string) (Repo, error) {
	if !repoRE.MatchString(s) || strings.Contains(s, "..") {
		return "", fmt.Errorf("hfhub: dataset %q: want namespace/name, letters, digits, '.', '_' and '-' only", s)
	}
	return Repo(s), nil
}

// escapeSegment percent-encodes s as one path segment, every byte but the
// unreserved ones, as huggingface_hub's quote(rev, safe="") does: a
// revision such as refs/pr/7 must travel as refs%2Fpr%2F7 or the Hub
// routes it as a path (hf-hub.md §2.1 "Revision in a path").
func escapeSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// escapePath encodes a file path segment by segment, keeping its slashes.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = escapeSegment(s)
	}
	return strings.Join(parts, "/")
}

// apiPath is /api/datasets/{repo}/{rest} (hf-hub.md §2.1 "API prefix").
func apiPath(r Repo, rest string) string { return "/api/datasets/" + string(r) + "/" + rest }

// LastRateLimit is the last RateLimit header seen for a bucket.
func (c *Client) LastRateLimit(bucket string) (RateLimit, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rl, ok := c.last[bucket]
	return rl, ok
}

// request is one call.
type request struct {
	method string
	target string // a path on the Hub ("/api/…") or an absolute URL on it
	body   []byte
	ctype  string
	// retryUnsafe: the call may be repeated after a 5xx or a transport
	// error. Not for commits and comments: a retried commit whose answer
	// was lost can land twice (hf-hub.md §2.5).
	retryUnsafe bool
}

// response is a successful answer, its body read.
type response struct {
	status int
	header http.Header
	body   []byte
}

const maxJSON = 32 << 20

// do sends req with the token, retrying a 429 after the window's reset
// (RateLimit's t, plus a second, as huggingface_hub does; else
// Retry-After) and, for a call that may be repeated, 408 and 5xx answers
// and transport errors with backoff (hf-hub.md §4). A 3xx answer is
// returned, not followed.
func (c *Client) do(ctx context.Context, req request, limit int64) (*response, error) {
	target := req.target
	if strings.HasPrefix(target, "/") {
		target = c.base.String() + target
	}
	op := req.method + " " + strings.TrimPrefix(target, c.base.String())
	var lastErr error
	for attempt := 1; ; attempt++ {
		hr, err := http.NewRequestWithContext(ctx, req.method, target, bytes.NewReader(req.body))
		if err != nil {
			return nil, fmt.Errorf("hfhub: %s: %w", op, err)
		}
		if hr.URL.Scheme != c.base.Scheme || hr.URL.Host != c.base.Host {
			return nil, fmt.Errorf("hfhub: %s: not on the Hub's host %s; the token is not sent elsewhere", op, c.base.Host)
		}
		if c.token != "" {
			hr.Header.Set("Authorization", "Bearer "+c.token)
		}
		if req.ctype != "" {
			hr.Header.Set("Content-Type", req.ctype)
		}
		resp, err := c.http.Do(hr)
		var wait time.Duration
		retry := false
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lastErr = fmt.Errorf("hfhub: %s: %w", op, err)
			retry = req.retryUnsafe
		} else {
			body, rerr := io.ReadAll(io.LimitReader(resp.Body, limit+1))
			resp.Body.Close()
			c.noteRateLimit(resp.Header)
			switch {
			case rerr != nil:
				lastErr = fmt.Errorf("hfhub: %s: reading the answer: %w", op, rerr)
				retry = req.retryUnsafe
			case int64(len(body)) > limit:
				return nil, malformed(op, "the answer is over %d bytes", limit)
			case resp.StatusCode < 400:
				return &response{resp.StatusCode, resp.Header, body}, nil
			default:
				e := hubError(op, resp, body)
				lastErr = e
				switch {
				case resp.StatusCode == http.StatusTooManyRequests:
					retry, wait = true, rateLimitWait(resp.Header)
				case resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500:
					retry = req.retryUnsafe
					if d, ok := retryAfter(resp.Header); ok {
						wait = d
					}
				}
			}
		}
		if !retry || attempt >= c.attempts {
			return nil, lastErr
		}
		if wait == 0 {
			// 1, 2, 4, 8 s, as huggingface_hub backs off (hf-hub.md §4).
			wait = time.Second << min(attempt-1, 3)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (c *Client) noteRateLimit(h http.Header) {
	if v := h.Get("RateLimit"); v != "" {
		if rl, err := ParseRateLimit(v); err == nil {
			c.mu.Lock()
			c.last[rl.Bucket] = rl
			c.mu.Unlock()
		}
	}
}

// rateLimitWait is how long a 429 asks to wait: the window's reset plus a
// second, else Retry-After, else 0 for the backoff.
func rateLimitWait(h http.Header) time.Duration {
	if rl, err := ParseRateLimit(h.Get("RateLimit")); err == nil {
		return rl.Reset + time.Second
	}
	d, _ := retryAfter(h)
	return d
}

func retryAfter(h http.Header) (time.Duration, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 0 || n > 3600 {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// hubError reads what the Hub said: X-Error-Code, X-Error-Message, or the
// body's {"error": "…"}, {"error": ["…"]} or {"error", "error_description"}
// (hf-hub.md §2.1 "Errors").
func hubError(op string, resp *http.Response, body []byte) *Error {
	e := &Error{Op: op, Status: resp.StatusCode, Code: resp.Header.Get("X-Error-Code"),
		Message: resp.Header.Get("X-Error-Message"), RequestID: resp.Header.Get("X-Request-Id")}
	if e.Message == "" {
		var b struct {
			Error       json.RawMessage `json:"error"`
			Description string          `json:"error_description"`
		}
		if json.Unmarshal(body, &b) == nil {
			var s string
			var list []string
			switch {
			case json.Unmarshal(b.Error, &s) == nil:
				e.Message = s
			case json.Unmarshal(b.Error, &list) == nil:
				e.Message = strings.Join(list, "; ")
			}
			if b.Description != "" {
				e.Message = strings.TrimSpace(e.Message + ": " + b.Description)
			}
		}
	}
	if len(e.Message) > 500 {
		e.Message = e.Message[:500] + "…"
	}
	e.kinds = classify(e.Status, e.Code, e.Message)
	return e
}

// getJSON GETs a JSON answer into v, strictly.
func (c *Client) getJSON(ctx context.Context, target string, v any) (*response, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, target: target, retryUnsafe: true}, maxJSON)
	if err != nil {
		return nil, err
	}
	if resp.status != http.StatusOK {
		return nil, malformed("GET "+target, "status %d, want 200", resp.status)
	}
	if err := decodeStrict(resp.body, v); err != nil {
		return nil, malformed("GET "+target, "%v", err)
	}
	return resp, nil
}

// decodeStrict decodes one JSON value and nothing after it. Unknown fields
// are allowed: the Hub adds fields, and what the client relies on is
// checked field by field when the raw value is validated.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	// More is false before a stray ']' or '}': only the end of the input
	// ends the value.
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// postJSON POSTs body as JSON and decodes the answer into out (when not nil).
func (c *Client) postJSON(ctx context.Context, target string, body, out any) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return err
		}
	}
	resp, err := c.do(ctx, request{method: http.MethodPost, target: target, body: data, ctype: "application/json"}, maxJSON)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := decodeStrict(resp.body, out); err != nil {
		return malformed("POST "+target, "%v", err)
	}
	return nil
}

// pages GETs a listing paged through Link rel="next" (hf-hub.md §2.1
// "Pagination"), calling each with every page's body. A next page on
// another host is refused: the token goes to the Hub only.
func (c *Client) pages(ctx context.Context, first string, each func(body []byte) error) error {
	target := first
	for n := 0; target != ""; n++ {
		if n >= c.maxPages {
			return fmt.Errorf("hfhub: GET %s: more than %d pages", first, c.maxPages)
		}
		resp, err := c.do(ctx, request{method: http.MethodGet, target: target, retryUnsafe: true}, maxJSON)
		if err != nil {
			return err
		}
		if err := each(resp.body); err != nil {
			return err
		}
		next, err := ParseLink(resp.header.Get("Link"))
		if err != nil {
			return malformed("GET "+target, "%v", err)
		}
		if next != "" {
			u, err := c.base.Parse(next)
			if err != nil || u.Scheme != c.base.Scheme || u.Host != c.base.Host {
				return malformed("GET "+target, "the next page %q is not on the Hub's host", clip(next))
			}
			next = u.String()
		}
		target = next
	}
	return nil
}

// User is a Hub account as whoami-v2 names it (hf-hub.md §2.6).
type User struct {
	ID   string
	Name string
}

// Whoami is the token's user, asked once and then remembered: the Hub
// limits whoami-v2 heavily, and webhook payloads name authors by id only,
// so the bot needs its own id to skip its own comments (hf-hub.md §2.6).
func (c *Client) Whoami(ctx context.Context) (User, error) {
	c.mu.Lock()
	if c.whoami != nil {
		u := *c.whoami
		c.mu.Unlock()
		return u, nil
	}
	c.mu.Unlock()
	var raw struct {
		Type *string `json:"type"`
		ID   *string `json:"id"`
		Name *string `json:"name"`
	}
	if _, err := c.getJSON(ctx, "/api/whoami-v2", &raw); err != nil {
		return User{}, err
	}
	if raw.ID == nil || raw.Name == nil || *raw.ID == "" || *raw.Name == "" {
		return User{}, malformed("GET /api/whoami-v2", "no id or name")
	}
	u := User{ID: *raw.ID, Name: *raw.Name}
	c.mu.Lock()
	c.whoami = &u
	c.mu.Unlock()
	return u, nil
}
