// Package bot is the benchgate GitHub App: it receives webhooks, queues
// durable jobs, and runs the same verifier, spot-check and leaderboard as
// the CLI against pull requests and merges. This file is the front door:
// authenticate a delivery, decide what it asks for, and queue it before
// replying.
package bot

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/benchgate/benchgate/acceptance"
	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/ranking"
	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/submission"
)

// MaxWebhookBytes bounds a delivery's body; GitHub caps payloads at 25 MB.
const MaxWebhookBytes = 25 << 20

// DefaultBodyBytesInFlight is the memory the bodies being read may hold at
// once when Webhook.BodyBytesInFlight is not set: room for a delivery of
// GitHub's largest size as its buffer grows (under twice its size for a
// moment) beside many small ones.
const DefaultBodyBytesInFlight = 64 << 20

// The event label of a delivery in metrics (Webhook.Observe) is one of the
// events Route acts on, EventOther or EventUnverified: every label value
// is a series kept for the life of the process, so it never comes from a
// header as sent.
const (
	// EventUnverified labels a request refused before its signature held:
	// its X-GitHub-Event is anyone's word.
	EventUnverified = "unverified"
	// EventOther labels a signed delivery of an event Route ignores.
	EventOther = "other"
)

// routedEvents are the events Route acts on.
var routedEvents = map[string]bool{"pull_request": true, "check_run": true, "check_suite": true, "issue_comment": true, "push": true}

// eventLabel is the metrics label of a signed delivery's event.
func eventLabel(event string) string {
	if routedEvents[event] {
		return event
	}
	return EventOther
}

// maxLogged bounds each string from a request that the front door logs.
const maxLogged = 100

// clip cuts s to maxLogged bytes, at a character boundary, and says how
// much was cut: a header can be 64 KB, and a refused request is logged.
func clip(s string) string {
	if len(s) <= maxLogged {
		return s
	}
	n := maxLogged
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s…[%d more bytes]", s[:n], len(s)-n)
}

// Job is the work a delivery asks for.
type Job struct {
	Kind       Kind
	DeliveryID string
	Repo       string // owner/name
	PR         int
	HeadSHA    string
	CommentID  int64  // rerun, reproduce: the comment that asked
	Commenter  string // rerun, reproduce: who asked; permission is checked by the job
	AfterSHA   string // regenerate: the pushed commit
	Branch     string // regenerate: the default branch it was pushed to; reproduce, accept: the default branch, where the record goes
	// Reason is an accept's reason: the rest of its command's line.
	Reason         string
	InstallationID int64
	// Rerequested is set when someone asked for the verification again
	// (the Re-run button, /benchgate verify): it posts a new check run.
	Rerequested bool
	// BaseRef and BaseSHA are the base a pull_request delivery named
	// (verify): a pull request moved to another base is verified again.
	BaseRef, BaseSHA string
	// Stranger: the commenter is none of the repository's collaborators
	// (by the comment's author_association); their /benchgate verify is
	// rate-limited per pull request and never spends judge budget.
	Stranger bool
	// WorkKey names the work, so that it is done once whatever delivery
	// ids ask for it: a command's comment, a pull request's head on its
	// base, a press of the Re-run button (checkRunPress,
	// checkSuitePress); empty for work the delivery does not name
	// precisely enough to remember.
	WorkKey string
	// refresh: the verification of a pull request sharing its head with
	// one just verified, so that its comment names that one; it verifies
	// no other in turn.
	refresh bool
}

// ErrNoInstallation is Route's answer to a delivery that asks for work
// but names no installation: no token can be made for it, so its job
// could only fail, and it is refused at once.
var ErrNoInstallation = errors.New("the delivery names no installation (installation.id): benchgate acts only for a repository the App is installed on")

// Kind is the work a job asks for.
type Kind string

// The kinds of job.
const (
	KindVerify     Kind = "verify"
	KindRerun      Kind = "rerun"
	KindReproduce  Kind = "reproduce"
	KindAccept     Kind = "accept"
	KindRegenerate Kind = "regenerate"
)

// Enqueuer stores jobs durably. It reports false when the job is a
// duplicate (a redelivery, or the same work already queued).
type Enqueuer interface {
	Enqueue(ctx context.Context, j Job) (inserted bool, err error)
}

