package llm

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/internal/safetext"
)

// This file is classification and retry: which failures are worth another
// attempt, how long to wait before it, and how a failure is worded.

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
// 529 "overloaded", and Groq's 498, its flex tier out of capacity for the
// moment (https://console.groq.com/docs/flex-processing).
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status == statusFlexCapacity || status >= 500
}

// statusFlexCapacity is Groq's 498: the flex tier is at capacity.
const statusFlexCapacity = 498

// setupFailure reports whether a failure says the endpoint, the model or
// the request is set up wrong, so that every call would fail the same
// way: a 404 (no such model or deployment, or OpenRouter's "No endpoints
// found" when no provider serves the model under the routing and the
// account's settings, https://openrouter.ai/docs/guides/routing/provider-selection),
// or a 400 naming a body field the endpoint does not take. A field the
// client can change on its own (the token limit's) is handled before.
func setupFailure(status int, e *apiError) bool {
	switch status {
	case http.StatusNotFound:
		return true
	case http.StatusBadRequest:
		return unknownField(e) || refusedSampling(e)
	}
	return false
}

// refusedSampling reports whether a 400 refuses the value of a sampling
// parameter that every call sends alike, such as GPT-5's "Unsupported
// value: 'temperature' does not support 0 with this model"
// (code unsupported_value, param temperature): the contract or the flags
// must change, not the call. The token limit's field is not among them:
// the client switches it on its own.
func refusedSampling(e *apiError) bool {
	if e == nil {
		return false
	}
	switch e.Param {
	case "temperature", "top_p", "seed", "reasoning_effort", "service_tier":
		return e.code() == "unsupported_value" || e.code() == "unsupported_parameter"
	}
	return false
}

// unknownField reports whether a 400's error object says a body field is
// not one the endpoint takes: OpenAI's code unknown_parameter ("Unknown
// parameter: 'provider'."), older Azure API versions' "Unrecognized
// request argument supplied", vLLM's "Extra inputs are not permitted".
func unknownField(e *apiError) bool {
	if e == nil {
		return false
	}
	msg := strings.ToLower(e.Message)
	return e.code() == "unknown_parameter" || strings.Contains(msg, "unknown parameter") ||
		strings.Contains(msg, "unrecognized request argument") || strings.Contains(msg, "extra inputs are not permitted")
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
		if e != nil && strings.Contains(strings.ToLower(e.Message), "no endpoints found") {
			public, hint = "no provider serves the model as asked (HTTP 404)", "; check the model id, the provider the judge contract pins, and the account's provider and privacy settings"
		}
	case http.StatusBadRequest:
		public = "the endpoint rejected the request (HTTP 400)"
		switch {
		case e != nil && e.code() == "content_filter":
			// Azure's content filter refused the prompt
			// (https://learn.microsoft.com/azure/ai-services/openai/concepts/content-filter).
			public, hint = "the endpoint's content filter refused the prompt (HTTP 400)", ""
		case e != nil && e.Param == "temperature":
			hint = "; the model takes no temperature: set the judge contract's \"temperature\": null in the registry, or give --temperature none"
		case unknownField(e):
			public, hint = "the endpoint does not take a field of the request (HTTP 400)", "; leave the field it names out (the judge contract's or the flags' setting that sends it)"
		}
	case http.StatusTooManyRequests:
		public = "rate limited (HTTP 429)"
		if e != nil && (e.code() == "insufficient_quota" || e.Type == "insufficient_quota") {
			public, hint = "the account's quota is spent (HTTP 429 insufficient_quota)", "; check the plan and billing details"
		}
	case statusFlexCapacity:
		public = "the flex tier is at capacity (HTTP 498)"
	default:
		public = fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	}
	msg := ""
	switch {
	case e != nil:
		msg = clip(e.Message)
	case isHTML(body):
		// A gateway's or proxy's error page, not the endpoint's answer:
		// its title says what failed, its markup nothing.
		msg = "an HTML page from a gateway or proxy in front of the endpoint"
		if t := htmlTitle(body); t != "" {
			msg += fmt.Sprintf(", titled %q", clip(t))
		}
	default:
		msg = clip(strings.TrimSpace(string(body)))
	}
	return public + hint + suffix(msg), public
}

// asciiLower is s with the ASCII letters in lower case and every other
// byte as it was.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// isHTML reports whether a body is an HTML page, such as the error page
// Cloudflare, nginx or a load balancer sends for a 502 or 504
// (https://developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-5xx-errors/).
func isHTML(body []byte) bool {
	b := asciiLower(strings.TrimSpace(safetext.Cut(string(body), 512)))
	return strings.HasPrefix(b, "<!doctype html") || strings.HasPrefix(b, "<html") || strings.HasPrefix(b, "<head") ||
		strings.HasPrefix(b, "<title") || (strings.HasPrefix(b, "<") && strings.Contains(b, "<title"))
}

// htmlTitle is the text of an HTML page's title element, its white space
// collapsed; "" when it has none.
func htmlTitle(body []byte) string {
	s := string(body)
	lower := asciiLower(s) // the same length as s, so that an index holds in both
	i := strings.Index(lower, "<title")
	if i < 0 {
		return ""
	}
	j := strings.Index(lower[i:], ">")
	if j < 0 {
		return ""
	}
	start := i + j + 1
	end := strings.Index(lower[start:], "</title")
	if end < 0 {
		return ""
	}
	return strings.Join(strings.Fields(html.UnescapeString(s[start:start+end])), " ")
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
// accepted) or an HTTP date, at most maxWait. backoff caps what is
// waited; a wait of a day's order stops the run instead (see askedWait).
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(secs) || secs < 0 {
			return 0, false
		}
		return clampWait(secs), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxWait), true
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
