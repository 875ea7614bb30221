package main

import (
	"fmt"
	"github.com/benchgate/benchgate/internal/gitserver"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/synth"
	"github.com/benchgate/benchgate/verify"
)

// TestServeLearnsItsIdentity runs the App with the documented minimal
// setup under a slug that is not benchgate's, with GitHub unable to say
// who the App is at first: /readyz says so until GitHub answers GET /app;
// then the App recognises its own comment (one sticky comment through a
// push, a command and a refusal) and its own check runs.
func TestServeLearnsItsIdentity(t *testing.T) {
	var answering atomic.Bool
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		a.gh.AppSlug = "acme-bench-review"
		a.gh.Inject(func(r *http.Request, n int) *fakegithub.Fault {
			if r.URL.Path == "/app" && !answering.Load() {
				return &fakegithub.Fault{Status: http.StatusServiceUnavailable}
			}
			return nil
		})
	}})
	readyz := func() (int, string) {
		resp, err := http.Get("http://" + a.addr + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	a.waitFor("the App to answer", func() bool { code, _ := readyz(); return code != 0 })
	if code, body := readyz(); code != http.StatusServiceUnavailable || !strings.Contains(body, "GET /app") {
		t.Fatalf("readyz before the App knows who it is: %d %q", code, body)
	}
	answering.Store(true)
	a.waitFor("readyz", func() bool { code, _ := readyz(); return code == http.StatusOK })

	h1, h2 := strings.Repeat("a", 40), strings.Repeat("b", 40)
	a.pr(21, h1, a.scores)
	a.deliver("pull_request", "id-1", prEvent("opened", 21, h1))
	a.waitFor("the first check", func() bool {
		return len(a.runs(prcheck.CheckName, h1)) == 1 && len(a.gh.Comments("geo/board", 21)) == 1
	})
	a.pr(21, h2, a.scores)
	a.deliver("pull_request", "id-2", prEvent("synchronize", 21, h2))
	a.waitFor("the new head's check", func() bool {
		cs := a.gh.Comments("geo/board", 21)
		return len(a.runs(prcheck.CheckName, h2)) == 1 && len(cs) > 0 && strings.Contains(cs[0].Body, h2[:12])
	})
	// Someone who may not start a spot-check asks twice: one reply, found
	// again as the App's own the second time.
	a.deliver("issue_comment", "id-3", commentEvent(21, 9001, "visitor", "/benchgate rerun"))
	a.waitFor("the reply", func() bool { return len(a.gh.Comments("geo/board", 21)) == 2 })
	a.deliver("issue_comment", "id-4", commentEvent(21, 9002, "visitor", "/benchgate rerun"))
	a.waitFor("the second request to be handled", func() bool {
		return countPaths(a.gh, "GET", "/repos/geo/board/collaborators/visitor/permission") == 2
	})
	time.Sleep(300 * time.Millisecond)
	cs := a.gh.Comments("geo/board", 21)
	sticky := 0
	for _, c := range cs {
		if c.User.Login != "acme-bench-review[bot]" {
			t.Errorf("a comment by %s", c.User.Login)
		}
		if prcheck.IsSticky(c.Body) {
			sticky++
		}
	}
	if len(cs) != 2 || sticky != 1 {
		t.Errorf("%d comments, %d sticky; want the sticky comment and one reply", len(cs), sticky)
	}
	if n := len(a.runs(prcheck.CheckName, "")); n != 2 {
		t.Errorf("%d check runs, want one per head", n)
	}
}

// countPaths counts the requests the fake GitHub received for a method
// and path.
func countPaths(gh *fakegithub.Server, method, path string) int {
	n := 0
	for _, r := range gh.Requests() {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// TestServeRerunRequests: the check run's Re-run button verifies again,
// with a check run of its own, also for a pull request from a fork (GitHub
// then lists no pull request in the delivery); a redelivery of the same
// request does nothing more, and /benchgate verify of the head and base
// just verified is answered from that verdict.
func TestServeRerunRequests(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("f", 40)
	a.pr(31, head, a.scores)
	a.deliver("pull_request", "rr-1", prEvent("opened", 31, head))
	a.waitFor("the first check", func() bool {
		return len(a.runs(prcheck.CheckName, head)) == 1 && len(a.gh.Comments("geo/board", 31)) == 1
	})
	// From a fork: "pull_requests": [] (as in GitHub's own example of
	// check_run.rerequested).
	rerequested := `{"action": "rerequested", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"},
		"check_run": {"id": 1, "name": "benchgate / verify", "head_sha": "` + head + `", "pull_requests": []}}`
	a.deliver("check_run", "rr-2", rerequested)
	a.waitFor("the re-run's check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 2 })
	a.deliver("check_run", "rr-2", rerequested) // redelivered
	// The command finds the head and base verified: the last verdict
	// stands, and no run is added.
	a.deliver("issue_comment", "rr-3", commentEvent(31, 9101, newcomer, "/benchgate verify"))
	a.waitFor("the command's job", func() bool {
		return a.metric(`benchgate_jobs{kind="benchgate_verify",state="completed"}`) == 3
	})
	time.Sleep(300 * time.Millisecond)
	runs := a.runs(prcheck.CheckName, head)
	if len(runs) != 2 {
		t.Fatalf("%d check runs, want the first and the re-run's", len(runs))
	}
	for _, r := range runs {
		if r.Conclusion != "success" {
			t.Errorf("run %d: %s", r.ID, r.Conclusion)
		}
	}
	if cs := a.gh.Comments("geo/board", 31); len(cs) != 1 {
		t.Errorf("%d comments, want the one sticky comment", len(cs))
	}
}

// TestServeBigSubmission: an UpstreamBench-scale submission (7,440
// questions, a scores.json of about 17 MB, which GitHub's contents API
// refuses above 1 MB) is verified through the App, with the verdict
// `benchgate verify` gives the same files.
func TestServeBigSubmission(t *testing.T) {
	files, err := synth.MCQ(synth.UpstreamQuestions, synth.UpstreamBooks, synth.DefaultResponseBytes, synth.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	scores := files[synth.MCQSubmission+"/scores.json"]
	if len(scores) < 10<<20 {
		t.Fatalf("scores.json is %d bytes; the test is about files over 1 MB", len(scores))
	}
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		for _, p := range []string{synth.RegistryFile, synth.MCQFile} {
			a.gh.SetFile("geo/board", "main", p, files[p])
		}
	}})
	v, err := verify.New(files.MapFS(), verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[verify.Status]string{verify.Pass: "success", verify.Review: "action_required", verify.Fail: "failure"}[v.Verify(synth.MCQSubmission).Status]
	head := strings.Repeat("9", 40)
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 41, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: synth.MCQSubmission + "/meta.json", Status: "added", Content: submittedBy(t, files[synth.MCQSubmission+"/meta.json"], newcomer)},
		{Name: synth.MCQSubmission + "/scores.json", Status: "added", Content: scores},
	}})
	a.deliver("pull_request", "big-1", prEvent("opened", 41, head))
	a.waitFor("the check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	if r := a.runs(prcheck.CheckName, head)[0]; r.Conclusion != want {
		t.Errorf("conclusion %s, want %s (as benchgate verify): %s", r.Conclusion, want, r.Output.Title)
	}
}

