// Package fakegithub is an in-process stand-in for the subset of GitHub's
// REST API that benchgate's GitHub App uses, for end-to-end tests.
//
// It follows GitHub's documented paths, methods, JSON field names and status
// codes closely enough that an unmodified go-github client (with
// ghinstallation for App authentication) can talk to it: the App
// authenticates with an RS256 JWT, exchanges it for an installation token,
// and then every other call must carry that token. Rate-limit headers,
// primary and secondary rate-limit refusals and gateway errors can be
// provoked so that retry and back-off paths get exercised too.
//
// Successful GET answers carry an ETag, and a conditional request whose
// If-None-Match names it is answered 304 Not Modified without being charged
// to the rate limit, as on GitHub.
//
// All state lives in memory behind one mutex; requests are served one at a
// time, which keeps the fake simple and its behaviour deterministic. Only
// the latency set with SetLatency is waited out without the lock, so that
// concurrent requests overlap as they do on GitHub.
package fakegithub

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"maps"
	mathrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Documentation URLs echo GitHub's error bodies; go-github recognises a
// secondary rate limit by the suffix of documentation_url, so that one
// must end in "secondary-rate-limits".
const (
	docRateLimit          = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
	docSecondaryRateLimit = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	docAppAuth            = "https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app"
	docAuth               = "https://docs.github.com/rest"
	docNotFound           = "https://docs.github.com/rest"
)

// DefaultAppSlug is the App's slug unless a test sets another.
const DefaultAppSlug = "geo-leaderboard-checks"

// DefaultRateLimit is the hourly request budget of a fresh installation
// token (GitHub's floor for installations on github.com).
const DefaultRateLimit = 5000

// Server is a running fake GitHub API.
type Server struct {
	// URL is the API base URL with a trailing slash, as go-github's
	// BaseURL requires, e.g. "http://127.0.0.1:41234/".
	URL string

	// AppSlug names the App, as GET /app answers; its comments are
	// authored by AppSlug+"[bot]". App slugs are globally unique, so the
	// default is not "benchgate": an App that assumed its own name instead
	// of asking would not find its comments here either. Set it before the
	// first request to name another.
	AppSlug string

	// PrivateMode answers every request without credentials with 401, as
	// GitHub Enterprise Server does in private mode, public endpoints
	// (GET /users/...) included. Set it before the first request.
	PrivateMode bool

	// TruncateTrees makes every recursive tree listing come back with
	// "truncated": true and only part of its entries, as GitHub answers
	// for trees over 100,000 entries or 7 MB.
	TruncateTrees bool

	appID int64
	key   *rsa.PublicKey
	ts    *httptest.Server
	mux   *http.ServeMux

	mu       sync.Mutex
	now      func() time.Time
	repos    map[string]*repo // key: lower-cased "owner/name"
	tokens   map[string]token
	issued   int
	nextID   int64
	requests []RequestLog
	reqCount int
	events   []CommentEvent

	tokenLife time.Duration // 0: an hour, as GitHub's

	rateLimit int
	remaining int
	reset     time.Time

	inject   func(r *http.Request, n int) *Fault
	failNext []Fault

	latencyMin, latencyMax time.Duration
	rng                    *mathrand.Rand // draws latencies; fixed seed

	installations map[int64][]string // installation id → lower-cased repositories

	manifestCodes map[string]manifestCode // App-manifest codes not yet converted

	suiteUpdated map[int64]time.Time // check suite id → its updated_at, once re-requested
}

type token struct {
	installation int64
	expires      time.Time
}

// RequestLog is one served request, in arrival order.
type RequestLog struct {
	Method string
	Path   string
	Query  string
	Status int // 304 for a conditional request answered Not Modified
	// IfNoneMatch is the request's If-None-Match, so that tests can tell
	// which requests were conditional.
	IfNoneMatch string
}

// Fault is an injected failure. Status is the HTTP status to answer with;
// the other fields shape the answer like GitHub's:
//
//   - Status 403 or 429 with RetryAfter set: a secondary rate limit, with a
//     Retry-After header and GitHub's secondary-limit message.
//   - Status 403 or 429 with RateLimitReset set: the primary limit is
//     exhausted, X-RateLimit-Remaining is 0 and X-RateLimit-Reset is
//     RateLimitReset (the stored budget is left alone).
//   - Status 403 or 429 with Secondary set and neither of the above: a
//     secondary rate limit that names no time (no Retry-After, requests
//     still remaining), which GitHub documents as "wait at least one
//     minute", then exponentially longer while it holds.
//   - Anything else (e.g. 502): a bare error with Message, or the status text.
type Fault struct {
	Status         int
	RetryAfter     string
	RateLimitReset time.Time
	Secondary      bool
	Message        string
}

