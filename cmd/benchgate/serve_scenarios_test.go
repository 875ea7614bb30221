package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/queue"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/gitserver"
	"github.com/benchgate/benchgate/ranking"
)

var (
	appKeyOnce sync.Once
	appKey     *rsa.PrivateKey
)

// app is a running App against a fake GitHub holding geo/board.
// testWebhookSecret is the webhook secret of the test Apps: random
// enough for serve to accept it (bot.WeakSecret).
const testWebhookSecret = "5d2e8a0f7c14b96e"

type app struct {
	t      *testing.T
	gh     *fakegithub.Server
	root   string // a copy of the example leaderboard
	addr   string
	secret string // the webhook secret
	meta   []byte
	scores []byte
	stop   func() // stops the App and waits for it
}

// appOptions adjust a test App.
type appOptions struct {
	edit      func(a *app, cfg *bot.Config) // the configuration, and the fake before the App starts
	reconcile time.Duration                 // 0: never
	logs      io.Writer                     // nil: discarded
}

// newFakeBoard is a fake GitHub holding geo/board, with the example
// leaderboard's benchmarks on main; it returns a copy of that leaderboard.
func newFakeBoard(t testing.TB) (*fakegithub.Server, string) {
	t.Helper()
	appKeyOnce.Do(func() { appKey = newAppKey() })
	gh := fakegithub.New(t, 42, &appKey.PublicKey)
	gh.AddRepo("geo/board", "main")
	root := copyBoard(t)
	entries, _ := os.ReadDir(filepath.Join(root, "rubrics"))
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(root, "rubrics", e.Name()))
		gh.SetFile("geo/board", "main", "rubrics/"+e.Name(), data)
	}
	return gh, root
}

func appKeyPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(appKey)})
}

func startApp(t *testing.T) *app { return startAppWith(t, appOptions{}) }

// startAppWith starts the App with opts.
func startAppWith(t *testing.T, opts appOptions) *app {
	gh, root := newFakeBoard(t)
	a := &app{t: t, gh: gh, root: root, secret: testWebhookSecret}
	a.meta = exampleMeta(t, root, "submissions/model-benchmark/qwen3-32b-reservoir")
	a.scores, _ = os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json"))
	// The App serves on this listener, held from now on: a port closed
	// and chosen again later could be taken in between (by the fake judge
	// an edit starts, say).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a.addr = l.Addr().String()
	cfg := bot.Config{
		AppID: 42, PrivateKey: appKeyPEM(),
		WebhookSecrets: [][]byte{[]byte(a.secret)}, DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "q.db"),
		Listen: a.addr, GitHubAPIURL: gh.URL, GitURL: gh.URL, RerunSecret: []byte("r"),
		BoardDir: "leaderboard",
		Limits:   bot.DefaultLimits(),
	}
	if opts.edit != nil {
		opts.edit(a, &cfg)
		a.secret = string(cfg.WebhookSecrets[0])
	}
	logs := opts.logs
	if logs == nil {
		logs = io.Discard
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, l, 2, 5*time.Second, opts.reconcile, logs) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
	}
	a.stop = stop
	t.Cleanup(stop)
	return a
}

// newcomer opens the test pull requests: a GitHub user without write
// permission, whom the meta.json they add names as submitter.
const newcomer = "newcomer"

// exampleMeta is the meta.json of the example submission dir under root,
// naming newcomer as its submitter, as the App requires of a new
// submission in a pull request of theirs.
func exampleMeta(t testing.TB, root, dir string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	return submittedBy(t, data, newcomer)
}

// submittedBy is meta naming login as its submitter.
func submittedBy(t testing.TB, meta []byte, login string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	m["submitter"] = login
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// pr opens pull request number by newcomer, adding a submission of its
// own with a.meta and scores.
func (a *app) pr(number int, head string, scores []byte) {
	dir := fmt.Sprintf("submissions/model-benchmark/run-%d/", number)
	a.gh.AddPR("geo/board", fakegithub.PR{Number: number, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: dir + "meta.json", Status: "added", Content: a.meta},
		{Name: dir + "scores.json", Status: "added", Content: scores},
	}})
}

func newAppKey() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

// signedRequest posts a delivery signed with secret and returns the
// status, retrying while the server starts.
func signedRequest(t testing.TB, addr, event, delivery, body, secret string) int {
	t.Helper()
	var err error
	for i := 0; i < 100; i++ {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", strings.NewReader(body))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", delivery)
		req.Header.Set("X-Hub-Signature-256", bot.Sign([]byte(secret), []byte(body)))
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			return resp.StatusCode
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal(err)
	return 0
}