// TestServeSlugWithDots: a folder name with "..", which GitHub's API
// clients refuse to read, gets a posted verdict naming the slug rule, as
// benchgate verify gives it, instead of no check at all.
func TestServeSlugWithDots(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("d", 40)
	dir := "submissions/model-benchmark/qwen3..32b/"
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 51, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: dir + "meta.json", Status: "added", Content: a.meta},
		{Name: dir + "scores.json", Status: "added", Content: a.scores},
	}})
	a.deliver("pull_request", "dots-1", prEvent("opened", 51, head))
	a.waitFor("the check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	r := a.runs(prcheck.CheckName, head)[0]
	if r.Conclusion != "failure" || !strings.Contains(r.Output.Summary, "layout.slug") || !strings.Contains(r.Output.Summary, "no '..'") {
		t.Errorf("%s: %s", r.Conclusion, r.Output.Summary)
	}
}

// TestServeUnreadable: what GitHub gives but no retry can read ends in a
// posted check that says why, not in a job retried until it gives up: a
// submodule in the pull request (a failure), and a base branch whose tree
// GitHub lists only in part (neutral: the maintainers' matter).
func TestServeUnreadable(t *testing.T) {
	t.Run("submodule", func(t *testing.T) {
		a := startApp(t)
		head := strings.Repeat("5", 40)
		dir := "submissions/model-benchmark/vendored/"
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 61, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
			{Name: dir + "meta.json", Status: "added", Content: a.meta},
			{Name: dir + "scores.json", Status: "added", SubmoduleCommit: strings.Repeat("6", 40)},
		}})
		a.deliver("pull_request", "sub-1", prEvent("opened", 61, head))
		a.waitFor("the check", func() bool {
			return len(a.runs(prcheck.CheckName, head)) == 1 && len(a.gh.Comments("geo/board", 61)) == 1
		})
		if r := a.runs(prcheck.CheckName, head)[0]; r.Conclusion != "failure" || !strings.Contains(r.Output.Summary, "submodule") {
			t.Errorf("%s: %s", r.Conclusion, r.Output.Summary)
		}
	})
	t.Run("truncated base tree", func(t *testing.T) {
		a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) { a.gh.TruncateTrees = true }})
		head := strings.Repeat("7", 40)
		a.pr(62, head, a.scores)
		a.deliver("pull_request", "trunc-1", prEvent("opened", 62, head))
		a.waitFor("the check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
		if r := a.runs(prcheck.CheckName, head)[0]; r.Conclusion != "neutral" || !strings.Contains(r.Output.Summary, "100,000 entries") {
			t.Errorf("%s: %s", r.Conclusion, r.Output.Summary)
		}
	})
}

