package bot

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/queue"
)

// TestWebhookToCheck: a signed delivery is queued durably, acknowledged,
// and its job posts the check run; a redelivery does nothing more.
func TestWebhookToCheck(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q, err := queue.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "q.db"), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	gh := newMemGH(t)
	gh.pr.HeadSHA = "abc123"
	w := &Worker{GH: gh, Verify: checkOpts, Log: quietLog()}
	m := NewMetrics()
	hook := &Webhook{Secrets: [][]byte{secret}, Queue: QueueAdapter{Q: q}, Log: quietLog()}
	srv := httptest.NewServer(Mux(hook, q, m, quietLog(), nil))
	defer srv.Close()

	post := func(delivery string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", strings.NewReader(prOpened))
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", delivery)
		req.Header.Set("X-Hub-Signature-256", Sign(secret, []byte(prOpened)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("d-1"); got != http.StatusAccepted {
		t.Fatalf("status %d", got)
	}
	if got := post("d-1"); got != http.StatusAccepted {
		t.Fatalf("redelivery: status %d", got)
	}
	if err := q.Start(ctx, w.Handlers(), 2); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		gh.mu.Lock()
		n := gh.posts
		gh.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop, cancelStop := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelStop()
	q.Stop(stop)
	if gh.posts != 1 || gh.checks["abc123 "+prcheck.CheckName].Conclusion != prcheck.Success || gh.comments != 1 {
		t.Errorf("%d posts, checks %v, %d comments", gh.posts, gh.checks, gh.comments)
	}
	for path, want := range map[string]string{
		"/healthz": "ok",
		"/readyz":  "ready",
		"/metrics": `benchgate_webhook_deliveries_total{event="pull_request",outcome="duplicate"} 1`,
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, body lacks %q", path, resp.StatusCode, want)
		}
	}
}

// TestMetricsRuntime checks that Go's runtime and process metrics are
// registered beside the App's own.
func TestMetricsRuntime(t *testing.T) {
	families, err := NewMetrics().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	want := []string{"go_goroutines", "go_memstats_alloc_bytes", "go_gc_duration_seconds"}
	if runtime.GOOS == "linux" {
		want = append(want, "process_start_time_seconds", "process_resident_memory_bytes", "process_open_fds")
	}
	for _, name := range want {
		if !names[name] {
			t.Errorf("no %s among the metrics", name)
		}
	}
}
