package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the text helpers shared by answer-line and flexible.
// They work on bytes: every byte they look for is ASCII, so a multi-byte
// character is never split, and invalid UTF-8 is just more text.

var (
	thinkTags     = []string{"think", "thinking"}
	reasoningTags = []string{"think", "thinking", "reasoning"}
)

// WithoutReasoning removes the reasoning blocks <think>, <thinking> and
// <reasoning> from a reply, by the rule of hideReasoning: what the
// flexible policy reads, and what submission.CleanAnswer grades.
func WithoutReasoning(s string) string { return hideReasoning(s, reasoningTags) }

// hideReasoning removes reasoning blocks: a closed <name>…</name> block is
// dropped, an opening tag that is never closed hides the rest of the text,
// and a closing tag with no opening tag before it hides all that precedes
// it (the opening tag was in the prompt template). Tags match in any
// letter case; any closing tag of the family ends a block, since models
// mix them up.
func hideReasoning(s string, names []string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var out []byte
	pos := 0
	for {
		start, end, closing, ok := nextTag(s, pos, names, false)
		if !ok {
			if pos == 0 {
				return s
			}
			out = append(out, s[pos:]...)
			break
		}
		if closing {
			out = out[:0]
			pos = end
			continue
		}
		out = append(out, s[pos:start]...)
		_, cend, _, ok := nextTag(s, end, names, true)
		if !ok {
			break
		}
		pos = cend
	}
	return string(out)
}

// nextTag finds the next <name> or </name> tag at or after from; with
// closingOnly it finds only closing tags.
func nextTag(s string, from int, names []string, closingOnly bool) (start, end int, closing, ok bool) {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			break
		}
		p := i + j
		q := p + 1
		closing := q < len(s) && s[q] == '/'
		if closing {
			q++
		}
		if closing || !closingOnly {
			for _, n := range names {
				if hasWordFold(s, q, n) && q+len(n) < len(s) && s[q+len(n)] == '>' {
					return p, q + len(n) + 1, closing, true
				}
			}
		}
		i = p + 1
	}
	return 0, 0, false, false
}

// hasWordFold reports whether s[i:] starts with w (lowercase ASCII),
// ignoring ASCII letter case.
func hasWordFold(s string, i int, w string) bool {
	if i < 0 || len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if lowerASCII(s[i+k]) != w[k] {
			return false
		}
	}
	return true
}

