package hfhub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Entry types in a tree listing (hf-hub.md §2.3). The listing shows no
// file mode: a symlink is not told apart from a file.
const (
	TypeFile      = "file"
	TypeDirectory = "directory"
	TypeUnknown   = "unknown"
)

// LFS is an LFS file's object: its sha256 and size.
type LFS struct {
	OID  string
	Size int64
}

// Entry is one entry of a tree listing.
type Entry struct {
	Type string
	Path string
	// OID is the git blob sha1 (for an LFS file, of its pointer).
	OID  string
	Size int64
	LFS  *LFS
}

type rawEntry struct {
	Type *string `json:"type"`
	OID  *string `json:"oid"`
	Size *int64  `json:"size"`
	Path *string `json:"path"`
	LFS  *struct {
		OID  *string `json:"oid"`
		Size *int64  `json:"size"`
	} `json:"lfs"`
}

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (r rawEntry) validate() (Entry, error) {
	if r.Type == nil || r.Path == nil || r.OID == nil || r.Size == nil {
		return Entry{}, errors.New("an entry needs type, path, oid and size")
	}
	e := Entry{Type: *r.Type, Path: *r.Path, OID: *r.OID, Size: *r.Size}
	switch {
	case e.Type != TypeFile && e.Type != TypeDirectory && e.Type != TypeUnknown:
		return Entry{}, fmt.Errorf("%s: type %q is none of file, directory, unknown", e.Path, e.Type)
	case e.Path == "" || e.Path == "." || path.Clean(e.Path) != e.Path || strings.HasPrefix(e.Path, "/") || slices.Contains(strings.Split(e.Path, "/"), ".."):
		return Entry{}, fmt.Errorf("path %q is not a clean relative path", e.Path)
	case e.Size < 0:
		return Entry{}, fmt.Errorf("%s: negative size", e.Path)
	case e.Type == TypeFile && !shaRE.MatchString(e.OID):
		return Entry{}, fmt.Errorf("%s: oid %q is not a git sha1", e.Path, e.OID)
	}
	if r.LFS != nil {
		if r.LFS.OID == nil || !sha256RE.MatchString(*r.LFS.OID) || r.LFS.Size == nil || *r.LFS.Size < 0 {
			return Entry{}, fmt.Errorf("%s: lfs needs a sha256 oid and a size", e.Path)
		}
		e.LFS = &LFS{OID: *r.LFS.OID, Size: *r.LFS.Size}
		e.Size = *r.LFS.Size
	}
	return e, nil
}

