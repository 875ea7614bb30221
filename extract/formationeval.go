package extract

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// extractFormationEval implements policy formationeval-v0.1. The upstream
// extractor runs Python regular expressions; here each one is a scan over
// the cleaned text, with Python's Unicode rules for \s and \b, so that the
// result is the same for every input while costing one pass or one
// substring search per rule.
func extractFormationEval(s string) Result {
	t := feClean(s)
	if t == "" {
		return Result{}
	}
	if isOption(t[0]) {
		return Result{Letter: letterString(t[0]), Pattern: "first_char", Final: feFirstCharFinal(s)}
	}
	if b, ok := feAfterPhrase(t, "CORRECT ANSWER", true); ok {
		return feResult(b, "correct_answer")
	}
	if b, ok := feAfterPhrase(t, "ANSWER IS", true); ok {
		return feResult(b, "answer_is")
	}
	if b, ok := feAfterPhrase(t, "ANSWER", true); ok {
		return feResult(b, "answer_colon")
	}
	if b, ok := feAfterPhrase(t, "CHOOSE ", false); ok {
		return feResult(b, "choose")
	}
	if b, ok := feAfterPhrase(t, "CHOICE IS", true); ok {
		return feResult(b, "choice_is")
	}
	if b, ok := feAfterPhrase(t, "OPTION ", false); ok {
		return feResult(b, "option")
	}
	if b, ok := feAfterPhrase(t, "SELECT ", false); ok {
		return feResult(b, "select")
	}
	if b, ok := feAfterPhrase(t, "GO WITH ", false); ok {
		return feResult(b, "go_with")
	}
	if b, pat, ok := feLetterRules(t); ok {
		return feResult(b, pat)
	}
	return Result{}
}

func feResult(b byte, pattern string) Result {
	return Result{Letter: letterString(b), Pattern: pattern}
}

// feClean does what the upstream clean-up does, in an order that gives the
// same text: think blocks out, whitespace split and joined with single
// spaces (which also trims), full uppercase, then markdown unwrapping. The
// unwrapping may run after the whitespace join because a match never
// contains whitespace. Invalid UTF-8 (which Python never sees) becomes
// U+FFFD, so the result is valid UTF-8.
func feClean(s string) string {
	if strings.IndexByte(s, '<') >= 0 {
		s = removeBlocks(s, "<thinking>", "</thinking>")
		s = removeBlocks(s, "<think>", "</think>")
	}
	buf := make([]byte, 0, len(s)+8)
	space := false // a whitespace run is pending
	for i := 0; i < len(s); {
		if c := asciiUpper[s[i]]; c > 1 {
			// Copy a run of plain ASCII at once.
			if space {
				buf = append(buf, ' ')
				space = false
			}
			j := i + 1
			for j < len(s) && asciiUpper[s[j]] > 1 {
				j++
			}
			for ; i < j; i++ {
				buf = append(buf, asciiUpper[s[i]])
			}
			continue
		} else if c == 1 {
			space = len(buf) > 0
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if unicode.IsSpace(r) {
			space = len(buf) > 0
			continue
		}
		if space {
			buf = append(buf, ' ')
			space = false
		}
		if up, ok := fullUpper[r]; ok {
			buf = append(buf, up...)
		} else {
			buf = utf8.AppendRune(buf, unicode.ToUpper(r))
		}
	}
	star := bytes.IndexByte(buf, '*') >= 0
	if star {
		buf = unwrapStars(buf)
	}
	return string(buf)
}

// asciiUpper maps an ASCII byte to its uppercase form, a whitespace byte
// (Python's str.isspace, which adds the separators 0x1C–0x1F to the usual
// six) to 1, and a byte that starts or continues a multi-byte character
// to 0.
var asciiUpper = func() (t [256]byte) {
	for c := 0; c < utf8.RuneSelf; c++ {
		switch {
		case c == ' ' || ('\t' <= c && c <= '\r') || (0x1c <= c && c <= 0x1f):
			t[c] = 1
		case 'a' <= c && c <= 'z':
			t[c] = byte(c - ('a' - 'A'))
		default:
			t[c] = byte(c)
		}
	}
	// NUL stays 0 and takes the general path, which copies it unchanged.
	return t
}()

// removeBlocks deletes every open…close block, taking for each opening tag
// the nearest closing tag after it, scanning left to right like Python's
// re.sub with a non-greedy DOTALL pattern.
func removeBlocks(s, open, close string) string {
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], open)
		if j < 0 {
			break
		}
		start := i + j
		k := strings.Index(s[start+len(open):], close)
		if k < 0 {
			// No closing tag after this opening one, hence none after any
			// later one either: nothing more can match.
			break
		}
		b.WriteString(s[i:start])
		i = start + len(open) + k + len(close)
	}
	if i == 0 {
		return s
	}
	b.WriteString(s[i:])
	return b.String()
}

