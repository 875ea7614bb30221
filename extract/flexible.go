package extract

import "strings"

// extractFlexible implements policy flexible; the package documentation
// lists its rules. It never sets Final: a continuation can always add a
// later statement, or close a reasoning block that hides what came before.
func extractFlexible(s string) Result {
	body := hideReasoning(s, reasoningTags)
	lo := lowerString(body)
	if c, pat, ok := flexStatement(body, lo); ok {
		return Result{Letter: letterString(c), Pattern: pat}
	}
	if c, ok := lastLine(body); ok {
		return Result{Letter: letterString(c), Pattern: "last_line"}
	}
	if c, ok := leadingLetter(body); ok {
		return Result{Letter: letterString(c), Pattern: "leading_letter"}
	}
	if c, ok := trailingLetter(body, lo); ok {
		return Result{Letter: letterString(c), Pattern: "trailing_letter"}
	}
	if c, ok := singleLetter(body, lo); ok {
		return Result{Letter: letterString(c), Pattern: "single_letter"}
	}
	return Result{}
}

// statement is the latest answer statement seen so far.
type statement struct {
	at      int // position of the letter; -1 when none
	letter  byte
	pattern string
}

func (st *statement) offer(c byte, at int, pattern string) {
	if at > st.at {
		st.at, st.letter, st.pattern = at, c, pattern
	}
}

// flexStatement returns the last strong statement (\boxed, "answer ...")
// or, when there is none, the last weak one ("choice is", "X is correct",
// "I choose"). Weak statements come second because an explanation after
// the answer often discusses other options ("Answer: B. Option A is
// correct only for carbonates ..."). One pass over the words finds every
// keyword, which is several times cheaper than a search per keyword.
func flexStatement(s, lo string) (byte, string, bool) {
	strong := statement{at: -1}
	weak := statement{at: -1}
	for k := 0; k < len(lo); {
		if c := lo[k]; c < 'a' || c > 'z' {
			k++
			continue
		}
		e := k + 1
		for e < len(lo) && 'a' <= lo[e] && lo[e] <= 'z' {
			e++
		}
		if keywordShape[lo[k]-'a']&(1<<min(e-k, 31)) != 0 && !alnumBefore(lo, k) && !alnumAt(lo, e) {
			flexKeyword(s, lo, k, e, &strong, &weak)
		}
		k = e
	}
	if strong.at >= 0 {
		return strong.letter, strong.pattern, true
	}
	if weak.at >= 0 {
		return weak.letter, weak.pattern, true
	}
	return 0, "", false
}

// keywords are the words that can start a statement.
var keywords = [...]string{"answer", "boxed", "choice", "option", "is", "choose", "chose", "choosing", "select", "selecting", "pick", "picking", "go", "going", "opt"}

// keywordShape has, for each first letter, a bit for each length of a
// keyword starting with it, so that most words are ruled out without a
// comparison.
var keywordShape = func() (t [26]uint32) {
	for _, w := range keywords {
		t[w[0]-'a'] |= 1 << len(w)
	}
	return t
}()

// flexKeyword offers the statement that the word lo[k:e] starts, if any.
func flexKeyword(s, lo string, k, e int, strong, weak *statement) {
	switch w := lo[k:e]; w {
	case "boxed":
		if k > 0 && lo[k-1] == '\\' && e < len(lo) && lo[e] == '{' {
			if c, at, ok := boxedLetter(s, e+1); ok {
				strong.offer(c, at, "boxed")
			}
		}
	case "answer":
		if negatedBefore(lo, k) {
			return
		}
		q := skipInline(s, e)
		for _, w := range [...]string{"choice", "option", "letter"} {
			if matchWord(lo, q, w) {
				q = skipInline(s, q+len(w))
				break
			}
		}
		q, strict := connector(s, lo, q)
		if c, at, _, ok := readLetter(s, q, letterOpts{strict: strict}); ok {
			strong.offer(c, at, "answer_statement")
		}
	case "choice", "option":
		if negatedBefore(lo, k) {
			return
		}
		q, strict := connector(s, lo, skipInline(s, e))
		if strict {
			return // "option C" alone is a mention, not a statement
		}
		if c, at, _, ok := readLetter(s, q, letterOpts{}); ok {
			weak.offer(c, at, "choice_statement")
		}
	case "is":
		if c, at, ok := letterIsCorrect(s, lo, k); ok {
			weak.offer(c, at, "choice_statement")
		}
	case "choose", "chose", "choosing", "select", "selecting", "pick", "picking", "go", "going", "opt":
		// A verb that picks: "choose", "select", "pick", "go with", "opt for".
		switch w {
		case "go", "going":
			if e >= len(lo) || lo[e] != ' ' || !matchWord(lo, e+1, "with") {
				return
			}
			e += len(" with")
		case "opt":
			if e >= len(lo) || lo[e] != ' ' || !matchWord(lo, e+1, "for") {
				return
			}
			e += len(" for")
		}
		if negatedBefore(lo, k) {
			return
		}
		q := skipInline(s, e)
		if matchWord(lo, q, "answer") {
			q = skipInline(s, q+len("answer"))
		}
		if c, at, _, ok := readLetter(s, q, letterOpts{}); ok {
			weak.offer(c, at, "pick_statement")
		}
	}
}

