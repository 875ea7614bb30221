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
	etags   *etagCache // shared by all clients, keyed by credential

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
	a.rt = conditional{next: counting{a.rt}, cache: a.etags}
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
	return a.newClient(t), nil
}

// call runs fn until it succeeds, fails for good, or runs out of
// attempts, waiting out rate limits and transient errors in between. Each
// attempt gets a fresh client (sharing the cached token): go-github
// remembers a limit it has seen and refuses locally until the wall-clock
// reset, which would defeat the waits this helper decides on itself.
//
// A 401 means GitHub no longer takes the installation's token (revoked,
// or expired early): the token is dropped and a new one minted, once per
// call, and the call is made again at once.
func (a *App) call(ctx context.Context, inst int64, what string, fn func(gh *github.Client) error) error {
	renewed := false
	var used *ghinstallation.Transport
	client := func() (*github.Client, error) {
		t, err := a.transport(inst)
		if err != nil {
			return nil, err
		}
		used = t
		return a.newClient(t), nil
	}
	renew := func(err error) bool {
		if renewed || !unauthorized(err) {
			return false
		}
		renewed = true
		a.dropTransport(inst, used)
		return true
	}
	return a.callAs(ctx, client, what, fn, renew)
}

// unauthorized reports GitHub's 401 to a call made with a token.
func unauthorized(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnauthorized
}

// dropTransport forgets inst's transport, and with it its token, unless
// another call has replaced it already.
func (a *App) dropTransport(inst int64, t *ghinstallation.Transport) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.transports[inst] == t {
		delete(a.transports, inst)
	}
}

// callAs is call with the client that client gives: the App's own (JWT)
// or an installation's. renew, when set, is asked about each failure: true
// means the credentials were replaced and the call is to be made again at
// once, without counting as an attempt.
func (a *App) callAs(ctx context.Context, client func() (*github.Client, error), what string, fn func(gh *github.Client) error, renew ...func(error) bool) error {
	var err error
	secondary := 0
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
		if len(renew) > 0 && renew[0](err) {
			attempt--
			continue
		}
		wait, retry := a.retryAfter(err, attempt, &secondary)
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
// long. secondary counts the secondary limits this call met that named no
// time: GitHub asks for at least a minute, then exponentially longer
// waits while the limit holds.
func (a *App) retryAfter(err error, attempt int, secondary *int) (time.Duration, bool) {
	backoff := min(time.Second<<attempt, 30*time.Second)
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return a.bounded(time.Until(rl.Rate.Reset.Time) + time.Second)
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		// go-github takes X-RateLimit-Reset for the time a secondary limit
		// names when Retry-After is missing; that is the primary limit's
		// reset, up to an hour away, not what GitHub asks for here.
		if ab.Response != nil {
			if wait, named := limitTime(ab.Response); named {
				return a.bounded(wait)
			}
		}
		return a.secondaryWait(secondary), true
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		// GitHub answers a rate limit with 403 or 429; go-github knows
		// only 403, so a 429 arrives as a plain error response.
		if wait, named := limitTime(er.Response); named {
			return a.bounded(wait)
		}
		if er.Response.StatusCode == http.StatusTooManyRequests {
			return a.secondaryWait(secondary), true
		}
		if transient(er.Response.StatusCode) {
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
		if transient(resp.StatusCode) {
			return backoff, true
		}
	}
	return 0, false
}

// secondaryWait is the wait after a secondary limit that named no time:
// a minute, doubled each time it holds, up to MaxWait (or a minute when
// MaxWait is shorter: a minute is what GitHub asks for, never refused).
func (a *App) secondaryWait(secondary *int) time.Duration {
	wait := min(time.Minute<<min(*secondary, 10), max(a.cfg.MaxWait, time.Minute))
	*secondary++
	return wait
}

// limitTime is the time a 403 or 429 names for its limit: Retry-After
// (seconds), or X-RateLimit-Reset (epoch seconds) when no requests
// remain. named is false when it names none.
func limitTime(resp *http.Response) (wait time.Duration, named bool) {
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
	return 0, false
}

// rateLimited reads a 403 or 429 answer to the token exchange as GitHub
// documents its rate limits (limitTime); a 429 that names no time is
// waited out for a minute. limited is false for any other answer: a 403
// without limit headers is a refusal.
func rateLimited(resp *http.Response) (wait time.Duration, limited bool) {
	if wait, named := limitTime(resp); named {
		return wait, true
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

// transient reports a status worth retrying the call for, a few times
// with backoff: gateway errors, GitHub's own 500, and 422, which GitHub
// also gives for a commit or pull request it has not finished indexing.
// Retrying the call costs one request; failing would cost the whole job.
func transient(status int) bool {
	switch status {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusUnprocessableEntity:
		return true
	}
	return false
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