// New starts a fake for the App appID whose JWTs verify with key, and closes
// it when the test ends.
func New(t testing.TB, appID int64, key *rsa.PublicKey) *Server {
	t.Helper()
	s, err := NewServer(appID, key)
	if err != nil {
		t.Fatalf("fakegithub: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a fake outside a test; call Close when done.
func NewServer(appID int64, key *rsa.PublicKey) (*Server, error) {
	if key == nil {
		return nil, fmt.Errorf("nil App public key")
	}
	s := &Server{
		AppSlug:   DefaultAppSlug,
		appID:     appID,
		key:       key,
		now:       time.Now,
		repos:     map[string]*repo{},
		tokens:    map[string]token{},
		nextID:    1000,
		rateLimit: DefaultRateLimit,
		remaining: DefaultRateLimit,
		rng:       mathrand.New(mathrand.NewPCG(1, 2)),
	}
	s.reset = s.now().Add(time.Hour)
	s.mux = http.NewServeMux()
	s.routes()
	s.ts = httptest.NewServer(s)
	s.URL = s.ts.URL + "/"
	return s, nil
}

// Close shuts the server down.
func (s *Server) Close() { s.ts.Close() }

// Client returns an HTTP client suited to the server (no proxy, fresh pool).
func (s *Server) Client() *http.Client { return s.ts.Client() }

// TokensIssued counts installation tokens handed out, so tests can check
// that the App caches its token instead of minting one per call.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issued
}

// Requests returns every request served so far.
func (s *Server) Requests() []RequestLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RequestLog(nil), s.requests...)
}

// Inject installs a hook consulted before every request is served; n is the
// 1-based number of the request since the server started. Returning nil (or
// a Fault with Status 0) lets the request through. Passing nil removes the
// hook. The hook runs without the server's lock held, so it may call the
// Server's methods.
func (s *Server) Inject(f func(r *http.Request, n int) *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inject = f
}

// FailNext makes the next n requests fail with status (see Fault for how
// 403/429 are shaped: here they come out as a secondary rate limit with
// Retry-After: 1 so that clients can recover quickly).
func (s *Server) FailNext(n int, status int) {
	f := Fault{Status: status}
	if status == http.StatusForbidden || status == http.StatusTooManyRequests {
		f.RetryAfter = "1"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < n; i++ {
		s.failNext = append(s.failNext, f)
	}
}

// SetRateLimit sets the primary budget left and when it refills. Once
// remaining reaches zero every token-authenticated request is refused with
// 403 until reset; after reset the budget returns to DefaultRateLimit.
func (s *Server) SetRateLimit(remaining int, reset time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remaining = remaining
	s.reset = reset
}

// SetTokenLifetime sets how long the installation tokens minted from now
// on live (GitHub's live an hour), so that a test sees the App renew its
// token without waiting an hour. Clients renew a token shortly before it
// expires (ghinstallation: a minute before), so a lifetime a few seconds
// over a minute renews every few seconds.
func (s *Server) SetTokenLifetime(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenLife = d
}

// SetClock replaces the server's clock, e.g. to expire tokens or JWTs
// without sleeping.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// SetLatency delays every answer by a duration drawn uniformly from
// [min, max] (from a fixed seed, so a run's sequence of delays repeats).
// The delay is waited out before the request is served and without the
// server's lock, so that concurrent requests overlap as they do on GitHub;
// a request whose context ends stops waiting. SetLatency(0, 0) removes it.
// It panics if min is negative or greater than max.
func (s *Server) SetLatency(min, max time.Duration) {
	if min < 0 || min > max {
		panic(fmt.Sprintf("fakegithub: SetLatency(%v, %v): want 0 <= min <= max", min, max))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latencyMin, s.latencyMax = min, max
}

// latencyLocked draws the next answer's delay.
func (s *Server) latencyLocked() time.Duration {
	if s.latencyMax <= 0 {
		return 0
	}
	return s.latencyMin + time.Duration(s.rng.Int64N(int64(s.latencyMax-s.latencyMin)+1))
}

// NotModified counts the requests answered 304 Not Modified so far.
func (s *Server) NotModified() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.requests {
		if l.Status == http.StatusNotModified {
			n++
		}
	}
	return n
}

// RateLimitRemaining is the primary budget left, as the next answer's
// X-RateLimit-Remaining would report it before that request is charged.
func (s *Server) RateLimitRemaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refillLocked()
	return max(s.remaining, 0)
}

