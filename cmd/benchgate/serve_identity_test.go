package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/ghapp"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/syncbuf"
	"github.com/jackc/pgx/v5"
)

// What a verdict is for: a pull request's head on its base, once. These
// tests run the App against the fake GitHub and replay, retarget and
// share heads as GitHub and an attacker holding captured deliveries can.

// queueDatabases runs f with the App's queue on SQLite and, when
// BENCHGATE_TEST_DATABASE_URL names one, on PostgreSQL (in a schema of
// its own): the memory of work and verdicts is SQL of each.
func queueDatabases(t *testing.T, f func(t *testing.T, database string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, "") })
	t.Run("postgres", func(t *testing.T) {
		url := os.Getenv("BENCHGATE_TEST_DATABASE_URL")
		if url == "" {
			t.Skip("PostgreSQL case skipped: set BENCHGATE_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
		}
		ctx := context.Background()
		db, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Skipf("PostgreSQL case skipped: BENCHGATE_TEST_DATABASE_URL does not answer: %v", err)
		}
		defer db.Close(ctx)
		schema := fmt.Sprintf("bgident_%d", time.Now().UnixNano())
		if _, err := db.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if db, err := pgx.Connect(context.Background(), url); err == nil {
				db.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
				db.Close(context.Background())
			}
		})
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		f(t, url+sep+"search_path="+schema)
	})
}

// identityApp is an App whose repository is installed (so that the fake's
// deliveries name the installation) with a branch "stale" holding the
// benchmarks, and whose log is kept.
// On database, when set, is its queue.
func identityApp(t *testing.T, database string, edit func(a *app, cfg *bot.Config)) (*app, *syncbuf.Buffer) {
	t.Helper()
	return identityAppReconciling(t, database, 0, edit)
}

// identityAppReconciling is identityApp reconciling every interval (0:
// never).
func identityAppReconciling(t *testing.T, database string, every time.Duration, edit func(a *app, cfg *bot.Config)) (*app, *syncbuf.Buffer) {
	t.Helper()
	logs := &syncbuf.Buffer{}
	a := startAppWith(t, appOptions{logs: logs, reconcile: every, edit: func(a *app, cfg *bot.Config) {
		if database != "" {
			cfg.DatabaseURL = database
		}
		a.gh.AddInstallation(7, "geo/board")
		entries, _ := os.ReadDir(filepath.Join(a.root, "rubrics"))
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(a.root, "rubrics", e.Name()))
			a.gh.SetFile("geo/board", "stale", "rubrics/"+e.Name(), data)
		}
		if edit != nil {
			edit(a, cfg)
		}
	}})
	return a, logs
}

// submission is the files of a submission in dir by login.
func (a *app) submission(dir, login string) []fakegithub.File {
	return []fakegithub.File{
		{Name: dir + "meta.json", Status: "added", Content: submittedBy(a.t, a.meta, login)},
		{Name: dir + "scores.json", Status: "added", Content: a.scores},
	}
}

// merged puts someone else's submission in dir on main, as a merge did.
func (a *app) merged(dir, login string) {
	for _, f := range a.submission(dir, login) {
		a.gh.SetFile("geo/board", "main", f.Name, f.Content)
	}
}

// conclusion is the conclusion of the newest check run of the verify
// check on head, "" while there is none.
func (a *app) conclusion(head string) string {
	rs := a.runs(prcheck.CheckName, head)
	if len(rs) == 0 || rs[len(rs)-1].Status != "completed" {
		return ""
	}
	return rs[len(rs)-1].Conclusion
}

