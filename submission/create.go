package submission

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/atomicfile"
)

// Create makes the new submission folder f in the repository whose root is
// the folder root, with its meta.json (meta, indented) and its scores.json
// (scores, unchanged), each written whole (atomicfile.Write), and returns
// the folder's path. It never replaces a submission: when the folder
// exists the error wraps fs.ErrExist, and a folder it made but could not
// fill is removed again, so that a failed Create leaves nothing half
// written.
func Create(root string, f Folder, meta *Meta, scores []byte) (string, error) {
	dir := filepath.Join(root, filepath.FromSlash(f.String()))
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return dir, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return dir, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return dir, err
	}
	err = atomicfile.Write(filepath.Join(dir, MetaFile), append(data, '\n'))
	if err == nil {
		err = atomicfile.Write(filepath.Join(dir, ScoresFile), scores)
	}
	if err != nil {
		os.RemoveAll(dir)
		return dir, err
	}
	return dir, nil
}
