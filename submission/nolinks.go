package submission

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// errLink is why a name is not read: a symbolic link on its path.
var errLink = errors.New("symbolic link")

// NoLinks reads a leaderboard repository without following a symbolic
// link anywhere on a name's path, as the pull-request check does
// (layout.symlink, and a base branch whose links are not followed): a
// link merged into the repository, to a file of the machine reading it or
// to another file of the checkout, would otherwise be read as the
// registry, a benchmark or a submission and published. The App's
// regeneration and the CLI's verify and leaderboard read a checkout
// through it. Lstat and ReadDir still show links, as links, so that a
// submission holding one is reported.
//
// fsys must implement fs.ReadLinkFS, as os.DirFS does: without Lstat a
// link cannot be told from what it points to.
func NoLinks(fsys fs.FS) fs.FS { return linkFree{fsys} }

// linkFree is NoLinks's file system.
type linkFree struct{ fsys fs.FS }

// noLink returns an error naming the link when a folder on name's path
// is one, or name itself is and self is set. A name that cannot be
// looked at is left to the operation that follows to report.
func (l linkFree) noLink(op, name string, self bool) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return nil
	}
	for end := 0; end < len(name); end++ {
		i := strings.IndexByte(name[end:], '/')
		if i < 0 {
			if !self {
				return nil
			}
			end = len(name)
		} else {
			end += i
		}
		info, err := fs.Lstat(l.fsys, name[:end])
		if err != nil {
			return nil
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%s is a %w, which benchgate does not follow in a leaderboard repository; commit what it points to in its place", name[:end], errLink)}
		}
	}
	return nil
}

func (l linkFree) Open(name string) (fs.File, error) {
	if err := l.noLink("open", name, true); err != nil {
		return nil, err
	}
	return l.fsys.Open(name)
}

func (l linkFree) ReadFile(name string) ([]byte, error) {
	if err := l.noLink("read", name, true); err != nil {
		return nil, err
	}
	return fs.ReadFile(l.fsys, name)
}

func (l linkFree) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := l.noLink("readdir", name, true); err != nil {
		return nil, err
	}
	return fs.ReadDir(l.fsys, name)
}

func (l linkFree) Stat(name string) (fs.FileInfo, error) {
	if err := l.noLink("stat", name, true); err != nil {
		return nil, err
	}
	return fs.Stat(l.fsys, name)
}

// Lstat describes name itself, a link included, if no folder on its path
// is a link.
func (l linkFree) Lstat(name string) (fs.FileInfo, error) {
	if err := l.noLink("lstat", name, false); err != nil {
		return nil, err
	}
	return fs.Lstat(l.fsys, name)
}

// ReadLink reads what a link names, which follows nothing.
func (l linkFree) ReadLink(name string) (string, error) {
	if err := l.noLink("readlink", name, false); err != nil {
		return "", err
	}
	return fs.ReadLink(l.fsys, name)
}
