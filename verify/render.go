package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/mdtext"
	"github.com/benchgate/benchgate/internal/safetext"
)

// Formats lists the output formats of Render; "github" is workflow
// commands for GitHub Actions.
var Formats = []string{"text", "json", "markdown", "github"}

// Render writes a report in one of Formats.
func Render(w io.Writer, format string, r Report) error {
	switch format {
	case "text", "":
		return renderText(w, r)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	case "markdown", "md":
		return renderMarkdown(w, r)
	case "github":
		return renderGitHub(w, r)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, orList(Formats))
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func renderText(w io.Writer, r Report) error {
	var b strings.Builder
	for _, s := range r.Submissions {
		fmt.Fprintf(&b, "%-6s %s", strings.ToUpper(string(s.Status)), printable(s.Path))
		if s.RubricKey != "" {
			fmt.Fprintf(&b, "  [%s", printable(s.RubricKey))
			if s.Kind != "" {
				fmt.Fprintf(&b, ", %s", s.Kind)
			}
			b.WriteString("]")
		}
		b.WriteString("\n")
		if line := s.Summary.Line(); line != "" {
			b.WriteString("       " + line + "\n")
		}
		for _, f := range s.Errors {
			b.WriteString("       error: " + printable(f.String()) + "\n")
		}
		for _, f := range s.Warnings {
			b.WriteString("       warning: " + printable(f.String()) + "\n")
		}
	}
	fmt.Fprintf(&b, "%d submission(s): %d passed, %d failed, %d need review\n", len(r.Submissions), r.Passed, r.Failed, r.Review)
	_, err := io.WriteString(w, b.String())
	return err
}

// printable escapes control characters and bidirectional controls as
// \uXXXX, so that contributor text in the report (a folder name, a question
// id, a rubric key) cannot move the cursor, recolour or reorder a
// terminal's lines, for instance to print a PASS over a FAIL.
func printable(s string) string {
	if !strings.ContainsFunc(s, safetext.Hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if safetext.Hidden(r) {
			fmt.Fprintf(&b, "\\u%04X", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line summarises the figures on one line, for text output.
func (s Summary) Line() string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	switch {
	case s.Accuracy != nil && s.Correct != nil && s.Questions != nil:
		add("%d/%d correct (%.1f%%)", *s.Correct, *s.Questions, 100**s.Accuracy)
	case s.Mean != nil && s.Graded != nil:
		add("mean %.2f over the %d of %d scored answers with a valid grade", *s.Mean, *s.Graded, *s.Scored)
	case s.Mean != nil:
		add("mean %.2f over %d scored", *s.Mean, *s.Scored)
	case s.Scored != nil && *s.Scored > 0:
		add("none of %d scored answers has a valid grade", *s.Scored)
	case s.Questions != nil:
		add("%d questions", *s.Questions)
	default:
		return ""
	}
	if s.GatePassRate != nil {
		add("gate pass %.0f%%", 100**s.GatePassRate)
	}
	for _, f := range []struct {
		n              *int
		single, plural string
	}{
		{s.Unscored, "unscored", "unscored"}, {s.Adjudications, "adjudication", "adjudications"},
		{s.Disputes, "dispute", "disputes"}, {s.Unverifiable, "unverifiable", "unverifiable"},
		{s.ParseFailures, "parse failure", "parse failures"}, {s.EmptyResponses, "empty response", "empty responses"},
		{s.LengthFinishes, "length finish", "length finishes"}, {s.Errors, "error", "errors"},
	} {
		switch {
		case f.n == nil || *f.n == 0:
		case *f.n == 1:
			add("1 %s", f.single)
		default:
			add("%d %s", *f.n, f.plural)
		}
	}
	if s.MeanLatencyMS != nil {
		add("mean latency %.0f ms", *s.MeanLatencyMS)
	}
	return strings.Join(parts, ", ")
}

var statusIcon = map[Status]string{Pass: "✅", Fail: "❌", Review: "⚠️"}

// maxMarkdownFindings caps the findings listed per submission in a PR
// comment, which GitHub limits to 65,536 characters.
const maxMarkdownFindings = 30

func renderMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	b.WriteString("## benchgate verify\n\n")
	fmt.Fprintf(&b, "%d submission(s): **%d passed**, **%d failed**, **%d need review**.\n\n", len(r.Submissions), r.Passed, r.Failed, r.Review)
	if len(r.Submissions) > 0 {
		b.WriteString("| | Submission | Benchmark | Result |\n|---|---|---|---|\n")
		for _, s := range r.Submissions {
			fmt.Fprintf(&b, "| %s %s | `%s` | %s | %s |\n", statusIcon[s.Status], s.Status, mdtext.Code(s.Path), mdtext.Escape(s.RubricKey), mdtext.Escape(s.Summary.Line()))
		}
	}
	for _, s := range r.Submissions {
		if len(s.Errors)+len(s.Warnings) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s `%s`\n\n", statusIcon[s.Status], mdtext.Code(s.Path))
		list := func(label string, fs finding.List) {
			for i, f := range fs {
				if i == maxMarkdownFindings {
					fmt.Fprintf(&b, "- … and %d more %ss (run `benchgate verify %s` to see them all)\n", len(fs)-i, label, mdtext.Code(s.Path))
					break
				}
				loc := f.File
				if f.Line > 0 {
					loc = fmt.Sprintf("%s:%d", f.File, f.Line)
				}
				q := ""
				if f.Question != "" {
					q = " question `" + mdtext.Code(f.Question) + "`:"
				}
				fmt.Fprintf(&b, "- **%s** `%s`%s %s <sub>%s</sub>\n", label, mdtext.Code(loc), q, mdtext.Escape(f.Message), f.Code)
			}
		}
		list("error", s.Errors)
		list("warning", s.Warnings)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
