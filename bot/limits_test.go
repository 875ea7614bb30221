package bot

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/queue"
)

func TestLimitsDecide(t *testing.T) {
	l := Limits{SpotChecksPerPR: 3, SpotChecksPerAuthorDay: 4, SpotChecksPerRepoDay: 10, JudgeUSDPerDay: 20, SpotCheckUSD: 2}
	tests := []struct {
		name string
		u    queue.Usage
		want queue.Grant
	}{
		{"nothing spent", queue.Usage{}, queue.Grant{Admitted: true, MaxUSD: 2}},
		{"the pull request's last", queue.Usage{PR: 2, AuthorDay: 3, RepoDay: 9, SpentDay: 5}, queue.Grant{Admitted: true, MaxUSD: 2}},
		{"the pull request's limit", queue.Usage{PR: 3}, queue.Grant{Limit: LimitPRSpotChecks}},
		{"the author's day", queue.Usage{PR: 0, AuthorDay: 4, RepoDay: 4}, queue.Grant{Limit: LimitAuthorSpotChecks}},
		{"the author's day before the repository's", queue.Usage{AuthorDay: 4, RepoDay: 10}, queue.Grant{Limit: LimitAuthorSpotChecks}},
		{"the repository's day", queue.Usage{PR: 0, RepoDay: 10}, queue.Grant{Limit: LimitRepoSpotChecks}},
		{"little budget left: only that is granted", queue.Usage{SpentDay: 19.25}, queue.Grant{Admitted: true, MaxUSD: 0.75, DayLimited: true}},
		{"exactly one check's budget left", queue.Usage{SpentDay: 18}, queue.Grant{Admitted: true, MaxUSD: 2}},
		{"the day's budget spent", queue.Usage{SpentDay: 20}, queue.Grant{Limit: LimitDailySpend}},
		{"overspent by a last call", queue.Usage{SpentDay: 20.3}, queue.Grant{Limit: LimitDailySpend}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := l.Decide(tt.u); got != tt.want {
				t.Errorf("Decide(%+v) = %+v, want %+v", tt.u, got, tt.want)
			}
		})
	}
}

func TestLimitsExplain(t *testing.T) {
	l := DefaultLimits()
	now := time.Date(2026, 11, 30, 21, 30, 0, 0, time.UTC)
	for limit, want := range map[string]string{
		LimitPRSpotChecks:     "BENCHGATE_SPOT_CHECKS_PER_PR",
		LimitAuthorSpotChecks: "had 10 spot-checks and reproductions in the last 24 hours, the most one author may have (so that one account cannot use up the repository's spot-checks, nor draw sample after sample). Ask again with `/benchgate reproduce` later, or raise `BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY`",
		LimitRepoSpotChecks:   "BENCHGATE_SPOT_CHECKS_PER_REPO_DAY",
		LimitDailySpend:       "resets at 00:00 UTC (in 2h30m); ask again with `/benchgate reproduce` then",
	} {
		if got := l.Explain(limit, "/benchgate reproduce", now); !strings.Contains(got, want) {
			t.Errorf("Explain(%s) = %q, want it to say %q", limit, got, want)
		}
	}
}