// unwrapStars replaces each "*+X*+" (X one of A–D) by X, leftmost first and
// without overlap, in place.
func unwrapStars(t []byte) []byte {
	w := 0
	for i := 0; i < len(t); {
		k := bytes.IndexByte(t[i:], '*')
		if k < 0 {
			w += copy(t[w:], t[i:])
			break
		}
		w += copy(t[w:], t[i:i+k])
		i += k
		j := i
		for j < len(t) && t[j] == '*' {
			j++
		}
		if j+1 < len(t) && isOption(t[j]) && t[j+1] == '*' {
			t[w] = t[j]
			w++
			i = j + 2
			for i < len(t) && t[i] == '*' {
				i++
			}
			continue
		}
		w += copy(t[w:], t[i:j])
		i = j
	}
	return t[:w]
}

// feFirstCharFinal reports whether first_char is guaranteed to read the
// same letter whatever is appended to s. Think-block removal can only
// start at a "<", so the text before the first "<" is never altered by
// it; if that text alone already yields a letter as its first character
// (a bare letter, or a completely unwrapped "*X*"), appending cannot
// change it.
func feFirstCharFinal(s string) bool {
	if i := strings.IndexByte(s, '<'); i >= 0 {
		s = s[:i]
	}
	t := feClean(s)
	return t != "" && isOption(t[0])
}

// feAfterPhrase finds the first occurrence of phrase in t that is followed
// by an option letter, either directly (colonRun false: the phrase ends in
// the single space that \s+ matches in the cleaned text) or after a run of
// ':' and ' ' (colonRun true: [:\s]+).
func feAfterPhrase(t, phrase string, colonRun bool) (byte, bool) {
	for i := 0; ; {
		j := strings.Index(t[i:], phrase)
		if j < 0 {
			return 0, false
		}
		k := i + j + len(phrase)
		if colonRun {
			m := k
			for m < len(t) && (t[m] == ':' || t[m] == ' ') {
				m++
			}
			if m > k && m < len(t) && isOption(t[m]) {
				return t[m], true
			}
		} else if k < len(t) && isOption(t[k]) {
			return t[k], true
		}
		i += j + 1
	}
}

// feLetterRules applies the rules from parentheses to standalone in order,
// gathering what they need in a single pass over the letters of t.
func feLetterRules(t string) (byte, string, bool) {
	var paren, lparen, lperiod, lcomma, standalone byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isOption(c) {
			continue
		}
		if paren == 0 && i > 0 && t[i-1] == '(' && i+1 < len(t) && t[i+1] == ')' {
			paren = c
		}
		if pyWordBefore(t, i) {
			continue
		}
		if i+1 < len(t) {
			switch t[i+1] {
			case ')':
				if lparen == 0 {
					lparen = c
				}
			case '.':
				if lperiod == 0 {
					lperiod = c
				}
			case ',':
				if lcomma == 0 {
					lcomma = c
				}
			}
		}
		if !pyWordAt(t, i+1) {
			standalone = c
		}
	}
	switch {
	case paren != 0:
		return paren, "parentheses", true
	case lparen != 0:
		return lparen, "letter_paren", true
	case lperiod != 0:
		return lperiod, "letter_period", true
	case lcomma != 0:
		return lcomma, "letter_comma", true
	}
	// start_of_string (^X\b) cannot fire, as first_char would have, but it
	// is kept in its place so the rule list stays the upstream one.
	if isOption(t[0]) && !pyWordAt(t, 1) {
		return t[0], "start_of_string", true
	}
	// end_of_string: the cleaned text has no trailing whitespace.
	if n := len(t) - 1; isOption(t[n]) && !pyWordBefore(t, n) {
		return t[n], "end_of_string", true
	}
	for i := 0; ; {
		j := strings.Index(t[i:], "IS ")
		if j < 0 {
			break
		}
		k := i + j
		if !pyWordBefore(t, k) && k+3 < len(t) && isOption(t[k+3]) && !pyWordAt(t, k+4) {
			return t[k+3], "is_x", true
		}
		i = k + 1
	}
	if standalone != 0 {
		return standalone, "standalone", true
	}
	return 0, "", false
}

// pyWordBefore reports whether the character ending at byte i of t is a
// word character in Python's Unicode sense.
func pyWordBefore(t string, i int) bool {
	if i <= 0 {
		return false
	}
	if c := t[i-1]; c < utf8.RuneSelf {
		return isWordASCII(c)
	}
	r, _ := utf8.DecodeLastRuneInString(t[:i])
	return isWordRune(r)
}

// pyWordAt reports whether the character starting at byte i of t is a word
// character in Python's Unicode sense.
func pyWordAt(t string, i int) bool {
	if i >= len(t) {
		return false
	}
	if c := t[i]; c < utf8.RuneSelf {
		return isWordASCII(c)
	}
	r, _ := utf8.DecodeRuneInString(t[i:])
	return isWordRune(r)
}

func isWordASCII(c byte) bool {
	return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// isWordRune is Python's \w for str patterns: letters, numbers of every
// kind (str.isalnum) and the underscore. Combining marks are not word
// characters there.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isWordASCII(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

func isOption(c byte) bool { return 'A' <= c && c <= 'D' }

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
