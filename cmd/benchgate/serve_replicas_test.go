package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/gitserver"
	"github.com/jackc/pgx/v5"
)

// A fleet is several `benchgate serve` processes (replicas) working one
// PostgreSQL queue against one fake GitHub and one git server, as a
// deployment with replicas runs. Each replica is this test binary run
// again as TestServeChildProcess, configured only by the environment the
// documentation gives.
type fleet struct {
	t       testing.TB
	a       *app // the fake GitHub, the board, the submission files
	git     *gitserver.Server
	db      *pgx.Conn // reads the queue's tables
	env     []string
	logDir  string
	workers int // per replica
	reps    []*replica
}

type replica struct {
	addr string
	cmd  *exec.Cmd
	dead bool
}

// newFleet starts n replicas of workers workers each. It skips when no
// PostgreSQL answers.
func newFleet(t testing.TB, n, workers int) *fleet {
	t.Helper()
	url := os.Getenv("BENCHGATE_TEST_DATABASE_URL")
	if url == "" {
		t.Skip("replica tests skipped: set BENCHGATE_TEST_DATABASE_URL to a PostgreSQL database (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	ctx := context.Background()
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Skipf("replica tests skipped: PostgreSQL at BENCHGATE_TEST_DATABASE_URL does not answer: %v", err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	// A schema of its own, named by search_path in the URL every replica
	// gets, as a deployment sharing a database with others would.
	schema := fmt.Sprintf("bgfleet_%d", time.Now().UnixNano())
	if _, err := db.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })
	if _, err := db.Exec(ctx, "SET search_path TO "+schema); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}

	gh, root := newFakeBoard(t)
	gh.AddInstallation(7, "geo/board") // for reconcile
	a := &app{gh: gh, root: root, secret: testWebhookSecret}
	if tt, ok := t.(*testing.T); ok {
		a.t = tt
	}
	a.meta = exampleMeta(t, root, "submissions/model-benchmark/qwen3-32b-reservoir")
	a.scores, _ = os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json"))
	git := gitserver.NewWithAuth(t, gh.ValidToken)
	git.CreateRepo(t, "geo/board", boardFiles(root), "main")

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "app.pem")
	if err := os.WriteFile(keyFile, appKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	f := &fleet{t: t, a: a, git: git, db: db, logDir: t.TempDir(), workers: workers, env: []string{
		"BENCHGATE_SERVE_CHILD=1",
		"BENCHGATE_APP_ID=42", "BENCHGATE_PRIVATE_KEY_FILE=" + keyFile, "BENCHGATE_WEBHOOK_SECRET=" + a.secret,
		"BENCHGATE_DATABASE_URL=" + url + sep + "search_path=" + schema,
		"BENCHGATE_GITHUB_API_URL=" + gh.URL, "BENCHGATE_GIT_URL=" + git.URL + "/",
		"BENCHGATE_RERUN_SECRET=9b1e4c7a0d2f8365e4a1",
	}}
	t.Cleanup(f.stopAll)
	for range n {
		f.start()
	}
	return f
}

// start starts one more replica and waits until it is ready.
func (f *fleet) start() *replica {
	f.t.Helper()
	r := &replica{}
	i := len(f.reps)
	logFile, err := os.Create(filepath.Join(f.logDir, fmt.Sprintf("replica-%d.log", i)))
	if err != nil {
		f.t.Fatal(err)
	}
	r.cmd = exec.Command(os.Args[0], "-test.run=^TestServeChildProcess$")
	r.cmd.Env = append(os.Environ(), f.env...)
	r.cmd.Env = append(r.cmd.Env,
		"BENCHGATE_LISTEN=127.0.0.1:0",
		"BENCHGATE_CACHE_DIR="+f.t.TempDir(),
		fmt.Sprintf("BENCHGATE_SERVE_CHILD_ARGS=--workers %d", f.workers),
		"BENCHGATE_SERVE_CHILD_LOG="+logFile.Name())
	logFile.Close()
	if err := r.cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	f.reps = append(f.reps, r)
	r.addr = servingAddr(f.t, logFile.Name(), 60*time.Second)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + r.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("replica %d not ready after 60 s; its log:\n%s", i, f.log(i))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (f *fleet) log(i int) string {
	data, _ := os.ReadFile(filepath.Join(f.logDir, fmt.Sprintf("replica-%d.log", i)))
	return string(data)
}

// stopAll stops the live replicas as an orchestrator would (SIGTERM, then
// SIGKILL after the drain).
func (f *fleet) stopAll() {
	for _, r := range f.reps {
		if r.dead {
			continue
		}
		r.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { r.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			r.cmd.Process.Kill()
			<-done
		}
		r.dead = true
	}
}

// kill SIGKILLs replica i.
func (f *fleet) kill(i int) {
	r := f.reps[i]
	r.cmd.Process.Kill()
	r.cmd.Wait()
	r.dead = true
}

// alive lists the live replicas' indexes.
func (f *fleet) alive() []int {
	var out []int
	for i, r := range f.reps {
		if !r.dead {
			out = append(out, i)
		}
	}
	return out
}

// deliver posts a signed delivery to replica i, which must take it.
func (f *fleet) deliver(i int, event, delivery, body string) {
	f.t.Helper()
	if code := signedRequest(f.t, f.reps[i].addr, event, delivery, body, f.a.secret); code != http.StatusAccepted {
		f.t.Fatalf("delivery %s to replica %d: status %d", delivery, i, code)
	}
}

// maintainer is the index of the replica that says it is the queue's
// maintainer, or -1.
func (f *fleet) maintainer() int {
	for _, i := range f.alive() {
		resp, err := http.Get("http://" + f.reps[i].addr + "/metrics")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "\nbenchgate_queue_maintainer 1\n") {
			return i
		}
	}
	return -1
}

