package queue

import (
	"database/sql"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// capped is an admission rule for the tests: at most perPR spot-checks per
// pull request, perRepo per repository per day, and a daily budget from
// which each spot-check reserves up to each dollars.
func capped(perPR, perRepo int, budget, each float64) func(Usage) Grant {
	return func(u Usage) Grant {
		switch {
		case u.PR >= perPR:
			return Grant{Limit: "pr"}
		case u.RepoDay >= perRepo:
			return Grant{Limit: "repo"}
		case u.SpentDay >= budget:
			return Grant{Limit: "spend"}
		}
		return Grant{Admitted: true, MaxUSD: math.Min(each, budget-u.SpentDay)}
	}
}

func TestLedgerCounts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		ctx := t.Context()
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		rule := capped(2, 3, 10, 4)
		admit := func(key, repo string, pr int, at time.Time) Grant {
			t.Helper()
			g, _, err := q.Admit(ctx, at, SpotCheck{Key: key, Repo: repo, PR: pr}, rule)
			if err != nil {
				t.Fatalf("admit %s: %v", key, err)
			}
			return g
		}
		// Two per pull request; the third is refused.
		if g := admit("a", "acme/board", 1, now); !g.Admitted || g.MaxUSD != 4 {
			t.Fatalf("first = %+v, want admitted with 4 USD", g)
		}
		if g := admit("b", "acme/board", 1, now); !g.Admitted {
			t.Fatalf("second = %+v, want admitted", g)
		}
		if g := admit("c", "acme/board", 1, now); g.Admitted || g.Limit != "pr" {
			t.Fatalf("third on the PR = %+v, want refused by pr", g)
		}
		// The same key again is its first grant, not a new spot-check.
		g, again, err := q.Admit(ctx, now, SpotCheck{Key: "a", Repo: "acme/board", PR: 1}, rule)
		if err != nil || !again || !g.Admitted || g.MaxUSD != 4 {
			t.Fatalf("retry of a = %+v again=%v err=%v, want its first grant", g, again, err)
		}
		// A third spot-check in the repository, then the repository's
		// day is full; another repository is not.
		if g := admit("d", "acme/board", 2, now); g.Admitted {
			// 8 of 10 USD reserved: d gets the 2 left.
			if g.MaxUSD != 2 {
				t.Fatalf("d = %+v, want the 2 USD left", g)
			}
		} else {
			t.Fatalf("d = %+v, want admitted", g)
		}
		if g := admit("e", "acme/board", 3, now); g.Admitted || g.Limit != "repo" {
			t.Fatalf("e = %+v, want refused by repo", g)
		}
		if g := admit("f", "other/board", 1, now); g.Admitted || g.Limit != "spend" {
			t.Fatalf("f = %+v, want refused by the day's spend (10 of 10 reserved)", g)
		}
		// Settling replaces reservations with what was spent.
		for key, usd := range map[string]float64{"a": 0.5, "b": 1, "d": 0} {
			if err := q.Settle(ctx, key, 12, usd); err != nil {
				t.Fatal(err)
			}
		}
		if spent, err := q.SpentSince(ctx, DayStart(now)); err != nil || spent != 1.5 {
			t.Fatalf("spent = %v, %v; want 1.5", spent, err)
		}
		if g := admit("f", "other/board", 1, now); !g.Admitted || g.MaxUSD != 4 {
			t.Fatalf("f after settling = %+v, want admitted with 4 USD", g)
		}
		// The budget is per UTC day and the repository's count a rolling 24 hours.
		tomorrow := time.Date(2026, 12, 1, 0, 0, 1, 0, time.UTC)
		if spent, err := q.SpentSince(ctx, DayStart(tomorrow)); err != nil || spent != 0 {
			t.Fatalf("spent tomorrow = %v, %v; want 0", spent, err)
		}
		if g := admit("g", "acme/board", 4, tomorrow); g.Admitted || g.Limit != "repo" {
			t.Fatalf("g just after midnight = %+v, want refused by repo (three in the last 24 hours)", g)
		}
		if g := admit("h", "acme/board", 4, now.Add(24*time.Hour+time.Second)); !g.Admitted {
			t.Fatalf("h a day later = %+v, want admitted", g)
		}
		// The pull request's limit does not reset.
		if g := admit("i", "acme/board", 1, now.Add(72*time.Hour)); g.Admitted || g.Limit != "pr" {
			t.Fatalf("i = %+v, want refused by pr", g)
		}
		if _, _, err := q.Admit(ctx, now, SpotCheck{Repo: "acme/board", PR: 1}, rule); err == nil {
			t.Fatal("admit without a key: want an error")
		}
	})
}

