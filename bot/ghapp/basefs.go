package ghapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/mdtext"
)

// BaseFS returns the tree at ref (a branch or commit sha) as an fs.FS read
// through the API: one recursive tree listing now, and each file's blob
// when it is first opened, then cached. Reads use ctx, so the FS stops
// working once ctx ends. Symbolic links are reported as links (Lstat,
// ReadDir) and never followed, so that the verifier can refuse them.
func (a *App) BaseFS(ctx context.Context, inst int64, repo, ref string) (fs.FS, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	var tree *github.Tree
	err = a.call(ctx, inst, fmt.Sprintf("listing %s at %s", repo, ref), func(gh *github.Client) error {
		var err error
		tree, _, err = gh.Git.GetTree(ctx, owner, name, ref, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	if tree.GetTruncated() {
		return nil, &bot.Unverifiable{Conclusion: prcheck.Neutral, Title: "The base branch is too large to read",
			Reason: fmt.Sprintf("GitHub lists the tree of `%s` at `%s` only in part (it stops at 100,000 entries or 7 MB), so benchgate cannot read the registry and the submissions reliably. The maintainers can keep generated or bulky files out of the leaderboard repository; until then, run `benchgate verify` in a checkout.", mdtext.Code(repo), mdtext.Code(ref))}
	}
	t := &treeFS{
		read:  func(sha string) ([]byte, error) { return a.blob(ctx, inst, owner, name, sha) },
		limit: a.cfg.MaxChangedBytes,
		nodes: map[string]*node{".": {name: ".", mode: fs.ModeDir | 0o555}},
		kids:  map[string][]*node{},
		cache: map[string][]byte{},
	}
	for _, e := range tree.Entries {
		p := e.GetPath()
		if !fs.ValidPath(p) || p == "." {
			continue
		}
		n := &node{name: path.Base(p), sha: e.GetSHA(), size: int64(e.GetSize())}
		switch {
		case e.GetType() == "tree":
			n.mode = fs.ModeDir | 0o555
		case e.GetType() == "blob" && e.GetMode() == "120000":
			n.mode = fs.ModeSymlink | 0o777
		case e.GetType() == "blob" && e.GetMode() == "100755":
			n.mode = 0o555
		case e.GetType() == "blob":
			n.mode = 0o444
		default:
			continue // submodules have no content here
		}
		t.add(p, n)
	}
	for _, list := range t.kids {
		slices.SortFunc(list, func(x, y *node) int { return strings.Compare(x.name, y.name) })
	}
	return t, nil
}

// node is one entry of the tree.
type node struct {
	name string
	sha  string
	size int64
	mode fs.FileMode
}

func (n *node) Name() string               { return n.name }
func (n *node) Size() int64                { return n.size }
func (n *node) Mode() fs.FileMode          { return n.mode }
func (n *node) ModTime() time.Time         { return time.Time{} }
func (n *node) IsDir() bool                { return n.mode.IsDir() }
func (n *node) Sys() any                   { return nil }
func (n *node) Type() fs.FileMode          { return n.mode.Type() }
func (n *node) Info() (fs.FileInfo, error) { return n, nil }
func (n *node) String() string             { return fs.FormatDirEntry(n) }

// treeFS is the base tree; it implements fs.ReadDirFS, fs.ReadFileFS,
// fs.StatFS and fs.ReadLinkFS.
type treeFS struct {
	read  func(sha string) ([]byte, error)
	limit int64
	nodes map[string]*node
	kids  map[string][]*node

	mu    sync.Mutex
	cache map[string][]byte // blob sha -> content
	bytes int64
}

// add records n at p, with any parent folders the listing left implicit.
func (t *treeFS) add(p string, n *node) {
	if _, ok := t.nodes[p]; ok {
		return // a folder named before its explicit entry, or a duplicate
	}
	t.nodes[p] = n
	dir := path.Dir(p)
	if _, ok := t.nodes[dir]; !ok {
		t.add(dir, &node{name: path.Base(dir), mode: fs.ModeDir | 0o555})
	}
	t.kids[dir] = append(t.kids[dir], n)
}

func (t *treeFS) lookup(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n, ok := t.nodes[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

// content reads a blob once, within the byte budget.
func (t *treeFS) content(op, name string, n *node) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if data, ok := t.cache[n.sha]; ok {
		return data, nil
	}
	if t.bytes+n.size > t.limit {
		return nil, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("reading it would pass the %d-byte budget for the base tree", t.limit)}
	}
	data, err := t.read(n.sha)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	t.cache[n.sha] = data
	t.bytes += int64(len(data))
	return data, nil
}

// Open opens a file or folder; a symbolic link is not followed, so opening
// one fails.
func (t *treeFS) Open(name string) (fs.File, error) {
	n, err := t.lookup("open", name)
	if err != nil {
		return nil, err
	}
	switch {
	case n.IsDir():
		return &dirFile{node: n, entries: t.kids[name]}, nil
	case n.mode&fs.ModeSymlink != 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("symbolic links are not followed")}
	}
	data, err := t.content("open", name, n)
	if err != nil {
		return nil, err
	}
	return &file{node: n, r: strings.NewReader(string(data))}, nil
}

// ReadFile reads a file's content.
func (t *treeFS) ReadFile(name string) ([]byte, error) {
	f, err := t.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fl, ok := f.(*file); ok {
		return io.ReadAll(fl.r)
	}
	return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a folder")}
}

// ReadDir lists a folder, sorted by name.
func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := t.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	out := make([]fs.DirEntry, len(t.kids[name]))
	for i, k := range t.kids[name] {
		out[i] = k
	}
	return out, nil
}

// Stat describes name; a symbolic link is described as itself.
func (t *treeFS) Stat(name string) (fs.FileInfo, error) { return t.lookup("stat", name) }

// Lstat describes name without following a symbolic link.
func (t *treeFS) Lstat(name string) (fs.FileInfo, error) { return t.lookup("lstat", name) }

// ReadLink returns a symbolic link's target.
func (t *treeFS) ReadLink(name string) (string, error) {
	n, err := t.lookup("readlink", name)
	if err != nil {
		return "", err
	}
	if n.mode&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	data, err := t.content("readlink", name, n)
	return string(data), err
}

// file is an open regular file.
type file struct {
	node *node
	r    *strings.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return f.node, nil }
func (f *file) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *file) Close() error               { return nil }

// dirFile is an open folder.
type dirFile struct {
	node    *node
	entries []*node
	off     int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.node, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.node.name, Err: errors.New("is a folder")}
}
func (d *dirFile) Close() error { return nil }

// ReadDir follows fs.ReadDirFile's contract.
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	d.off += len(rest)
	out := make([]fs.DirEntry, len(rest))
	for i, k := range rest {
		out[i] = k
	}
	return out, nil
}
