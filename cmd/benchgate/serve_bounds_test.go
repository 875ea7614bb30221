package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/ghapp"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
)

// ready waits for the App's /readyz to answer 200.
func (a *app) ready() {
	a.t.Helper()
	a.waitFor("the App to be ready", func() bool {
		resp, err := http.Get("http://" + a.addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// TestServeOversizedFile: a scores.json over the cap on what the App
// reads is refused by the size GitHub gives for it, before any of it is
// downloaded: a failed check naming the size and the cap, posted once,
// with no retry of the job.
func TestServeOversizedFile(t *testing.T) {
	a := startApp(t)
	a.ready()
	head := strings.Repeat("e", 40)
	dir := "submissions/model-benchmark/huge/"
	huge := bytes.Repeat([]byte(" "), ghapp.DefaultMaxChangedBytes+1)
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 91, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: dir + "meta.json", Status: "added", Content: a.meta},
		{Name: dir + "scores.json", Status: "added", Content: huge},
	}})
	hugeBlob := gitBlob(huge)
	huge = nil
	a.deliver("pull_request", "huge-1", prEvent("opened", 91, head))
	a.waitFor("the check", func() bool {
		return len(a.runs(prcheck.CheckName, head)) == 1 && len(a.gh.Comments("geo/board", 91)) == 1
	})
	r := a.runs(prcheck.CheckName, head)[0]
	size := fmt.Sprintf("scores.json` is 64.0 MiB (%d bytes)", ghapp.DefaultMaxChangedBytes+1)
	limit := fmt.Sprintf("benchgate reads at most 64.0 MiB (%d bytes)", ghapp.DefaultMaxChangedBytes)
	if r.Conclusion != "failure" || r.Output.Title != "A file is too large to read" || !strings.Contains(r.Output.Summary, size) || !strings.Contains(r.Output.Summary, limit) {
		t.Errorf("%s %q: %s", r.Conclusion, r.Output.Title, r.Output.Summary)
	}
	time.Sleep(300 * time.Millisecond)
	if n := countPaths(a.gh, "GET", "/repos/geo/board/git/blobs/"+hugeBlob); n != 0 {
		t.Errorf("the oversized blob was downloaded %d times", n)
	}
	if n := countPaths(a.gh, "GET", "/repos/geo/board/pulls/91/files"); n != 1 {
		t.Errorf("the files were listed %d times: the job was retried", n)
	}
}

