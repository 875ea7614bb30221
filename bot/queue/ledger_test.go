package queue

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"
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
