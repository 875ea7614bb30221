package bot

import (
	"bytes"
	"errors"
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

// heldUpload is a request whose body the test feeds: the handler reads
// what has been written and waits for the rest.
type heldUpload struct {
	w    *io.PipeWriter
	done chan *httptest.ResponseRecorder
}

func holdUpload(h http.Handler, length int64, sig string) *heldUpload {
	pr, pw := io.Pipe()
	req := httptest.NewRequest(http.MethodPost, "/webhook", pr)
	req.ContentLength = length
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("held-%p", pw))
	req.Header.Set("X-Hub-Signature-256", sig)
	u := &heldUpload{w: pw, done: make(chan *httptest.ResponseRecorder, 1)}
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		pr.Close()
		u.done <- rec
	}()
	return u
}

func (h *Webhook) heldBytes() int64 {
	h.inFlight.mu.Lock()
	defer h.inFlight.mu.Unlock()
	return h.inFlight.used
}

// TestWebhookBodiesInFlight: what the bodies being read may hold, before
// any signature is checked, is bounded across requests. With a 2 MB
// budget and a signed 1000 KB delivery held at 600 KB, a 1000 KB request
// with a well-formed but wrong signature is refused with 503 and
// Retry-After (with or without Content-Length), while a small delivery
// still passes, and so does one beside ten requests that announce 25 MB
// but have sent 1 KB (memory is counted as it is filled, not as
// announced: they are still being read). Once the held delivery ends it
// is queued, every byte is released, and a large body is read again.
func TestWebhookBodiesInFlight(t *testing.T) {
	const budget = 2 << 20
	hook := &Webhook{Secrets: [][]byte{secret}, BodyBytesInFlight: budget}
	m := NewMetrics()
	mux, q := frontDoor(t, hook, m)
	wrong := "sha256=" + strings.Repeat("0", 64)

	// A signed delivery of 1000 KB (its JSON padded with spaces), of which
	// 600 KB have arrived: a pipe's write returns once all of it is read.
	padded := openedEvent(14) + strings.Repeat(" ", 1000<<10-len(openedEvent(14)))
	held := holdUpload(mux, int64(len(padded)), Sign(secret, []byte(padded)))
	if _, err := io.WriteString(held.w, padded[:600<<10]); err != nil {
		t.Fatal(err)
	}
	if n := hook.heldBytes(); n < 600<<10 || n > budget {
		t.Fatalf("the half-read delivery holds %d bytes, want 600 KB to 2 MB", n)
	}

	large := strings.Repeat(" ", 1000<<10)
	for _, tt := range []struct {
		name   string
		send   func() *httptest.ResponseRecorder
		status int
	}{
		{"a large body with a wrong signature", func() *httptest.ResponseRecorder {
			return deliverRec(t, mux, "pull_request", "large", large, wrong)
		}, http.StatusServiceUnavailable},
		{"the same without Content-Length", func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/webhook", io.MultiReader(strings.NewReader(large)))
			req.ContentLength = -1
			req.Header.Set("X-Hub-Signature-256", wrong)
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, req)
			return rec
		}, http.StatusServiceUnavailable},
		{"a small signed delivery", func() *httptest.ResponseRecorder {
			return deliverRec(t, mux, "pull_request", "small", openedEvent(12), Sign(secret, []byte(openedEvent(12))))
		}, http.StatusAccepted},
		{"a small signed delivery beside ten announcing 25 MB, 1 KB sent", func() *httptest.ResponseRecorder {
			var slow []*heldUpload
			for range 10 {
				u := holdUpload(mux, MaxWebhookBytes, wrong)
				if _, err := io.WriteString(u.w, strings.Repeat(" ", 1<<10)); err != nil {
					t.Fatal(err)
				}
				slow = append(slow, u)
			}
			rec := deliverRec(t, mux, "pull_request", "small-2", openedEvent(13), Sign(secret, []byte(openedEvent(13))))
			for i, u := range slow {
				u.w.CloseWithError(errors.New("the sender went away"))
				if r := <-u.done; r.Code != http.StatusBadRequest {
					t.Errorf("slow upload %d: status %d, want 400 (read until its sender went away)", i, r.Code)
				}
			}
			return rec
		}, http.StatusAccepted},
	} {
		rec := tt.send()
		if rec.Code != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, rec.Code, tt.status)
		}
		if tt.status == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: 503 without Retry-After", tt.name)
		}
		if got := hook.heldBytes(); got > budget {
			t.Errorf("%s: %d bytes held, over the budget of %d", tt.name, got, budget)
		}
	}

	if _, err := io.WriteString(held.w, padded[600<<10:]); err != nil {
		t.Fatal(err)
	}
	held.w.Close()
	if rec := <-held.done; rec.Code != http.StatusAccepted {
		t.Errorf("the held delivery: status %d %q, want 202", rec.Code, rec.Body)
	}
	if n := hook.heldBytes(); n != 0 {
		t.Errorf("%d bytes still held once every request ended", n)
	}
	if code := deliver(t, mux, "pull_request", "large-again", large, wrong); code != http.StatusUnauthorized {
		t.Errorf("a large body once the others ended: status %d, want 401 (read and refused)", code)
	}
	if got := deliveries(t, m)[EventUnverified+"/busy"]; got != 2 {
		t.Errorf("%v requests counted busy, want 2", got)
	}
	st, err := q.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n := st.Counts[queue.KindVerify]["available"]; n != 3 {
		t.Errorf("%d verifications queued, want 3 (pull requests 12, 13 and the held 14; %v)", n, st.Counts)
	}
}

func openedEvent(n int) string {
	return fmt.Sprintf(`{"action": "opened", "installation": {"id": 7}, "repository": {"full_name": "geo/board"}, "pull_request": {"number": %d, "head": {"sha": "h%d"}}}`, n, n)
}
