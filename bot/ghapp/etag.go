package ghapp

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/google/go-github/v60/github"
)

// Conditional requests. The reconcile loop asks GitHub the same questions
// every few minutes — the installations, their repositories, the open pull
// requests, the check runs on each head — and the answers rarely change.
// GitHub tags each answer with an ETag and answers a GET that sends the tag
// back in If-None-Match with 304 Not Modified when nothing changed; a 304
// is not charged to the primary rate limit. So each client remembers the
// last 200 answer to every GET and its tag, asks conditionally, and hands
// the remembered answer to go-github as a 200 when GitHub says 304.
//
// Tags are per credential: an installation token lives an hour, and the
// first pass after it is renewed is answered (and charged) in full.
//
// The 304 still passes through the counting and observing transports
// below: it is a request, and Config.Observe sees its status.

// Bounds on what the cache keeps: answers bigger than maxETagEntry (trees,
// blobs, large listings) are not kept, and the least recently used
// answers go once the total passes maxETagBytes.
const (
	maxETagEntry = 256 << 10
	maxETagBytes = 16 << 20
)

// etagKey names one answer. cred is a digest of the credential the
// request carried: GitHub's answers vary by Authorization, and a tag it
// gave to one token is not matched for another, so an installation's
// answers are kept per token and a renewed token starts afresh.
type etagKey struct {
	cred       [sha256.Size]byte
	url        string
	accept     string
	apiVersion string
}

type etagEntry struct {
	key    etagKey
	etag   string
	header http.Header
	body   []byte
}

// etagCache is the answers kept, by key, least recently used last. It is
// safe for concurrent use; entries are never modified once stored.
type etagCache struct {
	maxEntry, maxBytes int

	mu    sync.Mutex
	bytes int
	lru   list.List // of *etagEntry, most recently used first
	byKey map[etagKey]*list.Element
}

func newETagCache(maxEntry, maxBytes int) *etagCache {
	return &etagCache{maxEntry: maxEntry, maxBytes: maxBytes, byKey: map[etagKey]*list.Element{}}
}

func (c *etagCache) get(k etagKey) *etagEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*etagEntry)
}

func (c *etagCache) put(e *etagEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(e.key)
	c.byKey[e.key] = c.lru.PushFront(e)
	c.bytes += len(e.body)
	for c.bytes > c.maxBytes && c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back().Value.(*etagEntry).key)
	}
}

func (c *etagCache) remove(k etagKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(k)
}

func (c *etagCache) removeLocked(k etagKey) {
	if el, ok := c.byKey[k]; ok {
		c.bytes -= len(el.Value.(*etagEntry).body)
		c.lru.Remove(el)
		delete(c.byKey, k)
	}
}

// conditional is the transport that asks conditionally. It sits below
// the authenticating transports, so that it sees the credential each
// request carries and keys its answers by it.
type conditional struct {
	next  http.RoundTripper
	cache *etagCache
}

func (c conditional) RoundTrip(r *http.Request) (*http.Response, error) {
	// A caller's own validators or ranges are the caller's business. An
	// App JWT is signed afresh for each request, so an answer given to
	// one can never be asked about again with it.
	auth := r.Header.Get("Authorization")
	if r.Method != http.MethodGet || r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" || r.Header.Get("Range") != "" || isJWT(auth) {
		return c.next.RoundTrip(r)
	}
	key := etagKey{cred: sha256.Sum256([]byte(auth)), url: r.URL.String(), accept: r.Header.Get("Accept"), apiVersion: r.Header.Get("X-GitHub-Api-Version")}
	e := c.cache.get(key)
	req := r
	if e != nil {
		req = r.Clone(r.Context())
		req.Header.Set("If-None-Match", e.etag)
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && e != nil:
		return e.response(resp), nil
	case resp.StatusCode == http.StatusOK:
		return c.keep(key, resp), nil
	}
	return resp, nil
}

