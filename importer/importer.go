// Package importer turns results that other projects publish into
// benchgate submissions: one Run per model, its scores.json rows in
// benchmark order and what its meta.json can say. For a multiple-choice
// benchmark every letter is re-read by the benchmark's extraction policy,
// and every disagreement with the published letter or verdict is kept as a
// Dispute; a rubric benchmark's grades are copied as they are, for the
// verifier to check.
//
// Each format has its reader: FormationEval's per-question CSV
// (formationeval.go), inspect_ai's evaluation logs (inspect.go) and
// Groundtruth's scores file (groundtruth.go) with its run records, which
// name the judge and the models (groundtruthruns.go). A reader parses strictly: a
// missing column or field, an unknown question, a duplicate or an
// impossible value is an *InputError naming the file, the line or entry,
// and the field. Writing and verifying the submissions is the command's
// job.
package importer

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/extract"
	"github.com/benchgate/benchgate/submission"
)

// Record is one row of an imported multiple-choice scores.json. It is
// submission.MCQRecord with response_truncated, which a source that stored
// cut responses needs, and an optional finish_reason, which not every
// source records (the schema allows null).
type Record struct {
	ID                string  `json:"id"`
	Response          string  `json:"response"`
	ResponseTruncated bool    `json:"response_truncated,omitempty"`
	Answer            *string `json:"answer"` // "A"–"D", or null when none was read
	Correct           bool    `json:"correct"`
	Pattern           *string `json:"pattern,omitempty"`
	FinishReason      *string `json:"finish_reason,omitempty"`
	Error             string  `json:"error,omitempty"`
	PromptTokens      *int    `json:"prompt_tokens,omitempty"`
	CompletionTokens  *int    `json:"completion_tokens,omitempty"`
}

// Dispute is a question where the letter the benchmark's policy reads in
// the response, or the verdict that follows from it, is not what the
// source published.
type Dispute struct {
	Question         string
	File             string
	Line             int    // of the question's row or entry in File; 0 when none
	Published        string // the source's letter, "" when it read none
	PublishedCorrect *bool  // the source's verdict, nil when it gives none
	Reread           string // the policy's letter, "" when it reads none
	Pattern          string // the rule that read Reread, "" when none
	Correct          bool   // Reread == key
}

func (d Dispute) String() string {
	where := d.File
	if d.Line > 0 {
		where = fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	pub := "letter " + letterOrNone(d.Published)
	if d.PublishedCorrect != nil {
		pub += fmt.Sprintf(" (correct %t)", *d.PublishedCorrect)
	}
	rule := "no rule matched"
	if d.Pattern != "" {
		rule = "rule " + d.Pattern
	}
	return fmt.Sprintf("%s: question %s: published %s, re-read %s (%s, correct %t)", where, d.Question, pub, letterOrNone(d.Reread), rule, d.Correct)
}

func letterOrNone(l string) string {
	if l == "" {
		return "none"
	}
	return l
}

// Run is one model's imported results on one benchmark.
type Run struct {
	Model   string // the model as the source names it
	Meta    submission.Meta
	Missing []string // meta.json fields the source cannot fill, for the maintainer
	Records []Record // mcq: the rows, in benchmark order
	Correct int      // mcq: rows whose written answer is the key
	// Rubric are a rubric benchmark's rows, in benchmark order, and Scored
	// counts those with a score.
	Rubric []GroundtruthRecord
	Scored int
	// PublishedCorrect counts the source's own correct verdicts; -1 when
	// it gives none.
	PublishedCorrect int
	Disputes         []Dispute
	// Truncated counts responses the source stored cut short;
	// Undecidable those of them whose letter the stored text cannot
	// decide, where the published letter is kept (the source read the
	// whole response) and verify reports the row as unverifiable.
	Truncated, Undecidable int
}

// importNotes is meta.json's notes for a multiple-choice import.
func importNotes(source string, policy extract.Policy) string {
	return fmt.Sprintf("Imported from %s; letters re-read with the %s policy.", source, policy.Name())
}

// Slug is the submission folder's name for the run: the model and the
// benchmark key, lowered, every character outside the slug alphabet made
// a hyphen.
func (r *Run) Slug() string {
	s := strings.ToLower(r.Model + "-" + r.Meta.RubricKey)
	s = slugBad.ReplaceAllString(s, "-")
	for strings.Contains(s, "..") {
		s = strings.ReplaceAll(s, "..", ".")
	}
	s = strings.Trim(s, "-._")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-._")
	}
	return s
}