// gitBlob is git's name for a blob holding data.
func gitBlob(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// TestServeCrowdedFolder: 1,000 files in one submission folder fail by
// the folder's layout rule from the first page of the listing, with no
// file downloaded; a pull request whose changed_files is past the 3,000
// GitHub lists is settled without reading its listing at all.
func TestServeCrowdedFolder(t *testing.T) {
	a := startApp(t)
	a.ready()
	calls := func() float64 { return a.metric(`benchgate_job_github_calls_sum{kind="verify"}`) }
	jobs := func() float64 { return a.metric(`benchgate_job_github_calls_count{kind="verify"}`) }
	run := func(number, n int, dir string) (float64, fakegithub.CheckRun) {
		t.Helper()
		head := fmt.Sprintf("%040d", number)
		files := []fakegithub.File{{Name: dir + "meta.json", Status: "added", Content: a.meta}, {Name: dir + "scores.json", Status: "added", Content: a.scores}}
		for i := len(files); i < n; i++ {
			files = append(files, fakegithub.File{Name: fmt.Sprintf("%spart-%04d.csv", dir, i), Status: "added", Content: []byte("x\n")})
		}
		a.gh.AddPR("geo/board", fakegithub.PR{Number: number, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: files})
		before, done := max(calls(), 0), max(jobs(), 0)
		a.deliver("pull_request", fmt.Sprintf("crowd-%d", number), prEvent("opened", number, head))
		a.waitFor("the check", func() bool { return jobs() == done+1 && len(a.runs(prcheck.CheckName, head)) == 1 })
		spent := calls() - before
		t.Logf("%d files in %s: %.0f REST calls", n, dir, spent)
		return spent, a.runs(prcheck.CheckName, head)[0]
	}
	spent, r := run(95, 1000, "submissions/model-benchmark/crowded/")
	if r.Conclusion != "failure" || !strings.Contains(r.Output.Summary, "files or more in `submissions/model-benchmark/crowded`") || !strings.Contains(r.Output.Summary, "part-0002.csv") {
		t.Errorf("1,000 files: %s: %s", r.Conclusion, r.Output.Summary)
	}
	if n := countPaths(a.gh, "GET", "/repos/geo/board/pulls/95/files"); n != 1 {
		t.Errorf("1,000 files: %d pages of the listing read, want 1", n)
	}
	// The pull request, one page of its files, the check run (listed,
	// then created), the comment count read again under the comment's
	// lock, and the comment. The first check also exchanges the token.
	if spent > 7 {
		t.Errorf("1,000 files in one folder cost %.0f calls, want at most 7 (6, and the token)", spent)
	}
	for _, rq := range a.gh.Requests() {
		if strings.Contains(rq.Path, "/contents/") || strings.Contains(rq.Path, "/git/") {
			t.Errorf("a download for a folder the listing settles: %s %s", rq.Method, rq.Path)
		}
	}

	spent, r = run(96, prcheck.MaxListedFiles+1, "submissions/model-benchmark/vast/")
	if r.Conclusion != "failure" || !strings.Contains(r.Output.Summary, "3000 files or more") {
		t.Errorf("3,001 files: %s: %s", r.Conclusion, r.Output.Summary)
	}
	if n := countPaths(a.gh, "GET", "/repos/geo/board/pulls/96/files"); n != 0 {
		t.Errorf("3,001 files: %d pages of the listing read, want none", n)
	}
	if spent > 5 {
		t.Errorf("3,001 files cost %.0f calls, want at most 5", spent)
	}
}

// TestServeRerunsAtOnce: a fork's pull request (GitHub names no pull
// request in its re-run deliveries) whose suite is re-run while its first
// verification runs, before it has any comment: both jobs verify it, and
// it gets one sticky comment, the second job finding the first one's.
func TestServeRerunsAtOnce(t *testing.T) {
	a := startApp(t)
	a.ready()
	head := strings.Repeat("8", 40)
	dir := "submissions/model-benchmark/forked/"
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 97, Author: newcomer, HeadSHA: head, HeadRepo: newcomer + "/board", BaseRef: "main", Files: []fakegithub.File{
		{Name: dir + "meta.json", Status: "added", Content: a.meta},
		{Name: dir + "scores.json", Status: "added", Content: a.scores},
	}})
	// Slow answers, so that both jobs read the pull request (no comment
	// yet) before either writes its comment.
	a.gh.SetLatency(20*time.Millisecond, 60*time.Millisecond)
	suite := `{"action": "rerequested", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"},
		"check_suite": {"id": 5, "head_sha": "` + head + `", "pull_requests": []}}`
	var wg sync.WaitGroup
	for _, d := range []struct{ event, id, body string }{{"pull_request", "both-1", prEvent("opened", 97, head)}, {"check_suite", "both-2", suite}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code := signedRequest(t, a.addr, d.event, d.id, d.body, a.secret); code != http.StatusAccepted {
				t.Errorf("%s: %d", d.id, code)
			}
		}()
	}
	wg.Wait()
	// Both jobs done (the first's check run may be the one the second
	// updates, when the re-run's is created first).
	a.waitFor("both verifications", func() bool { return a.metric(`benchgate_job_github_calls_count{kind="verify"}`) == 2 })
	time.Sleep(500 * time.Millisecond)
	sticky := 0
	for _, c := range a.gh.Comments("geo/board", 97) {
		if prcheck.IsSticky(c.Body) {
			sticky++
		}
	}
	if sticky != 1 {
		t.Errorf("%d sticky comments, want 1", sticky)
	}
}

// TestServeNullCommenter: a command whose comment.user is null (GitHub's
// schema allows it: a deleted account) is nobody's: no permission is
// asked for an empty login, and the reply mentions nobody.
func TestServeNullCommenter(t *testing.T) {
	a := startApp(t)
	a.ready()
	head := strings.Repeat("3", 40)
	a.pr(98, head, a.scores)
	body := `{"action": "created", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "issue": {"number": 98, "pull_request": {}}, "comment": {"id": 9801, "body": "/benchgate rerun", "user": null}}`
	a.deliver("issue_comment", "null-1", body)
	a.waitFor("the reply", func() bool { return len(a.gh.Comments("geo/board", 98)) == 1 })
	for _, r := range a.gh.Requests() {
		if strings.Contains(r.Path, "/collaborators/") {
			t.Errorf("a permission call: %s %s", r.Method, r.Path)
		}
	}
	if c := a.gh.Comments("geo/board", 98)[0]; strings.Contains(c.Body, "@") {
		t.Errorf("the reply mentions someone: %q", c.Body)
	}
}

// TestServePrivateMode: on GitHub Enterprise Server in private mode,
// which refuses every request without credentials, the App reads its bot
// user as an installation and becomes ready.
func TestServePrivateMode(t *testing.T) {
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		a.gh.PrivateMode = true
		a.gh.AddInstallation(7, "geo/board")
	}})
	a.ready()
	head := strings.Repeat("2", 40)
	a.pr(99, head, a.scores)
	a.deliver("pull_request", "private-1", prEvent("opened", 99, head))
	a.waitFor("the check and its comment", func() bool {
		return len(a.runs(prcheck.CheckName, head)) == 1 && len(a.gh.Comments("geo/board", 99)) == 1
	})
}