// ServeHTTP waits out the latency, applies what GitHub applies before any
// endpoint logic — fault injection, routing, authentication, rate limiting
// — then dispatches, and finally answers a conditional GET whose answer is
// unchanged with 304. The answer is rendered into a buffer first because
// its ETag, and so whether it is a 304, depends on the whole body.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	delay := s.latencyLocked()
	s.mu.Unlock()
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}

	s.mu.Lock()
	s.reqCount++
	n := s.reqCount
	hook := s.inject
	var fault *Fault
	if len(s.failNext) > 0 {
		f := s.failNext[0]
		s.failNext = s.failNext[1:]
		fault = &f
	}
	s.mu.Unlock()
	if fault == nil && hook != nil {
		fault = hook(r, n)
	}

	rec := httptest.NewRecorder()
	s.mu.Lock()
	charged := s.serveLocked(rec, r, n, fault)
	res := rec.Result()
	status, header, body := res.StatusCode, res.Header, rec.Body.Bytes()
	// GitHub's answers vary by credential (its Vary header names
	// Authorization): a tag given to one token does not match for another,
	// so a renewed installation token is answered in full once.
	header.Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP")
	if r.Method == http.MethodGet && status == http.StatusOK {
		tag := etag(r.Header.Get("Authorization"), body)
		header.Set("ETag", tag)
		if noneMatch(r.Header.Values("If-None-Match"), tag) {
			// GitHub does not charge a 304 to the rate limit.
			if charged {
				s.remaining++
				s.rateHeadersLocked(header)
			}
			status, body = http.StatusNotModified, nil
			notModifiedHeader(header)
		}
	}
	s.requests = append(s.requests, RequestLog{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status, IfNoneMatch: strings.Join(r.Header.Values("If-None-Match"), ", ")})
	s.mu.Unlock()

	maps.Copy(w.Header(), header)
	w.WriteHeader(status)
	if len(body) > 0 {
		_, _ = w.Write(body)
	}
}

// serveLocked is ServeHTTP's work under the lock; charged reports whether
// the request was charged to the installation's budget.
func (s *Server) serveLocked(w http.ResponseWriter, r *http.Request, n int, fault *Fault) (charged bool) {
	w.Header().Set("X-GitHub-Request-Id", fmt.Sprintf("FAKE:%08X", n))
	s.refillLocked()

	if fault != nil && fault.Status != 0 {
		s.writeFaultLocked(w, *fault)
		return false
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		s.rateHeadersLocked(w.Header())
		writeError(w, http.StatusNotFound, "Not Found", docNotFound)
		return false
	}
	if s.PrivateMode && r.Header.Get("Authorization") == "" {
		// GitHub Enterprise Server in private mode serves nobody it does
		// not know, not even what github.com keeps public.
		writeError(w, http.StatusUnauthorized, "Must authenticate to access this API.", docAuth)
		return false
	}
	if r.URL.Path == "/users" || strings.HasPrefix(r.URL.Path, "/users/") {
		if r.Header.Get("Authorization") == "" {
			// Public, as on GitHub (the unauthenticated budget is not
			// metered).
			s.rateHeadersLocked(w.Header())
			s.mux.ServeHTTP(w, r)
			return false
		}
	}
	if strings.HasPrefix(r.URL.Path, "/app-manifests/") || strings.HasSuffix(r.URL.Path, "/settings/apps/new") {
		// The manifest conversion needs no authentication; the form is
		// a web page, posted by a signed-in browser.
		s.mux.ServeHTTP(w, r)
		return false
	}
	if r.URL.Path == "/app" || strings.HasPrefix(r.URL.Path, "/app/") {
		// App (JWT) endpoints draw on the App's own budget, which the
		// fake does not meter; report the installation budget anyway so
		// every response carries the headers.
		s.rateHeadersLocked(w.Header())
		s.mux.ServeHTTP(w, r)
		return false
	}
	inst, ok := s.authenticateLocked(w, r)
	if !ok {
		return false
	}
	if s.remaining <= 0 {
		s.rateHeadersLocked(w.Header())
		msg := fmt.Sprintf("API rate limit exceeded for installation ID %d. If you reach out to GitHub Support for help, please include the request ID %s.", inst, w.Header().Get("X-GitHub-Request-Id"))
		writeError(w, http.StatusForbidden, msg, docRateLimit)
		return false
	}
	s.remaining--
	s.rateHeadersLocked(w.Header())
	s.mux.ServeHTTP(w, r)
	return true
}

// refillLocked restores the budget once the reset time has passed, as
// GitHub's rolling hourly window does.
func (s *Server) refillLocked() {
	if now := s.now(); !now.Before(s.reset) {
		s.remaining = s.rateLimit
		s.reset = now.Add(time.Hour)
	}
}

func (s *Server) rateHeadersLocked(h http.Header) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.rateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(s.remaining, 0)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(s.reset.Unix(), 10))
	h.Set("X-RateLimit-Used", strconv.Itoa(s.rateLimit-max(s.remaining, 0)))
	h.Set("X-RateLimit-Resource", "core")
}

