// Package schemas holds the JSON Schemas (draft 2020-12) of every file
// benchgate reads, embedded in the binary, and validates parsed documents
// against them, reporting each violation with its file, line and question.
package schemas

import (
	"bytes"
	"embed"
	"errors"
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
)

// All lists every schema name.
var All = []Name{Registry, Rubric, MCQItem, Meta, ScoresRubric, ScoresMCQ}

//go:embed *.schema.json
var files embed.FS

// MaxFindings caps the schema errors reported for one file; a file that is
// wrong everywhere is usually wrong in one way, and thousands of lines of
// errors help no one.
const MaxFindings = 50

var (
	compileOnce sync.Once
	compiled    map[Name]*jsonschema.Schema
	compileErr  error
)

// Source returns the text of a schema.
func Source(n Name) ([]byte, error) {
	return files.ReadFile(string(n) + ".schema.json")
}

func url(n Name) string { return "https://benchgate.github.io/schemas/" + string(n) + ".schema.json" }

func compile() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	// Never fetch anything: every reference is to an embedded schema.
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s is not embedded", s)
	}
	compiled = make(map[Name]*jsonschema.Schema, len(All))
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
	}
	for _, n := range All {
		s, err := c.Compile(url(n))
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
	err := compiled[n].Validate(node.Value())
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		out.Errorf("schema", file, 0, "", "%v", err)
		return out
	}
	leaves := leafErrors(ve, nil)
	sort.SliceStable(leaves, func(i, j int) bool {
		return lessPointer(leaves[i].InstanceLocation, leaves[j].InstanceLocation)
	})
	for i, l := range leaves {
		if i == MaxFindings {
			out.Errorf("schema", file, 0, "", "%d more schema errors not shown; fix the ones above first", len(leaves)-MaxFindings)
			break
		}
		ptr := prefix + l.InstanceLocation
		at := doc.Lookup(ptr)
		off, msg := at.Off, l.Message
		if names, ok := strings.CutPrefix(msg, "additionalProperties "); ok {
			// Point at the unknown key itself, and say what to do.
			names = strings.TrimSuffix(names, " not allowed")
			msg = "unknown field " + names + "; check its spelling against schemas/" + string(n) + ".schema.json"
			if first, _, ok := strings.Cut(strings.TrimPrefix(names, "'"), "'"); ok {
				for _, m := range at.Members {
					if m.Key == first {
						off = m.KeyOff
					}
				}
			}
		}
		where := ptr
		if where == "" {
			where = "the top level"
		}
		out.Errorf("schema", file, doc.Line(off), QuestionAt(doc, ptr), "%s: %s", where, msg)
	}
	return out
}

// leafErrors flattens a validation error into the errors that explain it.
// A oneOf or anyOf that failed is kept whole: listing why each alternative
// failed confuses more than it helps.
func leafErrors(ve *jsonschema.ValidationError, acc []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	kw := ve.KeywordLocation[strings.LastIndexByte(ve.KeywordLocation, '/')+1:]
	if len(ve.Causes) == 0 || kw == "oneOf" || kw == "anyOf" {
		if kw == "oneOf" || kw == "anyOf" {
			ve = &jsonschema.ValidationError{InstanceLocation: ve.InstanceLocation, Message: "has none of the accepted shapes (" + alternatives(ve) + ")"}
		}
		return append(acc, ve)
	}
	for _, c := range ve.Causes {
		acc = leafErrors(c, acc)
	}
	return acc
}

func alternatives(ve *jsonschema.ValidationError) string {
	var msgs []string
	for _, c := range ve.Causes {
		for _, l := range leafErrors(c, nil) {
			msgs = append(msgs, l.Message)
		}
	}
	return strings.Join(msgs, "; or ")
}

// lessPointer orders JSON pointers by document order where they share an
// array, so that row 10 follows row 9.
func lessPointer(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] == bs[i] {
			continue
		}
		ai, aerr := strconv.Atoi(as[i])
		bi, berr := strconv.Atoi(bs[i])
		if aerr == nil && berr == nil {
			return ai < bi
		}
		return as[i] < bs[i]
	}
	return len(as) < len(bs)
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
