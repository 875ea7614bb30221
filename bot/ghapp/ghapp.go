// Package ghapp is the thin adapter between GitHub and benchgate's pure
// pull-request check (package bot/prcheck): it authenticates as the GitHub App,
// reads pull requests and the base branch as data, and posts check runs and
// the sticky comment idempotently. Nothing read from GitHub is ever run.
//
// Every API call goes through one retry helper, so that primary and
// secondary rate limits and gateway errors are waited out the same way
// everywhere.
package ghapp

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"

	"github.com/benchgate/benchgate/internal/callcount"
)

// Defaults for the Config fields left zero.
const (
	DefaultBaseURL         = "https://api.github.com/"
	DefaultMaxAttempts     = 5
	DefaultMaxWait         = 15 * time.Minute
	DefaultMaxChangedBytes = 64 << 20
)

// Config configures an App.
type Config struct {
	AppID      int64
	PrivateKey []byte // PEM, PKCS#1 or PKCS#8
	// BaseURL is the REST API root with a trailing slash:
	// https://api.github.com/ (the default), https://HOST/api/v3/ for
	// GitHub Enterprise Server, or a test server's URL.
	BaseURL    string
	HTTPClient *http.Client // nil: http.DefaultClient's transport

	// Sleep waits for d unless ctx ends first. Nil uses a real timer;
	// tests pass a short one so that retries do not slow them down.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxAttempts bounds the tries of one API call (default 5).
	MaxAttempts int
	// MaxWait bounds one rate-limit wait (default 15 minutes). A limit that
	// resets later is returned as an error instead, so that the job can be
	// rescheduled rather than hold a worker for up to an hour.
	MaxWait time.Duration
	// MaxChangedBytes caps the total content ChangedFiles and BaseFS read
	// (default 64 MiB), so that a huge pull request cannot exhaust memory.
	MaxChangedBytes int64
	// Blobs, when set, keeps git blobs by their sha between checks: a blob
	// never changes, so the registry and the benchmarks of a base branch
	// are downloaded once, not on every check.
	Blobs BlobStore
	// Observe, when set, is told of every response from GitHub: its
	// status and the X-RateLimit-Remaining it reported (-1 when none), for
	// metrics. A 304 is an unchanged answer to a conditional request
	// (etag.go), which GitHub does not charge to the rate limit.
	Observe func(status, remaining int)
}

// BlobStore keeps data by key (internal/filecache.Dir is one).
type BlobStore interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte)
}

// App talks to GitHub as one GitHub App. It is safe for concurrent use.
type App struct {
	cfg     Config
	key     *rsa.PrivateKey
	base    *url.URL
	upload  *url.URL
	rt      http.RoundTripper
	timeout time.Duration
	etags   *etagCache // shared by all clients, keyed by installation

	mu         sync.Mutex
	transports map[int64]*ghinstallation.Transport
	identity   *Identity // learned by Identify
}

// New checks cfg and parses the private key once.
func New(cfg Config) (*App, error) {
	if cfg.AppID <= 0 {
		return nil, errors.New("ghapp: the App id must be positive")
	}
	key, err := parseKey(cfg.PrivateKey)
	if err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("ghapp: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	if cfg.MaxChangedBytes <= 0 {
		cfg.MaxChangedBytes = DefaultMaxChangedBytes
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	a := &App{cfg: cfg, key: key, base: base, upload: uploadURL(base), rt: http.DefaultTransport, etags: newETagCache(maxETagEntry, maxETagBytes), transports: map[int64]*ghinstallation.Transport{}}
	if cfg.HTTPClient != nil {
		if cfg.HTTPClient.Transport != nil {
			a.rt = cfg.HTTPClient.Transport
		}
		a.timeout = cfg.HTTPClient.Timeout
	}
	if cfg.Observe != nil {
		a.rt = observing{a.rt, cfg.Observe}
	}
	a.rt = counting{a.rt}
	a.cfg.PrivateKey = nil // parsed; not kept around in a second form
	return a, nil
}

// parseKey reads an RSA private key from PEM. Its errors never quote the
// key.
func parseKey(data []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("ghapp: the private key is not PEM")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("ghapp: the private key is neither a PKCS#1 nor a PKCS#8 RSA key")
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("ghapp: the private key is not an RSA key, which GitHub Apps require")
	}
	return rk, nil
}

