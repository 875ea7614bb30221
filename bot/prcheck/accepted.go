package prcheck

import "github.com/benchgate/benchgate/verify"

// AcceptedTitle is the title of the check of a submission in review that
// a maintainer accepted (/benchgate accept, `benchgate accept`).
const AcceptedTitle = "Accepted after review"

// Accepted is out, the check of a submission verification sent to
// review, once a maintainer's decision on this version of it holds:
// decision (markdown) says what was decided, by whom and why, above the
// verification's report. Any other check is returned as it is: a
// decision outweighs neither errors nor a verdict on other files.
func Accepted(pr PRInfo, out CheckOutcome, decision string) CheckOutcome {
	if out.Conclusion != ActionRequired || out.Report == nil || len(out.Report.Submissions) != 1 || out.Report.Submissions[0].Status != verify.Review {
		return out
	}
	out.Conclusion, out.Title = Success, AcceptedTitle
	out.Summary = decision + "\n\n" + out.Summary
	return finish(out, pr)
}
