package prcheck

// RerunCheckName is the name of the check run that reports a spot-check.
const RerunCheckName = "benchgate / rerun"

// SpotVerdict is what a spot-check found, as its check run reports it.
// (Package rerun, which decides it, calls the judge over HTTP, which this
// package does not import; the App translates rerun's verdict.)
type SpotVerdict int

// The spot-check's findings.
const (
	SpotUndecided SpotVerdict = iota // a maintainer must decide
	SpotHolds                        // the judge agrees with the reported scores
	SpotTooHigh                      // the reported scores are higher than the judge's
)

// SpotCheck is the check run of a spot-check: verdict is what it found,
// and markdown the report as rerun.Render writes it in markdown, which
// becomes the summary.
func SpotCheck(verdict SpotVerdict, markdown string) CheckOutcome {
	rc := CheckOutcome{Summary: capBytes(markdown, MaxSummaryBytes, "\n\n… (cut to GitHub's limit)\n")}
	switch verdict {
	case SpotHolds:
		rc.Conclusion, rc.Title = Success, "Reported scores hold"
	case SpotTooHigh:
		rc.Conclusion, rc.Title = Failure, "Reported scores are higher than the judge's"
	default:
		rc.Conclusion, rc.Title = ActionRequired, "A maintainer must decide"
	}
	return rc
}

// SpotCheckRefused is the check run of a spot-check that a limit stopped;
// why says which limit and what maintainers can do. Its summary is also
// the section it adds to the sticky comment.
func SpotCheckRefused(why string) CheckOutcome { return refused("Spot-check", why) }

// ReproduceCheckName is the name of the check run that reports a
// reproduction (/benchgate reproduce).
const ReproduceCheckName = "benchgate / reproduce"

// ReproductionRefused is SpotCheckRefused for a reproduction.
func ReproductionRefused(why string) CheckOutcome { return refused("Reproduction", why) }

func refused(what, why string) CheckOutcome {
	msg := "### " + what + " not run\n\n" + why + "\n"
	return CheckOutcome{Conclusion: Neutral, Title: what + " not run: a limit was reached", Summary: msg}
}

// Reproduction is the check run of a reproduction's report, markdown, with
// the conclusion and title its verdict gives.
func Reproduction(conclusion Conclusion, title, markdown string) CheckOutcome {
	return CheckOutcome{Conclusion: conclusion, Title: title, Summary: capBytes(markdown, MaxSummaryBytes, "\n\n… (cut to GitHub's limit)\n")}
}
