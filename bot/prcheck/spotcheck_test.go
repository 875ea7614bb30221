package prcheck

import (
	"strings"
	"testing"
)

// TestSpotCheckVerdicts: each finding of a spot-check gets its conclusion.
func TestSpotCheckVerdicts(t *testing.T) {
	for _, tt := range []struct {
		verdict    SpotVerdict
		conclusion Conclusion
		title      string
	}{
		{SpotHolds, Success, "Reported scores hold"},
		{SpotTooHigh, Failure, "Reported scores are higher than the judge's"},
		{SpotUndecided, ActionRequired, "A maintainer must decide"},
	} {
		rc := SpotCheck(tt.verdict, "## benchgate rerun\n")
		if rc.Conclusion != tt.conclusion || rc.Title != tt.title || rc.Summary != "## benchgate rerun\n" || rc.Comment != "" {
			t.Errorf("%v: %+v", tt.verdict, rc)
		}
	}
	long := SpotCheck(SpotHolds, strings.Repeat("é", MaxSummaryBytes))
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