// callsDuring is the requests GitHub served while do ran, once the App
// has been idle for settle: "METHOD path" each.
func (a *app) callsDuring(settle time.Duration, do func()) []string {
	before := len(a.gh.Requests())
	do()
	time.Sleep(settle)
	var out []string
	for _, r := range a.gh.Requests()[before:] {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

// memberComment is a comment by a member of the repository's
// organisation (author_association MEMBER), as GitHub sends it.
func memberComment(number int, id int64, login, body string) string {
	return fmt.Sprintf(`{"action": "created", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "issue": {"number": %d, "pull_request": {}}, "comment": {"id": %d, "body": %q, "author_association": "MEMBER", "user": {"login": %q, "type": "User"}}}`, number, id, body, login)
}

// TestServeReplays: a maintainer's signed /benchgate rerun comment sent
// four more times under new delivery ids runs one spot-check; once the
// pull request is merged, neither its captured delivery nor a command
// verifies or spot-checks it again.
func TestServeReplays(t *testing.T) {
	queueDatabases(t, func(t *testing.T, database string) {
		a, logs := identityApp(t, database, nil)
		a.gh.SetPermission("geo/board", "maint", "maintain")
		head := strings.Repeat("a1", 20)
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 80, Author: newcomer, HeadSHA: head, Files: a.submission("submissions/model-benchmark/run-80/", newcomer)})
		opened := string(a.gh.PullRequestEvent("geo/board", "opened", 80, nil))
		a.deliver("pull_request", "replay-open", opened)
		a.waitFor("the verification", func() bool { return a.conclusion(head) == "success" && len(a.gh.Comments("geo/board", 80)) == 1 })

		rerun := memberComment(80, 8001, "maint", "/benchgate rerun")
		a.deliver("issue_comment", "replay-rerun", rerun)
		a.waitFor("the spot-check", func() bool { return len(a.runs(prcheck.RerunCheckName, head)) == 1 })
		for i := range 4 {
			a.deliver("issue_comment", fmt.Sprint("replay-rerun-", i), rerun)
		}
		a.waitFor("the replays to be answered", func() bool {
			return a.metric(`benchgate_webhook_deliveries_total{event="issue_comment",outcome="duplicate"}`) == 4
		})
		time.Sleep(time.Second)
		if n := strings.Count(logs.String(), `"msg":"spot-check"`); n != 1 {
			t.Errorf("%d spot-checks for one comment sent five times, want 1", n)
		}

		// Merged: the pull request is closed on GitHub.
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 80, Author: newcomer, HeadSHA: head, State: "closed", Merged: true, Files: a.submission("submissions/model-benchmark/run-80/", newcomer)})
		runs := len(a.gh.CheckRuns("geo/board"))
		calls := a.callsDuring(2*time.Second, func() {
			a.deliver("pull_request", "replay-open-again", opened)
			a.deliver("issue_comment", "verify-merged", memberComment(80, 8002, "maint", "/benchgate verify"))
			a.deliver("issue_comment", "rerun-merged", memberComment(80, 8003, "maint", "/benchgate rerun"))
		})
		a.waitFor("the commands on the merged pull request to be done", func() bool {
			return strings.Contains(logs.String(), "verify skipped: the pull request is closed") && strings.Contains(logs.String(), "/benchgate rerun skipped: the pull request is closed")
		})
		if n := len(a.gh.CheckRuns("geo/board")); n != runs {
			t.Errorf("%d check runs after the pull request was merged, want %d", n, runs)
		}
		if n := strings.Count(logs.String(), `"msg":"spot-check"`); n != 1 {
			t.Errorf("%d spot-checks, want still 1", n)
		}
		for _, c := range calls {
			// Each command reads the pull request (the rerun, the
			// commenter's permission first) and finds it closed.
			if c != "GET /repos/geo/board/pulls/80" && c != "GET /repos/geo/board/collaborators/maint/permission" {
				t.Errorf("after the merge the App called %s", c)
			}
		}
	})
}

// TestServeRetarget: a pull request verified against a stale branch and
// then moved to main, where the same change overwrites someone else's
// merged submission, is verified again and fails; its edited delivery
// replayed does nothing; moved back, it is verified again.
func TestServeRetarget(t *testing.T) {
	a, _ := identityApp(t, "", nil)
	dir := "submissions/model-benchmark/run-81/"
	a.merged(dir, "other-lab")
	head := strings.Repeat("b2", 20)
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 81, Author: newcomer, HeadSHA: head, HeadRef: "mine", BaseRef: "stale", Files: a.submission(dir, newcomer)})
	a.deliver("pull_request", "rt-open", string(a.gh.PullRequestEvent("geo/board", "opened", 81, nil)))
	a.waitFor("the verification against stale", func() bool { return a.conclusion(head) == "success" })

	edited := string(a.gh.Retarget("geo/board", 81, "main"))
	a.deliver("pull_request", "rt-main", edited)
	a.waitFor("the verification against main", func() bool { return a.conclusion(head) == "failure" })
	a.waitFor("the comment to say so", func() bool {
		cs := a.gh.Comments("geo/board", 81)
		return len(cs) == 1 && strings.Contains(cs[0].Body, "❌")
	})

	calls := a.callsDuring(2*time.Second, func() { a.deliver("pull_request", "rt-main-replayed", edited) })
	if len(calls) != 0 {
		t.Errorf("a replayed base change made %d calls: %v", len(calls), calls)
	}
	a.deliver("pull_request", "rt-back", string(a.gh.Retarget("geo/board", 81, "stale")))
	a.waitFor("the verification against stale again", func() bool { return a.conclusion(head) == "success" })
}