func (a *app) deliver(event, delivery, body string) {
	a.t.Helper()
	var err error
	for i := 0; i < 100; i++ {
		req, _ := http.NewRequest(http.MethodPost, "http://"+a.addr+"/webhook", strings.NewReader(body))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", delivery)
		req.Header.Set("X-Hub-Signature-256", bot.Sign([]byte(a.secret), []byte(body)))
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				a.t.Fatalf("delivery %s: status %d", delivery, resp.StatusCode)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	a.t.Fatal(err)
}

func prEvent(action string, number int, head string) string {
	return fmt.Sprintf(`{"action": %q, "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "pull_request": {"number": %d, "head": {"sha": %q}}}`, action, number, head)
}

func commentEvent(number int, id int64, login, body string) string {
	return fmt.Sprintf(`{"action": "created", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "issue": {"number": %d, "pull_request": {}}, "comment": {"id": %d, "body": %q, "user": {"login": %q, "type": "User"}}}`, number, id, body, login)
}

// waitFor polls until cond holds or 30 s pass.
func (a *app) waitFor(what string, cond func() bool) {
	a.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			a.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// metric is the value of one series on the App's /metrics; -1 when it is
// absent.
func (a *app) metric(series string) float64 {
	a.t.Helper()
	resp, err := http.Get("http://" + a.addr + "/metrics")
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			var x float64
			fmt.Sscan(v, &x)
			return x
		}
	}
	return -1
}

func (a *app) runs(name, head string) []fakegithub.CheckRun {
	var out []fakegithub.CheckRun
	for _, r := range a.gh.CheckRuns("geo/board") {
		if r.Name == name && (head == "" || r.HeadSHA == head) {
			out = append(out, r)
		}
	}
	return out
}

