package fakehub

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// blob is a file's content as the Hub stores it: a git blob, or an LFS
// object behind a git blob holding its pointer (hf-hub.md §2.3).
type blob struct {
	content []byte
	lfs     bool
}

// gitOID is the git blob sha1 of data, which the tree listing's oid and a
// regular file's ETag carry (hf-hub.md §2.3).
func gitOID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func sha256Hex(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// lfsPointer is the git-lfs pointer text that `raw` serves for an LFS file
// (hf-hub.md §6 API side 4).
func lfsPointer(content []byte) []byte {
	return fmt.Appendf(nil, "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", sha256Hex(content), len(content))
}

// gitBytes is what git stores for b: the content, or the pointer.
func (b blob) gitBytes() []byte {
	if b.lfs {
		return lfsPointer(b.content)
	}
	return b.content
}

type commit struct {
	sha     string
	seq     int // creation order, which orders the commit listing
	parents []string
	title   string
	message string
	author  string // user name
	date    time.Time
	files   map[string]blob
}

type repo struct {
	id       string
	name     string // namespace/name
	owner    *User
	private  bool
	writers  map[string]bool // user names with write access
	commits  map[string]*commit
	refs     map[string]string // full ref name → sha
	discs    []*discussion     // index num-1
	numCount int
}

// newCommitLocked records a commit on top of parents with the given files.
func (h *Hub) newCommitLocked(r *repo, parents []string, files map[string]blob, title, message, author string) *commit {
	h.seq++
	hs := sha1.New()
	fmt.Fprintf(hs, "%s\x00%d\x00%s\x00%s\x00%s", r.name, h.seq, strings.Join(parents, ","), title, author)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(hs, "\x00%s\x00%s", p, gitOID(files[p].gitBytes()))
	}
	c := &commit{
		sha: hex.EncodeToString(hs.Sum(nil)), seq: h.seq, parents: parents,
		title: title, message: message, author: author, date: h.now(), files: files,
	}
	r.commits[c.sha] = c
	return c
}

// resolveRev maps a revision as the Hub accepts it (a branch name, a full
// ref, or a commit sha) to a commit.
func (r *repo) resolveRev(rev string) (*commit, bool) {
	for _, name := range []string{rev, "refs/heads/" + rev} {
		if sha, ok := r.refs[name]; ok {
			return r.commits[sha], true
		}
	}
	if c, ok := r.commits[rev]; ok && len(rev) == 40 {
		return c, true
	}
	return nil, false
}

// ancestors is every commit reachable from sha, itself included.
func (r *repo) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] || r.commits[s] == nil {
			continue
		}
		seen[s] = true
		stack = append(stack, r.commits[s].parents...)
	}
	return seen
}

// history lists the commits reachable from sha, newest first, as the
// commits listing does (hf-hub.md §2.2 "Commits of a revision").
func (r *repo) history(sha string) []*commit {
	var out []*commit
	for s := range r.ancestors(sha) {
		out = append(out, r.commits[s])
	}
	slices.SortFunc(out, func(a, b *commit) int { return b.seq - a.seq })
	return out
}

// mergeBase is the newest common ancestor of a and b.
func (r *repo) mergeBase(a, b string) *commit {
	inB := r.ancestors(b)
	for _, c := range r.history(a) {
		if inB[c.sha] {
			return c
		}
	}
	return nil
}

// changedPaths lists the paths whose blob differs between two file sets.
func changedPaths(from, to map[string]blob) []string {
	var out []string
	for p, b := range to {
		if old, ok := from[p]; !ok || gitOID(old.gitBytes()) != gitOID(b.gitBytes()) || old.lfs != b.lfs {
			out = append(out, p)
		}
	}
	for p := range from {
		if _, ok := to[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func sameBlob(a map[string]blob, b map[string]blob, p string) bool {
	x, okx := a[p]
	y, oky := b[p]
	if okx != oky {
		return false
	}
	return !okx || (x.lfs == y.lfs && string(x.content) == string(y.content))
}

// threeWay applies the PR's changes since the merge base onto main and
// lists the paths both sides changed differently.
func (r *repo) threeWay(prHead, mainHead string) (map[string]blob, []string) {
	pr, main := r.commits[prHead], r.commits[mainHead]
	base := r.mergeBase(prHead, mainHead)
	baseFiles := map[string]blob{}
	if base != nil {
		baseFiles = base.files
	}
	out := maps.Clone(main.files)
	var conflicts []string
	mainChanged := map[string]bool{}
	for _, p := range changedPaths(baseFiles, main.files) {
		mainChanged[p] = true
	}
	for _, p := range changedPaths(baseFiles, pr.files) {
		if mainChanged[p] && !sameBlob(main.files, pr.files, p) {
			conflicts = append(conflicts, p)
			continue
		}
		if b, ok := pr.files[p]; ok {
			out[p] = b
		} else {
			delete(out, p)
		}
	}
	return out, conflicts
}
