package llm

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAskedWait reads the wait each provider asks for where it says it.
func TestAskedWait(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	gemini := func(quotaID, delay string) string {
		return `[{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"` +
			quotaID + `"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}}]`
	}
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		want   time.Duration
		from   string
		daily  bool
		quota  string
	}{
		{name: "nothing asked", status: 429},
		{name: "Retry-After seconds", status: 429, header: map[string]string{"Retry-After": "2"}, want: 2 * time.Second, from: "Retry-After"},
		{name: "Retry-After date", status: 503, header: map[string]string{"Retry-After": "Tue, 01 Dec 2026 10:00:30 GMT"}, want: 30 * time.Second, from: "Retry-After"},
		{name: "Azure: retry-after-ms before retry-after", status: 429, header: map[string]string{"Retry-After": "2", "retry-after-ms": "1500"}, want: 1500 * time.Millisecond, from: "retry-after-ms"},
		{name: "Azure: a bad retry-after-ms falls back", status: 429, header: map[string]string{"Retry-After": "2", "retry-after-ms": "soon"}, want: 2 * time.Second, from: "Retry-After"},
		{name: "OpenAI: the longer reset", status: 429, header: map[string]string{"x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"}, want: 6 * time.Minute, from: "x-ratelimit-reset-tokens"},
		{name: "Groq: fractional resets", status: 429, header: map[string]string{"x-ratelimit-reset-requests": "2m59.56s", "x-ratelimit-reset-tokens": "7.66s"}, want: 2*time.Minute + 59560*time.Millisecond, from: "x-ratelimit-reset-requests"},
		{name: "OpenAI: the reset of the spent limit", status: 429, header: map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-remaining-tokens": "29000",
			"x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"}, want: time.Second, from: "x-ratelimit-reset-requests"},
		{name: "resets on a 503 are not a wait", status: 503, header: map[string]string{"x-ratelimit-reset-requests": "1s"}},
		{name: "Retry-After before the resets", status: 429, header: map[string]string{"Retry-After": "3", "x-ratelimit-reset-tokens": "20ms"}, want: 3 * time.Second, from: "Retry-After"},
		{name: "Gemini: RetryInfo", status: 429, body: gemini("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "37s"), want: 37 * time.Second, from: "RetryInfo.retryDelay"},
		{name: "Gemini: a per-day quota", status: 429, body: gemini("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "29s"), want: 29 * time.Second, from: "RetryInfo.retryDelay",
			daily: true, quota: "GenerateRequestsPerDayPerProjectPerModel-FreeTier"},
		{name: "Cerebras: the spent per-minute limit's reset in seconds", status: 429, header: map[string]string{
			"x-ratelimit-remaining-tokens-minute": "0", "x-ratelimit-reset-tokens-minute": "11.5",
			"x-ratelimit-remaining-requests-day": "14000", "x-ratelimit-reset-requests-day": "33011.5"}, want: 11500 * time.Millisecond, from: "x-ratelimit-reset-tokens-minute"},
		{name: "Cerebras: the per-day request limit spent", status: 429, header: map[string]string{
			"x-ratelimit-remaining-tokens-minute": "59000", "x-ratelimit-reset-tokens-minute": "11.5",
			"x-ratelimit-remaining-requests-day": "0", "x-ratelimit-reset-requests-day": "33011.5"}, want: 33011500 * time.Millisecond, from: "x-ratelimit-reset-requests-day", daily: true},
		{name: "Cerebras: none said spent, a limit resetting tomorrow is not waited for", status: 429, header: map[string]string{
			"x-ratelimit-remaining-tokens-minute": "800", "x-ratelimit-reset-tokens-minute": "11.5",
			"x-ratelimit-remaining-requests-day": "14000", "x-ratelimit-reset-requests-day": "33011.5"}, want: 11500 * time.Millisecond, from: "x-ratelimit-reset-tokens-minute"},
		{name: "OpenRouter: X-RateLimit-Reset in epoch milliseconds", status: 429, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1796119230000"},
			want: 30 * time.Second, from: "x-ratelimit-reset"},
		{name: "X-RateLimit-Reset in epoch seconds, a day ahead, spent", status: 429, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1796205600"},
			want: 24 * time.Hour, from: "x-ratelimit-reset", daily: true},
		{name: "a day ahead, not said spent: not waited for", status: 429, header: map[string]string{"X-RateLimit-Reset": "1796205600"}},
		{name: "X-RateLimit-Reset passed: no wait beyond the backoff", status: 429, header: map[string]string{"X-RateLimit-Reset": "1796119100000"}, from: "x-ratelimit-reset"},
		{name: "OpenRouter: the reset in the error's metadata", status: 429,
			body: `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min.","metadata":{"headers":{"X-RateLimit-Limit":"20","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1796119230000"}}}}`,
			want: 30 * time.Second, from: "x-ratelimit-reset"},
		{name: "OpenRouter: a per-day limit named in the message, no reset", status: 429,
			body: `{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-day-high-balance."}}`, daily: true},
		{name: "a reset that is neither a duration nor seconds is passed over", status: 429, header: map[string]string{"x-ratelimit-reset-tokens": "soon"}},
		{name: "an hour is a day's limit", status: 429, header: map[string]string{"Retry-After": "3600"}, want: time.Hour, from: "Retry-After", daily: true},
		{name: "a minute is not", status: 429, header: map[string]string{"Retry-After": "60"}, want: time.Minute, from: "Retry-After"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got := askedWait(tt.status, h, parseAPIError([]byte(tt.body)), now)
			if got.d != tt.want || got.ok != (tt.from != "") || got.from != tt.from || got.daily != tt.daily || got.quota != tt.quota {
				t.Errorf("got %+v, want %v from %q, daily %v %q", got, tt.want, tt.from, tt.daily, tt.quota)
			}
		})
	}
	// Gemini's per-day quotas reset at midnight Pacific time: 08:00 UTC
	// in December.
	a := askedWait(429, http.Header{}, parseAPIError([]byte(gemini("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "29s"))), now)
	if pacific != nil && a.resetNote(now) != "it resets at midnight Pacific time, 2026-12-02 08:00 UTC" {
		t.Errorf("reset note %q", a.resetNote(now))
	}
	b := askedWait(429, http.Header{"Retry-After": {"7200"}}, nil, now)
	if note := b.resetNote(now); !strings.Contains(note, "asks to wait 2h0m0s (Retry-After), until 2026-12-01 12:00 UTC") {
		t.Errorf("reset note %q", note)
	}
}

// FuzzAskedWait: any headers and error body give a wait in [0, maxWait],
// never a panic.
func FuzzAskedWait(f *testing.F) {
	f.Add(429, "2", "1500", "1s", "6m0s", `[{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}]`)
	f.Add(503, "Tue, 01 Dec 2026 10:00:30 GMT", "", "", "", `{"error":{"message":"x"}}`)
	f.Add(429, "", "", "", "", `[{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"PerDay"}]}]}}]`)
	f.Add(429, "", "", "11.382867097854614", "33011.382867097855", `{"error":"Model is overloaded","error_type":"overloaded"}`)
	f.Add(429, "", "", "1e400", "-3", `{"object":"error","message":"x","code":429}`)
	f.Add(429, "", "", "", "", `{"error":{"code":429,"message":"free-models-per-day","metadata":{"headers":{"X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1796205600000"}}}}`)
	f.Add(429, "", "", "", "", `{"error":{"metadata":{"headers":{"X-RateLimit-Reset":1e308,"X-RateLimit-Remaining":0}}}}`)
	f.Fuzz(func(t *testing.T, status int, retryAfter, retryAfterMS, resetRequests, resetTokens, body string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("retry-after-ms", retryAfterMS)
		h.Set("x-ratelimit-reset-requests", resetRequests)
		h.Set("x-ratelimit-reset-tokens", resetTokens)
		now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		a := askedWait(status, h, parseAPIError([]byte(body)), now)
		if a.d < 0 || a.d > maxWait || (!a.ok && a.d != 0) {
			t.Errorf("wait %+v", a)
		}
		_ = a.resetNote(now)
	})
}
