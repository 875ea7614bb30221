// Package schemas holds the JSON Schemas (draft 2020-12) of every file
// benchgate reads, embedded in the binary, and validates parsed documents
// against them, reporting each violation with its file, line and question.
package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Name identifies one schema.
type Name string

// The schemas.
const (
	Registry     Name = "registry"
	Rubric       Name = "rubric"
	MCQItem      Name = "mcq-item"
	Meta         Name = "meta"
	ScoresRubric Name = "scores-rubric"
	ScoresMCQ    Name = "scores-mcq"
	Leaderboard  Name = "leaderboard"
	// CalibrationRecord is a rubric benchmark's calibration record
	// (benchmark.RecordPath).
	CalibrationRecord Name = "calibration-record"
	// Reproduction is what `benchgate reproduce --record` writes
	// (reproduce.RecordPath).
	Reproduction Name = "reproduction"
	// Acceptance is what `benchgate accept` writes
	// (acceptance.RecordPath).
	Acceptance Name = "acceptance"
)

// All lists every schema name.
var All = []Name{Registry, Rubric, MCQItem, Meta, ScoresRubric, ScoresMCQ, Leaderboard, CalibrationRecord, Reproduction, Acceptance}

//go:embed *.schema.json
var files embed.FS

// MaxFindings caps the schema errors reported for one file; a file that is
// wrong everywhere is usually wrong in one way, and thousands of lines of
// errors help no one.
const MaxFindings = 50

var (
	compileOnce sync.Once
	compiled    map[Name]*schema
	compileErr  error
)

// Source returns the text of a schema.
func Source(n Name) ([]byte, error) {
	return files.ReadFile(string(n) + ".schema.json")
}

func url(n Name) string { return "https://benchgate.github.io/schemas/" + string(n) + ".schema.json" }

// compile checks every embedded schema against the draft 2020-12
// meta-schema, then compiles it for validation.
func compile() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	// Never fetch anything: every reference is to an embedded schema.
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s is not embedded", s)
	}
	compiled = make(map[Name]*schema, len(All))
	for _, n := range All {
		src, err := Source(n)
		if err != nil {
			compileErr = err
			return
		}
		if err := c.AddResource(url(n), bytes.NewReader(src)); err != nil {
			compileErr = fmt.Errorf("schema %s: %w", n, err)
			return
		}
		if _, err := c.Compile(url(n)); err != nil {
			compileErr = fmt.Errorf("schema %s: %w", n, err)
			return
		}
		s, err := compileSchema(src)
		if err != nil {
			compileErr = fmt.Errorf("schema %s: %w", n, err)
			return
		}
		compiled[n] = s
	}
}

// Validate checks a parsed document against schema n. file names the
// document in the findings.
func Validate(n Name, file string, doc *jsondoc.Doc) finding.List {
	return ValidateNode(n, file, doc, doc.Root, "")
}

// ValidateNode checks one node of a document (for example one line of a
// JSONL file) against schema n; prefix is the node's JSON pointer in doc.
func ValidateNode(n Name, file string, doc *jsondoc.Doc, node *jsondoc.Node, prefix string) finding.List {
	compileOnce.Do(compile)
	var out finding.List
	if compileErr != nil {
		out.Errorf("internal", file, 0, "", "the embedded schema could not be compiled: %v", compileErr)
		return out
	}
	v := &validator{file: string(n) + ".schema.json"}
	v.validate(compiled[n], node, "")
	if len(v.out) == 0 {
		return nil
	}
	sort.SliceStable(v.out, func(i, j int) bool { return v.out[i].off < v.out[j].off })
	for i, x := range v.out {
		if i == MaxFindings {
			out.Errorf("schema", file, 0, "", "%d more schema errors not shown; fix the ones above first", len(v.out)-MaxFindings)
			break
		}
		ptr := prefix + x.ptr
		where := ptr
		if where == "" {
			where = "the top level"
		}
		out.Errorf("schema", file, doc.Line(x.off), QuestionAt(doc, ptr), "%s: %s", where, x.msg)
	}
	return out
}

// QuestionAt returns the id of the question that a JSON pointer falls in:
// the element of a top-level array, or of a top-level "questions" array.
func QuestionAt(doc *jsondoc.Doc, ptr string) string {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	n := doc.Root
	if n == nil || ptr == "" {
		return ""
	}
	if n.Kind == jsondoc.Object && toks[0] == "questions" {
		n, toks = n.Get("questions"), toks[1:]
	}
	if n == nil || n.Kind != jsondoc.Array || len(toks) == 0 {
		return ""
	}
	i, err := strconv.Atoi(toks[0])
	if err != nil || i < 0 || i >= len(n.Elems) {
		return ""
	}
	if id := n.Elems[i].Get("id"); id != nil && id.Kind == jsondoc.String {
		return id.Str
	}
	return ""
}

// ParseFormatted parses data, the file of a versioned format whose
// "format" member must be format, and validates it against schema n. A
// file of another format gets one finding (code), not the schema's many;
// every finding ends with again, what to do about it. The document is nil
// when there are findings.
func ParseFormatted(n Name, format, code, file string, data []byte, again string) (*jsondoc.Doc, finding.List) {
	var out finding.List
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil {
		f := finding.FromError("json.syntax", file, err)
		f.Message += "; " + again
		return nil, append(out, f)
	}
	if fn := doc.Root.Get("format"); fn != nil && fn.Kind == jsondoc.String && fn.Str != format {
		out.Errorf(code, file, doc.Line(fn.Off), "", "format is %q, but this benchgate reads only %q; %s", fn.Str, format, again)
		return nil, out
	}
	if fs := Validate(n, file, doc); len(fs) > 0 {
		for i := range fs {
			fs[i].Message += "; " + again
		}
		return nil, append(out, fs...)
	}
	return doc, nil
}
