package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file reads how long a failing answer asks to wait, wherever the
// provider says it, and tells a limit that a wait within a run cures from
// one that only the next day does.

const (
	// dailyWait is the wait from which a limit is taken for a per-day
	// one: no run waits it out call by call.
	dailyWait = time.Hour
	// maxWait bounds what is read, so that no value overflows.
	maxWait = 7 * 24 * time.Hour
)

// asked is the wait an answer asks for.
type asked struct {
	d    time.Duration // how long; 0 when none was asked
	ok   bool          // a wait was asked
	from string        // where: a header's name, or Gemini's RetryInfo

	// daily: the answer says a per-day quota is spent (Gemini's
	// QuotaFailure), or asks to wait dailyWait or more. quota names it.
	daily bool
	quota string
}

// askedWait reads the wait a failing answer asks for: Azure's
// retry-after-ms, then Retry-After (seconds or an HTTP date), then
// Gemini's RetryInfo.retryDelay in the error's details, then, on a 429,
// the x-ratelimit-reset-* headers (see resetWait), in the answer or, from
// OpenRouter, in the error's metadata.
func askedWait(status int, h http.Header, e *apiError, now time.Time) asked {
	var a asked
	if v := h.Get("retry-after-ms"); v != "" {
		// https://learn.microsoft.com/azure/ai-foundry/openai/how-to/quota
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			a = asked{d: clampWait(ms / 1000), ok: true, from: "retry-after-ms"}
		}
	}
	if !a.ok {
		if d, ok := parseRetryAfter(h.Get("Retry-After"), now); ok {
			a = asked{d: d, ok: true, from: "Retry-After"}
		}
	}
	info := geminiDetails(e)
	if !a.ok && info.retryDelay != "" {
		if d, err := time.ParseDuration(info.retryDelay); err == nil && d >= 0 {
			a = asked{d: min(d, maxWait), ok: true, from: "RetryInfo.retryDelay"}
		}
	}
	if !a.ok && status == http.StatusTooManyRequests {
		a = resetWait(h, now)
		if !a.ok {
			a = resetWait(e.headers(), now)
		}
	}
	a.quota = info.dailyQuota
	a.daily = a.quota != "" || (a.ok && a.d >= dailyWait)
	if status == http.StatusTooManyRequests && e != nil && perDay(e.Message) && !a.daily {
		// OpenRouter's "Rate limit exceeded: free-models-per-day": the
		// message names the limit, when no reset says how far it is.
		a.daily = !a.ok
	}
	return a
}