// count runs a counting query on the queue's tables.
func (f *fleet) count(query string, args ...any) int {
	f.t.Helper()
	var n int64
	if err := f.db.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		f.t.Fatalf("%s: %v", query, err)
	}
	return int(n)
}

// burst is a scenario: pull requests opened with races, then merges.
type burst struct {
	first, prs int // pull requests first … first+prs-1
	// kill SIGKILLs the queue's maintainer half-way through, once it
	// runs jobs.
	kill   bool
	merges int
}

// pullRequest is one of a burst's pull requests as it ends.
type pullRequest struct {
	number int
	head   string // the current head
	valid  bool
	sent   time.Time // its first delivery
}

type burstResult struct {
	prs      []pullRequest
	killedAt time.Time
	// latency is each pull request's first delivery to its current head's
	// completed check; makespan is the first delivery to the last check.
	latency  []time.Duration
	makespan time.Duration
}

func head(n, k int) string { return fmt.Sprintf("%036x%04x", n, k) }

// run plays the burst: pull request n is invalid when n%4 == 0; when
// n%7 == 0 its synchronize (new head) arrives before its opened (old
// head); when n%3 == 0 a push races its first verification; when
// n%5 == 0 GitHub redelivers its first delivery to another replica.
func (f *fleet) run(b burst) burstResult {
	f.t.Helper()
	a := f.a
	bad := []byte(strings.Replace(string(a.scores), `"correct": true`, `"correct": false`, 1))
	var res burstResult
	start := time.Now()
	for n := b.first; n < b.first+b.prs; n++ {
		if b.kill && n == b.first+b.prs/2 {
			res.killedAt = f.killMaintainer()
		}
		live := f.alive()
		to := func(k int) int { return live[(n+k)%len(live)] }
		p := pullRequest{number: n, head: head(n, 1), valid: n%4 != 0, sent: time.Now()}
		scores := a.scores
		if !p.valid {
			scores = bad
		}
		opened := fmt.Sprint("open-", n)
		switch {
		case n%7 == 0:
			p.head = head(n, 2)
			a.pr(n, p.head, scores)
			f.deliver(to(0), "pull_request", fmt.Sprint("sync-", n), prEvent("synchronize", n, p.head))
			f.deliver(to(1), "pull_request", opened, prEvent("opened", n, head(n, 1))) // delayed
		case n%3 == 0:
			a.pr(n, head(n, 1), scores)
			f.deliver(to(0), "pull_request", opened, prEvent("opened", n, head(n, 1)))
			p.head = head(n, 2)
			a.pr(n, p.head, scores)
			f.deliver(to(1), "pull_request", fmt.Sprint("sync-", n), prEvent("synchronize", n, p.head))
		default:
			a.pr(n, p.head, scores)
			f.deliver(to(0), "pull_request", opened, prEvent("opened", n, p.head))
		}
		if n%5 == 0 {
			f.deliver(to(2), "pull_request", opened, prEvent("opened", n, head(n, 1)))
		}
		res.prs = append(res.prs, p)
	}
	for m := range b.merges {
		slug := fmt.Sprintf("merge-%d-%d", b.first, m)
		sha := f.git.Commit(f.t, "geo/board", "main", map[string][]byte{
			"submissions/model-benchmark/" + slug + "/meta.json":   []byte(strings.Replace(string(a.meta), "Qwen3-32B", "Model "+slug, 1)),
			"submissions/model-benchmark/" + slug + "/scores.json": a.scores,
		}, "Merge "+slug)
		live := f.alive()
		f.deliver(live[m%len(live)], "push", "push-"+slug, fmt.Sprintf(`{"ref": "refs/heads/main", "after": %q, "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "commits": [{"added": ["submissions/model-benchmark/%s/meta.json"]}]}`, sha, slug))
	}

	f.settle(res.prs, b)
	var last time.Time
	for _, p := range res.prs {
		done := f.completed(p.number, p.head)[0].CompletedAt
		res.latency = append(res.latency, done.Sub(p.sent))
		if done.After(last) {
			last = done
		}
	}
	res.makespan = last.Sub(start)
	return res
}

