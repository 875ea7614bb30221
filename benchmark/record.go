package benchmark

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/schemas"
)

// RecordFormat names the calibration record's format and its version: a
// record of another format is refused whole rather than misread.
const RecordFormat = "benchgate calibration record 1"

// MaxRecordBytes caps the size of a calibration record, some hundreds of
// thousands of grades.
const MaxRecordBytes = 64 << 20

// RecordPath returns where the calibration record of entry e's benchmark
// is kept: beside the benchmark file, named like it with
// ".calibration.json" for its extension (rubrics/basin-analysis.json has
// rubrics/basin-analysis.calibration.json). It is the one rule: calibrate
// writes there, and Load and Lint read there.
func RecordPath(e Entry) string {
	return strings.TrimSuffix(e.File, path.Ext(e.File)) + ".calibration.json"
}

// CalibrationRecord is the fixed judge's own grades of a rubric's
// calibration fixtures, made on a known day (`benchgate calibrate
// --record`), every fixture graded Runs times. It lets a later check
// compare the judge's grades with its own earlier ones, not only with the
// grades the rubric's authors expect, and measures how often the judge
// disagrees largely with those. It holds for the rubric file, judge and
// judge contract it names only.
type CalibrationRecord struct {
	File         string // the record's path, as read
	Benchmark    string // the registry key
	RubricSHA256 string // of the benchmark file graded (Benchmark.SHA256)
	JudgeModel   string
	Judge        JudgeParams // the judge contract the grades were made under
	// JudgePromptSHA256 is the digest of the contract's prompt file then,
	// "" for benchgate's own prompt.
	JudgePromptSHA256 string
	Recorded          string // the UTC day of the grading, YYYY-MM-DD
	Runs              int    // the runs are numbered 1..Runs
	Grades            []RecordedGrade
	Unscored          []UnscoredGrade
}

// RecordedGrade is the judge's grade of one fixture in one run.
type RecordedGrade struct {
	QuestionID string
	FixtureID  string
	Run        int
	GatePassed bool
	Total      int
	Line       int // in the record's file; 0 for a grade not read from one
}

// UnscoredGrade is a grading of one fixture in one run that gave no grade.
type UnscoredGrade struct {
	QuestionID string
	FixtureID  string
	Run        int
	Reason     string // what may be told of it to anyone
	Line       int
}

// Disagreements counts the record's grades far from the totals that the
// fixtures of rub, the rubric it was made for, expect (CountDisagreements).
func (r *CalibrationRecord) Disagreements(rub *Rubric) Disagreements {
	fixtures := fixtureIndex(rub)
	var diffs []int
	for _, g := range r.Grades {
		if f, ok := fixtures[[2]string{g.QuestionID, g.FixtureID}]; ok {
			diffs = append(diffs, g.Total-f.Total)
		}
	}
	return CountDisagreements(rub.TotalPoints, diffs)
}

// fixtureIndex finds a rubric's fixtures by question and fixture id; of
// two fixtures sharing their ids, the first.
func fixtureIndex(rub *Rubric) map[[2]string]*Fixture {
	m := map[[2]string]*Fixture{}
	for qi := range rub.Questions {
		q := &rub.Questions[qi]
		for fi := range q.Calibration {
			k := [2]string{q.ID, q.Calibration[fi].ID}
			if _, dup := m[k]; !dup {
				m[k] = &q.Calibration[fi]
			}
		}
	}
	return m
}

// recordJSON are the members of a record's file, in their order there.
type recordJSON struct {
	Format       string    `json:"format"`
	Benchmark    string    `json:"benchmark"`
	RubricSHA256 string    `json:"rubric_sha256"`
	JudgeModel   string    `json:"judge_model"`
	Judge        judgeJSON `json:"judge"`
	PromptSHA256 string    `json:"judge_prompt_sha256,omitempty"`
	Recorded     string    `json:"recorded"`
	Runs         int       `json:"runs"`
}

type gradeJSON struct {
	QuestionID string `json:"question_id"`
	FixtureID  string `json:"fixture_id"`
	Run        int    `json:"run"`
	GatePassed bool   `json:"gate_passed"`
	Total      int    `json:"total"`
}

type unscoredJSON struct {
	QuestionID string `json:"question_id"`
	FixtureID  string `json:"fixture_id"`
	Run        int    `json:"run"`
	Reason     string `json:"reason"`
}

// judgeJSON is a judge contract as a calibration record writes it: the
// parameters sent, and the prompt and verdict rule unless they are
// benchgate's own. A parameter not sent is left out, the pinned sampling
// included, which a record writes when it was sent.
type judgeJSON struct {
	Temperature     *float64     `json:"temperature,omitempty"`
	TopP            *float64     `json:"top_p,omitempty"`
	MaxTokens       int          `json:"max_tokens,omitempty"`
	ReasoningEffort string       `json:"reasoning_effort,omitempty"`
	ServiceTier     string       `json:"service_tier,omitempty"`
	Seed            *int         `json:"seed,omitempty"`
	Provider        string       `json:"provider,omitempty"`
	PromptFile      string       `json:"prompt_file,omitempty"`
	ResponseFormat  *bool        `json:"response_format,omitempty"` // false, or left out
	Verdict         *verdictJSON `json:"verdict,omitempty"`
}

