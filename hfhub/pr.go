package hfhub

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Status is a discussion's status (hf-hub.md §1 "Statuses").
type Status string

// The statuses; the API sets only Open and Closed.
const (
	StatusDraft  Status = "draft"
	StatusOpen   Status = "open"
	StatusClosed Status = "closed"
	StatusMerged Status = "merged"
)

func parseStatus(s string) (Status, error) {
	switch st := Status(s); st {
	case StatusDraft, StatusOpen, StatusClosed, StatusMerged:
		return st, nil
	}
	return "", fmt.Errorf("status %q is none of draft, open, closed, merged", s)
}

// Event types in a discussion's details (hf-hub.md §2.2).
const (
	EventComment      = "comment"
	EventCommit       = "commit"
	EventStatusChange = "status-change"
	EventTitleChange  = "title-change"
)

// Event is one entry of a discussion's timeline. The fields that apply
// depend on Type; an event of a type this client does not know keeps only
// its Type, ID and time.
type Event struct {
	Type      string
	ID        string
	CreatedAt time.Time
	Author    string // user name; "deleted" when the account is gone
	// comment
	Raw    string
	Edited bool
	Hidden bool
	// commit
	OID     string
	Subject string
	// status-change
	Status Status
	// title-change
	From, To string
}

// PR is a pull request read from its details (hf-hub.md §2.2).
type PR struct {
	Repo      Repo
	Num       int
	Title     string
	Status    Status
	Author    string // user name; "deleted" when the account is gone
	CreatedAt time.Time
	// Base is the ref the PR targets: a name only, no commit (hf-hub.md §1).
	Base string
	// MergeCommit is set once merged.
	MergeCommit string
	// Conflicts lists conflicting files; ConflictsUnlisted is set when
	// the Hub says there are some but cannot list them.
	Conflicts         []string
	ConflictsUnlisted bool
	Events            []Event
	// Head is the commit at refs/pr/N when the PR was read. Read files by
	// it, not by the ref, so that a push landing meanwhile cannot mix two
	// heads (hf-hub.md §2.2 "Head SHA").
	Head string
}

// Ref is the PR's git ref, refs/pr/N (hf-hub.md §1).
func (p *PR) Ref() string { return "refs/pr/" + strconv.Itoa(p.Num) }

// Comments lists the comment events, oldest first.
func (p *PR) Comments() []Event {
	var out []Event
	for _, e := range p.Events {
		if e.Type == EventComment {
			out = append(out, e)
		}
	}
	return out
}

type rawAuthor struct {
	Name *string `json:"name"`
}

func (a *rawAuthor) name() string {
	// A deleted account has no author; huggingface_hub says "deleted".
	if a == nil || a.Name == nil || *a.Name == "" {
		return "deleted"
	}
	return *a.Name
}

type rawEvent struct {
	ID        *string         `json:"id"`
	Type      *string         `json:"type"`
	CreatedAt *string         `json:"createdAt"`
	Author    *rawAuthor      `json:"author"`
	Data      json.RawMessage `json:"data"`
}

type rawDetails struct {
	Num           *int       `json:"num"`
	Title         *string    `json:"title"`
	Status        *string    `json:"status"`
	IsPullRequest *bool      `json:"isPullRequest"`
	CreatedAt     *string    `json:"createdAt"`
	Author        *rawAuthor `json:"author"`
	Changes       *struct {
		Base          *string `json:"base"`
		MergeCommitID string  `json:"mergeCommitId"`
	} `json:"changes"`
	FilesWithConflicts json.RawMessage `json:"filesWithConflicts"`
	Events             []rawEvent      `json:"events"`
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

func parseTime(s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, fmt.Errorf("no time")
	}
	return time.Parse(time.RFC3339Nano, *s)
}

