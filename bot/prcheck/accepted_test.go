package prcheck

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/verify"
)

// TestAccepted: a decision turns the check of a submission in review to
// success, the decision above the report and in the sticky comment; the
// check of anything else is left as it is.
func TestAccepted(t *testing.T) {
	pr := PRInfo{HeadSHA: "0123456789abcdef"}
	report := func(s verify.Status) *verify.Report {
		return &verify.Report{Submissions: []verify.Result{{Path: "submissions/t/s", Status: s}}}
	}
	review := CheckOutcome{Conclusion: ActionRequired, Title: "A maintainer must review this submission", Summary: "the report", Report: report(verify.Review), Submission: "submissions/t/s"}
	got := Accepted(pr, review, "**accepted after review:** fine")
	if got.Conclusion != Success || got.Title != AcceptedTitle || got.Summary != "**accepted after review:** fine\n\nthe report" ||
		!IsSticky(got.Comment) || !strings.Contains(got.Comment, "✅ benchgate: "+AcceptedTitle) || !strings.Contains(got.Comment, "accepted after review:** fine") {
		t.Errorf("accepted: %+v", got)
	}
	for name, out := range map[string]CheckOutcome{
		"failure":          {Conclusion: Failure, Title: "2 problem(s) to fix", Report: report(verify.Fail)},
		"neutral":          {Conclusion: Neutral, Title: "Not a submission"},
		"review unparsed":  {Conclusion: ActionRequired, Title: "A maintainer must decide"},
		"review on a fail": {Conclusion: ActionRequired, Report: report(verify.Fail)},
	} {
		if got := Accepted(pr, out, "decision"); got.Conclusion != out.Conclusion || got.Title != out.Title || got.Summary != out.Summary {
			t.Errorf("%s: turned into %s %q", name, got.Conclusion, got.Title)
		}
	}
}