// isJWT reports a bearer credential shaped as a JSON Web Token (three
// dot-separated parts), which is how an App authenticates as itself.
func isJWT(auth string) bool {
	scheme, cred, _ := strings.Cut(auth, " ")
	return strings.EqualFold(scheme, "bearer") && strings.Count(cred, ".") == 2
}

// response is the remembered answer as a 200, with the 304's fresh
// headers (rate limit, request id, date) over the remembered ones, so that
// go-github's view of the rate limit stays current.
func (e *etagEntry) response(nm *http.Response) *http.Response {
	io.Copy(io.Discard, nm.Body)
	nm.Body.Close()
	h := e.header.Clone()
	for k, v := range nm.Header {
		switch k {
		case "Content-Length", "Content-Type", "Content-Encoding", "Transfer-Encoding":
			// They describe the 304's empty body, not the answer's.
		default:
			h[k] = v
		}
	}
	resp := *nm
	resp.Status = "200 OK"
	resp.StatusCode = http.StatusOK
	resp.Header = h
	resp.Body = io.NopCloser(bytes.NewReader(e.body))
	resp.ContentLength = int64(len(e.body))
	resp.Uncompressed = false
	return &resp
}

// keep remembers a 200 answer when it has a tag, fits the bounds, and can
// be trusted on a 304 (see fullLastPage), and returns the response with
// its body still readable.
func (c conditional) keep(key etagKey, resp *http.Response) *http.Response {
	tag := resp.Header.Get("ETag")
	if tag == "" || resp.ContentLength > int64(c.cache.maxEntry) {
		c.cache.remove(key)
		return resp
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.cache.maxEntry)+1))
	if err != nil || len(body) > c.cache.maxEntry {
		// Too big or broken: hand on what was read followed by the rest
		// (or the error), and forget any older answer.
		c.cache.remove(key)
		rest := io.Reader(resp.Body)
		if err != nil {
			rest = errReader{err}
		}
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), rest), resp.Body}
		return resp
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if fullLastPage(resp.Request, resp.Header, body) {
		c.cache.remove(key)
		return resp
	}
	c.cache.put(&etagEntry{key: key, etag: tag, header: resp.Header.Clone(), body: body})
	return resp
}

// fullLastPage reports a listing page that is full yet names no next page.
// GitHub's tag covers the body only, and a 304 need not carry the Link
// header, so such a page would answer 304 after the listing grew by an
// item onto a new page, and the new page would never be read. These pages
// are always fetched in full instead.
func fullLastPage(req *http.Request, h http.Header, body []byte) bool {
	if strings.Contains(h.Get("Link"), `rel="next"`) {
		return false
	}
	n, ok := listingLen(body)
	if !ok {
		return false
	}
	per := 30 // GitHub's default page size
	if req != nil {
		if v, err := strconv.Atoi(req.URL.Query().Get("per_page")); err == nil && v > 0 {
			per = min(v, 100)
		}
	}
	return n >= per
}

// listingLen counts the items of a listing: a JSON array, or an object
// with total_count wrapping one (check runs, installation repositories).
func listingLen(body []byte) (int, bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return 0, false
	}
	if body[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(body, &items) != nil {
			return 0, false
		}
		return len(items), true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return 0, false
	}
	if _, ok := obj["total_count"]; !ok {
		return 0, false
	}
	n, found := 0, false
	for _, v := range obj {
		if v = bytes.TrimSpace(v); len(v) > 0 && v[0] == '[' {
			var items []json.RawMessage
			if json.Unmarshal(v, &items) == nil {
				n, found = max(n, len(items)), true
			}
		}
	}
	return n, found
}

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// newClient is a go-github client over rt, an authenticating transport
// whose requests pass the App's conditional transport (New).
func (a *App) newClient(rt http.RoundTripper) *github.Client {
	c := github.NewClient(&http.Client{Transport: rt, Timeout: a.timeout})
	b, u := *a.base, *a.upload
	c.BaseURL, c.UploadURL = &b, &u
	return c
}
