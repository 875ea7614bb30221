// Package fakehub is an in-process stand-in for the Hugging Face Hub's
// dataset API, file resolvers and webhooks, served by httptest and written
// from the contract in hf-hub.md (the Hub's API as its official clients and
// documentation describe it; section numbers below refer to it). Datasets
// hold commits and refs; pull requests are discussions whose commits sit at
// refs/pr/N in the same repo; LFS files are served from a second host name
// so that a client sending its token there can be caught.
package fakehub

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Roles a token may carry (hf-hub.md §2.6).
const (
	RoleRead  = "read"
	RoleWrite = "write"
)

// Rate-limit buckets (hf-hub.md §4).
const (
	BucketAPI       = "api"
	BucketResolvers = "resolvers"
	BucketPages     = "pages"
	// BucketWhoami is whoami-v2's own strict limit, on top of the API
	// bucket (hf-hub.md §2.6: "heavily rate-limited"); its size is unknown.
	BucketWhoami = "whoami"
)

// Window is the length of the Hub's fixed rate-limit windows (hf-hub.md §4).
const Window = 5 * time.Minute

// User is a Hub account; payloads carry only its ID (hf-hub.md §3.2).
type User struct {
	ID   string
	Name string
}

type token struct {
	user *User
	role string
}

// Call is one request the Hub or its CDN answered.
type Call struct {
	Host   string // "hub" or "cdn"
	Method string
	Path   string // escaped, as sent
	Query  string
	Bucket string
	// Authorization is the header as it arrived, so that tests can assert
	// that no token reached the CDN (hf-hub.md §6 API side 4).
	Authorization string
	Status        int
}

// Hub is the fake. Its exported fields are settings a test may change
// before the first request.
type Hub struct {
	// URL is the Hub's base URL (on 127.0.0.1); CDNURL is the LFS host's
	// (on localhost, a different host name: hf-hub.md §6 API side 4).
	URL, CDNURL string

	// TreePageSize, CommitsPageSize and DiscussionsPageSize are the page
	// sizes of the listings; the real ones are unknown (hf-hub.md §10).
	TreePageSize, CommitsPageSize, DiscussionsPageSize int
	// Quotas per bucket and window for a token, and for anonymous callers.
	Quotas, AnonQuotas map[string]int
	// MergeRefusedStatus answers a merge of a draft, closed, merged or
	// conflicting PR; the real code is unknown (hf-hub.md §6, §10).
	MergeRefusedStatus int
	// ConflictsAsBool reports conflicting files as `true` rather than a
	// list, which the Hub does when it cannot list them (hf-hub.md §2.2).
	ConflictsAsBool bool
	// AcceptUnencodedRevision also routes tree/refs/pr/N/… (hf-hub.md §2.1
	// leaves open whether the Hub does).
	AcceptUnencodedRevision bool
	// TriggerCap is a webhook's triggers per 24 hours (hf-hub.md §3.1).
	TriggerCap int
	// Retries are the waits before each redelivery of a failed delivery;
	// the real schedule is unknown (hf-hub.md §3.1, §10).
	Retries []time.Duration
	// DeliveryTimeout bounds one delivery attempt.
	DeliveryTimeout time.Duration

	mu       sync.Mutex
	api, cdn *httptest.Server
	clock    time.Time
	seq      int
	idSeq    int
	users    map[string]*User // by name
	tokens   map[string]token
	repos    map[string]*repo
	lfs      map[string][]byte // sha256 → content, what the CDN serves
	rate     map[string]*bucketUse
	calls    []Call
	hooks    []*hook
	queue    []*Delivery
	sent     []*Delivery
	hold     bool
	client   *http.Client
}

type bucketUse struct {
	start time.Time
	used  int
}

// New starts a fake Hub and its CDN, closed when t ends.
func New(t testing.TB) *Hub {
	h := &Hub{
		TreePageSize: 50, CommitsPageSize: 50, DiscussionsPageSize: 50,
		// The free-user and anonymous rows of hf-hub.md §4.
		Quotas:             map[string]int{BucketAPI: 1000, BucketResolvers: 5000, BucketPages: 5000, BucketWhoami: 10},
		AnonQuotas:         map[string]int{BucketAPI: 500, BucketResolvers: 3000, BucketPages: 3000, BucketWhoami: 10},
		MergeRefusedStatus: http.StatusBadRequest,
		TriggerCap:         1000,
		Retries:            []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
		DeliveryTimeout:    5 * time.Second,
		clock:              time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC),
		users:              map[string]*User{},
		tokens:             map[string]token{},
		repos:              map[string]*repo{},
		lfs:                map[string][]byte{},
		rate:               map[string]*bucketUse{},
		client:             &http.Client{},
	}
	h.api = httptest.NewServer(h.routes())
	h.cdn = httptest.NewServer(http.HandlerFunc(h.serveCDN))
	h.URL = h.api.URL
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(h.cdn.URL, "http://"))
	h.CDNURL = "http://localhost:" + port
	t.Cleanup(func() { h.api.Close(); h.cdn.Close() })
	return h
}

func (h *Hub) now() time.Time { return h.clock }

// Now is the fake's clock, which drives rate-limit windows, the webhook
// trigger cap and timestamps.
func (h *Hub) Now() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clock
}

// Advance moves the fake's clock.
func (h *Hub) Advance(d time.Duration) {
	h.mu.Lock()
	h.clock = h.clock.Add(d)
	h.mu.Unlock()
}

