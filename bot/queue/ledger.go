package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The spot-check ledger lives beside the jobs because the abuse limits
// must hold across restarts and across every process working the queue:
// counts kept in memory would reset with each deploy.

// Usage is what an admission decides on: the spot-checks already admitted
// and the judge money they spent or reserved.
type Usage struct {
	PR      int // spot-checks admitted for this pull request, ever
	RepoDay int // spot-checks admitted for this repository in the 24 hours before now
	// AuthorDay is the spot-checks admitted for pull requests of this
	// one's author in the 24 hours before now, in every repository.
	AuthorDay int
	SpentDay  float64 // US dollars spent (or reserved, while running) since 00:00 UTC, all repositories
}

// Grant is the outcome of an admission.
type Grant struct {
	Admitted bool
	// Limit names the limit that refused the spot-check, when it was not
	// admitted.
	Limit string
	// MaxUSD is what an admitted spot-check may spend; it is reserved
	// against the day's budget until Settle records the real spend.
	MaxUSD float64
	// DayLimited reports that MaxUSD is what is left of the day's budget,
	// less than a spot-check may spend on other days. It is not recorded:
	// the grant of a key admitted before says false.
	DayLimited bool
}

// SpotCheck identifies one spot-check to admit.
type SpotCheck struct {
	// Key names the spot-check across retries of its job (the delivery
	// that asked for it): admitting a key again returns its first grant,
	// so a retried job neither counts twice nor is refused by its own
	// reservation.
	Key  string
	Repo string
	PR   int
	// Author is the login of the pull request's author, compared
	// case-insensitively as GitHub compares logins.
	Author string
}

// Admit decides, in one serialised transaction, whether a spot-check may
// run: decide sees the usage before it and returns the grant, which is
// recorded when it admits. again reports that key was admitted before.
// Refusals are not recorded.
func (q *Queue) Admit(ctx context.Context, now time.Time, sc SpotCheck, decide func(Usage) Grant) (g Grant, again bool, err error) {
	if sc.Key == "" {
		return Grant{}, false, errors.New("queue: a spot-check needs a key")
	}
	sc.Author = strings.ToLower(sc.Author)
	return q.b.admit(ctx, now, sc, decide)
}

// Settle records what an admitted spot-check made in judge calls and
// spent, replacing its reservation.
func (q *Queue) Settle(ctx context.Context, key string, calls int, usd float64) error {
	return q.b.settle(ctx, key, calls, usd)
}

// Release withdraws the admission of the spot-check key, as if it had
// never been admitted: its reservation no longer counts against the day's
// budget and it no longer counts towards the limits. It is for a check
// that made no judge call, refused by the budget before its first; one
// that spent anything is settled instead. Releasing a key that is not
// recorded does nothing.
func (q *Queue) Release(ctx context.Context, key string) error {
	return q.b.release(ctx, key)
}

// SpentSince is the judge spend (settled, or reserved while running) of
// the spot-checks admitted at or after since.
func (q *Queue) SpentSince(ctx context.Context, since time.Time) (float64, error) {
	return q.b.spentSince(ctx, since)
}

// Waiting counts the verify, rerun, reproduce and accept jobs that wait to run (available,
// scheduled, retryable or pending): what Options.MaxWaiting bounds.
func (q *Queue) Waiting(ctx context.Context) (int, error) {
	return q.b.waiting(ctx)
}

// DayStart is 00:00 UTC of now's day: the daily judge budget counts the
// spend from then.
func DayStart(now time.Time) time.Time {
	return now.UTC().Truncate(24 * time.Hour)
}

// usageQuery is shared by both databases; only the placeholders differ.
// Its arguments are the repository, the pull request, the start of the
// rolling 24 hours, 00:00 UTC and the author; with positional
// placeholders (ph ignoring its argument) they are given in the order
// they appear: repository, pull request, repository, start, 00:00,
// author, start. It scans into the pull request's, the repository's and
// the author's counts and the day's spend.
func usageQuery(table string, ph func(int) string) string {
	return fmt.Sprintf(`SELECT
	(SELECT count(*) FROM %[1]s WHERE repo = %[2]s AND pr = %[3]s),
	(SELECT count(*) FROM %[1]s WHERE repo = %[2]s AND admitted_at > %[4]s),
	(SELECT coalesce(sum(coalesce(spent_usd, reserved_usd)), 0) FROM %[1]s WHERE admitted_at >= %[5]s),
	(SELECT count(*) FROM %[1]s WHERE author = %[6]s AND admitted_at > %[4]s)`,
		table, ph(1), ph(2), ph(3), ph(4), ph(5))
}

const ledgerColumns = `(
	spot_key text PRIMARY KEY,
	repo text NOT NULL,
	pr bigint NOT NULL,
	admitted_at bigint NOT NULL,
	reserved_usd double precision NOT NULL,
	calls integer,
	spent_usd double precision,
	author text NOT NULL DEFAULT ''
)`

// authorColumn is the column a ledger made before the per-author limit
// lacks; the spot-checks it holds count for no author.
const authorColumn = `author text NOT NULL DEFAULT ''`
