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
// some is escaped, and GitHub's extended autolinks (http://, https://,
// ftp://, mailto: and the like, www., e-mail addresses) are cut by a
// Break after "www", after the ":" that ends a scheme and after each "@",
// so that a URL in a contributor's text is not a link in the App's voice.
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '!', '~', '@', '&':
			b.WriteByte('\\')
			b.WriteRune(r)
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
		if r == '@' || r == ':' && scheme(s, i) {
			b.WriteString(Break)
		}
	}
	return b.String()
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
