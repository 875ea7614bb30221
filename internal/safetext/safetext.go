// Package safetext makes text from contributors safe to repeat: cut to a
// size without splitting a character.
package safetext

import "unicode/utf8"

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
