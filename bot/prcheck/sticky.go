package prcheck

import "strings"

// StickyMarker is the hidden line that finds benchgate's one comment on a
// pull request, to edit it in place. The App also checks that the comment
// is its own, so that a marker pasted by someone else is ignored.
const StickyMarker = "<!-- benchgate:sticky -->"

// Sticky is the body of a sticky comment saying text: the marker on a
// line of its own, then text.
func Sticky(text string) string { return StickyMarker + "\n" + text }

// IsSticky reports whether a comment's body is a sticky comment, by its
// marker. Whose comment it is, the caller checks.
func IsSticky(body string) bool { return strings.Contains(body, StickyMarker) }

// WithSpotCheck is the sticky comment of a verification (comment, as
// CheckOutcome.Comment has it) with a spot-check's section below it, cut
// to GitHub's limit.
func WithSpotCheck(comment, section string) string {
	return capBytes(comment+"\n\n---\n\n"+section, MaxSummaryBytes, "\n\n… (cut to GitHub's limit)\n")
}
