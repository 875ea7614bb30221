package hfhub

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// FindComments lists the comments by author (a user name) that carry
// marker, a hidden text such as "<!-- benchgate:verdict -->", oldest
// first; hidden ones are left out, their text being gone. The first is the
// sticky comment to edit: the Hub has only comments for a verdict
// (hf-hub.md §5 "Verdict surface").
func FindComments(p *PR, author, marker string) []Event {
	var out []Event
	for _, e := range p.Comments() {
		if e.Author == author && !e.Hidden && strings.Contains(e.Raw, marker) {
			out = append(out, e)
		}
	}
	return out
}

// discussionPath is …/discussions/{num}[/{rest}] (hf-hub.md §2.5).
func discussionPath(repo Repo, num int, rest string) string {
	p := apiPath(repo, "discussions/"+strconv.Itoa(num))
	if rest != "" {
		p += "/" + rest
	}
	return p
}

// commentAnswer reads the event a comment call answers with.
func commentAnswer(op string, raw map[string]rawEvent, key string) (Event, error) {
	r, ok := raw[key]
	if !ok {
		return Event{}, malformed(op, "no %s in the answer", key)
	}
	e, err := parseEvent(r)
	if err != nil || e.Type != EventComment {
		return Event{}, malformed(op, "%s is not a comment event: %v", key, err)
	}
	return e, nil
}

// Comment posts a comment on discussion num; the answer's newMessage is
// the new comment (hf-hub.md §2.5). Not retried after a failure that may
// have posted it.
func (c *Client) Comment(ctx context.Context, repo Repo, num int, text string) (Event, error) {
	target := discussionPath(repo, num, "comment")
	var raw map[string]rawEvent
	if err := c.postJSON(ctx, target, map[string]string{"comment": text}, &raw); err != nil {
		return Event{}, err
	}
	return commentAnswer("POST "+target, raw, "newMessage")
}

// validCommentID: comment ids are hex object ids.
func validCommentID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// EditComment replaces a comment's text; the Hub keeps the old text in
// the comment's public history (hf-hub.md §2.5, §5).
func (c *Client) EditComment(ctx context.Context, repo Repo, num int, id, text string) (Event, error) {
	// The id goes lower-case in the path (hf-hub.md §2.5).
	id = strings.ToLower(id)
	if !validCommentID(id) {
		return Event{}, fmt.Errorf("hfhub: comment id %q is not a hex id", id)
	}
	target := discussionPath(repo, num, "comment/"+id+"/edit")
	var raw map[string]rawEvent
	if err := c.postJSON(ctx, target, map[string]string{"content": text}, &raw); err != nil {
		return Event{}, err
	}
	return commentAnswer("POST "+target, raw, "updatedComment")
}

// HideComment hides a comment for good: the Hub cannot show or restore
// its text afterwards (hf-hub.md §2.5).
func (c *Client) HideComment(ctx context.Context, repo Repo, num int, id string) error {
	id = strings.ToLower(id)
	if !validCommentID(id) {
		return fmt.Errorf("hfhub: comment id %q is not a hex id", id)
	}
	return c.postJSON(ctx, discussionPath(repo, num, "comment/"+id+"/hide"), nil, nil)
}

// SetStatus opens or closes discussion num, with an optional comment; the
// API sets no other status (hf-hub.md §1, §2.5).
func (c *Client) SetStatus(ctx context.Context, repo Repo, num int, st Status, comment string) error {
	if st != StatusOpen && st != StatusClosed {
		return fmt.Errorf("hfhub: status %q: the Hub's API sets only open or closed", st)
	}
	body := map[string]string{"status": string(st)}
	if comment != "" {
		body["comment"] = comment
	}
	return c.postJSON(ctx, discussionPath(repo, num, "status"), body, nil)
}

// Merge merges pull request num, with an optional comment (hf-hub.md
// §2.5). The Hub takes no expected head: a caller that must merge only a
// verified head checks the head just before and after. A draft, closed or
// conflicting PR is refused (ErrRefused; the Hub's exact status for each
// is unknown, hf-hub.md §10).
func (c *Client) Merge(ctx context.Context, repo Repo, num int, comment string) error {
	var body any
	if comment != "" {
		body = map[string]string{"comment": comment}
	}
	return c.postJSON(ctx, discussionPath(repo, num, "merge"), body, nil)
}

// CommitFile is a file to write in a commit.
type CommitFile struct {
	Path    string
	Content []byte
}

// CommitRequest is a commit through the commit API.
type CommitRequest struct {
	Summary, Description string
	// ParentCommit, when set, makes the commit fail with ErrConflict if the
	// branch has moved since (hf-hub.md §2.5 "Commit").
	ParentCommit string
	Files        []CommitFile
	Deletes      []string
}

// CommitResult is the commit API's answer.
type CommitResult struct {
	OID   string
	URL   string
	PRURL string // set with CreatePR
}

// Commit writes files to branch in one commit through the NDJSON commit
// API (hf-hub.md §2.5): a header line, then one line per file. Files go
// as regular base64 blobs: this client uploads no LFS objects, so it is
// for small files such as a board's JSON. With createPR the commit opens a
// pull request instead. Never retried after a 5xx or a lost answer, which
// could commit twice (hf-hub.md §2.5).
func (c *Client) Commit(ctx context.Context, repo Repo, branch string, req CommitRequest, createPR bool) (CommitResult, error) {
	if strings.TrimSpace(req.Summary) == "" {
		return CommitResult{}, fmt.Errorf("hfhub: a commit needs a summary")
	}
	if req.ParentCommit != "" && !shaRE.MatchString(req.ParentCommit) {
		return CommitResult{}, fmt.Errorf("hfhub: parent commit %q is not a 40-digit sha", req.ParentCommit)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	type header struct {
		Summary      string `json:"summary"`
		Description  string `json:"description"`
		ParentCommit string `json:"parentCommit,omitempty"`
	}
	lines := []any{map[string]any{"key": "header", "value": header{req.Summary, req.Description, req.ParentCommit}}}
	for _, f := range req.Files {
		if f.Path == "" || strings.HasPrefix(f.Path, "/") {
			return CommitResult{}, fmt.Errorf("hfhub: commit file path %q", f.Path)
		}
		lines = append(lines, map[string]any{"key": "file", "value": map[string]string{
			"path": f.Path, "encoding": "base64", "content": base64.StdEncoding.EncodeToString(f.Content)}})
	}
	for _, p := range req.Deletes {
		lines = append(lines, map[string]any{"key": "deletedFile", "value": map[string]string{"path": p}})
	}
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return CommitResult{}, err
		}
	}
	target := apiPath(repo, "commit/"+escapeSegment(branch))
	if createPR {
		target += "?create_pr=1"
	}
	resp, err := c.do(ctx, request{method: http.MethodPost, target: target, body: b.Bytes(), ctype: "application/x-ndjson"}, maxJSON)
	if err != nil {
		return CommitResult{}, err
	}
	var raw struct {
		CommitOid      *string `json:"commitOid"`
		CommitURL      *string `json:"commitUrl"`
		PullRequestURL *string `json:"pullRequestUrl"`
	}
	if err := decodeStrict(resp.body, &raw); err != nil || raw.CommitOid == nil || !shaRE.MatchString(*raw.CommitOid) {
		return CommitResult{}, malformed("POST "+target, "no commitOid in the answer")
	}
	out := CommitResult{OID: *raw.CommitOid}
	if raw.CommitURL != nil {
		out.URL = *raw.CommitURL
	}
	if raw.PullRequestURL != nil {
		out.PRURL = *raw.PullRequestURL
	}
	return out, nil
}
