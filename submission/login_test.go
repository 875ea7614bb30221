package submission

import (
	"strings"
	"testing"
)

func TestParseLogin(t *testing.T) {
	tests := []struct {
		in   string
		want string // in the error, or "" for a login
	}{
		{"kim", ""},
		{"Kim", ""},
		{"example-lab", ""},
		{"a", ""},
		{"0day", ""},
		{"a-b-c", ""},
		{strings.Repeat("x", MaxLoginLen), ""},
		{"benchgate[bot]", ""},
		{"", "empty"},
		{"[bot]", `is '['`},
		{"\u212Aim", "character 1 of \"\u212Aim\" is U+212A, not ASCII"}, // the Kelvin sign
		{"k\u0456m", "character 2 of \"k\u0456m\" is U+0456, not ASCII"}, // Cyrillic і
		{"kim\u200b", "U+200B, not ASCII"},                               // zero-width space
		{"k\xffm", "not ASCII"},
		{"-kim", "starts with a hyphen"},
		{"kim-", "ends with a hyphen"},
		{"ki--m", "two hyphens in a row at character 3"},
		{"ki m", `character 3 of "ki m" is ' '`},
		{"ki_m", `is '_'`},
		{"ki.m", `is '.'`},
		{"kim[bot]x", `is '['`},
		{"k[bot]im", `is '['`},
		{strings.Repeat("x", MaxLoginLen+1), "has 40 characters"},
	}
	for _, tt := range tests {
		got, err := ParseLogin(tt.in)
		switch {
		case tt.want == "" && (err != nil || string(got) != tt.in):
			t.Errorf("ParseLogin(%q) = %q, %v; want the login", tt.in, got, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ParseLogin(%q) = %q, %v; want an error saying %q", tt.in, got, err, tt.want)
		case tt.want != "" && !strings.Contains(err.Error(), LoginRule):
			t.Errorf("ParseLogin(%q): %v does not say the rule", tt.in, err)
		}
	}
}

func TestSameLogin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"kim", "kim", true},
		{"kim", "KIM", true},
		{"Example-Lab", "example-lab", true},
		{"app[bot]", "App[bot]", true},
		{"kim", "kim2", false},
		{"kim", "kim[bot]", false},
		{"\u212Aim", "kim", false}, // strings.EqualFold says true
		{"kim", "\u212Aim", false},
		{"\u212Aim", "\u212Aim", false}, // not a login, so not even itself
		{"k\u0456m", "kim", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := SameLogin(tt.a, tt.b); got != tt.want {
			t.Errorf("SameLogin(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := SameLogin(tt.b, tt.a); got != tt.want {
			t.Errorf("SameLogin(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

// FuzzParseLogin checks what callers rely on: an accepted login is ASCII,
// within GitHub's rule, the input unchanged, and the same login as itself
// in any ASCII case; a refused one says the rule.
func FuzzParseLogin(f *testing.F) {
	for _, s := range []string{"kim", "\u212Aim", "-a", "a--b", "a[bot]", "[bot]", strings.Repeat("z", 40), "k\xffm"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLogin(s)
		if err != nil {
			if l != "" || !strings.Contains(err.Error(), LoginRule) {
				t.Fatalf("ParseLogin(%q) = %q, %v", s, l, err)
			}
			if SameLogin(s, s) {
				t.Fatalf("SameLogin of %q, which is no login, with itself", s)
			}
			return
		}
		if string(l) != s {
			t.Fatalf("ParseLogin(%q) = %q", s, l)
		}
		name := strings.TrimSuffix(s, botSuffix)
		if name == "" || len(name) > MaxLoginLen || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
			t.Fatalf("ParseLogin accepted %q", s)
		}
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				t.Fatalf("ParseLogin accepted the non-ASCII %q", s)
			}
		}
		bot := s[len(name):]
		if !SameLogin(s, strings.ToUpper(name)+bot) || !SameLogin(strings.ToLower(name)+bot, s) {
			t.Fatalf("%q is not the same login in another case", s)
		}
	})
}
