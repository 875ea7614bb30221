package hfhub

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// RateLimit is one RateLimit header: the bucket, what is left of it in the
// current window, and when the window resets (hf-hub.md §4: the Hub's
// buckets "api", "resolvers" and "pages" count fixed 5-minute windows and
// answer `RateLimit: "api";r=<remaining>;t=<seconds>` on every response).
type RateLimit struct {
	Bucket    string
	Remaining int
	Reset     time.Duration
}

// The same reading as huggingface_hub's (utils/_http.py, hf-hub.md §4).
var rateLimitRE = regexp.MustCompile(`^"(\w+)"\s*;\s*r\s*=\s*(\d+)\s*;\s*t\s*=\s*(\d+)`)

// ParseRateLimit reads a RateLimit header.
func ParseRateLimit(h string) (RateLimit, error) {
	m := rateLimitRE.FindStringSubmatch(strings.TrimSpace(h))
	if m == nil {
		return RateLimit{}, fmt.Errorf("RateLimit header %q: want \"bucket\";r=<remaining>;t=<seconds>", clip(h))
	}
	r, err1 := strconv.Atoi(m[2])
	t, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil || t > 24*3600 {
		return RateLimit{}, fmt.Errorf("RateLimit header %q: numbers out of range", clip(h))
	}
	return RateLimit{Bucket: m[1], Remaining: r, Reset: time.Duration(t) * time.Second}, nil
}
