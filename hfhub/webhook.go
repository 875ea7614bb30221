package hfhub

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// SecretHeader carries a webhook's secret verbatim: no HMAC, no
// timestamp, no delivery id (hf-hub.md §3.1 "Secret").
const SecretHeader = "X-Webhook-Secret"

// Webhook authentication failures.
var (
	ErrNoSecret  = errors.New("hfhub: webhook: no " + SecretHeader + " header")
	ErrBadSecret = errors.New("hfhub: webhook: the secret matches none configured")
)

// VerifySecret checks the delivery's X-Webhook-Secret against each of the
// configured secrets (several, so that one can be rotated) in constant
// time: both sides are hashed first so that neither the content nor the
// length of a secret shows in the time taken (hf-hub.md §5 "Webhook
// authenticity"). The ?secret= form the Hub's docs offer is not read:
// query strings end up in access logs.
func VerifySecret(r *http.Request, secrets []string) error {
	got := r.Header.Values(SecretHeader)
	if len(got) == 0 {
		return ErrNoSecret
	}
	if len(got) > 1 {
		return ErrBadSecret
	}
	g := sha256.Sum256([]byte(got[0]))
	ok := 0
	for _, s := range secrets {
		if s == "" {
			continue
		}
		w := sha256.Sum256([]byte(s))
		ok |= subtle.ConstantTimeCompare(g[:], w[:])
	}
	if ok != 1 {
		return ErrBadSecret
	}
	return nil
}

// Webhook scopes (hf-hub.md §3.2). A narrower scope than these, unknown
// to this client, is kept as it came; Broad maps it to its known parent.
const (
	ScopeRepo              = "repo"
	ScopeRepoContent       = "repo.content"
	ScopeRepoConfig        = "repo.config"
	ScopeDiscussion        = "discussion"
	ScopeDiscussionComment = "discussion.comment"
)

// WebhookRepo is the payload's repo.
type WebhookRepo struct {
	Type, Name, ID string
	Private        bool
	OwnerID        string
	// HeadSha is main's head; sent only on repo scopes.
	HeadSha string
}

// WebhookDiscussion is the payload's discussion. Its author is an id only.
type WebhookDiscussion struct {
	ID            string
	Num           int
	Title         string
	Status        Status
	AuthorID      string
	IsPullRequest bool
	Base          string
	MergeCommitID string
}

// WebhookComment is the payload's comment. A hidden comment has no
// content.
type WebhookComment struct {
	ID       string
	AuthorID string
	Content  string
	Hidden   bool
}

// RefUpdate is one of updatedRefs; Old is "" when the ref was created and
// New "" when it was deleted.
type RefUpdate struct {
	Ref, Old, New string
}

// Webhook is a validated delivery (hf-hub.md §3.2). It is a hint: the
// state it describes should be read back from the API.
type Webhook struct {
	Action, Scope string
	Repo          WebhookRepo
	Discussion    *WebhookDiscussion
	Comment       *WebhookComment
	UpdatedRefs   []RefUpdate
	HookID        string
}

// Broad is the scope this client knows that the delivery's scope falls
// under: "discussion.comment.reaction" would be "discussion.comment".
func (w *Webhook) Broad() string {
	s := w.Scope
	for {
		switch s {
		case ScopeRepo, ScopeRepoContent, ScopeRepoConfig, ScopeDiscussion, ScopeDiscussionComment:
			return s
		}
		i := strings.LastIndexByte(s, '.')
		if i < 0 {
			return s
		}
		s = s[:i]
	}
}

// PRRef is the number of a refs/pr/N ref, or 0.
func PRRef(ref string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(ref, "refs/pr/"))
	if !strings.HasPrefix(ref, "refs/pr/") || err != nil || n < 1 || strconv.Itoa(n) != strings.TrimPrefix(ref, "refs/pr/") {
		return 0
	}
	return n
}

