package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"", 0, ""},
		{"", 5, ""},
		{"abc", 3, "abc"},
		{"abc", 10, "abc"},
		{"abcdef", 3, "abc"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"é", 1, ""},         // two bytes: not half of it
		{"aé", 2, "a"},       // 'a', then the first byte of é
		{"aé", 3, "aé"},      // whole
		{"日本語", 7, "日本"},     // three bytes each
		{"日本語", 5, "日"},      // never two bytes of 本
		{"😀x", 3, ""},        // four bytes
		{"😀x", 4, "😀"},       // the emoji, not the x
		{"e\u0301e", 2, "e"}, // by code point, not grapheme: the accent is cut off its e
		{"e\u0301e", 3, "e\u0301"},
		{"ab\xffcd", 2, "ab"}, // 0xFF is no continuation byte: a cut may end before it
		{"ab\xffcd", 3, "ab\xff"},
		{"ab\x80\x80cd", 3, "a"}, // but never before a continuation byte, even a stray one
		{"\x80\x80\x80", 2, ""},
	}
	for _, tt := range tests {
		if got := Cut(tt.s, tt.max); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
	long := strings.Repeat("é", 1000)
	if got := Cut(long, 1001); len(got) != 1000 || !utf8.ValidString(got) {
		t.Errorf("Cut of 2000 bytes of é to 1001: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}

// FuzzCut checks that a cut is a prefix of at most max bytes, the whole
// string when it fits, valid UTF-8 when the input is, and as long as it
// can be: it ends on a character boundary, with none between it and max.
func FuzzCut(f *testing.F) {
	for _, s := range []string{"", "abc", "é日本語😀", "e\u0301", "ab\xffcd", "\x80\x80", strings.Repeat("日", 100)} {
		for _, n := range []int{-1, 0, 1, 2, 3, 4, 7, 300} {
			f.Add(s, n)
		}
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Cut(s, n)
		if !strings.HasPrefix(s, got) {
			t.Fatalf("Cut(%q, %d) = %q, not a prefix", s, n, got)
		}
		if len(got) > max(n, 0) {
			t.Fatalf("Cut(%q, %d) = %q: %d bytes", s, n, got, len(got))
		}
		if len(s) <= n && got != s {
			t.Fatalf("Cut(%q, %d) = %q, but the whole fits", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Cut(%q, %d) = %q, not valid UTF-8", s, n, got)
		}
		if len(got) < len(s) {
			if len(got) > 0 && !utf8.RuneStart(s[len(got)]) {
				t.Fatalf("Cut(%q, %d) = %q ends inside a character", s, n, got)
			}
			for i := len(got) + 1; i <= n && i < len(s); i++ {
				if utf8.RuneStart(s[i]) {
					t.Fatalf("Cut(%q, %d) = %q, but %d bytes end on a boundary too", s, n, got, i)
				}
			}
		}
	})
}

func TestHidden(t *testing.T) {
	for _, r := range []rune{0, '\a', '\b', '\t', '\n', '\r', 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9B, 0x9F,
		0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069} {
		if !Hidden(r) {
			t.Errorf("Hidden(%U) = false", r)
		}
	}
	for _, r := range []rune{' ', 'a', '~', 0xA0, 'é', 'א', 'ع', '日', 0x200E, 0x200F, 0x2029, 0x2065, 0x206A, 0xFEFF, utf8.RuneError, '😀'} {
		if Hidden(r) {
			t.Errorf("Hidden(%U) = true", r)
		}
	}
}
