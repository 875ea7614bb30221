// Package mdtext makes contributor-supplied text safe to place in GitHub
// markdown (PR comments, check summaries, LEADERBOARD.md): no HTML, no
// links, images or @-mentions, and no breaking out of a table cell or a code
// span.
package mdtext

import "strings"

// Escape returns s as inert markdown text on one line.
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '!', '~', '@', '&':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code returns s made safe inside a single-backtick code span, which may
// sit in a table cell.
func Code(s string) string {
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.NewReplacer("\n", " ", "\r", " ", "|", "\\|").Replace(s)
	return s
}