type verdictJSON struct {
	Format   string `json:"format,omitempty"`
	Integers bool   `json:"integers,omitempty"`
	Retry    string `json:"retry,omitempty"`
	Retries  *int   `json:"retries,omitempty"`
}

func toJudgeJSON(p JudgeParams) judgeJSON {
	j := judgeJSON{Temperature: p.Temperature, TopP: p.TopP, MaxTokens: p.MaxTokens, ReasoningEffort: p.ReasoningEffort,
		ServiceTier: p.ServiceTier, Seed: p.Seed, Provider: p.Provider, PromptFile: p.PromptFile}
	if p.NoResponseFormat {
		j.ResponseFormat = new(false)
	}
	if v := p.Verdict; v != (VerdictRule{}) {
		j.Verdict = &verdictJSON{v.Format, v.Integers, v.Retry, v.Retries}
	}
	return j
}

// ContractText is a judge contract as JSON, the form two contracts are
// compared in and shown: the same contract is the same text.
func ContractText(p JudgeParams) string {
	data, _ := marshal(toJudgeJSON(p), "") // strings, numbers and booleans only
	return string(data)
}

// orOwn shows a prompt digest, or says that there is none.
func orOwn(sum string) string {
	if sum == "" {
		return "none: benchgate's own prompt"
	}
	return sum[:min(12, len(sum))] + "…"
}

