package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// countingQueue counts the round trips /metrics and /readyz make to a
// real queue.
type countingQueue struct {
	*queue.Queue
	reads atomic.Int64
}

func (c *countingQueue) Stats(ctx context.Context) (queue.Stats, error) {
	c.reads.Add(1)
	return c.Queue.Stats(ctx)
}

func (c *countingQueue) LiveReplicas(ctx context.Context) (int, error) {
	c.reads.Add(1)
	return c.Queue.LiveReplicas(ctx)
}

func (c *countingQueue) SpentSince(ctx context.Context, since time.Time) (float64, error) {
	c.reads.Add(1)
	return c.Queue.SpentSince(ctx, since)
}

// TestProbesShareOneRead: /readyz and /metrics answer anyone, so a crowd
// asking them must not take the queue's database from the deliveries.
// Sixteen clients asking 25 times each, beside signed deliveries, make one
// read of the queue's figures (three round trips) within the refresh
// interval, and every answer reflects it.
func TestProbesShareOneRead(t *testing.T) {
	q, err := queue.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "q.db"), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	counted := &countingQueue{Queue: q}
	m := NewMetrics()
	m.RefreshEvery = time.Hour
	hook := &Webhook{Secrets: [][]byte{secret}, Queue: QueueAdapter{Q: q}, Log: quietLog()}
	srv := httptest.NewServer(Mux(hook, counted, m, quietLog(), nil))
	defer srv.Close()
	post := func(delivery string, n int) {
		body := openedEvent(n)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", strings.NewReader(body))
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", delivery)
		req.Header.Set("X-Hub-Signature-256", Sign(secret, []byte(body)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("delivery %s: status %d", delivery, resp.StatusCode)
		}
	}
	post("before", 1)
	if code, body := probe(srv.Config.Handler, "/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz: %d %q", code, body)
	}

	var wg sync.WaitGroup
	var answers atomic.Int64
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				path, want := "/readyz", "ready"
				if (c+i)%2 == 1 {
					path, want = "/metrics", `benchgate_jobs{kind="benchgate_verify",state="available"} 1`
				}
				resp, err := http.Get(srv.URL + path)
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
					t.Errorf("%s: %d, body lacks %q", path, resp.StatusCode, want)
					return
				}
				answers.Add(1)
			}
		}()
		if c%4 == 0 {
			post(fmt.Sprintf("during-%d", c), 100+c)
		}
	}
	wg.Wait()
	if answers.Load() != 16*25 {
		t.Fatalf("%d answers", answers.Load())
	}
	if n := counted.reads.Load(); n != 3 {
		t.Errorf("%d round trips to the queue for %d probes, want 3 (one read of its figures)", n, answers.Load())
	}
}

// stubQueue answers the figures' reads as the test says.
type stubQueue struct {
	reads atomic.Int64
	mu    sync.Mutex
	err   error
	hang  chan struct{} // when set, a read waits for it to close, whatever its context
}

func (s *stubQueue) Stats(ctx context.Context) (queue.Stats, error) {
	s.reads.Add(1)
	s.mu.Lock()
	err, hang := s.err, s.hang
	s.mu.Unlock()
	if hang != nil {
		<-hang
	}
	return queue.Stats{}, err
}
func (s *stubQueue) Leading() bool                                          { return false }
func (s *stubQueue) LiveReplicas(context.Context) (int, error)              { return 1, nil }
func (s *stubQueue) SpentSince(context.Context, time.Time) (float64, error) { return 0, nil }

func (s *stubQueue) set(err error, hang chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err, s.hang = err, hang
}

func probe(mux http.Handler, path string) (int, string) {
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// TestReadyzFollowsLastRead: /readyz reports the last read of the queue's
// figures, made at most once per refresh interval: a failed read fails it
// until a read succeeds, and a read that hangs leaves it failing as stale
// rather than answering from an old success; the requests meanwhile join
// the read under way instead of starting others.
func TestReadyzFollowsLastRead(t *testing.T) {
	const ttl = 50 * time.Millisecond
	stub := &stubQueue{}
	m := NewMetrics()
	m.RefreshEvery = ttl
	mux := Mux(&Webhook{Secrets: [][]byte{secret}, Queue: &memQueue{}, Log: quietLog()}, stub, m, quietLog(), nil)

	if code, body := probe(mux, "/readyz"); code != http.StatusOK {
		t.Fatalf("healthy: %d %q", code, body)
	}
	stub.set(errors.New("database is locked"), nil)
	time.Sleep(2 * ttl)
	reads := stub.reads.Load()
	for i := range 5 {
		if code, body := probe(mux, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "does not answer") {
			t.Fatalf("failing read, probe %d: %d %q", i, code, body)
		}
	}
	if n := stub.reads.Load() - reads; n != 1 {
		t.Errorf("%d reads for 5 probes within the interval, want 1", n)
	}
	stub.set(nil, nil)
	time.Sleep(2 * ttl)
	if code, body := probe(mux, "/readyz"); code != http.StatusOK {
		t.Fatalf("recovered: %d %q", code, body)
	}

	hang := make(chan struct{})
	stub.set(nil, hang)
	time.Sleep(4 * ttl)
	reads = stub.reads.Load()
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = probe(mux, "/readyz")
		}()
	}
	wg.Wait()
	if n := stub.reads.Load() - reads; n != 1 {
		t.Errorf("%d reads started by 4 probes while one hangs, want 1", n)
	}
	for i, c := range codes {
		if c != http.StatusServiceUnavailable {
			t.Errorf("probe %d while the read hangs: %d, want 503 (stale)", i, c)
		}
	}
	if code, body := probe(mux, "/metrics"); code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics while the read hangs: %d", code)
	}
	stub.set(nil, nil)
	close(hang)
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := probe(mux, "/readyz")
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("once the read ended: %d %q", code, body)
		}
		time.Sleep(ttl)
	}
}
