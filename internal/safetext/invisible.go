package safetext

import (
	"fmt"
	"unicode"
)

// invisibleKinds are the characters that render as nothing, or change how
// the text around them is shown, with the name a message gives each kind.
// The first that matches names a character. None of them has a use in a
// technical answer or a name on a leaderboard; each can carry text a
// reader does not see (tag characters spell ASCII invisibly, a run of
// variation selectors encodes bytes) or split a word so that a reader and
// a model see different text.
var invisibleKinds = []struct {
	name string
	is   func(rune) bool
}{
	{"a tag character", func(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }},
	{"a zero-width character", func(r rune) bool { return r >= 0x200B && r <= 0x200D || r == 0x2060 || r == 0xFEFF }},
	{"a bidirectional control", func(r rune) bool {
		return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
	}},
	{"a control character", unicode.IsControl},
	{"a variation selector of the supplement", func(r rune) bool { return r >= 0xE0100 && r <= 0xE01EF }},
	{"an invisible format character", func(r rune) bool { return unicode.Is(unicode.Cf, r) }},
}

// Invisible reports whether r is a character that hides or reorders text
// (see Describe): every control character, every format character
// (general category Cf: tag characters, zero-width characters,
// bidirectional controls and the rest) and the variation selectors of the
// supplement (U+E0100–U+E01EF). It holds wherever Hidden does. Whether
// tabs and line breaks are allowed is the caller's to decide.
func Invisible(r rune) bool { return kind(r) != "" }

func kind(r rune) string {
	for _, k := range invisibleKinds {
		if k.is(r) {
			return k.name
		}
	}
	return ""
}

// Describe names an invisible character by code point and kind, as an
// error message shows it: "U+E0041 (a tag character)".
func Describe(r rune) string {
	if k := kind(r); k != "" {
		return fmt.Sprintf("U+%04X (%s)", r, k)
	}
	return fmt.Sprintf("U+%04X", r)
}

// FindInvisible returns the first character of s that Invisible reports,
// and where it is: at is its position in characters, counted from 1, and
// line its line, counted from 1. When multiline, tabs and line breaks
// (LF, CR) are allowed. A zero-width joiner between two emoji is allowed
// too: it is how an emoji sequence (👩‍🔬) is written, shown as one
// picture, and splits no word. Invalid UTF-8 is not reported: it is the
// parser's to refuse.
func FindInvisible(s string, multiline bool) (r rune, at, line int, found bool) {
	at, line = 0, 1
	prev := rune(-1)
	for i, c := range s {
		at++
		switch {
		case multiline && (c == '\n' || c == '\r' || c == '\t'):
			if c == '\n' {
				line++
			}
		case c == zwj && emojiBefore(prev) && emojiAfter(s[i+len(string(zwj)):]):
		case Invisible(c):
			return c, at, line, true
		}
		prev = c
	}
	return 0, 0, 0, false
}

const zwj = '\u200d'

// emojiBefore reports whether r can end an emoji before a joiner: a
// pictograph (a symbol of category So), a skin-tone modifier or the emoji
// variation selector U+FE0F.
func emojiBefore(r rune) bool {
	return r >= 0 && unicode.Is(unicode.So, r) || r >= 0x1F3FB && r <= 0x1F3FF || r == 0xFE0F
}

// emojiAfter reports whether rest starts with a pictograph.
func emojiAfter(rest string) bool {
	for _, r := range rest {
		return unicode.Is(unicode.So, r)
	}
	return false
}