// killMaintainer SIGKILLs the maintainer once it runs a job, so that work
// is stranded, and returns when.
func (f *fleet) killMaintainer() time.Time {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := f.maintainer()
		busy := f.count(`SELECT count(*) FROM river_job WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] = (SELECT replica_id FROM benchgate_lease WHERE name = 'maintainer')`)
		if m >= 0 && busy > 0 {
			f.kill(m)
			return time.Now()
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the maintainer (replica %d) never ran a job to be killed in", m)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// completed is the pull request's completed verify check runs on head.
func (f *fleet) completed(number int, head string) []fakegithub.CheckRun {
	var out []fakegithub.CheckRun
	for _, r := range f.a.gh.CheckRuns("geo/board") {
		if r.Name == prcheck.CheckName && r.HeadSHA == head && r.Status == "completed" {
			out = append(out, r)
		}
	}
	return out
}

// settle waits until every pull request's current head has its check and
// its comment, the merges are on the leaderboard, and the queue is empty.
func (f *fleet) settle(prs []pullRequest, b burst) {
	f.t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	for {
		missing := ""
		for _, p := range prs {
			cs := f.a.gh.Comments("geo/board", p.number)
			if len(f.completed(p.number, p.head)) == 0 || len(cs) == 0 || !strings.Contains(cs[len(cs)-1].Body, p.head[:12]) {
				missing = fmt.Sprintf("pull request #%d at %s", p.number, p.head[:12])
				break
			}
		}
		if missing == "" && b.merges > 0 {
			board := string(f.git.Files(f.t, "geo/board", "main")["leaderboard/leaderboard.json"])
			if !strings.Contains(board, fmt.Sprintf("merge-%d-%d", b.first, b.merges-1)) {
				missing = "the last merge on the leaderboard"
			}
		}
		if missing == "" {
			if n := f.count(`SELECT count(*) FROM river_job WHERE state IN ('available', 'pending', 'retryable', 'scheduled', 'running')`); n > 0 {
				missing = fmt.Sprintf("%d jobs to end", n)
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			logs := ""
			for i := range f.reps {
				logs += fmt.Sprintf("--- replica %d\n%s", i, tail(f.log(i), 4000))
			}
			f.t.Fatalf("after 4 minutes still waiting for %s\n%s", missing, logs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestServeReplicas: three replicas on one PostgreSQL database, GitHub
// answering in 50–150 ms, take 30 pull requests with pushes racing their
// first verification, deliveries out of order and redelivered to another
// replica; the maintainer is SIGKILLed half-way through with jobs running;
// then ten merges land in quick succession. Every pull request ends with
// exactly one completed check on its current head, with the right
// conclusion, and exactly one comment naming that head; the stranded work
// runs again within two minutes of the kill (default settings); the ten
// merges make at most two regenerations; reconcile runs on one replica at
// a time; nothing is left running.
func TestServeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three App processes through a burst and a SIGKILL (about a minute)")
	}
	f := newFleet(t, 3, 2)
	// Reconcile at start-up: by the maintainer alone.
	listings := func() int { return countPaths(f.a.gh, http.MethodGet, "/repos/geo/board/pulls") }
	deadline := time.Now().Add(30 * time.Second)
	for listings() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if n := listings(); n != 1 {
		t.Errorf("three replicas starting listed the open pull requests %d times, want once (by the maintainer)", n)
	}
	f.a.gh.SetLatency(50*time.Millisecond, 150*time.Millisecond)
	fetches, pushes := f.git.Fetches(), f.git.Pushes()
	res := f.run(burst{first: 1, prs: 30, kill: true, merges: 10})

	botUser := f.a.gh.AppSlug + "[bot]"
	for _, p := range res.prs {
		runs := f.completed(p.number, p.head)
		want := map[bool]string{true: "success", false: "failure"}[p.valid]
		if len(runs) != 1 || runs[0].Conclusion != want {
			var got []string
			for _, r := range runs {
				got = append(got, r.Conclusion)
			}
			t.Errorf("pull request #%d: completed checks on its current head %v, want one %s", p.number, got, want)
		}
		cs := f.a.gh.Comments("geo/board", p.number)
		if len(cs) != 1 || cs[0].User.Login != botUser || !strings.Contains(cs[0].Body, p.head[:12]) {
			t.Errorf("pull request #%d: %d comments, want one by %s naming %s", p.number, len(cs), botUser, p.head[:12])
		}
	}

	// The stranded jobs: rescued, and their pull requests checked within
	// two minutes of the kill.
	rows, err := f.db.Query(context.Background(), `SELECT (args->>'pr')::int, args->>'head_sha' FROM river_job
WHERE kind = 'benchgate_verify' AND EXISTS (SELECT 1 FROM unnest(errors) e WHERE e->>'error' LIKE 'rescued:%')`)
	if err != nil {
		t.Fatal(err)
	}
	type stranded struct {
		pr   int
		head string
	}
	var rescued []stranded
	for rows.Next() {
		var s stranded
		if err := rows.Scan(&s.pr, &s.head); err != nil {
			t.Fatal(err)
		}
		rescued = append(rescued, s)
	}
	rows.Close()
	if len(rescued) == 0 {
		t.Error("no job was rescued after the maintainer was killed while running jobs")
	}
	for _, s := range rescued {
		// A stranded job of an old head may have been superseded: then
		// the current head's check is what the pull request waited for.
		var current string
		for _, p := range res.prs {
			if p.number == s.pr {
				current = p.head
			}
		}
		runs := f.completed(s.pr, current)
		if len(runs) == 0 {
			continue // reported above
		}
		if took := runs[0].CompletedAt.Sub(res.killedAt); took > 2*time.Minute {
			t.Errorf("pull request #%d, stranded by the kill, was checked %v after it; want within 2 minutes", s.pr, took.Round(time.Second))
		} else {
			t.Logf("pull request #%d, stranded by the kill, checked %v after it", s.pr, took.Round(time.Second))
		}
	}

	// Ten merges: the leaderboard has every one, from at most two
	// regenerations (clones of the board, pushes to it).
	board := string(f.git.Files(t, "geo/board", "main")["leaderboard/leaderboard.json"])
	for m := range 10 {
		if slug := fmt.Sprintf("merge-1-%d", m); !strings.Contains(board, slug) {
			t.Errorf("merged %s is not on the leaderboard", slug)
		}
	}
	regenerations, appPushes := f.git.Fetches()-fetches, f.git.Pushes()-pushes
	t.Logf("ten merges: %d clones, %d pushes by the App", regenerations, appPushes)
	if regenerations > 2 || appPushes > 2 {
		t.Errorf("ten merges made %d clones and %d pushes; want at most 2 regenerations", regenerations, appPushes)
	}
	var botCommits int
	for _, c := range f.git.Log(t, "geo/board", "main") {
		if c.AuthorName == botUser {
			botCommits++
		}
	}
	if botCommits < 1 || botCommits > 2 {
		t.Errorf("%d leaderboard commits for ten merges, want 1 or 2", botCommits)
	}
	if out := f.git.Fsck(t, "geo/board"); out != "" {
		t.Errorf("git fsck: %s", out)
	}

	// Reconcile: once at start-up, and at most once more when the next
	// maintainer took over.
	if n := listings(); n > 2 {
		t.Errorf("open pull requests listed %d times by three replicas, one of them killed; want at most 2 (the first maintainer's reconcile and its successor's)", n)
	}
	if n := f.count(`SELECT count(*) FROM river_job WHERE state = 'running'`); n != 0 {
		t.Errorf("%d jobs left running", n)
	}
	slices.Sort(res.latency)
	t.Logf("webhook to check: median %v, p90 %v, makespan %v (kill at %v)", res.latency[len(res.latency)/2].Round(time.Millisecond),
		res.latency[len(res.latency)*9/10].Round(time.Millisecond), res.makespan.Round(time.Millisecond), res.killedAt.Format(time.TimeOnly))
}

// BenchmarkServeReplicas measures webhook-to-check latency for one and
// for three replicas (4 workers each, serve's default) on the same burst
// of 30 pull requests (with the test's races, no kill, no merges), GitHub
// answering every call in 300 ms:
//
//	go test -run '^$' -bench ServeReplicas -benchtime 1x ./cmd/benchgate
func BenchmarkServeReplicas(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			f := newFleet(b, n, 4)
			f.a.gh.SetLatency(300*time.Millisecond, 300*time.Millisecond)
			var lat, spans []time.Duration
			first := 1
			for b.Loop() {
				res := f.run(burst{first: first, prs: 30})
				first += 30
				lat = append(lat, res.latency...)
				spans = append(spans, res.makespan)
			}
			slices.Sort(lat)
			slices.Sort(spans)
			b.ReportMetric(lat[len(lat)/2].Seconds(), "median-s")
			b.ReportMetric(lat[len(lat)*9/10].Seconds(), "p90-s")
			b.ReportMetric(spans[len(spans)/2].Seconds(), "makespan-s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
