package bot

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/benchgate/benchgate/bot/queue"
)

// The limits' names, as the metrics and the messages use them.
const (
	LimitPRSpotChecks     = "pr_spot_checks"
	LimitAuthorSpotChecks = "author_spot_checks"
	LimitRepoSpotChecks   = "repo_spot_checks"
	LimitDailySpend       = "daily_spend"
	LimitQueue            = "queue"
)

// Limits bound what strangers can make the App spend: judge money through
// spot-checks, and work through deliveries. A flood of pull requests,
// pushes or `/benchgate rerun` comments meets one of them.
type Limits struct {
	// SpotChecksPerPR is how many spot-checks one pull request may have,
	// ever (BENCHGATE_SPOT_CHECKS_PER_PR, default 5): a pusher cannot
	// grind the sample.
	SpotChecksPerPR int
	// SpotChecksPerAuthorDay is how many spot-checks the pull requests of
	// one author may have in any 24 hours, in every repository
	// (BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY, default 10): one account
	// opening pull request after pull request cannot use up the
	// repository's spot-checks, nor draw sample after sample.
	SpotChecksPerAuthorDay int
	// SpotChecksPerRepoDay is how many spot-checks one repository may
	// have in any 24 hours (BENCHGATE_SPOT_CHECKS_PER_REPO_DAY, default 30).
	SpotChecksPerRepoDay int
	// JudgeUSDPerDay is the judge spend of all spot-checks per UTC day
	// (BENCHGATE_JUDGE_USD_PER_DAY, default 50: ten full spot-checks).
	JudgeUSDPerDay float64
	// SpotCheckUSD is what one spot-check may spend, reserved from the
	// day's budget while it runs (BENCHGATE_SPOT_CHECK_USD, default 5:
	// SpotCheckCalls calls at three cents).
	SpotCheckUSD float64
	// SpotCheckCalls is how many judge calls one spot-check may make
	// (BENCHGATE_SPOT_CHECK_CALLS, default 160): the default rule's 48
	// calibration fixtures (cached for the day) and a whole 50-question
	// rubric graded twice, 148, then up to 10 canaries: 2 calls of room
	// for the judge's faults until the day's fixtures are cached, 52 after.
	SpotCheckCalls int
	// QueueWaiting is how many jobs may wait before deliveries asking for
	// more are refused with 503 (BENCHGATE_QUEUE_LIMIT, default 1000).
	// Verifications refused so are queued as soon as fewer jobs wait
	// (Backlog).
	QueueWaiting int
}

// StrangerVerifyEvery is how often a pull request takes a /benchgate
// verify from someone who is none of the repository's collaborators: one
// per ten minutes of the clock, the others refused at the front door at
// no cost. Such a verification never spends judge budget (no spot-check
// follows it under the auto policy), and a head and base verified before
// are answered from their last verdict.
const StrangerVerifyEvery = 10 * time.Minute

// DefaultLimits are the limits when none are configured.
func DefaultLimits() Limits {
	return Limits{SpotChecksPerPR: 5, SpotChecksPerAuthorDay: 10, SpotChecksPerRepoDay: 30, JudgeUSDPerDay: 50, SpotCheckUSD: 5, SpotCheckCalls: 160, QueueWaiting: 1000}
}

// Decide is the admission rule of a spot-check, given what was admitted
// before it. The narrowest limit reached is named: an author who used up
// their own day is told so, not that the repository's is spent.
func (l Limits) Decide(u queue.Usage) queue.Grant {
	switch {
	case u.PR >= l.SpotChecksPerPR:
		return queue.Grant{Limit: LimitPRSpotChecks}
	case u.AuthorDay >= l.SpotChecksPerAuthorDay:
		return queue.Grant{Limit: LimitAuthorSpotChecks}
	case u.RepoDay >= l.SpotChecksPerRepoDay:
		return queue.Grant{Limit: LimitRepoSpotChecks}
	case u.SpentDay >= l.JudgeUSDPerDay:
		return queue.Grant{Limit: LimitDailySpend}
	}
	left := l.JudgeUSDPerDay - u.SpentDay
	return queue.Grant{Admitted: true, MaxUSD: math.Min(l.SpotCheckUSD, left), DayLimited: left < l.SpotCheckUSD}
}

