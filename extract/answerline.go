package extract

import "strings"

// extractAnswerLine implements policy answer-line. It never sets Final:
// whatever a prefix says, a continuation may add a later answer line.
func extractAnswerLine(s string) Result {
	body := hideReasoning(s, thinkTags)
	lo := lowerString(body)
	best := -1
	var letter byte
	for i := 0; ; {
		j := strings.Index(lo[i:], "answer")
		if j < 0 {
			break
		}
		k := i + j
		i = k + 1
		if alnumBefore(lo, k) || alnumAt(lo, k+6) {
			continue // "answered", "reanswer"
		}
		q := skipInline(body, k+6)
		switch {
		case q < len(body) && body[q] == ':':
			q++
		case matchWord(lo, q, "is"):
			q = skipInline(body, q+2)
			if q < len(body) && body[q] == ':' {
				q++
			}
		default:
			continue
		}
		if c, at, _, ok := readLetter(body, q, letterOpts{}); ok && at > best {
			best, letter = at, c
		}
	}
	if best >= 0 {
		return Result{Letter: letterString(letter), Pattern: "answer_statement"}
	}
	if c, ok := bareLetter(body); ok {
		return Result{Letter: letterString(c), Pattern: "bare_letter"}
	}
	return Result{}
}

// bareLetter reports whether s is nothing but one letter, possibly wrapped
// in brackets, quotes or markdown and followed by punctuation: "B", "(b)",
// "**B**", "B.".
func bareLetter(s string) (byte, bool) {
	s = strings.TrimSpace(s)
	i := skipWrapOpen(s, 0)
	if i >= len(s) || !isOptionFold(s[i]) {
		return 0, false
	}
	for j := i + 1; j < len(s); j++ {
		if !isCloser(s[j]) && !isMarkup(s[j]) && !isBlank(s[j]) && strings.IndexByte(".:!", s[j]) < 0 {
			return 0, false
		}
	}
	return upperASCII(s[i]), true
}

// skipInline skips spaces, tabs and markdown emphasis, staying on the line.
func skipInline(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || isMarkup(s[i])) {
		i++
	}
	return i
}

// lowerString lowercases ASCII letters only, so that byte offsets in the
// result are offsets in s.
func lowerString(s string) string {
	k := 0
	for k < len(s) && (s[k] < 'A' || s[k] > 'Z') {
		k++
	}
	if k == len(s) {
		return s
	}
	b := []byte(s)
	for i := k; i < len(b); i++ {
		b[i] = lowerASCII(b[i])
	}
	return string(b)
}
