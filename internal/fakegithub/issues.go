package fakegithub

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	docIssueComments = "https://docs.github.com/rest/issues/comments"
	docReactions     = "https://docs.github.com/rest/reactions/reactions"
	// GitHub refuses comment bodies longer than this many characters.
	maxCommentChars = 65536
)

// User is a comment author.
type User struct {
	Login string
	// Type is "Bot" for the App and "User" for people.
	Type string
}

// Comment is an issue (or pull request conversation) comment.
type Comment struct {
	ID    int64
	Issue int
	Body  string
	User  User
	// ViaApp is true for comments the App made (GitHub's
	// performed_via_github_app).
	ViaApp    bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CommentEvent records one comment mutation made through the API, so tests
// can assert e.g. that a run created one comment and then only edited it.
type CommentEvent struct {
	Op    string // "create", "edit" or "delete"
	Repo  string
	Issue int
	ID    int64
	Body  string
	Login string
}

// AddComment seeds a comment as if made earlier, by login of userType
// ("User" or "Bot"). A comment by AppSlug+"[bot]" counts as the App's own.
// Seeding is setup, so it is not recorded in CommentEvents.
func (s *Server) AddComment(repoName string, issue int, login, userType, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustRepoLocked(repoName)
	if userType == "" {
		userType = "User"
	}
	p.issues[issue] = true
	now := s.now().UTC().Truncate(time.Second)
	c := &Comment{
		ID: s.newIDLocked(), Issue: issue, Body: body,
		User:   User{Login: login, Type: userType},
		ViaApp: login == s.AppSlug+"[bot]", CreatedAt: now, UpdatedAt: now,
	}
	p.comments = append(p.comments, c)
	return c.ID
}

// Comments returns copies of the comments on one issue, oldest first.
func (s *Server) Comments(repoName string, issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.mustRepoLocked(repoName).comments {
		if c.Issue == issue {
			out = append(out, *c)
		}
	}
	return out
}

// CommentEvents returns every comment create, edit and delete made through
// the API, in order.
func (s *Server) CommentEvents() []CommentEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// Reactions returns the reactions made on the repository's issues and
// comments.
func (s *Server) Reactions(repoName string) []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.mustRepoLocked(repoName).reactions)
}

// issueFor finds the issue number in the path; PRs are issues too.
func (s *Server) issueFor(w http.ResponseWriter, r *http.Request, p *repo) (int, bool) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err == nil {
		if _, ok := p.pulls[n]; ok || p.issues[n] {
			return n, true
		}
	}
	writeError(w, http.StatusNotFound, "Not Found", docIssueComments)
	return 0, false
}

// appUser is who the installation token acts as.
func (s *Server) appUser() User { return User{Login: s.AppSlug + "[bot]", Type: "Bot"} }

func (s *Server) commentJSON(p *repo, c *Comment) map[string]any {
	assoc := "NONE"
	if role, ok := p.perms[strings.ToLower(c.User.Login)]; ok && role != "none" {
		assoc = "COLLABORATOR"
	}
	m := map[string]any{
		"id":                 c.ID,
		"node_id":            "IC_" + strconv.FormatInt(c.ID, 36),
		"url":                fmt.Sprintf("%srepos/%s/issues/comments/%d", s.URL, p.fullName(), c.ID),
		"html_url":           fmt.Sprintf("https://github.com/%s/issues/%d#issuecomment-%d", p.fullName(), c.Issue, c.ID),
		"issue_url":          fmt.Sprintf("%srepos/%s/issues/%d", s.URL, p.fullName(), c.Issue),
		"body":               c.Body,
		"user":               userJSON(c.User.Login, c.User.Type),
		"created_at":         c.CreatedAt.Format(time.RFC3339),
		"updated_at":         c.UpdatedAt.Format(time.RFC3339),
		"author_association": assoc,
	}
	if c.ViaApp {
		m["performed_via_github_app"] = s.appJSON()
	} else {
		m["performed_via_github_app"] = nil
	}
	return m
}

// handleListComments implements GET /repos/{owner}/{repo}/issues/{number}/comments
// (oldest first, paginated, optional since).
func (s *Server) handleListComments(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	n, ok := s.issueFor(w, r, p)
	if !ok {
		return
	}
	var since time.Time
	if v := r.URL.Query().Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			validationError(w, docIssueComments, "IssueComment", "since", "invalid", "since must be ISO 8601")
			return
		}
		since = t
	}
	var list []*Comment
	for _, c := range p.comments {
		if c.Issue == n && !c.UpdatedAt.Before(since) {
			list = append(list, c)
		}
	}
	page, _ := s.paginate(w, r, len(list))
	out := []map[string]any{}
	for _, c := range list[page.lo:page.hi] {
		out = append(out, s.commentJSON(p, c))
	}
	writeJSON(w, http.StatusOK, out)
}

