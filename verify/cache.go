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

// cacheRecord is a Result as the cache keeps it, and the only encoding of
// one there. Each type inside has a record of its own with every field
// named: the report's JSON leaves out the meta, the outcomes and each
// finding's severity, and Meta's JSON is meta.json, so neither may stand
// in for it. TestCacheRecordRoundTrip fills every field of Result by
// reflection, so a field added to one of these types and not to its
// record fails it.
type cacheRecord struct {
	Path      string
	RubricKey string
	Kind      benchmark.Kind
	Status    Status
	Errors    []findingRecord
	Warnings  []findingRecord
	Summary   Summary // its JSON keeps every field: pointers are omitted only when nil
	Meta      *metaRecord
	Outcomes  *outcomesRecord
}

type findingRecord struct {
	Severity finding.Severity
	Code     string
	File     string
	Line     int
	Question string
	Message  string
}

type metaRecord struct {
	ModelName        string
	CandidateModelID string
	Submitter        string
	ContactOrRepo    string
	RubricKey        string
	Date             string
	JudgeModel       string
	HarnessName      string
	HarnessRepo      string
	Notes            string
	OpenWeights      *bool
	PriceInput       *float64
	PriceOutput      *float64
	Temperature      *float64
	MaxTokens        *int
	Lines            map[string]int
}

// outcomesRecord holds the outcomes compactly: a letter a byte, a bool a
// '0' or '1'. An absent field is a nil slice, "" an empty one.
type outcomesRecord struct {
	Letters      *string `json:",omitempty"`
	Correct      *string `json:",omitempty"`
	Unverifiable *string `json:",omitempty"`
	Points       []int
	GatePassed   *string `json:",omitempty"`
}

func newCacheRecord(r Result) cacheRecord {
	rec := cacheRecord{
		Path:      r.Path,
		RubricKey: r.RubricKey,
		Kind:      r.Kind,
		Status:    r.Status,
		Errors:    findingRecords(r.Errors),
		Warnings:  findingRecords(r.Warnings),
		Summary:   r.Summary,
	}
	if m := r.Meta; m != nil {
		rec.Meta = &metaRecord{m.ModelName, m.CandidateModelID, m.Submitter, m.ContactOrRepo, m.RubricKey, m.Date, m.JudgeModel,
			m.HarnessName, m.HarnessRepo, m.Notes, m.OpenWeights, m.PriceInput, m.PriceOutput, m.Temperature, m.MaxTokens, m.Lines}
	}
	if o := r.Outcomes; o != nil {
		rec.Outcomes = &outcomesRecord{Letters: letters(o.Letters), Correct: bits(o.Correct), Unverifiable: bits(o.Unverifiable), Points: o.Points, GatePassed: bits(o.GatePassed)}
	}
	return rec
}

func (rec cacheRecord) result() Result {
	r := Result{
		Path:      rec.Path,
		RubricKey: rec.RubricKey,
		Kind:      rec.Kind,
		Status:    rec.Status,
		Errors:    findingList(rec.Errors),
		Warnings:  findingList(rec.Warnings),
		Summary:   rec.Summary,
	}
	if m := rec.Meta; m != nil {
		r.Meta = &submission.Meta{ModelName: m.ModelName, CandidateModelID: m.CandidateModelID, Submitter: m.Submitter,
			ContactOrRepo: m.ContactOrRepo, RubricKey: m.RubricKey, Date: m.Date, JudgeModel: m.JudgeModel,
			HarnessName: m.HarnessName, HarnessRepo: m.HarnessRepo, Notes: m.Notes, OpenWeights: m.OpenWeights,
			PriceInput: m.PriceInput, PriceOutput: m.PriceOutput, Temperature: m.Temperature, MaxTokens: m.MaxTokens, Lines: m.Lines}
	}
	if o := rec.Outcomes; o != nil {
		r.Outcomes = &Outcomes{Letters: unletters(o.Letters), Correct: unbits(o.Correct), Unverifiable: unbits(o.Unverifiable), Points: o.Points, GatePassed: unbits(o.GatePassed)}
	}
	return r
}

func findingRecords(l finding.List) []findingRecord {
	if l == nil {
		return nil
	}
	out := make([]findingRecord, len(l))
	for i, f := range l {
		out[i] = findingRecord{f.Severity, f.Code, f.File, f.Line, f.Question, f.Message}
	}
	return out
}

func findingList(rs []findingRecord) finding.List {
	if rs == nil {
		return nil
	}
	out := make(finding.List, len(rs))
	for i, f := range rs {
		out[i] = finding.Finding{Severity: f.Severity, Code: f.Code, File: f.File, Line: f.Line, Question: f.Question, Message: f.Message}
	}
	return out
}

func letters(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func unletters(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

func bits(b []bool) *string {
	if b == nil {
		return nil
	}
	s := make([]byte, len(b))
	for i, v := range b {
		s[i] = '0'
		if v {
			s[i] = '1'
		}
	}
	str := string(s)
	return &str
}

func unbits(s *string) []bool {
	if s == nil {
		return nil
	}
	b := make([]bool, len(*s))
	for i := range *s {
		b[i] = (*s)[i] == '1'
	}
	return b
}

func encodeResult(r Result) ([]byte, error) { return json.Marshal(newCacheRecord(r)) }

// Digest identifies everything r holds, as the cache encodes it: two
// results with the same digest are the same result. The leaderboard's
// ranking cache keys on it.
func (r *Result) Digest() ([sha256.Size]byte, error) {
	data, err := encodeResult(*r)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(data), nil
}

func decodeResult(data []byte) (Result, error) {
	var rec cacheRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return Result{}, err
	}
	return rec.result(), nil
}

// boardFingerprint hashes what every verification depends on besides the
// submission itself: the registry and every benchmark file it names.
func (v *Verifier) boardFingerprint() string {
	v.fpOnce.Do(func() {
		h := sha256.New()
		io.WriteString(h, filecache.CodeVersion()+"\n")
		o := v.opts
		io.WriteString(h, strconv.FormatInt(o.MaxFileBytes, 10)+" "+strconv.Itoa(o.MaxDepth)+" "+strconv.Itoa(o.MaxValues)+" "+strconv.FormatFloat(o.ReviewRate, 'g', -1, 64)+" "+o.Today.Format("2006-01-02")+" "+strconv.Quote(o.Submitter)+"\n")
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
