// Package submission parses the two files of a leaderboard submission,
// meta.json and scores.json, into checked types. It knows the files'
// formats; whether their content agrees with a benchmark is package
// verify's question.
package submission

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/schemas"
)

// The files of a submission folder.
const (
	MetaFile   = "meta.json"
	ScoresFile = "scores.json"
	ReadmeFile = "README.md"
)

// Dir is the folder that holds all submissions.
const Dir = "submissions"

// Track is the leaderboard a submission competes on.
type Track string

// The tracks.
const (
	// ModelTrack compares models, each run with the benchmark's own harness.
	ModelTrack Track = "model-benchmark"
	// HarnessTrack compares harnesses (agents, tools, prompting) around the
	// benchmark's pinned reference model.
	HarnessTrack Track = "harness-benchmark"
)

// Tracks lists the tracks.
var Tracks = []Track{ModelTrack, HarnessTrack}

// SlugPattern is the rule for a submission folder's name.
const SlugPattern = `^[a-z0-9][a-z0-9._-]{0,63}$`

var slugRe = regexp.MustCompile(SlugPattern)

// ValidSlug reports whether s may name a submission folder.
func ValidSlug(s string) bool { return slugRe.MatchString(s) }

// Meta is a parsed meta.json.
type Meta struct {
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
	PriceInput       *float64 // USD per million input tokens
	PriceOutput      *float64 // USD per million output tokens
	Temperature      *float64
	MaxTokens        *int

	// Lines of members, for findings about them.
	Lines map[string]int
}

// MarshalJSON writes meta.json as the schema spells it, optional fields
// omitted when unset: what ParseMeta reads back.
func (m *Meta) MarshalJSON() ([]byte, error) {
	type meta struct {
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
		PriceInput       *float64 `json:"price_input_per_mtok,omitempty"`
		PriceOutput      *float64 `json:"price_output_per_mtok,omitempty"`
		Temperature      *float64 `json:"temperature,omitempty"`
		MaxTokens        *int     `json:"max_tokens,omitempty"`
	}
	return json.Marshal(meta{m.ModelName, m.CandidateModelID, m.Submitter, m.ContactOrRepo, m.RubricKey, m.Date, m.JudgeModel,
		m.HarnessName, m.HarnessRepo, m.Notes, m.OpenWeights, m.PriceInput, m.PriceOutput, m.Temperature, m.MaxTokens})
}

// ParseMeta checks a parsed meta.json against its schema and converts it.
// It returns nil when the file is not valid.
func ParseMeta(file string, doc *jsondoc.Doc) (*Meta, finding.List) {
	if fs := schemas.Validate(schemas.Meta, file, doc); len(fs) > 0 {
		return nil, fs
	}
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
	if v := n.Get("open_weights"); v != nil {
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
	var out finding.List
	if _, err := time.Parse(time.DateOnly, m.Date); err != nil {
		out.Errorf("meta.date", file, m.Lines["date"], "", "date %q is not a real calendar date; write the evaluation date as YYYY-MM-DD", m.Date)
		return nil, out
	}
	for _, key := range textFields {
		if i, r, bad := hiddenRune(n.GetString(key), key == "notes"); bad {
			out.Errorf("meta.text", file, m.Lines[key], "", "%s holds the invisible character U+%04X at character %d; remove it: control characters and bidirectional overrides can make the leaderboard show other text than the file holds", key, r, i+1)
		}
	}
	return m, out
}

// textFields are the strings of meta.json that the leaderboard shows.
var textFields = []string{"model_name", "candidate_model_id", "submitter", "contact_or_repo", "rubric_key", "judge_model", "harness_name", "harness_repo", "notes"}

// hiddenRune finds the first character of s that safetext.Hidden reports
// (a control character, or a bidirectional embedding, override or
// isolate); multiline text may hold tabs and line breaks.
func hiddenRune(s string, multiline bool) (at int, r rune, found bool) {
	i := 0
	for _, r := range s {
		switch {
		case multiline && (r == '\n' || r == '\r' || r == '\t'):
		case safetext.Hidden(r):
			return i, r, true
		}
		i++
	}
	return 0, 0, false
}

// RubricRow is one row of a rubric benchmark's scores.json.
type RubricRow struct {
	ID          string
	Question    string
	Answer      string
	AnswerClean string
	Score       *jsondoc.Node // a number, or nil when the answer was not scored
	Reason      string
	GatePassed  *bool
	Components  []ComponentScore
	HasComps    bool // score_b_components is present and not null
	Adjudicate  bool
	AdjNote     string
	JudgeModel  string
	RubricSHA   string
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
			Reason:      n.GetString("score_b_reason"),
			AdjNote:     n.GetString("score_b_adjudication_note"),
			JudgeModel:  n.GetString("judge_model"),
			RubricSHA:   n.GetString("rubric_sha256"),
			ScoredAt:    n.GetString("scored_at"),
			Line:        doc.Line(n.Off),
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
