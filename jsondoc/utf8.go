package jsondoc

import "unicode/utf8"

// validRune reports the width of the UTF-8 sequence at the start of b and
// whether it is valid. A literal U+FFFD in the file is valid text.
func validRune(b []byte) (int, bool) {
	r, size := utf8.DecodeRune(b)
	return size, !(r == utf8.RuneError && size <= 1)
}

func appendRune(b []byte, r rune) []byte { return utf8.AppendRune(b, r) }