// TestLedgerRelease: a released admission counts towards no limit and
// reserves nothing, and admitting its key again is a new admission.
func TestLedgerRelease(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		ctx := t.Context()
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		rule := capped(1, 5, 10, 4)
		if g, _, err := q.Admit(ctx, now, SpotCheck{Key: "a", Repo: "acme/board", PR: 1}, rule); err != nil || !g.Admitted {
			t.Fatalf("a = %+v, %v", g, err)
		}
		if err := q.Release(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if spent, err := q.SpentSince(ctx, DayStart(now)); err != nil || spent != 0 {
			t.Fatalf("spent after the release = %v, %v; want 0", spent, err)
		}
		// The pull request's one spot-check is still to be had, and the
		// key is new again.
		g, again, err := q.Admit(ctx, now, SpotCheck{Key: "a", Repo: "acme/board", PR: 1}, rule)
		if err != nil || again || !g.Admitted || g.MaxUSD != 4 {
			t.Fatalf("a again = %+v again=%v, %v; want a new admission", g, again, err)
		}
		if err := q.Release(ctx, "never-admitted"); err != nil {
			t.Fatalf("releasing an unknown key: %v", err)
		}
	})
}

// TestLedgerConcurrentAdmissions: spot-checks admitted at once never
// reserve more than the day's budget, nor more than the limits allow.
func TestLedgerConcurrentAdmissions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		now := time.Now()
		rule := capped(1000, 7, 100, 10)
		var wg sync.WaitGroup
		var mu sync.Mutex
		admitted, total := 0, 0.0
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g, _, err := q.Admit(t.Context(), now, SpotCheck{Key: fmt.Sprint("k", i), Repo: "acme/board", PR: i}, rule)
				if err != nil {
					t.Errorf("admit: %v", err)
					return
				}
				if g.Admitted {
					mu.Lock()
					admitted++
					total += g.MaxUSD
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if admitted != 7 || total != 70 {
			t.Fatalf("admitted %d reserving %v USD, want 7 reserving 70", admitted, total)
		}
	})
}

func TestWaiting(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		for i := range 3 {
			mustEnqueue(t, q, verify(fmt.Sprint("d", i), fmt.Sprint("head", i)), true)
		}
		n, err := q.Waiting(t.Context())
		if err != nil || n != 3 {
			t.Fatalf("waiting = %d, %v; want 3", n, err)
		}
	})
}

// TestLedgerPerAuthor: an author's spot-checks are counted together over a
// rolling 24 hours, across pull requests and repositories, whatever the
// case of the login; another author's are not.
func TestLedgerPerAuthor(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		var seen []Usage
		rule := func(u Usage) Grant {
			seen = append(seen, u)
			if u.AuthorDay >= 3 {
				return Grant{Limit: "author"}
			}
			return Grant{Admitted: true, MaxUSD: 0.1}
		}
		admit := func(key, repo string, pr int, author string, at time.Time) Grant {
			t.Helper()
			g, _, err := q.Admit(t.Context(), at, SpotCheck{Key: key, Repo: repo, PR: pr, Author: author}, rule)
			if err != nil {
				t.Fatalf("admit %s: %v", key, err)
			}
			return g
		}
		// Three pull requests, two repositories, the login in three cases.
		admit("a", "acme/board", 1, "mallory", now)
		admit("b", "acme/board", 2, "Mallory", now.Add(time.Second))
		admit("c", "other/board", 1, "MALLORY", now.Add(2*time.Second))
		if g := admit("d", "acme/board", 3, "mallory", now.Add(3*time.Second)); g.Admitted || g.Limit != "author" {
			t.Fatalf("mallory's fourth = %+v, want refused by author", g)
		}
		if u := seen[len(seen)-1]; u.AuthorDay != 3 || u.PR != 0 || u.RepoDay != 2 {
			t.Fatalf("usage of mallory's fourth = %+v, want 3 by the author, 0 on the pull request, 2 in the repository", u)
		}
		if g := admit("e", "acme/board", 4, "honest", now.Add(4*time.Second)); !g.Admitted {
			t.Fatalf("another author = %+v, want admitted", g)
		}
		if u := seen[len(seen)-1]; u.AuthorDay != 0 || u.RepoDay != 2 {
			t.Fatalf("usage of another author = %+v, want 0 by the author", u)
		}
		// A rolling 24 hours: once the first has aged out, one more.
		if g := admit("f", "acme/board", 5, "mallory", now.Add(24*time.Hour)); !g.Admitted {
			t.Fatalf("mallory a day later = %+v, want admitted", g)
		}
		if g := admit("g", "acme/board", 6, "mallory", now.Add(24*time.Hour)); g.Admitted {
			t.Fatalf("mallory again = %+v, want refused: three in the last 24 hours", g)
		}
	})
}

