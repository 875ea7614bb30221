package benchmark

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/schemas"
)

// Benchmark is a loaded, valid benchmark.
type Benchmark struct {
	Entry  Entry
	SHA256 string // of the benchmark file's bytes

	Rubric *Rubric   // rubric kind
	Items  []Item    // mcq kind
	Stats  *MCQStats // mcq kind
	// Record is the rubric's calibration record (RecordPath), nil when
	// there is none or it cannot be used: malformed, or stale (made for
	// another rubric file, judge or judge contract).
	Record *CalibrationRecord
	byID   map[string]int
}

// Questions returns the number of questions.
func (b *Benchmark) Questions() int {
	if b.Rubric != nil {
		return len(b.Rubric.Questions)
	}
	return len(b.Items)
}

// QuestionID returns the id of question i, in benchmark order.
func (b *Benchmark) QuestionID(i int) string {
	if b.Rubric != nil {
		return b.Rubric.Questions[i].ID
	}
	return b.Items[i].ID
}

// Index returns the position of the question with the given id.
func (b *Benchmark) Index(id string) (int, bool) {
	i, ok := b.byID[id]
	return i, ok
}

// Load reads the benchmark of a registry entry from fsys, with its
// calibration record when it has one. It returns a nil benchmark when the
// file has errors: a benchmark that fails its lint is not used to judge
// anyone's submission. A record that cannot be used is only a warning
// (record.invalid, or record.stale), and Record is nil: the spot-check
// does without it, and submissions verify as they would without it.
func Load(fsys fs.FS, e Entry) (*Benchmark, finding.List) {
	b, out := load(fsys, e, false)
	if out.HasErrors() {
		return nil, out
	}
	return b, out
}

// Lint is like Load but returns what it could read even when the file has
// errors, for reporting; each error of the calibration record is an error
// here.
func Lint(fsys fs.FS, e Entry) (*Benchmark, finding.List) {
	return load(fsys, e, true)
}

func load(fsys fs.FS, e Entry, lint bool) (*Benchmark, finding.List) {
	var out finding.List
	data, err := jsondoc.ReadFile(fsys, e.File, MaxBenchmarkBytes)
	if err != nil {
		out.Errorf("benchmark.read", e.File, 0, "", "cannot read benchmark %q: %v", e.Key, err)
		return nil, out
	}
	sum := sha256.Sum256(data)
	b := &Benchmark{Entry: e, SHA256: hex.EncodeToString(sum[:])}
	kind := e.Kind
	if kind == "" {
		kind = Sniff(data)
		b.Entry.Kind = kind
	}
	switch kind {
	case KindMCQ:
		items, fs := parseMCQ(e.File, data)
		out = append(out, fs...)
		b.Items = items
		b.Stats = mcqStats(e.File, items, &out)
	default:
		doc, err := jsondoc.Parse(data, jsondoc.Limits{})
		if err != nil {
			return nil, append(out, finding.FromError("json.syntax", e.File, err))
		}
		if fs := schemas.Validate(schemas.Rubric, e.File, doc); len(fs) > 0 {
			return nil, append(out, fs...)
		}
		r, fs := parseRubric(e.File, doc)
		out = append(out, fs...)
		b.Rubric = r
	}
	b.byID = make(map[string]int, b.Questions())
	for i := 0; i < b.Questions(); i++ {
		if _, dup := b.byID[b.QuestionID(i)]; !dup {
			b.byID[b.QuestionID(i)] = i
		}
	}
	if e.Problem != "" {
		out.Errorf("registry.entry", RegistryFile, e.Line, "", "benchmark %q: %s", e.Key, e.Problem)
	}
	// A record is checked against a usable rubric only.
	if b.Rubric != nil && !out.HasErrors() {
		rec, fs := readRecord(fsys, b)
		if !lint {
			fs = folded(fs, e.Key)
		}
		b.Record = rec
		out = append(out, fs...)
	}
	return b, out
}

// folded turns the errors of a calibration record into one warning,
// record.invalid, quoting the first: the record is Lint's business, and
// its errors must not stop the benchmark from verifying submissions.
func folded(fs finding.List, key string) finding.List {
	errs, warns := fs.Split()
	if len(errs) == 0 {
		return fs
	}
	first, more := errs[0], ""
	if len(errs) > 1 {
		more = fmt.Sprintf(" (and %d more; see `benchgate lint-benchmark %s`)", len(errs)-1, key)
	}
	warns.Warnf("record.invalid", first.File, first.Line, first.Question, "the calibration record cannot be used, so the spot-check will do without it: %s%s", first.Message, more)
	return warns
}

// Sniff guesses a benchmark file's kind from its content: a rubric is a JSON
// object with a schema_version; anything else is taken as multiple choice.
func Sniff(data []byte) Kind {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) > 0 && t[0] == '{' && bytes.Contains(data, []byte(`"schema_version"`)) && bytes.Contains(data, []byte(`"questions"`)) {
		return KindRubric
	}
	return KindMCQ
}
