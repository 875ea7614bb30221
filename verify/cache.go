package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/submission"
)

// Store keeps bytes under keys; filecache.Dir is one.
type Store interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte)
}

// Results are cached under keys that change whenever anything a result
// depends on changes: the files of the submission, the registry and
// benchmark files, the options and the verifier's own code.

// cacheEntry is a Result with the fields that its JSON form leaves out, the
// outcomes in a compact form.
type cacheEntry struct {
	Result     Result
	Meta       *submission.Meta
	Letters    string `json:",omitempty"`
	Correct    string `json:",omitempty"` // '1' for correct, '0' otherwise
	Points     []int  `json:",omitempty"`
	GatePassed string `json:",omitempty"`
	HasOut     bool
}

func bits(b []bool) string {
	s := make([]byte, len(b))
	for i, v := range b {
		s[i] = '0'
		if v {
			s[i] = '1'
		}
	}
	return string(s)
}

func unbits(s string) []bool {
	if s == "" {
		return nil
	}
	b := make([]bool, len(s))
	for i := range s {
		b[i] = s[i] == '1'
	}
	return b
}

func encodeResult(r Result) ([]byte, error) {
	e := cacheEntry{Result: r, Meta: r.Meta}
	if o := r.Outcomes; o != nil {
		e.HasOut = true
		e.Letters, e.Correct, e.Points, e.GatePassed = string(o.Letters), bits(o.Correct), o.Points, bits(o.GatePassed)
	}
	return json.Marshal(e)
}

func decodeResult(data []byte) (Result, bool) {
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return Result{}, false
	}
	r := e.Result
	r.Meta = e.Meta
	if e.HasOut {
		r.Outcomes = &Outcomes{Correct: unbits(e.Correct), Points: e.Points, GatePassed: unbits(e.GatePassed)}
		if e.Letters != "" || e.Correct != "" {
			r.Outcomes.Letters = []byte(e.Letters)
		}
	}
	for i := range r.Warnings {
		r.Warnings[i].Severity = finding.Warning
	}
	return r, true
}

// boardFingerprint hashes what every verification depends on besides the
// submission itself: the registry and every benchmark file it names.
func (v *Verifier) boardFingerprint() string {
	v.fpOnce.Do(func() {
		h := sha256.New()
		io.WriteString(h, filecache.CodeVersion()+"\n")
		o := v.opts
		io.WriteString(h, strconv.FormatInt(o.MaxFileBytes, 10)+" "+strconv.Itoa(o.MaxDepth)+" "+strconv.Itoa(o.MaxValues)+" "+strconv.FormatFloat(o.ReviewRate, 'g', -1, 64)+" "+o.Today.Format("2006-01-02")+"\n")
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
