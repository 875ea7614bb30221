package benchmark

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/finding"
)

// LintReport is what linting one benchmark file found, as
// `benchgate lint-benchmark` reports it.
type LintReport struct {
	Key       string       `json:"key,omitempty"`
	File      string       `json:"file"`
	Kind      Kind         `json:"kind"`
	Questions int          `json:"questions"`
	Errors    finding.List `json:"errors"`
	Warnings  finding.List `json:"warnings"`
	Rubric    *RubricFacts `json:"rubric,omitempty"`
	MCQ       *MCQStats    `json:"mcq,omitempty"`
}

// RubricFacts sums up a rubric benchmark.
type RubricFacts struct {
	TotalPoints int `json:"total_points"`
	Components  int `json:"components"`
	Fixtures    int `json:"calibration_fixtures"`
	// RecordFile is where the calibration record is kept (RecordPath),
	// and Record what it holds, nil when there is none or it cannot be
	// used (the findings say why).
	RecordFile string       `json:"calibration_record_file"`
	Record     *RecordFacts `json:"calibration_record"`
}

// RecordFacts sum up a calibration record.
type RecordFacts struct {
	JudgeModel string `json:"judge_model"`
	Recorded   string `json:"recorded"`
	Runs       int    `json:"runs"`
	Gradings   int    `json:"gradings"` // the grades, every run's
	Unscored   int    `json:"unscored"`
	// Disagreements counts the grades far from the fixtures' expected
	// totals.
	Disagreements Disagreements `json:"large_disagreements"`
}

// Failed reports whether the benchmark has errors.
func (r LintReport) Failed() bool { return len(r.Errors) > 0 }

// NewLintReport reports on the benchmark of entry e, as Lint returned it:
// b is what could be read (nil for nothing) and fs the findings, to which
// the registry's findings about e may be prepended.
func NewLintReport(e Entry, b *Benchmark, fs finding.List) LintReport {
	res := LintReport{Key: e.Key, File: e.File, Kind: e.Kind}
	res.Errors, res.Warnings = fs.Split()
	if res.Errors == nil {
		res.Errors = finding.List{}
	}
	if res.Warnings == nil {
		res.Warnings = finding.List{}
	}
	if b != nil {
		res.Kind = b.Entry.Kind
		res.Questions = b.Questions()
		res.MCQ = b.Stats
		if r := b.Rubric; r != nil {
			res.Rubric = &RubricFacts{TotalPoints: r.TotalPoints, RecordFile: RecordPath(b.Entry)}
			for _, q := range r.Questions {
				res.Rubric.Components += len(q.Components)
				res.Rubric.Fixtures += len(q.Calibration)
			}
			if rec := b.Record; rec != nil {
				res.Rubric.Record = &RecordFacts{JudgeModel: rec.JudgeModel, Recorded: rec.Recorded, Runs: rec.Runs,
					Gradings: len(rec.Grades), Unscored: len(rec.Unscored), Disagreements: rec.Disagreements(r)}
			}
		}
	}
	return res
}

// File is a benchmark file named by its path rather than by a registry
// key, as a command line names it.
type File struct {
	FS   fs.FS  // the file's folder
	Name string // the file's name in FS
	// FromRoot is the file's path from the leaderboard's root,
	// slash-separated (starting with ".." when the file is outside it);
	// "" when unknown.
	FromRoot string
}

// LintNamed lints the benchmark that arg names in the leaderboard whose
// root is root: a registry key, or else the file f, which is nil when arg
// names no file. A file that the registry names is linted as its entry
// describes it, with the registry's findings about that entry; any other
// file on its own, keyed by its name less the extension. An arg that is
// neither is a *KeyError (with OrFile set).
func LintNamed(root fs.FS, arg string, f *File) (LintReport, error) {
	reg, regFindings := LoadRegistry(root)
	if reg != nil {
		if e, ok := reg.Lookup(arg); ok {
			return lintEntry(root, e, regFindings), nil
		}
	}
	if f == nil {
		ke := &KeyError{Key: arg, OrFile: true}
		if reg != nil {
			ke.Known = reg.Keys()
		}
		return LintReport{}, ke
	}
	if reg != nil && f.FromRoot != "" {
		for _, e := range reg.Entries {
			if path.Clean(e.File) == f.FromRoot {
				return lintEntry(root, e, regFindings), nil
			}
		}
	}
	e := Entry{Key: strings.TrimSuffix(f.Name, path.Ext(f.Name)), File: f.Name}
	b, fs := Lint(f.FS, e)
	return NewLintReport(e, b, fs), nil
}