// connector skips what links a statement's keyword to its letter: ":",
// "=", "-", a dash, "is", "would be" and the like, and adverbs such as
// "therefore". It reports strict when there is no connector at all, so
// that the letter must stand alone ("answer D.").
func connector(s, lo string, q int) (int, bool) {
	if q >= len(s) {
		return q, true
	}
	switch {
	case s[q] == ':' || s[q] == '=' || s[q] == '-':
		return q + 1, false
	case strings.HasPrefix(s[q:], "–") || strings.HasPrefix(s[q:], "—"):
		return q + len("–"), false
	}
	for _, w := range [...]string{"is", "was", "would be", "will be", "should be", "must be", "seems to be", "appears to be"} {
		if matchWord(lo, q, w) {
			q = skipInline(s, q+len(w))
			if q < len(s) && s[q] == ':' {
				q = skipInline(s, q+1)
			}
			for n := 0; n < 2; n++ {
				adverb := false
				for _, a := range [...]string{"therefore", "thus", "hence", "clearly", "likely", "probably", "most", "definitely", "certainly", "indeed", "actually"} {
					if matchWord(lo, q, a) {
						q = skipInline(s, q+len(a))
						if q < len(s) && s[q] == ',' {
							q = skipInline(s, q+1)
						}
						adverb = true
						break
					}
				}
				if !adverb {
					break
				}
			}
			return q, false
		}
	}
	return q, true
}

// negators are words that, just before a statement, mean it does not
// state the answer: "not the answer", "if the answer is A".
var negators = map[string]bool{
	"not": true, "don't": true, "dont": true, "never": true, "wouldn't": true,
	"shouldn't": true, "cannot": true, "can't": true, "isn't": true, "no": true,
	"if": true, "whether": true, "unless": true, "suppose": true, "assuming": true,
	"nor": true, "than": true, "except": true, "without": true,
}

// negatedBefore reports whether one of the three words before k, within
// the same clause, is a negator.
func negatedBefore(lo string, k int) bool { return negatedWithin(lo, k, 3) }

// negatedWithin reports whether one of the n words before k, within the
// same clause, is a negator. lo must be lowercase.
func negatedWithin(lo string, k, n int) bool {
	i := k
	for ; n > 0; n-- {
		for i > 0 && (lo[i-1] == ' ' || lo[i-1] == '\t' || isMarkup(lo[i-1]) || (isOpener(lo[i-1]) && lo[i-1] != '\'')) {
			i--
		}
		j := i
		for j > 0 && (('a' <= lo[j-1] && lo[j-1] <= 'z') || lo[j-1] == '\'') {
			j--
		}
		if j == i {
			return false // punctuation ends the clause
		}
		if negators[lo[j:i]] {
			return true
		}
		i = j
	}
	return false
}

// boxedLetter reads the letter of \boxed{X}, also \boxed{(X)} and
// \boxed{\text{X}}.
func boxedLetter(s string, i int) (byte, int, bool) {
	i = skipSpaces(s, i)
	inner := false
	for _, w := range [...]string{`\text{`, `\textbf{`, `\mathrm{`, `\mathbf{`} {
		if hasWordFold(s, i, w) {
			i, inner = skipSpaces(s, i+len(w)), true
			break
		}
	}
	paren := i < len(s) && s[i] == '('
	if paren {
		i++
	}
	if i >= len(s) || !isOptionFold(s[i]) {
		return 0, 0, false
	}
	at := i
	i++
	if paren {
		if i >= len(s) || s[i] != ')' {
			return 0, 0, false
		}
		i++
	}
	i = skipSpaces(s, i)
	if inner {
		if i >= len(s) || s[i] != '}' {
			return 0, 0, false
		}
		i = skipSpaces(s, i+1)
	}
	if i >= len(s) || s[i] != '}' {
		return 0, 0, false
	}
	return upperASCII(s[at]), at, true
}

