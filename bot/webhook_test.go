package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/bot/queue"
)

type memQueue struct {
	mu   sync.Mutex
	jobs []Job
	seen map[string]bool
	err  error
}

func (q *memQueue) Enqueue(ctx context.Context, j Job) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return false, q.err
	}
	if q.seen == nil {
		q.seen = map[string]bool{}
	}
	if q.seen[j.DeliveryID] {
		return false, nil
	}
	q.seen[j.DeliveryID] = true
	q.jobs = append(q.jobs, j)
	return true, nil
}

var secret = []byte("It's a Secret to Everybody")

func deliver(t *testing.T, h http.Handler, event, delivery, body, sig string) int {
	t.Helper()
	return deliverRec(t, h, event, delivery, body, sig).Code
}

func deliverRec(t *testing.T, h http.Handler, event, delivery, body, sig string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	if sig != "" {
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const prOpened = `{"action": "opened", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"},
 "pull_request": {"number": 12, "head": {"sha": "abc123"}}}`

func TestWebhookSignature(t *testing.T) {
	q := &memQueue{}
	h := &Webhook{Secrets: [][]byte{[]byte("old secret"), secret}, Queue: q, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	tests := []struct {
		name string
		sig  string
		want int
	}{
		{"GitHub's documented example secret", Sign(secret, []byte(prOpened)), http.StatusAccepted},
		{"the rotated-out secret still accepted", Sign([]byte("old secret"), []byte(prOpened)), http.StatusAccepted},
		{"missing", "", http.StatusUnauthorized},
		{"sha1 form", "sha1=0000", http.StatusUnauthorized},
		{"not hex", "sha256=zz", http.StatusUnauthorized},
		{"another secret", Sign([]byte("guess"), []byte(prOpened)), http.StatusUnauthorized},
		{"signature of another body", Sign(secret, []byte(prOpened+" ")), http.StatusUnauthorized},
	}
	for i, tt := range tests {
		if got := deliver(t, h, "pull_request", "d"+string(rune('a'+i)), prOpened, tt.sig); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got, tt.want)
		}
	}
	if len(q.jobs) != 2 {
		t.Errorf("%d jobs queued, want 2 (refused deliveries queue nothing)", len(q.jobs))
	}
}

// countingReader counts what the handler reads of a body.
type countingReader struct {
	n    int
	left int
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.left)
	for i := range k {
		p[i] = ' '
	}
	r.n += k
	r.left -= k
	return k, nil
}

