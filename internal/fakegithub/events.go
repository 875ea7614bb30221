package fakegithub

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// PullRequestEvent is the body of the pull_request webhook delivery
// GitHub sends for action on pull request number as it stands, shaped as
// GitHub's webhook documentation gives it: action, number, the pull
// request, the repository, the installation (when the App is installed
// on the repository) and the sender. changes, when not nil, is the
// delivery's changes object (action "edited").
func (s *Server) PullRequestEvent(repoName, action string, number int, changes map[string]any) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustRepoLocked(repoName)
	pr, ok := p.pulls[number]
	if !ok {
		panic(fmt.Sprintf("fakegithub: %s has no pull request #%d", repoName, number))
	}
	return s.pullRequestEventLocked(p, pr, action, changes)
}

func (s *Server) pullRequestEventLocked(p *repo, pr *PR, action string, changes map[string]any) []byte {
	ev := map[string]any{
		"action":       action,
		"number":       pr.Number,
		"pull_request": s.prJSON(p, pr, true),
		"repository":   s.repoJSON(p),
		"sender":       userJSON(pr.Author, "User"),
	}
	if changes != nil {
		ev["changes"] = changes
	}
	if inst, ok := s.installationOfLocked(p); ok {
		ev["installation"] = map[string]any{"id": inst, "node_id": fmt.Sprintf("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u%d", inst)}
	}
	out, err := json.Marshal(ev)
	if err != nil {
		panic(err)
	}
	return out
}

// installationOfLocked is the installation of the App on p, if any.
func (s *Server) installationOfLocked(p *repo) (int64, bool) {
	ids := make([]int64, 0, len(s.installations))
	for id := range s.installations {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		for _, r := range s.installations[id] {
			if r == strings.ToLower(p.fullName()) {
				return id, true
			}
		}
	}
	return 0, false
}

// Retarget changes the base branch of pull request number to base, as
// the "Edit" button beside a pull request's title does, and returns the
// pull_request "edited" delivery GitHub sends for it: its changes object
// holds the base's former ref and sha (changes.base.ref.from,
// changes.base.sha.from). The head commit stays; the pull request's
// files become what the head changes against the new base.
func (s *Server) Retarget(repoName string, number int, base string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustRepoLocked(repoName)
	pr, ok := p.pulls[number]
	if !ok {
		panic(fmt.Sprintf("fakegithub: %s has no pull request #%d", repoName, number))
	}
	sha, ok := p.branches[base]
	if !ok {
		panic("fakegithub: no branch " + base + " to retarget to")
	}
	head, _ := p.snapshot(pr.HeadSHA)
	fromRef, fromSHA := pr.BaseRef, pr.BaseSHA
	baseTree, _ := p.snapshot(base)
	pr.BaseRef, pr.BaseSHA, pr.Files = base, sha, treeDiff(baseTree, head)
	s.touchLocked(pr)
	changes := map[string]any{"base": map[string]any{"ref": map[string]any{"from": fromRef}, "sha": map[string]any{"from": fromSHA}}}
	return s.pullRequestEventLocked(p, pr, "edited", changes)
}

// ClosePR closes pull request number, merging it when merged, as the
// pull request's buttons do, and returns the pull_request "closed"
// delivery GitHub sends for it (state closed, closed_at, merged).
func (s *Server) ClosePR(repoName string, number int, merged bool) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustRepoLocked(repoName)
	pr, ok := p.pulls[number]
	if !ok {
		panic(fmt.Sprintf("fakegithub: %s has no pull request #%d", repoName, number))
	}
	s.touchLocked(pr)
	pr.State, pr.Merged = "closed", merged
	return s.pullRequestEventLocked(p, pr, "closed", nil)
}

// touchLocked sets pr's updated_at to now, later than its last change, as
// GitHub's clock makes it, even when a test makes two within a second.
func (s *Server) touchLocked(pr *PR) {
	last := pr.Created
	if pr.Updated.After(last) {
		last = pr.Updated
	}
	pr.Updated = s.now().UTC().Truncate(time.Second)
	if !pr.Updated.After(last) {
		pr.Updated = last.Add(time.Second)
	}
}

// OpenFromBranch opens pull request number from the head branch of pull
// request from (the same head commit, branch and author) against base,
// as GitHub lets one branch be proposed to several bases. Its files are
// what the head changes against base.
func (s *Server) OpenFromBranch(repoName string, number, from int, base string) {
	s.mu.Lock()
	p := s.mustRepoLocked(repoName)
	src, ok := p.pulls[from]
	if !ok {
		s.mu.Unlock()
		panic(fmt.Sprintf("fakegithub: %s has no pull request #%d", repoName, from))
	}
	head, _ := p.snapshot(src.HeadSHA)
	baseTree, _ := p.snapshot(base)
	pr := PR{Number: number, Author: src.Author, HeadSHA: src.HeadSHA, HeadRef: src.HeadRef, HeadRepo: src.HeadRepo, BaseRef: base, Files: treeDiff(baseTree, head)}
	s.mu.Unlock()
	s.AddPR(repoName, pr)
}

