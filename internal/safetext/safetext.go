// Package safetext makes text from contributors safe to repeat: cut to a
// size without splitting a character, and free of the characters that
// hide or reorder what a reader sees (Hidden, Invisible); and it finds
// the words that pass for others in look-alike letters (Confusables).
package safetext

import (
	"unicode"
	"unicode/utf8"
)

// Cut returns the longest prefix of s of at most max bytes that ends on a
// character boundary, that is before a byte that is not a UTF-8
// continuation byte, or at the end of s: s itself when it is short enough.
// A cut of valid UTF-8 is valid UTF-8. A max below zero counts as zero.
// What marks the cut, if anything, is the caller's to add.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max < 0 {
		max = 0
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// Hidden reports whether r is a control character (C0, DEL or C1) or a
// bidirectional embedding, override or isolate (U+202A–U+202E,
// U+2066–U+2069): characters that can move a terminal's cursor, recolour
// its text or reorder a line, so that what is shown is not what is there.
// Right-to-left scripts need none of them. Whether tabs and line breaks
// are allowed is the caller's to decide.
func Hidden(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}