// lintEntry lints a registry entry, with the registry's findings about
// it first. Those include the entry's problem, which Lint reports again
// as registry.entry for the callers that see no registry findings: it is
// said once.
func lintEntry(root fs.FS, e Entry, regFindings finding.List) LintReport {
	b, fs := Lint(root, e)
	own := entryFindings(regFindings, e)
	if len(own) > 0 {
		fs = slices.DeleteFunc(fs, func(f finding.Finding) bool { return f.Code == "registry.entry" })
	}
	return NewLintReport(e, b, append(own, fs...))
}

// entryFindings keeps the registry findings about one entry, and about
// the prompt files it names.
func entryFindings(all finding.List, e Entry) finding.List {
	var out finding.List
	for _, f := range all {
		if (f.File == RegistryFile && f.Line == e.Line) || (f.File != RegistryFile && (f.File == e.PromptFile || f.File == e.Judge.PromptFile)) {
			out = append(out, f)
		}
	}
	return out
}

// LintFormats lists the output formats of RenderLint.
var LintFormats = []string{"text", "json"}

// RenderLint writes a lint report in one of LintFormats.
func RenderLint(w io.Writer, format string, r LintReport) error {
	switch format {
	case "text", "":
		_, err := io.WriteString(w, lintText(r))
		return err
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(LintFormats, ", "))
}

func lintText(r LintReport) string {
	var b strings.Builder
	name := r.File
	if r.Key != "" {
		name = r.Key + " (" + r.File + ")"
	}
	status := "OK"
	if len(r.Errors) > 0 {
		status = "FAIL"
	}
	fmt.Fprintf(&b, "%s %s: %s benchmark, %d questions\n", status, name, r.Kind, r.Questions)
	if f := r.Rubric; f != nil {
		fmt.Fprintf(&b, "  %d points per question, %d components, %d calibration fixtures\n", f.TotalPoints, f.Components, f.Fixtures)
		b.WriteString(recordText(r, f))
	}
	if s := r.MCQ; s != nil && s.Questions > 0 {
		fmt.Fprintf(&b, "  answer keys: %s\n", counts(s.KeyCounts, s.Questions))
		fmt.Fprintf(&b, "  correct choice uniquely the longest: %d of %d (%.1f%%; chance about 25%%)\n", s.LongestCorrect, s.Questions, 100*s.LongestRate)
		if len(s.Difficulty) > 0 {
			fmt.Fprintf(&b, "  difficulty: %s\n", counts(s.Difficulty, s.Questions))
		}
		if len(s.Domains) > 0 {
			fmt.Fprintf(&b, "  domains: %s\n", counts(s.Domains, s.Questions))
		}
		if len(s.Sources) > 0 {
			fmt.Fprintf(&b, "  sources (%d): %s\n", len(s.Sources), counts(s.Sources, s.Questions))
		}
	}
	for _, f := range r.Errors {
		b.WriteString("  error: " + f.String() + "\n")
	}
	for _, f := range r.Warnings {
		b.WriteString("  warning: " + f.String() + "\n")
	}
	return b.String()
}

// recordText is the line about a rubric's calibration record: what it
// holds, or that there is none and how to make one. A record that cannot
// be used has its findings instead, and a rubric with errors, whose
// record is not read, nothing.
func recordText(r LintReport, f *RubricFacts) string {
	if rec := f.Record; rec != nil {
		d := rec.Disagreements
		return fmt.Sprintf("  calibration record %s: judge %s, recorded %s, %d %s: %d gradings, %d unscored; large disagreements with the expected totals: %d of %d+ points, %d of %d+\n",
			f.RecordFile, rec.JudgeModel, rec.Recorded, rec.Runs, plural(rec.Runs, "run", "runs"), rec.Gradings, rec.Unscored, d.Moderate, d.ModeratePoints, d.Big, d.BigPoints)
	}
	if len(r.Errors) > 0 {
		return ""
	}
	for _, x := range r.Warnings {
		if x.File == f.RecordFile {
			return ""
		}
	}
	return fmt.Sprintf("  no calibration record (%s); make one with `benchgate calibrate --benchmark %s --record`\n", f.RecordFile, r.Key)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func counts(m map[string]int, total int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d (%.0f%%)", k, m[k], 100*float64(m[k])/float64(total))
	}
	return strings.Join(parts, ", ")
}
