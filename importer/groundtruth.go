package importer

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/jsondoc"
)

// Groundtruth's harness (main.py --score A.json B.json, in
// EigenformAI/groundtruth-dynamic-benchmarking) writes one JSON array that
// grades two answer files against a schema 2.0 rubric: per question id and
// question, and per side X (a, then b) answer_X, answer_X_clean,
// source_answer_X, score_X (an integer, or null when the judge's verdict
// broke the rubric's arithmetic three times), score_X_reason,
// score_X_gate_passed, score_X_components (id, awarded, maximum, reason),
// score_X_adjudication_required and score_X_adjudication_note, then the
// pairwise verdict. The judge is named in the run record beside it
// (groundtruthruns.go), not in the rows.

// GroundtruthRecord is one row of a rubric scores.json imported from one
// side of a Groundtruth scores file. The values are the source's, unchanged
// (numbers keep their text), so that verify judges what Groundtruth wrote.
// answer_b_clean is left out: Groundtruth's clean form (control tokens
// removed) is not benchgate's, and without it verify grades, and checks,
// the clean form of answer_b.
type GroundtruthRecord struct {
	ID                   string `json:"id"`
	Question             string `json:"question"`
	Answer               any    `json:"answer_b"`
	Score                any    `json:"score_b"`
	Reason               any    `json:"score_b_reason"`
	GatePassed           any    `json:"score_b_gate_passed"`
	Components           any    `json:"score_b_components"`
	AdjudicationRequired any    `json:"score_b_adjudication_required"`
	AdjudicationNote     any    `json:"score_b_adjudication_note"`
	JudgeModel           string `json:"judge_model"`
}

// GroundtruthSide is one side of a Groundtruth scores file to import: "a"
// or "b", and the provider's id of the model that answered on it.
type GroundtruthSide struct {
	Side, Model string
}

// Groundtruth reads a Groundtruth scores file (data, named file in
// messages) for rubric benchmark b and returns one run per side named.
// judge is the model that graded it (from the run record, or the
// maintainer), which must be b's fixed judge. Every question of b must be
// there once, with b's question text.
func Groundtruth(file string, data []byte, b *benchmark.Benchmark, sides []GroundtruthSide, judge string, opts Options) ([]*Run, error) {
	if b.Entry.Kind != benchmark.KindRubric {
		return nil, fmt.Errorf("benchmark %q is a %s benchmark; Groundtruth's scores grade a rubric benchmark", b.Entry.Key, b.Entry.Kind)
	}
	if judge != b.Entry.JudgeModel {
		return nil, fmt.Errorf("the scores were graded by %q, but benchmark %q is graded only by %q: scores from another judge cannot be a submission to it", judge, b.Entry.Key, b.Entry.JudgeModel)
	}
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil {
		if se, ok := err.(*jsondoc.SyntaxError); ok {
			return nil, inputErrorf(file, se.LineNumber(), "", "%s; the file is not valid JSON", se.Detail())
		}
		return nil, inputErrorf(file, 0, "", "%v", err)
	}
	if doc.Root.Kind != jsondoc.Array {
		return nil, inputErrorf(file, doc.Line(doc.Root.Off), "", "holds %s, not the array of rows that Groundtruth's main.py --score writes", doc.Root.Kind)
	}
	runs := make([]*Run, len(sides))
	rows := make([][]*GroundtruthRecord, len(sides))
	for i, s := range sides {
		if s.Side != "a" && s.Side != "b" {
			return nil, fmt.Errorf("side %q: a Groundtruth scores file has sides a and b", s.Side)
		}
		runs[i] = newRun(s.Model, true, b.Entry.Key, fmt.Sprintf("Imported from side %s of the Groundtruth scores %s, graded by %s.", strings.ToUpper(s.Side), filepath.Base(file), judge), opts)
		runs[i].Meta.JudgeModel = judge
		runs[i].PublishedCorrect = -1
		rows[i] = make([]*GroundtruthRecord, b.Questions())
	}
	seen := map[string]int{}
	for _, n := range doc.Root.Elems {
		line := doc.Line(n.Off)
		if n.Kind != jsondoc.Object {
			return nil, inputErrorf(file, line, "", "a row is %s, not an object", n.Kind)
		}
		id, err := str(file, line, n, "id")
		if err != nil {
			return nil, err
		}
		qi, err := placeQuestion(file, line, "id", b, seen, id, "the scores were made for another rubric")
		if err != nil {
			return nil, err
		}
		q, err := str(file, line, n, "question")
		if err != nil {
			return nil, err
		}
		if q != b.Rubric.Questions[qi].Text {
			return nil, inputErrorf(file, line, "question", "question %s: the text is not benchmark %q's; the answers were made for another version of the rubric", id, b.Entry.Key)
		}
		for i, s := range sides {
			rec, err := groundtruthRow(file, line, n, id, q, s.Side, judge)
			if err != nil {
				return nil, err
			}
			rows[i][qi] = rec
		}
	}
	if err := missingQuestions(file, b, seen); err != nil {
		return nil, err
	}
	for i, r := range runs {
		for _, rec := range rows[i] {
			r.Rubric = append(r.Rubric, *rec)
			if rec.Score != nil {
				r.Scored++
			}
		}
	}
	return runs, nil
}