// Tree lists the entries under dir ("" for the root) at rev, every depth,
// following the Link pages (hf-hub.md §2.3 "Tree": paged even when
// recursive). A dir that does not exist at rev is ErrEntryNotFound.
func (c *Client) Tree(ctx context.Context, repo Repo, rev, dir string) ([]Entry, error) {
	target := apiPath(repo, "tree/"+escapeSegment(rev))
	if dir = strings.Trim(dir, "/"); dir != "" {
		target += "/" + escapePath(dir)
	}
	target += "?recursive=true&expand=false"
	var out []Entry
	err := c.pages(ctx, target, func(body []byte) error {
		var raw []rawEntry
		if err := decodeStrict(body, &raw); err != nil {
			return malformed("GET "+target, "%v", err)
		}
		for i, r := range raw {
			e, err := r.validate()
			if err != nil {
				return malformed("GET "+target, "entry %d: %v", i, err)
			}
			if dir != "" && !strings.HasPrefix(e.Path, dir+"/") {
				return malformed("GET "+target, "entry %d: %q is not under %q, the folder asked for", i, e.Path, dir)
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// commitEntry is one entry of a revision's history.
type commitEntry struct {
	ID    string
	Title string
}

// history pages through the commits of rev, newest first (hf-hub.md §2.2
// "Commits of a revision"), until stop says so.
func (c *Client) history(ctx context.Context, repo Repo, rev string, stop func(commitEntry) bool) error {
	target := apiPath(repo, "commits/"+escapeSegment(rev))
	done := errors.New("done")
	err := c.pages(ctx, target, func(body []byte) error {
		var raw []struct {
			ID    *string `json:"id"`
			Title *string `json:"title"`
		}
		if err := decodeStrict(body, &raw); err != nil {
			return malformed("GET "+target, "%v", err)
		}
		for i, r := range raw {
			if r.ID == nil || !shaRE.MatchString(*r.ID) {
				return malformed("GET "+target, "commit %d: id is not a 40-digit sha", i)
			}
			k := commitEntry{ID: *r.ID}
			if r.Title != nil {
				k.Title = *r.Title
			}
			if stop(k) {
				return done
			}
		}
		return nil
	})
	if errors.Is(err, done) {
		return nil
	}
	return err
}

// MergeBase finds where the PR's head left main: the newest commit of the
// head's history that is not one of the PR's own commits (the commit
// events of its details), checked to be in main's history. The Hub has no
// merge-base endpoint and its commit listing carries no parents
// (hf-hub.md §2.2, §2.4), so this reads the two histories, a page each in
// the usual case.
func (c *Client) MergeBase(ctx context.Context, p *PR) (string, error) {
	own := map[string]bool{}
	for _, e := range p.Events {
		if e.Type == EventCommit {
			own[e.OID] = true
		}
	}
	base := ""
	if err := c.history(ctx, p.Repo, p.Head, func(k commitEntry) bool {
		if !own[k.ID] {
			base = k.ID
			return true
		}
		return false
	}); err != nil {
		return "", err
	}
	if base == "" {
		return "", fmt.Errorf("hfhub: %s#%d: every commit of its history is its own; no merge base with %s", p.Repo, p.Num, p.Base)
	}
	found := false
	if err := c.history(ctx, p.Repo, p.Base, func(k commitEntry) bool {
		found = k.ID == base
		return found
	}); err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("hfhub: %s#%d: %s, where it branched, is not in the history of %s (rewritten?)", p.Repo, p.Num, base, p.Base)
	}
	return base, nil
}

// Change kinds.
const (
	Added    = "added"
	Modified = "modified"
	Removed  = "removed"
)

// Change is one file the PR changes.
type Change struct {
	Status string // Added, Modified or Removed
	Path   string
	// Entry is the file at the head; for Removed, at the base.
	Entry Entry
}

// Changes is what a PR changes under a folder.
type Changes struct {
	Head, Base string
	Files      []Change
}

// ChangedFiles lists the files the PR changes under dir, comparing the
// tree at its head with the tree at its merge base by path and blob id.
// The Hub has no "files changed" endpoint (hf-hub.md §2.4, option 2, with
// the merge base in place of main's moving head, so that changes landing
// on main after the PR opened are not taken for the PR's). Type "unknown"
// entries are listed as they are for the caller to refuse.
func (c *Client) ChangedFiles(ctx context.Context, p *PR, dir string) (*Changes, error) {
	base, err := c.MergeBase(ctx, p)
	if err != nil {
		return nil, err
	}
	list := func(rev string) (map[string]Entry, error) {
		es, err := c.Tree(ctx, p.Repo, rev, dir)
		if errors.Is(err, ErrEntryNotFound) {
			return map[string]Entry{}, nil
		}
		if err != nil {
			return nil, err
		}
		m := map[string]Entry{}
		for _, e := range es {
			if e.Type != TypeDirectory {
				m[e.Path] = e
			}
		}
		return m, nil
	}
	head, err := list(p.Head)
	if err != nil {
		return nil, err
	}
	old, err := list(base)
	if err != nil {
		return nil, err
	}
	out := &Changes{Head: p.Head, Base: base}
	for path, e := range head {
		o, ok := old[path]
		switch {
		case !ok:
			out.Files = append(out.Files, Change{Added, path, e})
		case o.OID != e.OID || o.Type != e.Type || (o.LFS == nil) != (e.LFS == nil):
			out.Files = append(out.Files, Change{Modified, path, e})
		}
	}
	for path, o := range old {
		if _, ok := head[path]; !ok {
			out.Files = append(out.Files, Change{Removed, path, o})
		}
	}
	slices.SortFunc(out.Files, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// GitBlobSHA is git's name for a blob holding data: what a tree entry's
// oid is for a regular file.
func GitBlobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// ReadFile downloads the file e at commit and checks it against the
// entry: its git blob sha1, or for an LFS file its sha256 and size
// (hf-hub.md §2.3). A file over MaxFileSize is refused before it is
// asked for. An LFS file is answered with a redirect to another host; it
// is followed without the token, which goes to the Hub's host only
// (hf-hub.md §2.3 "Content", §6 API side 4).
func (c *Client) ReadFile(ctx context.Context, repo Repo, commit string, e Entry) ([]byte, error) {
	if !shaRE.MatchString(commit) {
		return nil, fmt.Errorf("hfhub: read %s at %q: not a commit id; read files by commit, not by a moving ref", e.Path, commit)
	}
	if e.Type != TypeFile {
		return nil, fmt.Errorf("hfhub: %s is a %s, not a file", e.Path, e.Type)
	}
	if e.Size > c.maxFile {
		return nil, fmt.Errorf("hfhub: %s is %d bytes, over the limit of %d", e.Path, e.Size, c.maxFile)
	}
	target := "/datasets/" + string(repo) + "/resolve/" + commit + "/" + escapePath(e.Path)
	resp, err := c.do(ctx, request{method: http.MethodGet, target: target, retryUnsafe: true}, c.maxFile)
	if err != nil {
		return nil, err
	}
	data := resp.body
	if resp.status >= 300 && resp.status < 400 {
		if data, err = c.followRedirect(ctx, target, resp.header.Get("Location")); err != nil {
			return nil, err
		}
	}
	if rc := resp.header.Get("X-Repo-Commit"); rc != "" && rc != commit {
		return nil, malformed("GET "+target, "X-Repo-Commit is %s, not %s", rc, commit)
	}
	if e.LFS != nil {
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != e.LFS.OID || int64(len(data)) != e.LFS.Size {
			return nil, fmt.Errorf("hfhub: %s at %s: the content's sha256 or size differs from the listing's lfs entry", e.Path, commit)
		}
		return data, nil
	}
	if GitBlobSHA(data) != e.OID {
		return nil, fmt.Errorf("hfhub: %s at %s: the content's git blob sha1 differs from the listing's oid %s", e.Path, commit, e.OID)
	}
	return data, nil
}

// followRedirect fetches an LFS file from the host the Hub redirects to,
// with no Authorization header: [HJS] warns against resending it there.
func (c *Client) followRedirect(ctx context.Context, from, location string) ([]byte, error) {
	u, err := url.Parse(location)
	if err != nil || location == "" {
		return nil, malformed("GET "+from, "redirect to %q", clip(location))
	}
	u = c.base.ResolveReference(u)
	if u.Scheme != "https" && !(u.Scheme == "http" && c.base.Scheme == "http") {
		return nil, malformed("GET "+from, "redirect to a %s URL", u.Scheme)
	}
	if u.Host == c.base.Host {
		resp, err := c.do(ctx, request{method: http.MethodGet, target: u.String(), retryUnsafe: true}, c.maxFile)
		if err != nil {
			return nil, err
		}
		return resp.body, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hfhub: GET %s (LFS): %w", u.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &Error{Op: "GET " + u.Host + u.Path, Status: resp.StatusCode, kinds: classify(resp.StatusCode, "", "")}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("hfhub: GET %s (LFS): %w", u.Host, err)
	}
	if int64(len(data)) > c.maxFile {
		return nil, fmt.Errorf("hfhub: the LFS object at %s is over %d bytes", u.Host, c.maxFile)
	}
	return data, nil
}
