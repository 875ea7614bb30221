package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/internal/fakegithub"
)

// TestServeChildProcess is the App run as a separate process by
// TestServeSurvivesSIGKILL and the replica tests; on its own it does
// nothing. BENCHGATE_SERVE_CHILD_ARGS replaces serve's flags and
// BENCHGATE_SERVE_CHILD_LOG names a file for its log.
func TestServeChildProcess(t *testing.T) {
	if os.Getenv("BENCHGATE_SERVE_CHILD") != "1" {
		t.Skip("run by TestServeSurvivesSIGKILL and TestServeReplicas")
	}
	args := []string{"serve", "--workers", "1", "--reconcile", "0"}
	if flags := os.Getenv("BENCHGATE_SERVE_CHILD_ARGS"); flags != "" {
		args = append([]string{"serve"}, strings.Fields(flags)...)
	}
	var log io.Writer = io.Discard
	if name := os.Getenv("BENCHGATE_SERVE_CHILD_LOG"); name != "" {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		log = f
	}
	os.Exit(run(args, io.Discard, log))
}

// TestServeSurvivesSIGKILL kills the App with SIGKILL while a verification
// is posting its check run, starts it again on the same queue, and checks
// that the job completes with exactly one check run and one comment, with
// the default heartbeat: within three heartbeats (30 s) of the kill, not
// after the job timeout.
func TestServeSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the dead process's heartbeat to go stale (about 30 s)")
	}
	gh, root := newFakeBoard(t)
	a := &app{t: t, gh: gh, root: root, secret: testWebhookSecret}
	a.meta = exampleMeta(t, root, "submissions/model-benchmark/qwen3-32b-reservoir")
	a.scores, _ = os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json"))
	head := strings.Repeat("f", 40)
	a.pr(12, head, a.scores)

	// The first attempt to post the check run hangs until the process is
	// dead; the fake never creates that run.
	var once sync.Once
	hung := make(chan struct{})
	release := make(chan struct{})
	gh.Inject(func(r *http.Request, n int) *fakegithub.Fault {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/check-runs") {
			first := false
			once.Do(func() { first = true })
			if first {
				close(hung)
				<-release
				return &fakegithub.Fault{Status: http.StatusBadGateway}
			}
		}
		return nil
	})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "app.pem")
	os.WriteFile(keyFile, appKeyPEM(), 0o600)
	db := "sqlite:" + filepath.Join(dir, "queue.db")
	logFile := filepath.Join(dir, "child.log")
	env := []string{
		"BENCHGATE_SERVE_CHILD=1",
		"BENCHGATE_APP_ID=42", "BENCHGATE_PRIVATE_KEY_FILE=" + keyFile, "BENCHGATE_WEBHOOK_SECRET=" + a.secret,
		"BENCHGATE_DATABASE_URL=" + db, "BENCHGATE_LISTEN=127.0.0.1:0", "BENCHGATE_GITHUB_API_URL=" + gh.URL,
		// Far longer than the test: only the heartbeat can bring the
		// job back in time.
		"BENCHGATE_JOB_TIMEOUT=1h",
	}
	child := exec.Command(os.Args[0], "-test.run=^TestServeChildProcess$")
	child.Env = append(os.Environ(), append(env, "BENCHGATE_SERVE_CHILD_LOG="+logFile)...)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	a.addr = servingAddr(t, logFile, 60*time.Second)
	a.deliver("pull_request", "kill-1", prEvent("opened", 12, head))
	select {
	case <-hung:
	case <-time.After(30 * time.Second):
		child.Process.Kill()
		t.Fatal("the job never reached GitHub")
	}
	child.Process.Kill() // SIGKILL, mid-job
	child.Wait()
	close(release)

	// Restart on the same queue, in this process.
	cfg, err := bot.LoadConfig(func(k string) string {
		for _, kv := range env {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	}, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, nil, 1, 5*time.Second, 0, io.Discard) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) && (len(gh.CheckRuns("geo/board")) == 0 || len(gh.Comments("geo/board", 12)) == 0) {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if runs := gh.CheckRuns("geo/board"); len(runs) != 1 || runs[0].Conclusion != "success" {
		t.Errorf("check runs after the restart: %+v", runs)
	}
	if cs := gh.Comments("geo/board", 12); len(cs) != 1 {
		t.Errorf("%d comments, want 1", len(cs))
	}
}

// servingAddr waits for the App whose log is the file logFile to say where
// it serves ("benchgate serving") and returns that address. A child told
// to listen on port 0 picks a free port itself, which no other process
// can take between the choice and the listening.
func servingAddr(t testing.TB, logFile string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		data, _ := os.ReadFile(logFile)
		for _, line := range strings.Split(string(data), "\n") {
			var rec struct{ Msg, Listen string }
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "benchgate serving" && rec.Listen != "" {
				return rec.Listen
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the App did not start serving within %v; its log:\n%s", timeout, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