// TestServeCallsPerCheck records what one check spends of the
// installation's hourly budget of REST calls, from the App's own
// benchgate_job_github_calls metric: a pull request that is not a single
// submission is decided from its file listing, with nothing downloaded.
func TestServeCallsPerCheck(t *testing.T) {
	// The documented setup keeps a cache folder, where the App keeps the
	// base branch's blobs between checks.
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) { cfg.CacheDir = t.TempDir() }})
	a.waitFor("the App to be ready", func() bool {
		resp, err := http.Get("http://" + a.addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	calls := func() float64 { return a.metric(`benchgate_job_github_calls_sum{kind="verify"}`) }
	jobs := func() float64 { return a.metric(`benchgate_job_github_calls_count{kind="verify"}`) }
	run := func(name string, number int, files []fakegithub.File) float64 {
		head := fmt.Sprintf("%040d", number)
		a.gh.AddPR("geo/board", fakegithub.PR{Number: number, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: files})
		before, n := max(calls(), 0), max(jobs(), 0)
		a.deliver("pull_request", fmt.Sprintf("calls-%d", number), prEvent("opened", number, head))
		a.waitFor(name, func() bool { return jobs() == n+1 })
		spent := calls() - before
		t.Logf("%s: %.0f REST calls", name, spent)
		return spent
	}
	dir := "submissions/model-benchmark/calls/"
	// The first check also exchanges the App's token and reads the
	// registry and the benchmark, which later checks find in the cache.
	first := run("the first check", 70, []fakegithub.File{{Name: dir + "meta.json", Status: "added", Content: a.meta}, {Name: dir + "scores.json", Status: "added", Content: a.scores}})
	valid := run("a valid submission", 71, []fakegithub.File{{Name: dir + "meta.json", Status: "added", Content: a.meta}, {Name: dir + "scores.json", Status: "added", Content: a.scores}})
	invalid := run("an invalid submission", 72, []fakegithub.File{{Name: dir + "meta.json", Status: "added", Content: a.meta}, {Name: dir + "scores.json", Status: "added", Content: []byte("{")}})
	var many []fakegithub.File
	for i := 0; i < 1000; i++ {
		many = append(many, fakegithub.File{Name: fmt.Sprintf("data/part-%04d.csv", i), Status: "added", Content: []byte("x\n")})
	}
	big := run("a 1,000-file pull request", 73, many)
	// A submission in at most 10 calls (the first check after start-up
	// also exchanges the installation's token, and its comment, the pull
	// request's first, has the comment count read again under the
	// comment's lock), anything else in at most 5 plus one per 100 listed
	// files.
	if valid > 10 || invalid > 10 || first > 12 {
		t.Errorf("a submission's check took %.0f and %.0f calls (the first %.0f)", valid, invalid, first)
	}
	if big > 5+10 {
		t.Errorf("a 1,000-file pull request took %.0f calls, want at most 15", big)
	}
}

// TestServeWaitsOutTooManyRequests: a 429 from GitHub in the middle of a
// check is waited out in place, by its Retry-After, and the check goes
// on: the files are listed twice (the refused call and its retry), not the
// whole job done again.
func TestServeWaitsOutTooManyRequests(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("4", 40)
	a.pr(81, head, a.scores)
	var refused atomic.Bool
	a.gh.Inject(func(r *http.Request, n int) *fakegithub.Fault {
		if strings.HasSuffix(r.URL.Path, "/pulls/81/files") && refused.CompareAndSwap(false, true) {
			return &fakegithub.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"}
		}
		return nil
	})
	a.deliver("pull_request", "429-1", prEvent("opened", 81, head))
	a.waitFor("the check and its comment", func() bool {
		return len(a.runs(prcheck.CheckName, head)) == 1 && len(a.gh.Comments("geo/board", 81)) == 1
	})
	if r := a.runs(prcheck.CheckName, head)[0]; r.Conclusion != "success" {
		t.Errorf("conclusion %s", r.Conclusion)
	}
	if n := countPaths(a.gh, "GET", "/repos/geo/board/pulls/81/files"); n != 2 {
		t.Errorf("the files were listed %d times, want 2 (the 429 and its retry)", n)
	}
	// Once for the check, once more for its comment count under the
	// comment's lock (the pull request's first comment).
	if n := countPaths(a.gh, "GET", "/repos/geo/board/pulls/81"); n != 2 {
		t.Errorf("the pull request was read %d times, want twice: the job was not redone", n)
	}
}

// TestServePublishesOverALink: a merge that put a symbolic link where the
// leaderboard is published is followed by a regeneration whose pushed tree
// holds the new folder once and passes git fsck.
func TestServePublishesOverALink(t *testing.T) {
	var git *gitserver.Server
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		git = gitserver.NewWithAuth(t, a.gh.ValidToken)
		cfg.GitURL = git.URL + "/"
	}})
	files := boardFiles(a.root)
	git.CreateRepo(t, "geo/board", files, "main")
	git.CommitSymlinks(t, "geo/board", "main", map[string]string{"leaderboard": "submissions"}, "Point the leaderboard elsewhere")
	sha := git.Commit(t, "geo/board", "main", map[string][]byte{
		"submissions/model-benchmark/after-link/meta.json":   a.meta,
		"submissions/model-benchmark/after-link/scores.json": a.scores,
	}, "Merge after-link")
	a.deliver("push", "link-1", fmt.Sprintf(`{"ref": "refs/heads/main", "after": %q, "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "commits": [{"added": ["submissions/model-benchmark/after-link/meta.json"]}]}`, sha))
	a.waitFor("the leaderboard", func() bool {
		_, ok := git.Files(t, "geo/board", "main")["leaderboard/leaderboard.json"]
		return ok
	})
	if out := git.Fsck(t, "geo/board"); out != "" {
		t.Fatalf("git fsck: %s", out)
	}
	if _, ok := git.Files(t, "geo/board", "main")["leaderboard"]; ok {
		t.Error("the link is still in the tree beside the folder")
	}
}