// uploadURL derives the uploads root GitHub pairs with an API root.
func uploadURL(base *url.URL) *url.URL {
	u := *base
	switch {
	case u.Host == "api.github.com":
		u.Host, u.Path = "uploads.github.com", "/"
	case strings.HasSuffix(u.Path, "/api/v3/"):
		u.Path = strings.TrimSuffix(u.Path, "v3/") + "uploads/"
	}
	return &u
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// transport returns the installation's authenticating transport, made
// once so that its token is minted once and reused until it nears expiry.
func (a *App) transport(inst int64) (*ghinstallation.Transport, error) {
	if inst <= 0 {
		return nil, fmt.Errorf("ghapp: installation id %d is not positive", inst)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.transports[inst]; ok {
		return t, nil
	}
	// Each installation gets its own Apps transport: ghinstallation writes
	// to it while refreshing, so sharing one would race.
	atr := ghinstallation.NewAppsTransportFromPrivateKey(a.rt, a.cfg.AppID, a.key)
	atr.BaseURL = strings.TrimSuffix(a.base.String(), "/")
	t := ghinstallation.NewFromAppsTransport(atr, inst)
	t.BaseURL = atr.BaseURL
	a.transports[inst] = t
	return t, nil
}

// Client returns a go-github client acting as the installation.
func (a *App) Client(installationID int64) (*github.Client, error) {
	t, err := a.transport(installationID)
	if err != nil {
		return nil, err
	}
	return a.newClient(t, installationID), nil
}

// call runs fn until it succeeds, fails for good, or runs out of
// attempts, waiting out rate limits and gateway errors in between. Each
// attempt gets a fresh client (sharing the cached token): go-github
// remembers a limit it has seen and refuses locally until the wall-clock
// reset, which would defeat the waits this helper decides on itself.
func (a *App) call(ctx context.Context, inst int64, what string, fn func(gh *github.Client) error) error {
	return a.callAs(ctx, func() (*github.Client, error) { return a.Client(inst) }, what, fn)
}

// callAs is call with the client that client gives: the App's own (JWT)
// or one without credentials.
func (a *App) callAs(ctx context.Context, client func() (*github.Client, error), what string, fn func(gh *github.Client) error) error {
	var err error
	for attempt := 0; attempt < a.cfg.MaxAttempts; attempt++ {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		var gh *github.Client
		if gh, err = client(); err != nil {
			return err
		}
		if err = fn(gh); err == nil {
			return nil
		}
		wait, retry := a.retryAfter(err, attempt)
		if !retry || attempt == a.cfg.MaxAttempts-1 {
			break
		}
		if serr := a.cfg.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%s: %w (while waiting to retry after: %v)", what, serr, err)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// retryAfter decides whether err is worth another attempt, and after how
// long.
func (a *App) retryAfter(err error, attempt int) (time.Duration, bool) {
	backoff := min(time.Second<<attempt, 30*time.Second)
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return a.bounded(time.Until(rl.Rate.Reset.Time) + time.Second)
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		if ab.RetryAfter != nil {
			return a.bounded(*ab.RetryAfter)
		}
		// GitHub asks for at least a minute when it names no time.
		return a.bounded(time.Minute)
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		// GitHub answers a rate limit with 403 or 429; go-github knows
		// only 403, so a 429 arrives as a plain error response.
		if wait, limited := rateLimited(er.Response); limited {
			return a.bounded(wait)
		}
		if gateway(er.Response.StatusCode) {
			return backoff, true
		}
	}
	// The token exchange bypasses go-github, so its failures arrive as
	// ghinstallation's error carrying the raw response.
	var he *ghinstallation.HTTPError
	if errors.As(err, &he) && he.Response != nil {
		resp := he.Response
		if resp.Body != nil {
			resp.Body.Close()
		}
		if wait, limited := rateLimited(resp); limited {
			return a.bounded(wait)
		}
		if gateway(resp.StatusCode) {
			return backoff, true
		}
	}
	return 0, false
}

// rateLimited reads a 403 or 429 answer as GitHub documents its rate
// limits: Retry-After (seconds) first, then, when no requests remain,
// X-RateLimit-Reset (epoch seconds); a 429 that names neither is waited
// out for a minute, as GitHub asks for secondary limits. limited is false
// for any other answer: a 403 without limit headers is a refusal.
func rateLimited(resp *http.Response) (wait time.Duration, limited bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(resp.Header.Get("Retry-After")), 10, 64); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if r, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return time.Until(time.Unix(r, 0)) + time.Second, true
		}
	}
	return time.Minute, resp.StatusCode == http.StatusTooManyRequests
}

// bounded refuses waits longer than MaxWait.
func (a *App) bounded(d time.Duration) (time.Duration, bool) {
	if d <= 0 {
		d = time.Second
	}
	return d, d <= a.cfg.MaxWait
}

func gateway(status int) bool {
	return status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// splitRepo splits "owner/name".
func splitRepo(repo string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("ghapp: repository %q is not owner/name", repo)
	}
	return owner, name, nil
}

// isNotFound reports a 404 answer.
func isNotFound(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound
}

// Token returns an installation access token, for git over HTTPS (the
// leaderboard's push). It is the cached token while it is valid.
func (a *App) Token(ctx context.Context, inst int64) (string, error) {
	t, err := a.transport(inst)
	if err != nil {
		return "", err
	}
	return t.Token(ctx)
}

// counting counts each request in the counter its context carries
// (callcount), so that a job knows what it spent of the hourly budget.
type counting struct{ next http.RoundTripper }

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	callcount.Add(r.Context())
	return c.next.RoundTrip(r)
}

// observing reports each response's status and remaining rate limit.
type observing struct {
	next    http.RoundTripper
	observe func(status, remaining int)
}

func (o observing) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := o.next.RoundTrip(r)
	if err != nil {
		o.observe(0, -1)
		return resp, err
	}
	remaining := -1
	if v, perr := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); perr == nil {
		remaining = v
	}
	o.observe(resp.StatusCode, remaining)
	return resp, nil
}
