// Package filecache stores computed results in a folder, under keys that
// hash everything the results depend on, so that a later run reuses what
// has not changed. A cache never changes a result, only how fast it comes.
package filecache

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/internal/atomicfile"
)

// Dir is a cache of files in a folder, safe for concurrent use by several
// processes: entries are written to a temporary file and renamed.
type Dir string

func (d Dir) file(key string) string {
	if len(key) < 3 {
		key = "k-" + key
	}
	return filepath.Join(string(d), key[:2], key)
}

// Get returns the bytes stored under key. A missing or unreadable entry is
// a miss.
func (d Dir) Get(key string) ([]byte, bool) {
	data, err := os.ReadFile(d.file(key))
	return data, err == nil
}

// Put stores data under key. Failing to store is not an error: the value
// is computed again next time.
func (d Dir) Put(key string, data []byte) {
	dst := d.file(key)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return
	}
	// Unsynced: a lost entry is computed again, and a sync for each of a
	// run's thousand entries would cost seconds. Private to the owner, as
	// the entries have always been.
	_ = atomicfile.WriteUnsynced(dst, data, 0o600)
}

// EnvVar names the folder that benchgate's caches live in; the CLI and
// the App both read it.
const EnvVar = "BENCHGATE_CACHE_DIR"

// DefaultDir is where benchgate keeps its caches unless told otherwise:
// the folder named by BENCHGATE_CACHE_DIR (read through getenv), else
// benchgate/ in the user's cache folder, else "" for no cache.
func DefaultDir(getenv func(string) string) string {
	if d := strings.TrimSpace(getenv(EnvVar)); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "benchgate")
	}
	return ""
}

var (
	codeOnce sync.Once
	code     string
)

// CodeVersion identifies the running program's code, so that entries
// written by another build are never trusted: the VCS revision when the
// binary records a clean one, otherwise a hash of the executable itself.
func CodeVersion() string {
	codeOnce.Do(func() {
		if bi, ok := debug.ReadBuildInfo(); ok {
			var rev string
			modified := true
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
			if rev != "" && !modified {
				code = "rev:" + rev
				return
			}
		}
		if exe, err := os.Executable(); err == nil {
			if f, err := os.Open(exe); err == nil {
				h := sha256.New()
				if _, err := io.Copy(h, f); err == nil {
					code = "exe:" + hex.EncodeToString(h.Sum(nil))
				}
				f.Close()
			}
		}
	})
	return code
}