// TestServeSharedHead: one branch proposed to two bases. Against stale
// it adds a submission; against main, the same commit overwrites someone
// else's. The check run on the commit shows the failure whichever pull
// request is verified first, and says whose it is; each comment gives its
// own verdict and names the other.
func TestServeSharedHead(t *testing.T) {
	queueDatabases(t, func(t *testing.T, database string) {
		a, _ := identityApp(t, database, nil)
		dir := "submissions/model-benchmark/run-82/"
		a.merged(dir, "other-lab")
		head := strings.Repeat("c3", 20)
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 82, Author: newcomer, HeadSHA: head, HeadRef: "two-bases", BaseRef: "stale", Files: a.submission(dir, newcomer)})
		a.gh.OpenFromBranch("geo/board", 83, 82, "main")
		for _, order := range [][]int{{82, 83}, {83, 82}} {
			for _, n := range order {
				a.deliver("pull_request", fmt.Sprintf("shared-%d-%d", order[0], n), string(a.gh.PullRequestEvent("geo/board", "synchronize", n, nil)))
				if n == order[0] {
					// The other waits until this one is done.
					a.waitFor("the first verification", func() bool { return len(a.gh.Comments("geo/board", n)) == 1 && a.conclusion(head) != "" })
				}
			}
			a.waitFor("both comments", func() bool {
				c82, c83 := a.gh.Comments("geo/board", 82), a.gh.Comments("geo/board", 83)
				return len(c82) == 1 && len(c83) == 1 && strings.Contains(c82[0].Body, "This head is shared") && strings.Contains(c83[0].Body, "This head is shared")
			})
			rs := a.runs(prcheck.CheckName, head)
			if len(rs) != 1 || rs[0].Conclusion != "failure" || !strings.HasPrefix(rs[0].Output.Title, "#83: ") || !strings.Contains(rs[0].Output.Summary, "#83's") {
				t.Fatalf("order %v: runs %+v, want one failing run naming #83", order, rs)
			}
			c82, c83 := a.gh.Comments("geo/board", 82)[0].Body, a.gh.Comments("geo/board", 83)[0].Body
			if !strings.Contains(c82, "#83's, not this pull request's") || !strings.Contains(c83, "this pull request's own") {
				t.Errorf("order %v: comments\n#82: %s\n#83: %s", order, c82, c83)
			}
			if order[0] == 82 {
				// Again the other way round: a new push, the same two bases.
				next := strings.Repeat("d4", 20)
				a.gh.AddPR("geo/board", fakegithub.PR{Number: 82, Author: newcomer, HeadSHA: next, HeadRef: "two-bases", BaseRef: "stale", Files: a.submission(dir, newcomer)})
				a.gh.OpenFromBranch("geo/board", 83, 82, "main")
				head = next
			}
		}
	})
}

// TestServeStrangerVerify: under the auto policy, twenty /benchgate
// verify comments from someone who is no collaborator cost no
// spot-check and almost nothing: a pull request takes one such request
// per window, and an unchanged head is answered from its last verdict
// after reading the pull request alone.
func TestServeStrangerVerify(t *testing.T) {
	a, logs := identityApp(t, "", func(a *app, cfg *bot.Config) { cfg.RerunPolicy = bot.RerunAuto })
	head := strings.Repeat("e5", 20)
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 84, Author: newcomer, HeadSHA: head, Files: a.submission("submissions/model-benchmark/run-84/", newcomer)})
	a.deliver("pull_request", "sv-open", string(a.gh.PullRequestEvent("geo/board", "opened", 84, nil)))
	a.waitFor("the verification and its spot-check", func() bool {
		return a.conclusion(head) == "success" && len(a.runs(prcheck.RerunCheckName, head)) == 1 && strings.Contains(logs.String(), `"msg":"spot-check"`)
	})
	time.Sleep(500 * time.Millisecond)
	runs := len(a.gh.CheckRuns("geo/board"))
	budget := a.gh.RateLimitRemaining()
	calls := a.callsDuring(2*time.Second, func() {
		for i := range 20 {
			a.deliver("issue_comment", fmt.Sprint("sv-", i), commentEvent(84, int64(8400+i), "passer-by", "/benchgate verify"))
		}
	})
	// One window, or two when the flood straddles a window's end.
	if len(calls) == 0 || len(calls) > 2 {
		t.Errorf("twenty strangers' requests made %d calls, want one or two: %v", len(calls), calls)
	}
	for _, c := range calls {
		if c != "GET /repos/geo/board/pulls/84" {
			t.Errorf("a stranger's request on an unchanged head called %s", c)
		}
	}
	// The read is conditional: once GitHub has answered it, an unchanged
	// pull request is a 304, which GitHub does not charge.
	if spent := budget - a.gh.RateLimitRemaining(); spent > 1 {
		t.Errorf("twenty strangers' requests cost %d of the rate limit, want at most 1", spent)
	}
	if n := strings.Count(logs.String(), `"msg":"spot-check"`); n != 1 {
		t.Errorf("%d spot-checks, want the one of the pull request's opening", n)
	}
	if n := len(a.gh.CheckRuns("geo/board")); n != runs {
		t.Errorf("%d check runs after the strangers' requests, want %d", n, runs)
	}
	if got := a.metric(`benchgate_webhook_deliveries_total{event="issue_comment",outcome="duplicate"}`); got < 18 {
		t.Errorf("%v of twenty requests refused at the door, want at least 18", got)
	}
	// A maintainer's /benchgate verify of an unchanged head is answered
	// from the last verdict too.
	budget = a.gh.RateLimitRemaining()
	calls = a.callsDuring(2*time.Second, func() { a.deliver("issue_comment", "sv-member", memberComment(84, 8499, "maint", "/benchgate verify")) })
	if len(calls) != 1 || calls[0] != "GET /repos/geo/board/pulls/84" {
		t.Errorf("a member's request on an unchanged head called %v, want the pull request read alone", calls)
	}
	if spent := budget - a.gh.RateLimitRemaining(); spent != 0 {
		t.Errorf("a member's request on an unchanged head cost %d of the rate limit, want none (a 304)", spent)
	}
}