func TestServeInvalidPR(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("c", 40)
	a.pr(8, head, []byte(strings.Replace(string(a.scores), `"correct": true`, `"correct": false`, 1)))
	a.deliver("pull_request", "inv-1", prEvent("opened", 8, head))
	a.deliver("pull_request", "inv-1", prEvent("opened", 8, head)) // redelivered
	a.waitFor("the check run", func() bool {
		return len(a.runs(prcheck.CheckName, head)) == 1 && len(a.gh.Comments("geo/board", 8)) == 1
	})
	r := a.runs(prcheck.CheckName, head)[0]
	if r.Conclusion != "failure" || len(r.Output.Annotations) == 0 || !strings.HasSuffix(r.Output.Annotations[0].Path, "scores.json") {
		t.Errorf("run: %s, %d annotations", r.Conclusion, len(r.Output.Annotations))
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(a.gh.CheckRuns("geo/board")); n != 1 || len(a.gh.Comments("geo/board", 8)) != 1 {
		t.Errorf("%d check runs, %d comments after a redelivery; want 1 and 1", n, len(a.gh.Comments("geo/board", 8)))
	}
}

func TestServeSynchronize(t *testing.T) {
	a := startApp(t)
	h1, h2 := strings.Repeat("1", 40), strings.Repeat("2", 40)
	a.pr(9, h1, a.scores)
	a.deliver("pull_request", "sync-1", prEvent("opened", 9, h1))
	a.pr(9, h2, a.scores) // a new push to the branch
	a.deliver("pull_request", "sync-2", prEvent("synchronize", 9, h2))
	// The check run is posted before the sticky comment is edited, so wait
	// for both.
	a.waitFor("the new head's check and comment", func() bool {
		cs := a.gh.Comments("geo/board", 9)
		return len(a.runs(prcheck.CheckName, h2)) == 1 && len(cs) > 0 && strings.Contains(cs[len(cs)-1].Body, h2[:12])
	})
	if r := a.runs(prcheck.CheckName, h2)[0]; r.Conclusion != "success" {
		t.Errorf("new head: %s", r.Conclusion)
	}
	time.Sleep(300 * time.Millisecond)
	if cs := a.gh.Comments("geo/board", 9); len(cs) != 1 || !strings.Contains(cs[0].Body, h2[:12]) {
		t.Errorf("comments: %d, want one naming the new head", len(cs))
	}
}

func TestServeRerunCommands(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("d", 40)
	a.pr(10, head, a.scores)
	a.gh.SetPermission("geo/board", "maint", "maintain")
	a.deliver("pull_request", "rr-1", prEvent("opened", 10, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })

	// Someone without write permission asks: a polite reply, nothing runs.
	a.deliver("issue_comment", "rr-2", commentEvent(10, 501, "passer-by", "/benchgate rerun"))
	a.waitFor("the reply", func() bool {
		for _, c := range a.gh.Comments("geo/board", 10) {
			if strings.Contains(c.Body, "only maintainers") {
				return true
			}
		}
		return false
	})
	if len(a.runs(prcheck.RerunCheckName, "")) != 0 {
		t.Error("a non-maintainer's rerun ran")
	}
	// Asking again and again gets no more answers.
	for i := range 3 {
		a.deliver("issue_comment", fmt.Sprint("rr-flood-", i), commentEvent(10, int64(510+i), "passer-by", "/benchgate rerun"))
	}
	a.waitFor("the repeated requests to be handled", func() bool {
		return a.metric(`benchgate_jobs{kind="benchgate_rerun",state="completed"}`) == 4
	})
	replies := 0
	for _, c := range a.gh.Comments("geo/board", 10) {
		if strings.Contains(c.Body, "only maintainers") {
			replies++
		}
	}
	if replies != 1 {
		t.Errorf("%d replies to a repeated request, want 1", replies)
	}
	// A maintainer asks: the spot-check runs and reports.
	a.deliver("issue_comment", "rr-3", commentEvent(10, 502, "maint", "Let's check.\n/benchgate rerun"))
	a.waitFor("the rerun check", func() bool { return len(a.runs(prcheck.RerunCheckName, head)) == 1 })
	if r := a.runs(prcheck.RerunCheckName, head)[0]; r.Conclusion != "success" || !strings.Contains(r.Output.Summary, "consistent") {
		t.Errorf("rerun: %s\n%s", r.Conclusion, r.Output.Summary)
	}
}

// TestServeAbuseLimits: a maintainer's reruns stop at the pull request's
// limit (a neutral check run saying why), and a full queue refuses
// deliveries with 503; both show in the metrics.
func TestServeAbuseLimits(t *testing.T) {
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		cfg.Limits.SpotChecksPerPR = 1
		cfg.Limits.QueueWaiting = 1
	}})
	head := strings.Repeat("f", 40)
	a.pr(12, head, a.scores)
	a.gh.SetPermission("geo/board", "maint", "maintain")
	a.deliver("pull_request", "lim-1", prEvent("opened", 12, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	a.deliver("issue_comment", "lim-2", commentEvent(12, 601, "maint", "/benchgate rerun"))
	a.waitFor("the first spot-check", func() bool {
		r := a.runs(prcheck.RerunCheckName, head)
		return len(r) == 1 && r[0].Conclusion == "success"
	})
	a.deliver("issue_comment", "lim-3", commentEvent(12, 602, "maint", "/benchgate rerun"))
	// The check run is posted before the comment is edited: wait for both.
	a.waitFor("the refusal", func() bool {
		r := a.runs(prcheck.RerunCheckName, head)
		cs := a.gh.Comments("geo/board", 12)
		return len(r) == 1 && r[0].Conclusion == "neutral" && len(cs) == 1 && strings.Contains(cs[0].Body, "Spot-check not run")
	})
	if r := a.runs(prcheck.RerunCheckName, head)[0]; !strings.Contains(r.Output.Summary, "BENCHGATE_SPOT_CHECKS_PER_PR") {
		t.Errorf("refusal summary %q", r.Output.Summary)
	}
	if cs := a.gh.Comments("geo/board", 12); len(cs) != 1 || !strings.Contains(cs[0].Body, "Spot-check not run") {
		t.Errorf("comments %v, want the refusal in the one comment", cs)
	}

	metrics := func(addr string) string {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	body := metrics(a.addr)
	for _, want := range []string{`benchgate_limit_refusals_total{limit="pr_spot_checks"} 1`, `benchgate_limit{limit="pr_spot_checks"} 1`, `benchgate_limit{limit="daily_spend"} 50`} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}

	// The queue's bound: the App's workers empty its queue at once, so the
	// same front door (Mux and QueueAdapter, as serve builds them) is set
	// over a queue nobody works, and a delivery beyond the bound is refused.
	q, err := queue.OpenWithOptions(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "full.db"), nil, queue.Options{MaxWaiting: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	hook := &bot.Webhook{Secrets: [][]byte{[]byte(a.secret)}, Queue: bot.QueueAdapter{Q: q}, Log: slog.New(slog.DiscardHandler)}
	m := bot.NewMetrics()
	m.SetLimits(bot.Limits{QueueWaiting: 1})
	srv := httptest.NewServer(bot.Mux(hook, q, m, slog.New(slog.DiscardHandler), nil))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	if code := signedRequest(t, addr, "pull_request", "full-1", prEvent("opened", 13, strings.Repeat("1", 40)), a.secret); code != http.StatusAccepted {
		t.Fatalf("first delivery: %d", code)
	}
	if code := signedRequest(t, addr, "pull_request", "full-2", prEvent("opened", 14, strings.Repeat("2", 40)), a.secret); code != http.StatusServiceUnavailable {
		t.Fatalf("delivery beyond the bound: %d, want 503", code)
	}
	body = metrics(addr)
	for _, want := range []string{`benchgate_limit_refusals_total{limit="queue"} 1`, `benchgate_webhook_deliveries_total{event="pull_request",outcome="overloaded"} 1`, `benchgate_limit{limit="queue"} 1`, "benchgate_judge_spend_today_usd 0"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestServeMerges: two merges in quick succession both end up on the
// published leaderboard, committed by the App to a real git server.
func TestServeMerges(t *testing.T) {
	var git *gitserver.Server
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		git = gitserver.NewWithAuth(t, a.gh.ValidToken)
		cfg.GitURL = git.URL + "/"
		// The second regeneration reads the first one's results.
		cfg.CacheDir = t.TempDir()
	}})
	root := a.root
	files := boardFiles(root)
	git.CreateRepo(t, "geo/board", files, "main")
	merge := func(slug, delivery string) {
		sha := git.Commit(t, "geo/board", "main", map[string][]byte{
			"submissions/model-benchmark/" + slug + "/meta.json":   []byte(strings.Replace(string(a.meta), "Qwen3-32B", "Model "+slug, 1)),
			"submissions/model-benchmark/" + slug + "/scores.json": a.scores,
		}, "Merge "+slug)
		a.deliver("push", delivery, fmt.Sprintf(`{"ref": "refs/heads/main", "after": %q, "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "commits": [{"added": ["submissions/model-benchmark/%s/meta.json"]}]}`, sha, slug))
	}
	merge("merge-a", "push-a")
	merge("merge-b", "push-b")
	a.waitFor("both merges on the leaderboard", func() bool {
		board := string(git.Files(t, "geo/board", "main")["leaderboard/leaderboard.json"])
		return strings.Contains(board, "merge-a") && strings.Contains(board, "merge-b")
	})
	// Signed as GitHub shows the App, learned from GitHub: no setting.
	botUser := a.gh.AppSlug + "[bot]"
	if c := git.Log(t, "geo/board", "main")[0]; c.AuthorName != botUser || c.AuthorEmail != fmt.Sprintf("%d+%s@users.noreply.github.com", a.gh.UserID(botUser), botUser) || !strings.Contains(c.Message, "leaderboard") {
		t.Errorf("last commit %+v", c)
	}
	if out := git.Fsck(t, "geo/board"); out != "" {
		t.Errorf("git fsck after the App's pushes: %s", out)
	}
	for _, f := range []string{"leaderboard/LEADERBOARD.md", "leaderboard/index.html"} {
		if len(git.Files(t, "geo/board", "main")[f]) == 0 {
			t.Errorf("%s not published", f)
		}
	}
	// What the App published is what `benchgate leaderboard` writes from
	// the same tree, dated by the day of the merge it was built on.
	var merged time.Time // of the newest merge, the tree the last update was built on
	for _, c := range git.Log(t, "geo/board", "main") {
		if strings.HasPrefix(c.Message, "Merge ") {
			merged = c.Committed
			break
		}
	}
	asOf := bot.AsOf(merged)
	published := git.Files(t, "geo/board", "main")
	// A checkout, whose history says which commit added each submission,
	// as the App's clone does.
	tree := filepath.Join(t.TempDir(), "board")
	if out, err := exec.Command("git", "clone", "-q", "--branch", "main", filepath.Join(git.Root, "geo/board.git"), tree).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if !strings.Contains(string(published["leaderboard/leaderboard.json"]), `"added": {`) {
		t.Error("the App's board does not say which commit added each entry")
	}
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "leaderboard", "--root", tree, "--out", out, "--cache", "", "--as-of", asOf); code != exitOK {
		t.Fatalf("benchgate leaderboard: exit %d: %s", code, stderr)
	}
	for _, o := range ranking.Outputs {
		cli, _ := os.ReadFile(filepath.Join(out, o.File))
		if app := published["leaderboard/"+o.File]; !bytes.Equal(app, cli) {
			t.Errorf("%s: the App published %d bytes, benchgate leaderboard wrote %d from the same tree and date; they differ", o.File, len(app), len(cli))
		}
	}
	if !strings.Contains(string(published["leaderboard/LEADERBOARD.md"]), "As of "+asOf) {
		t.Error("the published board is not dated by its merge")
	}
}