type commentRequest struct {
	Body *string `json:"body"`
}

func (req *commentRequest) validate(w http.ResponseWriter) bool {
	switch {
	case req.Body == nil || *req.Body == "":
		validationError(w, docIssueComments, "IssueComment", "body", "missing_field", "body wasn't supplied.")
		return false
	case utf8.RuneCountInString(*req.Body) > maxCommentChars:
		validationError(w, docIssueComments, "IssueComment", "body", "custom", fmt.Sprintf("Body is too long (maximum is %d characters)", maxCommentChars))
		return false
	}
	return true
}

// handleCreateComment implements POST /repos/{owner}/{repo}/issues/{number}/comments.
func (s *Server) handleCreateComment(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	n, ok := s.issueFor(w, r, p)
	if !ok {
		return
	}
	var req commentRequest
	if !decodeBody(w, r, &req, docIssueComments) || !req.validate(w) {
		return
	}
	now := s.now().UTC().Truncate(time.Second)
	c := &Comment{ID: s.newIDLocked(), Issue: n, Body: *req.Body, User: s.appUser(), ViaApp: true, CreatedAt: now, UpdatedAt: now}
	p.comments = append(p.comments, c)
	s.events = append(s.events, CommentEvent{Op: "create", Repo: p.fullName(), Issue: n, ID: c.ID, Body: c.Body, Login: c.User.Login})
	writeJSON(w, http.StatusCreated, s.commentJSON(p, c))
}

func (p *repo) findComment(id string) (int, *Comment) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return -1, nil
	}
	for i, c := range p.comments {
		if c.ID == n {
			return i, c
		}
	}
	return -1, nil
}

// handleEditComment implements PATCH /repos/{owner}/{repo}/issues/comments/{id}.
func (s *Server) handleEditComment(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	_, c := p.findComment(r.PathValue("id"))
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found", docIssueComments)
		return
	}
	var req commentRequest
	if !decodeBody(w, r, &req, docIssueComments) || !req.validate(w) {
		return
	}
	c.Body = *req.Body
	c.UpdatedAt = s.now().UTC().Truncate(time.Second)
	s.events = append(s.events, CommentEvent{Op: "edit", Repo: p.fullName(), Issue: c.Issue, ID: c.ID, Body: c.Body, Login: s.appUser().Login})
	writeJSON(w, http.StatusOK, s.commentJSON(p, c))
}

// handleDeleteComment implements DELETE /repos/{owner}/{repo}/issues/comments/{id}.
func (s *Server) handleDeleteComment(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	i, c := p.findComment(r.PathValue("id"))
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found", docIssueComments)
		return
	}
	p.comments = slices.Delete(p.comments, i, i+1)
	s.events = append(s.events, CommentEvent{Op: "delete", Repo: p.fullName(), Issue: c.Issue, ID: c.ID, Login: s.appUser().Login})
	w.WriteHeader(http.StatusNoContent)
}

var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

// handleIssueReaction implements POST /repos/{owner}/{repo}/issues/{number}/reactions.
func (s *Server) handleIssueReaction(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	n, ok := s.issueFor(w, r, p)
	if !ok {
		return
	}
	s.react(w, r, p, Reaction{Issue: n})
}

// handleCommentReaction implements
// POST /repos/{owner}/{repo}/issues/comments/{id}/reactions.
func (s *Server) handleCommentReaction(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	_, c := p.findComment(r.PathValue("id"))
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found", docReactions)
		return
	}
	s.react(w, r, p, Reaction{CommentID: c.ID})
}

// react records a reaction; like GitHub it answers 200 with the existing
// reaction when the same user already reacted the same way, 201 otherwise.
func (s *Server) react(w http.ResponseWriter, r *http.Request, p *repo, target Reaction) {
	var req struct {
		Content *string `json:"content"`
	}
	if !decodeBody(w, r, &req, docReactions) {
		return
	}
	if req.Content == nil || !slices.Contains(reactionContents, *req.Content) {
		validationError(w, docReactions, "Reaction", "content", "invalid", "content must be one of "+strings.Join(reactionContents, ", "))
		return
	}
	target.Login = s.appUser().Login
	target.Content = *req.Content
	status := http.StatusCreated
	found := false
	for _, x := range p.reactions {
		if x.Issue == target.Issue && x.CommentID == target.CommentID && x.Login == target.Login && x.Content == target.Content {
			target, status, found = x, http.StatusOK, true
			break
		}
	}
	if !found {
		target.ID = s.newIDLocked()
		p.reactions = append(p.reactions, target)
	}
	writeJSON(w, status, map[string]any{
		"id": target.ID, "node_id": "REA_" + strconv.FormatInt(target.ID, 36),
		"user": userJSON(target.Login, "Bot"), "content": target.Content,
		"created_at": s.now().UTC().Format(time.RFC3339),
	})
}