// TestSpotChecksLimited: a maintainer's reruns stop at the pull request's
// limit with a neutral check run that says why; a retried job is not
// counted twice; a spent day refuses every repository.
func TestSpotChecksLimited(t *testing.T) {
	q, err := queue.Open(t.Context(), "sqlite::memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	limits := Limits{SpotChecksPerPR: 2, SpotChecksPerAuthorDay: 10, SpotChecksPerRepoDay: 10, JudgeUSDPerDay: 5, SpotCheckUSD: 1}
	refused := map[string]int{}
	gh := newMemGH(t)
	w := &Worker{GH: gh, Verify: checkOpts, Log: quietLog(), RerunSecret: []byte("s"),
		Budget: &Ledger{Q: q, Limits: limits, Now: func() time.Time { return now }, OnRefuse: func(l string) { refused[l]++ }}}
	rerunBy := func(delivery string) prcheck.CheckOutcome {
		t.Helper()
		if err := w.Rerun(context.Background(), Job{Kind: KindRerun, DeliveryID: delivery, Repo: "geo/board", PR: 5, Commenter: "maint"}); err != nil {
			t.Fatal(err)
		}
		return gh.checks["head-2 "+prcheck.RerunCheckName]
	}
	for _, d := range []string{"d1", "d2", "d2"} { // d2 twice: a retried job
		if rc := rerunBy(d); rc.Conclusion != prcheck.Success {
			t.Fatalf("rerun %s: %+v, want it run", d, rc)
		}
	}
	rc := rerunBy("d3")
	if rc.Conclusion != prcheck.Neutral || !strings.Contains(rc.Summary, "BENCHGATE_SPOT_CHECKS_PER_PR") {
		t.Errorf("third rerun: %s %q, want neutral naming the limit", rc.Conclusion, rc.Summary)
	}
	if !strings.Contains(gh.comment, "Spot-check not run") || gh.comments != 1 {
		t.Errorf("comment %q (%d comments), want the refusal in the one comment", gh.comment, gh.comments)
	}
	if refused[LimitPRSpotChecks] != 1 {
		t.Errorf("refusals %v", refused)
	}

	// Another pull request, on a day whose budget is spent.
	if _, _, err := q.Admit(t.Context(), now, queue.SpotCheck{Key: "elsewhere", Repo: "other/board", PR: 1}, limits.Decide); err != nil {
		t.Fatal(err)
	}
	if err := q.Settle(t.Context(), "elsewhere", 60, 5); err != nil {
		t.Fatal(err)
	}
	gh.pr.HeadSHA = "head-3"
	if err := w.Rerun(context.Background(), Job{Kind: KindRerun, DeliveryID: "d4", Repo: "geo/board", PR: 6, Commenter: "maint"}); err != nil {
		t.Fatal(err)
	}
	if rc := gh.checks["head-3 "+prcheck.RerunCheckName]; rc.Conclusion != prcheck.Neutral || !strings.Contains(rc.Summary, "budget") {
		t.Errorf("rerun on a spent day: %s %q", rc.Conclusion, rc.Summary)
	}
	if refused[LimitDailySpend] != 1 {
		t.Errorf("refusals %v", refused)
	}
}

// TestQueueBound: beyond the bound, deliveries asking for verification
// are refused with 503 and Retry-After; a merge's regeneration is still
// taken.
func TestQueueBound(t *testing.T) {
	q, err := queue.OpenWithOptions(t.Context(), "sqlite::memory:", nil, queue.Options{MaxWaiting: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	secret := []byte("s3cret")
	var outcomes []string
	h := &Webhook{Secrets: [][]byte{secret}, Queue: QueueAdapter{Q: q}, Log: quietLog(),
		Observe: func(event, outcome string) { outcomes = append(outcomes, outcome) }}
	pr := func(n int) string {
		return fmt.Sprintf(`{"action": "opened", "repository": {"full_name": "geo/board"}, "installation": {"id": 1}, "pull_request": {"number": %d, "head": {"sha": "h%d"}}}`, n, n)
	}
	for n, want := range []int{202, 202, 503} {
		body := pr(n + 1)
		rec := deliverRec(t, h, "pull_request", fmt.Sprint("del-", n), body, Sign(secret, []byte(body)))
		if rec.Code != want {
			t.Errorf("delivery %d: %d, want %d", n+1, rec.Code, want)
		}
		if want == 503 && rec.Header().Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
	}
	push := `{"ref": "refs/heads/main", "after": "f00d", "repository": {"full_name": "geo/board", "default_branch": "main"}, "installation": {"id": 1}, "commits": [{"added": ["submissions/x/meta.json"]}]}`
	if rec := deliverRec(t, h, "push", "del-push", push, Sign(secret, []byte(push))); rec.Code != 202 {
		t.Errorf("push while full: %d, want 202", rec.Code)
	}
	if strings.Join(outcomes, ",") != "queued,queued,overloaded,queued" {
		t.Errorf("outcomes %v", outcomes)
	}
}

// TestSpotChecksPerAuthor: under the auto policy, one author's flood of
// pull requests (the login in any case) stops at the author's limit with
// a neutral check run that says so, and another author's submission is
// still spot-checked.
func TestSpotChecksPerAuthor(t *testing.T) {
	q, err := queue.Open(t.Context(), "sqlite::memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	limits := Limits{SpotChecksPerPR: 5, SpotChecksPerAuthorDay: 3, SpotChecksPerRepoDay: 6, JudgeUSDPerDay: 5, SpotCheckUSD: 0.5}
	refused := map[string]int{}
	gh := newMemGH(t)
	w := &Worker{GH: gh, Verify: checkOpts, Log: quietLog(), RerunSecret: []byte("s"), AutoRerun: true,
		Budget: &Ledger{Q: q, Limits: limits, Now: func() time.Time { return now }, OnRefuse: func(l string) { refused[l]++ }}}
	meta, scores := gh.files[0].Content, gh.files[1].Content
	open := func(n int, author string) prcheck.CheckOutcome {
		t.Helper()
		head := fmt.Sprintf("head-%d", n)
		gh.pr = prcheck.PRInfo{Number: n, HeadSHA: head, Author: author}
		dir := fmt.Sprintf("submissions/model-benchmark/copy-%d", n)
		gh.files = []prcheck.ChangedFile{
			{Path: dir + "/meta.json", Status: "added", Content: []byte(strings.Replace(string(meta), `"example-lab"`, fmt.Sprintf("%q", author), 1))},
			{Path: dir + "/scores.json", Status: "added", Content: scores},
		}
		if err := w.VerifyPR(context.Background(), Job{Kind: KindVerify, DeliveryID: fmt.Sprint("open-", n), Repo: "geo/board", PR: n, HeadSHA: head}); err != nil {
			t.Fatal(err)
		}
		if c := gh.checks[head+" "+prcheck.CheckName]; c.Conclusion != prcheck.Success {
			t.Fatalf("pull request %d: %s %s", n, c.Conclusion, c.Summary)
		}
		return gh.checks[head+" "+prcheck.RerunCheckName]
	}
	for n, author := range []string{"mallory", "Mallory", "MALLORY"} {
		if rc := open(n+1, author); rc.Conclusion != prcheck.Success {
			t.Fatalf("%s's pull request %d: %s %q, want it spot-checked", author, n+1, rc.Conclusion, rc.Summary)
		}
	}
	for n := 4; n <= 5; n++ {
		rc := open(n, "mallory")
		if rc.Conclusion != prcheck.Neutral || !strings.Contains(rc.Summary, "BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY") {
			t.Errorf("mallory's pull request %d: %s %q, want neutral naming the author's limit", n, rc.Conclusion, rc.Summary)
		}
	}
	if rc := open(6, "honest"); rc.Conclusion != prcheck.Success {
		t.Errorf("another author's pull request: %s %q, want it spot-checked", rc.Conclusion, rc.Summary)
	}
	if refused[LimitAuthorSpotChecks] != 2 || len(refused) != 1 {
		t.Errorf("refusals %v, want 2 by %s", refused, LimitAuthorSpotChecks)
	}
}
