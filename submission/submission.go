// Package submission owns a leaderboard repository's submissions: where
// they live (submissions/<track>/<slug>/, in layout.go; Create makes a new
// folder) and the formats of their files (meta.json, scores.json of both
// kinds, and the answers file that `benchgate score` grades), both the
// tagged types that write them and the positioned readers that check
// them. Every other package asks it; whether a submission's content agrees
// with its benchmark is package verify's question.
package submission

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/schemas"
)

// Meta is meta.json: written by encoding/json as the schema spells it,
// optional fields omitted when unset, and read (with the line of each
// member) by ParseMeta.
type Meta struct {
	ModelName        string   `json:"model_name"`
	CandidateModelID string   `json:"candidate_model_id"`
	Submitter        string   `json:"submitter"`
	ContactOrRepo    string   `json:"contact_or_repo"`
	RubricKey        string   `json:"rubric_key"`
	Date             string   `json:"date"`
	JudgeModel       string   `json:"judge_model,omitempty"`
	HarnessName      string   `json:"harness_name,omitempty"`
	HarnessRepo      string   `json:"harness_repo,omitempty"`
	Notes            string   `json:"notes,omitempty"`
	OpenWeights      *bool    `json:"open_weights,omitempty"`
	PriceInput       *float64 `json:"price_input_per_mtok,omitempty"`  // USD per million input tokens
	PriceOutput      *float64 `json:"price_output_per_mtok,omitempty"` // USD per million output tokens
	Temperature      *float64 `json:"temperature,omitempty"`
	MaxTokens        *int     `json:"max_tokens,omitempty"`

	// Lines of members, for findings about them; set by ParseMeta.
	Lines map[string]int `json:"-"`
}

// ParseMeta checks a parsed meta.json against its schema and converts it.
// It returns nil when the file is not valid. A copy of the template that
// still holds placeholders has every one of them reported (meta.placeholder),
// with the schema's findings about the other members.
func ParseMeta(file string, doc *jsondoc.Doc) (*Meta, finding.List) {
	schemaFindings := schemas.Validate(schemas.Meta, file, doc)
	ph, template := placeholders(file, doc)
	if template || (len(ph) > 0 && len(schemaFindings) > 0) {
		// A placeholder's own schema finding (the date's pattern) would
		// say the same thing again.
		seen := map[int]bool{}
		for _, f := range ph {
			seen[f.Line] = true
		}
		for _, f := range schemaFindings {
			if !seen[f.Line] {
				ph = append(ph, f)
			}
		}
		return nil, ph
	}
	if len(schemaFindings) > 0 {
		return nil, schemaFindings
	}
	// What is left are values a tool left to fill in: they fail the
	// submission, but the rest of it is real, and is checked too.
	out := ph
	n := doc.Root
	m := &Meta{
		ModelName:        n.GetString("model_name"),
		CandidateModelID: n.GetString("candidate_model_id"),
		Submitter:        n.GetString("submitter"),
		ContactOrRepo:    n.GetString("contact_or_repo"),
		RubricKey:        n.GetString("rubric_key"),
		Date:             n.GetString("date"),
		JudgeModel:       strings.TrimSpace(n.GetString("judge_model")),
		HarnessName:      n.GetString("harness_name"),
		HarnessRepo:      n.GetString("harness_repo"),
		Notes:            n.GetString("notes"),
		Lines:            map[string]int{},
	}
	for _, mem := range n.Members {
		m.Lines[mem.Key] = doc.Line(mem.KeyOff)
	}
	// null is unknown, as absent is.
	if v := n.Get("open_weights"); v != nil && v.Kind == jsondoc.Bool {
		b := v.Bool
		m.OpenWeights = &b
	}
	m.PriceInput = float(n, "price_input_per_mtok")
	m.PriceOutput = float(n, "price_output_per_mtok")
	m.Temperature = float(n, "temperature")
	if v, ok := n.Get("max_tokens").Int(); ok {
		i := int(v)
		m.MaxTokens = &i
	}
	if _, err := time.Parse(time.DateOnly, m.Date); err != nil {
		out.Errorf("meta.date", file, m.Lines["date"], "", "date %q is not a real calendar date; write the evaluation date as YYYY-MM-DD", m.Date)
		return nil, out
	}
	for _, key := range shownFields {
		if where := Invisible(key, n.GetString(key), key == "notes"); where != "" {
			out.Errorf("meta.text", file, m.Lines[key], "", "%s; remove it: control, format and zero-width characters, tag characters and bidirectional controls can make the leaderboard show other text than the file holds, or carry text that no reader sees", where)
		}
	}
	for _, key := range shownFields {
		if cs := safetext.Confusables(n.GetString(key)); len(cs) > 0 {
			out.Warnf("meta.confusable", file, m.Lines[key], "", "%s %s; a name that mixes scripts to look like another can pass for it on the leaderboard: write it in one script, or a maintainer must confirm it", key, ConfusableWords(cs))
		}
	}
	return m, out
}