// treeDiff is what GitHub lists as a pull request's files when its base
// holds base and its head holds head: added, removed and modified paths,
// by name.
func treeDiff(base, head map[string]entry) []File {
	file := func(name, status string, e entry) File {
		f := File{Name: name, Status: status, Content: e.data, SubmoduleCommit: e.submodule}
		if e.link {
			f.SymlinkTarget = string(e.data)
		}
		return f
	}
	var out []File
	for name, h := range head {
		b, ok := base[name]
		switch {
		case !ok:
			out = append(out, file(name, "added", h))
		case string(b.data) != string(h.data) || b.link != h.link || b.submodule != h.submodule:
			out = append(out, file(name, "modified", h))
		}
	}
	for name, b := range base {
		if _, ok := head[name]; !ok {
			out = append(out, file(name, "removed", b))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CheckRunRerequested is the check_run "rerequested" delivery GitHub
// sends when someone presses Re-run on check run id: the run as it stands
// (with its pull requests), the repository, the installation and the
// sender. The run itself is not changed; the App decides what to post.
func (s *Server) CheckRunRerequested(repoName string, id int64, sender string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustRepoLocked(repoName)
	c := p.findCheckRun(fmt.Sprint(id))
	if c == nil {
		panic(fmt.Sprintf("fakegithub: %s has no check run %d", repoName, id))
	}
	return s.eventLocked(p, "check_run", s.checkRunJSON(p, c), sender)
}

// CheckSuiteRerequested is the check_suite "rerequested" delivery GitHub
// sends when someone presses "Re-run all checks" on head's suite. GitHub
// resets the suite to queued, which updates it: its updated_at is the
// time of the press, each press later than the last.
func (s *Server) CheckSuiteRerequested(repoName, head, sender string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustRepoLocked(repoName)
	id := stableID(p.fullName() + "@" + head)
	if s.suiteUpdated == nil {
		s.suiteUpdated = map[int64]time.Time{}
	}
	at := s.now().UTC().Truncate(time.Second)
	if last, ok := s.suiteUpdated[id]; ok && !at.After(last) {
		at = last.Add(time.Second)
	}
	s.suiteUpdated[id] = at
	latest := map[string]bool{}
	var nums []int
	for n, pr := range p.pulls {
		if pr.HeadSHA == head && pr.State == "open" && strings.EqualFold(pr.HeadRepo, p.fullName()) {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	prs := []map[string]any{}
	for _, n := range nums {
		pr := p.pulls[n]
		prs = append(prs, map[string]any{
			"url":    fmt.Sprintf("%srepos/%s/pulls/%d", s.URL, p.fullName(), n),
			"number": n,
			"head":   map[string]any{"ref": pr.HeadRef, "sha": pr.HeadSHA},
			"base":   map[string]any{"ref": pr.BaseRef, "sha": pr.BaseSHA},
		})
	}
	for _, c := range p.checkRuns {
		if c.HeadSHA == head {
			latest[c.Name] = true
		}
	}
	suite := map[string]any{
		"id":                      id,
		"node_id":                 "CS_" + fmt.Sprint(id),
		"head_sha":                head,
		"status":                  "queued",
		"conclusion":              nil,
		"url":                     fmt.Sprintf("%srepos/%s/check-suites/%d", s.URL, p.fullName(), id),
		"latest_check_runs_count": len(latest),
		"pull_requests":           prs,
		"app":                     s.appJSON(),
		"updated_at":              at.Format(time.RFC3339),
	}
	return s.eventLocked(p, "check_suite", suite, sender)
}

// eventLocked is a rerequested delivery of kind (check_run, check_suite)
// carrying object.
func (s *Server) eventLocked(p *repo, kind string, object map[string]any, sender string) []byte {
	ev := map[string]any{
		"action":     "rerequested",
		kind:         object,
		"repository": s.repoJSON(p),
		"sender":     userJSON(sender, "User"),
	}
	if inst, ok := s.installationOfLocked(p); ok {
		ev["installation"] = map[string]any{"id": inst, "node_id": fmt.Sprintf("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u%d", inst)}
	}
	out, err := json.Marshal(ev)
	if err != nil {
		panic(err)
	}
	return out
}
