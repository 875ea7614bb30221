package fakehub

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Discussion statuses (hf-hub.md §1 "Statuses").
const (
	StatusDraft  = "draft"
	StatusOpen   = "open"
	StatusClosed = "closed"
	StatusMerged = "merged"
)

type discussion struct {
	id          string
	num         int
	title       string
	status      string
	isPR        bool
	author      *User
	created     time.Time
	events      []*event
	mergeCommit string
}

type version struct {
	raw     string
	updated time.Time
	author  *User
}

// event is one entry of a discussion's details (hf-hub.md §2.2).
type event struct {
	id      string
	typ     string // comment, commit, status-change, title-change
	created time.Time
	author  *User
	// comment
	latest  version
	history []version
	edited  bool
	hidden  bool
	// commit
	subject, oid string
	// status-change
	status string
	// title-change
	from, to string
}

func (d *discussion) ref() string { return fmt.Sprintf("refs/pr/%d", d.num) }

func authorJSON(u *User, rp *repo) map[string]any {
	if u == nil {
		return nil
	}
	// The fields of a real response (hf-hub.md §2.2, huggingface_hub#1830).
	return map[string]any{
		"name": u.Name, "fullname": u.Name, "avatarUrl": "/avatars/" + u.ID + ".svg", "type": "user",
		"isPro": false, "isHf": false, "isOwner": rp.owner == u, "isOrgMember": rp.writers[u.Name],
	}
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (e *event) json(rp *repo) map[string]any {
	out := map[string]any{"id": e.id, "type": e.typ, "createdAt": stamp(e.created), "author": authorJSON(e.author, rp)}
	switch e.typ {
	case "comment":
		hist := []any{}
		for _, v := range e.history {
			hist = append(hist, map[string]any{"raw": v.raw, "html": "<p>" + html.EscapeString(v.raw) + "</p>",
				"updatedAt": stamp(v.updated), "author": map[string]any{"name": v.author.Name}})
		}
		out["data"] = map[string]any{"edited": e.edited, "hidden": e.hidden, "history": hist,
			"latest": map[string]any{"raw": e.latest.raw, "html": "<p>" + html.EscapeString(e.latest.raw) + "</p>",
				"updatedAt": stamp(e.latest.updated), "author": map[string]any{"name": e.latest.author.Name}}}
	case "commit":
		out["data"] = map[string]any{"subject": e.subject, "oid": e.oid}
	case "status-change":
		out["data"] = map[string]any{"status": e.status}
	case "title-change":
		out["data"] = map[string]any{"from": e.from, "to": e.to}
	}
	return out
}

func (h *Hub) addEventLocked(d *discussion, e *event) *event {
	e.id = h.newIDLocked()
	e.created = h.now()
	d.events = append(d.events, e)
	return e
}

func (h *Hub) newCommentLocked(d *discussion, u *User, text string) *event {
	return h.addEventLocked(d, &event{typ: "comment", author: u, latest: version{text, h.now(), u}})
}

// conflicts is the conflicting paths of an open PR against main.
func (rp *repo) conflicts(d *discussion) []string {
	if !d.isPR || d.status == StatusMerged || d.status == StatusClosed {
		return nil
	}
	_, c := rp.threeWay(rp.refs[d.ref()], rp.refs["refs/heads/main"])
	return c
}

func (h *Hub) discussionJSONLocked(rp *repo, d *discussion, withDiff bool) map[string]any {
	out := map[string]any{
		"num": d.num, "title": d.title, "status": d.status, "isPullRequest": d.isPR,
		"createdAt": stamp(d.created), "author": authorJSON(d.author, rp),
		"repo": map[string]any{"name": rp.name, "type": "dataset"},
	}
	if d.author == nil {
		delete(out, "author")
	}
	evs := []any{}
	for _, e := range d.events {
		evs = append(evs, e.json(rp))
	}
	out["events"] = evs
	if d.isPR {
		ch := map[string]any{"base": "refs/heads/main"}
		if d.mergeCommit != "" {
			ch["mergeCommitId"] = d.mergeCommit
		}
		out["changes"] = ch
		conf := rp.conflicts(d)
		if h.ConflictsAsBool && len(conf) > 0 {
			out["filesWithConflicts"] = true
		} else {
			out["filesWithConflicts"] = append([]string{}, conf...)
		}
		if withDiff {
			out["diff"] = rp.diffText(d)
		}
	}
	return out
}

// diffText renders the file headers of the PR's changes against its merge
// base. How the Hub renders hunks is unknown (hf-hub.md §10), so no hunk
// is rendered: nothing should be read from it but the paths.
func (rp *repo) diffText(d *discussion) string {
	head := rp.commits[rp.refs[d.ref()]]
	base := rp.mergeBase(head.sha, rp.refs["refs/heads/main"])
	var b strings.Builder
	for _, p := range changedPaths(base.files, head.files) {
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", p, p)
		switch _, inBase := base.files[p]; {
		case !inBase:
			b.WriteString("new file mode 100644\n")
		case !inHead(head, p):
			b.WriteString("deleted file mode 100644\n")
		}
	}
	return b.String()
}

func inHead(c *commit, p string) bool {
	_, ok := c.files[p]
	return ok
}

func (h *Hub) discussionLocked(w http.ResponseWriter, r *http.Request, rp *repo) (*discussion, bool) {
	n, err := strconv.Atoi(r.PathValue("num"))
	if err != nil || n < 1 || n > len(rp.discs) {
		hubError(w, http.StatusNotFound, "", "Discussion not found")
		return nil, false
	}
	return rp.discs[n-1], true
}

func (h *Hub) handleListDiscussions(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rp, _, ok := h.repoForLocked(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	typ, status, author := q.Get("type"), q.Get("status"), q.Get("author")
	if typ == "" {
		typ = "all"
	}
	if status == "" {
		status = "all"
	}
	if !slices.Contains([]string{"all", "discussion", "pull_request"}, typ) || !slices.Contains([]string{"all", "open", "closed"}, status) {
		hubError(w, http.StatusBadRequest, "", "Invalid type or status filter")
		return
	}
	var all []*discussion
	// Newest first, as the Hub lists them.
	for _, d := range slices.Backward(rp.discs) {
		if (typ == "pull_request" && !d.isPR) || (typ == "discussion" && d.isPR) {
			continue
		}
		// The "closed" filter takes merged PRs too; whether "open" takes
		// drafts is unknown (hf-hub.md §10): here it does not.
		if (status == "open" && d.status != StatusOpen) || (status == "closed" && d.status != StatusClosed && d.status != StatusMerged) {
			continue
		}
		if author != "" && (d.author == nil || d.author.Name != author) {
			continue
		}
		all = append(all, d)
	}
	p, _ := strconv.Atoi(q.Get("p"))
	lo := min(max(p, 0)*h.DiscussionsPageSize, len(all))
	hi := min(lo+h.DiscussionsPageSize, len(all))
	items := []any{}
	for _, d := range all[lo:hi] {
		m := map[string]any{"num": d.num, "title": d.title, "status": d.status, "isPullRequest": d.isPR,
			"createdAt": stamp(d.created), "repo": map[string]any{"name": rp.name, "type": "dataset"}}
		if d.author != nil {
			m["author"] = authorJSON(d.author, rp)
		}
		items = append(items, m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"discussions": items, "count": len(all), "start": lo})
}

func (h *Hub) handleGetDiscussion(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rp, _, ok := h.repoForLocked(w, r)
	if !ok {
		return
	}
	d, ok := h.discussionLocked(w, r, rp)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, h.discussionJSONLocked(rp, d, r.URL.Query().Get("diff") == "1"))
}

// decodeJSON reads a request body strictly.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if r.ContentLength == 0 {
		return true
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		hubError(w, http.StatusBadRequest, "", "Invalid JSON body: "+err.Error())
		return false
	}
	return true
}

