package safetext

import (
	"slices"
	"strings"
	"unicode"

	"github.com/mtibben/confusables"
)

// A Confusable is a word that mixes scripts and reads, to a person or a
// model, as a word of Latin letters: "АWАRD" written with Cyrillic А.
type Confusable struct {
	Word     string // as written
	Skeleton string // its Unicode TR39 skeleton, in basic Latin letters
	Reads    string // the word with its letters of other scripts replaced by their skeletons
	Scripts  []string
	At       int // the position of its first character, counted from 1
}

// Confusables returns the words of s that mix scripts and whose TR39
// skeleton (confusables.Skeleton, built from Unicode's confusables.txt)
// is in basic Latin letters (see latinOnly): look-alikes of a Latin word,
// which no honest text needs. A word is a run of letters, marks and
// digits; a letter of script Common or Inherited belongs to any. A word
// written in one script, Latin or another, is never reported, nor is a
// mixed word whose skeleton keeps a letter of another script (μm).
func Confusables(s string) []Confusable {
	var out []Confusable
	eachWord(s, func(word string, _, at int) {
		if c, ok := confusable(word, at); ok {
			out = append(out, c)
		}
	})
	return out
}

// confusable checks one word, at position at (see Confusables).
func confusable(word string, at int) (Confusable, bool) {
	scripts := scriptsOf(word)
	if len(scripts) < 2 {
		return Confusable{}, false
	}
	if notation(word) {
		return Confusable{}, false
	}
	sk := confusables.Skeleton(word)
	if !latinOnly(sk) {
		return Confusable{}, false
	}
	return Confusable{Word: word, Skeleton: sk, Reads: reads(word), Scripts: scripts, At: at}, true
}

// reads returns word with each letter of another script than Latin whose
// skeleton is in basic Latin replaced by that skeleton.
func reads(word string) string {
	var b strings.Builder
	for _, r := range word {
		if script(r) != "Latin" {
			if sk := confusables.Skeleton(string(r)); latinOnly(sk) {
				b.WriteString(sk)
				continue
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Unconfuse returns s with each confusable word (see Confusables) as it
// reads (Confusable.Reads): the text as a reader takes it, for checks that
// look for Latin words.
func Unconfuse(s string) string {
	var b strings.Builder
	last := 0
	eachWord(s, func(word string, off, at int) {
		c, ok := confusable(word, at)
		if !ok {
			return
		}
		b.WriteString(s[last:off])
		b.WriteString(c.Reads)
		last = off + len(word)
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// notation reports whether word, of Latin and Greek letters, is written
// as the sciences write symbols: Greek small letters only at its ends,
// with Latin subscripts or a Latin function name (σv, ρma, ρfgh, sinα).
// A Greek capital (Α, Ο, Ρ read as A, O, P), a Greek letter between two
// Latin ones (mαrks), or a letter of any other script is not notation.
func notation(word string) bool {
	rs := []rune(word)
	for i, r := range rs {
		switch sc := script(r); {
		case sc == "Latin", sc == "Common", sc == "Inherited":
		case sc == "Greek" && unicode.IsLower(r):
			if hasLatin(rs[:i]) && hasLatin(rs[i+1:]) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// hasLatin reports whether rs holds a Latin letter.
func hasLatin(rs []rune) bool {
	for _, r := range rs {
		if unicode.IsLetter(r) && script(r) == "Latin" {
			return true
		}
	}
	return false
}

// eachWord calls f with each word of s, its offset in bytes and the
// position of its first character, counted from 1.
func eachWord(s string, f func(word string, off, at int)) {
	start, startAt, pos := -1, 0, 0
	for i, r := range s {
		pos++
		inWord := unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)
		switch {
		case inWord && start < 0:
			start, startAt = i, pos
		case !inWord && start >= 0:
			f(s[start:i], start, startAt)
			start = -1
		}
	}
	if start >= 0 {
		f(s[start:], start, startAt)
	}
}

// scriptsOf returns the scripts of word's characters, Common and
// Inherited left out, in the order met. A run of one script costs one
// table lookup a character.
func scriptsOf(word string) []string {
	var out []string
	var last *unicode.RangeTable
	for _, r := range word {
		if last != nil && unicode.Is(last, r) {
			continue
		}
		sc, t := scriptOf(r)
		last = t
		if sc == "" || sc == "Common" || sc == "Inherited" {
			continue
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// latinOnly reports whether s holds a letter and every letter of s is one
// of basic Latin's (A–Z, a–z; a skeleton is decomposed, so accents are
// marks of their own). Not any Latin letter: the symbols of the sciences
// have look-alikes among Latin's extensions (φ is ɸ's, δ is ẟ's), so that
// φe or δ18O would be taken for a Latin word, and a word meant to be read
// as an order is written in basic Latin.
func latinOnly(s string) bool {
	letter := false
	for _, r := range s {
		if !unicode.IsLetter(r) {
			continue
		}
		letter = true
		if r >= 0x80 {
			return false
		}
	}
	return letter
}

// script names r's Unicode script ("" when it has none).
func script(r rune) string {
	sc, _ := scriptOf(r)
	return sc
}

// commonScripts are looked up first, the scripts of most text.
var commonScripts = []string{"Latin", "Common", "Inherited", "Cyrillic", "Greek", "Han", "Hiragana", "Katakana", "Hangul", "Arabic", "Hebrew", "Devanagari", "Thai"}

// scriptOf returns r's Unicode script and its table: the usual ones
// first, then every script the unicode package knows.
func scriptOf(r rune) (string, *unicode.RangeTable) {
	if r < 0x80 {
		if unicode.IsLetter(r) {
			return "Latin", unicode.Latin
		}
		return "Common", unicode.Common
	}
	for _, name := range commonScripts {
		if t := unicode.Scripts[name]; unicode.Is(t, r) {
			return name, t
		}
	}
	for name, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return name, t
		}
	}
	return "", nil
}
