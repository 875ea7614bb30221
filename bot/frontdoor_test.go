package bot

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/bot/queue"
)

// frontDoor is the App's HTTP side as serve builds it: the Mux, with the
// webhook on a real SQLite queue.
func frontDoor(t *testing.T, hook *Webhook, m *Metrics) (http.Handler, *queue.Queue) {
	t.Helper()
	q, err := queue.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "q.db"), quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	if hook.Queue == nil {
		hook.Queue = QueueAdapter{Q: q}
	}
	if hook.Log == nil {
		hook.Log = quietLog()
	}
	return Mux(hook, q, m, quietLog(), nil), q
}

// deliveries reads benchgate_webhook_deliveries_total as event/outcome →
// count.
func deliveries(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "benchgate_webhook_deliveries_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out[labels["event"]+"/"+labels["outcome"]] = s.GetCounter().GetValue()
		}
	}
	return out
}

// TestWebhookLabelsBounded: the event label of the delivery metrics never
// comes from a header as sent. A thousand unsigned requests, a thousand
// with a well-formed but wrong signature and a thousand signed ones of
// unknown events, each with its own 60 KB X-GitHub-Event, leave four
// series in all; what the front door logs of each header is cut short.
func TestWebhookLabelsBounded(t *testing.T) {
	var logs bytes.Buffer
	var logMu sync.Mutex
	hook := &Webhook{Secrets: [][]byte{secret}, Log: slog.New(slog.NewJSONHandler(lockedWriter{&logs, &logMu}, nil))}
	m := NewMetrics()
	mux, _ := frontDoor(t, hook, m)
	huge := func(i int) string { return fmt.Sprintf("event-%d-", i) + strings.Repeat("x", 60<<10) }
	unsigned := func(string) string { return "" }
	wrong := func(string) string { return "sha256=" + strings.Repeat("0", 64) }
	signed := func(b string) string { return Sign(secret, []byte(b)) }
	const n = 1000
	for _, tt := range []struct {
		name  string
		event func(i int) string
		sig   func(body string) string
		count int
	}{
		{"unsigned", huge, unsigned, n},
		{"well-formed, wrong signature", huge, wrong, n},
		{"signed, an event the App ignores", huge, signed, n},
		{"signed pull_request", func(int) string { return "pull_request" }, signed, 3},
	} {
		for i := range tt.count {
			delivery := fmt.Sprintf("%s-%d-", tt.name, i) + strings.Repeat("d", 10<<10)
			body := openedEvent(i)
			deliverRec(t, mux, tt.event(i), delivery, body, tt.sig(body))
		}
	}
	want := map[string]float64{
		EventUnverified + "/bad_signature": 2 * n,
		EventOther + "/ignored":            n,
		"pull_request/queued":              3,
	}
	got := deliveries(t, m)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		var some []string
		for k, v := range got {
			if len(some) < 5 {
				some = append(some, fmt.Sprintf("%.60q: %v", k, v))
			}
		}
		t.Errorf("%d delivery series (%s …), want %v", len(got), strings.Join(some, ", "), want)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Body.Len() > 64<<10 {
		t.Errorf("/metrics is %d bytes after %d unique event headers", rec.Body.Len(), 3*n)
	}
	logMu.Lock()
	defer logMu.Unlock()
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) < 2*n {
		t.Fatalf("%d log lines, want one per refused request", len(lines))
	}
	for _, line := range lines {
		if len(line) > 1000 {
			t.Fatalf("a log line of %d bytes: %.300s…", len(line), line)
		}
	}
	if !strings.Contains(lines[0], "more bytes]") {
		t.Errorf("the cut is not marked: %s", lines[0])
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestClip(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{strings.Repeat("a", 100), strings.Repeat("a", 100)},
		{strings.Repeat("a", 101), strings.Repeat("a", 100) + "…[1 more bytes]"},
		// Never half a character: "é" is 2 bytes, the 100th is its first.
		{strings.Repeat("a", 99) + "é" + "z", strings.Repeat("a", 99) + "…[3 more bytes]"},
	} {
		if got := clip(tt.in); got != tt.want {
			t.Errorf("clip(%d bytes) = %q, want %q", len(tt.in), got, tt.want)
		}
	}
}

func openedEvent(n int) string {
	return fmt.Sprintf(`{"action": "opened", "installation": {"id": 7}, "repository": {"full_name": "geo/board"}, "pull_request": {"number": %d, "head": {"sha": "h%d"}}}`, n, n)
}
