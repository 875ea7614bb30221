package prcheck

// RerunCheckName is the name of the check run that reports a spot-check.
const RerunCheckName = "benchgate / rerun"

// The verdicts of a spot-check as rerun.Report.Verdict words them
// (rerun.VerdictConsistent, rerun.VerdictInconsistent). They are named
// again here because package rerun calls the judge over HTTP, which this
// package does not import; TestSpotCheckVerdicts fails if the two differ.
const (
	verdictConsistent   = "consistent"
	verdictInconsistent = "inconsistent"
)

// SpotCheck is the check run of a spot-check: verdict is its report's
// (rerun.Report.Verdict), and markdown the report as rerun.Render writes
// it in markdown, which becomes the summary.
func SpotCheck(verdict, markdown string) CheckOutcome {
	rc := CheckOutcome{Summary: capBytes(markdown, MaxSummaryBytes, "\n\n… (cut to GitHub's limit)\n")}
	switch verdict {
	case verdictConsistent:
		rc.Conclusion, rc.Title = Success, "Reported scores hold"
	case verdictInconsistent:
		rc.Conclusion, rc.Title = Failure, "Reported scores are higher than the judge's"
	default:
		rc.Conclusion, rc.Title = ActionRequired, "A maintainer must decide"
	}
	return rc
}

// SpotCheckRefused is the check run of a spot-check that a limit stopped;
// why says which limit and what maintainers can do. Its summary is also
// the section it adds to the sticky comment.
func SpotCheckRefused(why string) CheckOutcome {
	msg := "### Spot-check not run\n\n" + why + "\n"
	return CheckOutcome{Conclusion: Neutral, Title: "Spot-check not run: a limit was reached", Summary: msg}
}