type rawID struct {
	ID *string `json:"id"`
}

type rawWebhook struct {
	Event *struct {
		Action *string `json:"action"`
		Scope  *string `json:"scope"`
	} `json:"event"`
	Repo *struct {
		Type    *string `json:"type"`
		Name    *string `json:"name"`
		ID      *string `json:"id"`
		Private *bool   `json:"private"`
		Owner   *rawID  `json:"owner"`
		HeadSha *string `json:"headSha"`
	} `json:"repo"`
	Discussion *struct {
		ID            *string `json:"id"`
		Num           *int    `json:"num"`
		Title         *string `json:"title"`
		Status        *string `json:"status"`
		Author        *rawID  `json:"author"`
		IsPullRequest *bool   `json:"isPullRequest"`
		Changes       *struct {
			Base          *string `json:"base"`
			MergeCommitID *string `json:"mergeCommitId"`
		} `json:"changes"`
	} `json:"discussion"`
	Comment *struct {
		ID      *string `json:"id"`
		Author  *rawID  `json:"author"`
		Content *string `json:"content"`
		Hidden  *bool   `json:"hidden"`
	} `json:"comment"`
	UpdatedRefs []struct {
		Ref    *string `json:"ref"`
		OldSha *string `json:"oldSha"`
		NewSha *string `json:"newSha"`
	} `json:"updatedRefs"`
	Webhook *struct {
		ID      *string `json:"id"`
		Version *int    `json:"version"`
	} `json:"webhook"`
}

var (
	scopeRE  = regexp.MustCompile(`^[a-z]+(\.[a-z]+)*$`)
	objectRE = regexp.MustCompile(`^[0-9a-f]{24}$`)
)

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// DeliveryKey names a delivery for deduplication. The Hub sends no
// delivery id, and a retry or a replay resends the same body byte for
// byte (hf-hub.md §3.1 "Replay", §5 "Idempotency"), so the body's sha256
// is the key. Distinct events that mean the same work, such as the two
// deliveries of a PR opening, differ here: dedupe them by (PR, head).
func DeliveryKey(body []byte) string {
	s := sha256.Sum256(body)
	return hex.EncodeToString(s[:])
}

// MaxWebhookBody bounds a delivery's body.
const MaxWebhookBody = 1 << 20