var slugBad = regexp.MustCompile(`[^a-z0-9._-]+`)

// InputError is bad input: what is wrong, in which file, where, and in
// which field or column.
type InputError struct {
	File  string
	Line  int    // 0 when the problem is not on one line
	Field string // the column or JSON field; "" when none
	Msg   string
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func inputErrorf(file string, line int, field, format string, args ...any) error {
	return &InputError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// published is one question's answer as a source gives it, before the
// letter is re-read.
type published struct {
	id        string
	line      int
	response  string
	truncated bool
	letter    string // the source's letter, "" for none
	pattern   string // the source's rule name, "" for none
	correct   *bool  // the source's verdict, nil when it gives none
	finish    *string
	errText   string
	prompt    *int
	complete  *int
}

// add re-reads p's letter with policy and appends its row to r; rows are
// added in benchmark order. The letter
// written is the policy's, so that verify agrees with the row; only where
// the source stored a cut response that the policy cannot decide is the
// published letter kept, since the source read the whole of it.
func (r *Run) add(file string, it *benchmark.Item, policy extract.Policy, p published) {
	res := policy.Extract(p.response)
	letter, pattern := res.Letter, res.Pattern
	if p.truncated {
		r.Truncated++
		if !res.Final {
			r.Undecidable++
			letter, pattern = p.letter, p.pattern
		}
	}
	correct := letter == it.Key()
	if correct {
		r.Correct++
	}
	if p.correct != nil && *p.correct {
		r.PublishedCorrect++
	}
	if letter != p.letter || (p.correct != nil && *p.correct != correct) {
		r.Disputes = append(r.Disputes, Dispute{Question: p.id, File: file, Line: p.line, Published: p.letter, PublishedCorrect: p.correct, Reread: letter, Pattern: pattern, Correct: correct})
	}
	rec := Record{ID: p.id, Response: p.response, ResponseTruncated: p.truncated, Correct: correct, FinishReason: p.finish, Error: p.errText, PromptTokens: p.prompt, CompletionTokens: p.complete}
	if letter != "" {
		rec.Answer = &letter
	}
	if pattern != "" {
		rec.Pattern = &pattern
	}
	r.Records = append(r.Records, rec)
}

// checkLetter says whether s is a letter a source may publish: A–D, or
// empty for none.
func checkLetter(s string) bool {
	return s == "" || (len(s) == 1 && s[0] >= 'A' && s[0] <= 'D')
}

// policyFor returns the extraction policy of an mcq benchmark, or an error
// that says why it cannot be imported into.
func policyFor(b *benchmark.Benchmark) (extract.Policy, error) {
	if b.Entry.Kind != benchmark.KindMCQ {
		return extract.Policy{}, fmt.Errorf("benchmark %q is a %s benchmark; only multiple-choice (mcq) benchmarks can be imported into", b.Entry.Key, b.Entry.Kind)
	}
	p, err := extract.Lookup(b.Entry.Extraction)
	if err != nil {
		return extract.Policy{}, fmt.Errorf("benchmark %q: %v", b.Entry.Key, err)
	}
	return p, nil
}

// missingQuestions reports the questions of b that no row answered, for a
// source that must hold every one.
// placeQuestion finds question id, read on line from the named field of
// file, in b, and records it in seen (id → line): an id b lacks (made, says
// other, for something else) or one seen before is an *InputError.
func placeQuestion(file string, line int, field string, b *benchmark.Benchmark, seen map[string]int, id, other string) (int, error) {
	qi, ok := b.Index(id)
	if !ok {
		return 0, inputErrorf(file, line, field, "question %q is not in benchmark %q (%s); %s", id, b.Entry.Key, b.Entry.File, other)
	}
	if prev, dup := seen[id]; dup {
		return 0, inputErrorf(file, line, field, "question %q appears again (first on line %d); each question must have one row", id, prev)
	}
	seen[id] = line
	return qi, nil
}

func missingQuestions(file string, b *benchmark.Benchmark, seen map[string]int) error {
	var missing []string
	for i := 0; i < b.Questions(); i++ {
		if _, ok := seen[b.QuestionID(i)]; !ok {
			missing = append(missing, b.QuestionID(i))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	shown := missing
	if len(shown) > 3 {
		shown = shown[:3]
	}
	more := ""
	if len(missing) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(missing)-len(shown))
	}
	return inputErrorf(file, 0, "", "%d of the %d questions of benchmark %q have no result (%s%s); a submission must answer every question, so import the complete results", len(missing), b.Questions(), b.Entry.Key, strings.Join(shown, ", "), more)
}

// Options are what the command line adds to every run's meta.json: the
// source cannot say who submits the results, where to reach them, or
// (mostly) when the run was made.
type Options struct {
	Models    []string // the models to import; nil for all
	Submitter string   // "" leaves a placeholder to fill in
	Contact   string   // "" leaves a placeholder to fill in
	Date      string   // the day of the run, YYYY-MM-DD; "" uses Today
	Today     string   // the import's day, YYYY-MM-DD
}

// Placeholders stand in meta.json for what neither the source nor the
// command line said; the run's Missing lists each one.
var (
	SubmitterPlaceholder = submission.FillInValue(submission.SubmitterIs)
	ContactPlaceholder   = submission.FillInValue("a repository URL or a contact address")
)

// newRun starts the run of one model on the benchmark key with the
// meta.json its source and opts can fill; notes say where the results come
// from, and idKnown whether model is the provider's model id.
func newRun(model string, idKnown bool, key, notes string, opts Options) *Run {
	r := &Run{Model: model, PublishedCorrect: -1}
	r.Meta = submission.Meta{
		ModelName:        model,
		CandidateModelID: model,
		Submitter:        opts.Submitter,
		ContactOrRepo:    opts.Contact,
		RubricKey:        key,
		Date:             opts.Date,
		Notes:            notes,
	}
	r.Missing = append(r.Missing, "model_name (a display name; the source's model name stands in)")
	if !idKnown {
		r.Missing = append(r.Missing, "candidate_model_id (the provider's model id; the source's model name stands in)")
	}
	if r.Meta.Submitter == "" {
		r.Meta.Submitter = SubmitterPlaceholder
		r.Missing = append(r.Missing, "submitter ("+submission.SubmitterIs+"; or give --submitter)")
	}
	if r.Meta.ContactOrRepo == "" {
		r.Meta.ContactOrRepo = ContactPlaceholder
		r.Missing = append(r.Missing, "contact_or_repo (or give --contact)")
	}
	if r.Meta.Date == "" {
		r.Meta.Date = opts.Today
		r.Missing = append(r.Missing, "date (the day of the run; the import's day stands in, or give --date)")
	}
	return r
}

// selectModels keeps the models opts names, in the order given, or all of
// found when it names none; a name not found is an error listing them.
func selectModels(file string, found []string, opts Options) ([]string, error) {
	if len(opts.Models) == 0 {
		return found, nil
	}
	known := map[string]bool{}
	for _, m := range found {
		known[m] = true
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range opts.Models {
		if !known[m] {
			return nil, inputErrorf(file, 0, "", "no results for model %q; the file holds %s", m, strings.Join(found, ", "))
		}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out, nil
}