func (s *Server) writeFaultLocked(w http.ResponseWriter, f Fault) {
	s.rateHeadersLocked(w.Header())
	limited := f.Status == http.StatusForbidden || f.Status == http.StatusTooManyRequests
	switch {
	case limited && f.RetryAfter != "":
		w.Header().Set("Retry-After", f.RetryAfter)
		msg := f.Message
		if msg == "" {
			msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID " + w.Header().Get("X-GitHub-Request-Id") + "."
		}
		writeError(w, f.Status, msg, docSecondaryRateLimit)
	case limited && f.Secondary && f.RateLimitReset.IsZero():
		msg := f.Message
		if msg == "" {
			msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID " + w.Header().Get("X-GitHub-Request-Id") + "."
		}
		writeError(w, f.Status, msg, docSecondaryRateLimit)
	case limited && !f.RateLimitReset.IsZero():
		h := w.Header()
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Used", strconv.Itoa(s.rateLimit))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(f.RateLimitReset.Unix(), 10))
		msg := f.Message
		if msg == "" {
			msg = "API rate limit exceeded. If you reach out to GitHub Support for help, please include the request ID " + w.Header().Get("X-GitHub-Request-Id") + "."
		}
		writeError(w, f.Status, msg, docRateLimit)
	default:
		msg := f.Message
		if msg == "" {
			msg = http.StatusText(f.Status)
		}
		writeError(w, f.Status, msg, "")
	}
}

// authenticateLocked checks the installation token GitHub requires on
// repository endpoints ("token X" or "Bearer X" are both accepted, as on
// GitHub). It writes the 401 itself when the check fails.
func (s *Server) authenticateLocked(w http.ResponseWriter, r *http.Request) (int64, bool) {
	s.rateHeadersLocked(w.Header())
	auth := r.Header.Get("Authorization")
	if auth == "" {
		writeError(w, http.StatusUnauthorized, "Requires authentication", docAuth)
		return 0, false
	}
	scheme, cred, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "token") && !strings.EqualFold(scheme, "bearer") {
		writeError(w, http.StatusUnauthorized, "Bad credentials", docAuth)
		return 0, false
	}
	tok, ok := s.tokens[strings.TrimSpace(cred)]
	if !ok || !s.now().Before(tok.expires) {
		writeError(w, http.StatusUnauthorized, "Bad credentials", docAuth)
		return 0, false
	}
	return tok.installation, true
}

// handleAccessToken implements POST /app/installations/{id}/access_tokens.
func (s *Server) handleAccessToken(w http.ResponseWriter, r *http.Request) {
	inst, err := strconv.ParseInt(r.PathValue("installation_id"), 10, 64)
	if err != nil || inst <= 0 {
		writeError(w, http.StatusNotFound, "Not Found", docAppAuth)
		return
	}
	if msg := s.verifyJWTLocked(r.Header.Get("Authorization")); msg != "" {
		writeError(w, http.StatusUnauthorized, msg, docAppAuth)
		return
	}
	tok := "ghs_" + randomAlnum(36)
	life := s.tokenLife
	if life <= 0 {
		life = time.Hour
	}
	exp := s.now().Add(life).UTC().Truncate(time.Second)
	s.tokens[tok] = token{installation: inst, expires: exp}
	s.issued++
	writeJSON(w, http.StatusCreated, map[string]any{
		"token":                tok,
		"expires_at":           exp.Format(time.RFC3339),
		"permissions":          map[string]string{"checks": "write", "contents": "read", "issues": "write", "metadata": "read", "pull_requests": "write"},
		"repository_selection": "selected",
	})
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func randomAlnum(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return string(b)
}

func (s *Server) newIDLocked() int64 {
	s.nextID++
	return s.nextID
}

// writeJSON answers with v as GitHub does: JSON with a charset.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeError answers with GitHub's error body shape.
func writeError(w http.ResponseWriter, status int, msg, doc string) {
	body := map[string]any{"message": msg, "status": strconv.Itoa(status)}
	if doc != "" {
		body["documentation_url"] = doc
	}
	writeJSON(w, status, body)
}

// validationError is a 422 in GitHub's "Validation Failed" shape.
func validationError(w http.ResponseWriter, doc string, resource, field, code, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            []map[string]string{{"resource": resource, "field": field, "code": code, "message": msg}},
		"documentation_url": doc,
		"status":            "422",
	})
}

// decodeBody reads a JSON request body; GitHub answers malformed JSON with
// 400 and wrongly typed fields with 422.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, doc string) bool {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Invalid request.\n\n" + err.Error(), "documentation_url": doc, "status": "422"})
			return false
		}
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", doc)
		return false
	}
	return true
}