// marshal is json.MarshalIndent without escaping <, > and &, which a
// record keeps as they are, and without the encoder's newline; indent ""
// writes one line.
func marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Encode writes the record in its file format, one grade a line, so that
// a record reads, and changes in a diff, fixture by fixture. File and the
// lines are not written.
func (r *CalibrationRecord) Encode() ([]byte, error) {
	head, err := marshal(recordJSON{RecordFormat, r.Benchmark, r.RubricSHA256, r.JudgeModel, toJudgeJSON(r.Judge), r.JudgePromptSHA256, r.Recorded, r.Runs}, "  ")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(bytes.TrimSuffix(head, []byte("\n}")))
	rows := func(name string, n int, row func(i int) any) error {
		b.WriteString(",\n  \"" + name + "\": [")
		for i := range n {
			line, err := marshal(row(i), "")
			if err != nil {
				return err
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    ")
			b.Write(line)
		}
		if n > 0 {
			b.WriteString("\n  ")
		}
		b.WriteByte(']')
		return nil
	}
	if err := rows("grades", len(r.Grades), func(i int) any {
		g := r.Grades[i]
		return gradeJSON{g.QuestionID, g.FixtureID, g.Run, g.GatePassed, g.Total}
	}); err != nil {
		return nil, err
	}
	if err := rows("unscored", len(r.Unscored), func(i int) any {
		u := r.Unscored[i]
		return unscoredJSON{u.QuestionID, u.FixtureID, u.Run, u.Reason}
	}); err != nil {
		return nil, err
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// readRecord reads the calibration record of rubric benchmark b from fsys,
// at RecordPath: nil, and no finding, when there is none.
func readRecord(fsys fs.FS, b *Benchmark) (*CalibrationRecord, finding.List) {
	file := RecordPath(b.Entry)
	data, err := jsondoc.ReadFile(fsys, file, MaxRecordBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var out finding.List
		out.Errorf("record.read", file, 0, "", "cannot read the calibration record of benchmark %q: %v; %s", b.Entry.Key, err, recordAgain(b.Entry.Key))
		return nil, out
	}
	return ParseRecord(file, data, b)
}

// recordAgain is how to replace a record that cannot be used.
func recordAgain(key string) string {
	return "record it again with `benchgate calibrate --benchmark " + key + " --record`"
}

// ParseRecord reads data, the calibration record at file, of the rubric
// benchmark b. It returns the record when it can be used. A malformed
// record gets error findings, each with its line and the fixture it
// concerns, and a stale one, made for another rubric file, judge, judge
// contract or key than b's, one warning (record.stale); either way the
// record is nil, and the findings say to record it again.
func ParseRecord(file string, data []byte, b *Benchmark) (*CalibrationRecord, finding.List) {
	var out finding.List
	again := recordAgain(b.Entry.Key)
	// A record of another format would break the schema everywhere: one
	// finding says what it is instead.
	doc, fs := schemas.ParseFormatted(schemas.CalibrationRecord, RecordFormat, "record.format", file, data, again)
	if doc == nil {
		return nil, append(out, fs...)
	}
	root := doc.Root
	rec := &CalibrationRecord{
		File:         file,
		Benchmark:    root.GetString("benchmark"),
		RubricSHA256: root.GetString("rubric_sha256"),
		JudgeModel:   root.GetString("judge_model"),
		Judge:        judgeParams(root.Get("judge"), false), // the schema checked it as the registry's

		JudgePromptSHA256: root.GetString("judge_prompt_sha256"),
		Recorded:          root.GetString("recorded"),
	}
	rec.Runs, _ = integer(root, "runs")

	// Stale: the grades are of another rubric or judge, and true of it,
	// so they are not checked against this one.
	var stale []string
	staleLine := 0
	differs := func(member, why string) {
		stale = append(stale, why)
		if staleLine == 0 {
			staleLine = doc.Line(root.Get(member).Off)
		}
	}
	e := b.Entry
	if rec.Benchmark != e.Key {
		differs("benchmark", fmt.Sprintf("it names benchmark %q, not %q", rec.Benchmark, e.Key))
	}
	if rec.RubricSHA256 != b.SHA256 {
		differs("rubric_sha256", fmt.Sprintf("the rubric has changed since it was made (rubric_sha256 %.12s…, the file's is now %.12s…)", rec.RubricSHA256, b.SHA256))
	}
	// A benchmark file linted outside the registry has no fixed judge to
	// compare with.
	if e.JudgeModel != "" {
		if rec.JudgeModel != e.JudgeModel {
			differs("judge_model", fmt.Sprintf("it was graded by %q, but the registry's judge is %q", rec.JudgeModel, e.JudgeModel))
		}
		if was, is := ContractText(rec.Judge), ContractText(e.Judge); was != is {
			differs("judge", fmt.Sprintf("it was graded under the judge contract %s, but the registry's is %s", was, is))
		}
		if is := e.JudgePromptSHA256(); rec.JudgePromptSHA256 != is {
			member := "judge_prompt_sha256"
			if root.Get(member) == nil {
				member = "judge"
			}
			differs(member, fmt.Sprintf("the judge's prompt has changed since it was made (judge_prompt_sha256 %s, the prompt's is now %s)", orOwn(rec.JudgePromptSHA256), orOwn(is)))
		}
	}
	if len(stale) > 0 {
		out.Warnf("record.stale", file, staleLine, "", "the calibration record is stale: %s; the spot-check will not use it; %s", strings.Join(stale, "; "), again)
		return nil, out
	}

	if _, err := time.Parse(time.DateOnly, rec.Recorded); err != nil {
		out.Errorf("record.date", file, doc.Line(root.Get("recorded").Off), "", "recorded %q is not a day of the calendar; %s", rec.Recorded, again)
	}
	fixtures := fixtureIndex(b.Rubric)
	questions := map[string]bool{}
	for _, q := range b.Rubric.Questions {
		questions[q.ID] = true
	}
	seen := map[[2]string]map[int]int{} // fixture, run: the line of its entry
	// A record wrong on every line says so in its first findings, as a
	// file wrong against its schema does.
	more := 0
	bad := func(code string, line int, q, f string, run int, format string, args ...any) {
		if len(out) >= schemas.MaxFindings {
			more++
			return
		}
		out.Errorf(code, file, line, q, "fixture %s, run %d: %s; %s", f, run, fmt.Sprintf(format, args...), again)
	}
	// entry reads and checks what grades and unscored gradings share.
	entry := func(n *jsondoc.Node) (q, f string, run, line int) {
		q, f, line = n.GetString("question_id"), n.GetString("fixture_id"), doc.Line(n.Off)
		run, _ = integer(n, "run")
		switch _, known := fixtures[[2]string{q, f}]; {
		case !questions[q]:
			bad("record.fixture", line, q, f, run, "%q is not a question of the rubric", q)
		case !known:
			bad("record.fixture", line, q, f, run, "%q is not a calibration fixture of question %s", f, q)
		}
		if run < 1 || run > rec.Runs {
			bad("record.run", line, q, f, run, "the run is outside 1..%d (runs)", rec.Runs)
		}
		k := [2]string{q, f}
		if seen[k] == nil {
			seen[k] = map[int]int{}
		}
		if prev, dup := seen[k][run]; dup {
			bad("record.duplicate", line, q, f, run, "the fixture has another entry for this run, on line %d; a fixture has at most one grade or unscored entry a run", prev)
		} else {
			seen[k][run] = line
		}
		return q, f, run, line
	}
	for _, n := range root.Get("grades").Elems {
		q, f, run, line := entry(n)
		g := RecordedGrade{QuestionID: q, FixtureID: f, Run: run, GatePassed: n.Get("gate_passed").Bool, Line: line}
		g.Total, _ = integer(n, "total")
		switch {
		case g.Total < 0 || g.Total > b.Rubric.TotalPoints:
			bad("record.total", line, q, f, run, "total %d is outside 0..%d, the rubric's points", g.Total, b.Rubric.TotalPoints)
		case !g.GatePassed && g.Total != 0:
			bad("record.gate", line, q, f, run, "the gate failed, so the total must be 0, not %d", g.Total)
		}
		rec.Grades = append(rec.Grades, g)
	}
	for _, n := range root.Get("unscored").Elems {
		q, f, run, line := entry(n)
		rec.Unscored = append(rec.Unscored, UnscoredGrade{QuestionID: q, FixtureID: f, Run: run, Reason: n.GetString("reason"), Line: line})
	}
	if more > 0 {
		out.Errorf("record.more", file, 0, "", "%d more errors not shown; fix the ones above first, or %s", more, again)
	}
	if out.HasErrors() {
		return nil, out
	}
	return rec, out
}