// TestServeRefusesWrongGitHubURL: `benchgate serve` with a GitHub URL that
// cannot be GitHub's REST API, or half a commit identity, does not start,
// and says what to write instead.
func TestServeRefusesWrongGitHubURL(t *testing.T) {
	appKeyOnce.Do(func() { appKey = newAppKey() })
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, appKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"BENCHGATE_GITHUB_API_URL": "https://ghe.example.org/"}, "https://ghe.example.org/api/v3/"},
		{map[string]string{"BENCHGATE_GITHUB_API_URL": "https://octo.ghe.com/"}, "https://api.octo.ghe.com/"},
		{map[string]string{"BENCHGATE_COMMIT_NAME": "Board Bot"}, "set both BENCHGATE_COMMIT_NAME and BENCHGATE_COMMIT_EMAIL, or neither"},
	} {
		t.Setenv("BENCHGATE_APP_ID", "42")
		t.Setenv("BENCHGATE_PRIVATE_KEY_FILE", keyFile)
		t.Setenv("BENCHGATE_WEBHOOK_SECRET", testWebhookSecret)
		t.Setenv("BENCHGATE_DATABASE_URL", "sqlite:"+filepath.Join(t.TempDir(), "q.db"))
		for _, k := range []string{"BENCHGATE_GITHUB_API_URL", "BENCHGATE_COMMIT_NAME", "BENCHGATE_COMMIT_EMAIL"} {
			t.Setenv(k, tt.env[k])
		}
		code, _, stderr := runCLI(t, "serve")
		if code != exitSetup || !strings.Contains(stderr, "cannot start") || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d\n%s", tt.env, code, stderr)
		}
	}
}