// letterIsCorrect reads "X is correct", "(X) is the right answer",
// "option X is the best", given the position k of "is".
func letterIsCorrect(s, lo string, k int) (byte, int, bool) {
	q := skipSpaces(s, k+2)
	for _, w := range [...]string{"the", "indeed", "clearly", "definitely"} {
		if matchWord(lo, q, w) {
			q = skipSpaces(s, q+len(w))
			break
		}
	}
	good := false
	for _, w := range [...]string{"correct", "right", "best", "answer"} {
		if matchWord(lo, q, w) {
			good = true
			break
		}
	}
	if !good {
		return 0, 0, false
	}
	p := k
	for p > 0 && (s[p-1] == ' ' || s[p-1] == '\t' || isMarkup(s[p-1]) || isCloser(s[p-1])) {
		p--
	}
	p--
	if p < 0 || !isOption(s[p]) || alnumBefore(s, p) {
		return 0, 0, false
	}
	if gluedBefore(s, p) || negatedBefore(lo, p) {
		return 0, 0, false
	}
	return s[p], p, true
}

// gluedBefore reports whether the letter at p is the end of a compound
// such as "type-A" or "non-A".
func gluedBefore(s string, p int) bool {
	return p > 0 && (s[p-1] == '-' || s[p-1] == '/' || s[p-1] == '\'') && alnumBefore(s, p-1)
}

// lastLine reads a last line that is nothing but a letter, after at least
// one other non-empty line.
func lastLine(body string) (byte, bool) {
	t := strings.TrimRight(body, " \t\r\n")
	nl := strings.LastIndexByte(t, '\n')
	if nl < 0 || strings.TrimSpace(t[:nl]) == "" {
		return 0, false
	}
	line := t[nl+1:]
	i := skipLineStart(line, 0)
	for _, w := range [...]string{"option", "choice"} {
		if matchWord(line, i, w) {
			i = skipLineStart(line, i+len(w))
			break
		}
	}
	if i >= len(line) || !isOptionFold(line[i]) {
		return 0, false
	}
	for j := i + 1; j < len(line); j++ {
		if !isCloser(line[j]) && !isMarkup(line[j]) && !isBlank(line[j]) && strings.IndexByte(".:!", line[j]) < 0 {
			return 0, false
		}
	}
	return upperASCII(line[i]), true
}

// skipLineStart skips blanks, markdown, quote and heading marks and
// opening brackets at the start of a line.
func skipLineStart(s string, i int) int {
	for i < len(s) && (isBlank(s[i]) || isMarkup(s[i]) || isOpener(s[i]) || s[i] == '#' || s[i] == '>') {
		i++
	}
	return i
}

// leadingLetter reads a letter that starts the response: "B", "(B)",
// "**B**", "B) Porosity ...", "Option B: ...".
func leadingLetter(body string) (byte, bool) {
	i := 0
	wrapped := false
	for i < len(body) && (isBlank(body[i]) || isMarkup(body[i]) || isOpener(body[i]) || body[i] == '#' || body[i] == '>') {
		wrapped = wrapped || isMarkup(body[i]) || isOpener(body[i])
		i++
	}
	named := false
	for _, w := range [...]string{"option", "choice"} {
		if matchWord(body, i, w) {
			i = skipWrapOpen(body, skipSpaces(body, i+len(w)))
			named = true
			break
		}
	}
	if i >= len(body) || !isOptionFold(body[i]) {
		return 0, false
	}
	c := body[i]
	j := i + 1
	if alnumAt(body, j) || compoundAt(body, j) {
		return 0, false
	}
	if !isOption(c) && !wrapped && strings.IndexByte(").:]", at(body, j)) < 0 && strings.TrimSpace(body[j:]) != "" {
		return 0, false // a lowercase letter needs a mark ("b)", "(b)") or to be alone
	}
	if named && otherOptionNamed(body, upperASCII(c)) {
		return 0, false // "Option A: wrong. Option B: right."
	}
	closed := false
	for j < len(body) && (isCloser(body[j]) || isMarkup(body[j])) {
		closed = true
		j++
	}
	if upperASCII(c) == 'A' && !wrapped && !closed && articleAfter(body, j) {
		return 0, false
	}
	if otherLetterAfter(body, j) || listedLetters(body) {
		return 0, false
	}
	return upperASCII(c), true
}

// at returns s[i], or 0 past the end.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// otherOptionNamed reports whether the text names an option other than c
// ("option B", "choice (B)").
func otherOptionNamed(s string, c byte) bool {
	lo := lowerString(s)
	for _, w := range [...]string{"option", "choice"} {
		for i := 0; ; {
			j := strings.Index(lo[i:], w)
			if j < 0 {
				break
			}
			k := skipWrapOpen(s, skipSpaces(s, i+j+len(w)))
			if k < len(s) && isOption(s[k]) && s[k] != c && !alnumAt(s, k+1) {
				return true
			}
			i += j + 1
		}
	}
	return false
}

