package prcheck

// StickyMarker is the hidden line that finds benchgate's one comment on a
// pull request, to edit it in place. The App also checks that the comment
// is its own, so that a marker pasted by someone else is ignored.
const StickyMarker = "<!-- benchgate:sticky -->"

// WithSpotCheck is the sticky comment of a verification (comment, as
// CheckOutcome.Comment has it) with a spot-check's section below it, cut
// to GitHub's limit.
func WithSpotCheck(comment, section string) string {
	return capBytes(comment+"\n\n---\n\n"+section, MaxSummaryBytes, "\n\n… (cut to GitHub's limit)\n")
}