// needToken refuses an anonymous caller or a read token on a write
// endpoint (hf-hub.md §2.1: 403 when the token lacks the permission).
func needToken(w http.ResponseWriter, c caller) bool {
	if c.user == nil {
		hubError(w, http.StatusUnauthorized, "", "You must be authenticated to do this")
		return false
	}
	if c.role != RoleWrite {
		hubError(w, http.StatusForbidden, "", "This token has no write permission")
		return false
	}
	return true
}

func (h *Hub) handleCreateDiscussion(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	rp, c, ok := h.repoForLocked(w, r)
	if !ok || !needToken(w, c) {
		h.mu.Unlock()
		return
	}
	var body struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		PullRequest bool   `json:"pullRequest"`
	}
	if !decodeJSON(w, r, &body) {
		h.mu.Unlock()
		return
	}
	if t := strings.TrimSpace(body.Title); len(t) < 3 || len(t) > 200 {
		h.mu.Unlock()
		hubError(w, http.StatusBadRequest, "", "Title must be between 3 and 200 characters")
		return
	}
	// An empty PR starts as a draft (hf-hub.md §1).
	d := h.openDiscussionLocked(rp, c.user, strings.TrimSpace(body.Title), body.Description, body.PullRequest, StatusDraft, nil)
	out := h.discussionJSONLocked(rp, d, false)
	h.mu.Unlock()
	h.deliverQueued()
	writeJSON(w, http.StatusOK, out)
}