// listedLetters reports whether two lines start with different option
// markers ("A) ...", "B. ..."): the response walks through the options,
// and its first letter is where the walk starts, not the answer.
func listedLetters(body string) bool {
	var first byte
	for i := 0; i < len(body); {
		j := skipLineStart(body, i)
		if j+1 < len(body) && isOption(body[j]) && strings.IndexByte(").:]*", body[j+1]) >= 0 {
			if first == 0 {
				first = body[j]
			} else if body[j] != first {
				return true
			}
		}
		nl := strings.IndexByte(body[j:], '\n')
		if nl < 0 {
			break
		}
		i = j + nl + 1
	}
	return false
}

// letterWords are words that, just before a final letter, show that it is
// not picked on its own: "not B", "A or B", "rather than B".
var letterWords = map[string]bool{
	"not": true, "nor": true, "or": true, "and": true, "than": true, "versus": true,
	"vs": true, "except": true, "without": true, "but": true, "between": true,
}

// trailingLetter reads a capital letter that ends the response, when its
// sentence names no other letter.
func trailingLetter(body, lo string) (byte, bool) {
	e := len(body)
	for e > 0 && (isBlank(body[e-1]) || isCloser(body[e-1]) || isMarkup(body[e-1]) || strings.IndexByte(".!?:;", body[e-1]) >= 0) {
		e--
	}
	if e == 0 {
		return 0, false
	}
	p := e - 1
	c := body[p]
	if !isOption(c) || alnumBefore(body, p) || gluedBefore(body, p) || afterNumber(body, p) {
		return 0, false
	}
	if letterWords[prevWord(body, p)] || negatedWithin(lo, p, 5) {
		return 0, false
	}
	start := p
	for start > 0 && strings.IndexByte(".!?;\n", body[start-1]) < 0 {
		start--
	}
	for i := start; i < p; i++ {
		if !isOption(body[i]) || body[i] == c {
			continue
		}
		if _, ok := letterMention(body, i); ok {
			return 0, false
		}
	}
	return c, true
}

// singleLetter reads the one letter that the response mentions, when it
// mentions exactly one and never negates it or puts it in a condition.
func singleLetter(body, lo string) (byte, bool) {
	var seen byte
	var negated [4]bool
	for i := 0; i < len(body); i++ {
		if !isOption(body[i]) {
			continue // the cheap test first: this loop sees every byte
		}
		c, ok := letterMention(body, i)
		if !ok {
			continue
		}
		if negatedWithin(lo, i, 5) {
			negated[c-'A'] = true
			continue
		}
		if seen != 0 && seen != c {
			return 0, false
		}
		seen = c
	}
	if seen == 0 || negated[seen-'A'] {
		return 0, false
	}
	return seen, true
}

// letterMention reports whether a capital A–D at i stands as a letter of
// its own: not inside a word or a compound, not a unit after a number
// ("1 D"), not the article.
func letterMention(s string, i int) (byte, bool) {
	c := s[i]
	if !isOption(c) || alnumBefore(s, i) || alnumAt(s, i+1) || compoundAt(s, i+1) || gluedBefore(s, i) || afterNumber(s, i) {
		return 0, false
	}
	j := i + 1
	for j < len(s) && (isCloser(s[j]) || isMarkup(s[j])) {
		j++
	}
	if c == 'A' && j == i+1 && articleAfter(s, j) {
		return 0, false
	}
	return c, true
}

// afterNumber reports whether the letter at p follows a number and a space,
// as a unit does ("1 D" for a darcy).
func afterNumber(s string, p int) bool {
	q := p
	for q > 0 && (s[q-1] == ' ' || s[q-1] == '\t') {
		q--
	}
	return q < p && q > 0 && '0' <= s[q-1] && s[q-1] <= '9'
}

// prevWord returns the lowercase ASCII word just before p, skipping
// blanks, markdown and opening brackets.
func prevWord(s string, p int) string {
	i := p
	for i > 0 && (isBlank(s[i-1]) || isMarkup(s[i-1]) || isOpener(s[i-1])) {
		i--
	}
	j := i
	for j > 0 && (('a' <= s[j-1] && s[j-1] <= 'z') || ('A' <= s[j-1] && s[j-1] <= 'Z')) && i-j < 16 {
		j--
	}
	return lowerString(s[j:i])
}