// Explain tells maintainers, in the pull request, why a spot-check or a
// reproduction did not run and what they can do; command is the one that
// asked for it (such as "/benchgate rerun"). Both kinds count towards
// the same limits and spend the same daily budget.
func (l Limits) Explain(limit, command string, now time.Time) string {
	switch limit {
	case LimitPRSpotChecks:
		return fmt.Sprintf("This pull request has had its %d spot-checks and reproductions, the most one pull request may have (so that nobody can grind the sample by pushing again and again). A maintainer can judge from the reports above, or raise `BENCHGATE_SPOT_CHECKS_PER_PR`.", l.SpotChecksPerPR)
	case LimitAuthorSpotChecks:
		return fmt.Sprintf("The author of this pull request has had %d spot-checks and reproductions in the last 24 hours, the most one author may have (so that one account cannot use up the repository's spot-checks, nor draw sample after sample). Ask again with `%s` later, or raise `BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY`.", l.SpotChecksPerAuthorDay, command)
	case LimitRepoSpotChecks:
		return fmt.Sprintf("This repository has had %d spot-checks and reproductions in the last 24 hours, its limit. Ask again with `%s` later, or raise `BENCHGATE_SPOT_CHECKS_PER_REPO_DAY`.", l.SpotChecksPerRepoDay, command)
	case LimitDailySpend:
		reset := queue.DayStart(now).Add(24 * time.Hour)
		left := reset.Sub(now).Round(time.Minute)
		return fmt.Sprintf("Today's judge budget (%.2f USD for all spot-checks and reproductions, the candidate's calls included) is spent. It resets at %s (in %dh%02dm); ask again with `%s` then, or raise `BENCHGATE_JUDGE_USD_PER_DAY`.",
			l.JudgeUSDPerDay, reset.Format("15:04 UTC"), int(left.Hours()), int(left.Minutes())%60, command)
	}
	return "A limit of this App stopped the check."
}

// Budget admits spot-checks and reproductions under the limits, records
// what they spent, and says why a refused one was refused. Withdraw
// turns an admission into a refusal by limit after all, for a check that
// could not make a single call: it then counts towards no limit (limit
// "" is a check that had nothing to ask, which no limit refused).
type Budget interface {
	Admit(ctx context.Context, sc queue.SpotCheck) (queue.Grant, error)
	Settle(ctx context.Context, key string, calls int, usd float64) error
	Withdraw(ctx context.Context, key, limit string) error
	Explain(limit, command string) string
}

// Ledger is the Budget kept in the queue's database, so that the limits
// hold across restarts and across every process working the queue.
type Ledger struct {
	Q      *queue.Queue
	Limits Limits
	Now    func() time.Time // time.Now when nil
	// OnRefuse, when set, is told each refusal's limit (for metrics).
	OnRefuse func(limit string)
}

func (l *Ledger) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Admit implements Budget.
func (l *Ledger) Admit(ctx context.Context, sc queue.SpotCheck) (queue.Grant, error) {
	g, _, err := l.Q.Admit(ctx, l.now(), sc, l.Limits.Decide)
	if err == nil && !g.Admitted && l.OnRefuse != nil {
		l.OnRefuse(g.Limit)
	}
	return g, err
}

// Explain implements Budget.
func (l *Ledger) Explain(limit, command string) string {
	return l.Limits.Explain(limit, command, l.now())
}

// Settle implements Budget.
func (l *Ledger) Settle(ctx context.Context, key string, calls int, usd float64) error {
	return l.Q.Settle(ctx, key, calls, usd)
}

// Withdraw implements Budget.
func (l *Ledger) Withdraw(ctx context.Context, key, limit string) error {
	if err := l.Q.Release(ctx, key); err != nil {
		return err
	}
	if l.OnRefuse != nil && limit != "" {
		l.OnRefuse(limit)
	}
	return nil
}

// ErrOverloaded is returned by QueueAdapter.Enqueue when the queue holds
// as many waiting jobs as it may.
var ErrOverloaded = queue.ErrFull
