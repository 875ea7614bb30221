package bot

import (
	"fmt"
	"testing"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/queue"
	"github.com/benchgate/benchgate/internal/golden"
)

// TestSharedHeadText: what the check run of a head shared by two pull
// requests says, and what each one's comment adds, as people read them.
// A base's name is shown as code whatever it holds.
func TestSharedHeadText(t *testing.T) {
	stale := queue.Verdict{PR: 82, BaseRef: "stale`branch", Conclusion: string(prcheck.Success), Title: "Submission verified"}
	main := queue.Verdict{PR: 83, BaseRef: "main", Conclusion: string(prcheck.Failure), Title: "Changes someone else's submission"}
	own := prcheck.CheckOutcome{Conclusion: prcheck.Success, Title: stale.Title, Summary: "The verification of #82."}
	all := []queue.Verdict{stale, main}
	shown := sharedOutcome(all, main, own)
	if shown.Conclusion != prcheck.Failure {
		t.Errorf("shown %s, want the worst", shown.Conclusion)
	}
	out := fmt.Sprintf("# check run\n\n%s: %s\n\n%s\n\n# comment of #82\n%s\n# comment of #83\n%s", shown.Conclusion, shown.Title, shown.Summary,
		sharedNote(all, main, stale), sharedNote([]queue.Verdict{main, stale}, main, main))
	golden.Check(t, "shared-head.md", []byte(out))
	for _, tt := range []struct {
		worse, better prcheck.Conclusion
	}{{prcheck.Failure, prcheck.ActionRequired}, {prcheck.ActionRequired, prcheck.Neutral}, {prcheck.Neutral, prcheck.Success}, {"cancelled", prcheck.ActionRequired}} {
		if severity(string(tt.worse)) <= severity(string(tt.better)) {
			t.Errorf("%s is not worse than %s", tt.worse, tt.better)
		}
	}
}

// TestClosedOnHeadText: what the check run of a shared head says once one
// of its pull requests is closed: the worst verdict of those still open,
// whose it is, and that nothing was verified again.
func TestClosedOnHeadText(t *testing.T) {
	open := []queue.Verdict{
		{PR: 82, BaseRef: "stale", Conclusion: string(prcheck.Success), Title: "Submission verified"},
		{PR: 84, BaseRef: "next", Conclusion: string(prcheck.ActionRequired), Title: "A maintainer must review"},
	}
	shown := closedOutcome(83, open, open[1])
	if shown.Conclusion != prcheck.ActionRequired || len(shown.Annotations) != 0 {
		t.Errorf("shown %s with %d annotations, want the worst open verdict and none", shown.Conclusion, len(shown.Annotations))
	}
	golden.Check(t, "closed-on-shared-head.md", []byte(fmt.Sprintf("%s: %s\n\n%s\n", shown.Conclusion, shown.Title, shown.Summary)))
}
