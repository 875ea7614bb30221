package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
)

// lintResult is what lint-benchmark reports.
type lintResult struct {
	Key       string              `json:"key,omitempty"`
	File      string              `json:"file"`
	Kind      benchmark.Kind      `json:"kind"`
	Questions int                 `json:"questions"`
	Errors    finding.List        `json:"errors"`
	Warnings  finding.List        `json:"warnings"`
	Rubric    *rubricFacts        `json:"rubric,omitempty"`
	MCQ       *benchmark.MCQStats `json:"mcq,omitempty"`
}

type rubricFacts struct {
	TotalPoints int `json:"total_points"`
	Components  int `json:"components"`
	Fixtures    int `json:"calibration_fixtures"`
}

func runLintBenchmark(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("lint-benchmark", "[--root DIR] [--format text|json] KEY|PATH", stderr)
	root := fl.String("root", ".", "the leaderboard repository whose registry names KEY")
	format := fl.String("format", "text", "output format: text or json")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(fl, nil)
	}
	if err := oneOf(*format, []string{"text", "json"}); err != nil {
		return err
	}
	fsys, entry, regFindings, err := resolveBenchmark(*root, pos[0])
	if err != nil {
		return err
	}
	b, fs := benchmark.Lint(fsys, entry)
	fs = append(regFindings, fs...)
	res := lintResult{Key: entry.Key, File: entry.File, Kind: entry.Kind}
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
			res.Rubric = &rubricFacts{TotalPoints: r.TotalPoints}
			for _, q := range r.Questions {
				res.Rubric.Components += len(q.Components)
				res.Rubric.Fixtures += len(q.Calibration)
			}
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		io.WriteString(stdout, lintText(res))
	}
	if len(res.Errors) > 0 {
		return exitWith(exitFail)
	}
	return nil
}

// resolveBenchmark finds what to lint: a registry key of the root, or a
// file path (relative to the working directory).
func resolveBenchmark(root, arg string) (fs.FS, benchmark.Entry, finding.List, error) {
	rootFS := os.DirFS(root)
	reg, regFindings := benchmark.LoadRegistry(rootFS)
	if reg != nil {
		if e, ok := reg.Lookup(arg); ok {
			return rootFS, e, entryFindings(regFindings, e), nil
		}
	}
	info, err := os.Stat(arg)
	if err != nil || info.IsDir() {
		known := ""
		if reg != nil {
			known = "; registry keys: " + strings.Join(reg.Keys(), ", ")
		}
		return nil, benchmark.Entry{}, nil, fmt.Errorf("%q is neither a benchmark key in %s nor a benchmark file%s", arg, filepath.Join(root, benchmark.RegistryFile), known)
	}
	// A file that the registry names is linted as its entry describes it.
	if reg != nil {
		if absArg, err := filepath.Abs(arg); err == nil {
			for _, e := range reg.Entries {
				if absFile, err := filepath.Abs(filepath.Join(root, e.File)); err == nil && absFile == absArg {
					return rootFS, e, entryFindings(regFindings, e), nil
				}
			}
		}
	}
	dir, base := filepath.Split(arg)
	if dir == "" {
		dir = "."
	}
	e := benchmark.Entry{Key: strings.TrimSuffix(base, filepath.Ext(base)), File: base}
	return os.DirFS(dir), e, nil, nil
}

// entryFindings keeps the registry findings about one entry.
func entryFindings(all finding.List, e benchmark.Entry) finding.List {
	var out finding.List
	for _, f := range all {
		if f.Line == e.Line {
			out = append(out, f)
		}
	}
	return out
}

func lintText(r lintResult) string {
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
