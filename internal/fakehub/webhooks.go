package fakehub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// The payload types follow hf-hub.md §3.2 field for field: authors are
// ids only, headSha appears only on repo scopes, a hidden comment has no
// content, and updatedRefs carries null for a created or deleted ref.
type payload struct {
	Event       payloadEvent       `json:"event"`
	Repo        payloadRepo        `json:"repo"`
	Discussion  *payloadDiscussion `json:"discussion,omitempty"`
	Comment     *payloadComment    `json:"comment,omitempty"`
	UpdatedRefs []payloadRef       `json:"updatedRefs,omitempty"`
	Webhook     payloadHook        `json:"webhook"`
}

type payloadEvent struct {
	Action string `json:"action"`
	Scope  string `json:"scope"`
}

type payloadURL struct {
	Web string `json:"web"`
	API string `json:"api,omitempty"`
}

type payloadID struct {
	ID string `json:"id"`
}

type payloadRepo struct {
	Type    string     `json:"type"`
	Name    string     `json:"name"`
	ID      string     `json:"id"`
	Private bool       `json:"private"`
	URL     payloadURL `json:"url"`
	HeadSha string     `json:"headSha,omitempty"`
	Owner   payloadID  `json:"owner"`
}

type payloadChanges struct {
	Base          string `json:"base"`
	MergeCommitID string `json:"mergeCommitId,omitempty"`
}

type payloadDiscussion struct {
	ID            string          `json:"id"`
	Title         string          `json:"title"`
	URL           payloadURL      `json:"url"`
	Status        string          `json:"status"`
	Author        payloadID       `json:"author"`
	Num           int             `json:"num"`
	IsPullRequest bool            `json:"isPullRequest"`
	Changes       *payloadChanges `json:"changes,omitempty"`
}

type payloadComment struct {
	ID      string     `json:"id"`
	Author  payloadID  `json:"author"`
	Content *string    `json:"content,omitempty"`
	Hidden  bool       `json:"hidden"`
	URL     payloadURL `json:"url"`
}

type payloadRef struct {
	Ref    string  `json:"ref"`
	OldSha *string `json:"oldSha"`
	NewSha *string `json:"newSha"`
}

type payloadHook struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
}

func (h *Hub) repoJSONLocked(rp *repo) payloadRepo {
	return payloadRepo{Type: "dataset", Name: rp.name, ID: rp.id, Private: rp.private,
		URL:   payloadURL{Web: h.URL + "/datasets/" + rp.name, API: h.URL + "/api/datasets/" + rp.name},
		Owner: payloadID{rp.owner.ID}}
}

func (h *Hub) repoPayloadLocked(rp *repo, refs []payloadRef) payload {
	p := payload{Event: payloadEvent{"update", "repo.content"}, Repo: h.repoJSONLocked(rp), UpdatedRefs: refs}
	// headSha is main's head, sent only on repo scopes (hf-hub.md §3.2).
	p.Repo.HeadSha = rp.refs["refs/heads/main"]
	return p
}

func (h *Hub) discussionPayloadLocked(rp *repo, d *discussion, action, scope string, cm *event) payload {
	web := fmt.Sprintf("%s/datasets/%s/discussions/%d", h.URL, rp.name, d.num)
	pd := &payloadDiscussion{ID: d.id, Title: d.title, Status: d.status, Num: d.num, IsPullRequest: d.isPR,
		URL: payloadURL{Web: web, API: fmt.Sprintf("%s/api/datasets/%s/discussions/%d", h.URL, rp.name, d.num)}}
	if d.author != nil {
		pd.Author = payloadID{d.author.ID}
	}
	if d.isPR {
		pd.Changes = &payloadChanges{Base: "refs/heads/main", MergeCommitID: d.mergeCommit}
	}
	p := payload{Event: payloadEvent{action, scope}, Repo: h.repoJSONLocked(rp), Discussion: pd}
	if cm != nil {
		pc := &payloadComment{ID: cm.id, Author: payloadID{cm.author.ID}, Hidden: cm.hidden, URL: payloadURL{Web: web + "#" + cm.id}}
		if !cm.hidden {
			text := cm.latest.raw
			pc.Content = &text
		}
		p.Comment = pc
	}
	return p
}

type hook struct {
	id, url, secret string
	inQuery         bool
	watched         map[string]bool
	triggers        []time.Time
}

// Attempt is one try at a delivery.
type Attempt struct {
	Status int    // 0 when the request failed
	Err    string // the transport error, if any
}

// Delivery is one webhook trigger: its body, sent the same on each retry
// and replay (hf-hub.md §3.1 "Replay"), and what became of it.
type Delivery struct {
	ID       int
	Hook     string
	URL      string
	Secret   string
	Body     []byte
	Attempts []Attempt
	// Capped is set when the webhook had used its triggers for the day
	// (hf-hub.md §3.1 "Rate limit"): the delivery was never sent.
	Capped bool
}

// WebhookOptions configure AddWebhook.
type WebhookOptions struct {
	// SecretInQuery sends the secret as ?secret= instead of the header
	// (hf-hub.md §3.1 "Secret").
	SecretInQuery bool
}