// openDiscussionLocked creates discussion or PR N; a PR gets refs/pr/N at
// main's head, and the events of hf-hub.md §3.4 "PR opened" are queued.
// files, when not nil, are the PR's first commit.
func (h *Hub) openDiscussionLocked(rp *repo, u *User, title, description string, pr bool, status string, files map[string]blob) *discussion {
	rp.numCount++
	d := &discussion{id: h.newIDLocked(), num: rp.numCount, title: title, isPR: pr, author: u, created: h.now(), status: StatusOpen}
	if pr {
		d.status = status
	}
	rp.discs = append(rp.discs, d)
	first := h.newCommentLocked(d, u, description)
	h.emitLocked(rp, h.discussionPayloadLocked(rp, d, "create", "discussion", first))
	if !pr {
		return d
	}
	head := rp.refs["refs/heads/main"]
	if files != nil {
		// One commit on top of main, created with the ref: one repo.content
		// delivery with oldSha null (hf-hub.md §3.4 "PR opened").
		for _, b := range files {
			if b.lfs {
				h.lfs[sha256Hex(b.content)] = b.content
			}
		}
		k := h.newCommitLocked(rp, []string{head}, files, title, description, u.Name)
		h.addEventLocked(d, &event{typ: "commit", author: u, subject: title, oid: k.sha})
		head = k.sha
	}
	h.moveRefLocked(rp, d.ref(), head)
	return d
}

func (h *Hub) handleComment(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	rp, c, ok := h.repoForLocked(w, r)
	if !ok || !needToken(w, c) {
		h.mu.Unlock()
		return
	}
	d, ok := h.discussionLocked(w, r, rp)
	if !ok {
		h.mu.Unlock()
		return
	}
	var body struct {
		Comment string `json:"comment"`
	}
	if !decodeJSON(w, r, &body) {
		h.mu.Unlock()
		return
	}
	if strings.TrimSpace(body.Comment) == "" {
		h.mu.Unlock()
		hubError(w, http.StatusBadRequest, "", "Comment must not be empty")
		return
	}
	e := h.newCommentLocked(d, c.user, body.Comment)
	// The poster's own comment comes back as an event (hf-hub.md §6 webhook side 5).
	h.emitLocked(rp, h.discussionPayloadLocked(rp, d, "create", "discussion.comment", e))
	out := map[string]any{"newMessage": e.json(rp)}
	h.mu.Unlock()
	h.deliverQueued()
	writeJSON(w, http.StatusOK, out)
}

