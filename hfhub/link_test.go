package hfhub

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseLink(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "", ""},
		{`<https://huggingface.co/api/datasets/a/b/tree/main?cursor=x>; rel="next"`, "https://huggingface.co/api/datasets/a/b/tree/main?cursor=x", ""},
		{`<https://h/p?page=1>; rel="prev", <https://h/p?page=3>; rel="next", <https://h/p?page=9>; rel="last"`, "https://h/p?page=3", ""},
		{`<https://h/a,b>; rel=next`, "https://h/a,b", ""},
		{`<https://h/x>; title="a, b; c"; rel="prefetch next"`, "https://h/x", ""},
		{`<https://h/x>; rel="prev"`, "", ""},
		{`<https://h/x>; REL="NEXT"`, "https://h/x", ""},
		{`https://h/x; rel="next"`, "", "expected '<'"},
		{`<https://h/x; rel="next"`, "", "no '>'"},
		{`<https://h/x>; rel="next`, "", "unterminated"},
		{`<https://h/x>; rel="next", <https://h/y>; rel="next"`, "", "two different"},
		{`<https://h/x> rel="next"`, "", "expected ',' or ';'"},
	} {
		got, err := ParseLink(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseLink(%q): %v, want an error saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseLink(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseLink(f *testing.F) {
	f.Add(`<https://huggingface.co/api/datasets/a/b/tree/main?cursor=x>; rel="next"`, "https://h/p?x=1")
	f.Add(`<a>; rel="prev", <b>; rel="next"`, "b")
	f.Add(`<x>; title="a\"b"; rel=next`, "")
	f.Fuzz(func(t *testing.T, header, target string) {
		// Any input: no panic.
		_, _ = ParseLink(header)
		// A target written as a next link reads back.
		if strings.ContainsAny(target, "<>") {
			return
		}
		got, err := ParseLink(fmt.Sprintf(`<https://h/p>; rel="prev", <%s>; rel="next"`, target))
		if err != nil || got != target {
			t.Fatalf("round trip of %q: %q, %v", target, got, err)
		}
	})
}

func TestParseRateLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RateLimit
		err  bool
	}{
		{`"api";r=0;t=120`, RateLimit{"api", 0, 120 * time.Second}, false},
		{`"resolvers" ; r = 4999 ; t = 1`, RateLimit{"resolvers", 4999, time.Second}, false},
		{`api;r=1;t=2`, RateLimit{}, true},
		{`"api";t=2;r=1`, RateLimit{}, true},
		{`"api";r=1;t=99999999`, RateLimit{}, true},
	} {
		got, err := ParseRateLimit(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseRateLimit(%q) = %+v, %v", tc.in, got, err)
		}
	}
}
