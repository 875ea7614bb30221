package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/submission"
)

// Cache keeps verification results under keys that change whenever
// anything a result depends on changes: the files of the submission, the
// registry and benchmark files, the options and the verifier's own code.
// A cache never changes a result, only how fast it comes.
type Cache interface {
	Get(key string) (Result, bool)
	Put(key string, r Result)
}

// DirCache is a Cache of files in a folder, safe for concurrent use by
// several processes: entries are written to a temporary file and renamed.
type DirCache string

func (d DirCache) file(key string) string {
	return filepath.Join(string(d), key[:2], key+".json")
}

// Get returns the result stored under key. A missing or unreadable entry
// is a miss.
func (d DirCache) Get(key string) (Result, bool) {
	data, err := os.ReadFile(d.file(key))
	if err != nil {
		return Result{}, false
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return Result{}, false
	}
	r := e.Result
	r.Meta, r.Outcomes = e.Meta, e.Outcomes
	for i := range r.Warnings {
		r.Warnings[i].Severity = finding.Warning
	}
	return r, true
}

// cacheEntry is a Result with the fields that its JSON form leaves out.
type cacheEntry struct {
	Result   Result
	Meta     *submission.Meta
	Outcomes *Outcomes
}

// Put stores r under key. Failing to store is not an error: the result
// will be computed again next time.
func (d DirCache) Put(key string, r Result) {
	data, err := json.Marshal(cacheEntry{Result: r, Meta: r.Meta, Outcomes: r.Outcomes})
	if err != nil {
		return
	}
	dst := d.file(key)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), dst) != nil {
		os.Remove(tmp.Name())
	}
}

var (
	codeOnce sync.Once
	codeHash string
)

// codeVersion identifies the verifier's code, so that a cache filled by
// another build is never trusted: the VCS revision when the binary records
// a clean one, otherwise a hash of the executable itself.
func codeVersion() string {
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
				codeHash = "rev:" + rev
				return
			}
		}
		if exe, err := os.Executable(); err == nil {
			if f, err := os.Open(exe); err == nil {
				h := sha256.New()
				if _, err := io.Copy(h, f); err == nil {
					codeHash = "exe:" + hex.EncodeToString(h.Sum(nil))
				}
				f.Close()
			}
		}
	})
	return codeHash
}

// boardFingerprint hashes what every verification depends on besides the
// submission itself: the registry and every benchmark file it names.
func (v *Verifier) boardFingerprint() string {
	v.fpOnce.Do(func() {
		h := sha256.New()
		io.WriteString(h, codeVersion()+"\n")
		o := v.opts
		io.WriteString(h, strconv.FormatInt(o.MaxFileBytes, 10)+" "+strconv.Itoa(o.MaxDepth)+" "+strconv.FormatFloat(o.ReviewRate, 'g', -1, 64)+" "+o.Today.Format("2006-01-02")+"\n")
		files := []string{benchmark.RegistryFile}
		for _, e := range v.registry.Entries {
			files = append(files, e.File)
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := jsondoc.ReadFile(v.fsys, f, benchmark.MaxBenchmarkBytes)
			sum := sha256.Sum256(data)
			io.WriteString(h, f+" "+hex.EncodeToString(sum[:])+" "+strconv.FormatBool(err == nil)+"\n")
		}
		v.fingerprint = hex.EncodeToString(h.Sum(nil))
	})
	return v.fingerprint
}

// cacheKey hashes a submission folder's entries and contents with the
// board's fingerprint. It returns "" when the folder cannot be hashed
// (then the result is not cached).
func (v *Verifier) cacheKey(dir string) string {
	entries, err := fs.ReadDir(v.fsys, dir)
	if err != nil {
		return ""
	}
	h := sha256.New()
	io.WriteString(h, v.boardFingerprint()+"\n"+dir+"\n")
	for _, e := range entries {
		name := path.Join(dir, e.Name())
		io.WriteString(h, e.Name()+" "+e.Type().String()+"\n")
		if !e.Type().IsRegular() {
			continue
		}
		data, err := jsondoc.ReadFile(v.fsys, name, v.opts.MaxFileBytes)
		if err != nil {
			return ""
		}
		sum := sha256.Sum256(data)
		io.WriteString(h, hex.EncodeToString(sum[:])+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}