func (h *Hub) commentLocked(w http.ResponseWriter, r *http.Request, d *discussion) (*event, bool) {
	id := r.PathValue("id")
	for _, e := range d.events {
		if e.typ == "comment" && e.id == id {
			return e, true
		}
	}
	hubError(w, http.StatusNotFound, "", "Comment not found")
	return nil, false
}

func (h *Hub) handleEditComment(w http.ResponseWriter, r *http.Request) {
	h.commentAction(w, r, func(rp *repo, d *discussion, e *event, c caller) (int, string) {
		var body struct {
			Content string `json:"content"`
		}
		if !decodeJSON(w, r, &body) {
			return -1, ""
		}
		if e.author != c.user && !c.canWrite(rp) {
			return http.StatusForbidden, "You cannot edit this comment"
		}
		if e.hidden {
			return http.StatusBadRequest, "Cannot edit a hidden comment"
		}
		if strings.TrimSpace(body.Content) == "" {
			return http.StatusBadRequest, "Comment must not be empty"
		}
		// Each edit keeps the previous text in the public history (hf-hub.md §5 "Verdict surface").
		e.history = append([]version{e.latest}, e.history...)
		e.latest = version{body.Content, h.now(), c.user}
		e.edited = true
		return 0, ""
	})
}

func (h *Hub) handleHideComment(w http.ResponseWriter, r *http.Request) {
	h.commentAction(w, r, func(rp *repo, d *discussion, e *event, c caller) (int, string) {
		if e.author != c.user && !c.canWrite(rp) {
			return http.StatusForbidden, "You cannot hide this comment"
		}
		// Hiding is irreversible and the content unrecoverable (hf-hub.md §2.5).
		e.hidden = true
		e.latest.raw = ""
		e.history = nil
		return 0, ""
	})
}

func (h *Hub) commentAction(w http.ResponseWriter, r *http.Request, act func(*repo, *discussion, *event, caller) (int, string)) {
	h.mu.Lock()
	rp, c, ok := h.repoForLocked(w, r)
	if !ok || !needToken(w, c) {
		h.mu.Unlock()
		return
	}
	d, ok := h.discussionLocked(w, r, rp)
	if !ok {
		h.mu.Unlock()
		return
	}
	e, ok := h.commentLocked(w, r, d)
	if !ok {
		h.mu.Unlock()
		return
	}
	if status, msg := act(rp, d, e, c); status != 0 {
		h.mu.Unlock()
		if status > 0 {
			hubError(w, status, "", msg)
		}
		return
	}
	h.emitLocked(rp, h.discussionPayloadLocked(rp, d, "update", "discussion.comment", e))
	out := map[string]any{"updatedComment": e.json(rp)}
	h.mu.Unlock()
	h.deliverQueued()
	writeJSON(w, http.StatusOK, out)
}

func (h *Hub) handleStatus(w http.ResponseWriter, r *http.Request) {
	h.discussionAction(w, r, func(rp *repo, d *discussion, c caller) (int, string, any) {
		var body struct {
			Status  string `json:"status"`
			Comment string `json:"comment,omitempty"`
		}
		if !decodeJSON(w, r, &body) {
			return -1, "", nil
		}
		// The API sets only open or closed (hf-hub.md §1 "Statuses").
		if body.Status != StatusOpen && body.Status != StatusClosed {
			return http.StatusBadRequest, "status must be 'open' or 'closed'", nil
		}
		if d.author != c.user && !c.canWrite(rp) {
			return http.StatusForbidden, "You cannot change the status of this discussion", nil
		}
		if d.status == StatusDraft && d.author != c.user {
			return http.StatusForbidden, "Only the author can publish a draft", nil
		}
		if d.status == StatusMerged {
			return http.StatusBadRequest, "This pull request is already merged", nil
		}
		if d.status == body.Status {
			return http.StatusBadRequest, "The discussion is already " + body.Status, nil
		}
		d.status = body.Status
		e := h.addEventLocked(d, &event{typ: "status-change", author: c.user, status: body.Status})
		var cm *event
		if strings.TrimSpace(body.Comment) != "" {
			cm = h.newCommentLocked(d, c.user, body.Comment)
		}
		h.emitLocked(rp, h.discussionPayloadLocked(rp, d, "update", "discussion", cm))
		return 0, "", map[string]any{"newStatus": e.json(rp)}
	})
}