// TestServePortInUse: `benchgate serve` on a port another process holds
// stops at once with the setup exit code, naming the setting to change,
// before it opens its queue.
func TestServePortInUse(t *testing.T) {
	appKeyOnce.Do(func() { appKey = newAppKey() })
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, appKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	db := filepath.Join(t.TempDir(), "q.db")
	t.Setenv("BENCHGATE_APP_ID", "42")
	t.Setenv("BENCHGATE_PRIVATE_KEY_FILE", keyFile)
	t.Setenv("BENCHGATE_WEBHOOK_SECRET", testWebhookSecret)
	t.Setenv("BENCHGATE_DATABASE_URL", "sqlite:"+db)
	t.Setenv("BENCHGATE_LISTEN", held.Addr().String())
	code, _, stderr := runCLI(t, "serve")
	if code != exitSetup || !strings.Contains(stderr, "BENCHGATE_LISTEN="+held.Addr().String()) || !strings.Contains(stderr, "address already in use") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the queue's database was created although the App could not listen")
	}
}

// TestServeOutOfOrderDeliveries: a delayed delivery for an older head,
// arriving after the one for the current head, does not cancel the current
// head's verification: the current head gets its check and the comment
// names it; the older head gets nothing.
func TestServeOutOfOrderDeliveries(t *testing.T) {
	a := startApp(t)
	h1, h2 := strings.Repeat("e", 40), strings.Repeat("3", 40)
	a.pr(91, h2, a.scores) // the branch is already at h2
	a.deliver("pull_request", "ooo-2", prEvent("synchronize", 91, h2))
	a.deliver("pull_request", "ooo-1", prEvent("opened", 91, h1)) // delayed
	a.waitFor("the current head's check and comment", func() bool {
		cs := a.gh.Comments("geo/board", 91)
		return len(a.runs(prcheck.CheckName, h2)) == 1 && len(cs) == 1 && strings.Contains(cs[0].Body, h2[:12])
	})
	time.Sleep(300 * time.Millisecond)
	if n := len(a.runs(prcheck.CheckName, h1)); n != 0 {
		t.Errorf("%d check runs for the old head", n)
	}
	if cs := a.gh.Comments("geo/board", 91); len(cs) != 1 || !strings.Contains(cs[0].Body, h2[:12]) {
		t.Errorf("comments %d, want one naming the current head", len(cs))
	}
}