// TestWebhookRefusesBeforeReading: a request without a well-formed
// signature, or announcing a body over GitHub's cap, is refused without
// its body being read.
func TestWebhookRefusesBeforeReading(t *testing.T) {
	h := &Webhook{Secrets: [][]byte{secret}, Queue: &memQueue{}, Log: slog.New(slog.DiscardHandler)}
	for _, tt := range []struct {
		name, sig string
		length    int64
		want      int
	}{
		{"unsigned", "", 20 << 20, http.StatusUnauthorized},
		{"malformed signature", "sha256=abc", 20 << 20, http.StatusUnauthorized},
		{"signed, but announced over 25 MB", Sign(secret, []byte("x")), MaxWebhookBytes + 1, http.StatusRequestEntityTooLarge},
	} {
		body := &countingReader{left: 20 << 20}
		req := httptest.NewRequest(http.MethodPost, "/webhook", body)
		req.ContentLength = tt.length
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", "d")
		if tt.sig != "" {
			req.Header.Set("X-Hub-Signature-256", tt.sig)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.want || body.n != 0 {
			t.Errorf("%s: status %d after reading %d bytes; want %d after reading none", tt.name, rec.Code, body.n, tt.want)
		}
	}
}

// GitHub's documentation gives this example: secret "It's a Secret to
// Everybody", payload "Hello, World!".
func TestSignMatchesGitHubExample(t *testing.T) {
	if got := Sign(secret, []byte("Hello, World!")); got != "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" {
		t.Errorf("Sign = %s", got)
	}
}

func TestWebhookResponses(t *testing.T) {
	q := &memQueue{}
	h := &Webhook{Secrets: [][]byte{secret}, Queue: q, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	sign := func(b string) string { return Sign(secret, []byte(b)) }
	if got := deliver(t, h, "pull_request", "one", prOpened, sign(prOpened)); got != http.StatusAccepted {
		t.Fatalf("status %d", got)
	}
	// A redelivery is acknowledged and queues nothing.
	if got := deliver(t, h, "pull_request", "one", prOpened, sign(prOpened)); got != http.StatusAccepted || len(q.jobs) != 1 {
		t.Errorf("redelivery: status %d, %d jobs", got, len(q.jobs))
	}
	if got := deliver(t, h, "pull_request", "", prOpened, sign(prOpened)); got != http.StatusBadRequest {
		t.Errorf("no delivery id: %d", got)
	}
	if got := deliver(t, h, "pull_request", "two", "{", sign("{")); got != http.StatusBadRequest {
		t.Errorf("bad JSON: %d", got)
	}
	big := `{"x": "` + strings.Repeat("a", MaxWebhookBytes) + `"}`
	if got := deliver(t, h, "pull_request", "three", big, sign(big)); got != http.StatusRequestEntityTooLarge {
		t.Errorf("too large: %d", got)
	}
	q.err = errors.New("disk full")
	if got := deliver(t, h, "pull_request", "four", prOpened, sign(prOpened)); got != http.StatusInternalServerError {
		t.Errorf("queue failure: %d", got)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/webhook", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", rec.Code)
	}
}

func TestRoute(t *testing.T) {
	repo := `"repository": {"full_name": "geo/board", "default_branch": "main"}, "installation": {"id": 7}`
	tests := []struct {
		name, event, body string
		want              string // kind:pr:head or "" for no job
	}{
		{"opened", "pull_request", prOpened, "verify:12:abc123"},
		{"synchronize", "pull_request", `{"action": "synchronize", ` + repo + `, "pull_request": {"number": 3, "head": {"sha": "s2"}}}`, "verify:3:s2"},
		{"closed", "pull_request", `{"action": "closed", ` + repo + `, "pull_request": {"number": 3, "head": {"sha": "s2"}}}`, "verify:3:s2"},
		{"labeled", "pull_request", `{"action": "labeled", ` + repo + `, "pull_request": {"number": 3, "head": {"sha": "s2"}}}`, ""},
		{"check run rerequested", "check_run", `{"action": "rerequested", ` + repo + `, "check_run": {"head_sha": "h", "pull_requests": [{"number": 4}]}}`, "verify:4:h"},
		{"check suite rerequested", "check_suite", `{"action": "rerequested", ` + repo + `, "check_suite": {"head_sha": "h", "pull_requests": [{"number": 5}]}}`, "verify:5:h"},
		{"check run completed", "check_run", `{"action": "completed", ` + repo + `, "check_run": {"head_sha": "h", "pull_requests": [{"number": 4}]}}`, ""},
		{"rerun comment", "issue_comment", `{"action": "created", ` + repo + `, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 77, "body": "Looks odd.\n/benchgate rerun\n", "user": {"login": "maint", "type": "User"}}}`, "rerun:9:"},
		{"verify comment", "issue_comment", `{"action": "created", ` + repo + `, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 78, "body": "/benchgate verify", "user": {"login": "x", "type": "User"}}}`, "verify:9:"},
		{"reproduce comment", "issue_comment", `{"action": "created", ` + repo + `, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 83, "body": "/benchgate reproduce", "user": {"login": "maint", "type": "User"}}}`, "reproduce:9:"},
		{"command inside a sentence", "issue_comment", `{"action": "created", ` + repo + `, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 79, "body": "please /benchgate rerun this", "user": {"login": "x", "type": "User"}}}`, ""},
		{"comment on an issue", "issue_comment", `{"action": "created", ` + repo + `, "issue": {"number": 9}, "comment": {"id": 80, "body": "/benchgate rerun", "user": {"login": "x", "type": "User"}}}`, ""},
		{"the bot's own comment", "issue_comment", `{"action": "created", ` + repo + `, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 81, "body": "/benchgate rerun", "user": {"login": "benchgate[bot]", "type": "Bot"}}}`, ""},
		{"edited comment", "issue_comment", `{"action": "edited", ` + repo + `, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 82, "body": "/benchgate rerun", "user": {"login": "x", "type": "User"}}}`, ""},
		{"push touching submissions", "push", `{"ref": "refs/heads/main", "after": "f00d", ` + repo + `, "commits": [{"added": ["submissions/model-benchmark/x/meta.json"]}]}`, "regenerate:0:"},
		{"push touching rubrics", "push", `{"ref": "refs/heads/main", "after": "f00d", ` + repo + `, "commits": [{"modified": ["rubrics/rubrics.json"]}]}`, "regenerate:0:"},
		{"push touching the title and introduction", "push", `{"ref": "refs/heads/main", "after": "f00d", ` + repo + `, "commits": [{"modified": ["leaderboard.md"]}]}`, "regenerate:0:"},
		{"push touching a reproduction record", "push", `{"ref": "refs/heads/main", "after": "f00d", ` + repo + `, "commits": [{"added": ["reproductions/model-benchmark/x.json"]}]}`, "regenerate:0:"},
		{"push touching an acceptance record", "push", `{"ref": "refs/heads/main", "after": "f00d", ` + repo + `, "commits": [{"modified": ["acceptances/model-benchmark/x.json"]}]}`, "regenerate:0:"},
		{"push elsewhere", "push", `{"ref": "refs/heads/main", "after": "f00d", ` + repo + `, "commits": [{"modified": ["README.md"]}]}`, ""},
		{"push to a branch", "push", `{"ref": "refs/heads/feature", "after": "f00d", ` + repo + `, "commits": [{"added": ["submissions/a"]}]}`, ""},
		{"branch deleted", "push", `{"ref": "refs/heads/main", "after": "0000000000000000000000000000000000000000", ` + repo + `, "commits": []}`, ""},
		{"ping", "ping", `{"zen": "Keep it logically awesome.", "hook_id": 1}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := Route(tt.event, "d", []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if len(jobs) == 1 {
				j := jobs[0]
				got = string(j.Kind) + ":" + strconv.Itoa(j.PR) + ":" + j.HeadSHA
				if j.Repo != "geo/board" || j.InstallationID != 7 || j.DeliveryID != "d" {
					t.Errorf("job %+v", j)
				}
			} else if len(jobs) > 1 {
				t.Fatalf("%d jobs", len(jobs))
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRouteReproduceBranch: a reproduction carries the default branch
// its record is committed to, and the comment that asked.
func TestRouteReproduceBranch(t *testing.T) {
	body := `{"action": "created", "repository": {"full_name": "geo/board", "default_branch": "trunk"}, "installation": {"id": 7}, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 83, "body": "/benchgate reproduce", "user": {"login": "maint", "type": "User"}}}`
	jobs, err := Route("issue_comment", "d", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].Kind != KindReproduce || jobs[0].Branch != "trunk" || jobs[0].Commenter != "maint" || jobs[0].CommentID != 83 {
		t.Fatalf("jobs %+v", jobs)
	}
}

// TestRouteAccept: /benchgate accept carries the rest of its line as the
// reason, the default branch its record is committed to, and the comment
// that asked, which names the work; without a reason it is still routed,
// for the job to say that one is needed.
func TestRouteAccept(t *testing.T) {
	route := func(body string) []Job {
		t.Helper()
		payload := fmt.Sprintf(`{"action": "created", "repository": {"full_name": "geo/board", "default_branch": "trunk"}, "installation": {"id": 7}, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 84, "body": %q, "author_association": "MEMBER", "user": {"login": "maint", "type": "User"}}}`, body)
		jobs, err := Route("issue_comment", "d", []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	jobs := route("Checked by hand.\n/benchgate accept  the source cut   responses at 500 characters\nThanks!")
	if len(jobs) != 1 || jobs[0].Kind != KindAccept || jobs[0].Reason != "the source cut responses at 500 characters" || jobs[0].Branch != "trunk" ||
		jobs[0].Commenter != "maint" || jobs[0].WorkKey != "command:geo/board:84" {
		t.Fatalf("jobs %+v", jobs)
	}
	if jobs := route("/benchgate accept"); len(jobs) != 1 || jobs[0].Kind != KindAccept || jobs[0].Reason != "" {
		t.Fatalf("without a reason: jobs %+v", jobs)
	}
}

// TestRouteSuiteOfSeveralPulls: a check suite shared by several pull
// requests asks for each to be verified, each under a delivery id of its
// own (the queue records an id once).
func TestRouteSuiteOfSeveralPulls(t *testing.T) {
	body := `{"action": "rerequested", "repository": {"full_name": "geo/board"}, "installation": {"id": 7}, "check_suite": {"head_sha": "h", "pull_requests": [{"number": 5}, {"number": 6}]}}`
	jobs, err := Route("check_suite", "d", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].PR != 5 || jobs[1].PR != 6 || jobs[0].DeliveryID == jobs[1].DeliveryID {
		t.Fatalf("jobs %+v: want PRs 5 and 6 under distinct delivery ids", jobs)
	}
	q, err := queue.Open(t.Context(), "sqlite::memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for _, j := range jobs {
		if inserted, err := (QueueAdapter{Q: q}).Enqueue(t.Context(), j); err != nil || !inserted {
			t.Errorf("enqueue PR %d: inserted=%v err=%v", j.PR, inserted, err)
		}
	}
}

// TestRouteIdentity: what a delivery's work is, apart from the delivery:
// a pull request's head on its base, a base change at its time, a
// command's comment; and who asked.
func TestRouteIdentity(t *testing.T) {
	repo := `"repository": {"full_name": "geo/board", "default_branch": "main"}, "installation": {"id": 7}`
	pr := func(action, extra string) string {
		return `{"action": "` + action + `", ` + repo + extra + `, "pull_request": {"number": 3, "state": "open", "updated_at": "2026-05-01T10:00:00Z", "head": {"sha": "h1"}, "base": {"ref": "main", "sha": "b1"}}}`
	}
	comment := func(assoc string) string {
		return `{"action": "created", ` + repo + `, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 78, "body": "/benchgate verify", "author_association": "` + assoc + `", "user": {"login": "x", "type": "User"}}}`
	}
	tests := []struct {
		name, event, body string
		key               string // "" for no key; "-" for no job
		base              string
		stranger          bool
	}{
		{"opened", "pull_request", pr("opened", ""), "verify:geo/board#3@h1..b1@2026-05-01T10:00:00Z", "main", false},
		{"reopened later", "pull_request", strings.Replace(pr("reopened", ""), "10:00:00Z", "11:30:00Z", 1), "verify:geo/board#3@h1..b1@2026-05-01T11:30:00Z", "main", false},
		{"pushed back to an earlier head", "pull_request", strings.Replace(pr("synchronize", ""), "10:00:00Z", "12:00:00Z", 1), "verify:geo/board#3@h1..b1@2026-05-01T12:00:00Z", "main", false},
		{"base changed", "pull_request", pr("edited", `, "changes": {"base": {"ref": {"from": "stale"}, "sha": {"from": "b0"}}}`), "verify:geo/board#3@h1..b1@2026-05-01T10:00:00Z", "main", false},
		{"title edited", "pull_request", pr("edited", `, "changes": {"title": {"from": "old"}}`), "-", "", false},
		{"closed", "pull_request", strings.Replace(pr("closed", ""), `"state": "open"`, `"state": "closed"`, 1), "closed:geo/board#3@h1@2026-05-01T10:00:00Z", "", false},
		{"closed in the payload", "pull_request", strings.Replace(pr("synchronize", ""), `"state": "open"`, `"state": "closed"`, 1), "-", "", false},
		{"no base in the payload", "pull_request", `{"action": "opened", ` + repo + `, "pull_request": {"number": 3, "head": {"sha": "h1"}}}`, "", "", false},
		{"verify by a collaborator", "issue_comment", comment("COLLABORATOR"), "command:geo/board:78", "", false},
		{"verify by the owner", "issue_comment", comment("OWNER"), "command:geo/board:78", "", false},
		{"verify by a contributor", "issue_comment", comment("CONTRIBUTOR"), "command:geo/board:78", "", true},
		{"verify by anyone", "issue_comment", comment("NONE"), "command:geo/board:78", "", true},
		{"Re-run of an unnamed run", "check_run", `{"action": "rerequested", ` + repo + `, "check_run": {"head_sha": "h", "pull_requests": [{"number": 4}]}}`, "", "", false},
		{"Re-run", "check_run", `{"action": "rerequested", ` + repo + `, "check_run": {"id": 61, "head_sha": "h", "pull_requests": [{"number": 4}]}}`, "rerequest:geo/board:check_run:61#4", "", false},
		{"Re-run all checks", "check_suite", `{"action": "rerequested", ` + repo + `, "check_suite": {"id": 62, "updated_at": "2026-05-01T10:00:00Z", "head_sha": "h", "pull_requests": [{"number": 4}]}}`, "rerequest:geo/board:check_suite:62@2026-05-01T10:00:00Z#4", "", false},
		{"Re-run all checks, no time", "check_suite", `{"action": "rerequested", ` + repo + `, "check_suite": {"id": 62, "head_sha": "h", "pull_requests": [{"number": 4}]}}`, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := Route(tt.event, "d", []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.key == "-" {
				if len(jobs) != 0 {
					t.Fatalf("jobs %+v, want none", jobs)
				}
				return
			}
			if len(jobs) != 1 {
				t.Fatalf("jobs %+v, want one", jobs)
			}
			j := jobs[0]
			if j.WorkKey != tt.key || j.BaseRef != tt.base || j.Stranger != tt.stranger {
				t.Errorf("key %q base %q stranger %v, want %q %q %v", j.WorkKey, j.BaseRef, j.Stranger, tt.key, tt.base, tt.stranger)
			}
		})
	}
}

// TestNoInstallationRefused: a signed delivery that asks for work but
// names no installation is refused at once, saying why, and nothing is
// queued; one that asks for nothing is acknowledged as before.
func TestNoInstallationRefused(t *testing.T) {
	q := &memQueue{}
	var outcomes []string
	var logs strings.Builder
	h := &Webhook{Secrets: [][]byte{secret}, Queue: q, Log: slog.New(slog.NewTextHandler(&logs, nil)), Observe: func(_, outcome string) { outcomes = append(outcomes, outcome) }}
	body := `{"action": "opened", "repository": {"full_name": "geo/board"}, "pull_request": {"number": 3, "head": {"sha": "h1"}}}`
	if got := deliver(t, h, "pull_request", "no-inst", body, Sign(secret, []byte(body))); got != http.StatusUnprocessableEntity {
		t.Errorf("status %d, want 422", got)
	}
	labeled := `{"action": "labeled", "repository": {"full_name": "geo/board"}, "pull_request": {"number": 3, "head": {"sha": "h1"}}}`
	if got := deliver(t, h, "pull_request", "no-inst-2", labeled, Sign(secret, []byte(labeled))); got != http.StatusAccepted {
		t.Errorf("a delivery asking for nothing: status %d, want 202", got)
	}
	if len(q.jobs) != 0 || strings.Join(outcomes, ",") != "no_installation,ignored" || !strings.Contains(logs.String(), "names no installation") {
		t.Errorf("jobs %+v, outcomes %v, log %q", q.jobs, outcomes, logs.String())
	}
}
