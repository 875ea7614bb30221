package fakegithub

import (
	"fmt"
	"net/http"
	"strings"
)

// handleCreatePull implements POST /repos/{owner}/{repo}/pulls, as the
// App does to propose a leaderboard update on a protected branch. Like
// GitHub, it refuses a second open pull request for the same head and base.
func (s *Server) handleCreatePull(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	var in struct {
		Title, Head, Base, Body string
	}
	const doc = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"
	if !decodeBody(w, r, &in, doc) {
		return
	}
	if in.Title == "" || in.Head == "" || in.Base == "" {
		validationError(w, doc, "PullRequest", "title", "missing_field", "title, head and base are required")
		return
	}
	head := in.Head
	if owner, branch, ok := strings.Cut(in.Head, ":"); ok {
		if !strings.EqualFold(owner, p.owner) {
			validationError(w, doc, "PullRequest", "head", "invalid", "head must be a branch of this repository")
			return
		}
		head = branch
	}
	next := 1
	for n, pr := range p.pulls {
		if pr.State == "open" && pr.HeadRef == head && pr.BaseRef == in.Base {
			validationError(w, doc, "PullRequest", "head", "custom", fmt.Sprintf("A pull request already exists for %s:%s.", p.owner, head))
			return
		}
		next = max(next, n+1)
	}
	pr := &PR{Number: next, Title: in.Title, Body: in.Body, State: "open", Author: s.AppSlug + "[bot]", HeadRef: head, HeadRepo: p.fullName(),
		BaseRef: in.Base, BaseSHA: p.branches[in.Base], HeadSHA: fakeSHA("created", p.fullName(), head, fmt.Sprint(next))}
	p.pulls[next] = pr
	writeJSON(w, http.StatusCreated, s.prJSON(p, pr, true))
}