// RubricRow is one row of a rubric benchmark's scores.json.
type RubricRow struct {
	ID          string
	Question    string
	Answer      string
	AnswerClean string
	HasClean    bool          // answer_b_clean is present and not null
	Reasoning   string        // the reasoning text beside the reply, "" when absent
	Source      string        // answer_b_source: SourceReasoning, or "" when absent
	Score       *jsondoc.Node // a number, or nil when the answer was not scored
	Reason      string
	GatePassed  *bool
	Components  []ComponentScore
	HasComps    bool // score_b_components is present and not null
	Adjudicate  bool
	AdjNote     string
	JudgeModel  string
	RubricSHA   string
	PromptSHA   string // judge_prompt_sha256, "" when absent
	ScoredAt    string
	Line        int
}

// ComponentScore is the judge's award for one rubric component.
type ComponentScore struct {
	ID      string
	Awarded *jsondoc.Node
	Maximum *jsondoc.Node
	Reason  string
	Line    int
}

// ParseRubricScores checks a parsed rubric-kind scores.json against its
// schema and converts it. Numbers stay as nodes: whether 7.5 may stand where
// an integer belongs is a verification finding, with the question named.
func ParseRubricScores(file string, doc *jsondoc.Doc) ([]RubricRow, finding.List) {
	if fs := schemas.Validate(schemas.ScoresRubric, file, doc); len(fs) > 0 {
		return nil, fs
	}
	rows := make([]RubricRow, 0, len(doc.Root.Elems))
	for _, n := range doc.Root.Elems {
		r := RubricRow{
			ID:          n.GetString("id"),
			Question:    n.GetString("question"),
			Answer:      n.GetString("answer_b"),
			AnswerClean: n.GetString("answer_b_clean"),
			Reasoning:   n.GetString("reasoning"),
			Source:      n.GetString("answer_b_source"),
			Reason:      n.GetString("score_b_reason"),
			AdjNote:     n.GetString("score_b_adjudication_note"),
			JudgeModel:  n.GetString("judge_model"),
			RubricSHA:   n.GetString("rubric_sha256"),
			PromptSHA:   n.GetString("judge_prompt_sha256"),
			ScoredAt:    n.GetString("scored_at"),
			Line:        doc.Line(n.Off),
		}
		if c := n.Get("answer_b_clean"); c != nil && c.Kind == jsondoc.String {
			r.HasClean = true
		}
		if s := n.Get("score_b"); s != nil && s.Kind == jsondoc.Number {
			r.Score = s
		}
		if g := n.Get("score_b_gate_passed"); g != nil && g.Kind == jsondoc.Bool {
			b := g.Bool
			r.GatePassed = &b
		}
		if a := n.Get("score_b_adjudication_required"); a != nil {
			r.Adjudicate = a.Bool
		}
		if cs := n.Get("score_b_components"); cs != nil && cs.Kind == jsondoc.Array {
			r.HasComps = true
			for _, c := range cs.Elems {
				r.Components = append(r.Components, ComponentScore{
					ID:      c.GetString("id"),
					Awarded: c.Get("awarded"),
					Maximum: c.Get("maximum"),
					Reason:  c.GetString("reason"),
					Line:    doc.Line(c.Off),
				})
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// MCQRow is one row of a multiple-choice benchmark's scores.json.
type MCQRow struct {
	ID               string
	Response         string
	Reasoning        string // the reasoning text beside the response, "" when absent
	Truncated        bool
	Answer           string // "A"–"D", or "" for null
	Correct          bool
	Pattern          string
	FinishReason     string
	Error            string
	LatencyMS        *float64
	PromptTokens     *int64
	CompletionTokens *int64
	Line             int
}

// ParseMCQScores checks a parsed mcq-kind scores.json against its schema
// and converts it.
func ParseMCQScores(file string, doc *jsondoc.Doc) ([]MCQRow, finding.List) {
	if fs := schemas.Validate(schemas.ScoresMCQ, file, doc); len(fs) > 0 {
		return nil, fs
	}
	rows := make([]MCQRow, 0, len(doc.Root.Elems))
	for _, n := range doc.Root.Elems {
		r := MCQRow{
			ID:           n.GetString("id"),
			Response:     n.GetString("response"),
			Reasoning:    n.GetString("reasoning"),
			Answer:       n.GetString("answer"),
			Pattern:      n.GetString("pattern"),
			FinishReason: n.GetString("finish_reason"),
			Error:        n.GetString("error"),
			LatencyMS:    float(n, "latency_ms"),
			Line:         doc.Line(n.Off),
		}
		if t := n.Get("response_truncated"); t != nil {
			r.Truncated = t.Bool
		}
		r.Correct = n.Get("correct").Bool
		if v, ok := n.Get("prompt_tokens").Int(); ok {
			r.PromptTokens = &v
		}
		if v, ok := n.Get("completion_tokens").Int(); ok {
			r.CompletionTokens = &v
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func float(n *jsondoc.Node, key string) *float64 {
	if f, ok := n.Get(key).Float(); ok {
		return &f
	}
	return nil
}

// Describe names a submission for people: "model (submitter)".
func (m *Meta) Describe() string {
	return fmt.Sprintf("%s (%s)", m.ModelName, m.Submitter)
}

// ParseAnswers converts a parsed answers file (a Groundtruth answers
// array: id, question, answer_b, answer_b_clean, and optionally reasoning
// and answer_b_source, which older files lack). A row without an id, a
// question or an answer is an error naming its line: the file is then
// most likely another kind of file.
func ParseAnswers(file string, doc *jsondoc.Doc) ([]AnswerRow, finding.List) {
	var out finding.List
	if doc.Root.Kind != jsondoc.Array {
		out.Errorf("answers.shape", file, doc.Line(doc.Root.Off), "", "this is not an answers array (id, question, answer_b, answer_b_clean): it holds %s", doc.Root.Kind)
		return nil, out
	}
	rows := make([]AnswerRow, 0, len(doc.Root.Elems))
	for i, n := range doc.Root.Elems {
		row := AnswerRow{ID: n.GetString("id"), Question: n.GetString("question"), Answer: n.GetString("answer_b"), AnswerClean: n.GetString("answer_b_clean"), File: file, Line: doc.Line(n.Off)}
		if row.ID == "" || row.Question == "" || n.Get("answer_b") == nil {
			out.Errorf("answers.row", file, row.Line, row.ID, "row %d is not an answer: it needs an id, the question and answer_b; this file is not an answers array (id, question, answer_b, answer_b_clean)", i+1)
			return nil, out
		}
		for _, f := range []struct {
			key  string
			dest *string
		}{{"reasoning", &row.Reasoning}, {"answer_b_source", &row.AnswerSource}} {
			if v := n.Get(f.key); v != nil && v.Kind != jsondoc.Null {
				if v.Kind != jsondoc.String {
					out.Errorf("answers.row", file, doc.Line(v.Off), row.ID, "%s of row %d is %s; it is a string, or absent", f.key, i+1, v.Kind)
					return nil, out
				}
				*f.dest = v.Str
			}
		}
		if row.AnswerSource != "" && row.AnswerSource != SourceReasoning {
			out.Errorf("answers.row", file, row.Line, row.ID, "answer_b_source of row %d is %q; it is %q (the graded text was taken from the reasoning) or absent", i+1, row.AnswerSource, SourceReasoning)
			return nil, out
		}
		rows = append(rows, row)
	}
	return rows, nil
}