// TestServeReconcileCalls: a reconcile pass over open pull requests that
// all have their checks asks GitHub the same questions as the pass before
// it, conditionally: every answer is a 304, which costs nothing of the
// installation's hourly budget.
func TestServeReconcileCalls(t *testing.T) {
	const prs = 20
	a := startAppWith(t, appOptions{reconcile: 500 * time.Millisecond, edit: func(a *app, cfg *bot.Config) {
		a.gh.AddInstallation(7, "geo/board")
		for n := 1; n <= prs; n++ {
			a.pr(n, fmt.Sprintf("%040x", n), a.scores) // deliveries lost: reconcile finds them
		}
	}})
	a.waitFor("every pull request's check", func() bool { return len(a.runs(prcheck.CheckName, "")) == prs })
	settled := len(a.gh.Requests())
	// Two whole passes after that: the first may still see the last
	// checks appear; the second sees nothing new.
	var starts []int
	a.waitFor("three passes", func() bool {
		starts = starts[:0]
		for i, r := range a.gh.Requests()[settled:] {
			if r.Method == http.MethodGet && r.Path == "/repos/geo/board/pulls" {
				starts = append(starts, settled+i)
			}
		}
		return len(starts) >= 3
	})
	pass := a.gh.Requests()[starts[1]:starts[2]]
	charged := 0
	for _, r := range pass {
		if r.Status != http.StatusNotModified && r.Path != "/app/installations" { // the App's own budget
			charged++
			t.Errorf("an unchanged pass was charged for %s %s?%s (%d)", r.Method, r.Path, r.Query, r.Status)
		}
	}
	// One listing of installations, repositories, open pull requests, and
	// one of check runs per open head.
	if want := 3 + prs; len(pass) != want {
		t.Errorf("a pass over %d open pull requests made %d calls, want %d", prs, len(pass), want)
	}
	t.Logf("a reconcile pass over %d open pull requests: %d calls, %d charged to the rate limit", prs, len(pass), charged)
}

// TestServeRefusesWeakWebhookSecret: serve does not start with a webhook
// secret anyone could guess, and says why (exit 4, a setup problem).
func TestServeRefusesWeakWebhookSecret(t *testing.T) {
	appKeyOnce.Do(func() { appKey = newAppKey() })
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, appKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ secret, want string }{
		{"...", "BENCHGATE_WEBHOOK_SECRET is 3 bytes long: anyone who guesses it can forge deliveries; use at least 16 random bytes"},
		{"aaaaaaaaaaaaaaaa", "BENCHGATE_WEBHOOK_SECRET holds only 1 different characters"},
		{"changemechangeme", `BENCHGATE_WEBHOOK_SECRET contains "changeme"`},
	} {
		t.Run(tt.secret, func(t *testing.T) {
			t.Setenv("BENCHGATE_APP_ID", "42")
			t.Setenv("BENCHGATE_PRIVATE_KEY_FILE", keyFile)
			t.Setenv("BENCHGATE_WEBHOOK_SECRET", tt.secret)
			t.Setenv("BENCHGATE_DATABASE_URL", "sqlite:"+filepath.Join(t.TempDir(), "q.db"))
			code, _, stderr := runCLI(t, "serve")
			if code != exitSetup || !strings.HasPrefix(stderr, "benchgate serve cannot start:\n") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d\n%s", code, stderr)
			}
		})
	}
}
