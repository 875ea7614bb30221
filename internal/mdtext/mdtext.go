// Package mdtext makes contributor-supplied text safe to place in GitHub
// markdown (PR comments, check summaries, LEADERBOARD.md): no HTML of the
// contributor's, no links (bare URLs that GitHub links by itself
// included), images or @-mentions, and no breaking out of a table cell or
// a code span.
package mdtext

import "strings"

// Break renders as nothing in GitHub markdown and splits the text around
// it in two, where GitHub's autolinker, which links bare URLs and e-mail
// addresses found in one run of text, would otherwise see one. No escape
// can do this for an address: GitHub finds those in the text after
// escapes are undone, so `a\@b.co` is still a mailto: link.
const Break = "<!-- -->"

// Escape returns s as inert markdown text on one line. It reads as s when
// rendered, but nothing in it is markup: punctuation that could start
// some is escaped, and what GitHub links or renders by itself in the text
// it has rendered, where no escape reaches, is cut by a Break: its
// extended autolinks (http://, https://, ftp://, mailto: and the like,
// www., e-mail addresses) after "www", after the ":" that ends a scheme
// and after each "@"; its references to issues and pull requests (#1,
// GH-1, owner/repo#1) after the "#" or "GH-"; a commit's SHA (a word of
// seven or more hexadecimal digits) every six digits. A "$", which starts
// or ends math, is wrapped in a <span>, as GitHub's documentation says to
// show a dollar sign as itself. So a URL, a reference or a formula in a
// contributor's text is none in the App's voice.
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	hex := hexWords(s)
	for i, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '!', '~', '@', '&':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '$':
			b.WriteString("<span>$</span>")
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case '.':
			if i >= 3 && strings.EqualFold(s[i-3:i], "www") {
				b.WriteString(Break)
			}
			b.WriteByte('.')
		default:
			b.WriteRune(r)
		}
		switch {
		case r == '@' || r == ':' && scheme(s, i):
			b.WriteString(Break)
		case r == '#' && digitAt(s, i+1):
			b.WriteString(Break)
		case r == '-' && i >= 2 && strings.EqualFold(s[i-2:i], "GH") && digitAt(s, i+1):
			b.WriteString(Break)
		case hex[i]:
			b.WriteString(Break)
		}
	}
	return b.String()
}

func digitAt(s string, i int) bool {
	return i < len(s) && s[i] >= '0' && s[i] <= '9'
}

// hexWords marks, in each word of s made of seven or more hexadecimal
// digits (one GitHub may take for a commit's SHA), every sixth digit, after
// which a Break leaves no piece long enough to be one.
func hexWords(s string) map[int]bool {
	var marks map[int]bool
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }
	isWord := func(c byte) bool { return isHex(c) || c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_' || c >= 0x80 }
	for i := 0; i < len(s); {
		if !isWord(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWord(s[j]) {
			j++
		}
		word := true
		for k := i; k < j; k++ {
			word = word && isHex(s[k])
		}
		if word && j-i >= 7 {
			for k := i + 5; k < j-1; k += 6 {
				if marks == nil {
					marks = map[int]bool{}
				}
				marks[k] = true
			}
		}
		i = j
	}
	return marks
}

// scheme reports whether the ':' at s[i] may end a URL's scheme: a
// letter before it and no space after, as in "https://" or "mailto:x"
// (not "12:30" or "Note: x").
func scheme(s string, i int) bool {
	if i == 0 || i+1 >= len(s) {
		return false
	}
	c := s[i-1] | 0x20
	return c >= 'a' && c <= 'z' && !strings.ContainsRune(" \t\n\r", rune(s[i+1]))
}

// Code returns s made safe inside a single-backtick code span, which may
// sit in a table cell.
func Code(s string) string {
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.NewReplacer("\n", " ", "\r", " ", "|", "\\|").Replace(s)
	return s
}