// newIDLocked is a 24-hex-digit id, the shape of the Hub's object ids.
func (h *Hub) newIDLocked() string {
	h.idSeq++
	return fmt.Sprintf("66d4%020x", h.idSeq)
}

// AddUser creates a user.
func (h *Hub) AddUser(name string) *User {
	h.mu.Lock()
	defer h.mu.Unlock()
	u := &User{ID: h.newIDLocked(), Name: name}
	h.users[name] = u
	return u
}

// AddToken gives user a token with role RoleRead or RoleWrite.
func (h *Hub) AddToken(tok string, user *User, role string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokens[tok] = token{user, role}
}

// Calls is every request answered so far.
func (h *Hub) Calls() []Call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Call(nil), h.calls...)
}

// ResetCalls forgets the recorded calls.
func (h *Hub) ResetCalls() {
	h.mu.Lock()
	h.calls = nil
	h.mu.Unlock()
}

// hubError answers as the Hub does (hf-hub.md §2.1 "Errors"): X-Error-Code
// when there is one, X-Error-Message, X-Request-Id and {"error": msg}.
func hubError(w http.ResponseWriter, status int, code, msg string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", msg)
	w.Header().Set("X-Request-Id", "Root=1-fake")
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// statusRecorder keeps the status for the call log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func bucketOf(path string) string {
	switch {
	case strings.HasPrefix(path, "/api/"):
		return BucketAPI
	case strings.Contains(path, "/resolve/"):
		return BucketResolvers
	}
	return BucketPages
}

// caller is the authenticated user of a request, if any.
type caller struct {
	user *User
	role string
}

func (c caller) canWrite(r *repo) bool {
	return c.user != nil && c.role == RoleWrite && (r.writers[c.user.Name] || r.owner == c.user)
}

func (c caller) canRead(r *repo) bool {
	return !r.private || (c.user != nil && (r.writers[c.user.Name] || r.owner == c.user))
}

type ctxKey struct{}

// middleware authenticates, charges the rate-limit bucket and logs.
func (h *Hub) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		bucket := bucketOf(r.URL.Path)
		h.mu.Lock()
		call := Call{Host: "hub", Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
			Bucket: bucket, Authorization: r.Header.Get("Authorization")}
		var c caller
		var bad bool
		if a := r.Header.Get("Authorization"); a != "" {
			t, ok := h.tokens[strings.TrimPrefix(a, "Bearer ")]
			if !ok || !strings.HasPrefix(a, "Bearer ") {
				bad = true
			} else {
				c = caller(t)
			}
		}
		limited, retry := h.chargeLocked(rec.Header(), c, r, bucket)
		if r.URL.Path == "/api/whoami-v2" && !limited {
			hd := http.Header{}
			if limited, retry = h.chargeLocked(hd, c, r, BucketWhoami); limited {
				rec.Header().Set("RateLimit", hd.Get("RateLimit"))
				rec.Header().Set("RateLimit-Policy", hd.Get("RateLimit-Policy"))
			}
		}
		h.mu.Unlock()
		switch {
		case bad:
			// hf-hub.md §2.1 "The 401 trap": only this message means a bad token.
			hubError(rec, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		case limited:
			rec.Header().Set("Retry-After", fmt.Sprint(retry))
			hubError(rec, http.StatusTooManyRequests, "", "You have exceeded our hourly quotas for action '"+bucket+"'. We invite you to retry later.")
		default:
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), ctxKey{}, c)))
		}
		h.mu.Lock()
		call.Status = rec.status
		h.calls = append(h.calls, call)
		h.mu.Unlock()
	})
}

// chargeLocked spends one request of the caller's bucket in the current
// fixed window and sets the RateLimit headers of hf-hub.md §4 on every
// response; it reports a 429 when the window is spent.
func (h *Hub) chargeLocked(hd http.Header, c caller, r *http.Request, bucket string) (bool, int) {
	key, quota := "", 0
	if c.user != nil {
		key, quota = "user:"+c.user.Name, h.Quotas[bucket]
	} else {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		key, quota = "ip:"+host, h.AnonQuotas[bucket]
	}
	key += "/" + bucket
	u := h.rate[key]
	if u == nil || !h.clock.Before(u.start.Add(Window)) {
		// Fixed windows aligned on the clock, as the Hub's are.
		u = &bucketUse{start: h.clock.Truncate(Window)}
		h.rate[key] = u
	}
	reset := int(u.start.Add(Window).Sub(h.clock).Seconds())
	if reset < 1 {
		reset = 1
	}
	limited := u.used >= quota
	if !limited {
		u.used++
	}
	hd.Set("RateLimit", fmt.Sprintf(`"%s";r=%d;t=%d`, bucket, quota-u.used, reset))
	hd.Set("RateLimit-Policy", fmt.Sprintf(`"fixed window";"%s";q=%d;w=%d`, bucket, quota, int(Window.Seconds())))
	return limited, reset
}

// repoForLocked finds the request's dataset, answering the Hub's 401 for a
// missing or unreadable one (hf-hub.md §2.1 "The 401 trap").
func (h *Hub) repoForLocked(w http.ResponseWriter, r *http.Request) (*repo, caller, bool) {
	c := callerOf(r)
	rp := h.repos[r.PathValue("ns")+"/"+r.PathValue("name")]
	if rp == nil || !c.canRead(rp) {
		hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
		return nil, c, false
	}
	return rp, c, true
}