func (h *Hub) handleTitle(w http.ResponseWriter, r *http.Request) {
	h.discussionAction(w, r, func(rp *repo, d *discussion, c caller) (int, string, any) {
		var body struct {
			Title string `json:"title"`
		}
		if !decodeJSON(w, r, &body) {
			return -1, "", nil
		}
		t := strings.TrimSpace(body.Title)
		if len(t) < 3 || len(t) > 200 {
			return http.StatusBadRequest, "Title must be between 3 and 200 characters", nil
		}
		if d.author != c.user && !c.canWrite(rp) {
			return http.StatusForbidden, "You cannot rename this discussion", nil
		}
		e := h.addEventLocked(d, &event{typ: "title-change", author: c.user, from: d.title, to: t})
		d.title = t
		h.emitLocked(rp, h.discussionPayloadLocked(rp, d, "update", "discussion", nil))
		return 0, "", map[string]any{"newTitle": e.json(rp)}
	})
}

func (h *Hub) handleMerge(w http.ResponseWriter, r *http.Request) {
	h.discussionAction(w, r, func(rp *repo, d *discussion, c caller) (int, string, any) {
		var body struct {
			Comment string `json:"comment,omitempty"`
		}
		if !decodeJSON(w, r, &body) {
			return -1, "", nil
		}
		// Merging takes write access (hf-hub.md §2.5 "Who may merge").
		if !c.canWrite(rp) {
			return http.StatusForbidden, "You need write access to merge this pull request", nil
		}
		if !d.isPR {
			return h.MergeRefusedStatus, "This discussion is not a pull request", nil
		}
		if d.status != StatusOpen {
			return h.MergeRefusedStatus, "This pull request is " + d.status + " and cannot be merged", nil
		}
		mainHead := rp.refs["refs/heads/main"]
		files, conflicts := rp.threeWay(rp.refs[d.ref()], mainHead)
		if len(conflicts) > 0 {
			return h.MergeRefusedStatus, "This pull request has conflicts: " + strings.Join(conflicts, ", "), nil
		}
		mc := h.newCommitLocked(rp, []string{mainHead, rp.refs[d.ref()]}, files, "Merge pull request #"+strconv.Itoa(d.num), d.title, c.user.Name)
		d.status = StatusMerged
		d.mergeCommit = mc.sha
		h.addEventLocked(d, &event{typ: "status-change", author: c.user, status: StatusMerged})
		var cm *event
		if strings.TrimSpace(body.Comment) != "" {
			cm = h.newCommentLocked(d, c.user, body.Comment)
		}
		// hf-hub.md §3.4 "merge": the status change and main's new head.
		h.emitLocked(rp, h.discussionPayloadLocked(rp, d, "update", "discussion", cm))
		h.moveRefLocked(rp, "refs/heads/main", mc.sha)
		return 0, "", map[string]any{}
	})
}

func (h *Hub) discussionAction(w http.ResponseWriter, r *http.Request, act func(*repo, *discussion, caller) (int, string, any)) {
	h.mu.Lock()
	rp, c, ok := h.repoForLocked(w, r)
	if !ok || !needToken(w, c) {
		h.mu.Unlock()
		return
	}
	d, ok := h.discussionLocked(w, r, rp)
	if !ok {
		h.mu.Unlock()
		return
	}
	status, msg, out := act(rp, d, c)
	h.mu.Unlock()
	if status != 0 {
		if status > 0 {
			hubError(w, status, "", msg)
		}
		return
	}
	h.deliverQueued()
	writeJSON(w, http.StatusOK, out)
}
