// Package atomicfile replaces files whole: a reader sees the old content
// or the new, never part of either. The data goes to a temporary file in
// the same folder, which is renamed over the file; on any failure the
// temporary file is removed and the file is left as it was.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data, mode 0644, and syncs it to
// disk before the rename, so that after a crash the file too holds the
// old content or the new. It is for files that people keep: a
// leaderboard, a submission's files, answers that cost money to get.
func Write(path string, data []byte) error {
	return write(path, data, 0o644, true)
}

// WriteUnsynced replaces the file at path with data, mode perm, without
// syncing it: readers still never see part of it, but a crash may leave
// it empty or short. It is for files that can be computed again, such as
// cache entries, where a sync for each would cost more than it saves.
func WriteUnsynced(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm fs.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil && sync {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