// parseEvent validates one event; the data fields of the known types are
// required (hf-hub.md §2.2, huggingface_hub community.py deserialize_event).
func parseEvent(r rawEvent) (Event, error) {
	if r.ID == nil || r.Type == nil {
		return Event{}, fmt.Errorf("no id or type")
	}
	t, err := parseTime(r.CreatedAt)
	if err != nil {
		return Event{}, fmt.Errorf("createdAt: %v", err)
	}
	e := Event{Type: *r.Type, ID: *r.ID, CreatedAt: t, Author: r.Author.name()}
	switch e.Type {
	case EventComment:
		var d struct {
			Edited *bool `json:"edited"`
			Hidden *bool `json:"hidden"`
			Latest *struct {
				Raw *string `json:"raw"`
			} `json:"latest"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil || d.Edited == nil || d.Hidden == nil || d.Latest == nil || d.Latest.Raw == nil {
			return Event{}, fmt.Errorf("a comment needs data.edited, data.hidden and data.latest.raw")
		}
		e.Edited, e.Hidden, e.Raw = *d.Edited, *d.Hidden, *d.Latest.Raw
	case EventCommit:
		var d struct {
			Subject *string `json:"subject"`
			OID     *string `json:"oid"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil || d.OID == nil || !shaRE.MatchString(*d.OID) {
			return Event{}, fmt.Errorf("a commit needs data.oid, a 40-digit sha")
		}
		e.OID = *d.OID
		if d.Subject != nil {
			e.Subject = *d.Subject
		}
	case EventStatusChange:
		var d struct {
			Status *string `json:"status"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil || d.Status == nil {
			return Event{}, fmt.Errorf("a status-change needs data.status")
		}
		if e.Status, err = parseStatus(*d.Status); err != nil {
			return Event{}, err
		}
	case EventTitleChange:
		var d struct {
			From *string `json:"from"`
			To   *string `json:"to"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil || d.From == nil || d.To == nil {
			return Event{}, fmt.Errorf("a title-change needs data.from and data.to")
		}
		e.From, e.To = *d.From, *d.To
	}
	return e, nil
}

// validate turns the raw details into a PR.
func (r *rawDetails) validate(repo Repo, num int) (*PR, error) {
	switch {
	case r.Num == nil || *r.Num != num:
		return nil, fmt.Errorf("num is not %d", num)
	case r.IsPullRequest == nil || !*r.IsPullRequest:
		return nil, fmt.Errorf("discussion %d is not a pull request", num)
	case r.Title == nil || r.Status == nil:
		return nil, fmt.Errorf("no title or status")
	case r.Changes == nil || r.Changes.Base == nil:
		return nil, fmt.Errorf("a pull request needs changes.base")
	}
	st, err := parseStatus(*r.Status)
	if err != nil {
		return nil, err
	}
	created, err := parseTime(r.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("createdAt: %v", err)
	}
	p := &PR{Repo: repo, Num: num, Title: *r.Title, Status: st, Author: r.Author.name(), CreatedAt: created,
		Base: *r.Changes.Base, MergeCommit: r.Changes.MergeCommitID}
	// filesWithConflicts is a list, or true when the Hub cannot list them
	// (hf-hub.md §2.2).
	if len(r.FilesWithConflicts) > 0 && string(r.FilesWithConflicts) != "null" {
		var b bool
		if json.Unmarshal(r.FilesWithConflicts, &b) == nil {
			p.ConflictsUnlisted = b
		} else if err := json.Unmarshal(r.FilesWithConflicts, &p.Conflicts); err != nil {
			return nil, fmt.Errorf("filesWithConflicts is neither a list of paths nor a bool")
		}
	}
	if r.Events == nil {
		return nil, fmt.Errorf("no events")
	}
	for i, re := range r.Events {
		e, err := parseEvent(re)
		if err != nil {
			return nil, fmt.Errorf("event %d: %v", i, err)
		}
		p.Events = append(p.Events, e)
	}
	return p, nil
}

// PR reads pull request num: its head commit from the revision of
// refs/pr/N (hf-hub.md §2.2 "Head SHA of PR N") and its details with
// their events ("PR details"). Two calls.
func (c *Client) PR(ctx context.Context, repo Repo, num int) (*PR, error) {
	if num < 1 {
		return nil, fmt.Errorf("hfhub: pull request number %d", num)
	}
	// The head first: a push landing between the two calls then shows in
	// the events as a commit the head does not have, which MergeBase
	// passes over, rather than as a head whose commit no event names.
	head, err := c.Revision(ctx, repo, "refs/pr/"+strconv.Itoa(num))
	if err != nil {
		return nil, err
	}
	target := apiPath(repo, "discussions/"+strconv.Itoa(num))
	var raw rawDetails
	if _, err := c.getJSON(ctx, target, &raw); err != nil {
		return nil, err
	}
	p, err := raw.validate(repo, num)
	if err != nil {
		return nil, malformed("GET "+target, "%v", err)
	}
	p.Head = head
	return p, nil
}

// Revision resolves a revision (a branch, a ref such as refs/pr/7, or a
// sha) to its commit (hf-hub.md §2.2, GET …/revision/{rev}).
func (c *Client) Revision(ctx context.Context, repo Repo, rev string) (string, error) {
	target := apiPath(repo, "revision/"+escapeSegment(rev))
	var raw struct {
		SHA *string `json:"sha"`
	}
	if _, err := c.getJSON(ctx, target, &raw); err != nil {
		return "", err
	}
	if raw.SHA == nil || !shaRE.MatchString(*raw.SHA) {
		return "", malformed("GET "+target, "sha is not a 40-digit commit id")
	}
	return *raw.SHA, nil
}

// PRSummary is a PR as the discussions listing shows it.
type PRSummary struct {
	Num    int
	Title  string
	Status Status
	Author string
}

// OpenPRs lists the open pull requests, newest first, for a reconcile
// pass over deliveries that never came. The listing pages by ?p= with
// count and start, not by Link (hf-hub.md §2.2 "List PRs").
func (c *Client) OpenPRs(ctx context.Context, repo Repo) ([]PRSummary, error) {
	var out []PRSummary
	for p := 0; p < c.maxPages; p++ {
		target := apiPath(repo, "discussions") + "?p=" + strconv.Itoa(p) + "&type=pull_request&status=open"
		var raw struct {
			Discussions []struct {
				Num           *int       `json:"num"`
				Title         *string    `json:"title"`
				Status        *string    `json:"status"`
				IsPullRequest *bool      `json:"isPullRequest"`
				Author        *rawAuthor `json:"author"`
			} `json:"discussions"`
			Count *int `json:"count"`
			Start *int `json:"start"`
		}
		if _, err := c.getJSON(ctx, target, &raw); err != nil {
			return nil, err
		}
		if raw.Count == nil || raw.Start == nil || raw.Discussions == nil {
			return nil, malformed("GET "+target, "no discussions, count or start")
		}
		for i, d := range raw.Discussions {
			if d.Num == nil || d.Title == nil || d.Status == nil || d.IsPullRequest == nil {
				return nil, malformed("GET "+target, "discussion %d: no num, title, status or isPullRequest", i)
			}
			st, err := parseStatus(*d.Status)
			if err != nil {
				return nil, malformed("GET "+target, "discussion %d: %v", i, err)
			}
			if *d.IsPullRequest {
				out = append(out, PRSummary{Num: *d.Num, Title: *d.Title, Status: st, Author: d.Author.name()})
			}
		}
		if len(raw.Discussions) == 0 || *raw.Start+len(raw.Discussions) >= *raw.Count {
			return out, nil
		}
	}
	return nil, fmt.Errorf("hfhub: listing the pull requests of %s: more than %d pages", repo, c.maxPages)
}