// TestServeGitHubFaults: GitHub answering 502 and a secondary rate limit
// on the way is retried, and the verification completes once.
func TestServeGitHubFaults(t *testing.T) {
	a := startApp(t)
	var mu sync.Mutex
	injected := 0
	a.gh.Inject(func(r *http.Request, n int) *fakegithub.Fault {
		mu.Lock()
		defer mu.Unlock()
		if !strings.Contains(r.URL.Path, "/check-runs") || injected >= 2 {
			return nil
		}
		injected++
		if injected == 1 {
			return &fakegithub.Fault{Status: http.StatusBadGateway}
		}
		return &fakegithub.Fault{Status: http.StatusForbidden, RetryAfter: "1"}
	})
	head := strings.Repeat("e", 40)
	a.pr(11, head, a.scores)
	a.deliver("pull_request", "fault-1", prEvent("opened", 11, head))
	a.waitFor("the check run despite the faults", func() bool {
		return len(a.runs(prcheck.CheckName, head)) == 1 && len(a.gh.Comments("geo/board", 11)) == 1
	})
	if r := a.runs(prcheck.CheckName, head)[0]; r.Conclusion != "success" {
		t.Errorf("conclusion %s", r.Conclusion)
	}
	mu.Lock()
	defer mu.Unlock()
	if injected != 2 {
		t.Errorf("%d faults injected, want 2", injected)
	}
	// The metrics saw the faults and the remaining rate limit.
	resp, err := http.Get("http://" + a.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`benchgate_github_responses_total{status="502"} 1`, `benchgate_github_responses_total{status="403"} 1`, "benchgate_github_rate_limit_remaining", `benchgate_webhook_deliveries_total{event="pull_request",outcome="queued"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestServePublishByPullRequest: on a protected branch the App pushes the
// leaderboard to its own branch and proposes it with one pull request.
func TestServePublishByPullRequest(t *testing.T) {
	var git *gitserver.Server
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		git = gitserver.NewWithAuth(t, a.gh.ValidToken)
		cfg.GitURL = git.URL + "/"
		cfg.PublishMode = bot.PublishPR
	}})
	root := a.root
	files := map[string][]byte{}
	for _, p := range []string{"rubrics/rubrics.json", "rubrics/basin-analysis.json", "rubrics/reservoir-mcq.jsonl"} {
		files[p], _ = os.ReadFile(filepath.Join(root, p))
	}
	git.CreateRepo(t, "geo/board", files, "main")
	for i, slug := range []string{"first", "second"} {
		sha := git.Commit(t, "geo/board", "main", map[string][]byte{
			"submissions/model-benchmark/" + slug + "/meta.json":   a.meta,
			"submissions/model-benchmark/" + slug + "/scores.json": a.scores,
		}, "Merge "+slug)
		a.deliver("push", fmt.Sprintf("pr-push-%d", i), fmt.Sprintf(`{"ref": "refs/heads/main", "after": %q, "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "commits": [{"added": ["submissions/model-benchmark/%s/meta.json"]}]}`, sha, slug))
		a.waitFor("the proposal of "+slug, func() bool {
			return git.HasBranch("geo/board", bot.ProposalBranch) && strings.Contains(string(git.Files(t, "geo/board", bot.ProposalBranch)["leaderboard/leaderboard.json"]), slug)
		})
	}
	if _, ok := git.Files(t, "geo/board", "main")["leaderboard/leaderboard.json"]; ok {
		t.Error("the protected branch was pushed to")
	}
	var proposals int
	for _, r := range a.gh.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/pulls") && r.Status == http.StatusCreated {
			proposals++
		}
	}
	if proposals != 1 {
		t.Errorf("%d pull requests opened, want 1 kept up to date", proposals)
	}
}

// boardFiles reads the registry, benchmarks and submissions of the
// leaderboard in root, by slash-separated path, to seed a git server.
func boardFiles(root string) map[string][]byte {
	return gitserver.ReadFolders(root, "rubrics", "submissions")
}
