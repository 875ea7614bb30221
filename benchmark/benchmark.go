package benchmark

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

// Load reads the benchmark of a registry entry from fsys. It returns a nil
// benchmark when the file has errors: a benchmark that fails its lint is
// not used to judge anyone's submission.
func Load(fsys fs.FS, e Entry) (*Benchmark, finding.List) {
	b, out := load(fsys, e)
	if out.HasErrors() {
		return nil, out
	}
	return b, out
}

// Lint is like Load but returns what it could read even when the file has
// errors, for reporting.
func Lint(fsys fs.FS, e Entry) (*Benchmark, finding.List) {
	return load(fsys, e)
}

func load(fsys fs.FS, e Entry) (*Benchmark, finding.List) {
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
	return b, out
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