// TestLedgerAddsAuthorColumn: a ledger made before the per-author limit
// gains the author column when the queue opens, keeps its spot-checks
// (which count for no author) and admits by author from then on.
func TestLedgerAddsAuthorColumn(t *testing.T) {
	const old = `CREATE TABLE %s (
	spot_key text PRIMARY KEY,
	repo text NOT NULL,
	pr bigint NOT NULL,
	admitted_at bigint NOT NULL,
	reserved_usd double precision NOT NULL,
	calls integer,
	spent_usd double precision
)`
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	insert := fmt.Sprintf(`INSERT INTO %%s (spot_key, repo, pr, admitted_at, reserved_usd) VALUES ('before', 'acme/board', 1, %d, 1)`, now.Unix())
	forEachBackend(t, func(t *testing.T, tg target) {
		ctx := t.Context()
		if path, ok := strings.CutPrefix(tg.url, "sqlite:"); ok {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			for _, stmt := range []string{fmt.Sprintf(old, "benchgate_spotcheck"), fmt.Sprintf(insert, "benchgate_spotcheck")} {
				if _, err := db.ExecContext(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
		} else {
			conn, err := pgx.Connect(ctx, tg.url)
			if err != nil {
				t.Fatal(err)
			}
			table := pgx.Identifier{tg.opts.Schema, "benchgate_spotcheck"}.Sanitize()
			for _, stmt := range []string{"CREATE SCHEMA " + pgx.Identifier{tg.opts.Schema}.Sanitize(), fmt.Sprintf(old, table), fmt.Sprintf(insert, table)} {
				if _, err := conn.Exec(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			conn.Close(ctx)
		}
		q, err := OpenWithOptions(ctx, tg.url, nil, tg.opts)
		if err != nil {
			t.Fatalf("open the old ledger: %v", err)
		}
		var u Usage
		g, _, err := q.Admit(ctx, now, SpotCheck{Key: "after", Repo: "acme/board", PR: 1, Author: "mallory"}, func(got Usage) Grant {
			u = got
			return Grant{Admitted: true, MaxUSD: 1}
		})
		if err != nil || !g.Admitted || u.PR != 1 || u.AuthorDay != 0 || u.SpentDay != 1 {
			t.Fatalf("admit after the upgrade: %+v with usage %+v, %v; want admitted, the old spot-check counted for the pull request and the day but no author", g, u, err)
		}
		_, _, err = q.Admit(ctx, now, SpotCheck{Key: "next", Repo: "acme/board", PR: 2, Author: "Mallory"}, func(got Usage) Grant {
			u = got
			return Grant{}
		})
		if err != nil || u.AuthorDay != 1 {
			t.Fatalf("usage %+v, %v; want mallory's one spot-check", u, err)
		}
		// Opening again finds the column there.
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := open(t, tg).Admit(ctx, now, SpotCheck{Key: "reopened", Repo: "acme/board", PR: 3, Author: "mallory"}, func(got Usage) Grant {
			u = got
			return Grant{}
		}); err != nil || u.AuthorDay != 1 {
			t.Fatalf("reopened: usage %+v, %v; want mallory's one spot-check", u, err)
		}
	})
}