// ParseWebhook reads a delivery's body strictly into a Webhook: the
// fields of hf-hub.md §3.2 that its scope requires must be there with
// their types (ids of 24 hex digits, shas of 40, webhook.version 3).
// Fields the Hub adds are ignored.
func ParseWebhook(body []byte) (*Webhook, error) {
	if len(body) > MaxWebhookBody {
		return nil, fmt.Errorf("hfhub: webhook: body over %d bytes", MaxWebhookBody)
	}
	var r rawWebhook
	if err := decodeStrict(body, &r); err != nil {
		return nil, fmt.Errorf("hfhub: webhook: %v", err)
	}
	bad := func(format string, args ...any) (*Webhook, error) {
		return nil, fmt.Errorf("hfhub: webhook: "+format, args...)
	}
	if r.Webhook == nil || r.Webhook.ID == nil || r.Webhook.Version == nil {
		return bad("no webhook.id or webhook.version")
	}
	if *r.Webhook.Version != 3 {
		return bad("webhook.version %d: only version 3 is read", *r.Webhook.Version)
	}
	if r.Event == nil || r.Event.Action == nil || r.Event.Scope == nil {
		return bad("no event.action or event.scope")
	}
	w := &Webhook{Action: *r.Event.Action, Scope: *r.Event.Scope, HookID: *r.Webhook.ID}
	switch w.Action {
	case "create", "delete", "update", "move":
	default:
		return bad("event.action %q is none of create, delete, update, move", w.Action)
	}
	if !scopeRE.MatchString(w.Scope) {
		return bad("event.scope %q", clip(w.Scope))
	}
	if r.Repo == nil || r.Repo.Type == nil || r.Repo.Name == nil || r.Repo.ID == nil || r.Repo.Owner == nil || r.Repo.Owner.ID == nil {
		return bad("repo needs type, name, id and owner.id")
	}
	w.Repo = WebhookRepo{Type: *r.Repo.Type, Name: *r.Repo.Name, ID: *r.Repo.ID, OwnerID: *r.Repo.Owner.ID, HeadSha: str(r.Repo.HeadSha)}
	if r.Repo.Private != nil {
		w.Repo.Private = *r.Repo.Private
	}
	switch {
	case w.Repo.Type != "dataset" && w.Repo.Type != "model" && w.Repo.Type != "space":
		return bad("repo.type %q", w.Repo.Type)
	case !repoRE.MatchString(w.Repo.Name):
		return bad("repo.name %q is not namespace/name", clip(w.Repo.Name))
	case w.Repo.HeadSha != "" && !shaRE.MatchString(w.Repo.HeadSha):
		return bad("repo.headSha %q is not a sha", clip(w.Repo.HeadSha))
	}
	broad := w.Broad()
	if strings.HasPrefix(broad, ScopeDiscussion) {
		d := r.Discussion
		if d == nil || d.ID == nil || d.Num == nil || d.Status == nil || d.Author == nil || d.Author.ID == nil || d.IsPullRequest == nil {
			return bad("a %s event needs discussion.id, num, status, author.id and isPullRequest", w.Scope)
		}
		st, err := parseStatus(*d.Status)
		if err != nil {
			return bad("discussion.%v", err)
		}
		if *d.Num < 1 || !objectRE.MatchString(*d.ID) {
			return bad("discussion.num %d or id %q", *d.Num, clip(*d.ID))
		}
		w.Discussion = &WebhookDiscussion{ID: *d.ID, Num: *d.Num, Title: str(d.Title), Status: st,
			AuthorID: *d.Author.ID, IsPullRequest: *d.IsPullRequest}
		if d.Changes != nil {
			w.Discussion.Base = str(d.Changes.Base)
			w.Discussion.MergeCommitID = str(d.Changes.MergeCommitID)
		}
		if *d.IsPullRequest && w.Discussion.Base == "" {
			return bad("a pull request's discussion needs changes.base")
		}
	}
	if broad == ScopeDiscussionComment && r.Comment == nil {
		return bad("a %s event needs a comment", w.Scope)
	}
	if c := r.Comment; c != nil {
		if c.ID == nil || c.Author == nil || c.Author.ID == nil || c.Hidden == nil {
			return bad("comment needs id, author.id and hidden")
		}
		if !objectRE.MatchString(*c.ID) {
			return bad("comment.id %q", clip(*c.ID))
		}
		// A hidden comment comes without content (hf-hub.md §3.2).
		if !*c.Hidden && c.Content == nil {
			return bad("a comment that is not hidden needs content")
		}
		w.Comment = &WebhookComment{ID: *c.ID, AuthorID: *c.Author.ID, Content: str(c.Content), Hidden: *c.Hidden}
	}
	for i, u := range r.UpdatedRefs {
		if u.Ref == nil || !strings.HasPrefix(*u.Ref, "refs/") {
			return bad("updatedRefs[%d].ref is not a ref", i)
		}
		ru := RefUpdate{Ref: *u.Ref, Old: str(u.OldSha), New: str(u.NewSha)}
		for _, s := range []string{ru.Old, ru.New} {
			if s != "" && !shaRE.MatchString(s) {
				return bad("updatedRefs[%d]: %q is not a sha", i, clip(s))
			}
		}
		if ru.Old == "" && ru.New == "" {
			return bad("updatedRefs[%d]: neither oldSha nor newSha", i)
		}
		w.UpdatedRefs = append(w.UpdatedRefs, ru)
	}
	return w, nil
}
