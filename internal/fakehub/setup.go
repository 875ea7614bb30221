package fakehub

import (
	"fmt"
	"maps"
)

// File is a file's content for a commit; LFS stores it as an LFS object
// behind a pointer (hf-hub.md §2.3).
type File struct {
	Content []byte
	LFS     bool
}

func toBlobs(files map[string]File) map[string]blob {
	out := map[string]blob{}
	for p, f := range files {
		out[p] = blob{content: f.Content, lfs: f.LFS}
	}
	return out
}

// CreateDataset creates namespace/name owned by owner, with files as the
// first commit on main. Creating it sends no delivery.
func (h *Hub) CreateDataset(name string, owner *User, private bool, files map[string]File) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rp := &repo{id: h.newIDLocked(), name: name, owner: owner, private: private,
		writers: map[string]bool{owner.Name: true}, commits: map[string]*commit{}, refs: map[string]string{}}
	h.repos[name] = rp
	c := h.newCommitLocked(rp, nil, toBlobs(files), "initial commit", "", owner.Name)
	rp.refs["refs/heads/main"] = c.sha
	for _, b := range c.files {
		if b.lfs {
			h.lfs[sha256Hex(b.content)] = b.content
		}
	}
}

// AddWriter gives user write access to the dataset (an org role of write
// or admin: hf-hub.md §2.5 "Who may merge").
func (h *Hub) AddWriter(dataset string, u *User) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.repos[dataset].writers[u.Name] = true
}

// Push commits put (and removes del) on ref as u, as a git push or an
// upload would, and delivers the events.
func (h *Hub) Push(dataset, ref string, u *User, title string, put map[string]File, del ...string) string {
	h.mu.Lock()
	rp := h.repos[dataset]
	old, ok := rp.refs[ref]
	if !ok {
		h.mu.Unlock()
		panic(fmt.Sprintf("fakehub: no ref %s in %s", ref, dataset))
	}
	files := maps.Clone(rp.commits[old].files)
	maps.Copy(files, toBlobs(put))
	for _, p := range del {
		delete(files, p)
	}
	k := h.pushLocked(rp, ref, u, files, title, "")
	h.mu.Unlock()
	h.deliverQueued()
	return k.sha
}

// OpenPR opens a pull request as u with the files on top of main, as
// create_commit(create_pr=True) does: an open PR whose description is its
// first comment, and the two deliveries of hf-hub.md §3.4.
func (h *Hub) OpenPR(dataset string, u *User, title, description string, put map[string]File) (int, string) {
	h.mu.Lock()
	rp := h.repos[dataset]
	files := maps.Clone(rp.commits[rp.refs["refs/heads/main"]].files)
	maps.Copy(files, toBlobs(put))
	d := h.openDiscussionLocked(rp, u, title, description, true, StatusOpen, files)
	head := rp.refs[d.ref()]
	h.mu.Unlock()
	h.deliverQueued()
	return d.num, head
}

// OpenDiscussion opens a discussion that is not a pull request, such as
// the one the parquet-converter bot opens on a dataset (hf-hub.md §3.4).
func (h *Hub) OpenDiscussion(dataset string, u *User, title, description string) int {
	h.mu.Lock()
	d := h.openDiscussionLocked(h.repos[dataset], u, title, description, false, StatusOpen, nil)
	h.mu.Unlock()
	h.deliverQueued()
	return d.num
}

// SetRef moves or deletes (sha "") a ref as the Hub's own machinery does,
// such as the dataset viewer's refs/convert/parquet or "Delete ref" after a
// merge (hf-hub.md §3.4).
func (h *Hub) SetRef(dataset, ref, sha string) {
	h.mu.Lock()
	h.moveRefLocked(h.repos[dataset], ref, sha)
	h.mu.Unlock()
	h.deliverQueued()
}

// Head is the commit a ref points at ("" when there is none).
func (h *Hub) Head(dataset, ref string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.repos[dataset].refs[ref]
}

// FileAt is a file's content at a revision.
func (h *Hub) FileAt(dataset, rev, path string) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.repos[dataset].resolveRev(rev)
	if !ok {
		return nil, false
	}
	b, ok := c.files[path]
	return b.content, ok
}

// Comment is a comment's state, for assertions.
type Comment struct {
	ID      string
	Author  string
	Raw     string
	Edited  bool
	Hidden  bool
	History int
}

// DiscussionState is a discussion's state, for assertions.
type DiscussionState struct {
	Num         int
	Title       string
	Status      string
	IsPR        bool
	MergeCommit string
	Comments    []Comment
	Commits     []string
}

// Discussion is the state of discussion num.
func (h *Hub) Discussion(dataset string, num int) DiscussionState {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.repos[dataset].discs[num-1]
	s := DiscussionState{Num: d.num, Title: d.title, Status: d.status, IsPR: d.isPR, MergeCommit: d.mergeCommit}
	for _, e := range d.events {
		switch e.typ {
		case "comment":
			s.Comments = append(s.Comments, Comment{e.id, e.author.Name, e.latest.raw, e.edited, e.hidden, len(e.history)})
		case "commit":
			s.Commits = append(s.Commits, e.oid)
		}
	}
	return s
}

// Comment posts a comment as u directly, as the web UI would.
func (h *Hub) Comment(dataset string, num int, u *User, text string) string {
	h.mu.Lock()
	rp := h.repos[dataset]
	d := rp.discs[num-1]
	e := h.newCommentLocked(d, u, text)
	h.emitLocked(rp, h.discussionPayloadLocked(rp, d, "create", "discussion.comment", e))
	h.mu.Unlock()
	h.deliverQueued()
	return e.id
}