// TestServeRerunSupersedesRetry: a verification that failed twice waits
// out its back-off (16 s after the second attempt); the Re-run button
// pressed meanwhile is queued, not taken for its duplicate, and verifies
// at once. A delivery naming no installation is refused at once and does
// not block the head's valid deliveries.
func TestServeRerunSupersedesRetry(t *testing.T) {
	queueDatabases(t, func(t *testing.T, database string) {
		a, _ := identityApp(t, database, nil)
		head := strings.Repeat("f6", 20)
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 85, Author: newcomer, HeadSHA: head, Files: a.submission("submissions/model-benchmark/run-85/", newcomer)})
		var down atomic.Bool
		down.Store(true)
		a.gh.Inject(func(r *http.Request, _ int) *fakegithub.Fault {
			if down.Load() && r.URL.Path == "/repos/geo/board/pulls/85" {
				return &fakegithub.Fault{Status: http.StatusInternalServerError}
			}
			return nil
		})
		noInstallation := `{"action": "opened", "repository": {"full_name": "geo/board", "default_branch": "main"}, "pull_request": {"number": 85, "head": {"sha": "` + head + `"}}}`
		if code := signedRequest(t, a.addr, "pull_request", "rs-no-inst", noInstallation, a.secret); code != http.StatusUnprocessableEntity {
			t.Fatalf("a delivery naming no installation: %d, want 422", code)
		}
		a.deliver("pull_request", "rs-open", string(a.gh.PullRequestEvent("geo/board", "opened", 85, nil)))
		// Each attempt of the job tries the call ghapp.DefaultMaxAttempts
		// times, 15 s in all, before the job fails; River waits 1 s after
		// its first failure, too short to be seen through /metrics' 2 s
		// cache, and 16 s after its second.
		deadline := time.Now().Add(90 * time.Second)
		for {
			failed := 0
			for _, r := range a.gh.Requests() {
				if r.Path == "/repos/geo/board/pulls/85" && r.Status == http.StatusInternalServerError {
					failed++
				}
			}
			if failed > ghapp.DefaultMaxAttempts && a.metric(`benchgate_jobs{kind="benchgate_verify",state="retryable"}`) == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for two failed attempts and a waiting retry (%d failed calls)", failed)
			}
			time.Sleep(100 * time.Millisecond)
		}
		down.Store(false)
		pressed := time.Now()
		rerequested := `{"action": "rerequested", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"},
			"check_run": {"id": 1, "name": "benchgate / verify", "head_sha": "` + head + `", "pull_requests": [{"number": 85}]}}`
		a.deliver("check_run", "rs-rerun", rerequested)
		a.waitFor("the re-run's check", func() bool { return a.conclusion(head) == "success" })
		if took := time.Since(pressed); took > 10*time.Second {
			t.Errorf("the re-run's verdict came %v after the button, as if it waited for the retry", took)
		}
		if got := a.metric(`benchgate_webhook_deliveries_total{event="check_run",outcome="queued"}`); got != 1 {
			t.Errorf("the re-run was queued %v times, want 1", got)
		}
		a.waitFor("the waiting retry to be cancelled", func() bool {
			return a.metric(`benchgate_jobs{kind="benchgate_verify",state="cancelled"}`) == 1
		})
		if got := a.metric(`benchgate_webhook_deliveries_total{event="pull_request",outcome="no_installation"}`); got != 1 {
			t.Errorf("no_installation outcomes: %v, want 1", got)
		}
	})
}