// TestServeRevokedTokenAndErrors: a token GitHub stops taking is
// replaced and the check goes on; a 500 and a 422 in the middle of a
// check are retried in place rather than restarting the job.
func TestServeRevokedTokenAndErrors(t *testing.T) {
	a := startApp(t)
	a.ready()
	h1 := strings.Repeat("6", 40)
	a.pr(100, h1, a.scores)
	a.deliver("pull_request", "tok-1", prEvent("opened", 100, h1))
	a.waitFor("the first check", func() bool { return len(a.runs(prcheck.CheckName, h1)) == 1 })
	issued := a.gh.TokensIssued()
	a.gh.RevokeTokens()
	var once sync.Once
	a.gh.Inject(func(r *http.Request, _ int) *fakegithub.Fault {
		var f *fakegithub.Fault
		switch {
		case strings.HasSuffix(r.URL.Path, "/pulls/101/files"):
			once.Do(func() { f = &fakegithub.Fault{Status: http.StatusInternalServerError} })
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/check-runs") && countPaths(a.gh, "POST", "/repos/geo/board/check-runs") == 1:
			f = &fakegithub.Fault{Status: http.StatusUnprocessableEntity, Message: "No commit found for SHA"}
		}
		return f
	})
	h2 := strings.Repeat("7", 40)
	a.pr(101, h2, a.scores)
	a.deliver("pull_request", "tok-2", prEvent("opened", 101, h2))
	a.waitFor("the second check", func() bool {
		return len(a.runs(prcheck.CheckName, h2)) == 1 && len(a.gh.Comments("geo/board", 101)) == 1
	})
	a.gh.Inject(nil)
	if n := a.gh.TokensIssued() - issued; n != 1 {
		t.Errorf("%d tokens minted after the revocation, want 1", n)
	}
	// The refused read and its retry with the new token, then the
	// comment count read again under the comment's lock.
	if n := countPaths(a.gh, "GET", "/repos/geo/board/pulls/101"); n != 3 {
		t.Errorf("the pull request was read %d times, want 3: the job was restarted", n)
	}
	if n := countPaths(a.gh, "GET", "/repos/geo/board/pulls/101/files"); n != 2 {
		t.Errorf("the files were listed %d times, want 2 (the 500 and its retry)", n)
	}
}

// TestServeReconcileHourlyCost measures what reconcile passes over
// unchanged pull requests cost in an hour, token renewal included.
// GitHub's tags are per token and an installation token lives an hour,
// so the first time each question is asked under a renewed token it is
// answered (and charged) in full: each renewal costs one full pass, 2 + k
// calls for k open pull requests (the repositories, the open pull
// requests, and one check-run listing per head), and every other pass is
// answered 304. Tokens here live 63 s, which the App renews a minute
// before expiry, so that a renewal comes every few seconds rather than
// every hour.
func TestServeReconcileHourlyCost(t *testing.T) {
	const prs = 20
	a := startAppWith(t, appOptions{reconcile: 500 * time.Millisecond, edit: func(a *app, cfg *bot.Config) {
		a.gh.SetTokenLifetime(63 * time.Second)
		a.gh.AddInstallation(7, "geo/board")
		for n := 1; n <= prs; n++ {
			a.pr(n, fmt.Sprintf("%040x", n), a.scores)
		}
	}})
	a.waitFor("every pull request's check", func() bool { return len(a.runs(prcheck.CheckName, "")) == prs })
	settled := len(a.gh.Requests())
	type pass struct{ calls, charged, renewals int }
	// passes splits what came after settled into reconcile passes, each
	// starting with the App's listing of its installations.
	passes := func() []pass {
		var out []pass
		for _, r := range a.gh.Requests()[settled:] {
			if r.Method == http.MethodGet && r.Path == "/app/installations" {
				out = append(out, pass{})
			}
			if len(out) == 0 {
				continue
			}
			p := &out[len(out)-1]
			p.calls++
			switch {
			case r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/access_tokens"):
				p.renewals++
			case strings.HasPrefix(r.Path, "/app/"), r.Path == "/app":
				// The App's own budget, not the installation's.
			case r.Status != http.StatusNotModified:
				p.charged++
			}
		}
		return out[:max(len(out)-1, 0)] // the last may be under way
	}
	// A window from a quiet pass to a quiet pass, with two renewals or
	// more in between, so that every renewal's full pass is inside it.
	var window []pass
	a.waitFor("two token renewals between quiet passes", func() bool {
		ps := passes()
		start := -1
		for i, p := range ps {
			if p.charged == 0 && p.renewals == 0 {
				start = i
				break
			}
		}
		if start < 0 {
			return false
		}
		renewals := 0
		for i := start + 1; i < len(ps); i++ {
			renewals += ps[i].renewals
			if renewals >= 2 && ps[i].charged == 0 && ps[i].renewals == 0 {
				window = ps[start+1 : i+1]
				return true
			}
		}
		return false
	})
	calls, charged, renewals := 0, 0, 0
	for _, p := range window {
		calls += p.calls
		charged += p.charged
		renewals += p.renewals
	}
	full := 2 + prs
	if charged != renewals*full {
		t.Errorf("%d passes with %d token renewals: %d calls charged, want %d (%d for each renewal)", len(window), renewals, charged, renewals*full, full)
	}
	perHour := 60 / 10 // passes an hour at serve's default -reconcile 10m
	t.Logf("%d reconcile passes over %d open pull requests, %d token renewals: %d calls, %d charged (%d per renewal)", len(window), prs, renewals, calls, charged, charged/max(renewals, 1))
	t.Logf("an hour at the default 10-minute interval: %d passes, one renewal: %d calls charged of the installation's 5,000", perHour, charged/max(renewals, 1))
}