// AddWebhook makes the Hub post the events of the watched datasets to
// target, with secret in X-Webhook-Secret.
func (h *Hub) AddWebhook(target, secret string, opt WebhookOptions, watched ...string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	hk := &hook{id: h.newIDLocked(), url: target, secret: secret, inQuery: opt.SecretInQuery, watched: map[string]bool{}}
	for _, w := range watched {
		hk.watched[w] = true
	}
	h.hooks = append(h.hooks, hk)
	return hk.id
}

// Hold queues deliveries until Send or Flush. By default the deliveries an
// action causes are sent before the call that caused it is answered, so a
// test sees them once the call returns; a webhook handler must then not
// wait on that caller (the Hub's own advice is to answer 2xx at once and
// work asynchronously, hf-hub.md §5).
func (h *Hub) Hold(on bool) {
	h.mu.Lock()
	h.hold = on
	h.mu.Unlock()
}

// emitLocked queues p for each webhook watching rp, within its daily cap.
func (h *Hub) emitLocked(rp *repo, p payload) {
	for _, hk := range h.hooks {
		if !hk.watched[rp.name] {
			continue
		}
		p.Webhook = payloadHook{ID: hk.id, Version: 3}
		body, err := json.Marshal(p)
		if err != nil {
			panic(err)
		}
		d := &Delivery{ID: len(h.sent) + len(h.queue) + 1, Hook: hk.id, URL: hk.url, Secret: hk.secret, Body: body}
		if hk.inQuery {
			d.URL = withSecret(hk.url, hk.secret)
			d.Secret = ""
		}
		var recent []time.Time
		for _, t := range hk.triggers {
			if h.clock.Sub(t) < 24*time.Hour {
				recent = append(recent, t)
			}
		}
		hk.triggers = recent
		if len(recent) >= h.TriggerCap {
			d.Capped = true
			h.sent = append(h.sent, d)
			continue
		}
		hk.triggers = append(hk.triggers, h.clock)
		h.queue = append(h.queue, d)
	}
}

func withSecret(target, secret string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	q := u.Query()
	q.Set("secret", secret)
	u.RawQuery = q.Encode()
	return u.String()
}

// deliverQueued sends the queue unless deliveries are held.
func (h *Hub) deliverQueued() {
	h.mu.Lock()
	if h.hold {
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	h.Flush()
}

// Pending is the queued deliveries, oldest first.
func (h *Hub) Pending() []*Delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*Delivery(nil), h.queue...)
}

// Deliveries is every delivery sent, or dropped by the cap, in order.
func (h *Hub) Deliveries() []*Delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*Delivery(nil), h.sent...)
}

// Flush sends every queued delivery in order.
func (h *Hub) Flush() {
	for {
		h.mu.Lock()
		if len(h.queue) == 0 {
			h.mu.Unlock()
			return
		}
		d := h.queue[0]
		h.queue = h.queue[1:]
		h.mu.Unlock()
		h.send(d)
	}
}

// Send sends the queued deliveries with these ids in the order given, so
// that a test can deliver the two events of a PR opening either way round
// (hf-hub.md §3.4: no order is guaranteed).
func (h *Hub) Send(ids ...int) error {
	for _, id := range ids {
		h.mu.Lock()
		var d *Delivery
		for i, q := range h.queue {
			if q.ID == id {
				d = q
				h.queue = append(h.queue[:i:i], h.queue[i+1:]...)
				break
			}
		}
		h.mu.Unlock()
		if d == nil {
			return fmt.Errorf("fakehub: no queued delivery %d", id)
		}
		h.send(d)
	}
	return nil
}

// Replay sends a sent delivery's body again, byte for byte, as the
// Activity tab's Replay button does. Whether a replay counts towards the
// daily cap is unknown; here it does not.
func (h *Hub) Replay(id int) error {
	h.mu.Lock()
	var d *Delivery
	for _, s := range h.sent {
		if s.ID == id {
			d = s
		}
	}
	if d == nil {
		h.mu.Unlock()
		return fmt.Errorf("fakehub: no sent delivery %d", id)
	}
	again := &Delivery{ID: len(h.sent) + len(h.queue) + 1, Hook: d.Hook, URL: d.URL, Secret: d.Secret, Body: d.Body}
	h.mu.Unlock()
	h.send(again)
	return nil
}

// send posts d, retrying after a non-2xx answer or a failure on the
// Retries schedule (hf-hub.md §3.1, huggingface/hub-docs#2773).
func (h *Hub) send(d *Delivery) {
	for i := 0; ; i++ {
		a := h.attempt(d)
		h.mu.Lock()
		d.Attempts = append(d.Attempts, a)
		retries := h.Retries
		h.mu.Unlock()
		if a.Status >= 200 && a.Status < 300 || i >= len(retries) {
			break
		}
		time.Sleep(retries[i])
	}
	h.mu.Lock()
	h.sent = append(h.sent, d)
	h.mu.Unlock()
}

func (h *Hub) attempt(d *Delivery) Attempt {
	h.mu.Lock()
	timeout := h.DeliveryTimeout
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return Attempt{Err: err.Error()}
	}
	// A JSON body and the secret; no event, signature or delivery header
	// (hf-hub.md §6 webhook side 1).
	req.Header.Set("Content-Type", "application/json")
	if d.Secret != "" {
		req.Header.Set("X-Webhook-Secret", d.Secret)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return Attempt{Err: err.Error()}
	}
	resp.Body.Close()
	return Attempt{Status: resp.StatusCode}
}
