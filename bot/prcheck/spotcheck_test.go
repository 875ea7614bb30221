package prcheck

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/rerun"
)

// TestSpotCheckVerdicts: each of rerun's verdicts gets its conclusion, so
// that the verdict words named here cannot drift from rerun's.
func TestSpotCheckVerdicts(t *testing.T) {
	for _, tt := range []struct {
		verdict    string
		conclusion Conclusion
		title      string
	}{
		{rerun.VerdictConsistent, Success, "Reported scores hold"},
		{rerun.VerdictInconsistent, Failure, "Reported scores are higher than the judge's"},
		{rerun.VerdictInconclusive, ActionRequired, "A maintainer must decide"},
	} {
		rc := SpotCheck(tt.verdict, "## benchgate rerun\n")
		if rc.Conclusion != tt.conclusion || rc.Title != tt.title || rc.Summary != "## benchgate rerun\n" || rc.Comment != "" {
			t.Errorf("%s: %+v", tt.verdict, rc)
		}
	}
	long := SpotCheck(rerun.VerdictConsistent, strings.Repeat("é", MaxSummaryBytes))
	if len(long.Summary) > MaxSummaryBytes || !strings.HasSuffix(long.Summary, "(cut to GitHub's limit)\n") {
		t.Errorf("a long report: %d bytes", len(long.Summary))
	}
}

func TestSpotCheckRefused(t *testing.T) {
	rc := SpotCheckRefused("Today's judge budget is spent.")
	if rc.Conclusion != Neutral || rc.Title != "Spot-check not run: a limit was reached" || rc.Summary != "### Spot-check not run\n\nToday's judge budget is spent.\n" {
		t.Errorf("%+v", rc)
	}
}