// groundtruthRow converts side x of row n: each field must have its type.
func groundtruthRow(file string, line int, n *jsondoc.Node, id, q, x, judge string) (*GroundtruthRecord, error) {
	field := func(name string) string { return strings.Replace(name, "X", x, 1) }
	if n.Get(field("score_X")) == nil {
		return nil, inputErrorf(file, line, field("score_X"), "question %s: missing; this is not a Groundtruth scores file (main.py --score writes score_a and score_b), or side %s was not graded", id, x)
	}
	rec := &GroundtruthRecord{ID: id, Question: q, JudgeModel: judge}
	var err error
	check := func(dst *any, name string, kinds ...jsondoc.Kind) {
		if err != nil {
			return
		}
		v := n.Get(field(name))
		if v == nil || v.Kind == jsondoc.Null {
			return
		}
		for _, k := range kinds {
			if v.Kind == k {
				*dst = v.Value()
				return
			}
		}
		err = inputErrorf(file, line, field(name), "question %s: holds %s, want %s or null", id, v.Kind, kinds[0])
	}
	check(&rec.Answer, "answer_X", jsondoc.String)
	check(&rec.Score, "score_X", jsondoc.Number)
	check(&rec.Reason, "score_X_reason", jsondoc.String)
	check(&rec.GatePassed, "score_X_gate_passed", jsondoc.Bool)
	check(&rec.AdjudicationRequired, "score_X_adjudication_required", jsondoc.Bool)
	check(&rec.AdjudicationNote, "score_X_adjudication_note", jsondoc.String)
	check(&rec.Components, "score_X_components", jsondoc.Array)
	if err != nil {
		return nil, err
	}
	if cs := n.Get(field("score_X_components")); cs != nil && cs.Kind == jsondoc.Array {
		for _, c := range cs.Elems {
			if c.Kind != jsondoc.Object || c.Get("id") == nil || c.Get("id").Kind != jsondoc.String || !isNumber(c.Get("awarded")) || !isNumber(c.Get("maximum")) {
				return nil, inputErrorf(file, line, field("score_X_components"), "question %s: a component needs a string id and numbers awarded and maximum", id)
			}
		}
	}
	return rec, nil
}

func isNumber(n *jsondoc.Node) bool { return n != nil && n.Kind == jsondoc.Number }

// str reads the string member key of n, which must be there.
func str(file string, line int, n *jsondoc.Node, key string) (string, error) {
	v := n.Get(key)
	switch {
	case v == nil:
		return "", inputErrorf(file, line, key, "missing")
	case v.Kind != jsondoc.String || v.Str == "":
		return "", inputErrorf(file, line, key, "holds %s, want a non-empty string", v.Kind)
	}
	return v.Str, nil
}