// resetWait reads when the limits a 429 names are back, from the
// x-ratelimit-reset-LIMIT headers beside x-ratelimit-remaining-LIMIT:
// OpenAI's and Groq's LIMIT is requests or tokens, their value a duration
// such as "1s", "6m0s" or "20ms"
// (https://platform.openai.com/docs/guides/rate-limits,
// https://console.groq.com/docs/rate-limits); Cerebras names the window
// too, as in requests-day and tokens-minute, and gives seconds with a
// fraction, such as "11.38"
// (https://inference-docs.cerebras.ai/support/rate-limits). The limit
// whose remaining count is 0 is the one hit: the wait is the longest of
// theirs. When none says so, it is the longest reset under dailyWait: a
// limit not spent that resets tomorrow is not the one to wait for, and
// is no reason to stop the run. A single x-ratelimit-reset, as OpenRouter
// sends it, is a time: epoch milliseconds or seconds.
func resetWait(h http.Header, now time.Time) asked {
	const prefix = "X-Ratelimit-Reset"
	var names []string
	for k := range h {
		if k == prefix || strings.HasPrefix(k, prefix+"-") && len(k) > len(prefix)+1 {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var spent, other asked
	for _, name := range names {
		d, ok := parseReset(h.Get(name))
		if name == prefix {
			d, ok = parseResetTime(h.Get(name), now)
		}
		if !ok {
			continue
		}
		w := asked{d: d, ok: true, from: strings.ToLower(name)}
		remaining := strings.TrimSpace(h.Get("X-Ratelimit-Remaining" + name[len(prefix):]))
		switch {
		case remaining == "0":
			if !spent.ok || d > spent.d {
				spent = w
			}
		case d < dailyWait && (!other.ok || d > other.d):
			other = w
		}
	}
	if spent.ok {
		return spent
	}
	return other
}

// parseReset reads a reset header's value: a duration ("1s", "6m0s") or
// seconds ("11.38"), at most maxWait.
func parseReset(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return min(d, maxWait), true
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && !math.IsNaN(secs) {
		return clampWait(secs), true
	}
	return 0, false
}

// parseResetTime reads a reset time as epoch milliseconds or seconds,
// told apart by size, and returns how long until then, at most maxWait.
// A smaller number is seconds to wait.
func parseResetTime(v string, now time.Time) (time.Duration, bool) {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || n < 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, false
	}
	var at time.Time
	switch {
	case n >= 1e12:
		at = time.UnixMilli(int64(min(n, 1e15)))
	case n >= 1e9:
		at = time.Unix(int64(n), 0)
	default:
		return clampWait(n), true
	}
	return min(max(at.Sub(now), 0), maxWait), true
}

// clampWait is secs seconds, at most maxWait.
func clampWait(secs float64) time.Duration {
	if secs >= maxWait.Seconds() {
		return maxWait
	}
	return time.Duration(secs * float64(time.Second))
}

// gemini is what Gemini's error details say about waiting.
type gemini struct {
	retryDelay string // RetryInfo.retryDelay, such as "37s"
	dailyQuota string // the quotaId (or metric) of a per-day QuotaFailure violation
}

// geminiDetails reads the google.rpc details of Gemini's error: RetryInfo
// and QuotaFailure, whose quotaId says which limit was hit, such as
// GenerateRequestsPerDayPerProjectPerModel-FreeTier
// (https://ai.google.dev/gemini-api/docs/rate-limits,
// https://cloud.google.com/apis/design/errors#error_details).
func geminiDetails(e *apiError) gemini {
	var g gemini
	if e == nil || len(e.Details) == 0 {
		return g
	}
	var details []struct {
		Type       string `json:"@type"`
		RetryDelay string `json:"retryDelay"`
		Violations []struct {
			QuotaMetric string `json:"quotaMetric"`
			QuotaID     string `json:"quotaId"`
		} `json:"violations"`
	}
	if json.Unmarshal(e.Details, &details) != nil {
		return g
	}
	for _, d := range details {
		switch {
		case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
			g.retryDelay = strings.TrimSpace(d.RetryDelay)
		case strings.HasSuffix(d.Type, "google.rpc.QuotaFailure"):
			for _, v := range d.Violations {
				for _, s := range []string{v.QuotaID, v.QuotaMetric} {
					if perDay(s) && g.dailyQuota == "" {
						g.dailyQuota = clip(s)
					}
				}
			}
		}
	}
	return g
}

// perDay reports whether a quota's name says it is counted per day.
func perDay(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "perday") || strings.Contains(s, "per_day") || strings.Contains(s, "per-day") || strings.Contains(s, "daily")
}

// pacific is where Gemini's per-day quotas reset, at midnight
// (https://ai.google.dev/gemini-api/docs/rate-limits); nil when the time
// zone database is not available.
var pacific, _ = time.LoadLocation("America/Los_Angeles")

// resetNote says when a per-day limit lifts: for Gemini's per-day quota at
// the next midnight Pacific time, else after the wait asked for.
func (a asked) resetNote(now time.Time) string {
	switch {
	case a.quota != "" && pacific != nil:
		t := now.In(pacific)
		next := time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, pacific)
		return fmt.Sprintf("it resets at midnight Pacific time, %s", next.UTC().Format("2006-01-02 15:04 MST"))
	case a.quota != "":
		return "it resets at midnight Pacific time"
	case a.ok && a.d > 0:
		return fmt.Sprintf("the endpoint asks to wait %v (%s), until %s", a.d.Round(time.Second), a.from, now.Add(a.d).UTC().Format("2006-01-02 15:04 MST"))
	}
	return "it resets within a day"
}