// Webhook is the http.Handler of POST /webhook.
type Webhook struct {
	// Secrets are the webhook secrets; any one of them may have signed a
	// delivery, so that a secret can be rotated without downtime.
	Secrets [][]byte
	Queue   Enqueuer
	Log     *slog.Logger
	// Observe, when set, is told each delivery's event label (a routed
	// event, EventOther or EventUnverified) and outcome, for metrics.
	Observe func(event, outcome string)
	// BodyBytesInFlight bounds the memory that the bodies of all requests
	// being handled hold at once, signed or not: a body is read whole
	// before its signature can be checked, so this is what anyone can make
	// the App hold (0: DefaultBodyBytesInFlight). A request that would go
	// beyond it is refused with 503 and Retry-After. A body of n bytes
	// holds under 2n for a moment while its buffer grows, so below twice
	// MaxWebhookBytes the largest deliveries may not pass.
	BodyBytesInFlight int64
	// Backlog, when set, is told of each delivery refused because the
	// queue is full, so that its verification is looked for once the
	// queue has room.
	Backlog *Backlog

	inFlight byteBudget
}

func (h *Webhook) observe(event, outcome string) {
	if h.Observe != nil {
		h.Observe(event, outcome)
	}
}

func (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	event, delivery := r.Header.Get("X-GitHub-Event"), r.Header.Get("X-GitHub-Delivery")
	log := h.Log.With("delivery", clip(delivery), "event", clip(event))
	sig, ok := parseSignature(r.Header.Get("X-Hub-Signature-256"))
	if !ok {
		// Refused before the body is read: an unsigned request costs its
		// sender the upload, never the App 25 MB of reading and hashing.
		h.observe(EventUnverified, "bad_signature")
		log.Warn("webhook refused: missing or malformed signature")
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if r.ContentLength > MaxWebhookBytes {
		h.observe(EventUnverified, "too_large")
		http.Error(w, "payload too large", http.StatusRequestEntityTooLarge)
		return
	}
	macs := make([]hash.Hash, len(h.Secrets))
	for i, s := range h.Secrets {
		macs[i] = hmac.New(sha256.New, s)
	}
	body, held, err := h.readBody(r.Body, r.ContentLength, macs)
	defer h.inFlight.release(held)
	switch {
	case errors.Is(err, errBusy):
		// Anyone can send a well-formed signature; what their bodies may
		// hold until it is checked is bounded here.
		h.observe(EventUnverified, "busy")
		log.Warn("webhook refused: the bodies being read hold the memory allowed")
		w.Header().Set("Retry-After", "10")
		http.Error(w, "benchgate is reading as many request bodies as it may hold; retry later", http.StatusServiceUnavailable)
		return
	case errors.Is(err, errTooLarge):
		h.observe(EventUnverified, "too_large")
		http.Error(w, "payload too large", http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		h.observe(EventUnverified, "unreadable")
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	// Nothing is parsed or done before the signature holds.
	if !matches(macs, sig) {
		h.observe(EventUnverified, "bad_signature")
		log.Warn("webhook refused: missing or bad signature")
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	label := eventLabel(event)
	if event == "" || delivery == "" {
		h.observe(label, "bad_request")
		http.Error(w, "X-GitHub-Event and X-GitHub-Delivery are required", http.StatusBadRequest)
		return
	}
	if isForm(r.Header.Get("Content-Type")) {
		// The hook delivers a form: the signature was of the form as sent,
		// the JSON is its payload field.
		if body, err = formPayload(body); err != nil {
			h.observe(label, "bad_payload")
			log.Warn("form-encoded webhook not understood", "err", clip(err.Error()))
			http.Error(w, "a form-encoded delivery carries its JSON in one field named payload: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	jobs, err := Route(event, delivery, body)
	if errors.Is(err, ErrNoInstallation) {
		h.observe(label, "no_installation")
		log.Warn("webhook refused: it names no installation, so nothing can be done for it")
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	if err != nil {
		h.observe(label, "bad_payload")
		log.Warn("webhook payload not understood", "err", clip(err.Error()))
		http.Error(w, "payload not understood", http.StatusBadRequest)
		return
	}
	outcome := "ignored"
	for _, j := range jobs {
		inserted, err := h.Queue.Enqueue(r.Context(), j)
		if errors.Is(err, ErrOverloaded) {
			// 503 with Retry-After: GitHub shows the failed delivery, and
			// the backlog queues the missed verification as soon as the
			// queue has room.
			h.observe(label, "overloaded")
			h.Backlog.Refused()
			log.Warn("delivery refused: the queue is full", "err", err, "repo", clip(j.Repo), "pr", j.PR)
			w.Header().Set("Retry-After", "60")
			http.Error(w, "benchgate is overloaded; this pull request will be verified once the queue drains", http.StatusServiceUnavailable)
			return
		}
		if err != nil {
			// Not acknowledged: GitHub shows the failure and the delivery
			// can be redelivered; nothing was half-done.
			h.observe(label, "error")
			log.Error("cannot queue the delivery", "err", err, "repo", clip(j.Repo), "pr", j.PR)
			http.Error(w, "cannot queue the delivery", http.StatusInternalServerError)
			return
		}
		outcome = "duplicate"
		if inserted {
			outcome = "queued"
		}
		log.Info("webhook", "outcome", outcome, "kind", j.Kind, "repo", clip(j.Repo), "pr", j.PR, "head_sha", clip(j.HeadSHA))
	}
	h.observe(label, outcome)
	w.WriteHeader(http.StatusAccepted)
}

// byteBudget is the memory shared by the bodies being read, in bytes.
type byteBudget struct {
	mu   sync.Mutex
	used int64
}

// reserve takes n bytes if the total stays within limit.
func (b *byteBudget) reserve(n, limit int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > limit {
		return false
	}
	b.used += n
	return true
}

func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

var (
	errBusy     = errors.New("the bodies being read hold the memory allowed (Webhook.BodyBytesInFlight)")
	errTooLarge = errors.New("the body is longer than MaxWebhookBytes or than its Content-Length")
)

// minBodyBuffer is the first buffer a body is read into.
const minBodyBuffer = 32 << 10

// readBody reads a body of at most MaxWebhookBytes (and at most length,
// when that is known) and writes it to each mac as it arrives. The buffer
// grows with what was sent, never with what Content-Length announces, so
// a sender that announces 25 MB and sends nothing holds next to nothing;
// each growth is reserved from the in-flight budget before it is made. It
// returns the bytes reserved, which the caller releases once done with
// the body, on error too.
func (h *Webhook) readBody(r io.Reader, length int64, macs []hash.Hash) (body []byte, held int64, err error) {
	limit := h.BodyBytesInFlight
	if limit <= 0 {
		limit = DefaultBodyBytesInFlight
	}
	bound := int64(MaxWebhookBytes)
	if length >= 0 && length < bound {
		bound = length
	}
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) == bound {
				// Full: only the end of the body may follow.
				var one [1]byte
				switch n, err := io.ReadFull(r, one[:]); {
				case n > 0:
					return nil, held, errTooLarge
				case err == io.EOF:
					return buf, held, nil
				default:
					return nil, held, err
				}
			}
			grown := min(max(2*int64(cap(buf)), minBodyBuffer), bound)
			if !h.inFlight.reserve(grown, limit) {
				return nil, held, errBusy
			}
			held += grown
			next := make([]byte, len(buf), grown)
			copy(next, buf)
			h.inFlight.release(int64(cap(buf)))
			held -= int64(cap(buf))
			buf = next
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		for _, m := range macs {
			m.Write(buf[len(buf) : len(buf)+n])
		}
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, held, nil
		}
		if err != nil {
			return nil, held, err
		}
	}
}

// matches reports whether sig is the HMAC-SHA256 of the body under any
// secret (macs, one per secret, have read the raw body), in constant
// time: every secret is compared, so the time taken says nothing of which.
func matches(macs []hash.Hash, sig []byte) bool {
	valid := false
	for _, m := range macs {
		if hmac.Equal(m.Sum(nil), sig) {
			valid = true
		}
	}
	return valid
}

// parseSignature reads an X-Hub-Signature-256 value: "sha256=" and 64 hex
// digits.
func parseSignature(header string) ([]byte, bool) {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return nil, false
	}
	sig, err := hex.DecodeString(hexSig)
	if err != nil || len(sig) != sha256.Size {
		return nil, false
	}
	return sig, true
}

// formContentType is what GitHub sends when a hook's content type is set
// to a form: the body is payload=<the JSON, URL-encoded>, and
// X-Hub-Signature-256 is of the body as sent.
const formContentType = "application/x-www-form-urlencoded"

func isForm(contentType string) bool {
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == formContentType
}

// formPayload returns the JSON of a form-encoded delivery: the value of
// its one field named payload. It reads the form as url.ParseQuery does,
// refusing what that refuses, but decodes over the body's own bytes (a
// decoded value is never longer than its encoding): the body is not
// needed again, and a second copy of up to 25 MB is not made.
func formPayload(body []byte) ([]byte, error) {
	var payload []byte
	found := false
	for len(body) > 0 {
		var field []byte
		field, body, _ = bytes.Cut(body, []byte("&"))
		if bytes.IndexByte(field, ';') >= 0 {
			return nil, errors.New("invalid semicolon separator in the form")
		}
		k, v, _ := bytes.Cut(field, []byte("="))
		key, err := unescapeInPlace(k)
		if err != nil {
			return nil, err
		}
		value, err := unescapeInPlace(v)
		if err != nil {
			return nil, err
		}
		if string(key) != "payload" {
			continue
		}
		if found {
			return nil, errors.New("the form has more than one field named payload")
		}
		payload, found = value, true
	}
	if !found {
		return nil, errors.New("the form has no field named payload")
	}
	return payload, nil
}

// unescapeInPlace decodes a URL-encoded form key or value (%XX, and + for
// a space) over its own bytes, as url.QueryUnescape does.
func unescapeInPlace(s []byte) ([]byte, error) {
	j := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			s[j] = ' '
		case '%':
			var b [1]byte
			if i+2 >= len(s) {
				return nil, fmt.Errorf("invalid URL escape %q", s[i:])
			}
			if _, err := hex.Decode(b[:], s[i+1:i+3]); err != nil {
				return nil, fmt.Errorf("invalid URL escape %q", s[i:i+3])
			}
			s[j] = b[0]
			i += 2
		default:
			s[j] = c
		}
		j++
	}
	return s[:j], nil
}

// Sign returns the X-Hub-Signature-256 value of body under secret, as
// GitHub computes it (for tests and tools).
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// The parts of GitHub's webhook payloads that routing reads.
type (
	repoRef struct {
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
	}
	installationRef struct {
		ID int64 `json:"id"`
	}
	payload struct {
		Action string `json:"action"`
		// changes of an edited pull request; only its base is read.
		Changes *struct {
			Base *struct {
				Ref struct {
					From string `json:"from"`
				} `json:"ref"`
			} `json:"base"`
		} `json:"changes"`
		Repository   repoRef         `json:"repository"`
		Installation installationRef `json:"installation"`
		PullRequest  *struct {
			Number    int    `json:"number"`
			State     string `json:"state"`
			Draft     bool   `json:"draft"`
			UpdatedAt string `json:"updated_at"`
			Head      struct {
				SHA string `json:"sha"`
			} `json:"head"`
			Base struct {
				Ref string `json:"ref"`
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_request"`
		Issue *struct {
			Number      int       `json:"number"`
			PullRequest *struct{} `json:"pull_request"`
		} `json:"issue"`
		Comment *struct {
			ID   int64  `json:"id"`
			Body string `json:"body"`
			// AuthorAssociation is the commenter's relation to the
			// repository: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, …
			AuthorAssociation string `json:"author_association"`
			User              struct {
				Login string `json:"login"`
				Type  string `json:"type"`
			} `json:"user"`
		} `json:"comment"`
		CheckRun *struct {
			ID           int64  `json:"id"`
			HeadSHA      string `json:"head_sha"`
			PullRequests []struct {
				Number int `json:"number"`
			} `json:"pull_requests"`
		} `json:"check_run"`
		CheckSuite *struct {
			ID           int64  `json:"id"`
			UpdatedAt    string `json:"updated_at"`
			HeadSHA      string `json:"head_sha"`
			PullRequests []struct {
				Number int `json:"number"`
			} `json:"pull_requests"`
		} `json:"check_suite"`
		// push
		Ref     string `json:"ref"`
		After   string `json:"after"`
		Commits []struct {
			Added    []string `json:"added"`
			Removed  []string `json:"removed"`
			Modified []string `json:"modified"`
		} `json:"commits"`
	}
)

// Route decides what a delivery asks for: no job for events benchgate
// does not act on. It is pure, so every rule is tested without a server.
// A delivery that asks for work but names no installation is refused
// with ErrNoInstallation.
func Route(event, delivery string, body []byte) ([]Job, error) {
	jobs, err := route(event, delivery, body)
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if j.InstallationID <= 0 {
			return nil, ErrNoInstallation
		}
	}
	return jobs, nil
}

// collaborators are the author associations of people who may write to
// the repository or belong to its organisation: anyone else is a
// stranger to it.
var collaborators = map[string]bool{"OWNER": true, "MEMBER": true, "COLLABORATOR": true}

func route(event, delivery string, body []byte) ([]Job, error) {
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, err
	}
	base := Job{DeliveryID: delivery, Repo: p.Repository.FullName, InstallationID: p.Installation.ID}
	switch event {
	case "pull_request":
		switch p.Action {
		case "opened", "synchronize", "reopened", "ready_for_review":
		case "closed":
			// Nothing of it is verified again, but a head it shared shows
			// the worst verdict of the pull requests still open (VerifyPR
			// finds it closed).
			if p.PullRequest == nil {
				return nil, errors.New("pull_request event without a pull request")
			}
			j := base
			j.Kind, j.PR, j.HeadSHA = KindVerify, p.PullRequest.Number, p.PullRequest.Head.SHA
			if j.HeadSHA != "" && p.PullRequest.UpdatedAt != "" {
				j.WorkKey = fmt.Sprintf("closed:%s#%d@%s@%s", j.Repo, j.PR, j.HeadSHA, p.PullRequest.UpdatedAt)
			}
			return []Job{j}, nil
		case "edited":
			// A title or body edit changes nothing verified; a new base
			// changes what the pull request does to it.
			if p.Changes == nil || p.Changes.Base == nil {
				return nil, nil
			}
		default:
			return nil, nil
		}
		if p.PullRequest == nil {
			return nil, errors.New("pull_request event without a pull request")
		}
		if p.PullRequest.State == "closed" {
			return nil, nil
		}
		j := base
		j.Kind, j.PR, j.HeadSHA = KindVerify, p.PullRequest.Number, p.PullRequest.Head.SHA
		j.BaseRef, j.BaseSHA = p.PullRequest.Base.Ref, p.PullRequest.Base.SHA
		j.WorkKey = verifyKey(j, p.PullRequest.UpdatedAt)
		return []Job{j}, nil
	case "check_run", "check_suite":
		if p.Action != "rerequested" {
			return nil, nil
		}
		var sha, press string
		var prs []int
		if p.CheckRun != nil {
			sha = p.CheckRun.HeadSHA
			for _, pr := range p.CheckRun.PullRequests {
				prs = append(prs, pr.Number)
			}
			press = checkRunPress(p.Repository.FullName, p.CheckRun.ID)
		} else if p.CheckSuite != nil {
			sha = p.CheckSuite.HeadSHA
			for _, pr := range p.CheckSuite.PullRequests {
				prs = append(prs, pr.Number)
			}
			press = checkSuitePress(p.Repository.FullName, p.CheckSuite.ID, p.CheckSuite.UpdatedAt)
		}
		if sha == "" {
			return nil, nil
		}
		if len(prs) == 0 {
			// GitHub lists no pull requests when the head branch is in a
			// fork, the usual case for outside contributors: the job
			// finds them by the head commit (PR 0).
			prs = []int{0}
		}
		var jobs []Job
		for _, n := range prs {
			j := base
			j.Kind, j.PR, j.HeadSHA, j.Rerequested = KindVerify, n, sha, true
			if press != "" {
				j.WorkKey = fmt.Sprintf("%s#%d", press, n)
			}
			if len(prs) > 1 {
				// The queue takes a delivery id once: each pull request
				// of the suite needs its own, or only the first is queued.
				j.DeliveryID = fmt.Sprintf("%s/pr-%d", delivery, n)
			}
			jobs = append(jobs, j)
		}
		return jobs, nil
	case "issue_comment":
		if p.Action != "created" || p.Issue == nil || p.Issue.PullRequest == nil || p.Comment == nil {
			return nil, nil
		}
		// The App's own comments never command it.
		if p.Comment.User.Type == "Bot" {
			return nil, nil
		}
		cmd, arg := ParseCommand(p.Comment.Body)
		if cmd == "" {
			return nil, nil
		}
		j := base
		j.Kind, j.PR, j.CommentID, j.Commenter = cmd, p.Issue.Number, p.Comment.ID, p.Comment.User.Login
		j.Rerequested = cmd == KindVerify
		j.Stranger = !collaborators[p.Comment.AuthorAssociation]
		if cmd == KindReproduce || cmd == KindAccept {
			j.Branch = p.Repository.DefaultBranch
		}
		j.Reason = arg
		// A comment asks once: its id names the work.
		if j.CommentID != 0 {
			j.WorkKey = fmt.Sprintf("command:%s:%d", j.Repo, j.CommentID)
		}
		return []Job{j}, nil
	case "push":
		if p.Repository.DefaultBranch == "" || p.Ref != "refs/heads/"+p.Repository.DefaultBranch || p.After == "" || strings.Trim(p.After, "0") == "" {
			return nil, nil
		}
		if !touchesBoard(p) {
			return nil, nil
		}
		j := base
		j.Kind, j.AfterSHA, j.Branch = KindRegenerate, p.After, p.Repository.DefaultBranch
		return []Job{j}, nil
	}
	return nil, nil
}

// verifyKey names the verification a pull_request delivery asks for: its
// pull request's head on its base at the time of the event (updated_at),
// which a replay of the delivery asks for again, and which is done once.
// The time matters: a pull request pushed back to a head it had, reopened
// after its shared head showed another's verdict, or moved back to a base
// it had, asks for its head on its base again, and is verified again
// (what is truly unchanged is answered from its last verdict). Without
// the base's commit or the time the delivery names no work precisely
// enough to remember.
func verifyKey(j Job, updatedAt string) string {
	if j.BaseSHA == "" || j.HeadSHA == "" || updatedAt == "" {
		return ""
	}
	return fmt.Sprintf("verify:%s#%d@%s..%s@%s", j.Repo, j.PR, j.HeadSHA, j.BaseSHA, updatedAt)
}

// checkRunPress names a press of a check run's Re-run button by the run
// pressed: the App answers each press with a new check run, so a person's
// next press is on another id, while a replay of the delivery names the
// same one. Without the id the press is not named, and is verified.
func checkRunPress(repo string, id int64) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprintf("rerequest:%s:check_run:%d", repo, id)
}

// checkSuitePress names a press of "Re-run all checks" by the suite and
// its updated_at: a suite lives as long as its head commit, so its id
// alone names every press on it, but each press resets the suite to
// queued (updating it), and the App's new check run updates it again, so
// no two presses see one updated_at, while a replay carries the one it
// was sent with. Presses within one second of each other are one.
func checkSuitePress(repo string, id int64, updatedAt string) string {
	if id == 0 || updatedAt == "" {
		return ""
	}
	return fmt.Sprintf("rerequest:%s:check_suite:%d@%s", repo, id, updatedAt)
}

// boardInput reports whether a file of the repository is read to build
// the leaderboard: a submission's, or one in the registry's folder. A
// benchmark file kept elsewhere is named in the registry, whose change
// a push of that file does not show; such a push is published by the
// next one that touches the registry or a submission. The maintainer's
// title and introduction (ranking.IntroFile) are read too, and the records
// of reproductions and of maintainers' acceptances.
func boardInput(p string) bool {
	return strings.HasPrefix(p, submission.Dir+"/") || strings.HasPrefix(p, reproduce.RecordDir+"/") || strings.HasPrefix(p, acceptance.RecordDir+"/") || strings.HasPrefix(p, path.Dir(benchmark.RegistryFile)+"/") || p == ranking.IntroFile
}

// touchesBoard reports whether a push changed submissions or benchmarks.
func touchesBoard(p payload) bool {
	for _, c := range p.Commits {
		for _, list := range [][]string{c.Added, c.Removed, c.Modified} {
			for _, f := range list {
				if boardInput(f) {
					return true
				}
			}
		}
	}
	return false
}