// matchWord reports whether the whole word w (lowercase) starts at i: s
// has it there, ignoring case, and no letter or digit follows it.
func matchWord(s string, i int, w string) bool {
	return hasWordFold(s, i, w) && !alnumAt(s, i+len(w))
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func isOptionFold(c byte) bool { return isOption(upperASCII(c)) }

// alnumAt reports whether a letter or digit (any script) starts at byte i.
func alnumAt(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	if c < utf8.RuneSelf {
		return ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// alnumBefore reports whether a letter or digit (any script) ends at byte i.
func alnumBefore(s string, i int) bool {
	if i <= 0 || i > len(s) {
		return false
	}
	c := s[i-1]
	if c < utf8.RuneSelf {
		return alnumAt(s, i-1)
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isMarkup reports emphasis and code marks that wrap a letter in markdown.
func isMarkup(c byte) bool { return c == '*' || c == '_' || c == '`' }

// skipNoise skips whitespace and markdown emphasis.
func skipNoise(s string, i int) int {
	for i < len(s) && (isBlank(s[i]) || isMarkup(s[i])) {
		i++
	}
	return i
}

// skipSpaces skips spaces and tabs (not line breaks).
func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// compoundAt reports whether the letter that ends just before i is glued
// to a following word: "D'Arcy", "A-type", "C/O", "a.k.a.". A capital
// after a period is not ("A.A" is how some responses end).
func compoundAt(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	switch s[i] {
	case '\'', '-', '/':
		return alnumAt(s, i+1)
	case '.':
		return 'a' <= s[i+1] && s[i+1] <= 'z'
	}
	return false
}

// notArticle lists words that may follow a capital A used as a letter ("A
// is correct", "A or B"); any other lowercase word after it makes it the
// English article ("A porous rock").
var notArticle = map[string]bool{
	"or": true, "and": true, "nor": true, "but": true, "is": true, "was": true,
	"are": true, "seems": true, "appears": true, "looks": true, "would": true,
	"could": true, "should": true, "might": true, "must": true, "may": true,
	"can": true, "will": true, "fits": true, "matches": true, "because": true,
	"since": true, "as": true, "vs": true, "versus": true, "then": true,
	"too": true, "also": true, "only": true, "remains": true, "makes": true,
	"gives": true, "describes": true, "states": true, "correctly": true,
	"best": true, "here": true, "therefore": true, "thus": true, "so": true,
	"if": true, "for": true, "in": true, "from": true, "to": true, "with": true,
	"which": true, "that": true, "again": true, "instead": true, "not": true,
}

// articleAfter reports whether the A that ends just before i reads as the
// English article: a space, then a lowercase word of two or more
// characters that is not one of notArticle.
func articleAfter(s string, i int) bool {
	if i >= len(s) || (s[i] != ' ' && s[i] != '\t') {
		return false
	}
	j := skipSpaces(s, i)
	if j >= len(s) || s[j] < 'a' || s[j] > 'z' {
		return false
	}
	k := j
	for alnumAt(s, k) {
		k++
	}
	return k-j >= 2 && !notArticle[s[j:k]]
}

// otherLetterAfter reports whether a second option letter follows at i as
// part of a list, which makes the first one ambiguous: "A, B", "A or B",
// "A/B", "A and (B)".
func otherLetterAfter(s string, i int) bool {
	j := skipSpaces(s, i)
	switch {
	case j < len(s) && (s[j] == ',' || s[j] == '/' || s[j] == '&'):
		j++
	case matchWord(s, j, "or"):
		j += 2
	case matchWord(s, j, "and"), matchWord(s, j, "nor"):
		j += 3
	default:
		return false
	}
	j = skipSpaces(s, j)
	if matchWord(s, j, "or") {
		j = skipSpaces(s, j+2)
	} else if matchWord(s, j, "and") {
		j = skipSpaces(s, j+3)
	}
	j = skipWrapOpen(s, j)
	if matchWord(s, j, "option") {
		j = skipWrapOpen(s, skipSpaces(s, j+6))
	}
	return j < len(s) && isOption(s[j]) && !alnumAt(s, j+1) && !compoundAt(s, j+1) &&
		!(s[j] == 'A' && articleAfter(s, j+1))
}

// skipWrapOpen skips markdown and opening brackets or quotes.
func skipWrapOpen(s string, i int) int {
	for i < len(s) && (isMarkup(s[i]) || isOpener(s[i])) {
		i++
	}
	return i
}

func isOpener(c byte) bool { return c == '(' || c == '[' || c == '{' || c == '"' || c == '\'' }

func isCloser(c byte) bool { return c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' }

// letterOpts tunes readLetter.
type letterOpts struct {
	// strict is for statements without a connector ("answer D."): an
	// unwrapped letter must be a capital and must not run on into a
	// sentence ("answer A is wrong").
	strict bool
}

// readLetter reads an answer letter at i, after a statement's connector:
// markdown, line breaks, a word such as "option" and an opening bracket
// may come first. It returns the letter (uppercase), its position, and
// the position after it and its closing marks.
func readLetter(s string, i int, o letterOpts) (letter byte, at, end int, ok bool) {
	i = skipNoise(s, i)
	for _, w := range [...]string{"option", "choice", "letter"} {
		if matchWord(s, i, w) {
			i = skipNoise(s, i+len(w))
			break
		}
	}
	wrapped := false
	for i < len(s) && (isOpener(s[i]) || isMarkup(s[i])) {
		wrapped = true
		i++
	}
	if i >= len(s) || !isOptionFold(s[i]) {
		return 0, 0, 0, false
	}
	at = i
	c := s[i]
	i++
	if alnumAt(s, i) || compoundAt(s, i) {
		return 0, 0, 0, false
	}
	if o.strict && !wrapped {
		if !isOption(c) {
			return 0, 0, 0, false
		}
		if j := skipSpaces(s, i); j > i && alnumAt(s, j) {
			return 0, 0, 0, false
		}
	}
	closed := false
	for i < len(s) && (isCloser(s[i]) || isMarkup(s[i])) {
		closed = true
		i++
	}
	if !wrapped && !closed && upperASCII(c) == 'A' && articleAfter(s, i) {
		return 0, 0, 0, false
	}
	if otherLetterAfter(s, i) {
		return 0, 0, 0, false
	}
	return upperASCII(c), at, i, true
}
