package rerun

import (
	"encoding/json"
	"fmt"
	"github.com/benchgate/benchgate/benchmark"
	"io"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/internal/mdtext"
)

// Formats lists the output formats of Render.
var Formats = []string{"text", "json", "markdown"}

// Render writes a report in one of Formats; markdown is what the App posts
// on a pull request.
func Render(w io.Writer, format string, r Report) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "markdown", "md":
		_, err := io.WriteString(w, markdown(r))
		return err
	case "text", "":
		_, err := io.WriteString(w, text(r))
		return err
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

func ptrInt(p *int) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprint(*p)
}

func ptrBool(p *bool) string {
	switch {
	case p == nil:
		return "–"
	case *p:
		return "pass"
	}
	return "fail"
}

func text(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  [%s, %s]\n", strings.ToUpper(string(r.Verdict)), r.Path, r.RubricKey, r.Kind)
	fmt.Fprintf(&b, "  %s\n", r.Reason)
	fmt.Fprintf(&b, "  seed %s (%s); %d calls, $%.4f\n", r.Seed, seedNote(r), r.Calls, r.SpendUSD)
	if line := judgeCheck(r); line != "" {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", w)
	}
	if len(r.Questions) > 0 {
		if r.Kind == benchmark.KindMCQ {
			fmt.Fprintf(&b, "  %-28s %-9s %-8s %s\n", "question", "submitted", "re-asked", "note")
			for _, q := range r.Questions {
				fmt.Fprintf(&b, "  %-28s %-9s %-8s %s\n", q.ID, orDash(q.Submitted), orDash(q.ReAsked), q.Fault)
			}
		} else {
			fmt.Fprintf(&b, "  %-10s %-8s %-6s %-5s %-14s %s\n", "question", "reported", "judged", "diff", "gate rep/judge", "note")
			for _, q := range r.Questions {
				note := q.Fault
				if q.GateFlip {
					note = "reported gate pass, judge fails it"
				}
				note = joinNote(joinNote(joinNote(note, componentNote(q.Components)), againNote(q)), injectionNote(q.Injection))
				fmt.Fprintf(&b, "  %-10s %-8s %-6s %-5s %-14s %s\n", q.ID, ptrInt(q.Reported), ptrInt(q.Judged), ptrInt(q.Diff), ptrBool(q.ReportedGate)+"/"+ptrBool(q.JudgedGate), note)
			}
		}
	}
	for _, l := range r.Leaks {
		fmt.Fprintf(&b, "  leak: question %s repeats %d words of %s: %q\n", l.QuestionID, l.Words, l.Source, l.Excerpt)
	}
	for _, in := range r.Injections {
		fmt.Fprintf(&b, "  injection: question %s, in the %s: %s\n", in.QuestionID, in.Source, strings.Join(in.Signs, "; "))
	}
	for _, c := range r.Canaries {
		if c.Fired() {
			fmt.Fprintf(&b, "  canary: %s\n", canaryLine(c))
		}
	}
	return b.String()
}

// canaryLine says what a fired canary showed the judge.
func canaryLine(c CanaryCheck) string {
	return fmt.Sprintf("fixture %s of question %s, which fails its gate, with the answers of questions %s appended: the judge passed the gate (%d points)", c.Fixture, c.Against, strings.Join(c.Answers, ", "), *c.Judged)
}

// seedNote says where the seed came from and how to use it again.
func seedNote(r Report) string {
	switch r.SeedSource {
	case SeedSecret:
		return "from the leaderboard's secret, so the sample could not be foreseen"
	case SeedRandom:
		return "drawn at random, no secret being set; `benchgate rerun --seed " + r.Seed + "` replays this check"
	case SeedGiven:
		return "given, to replay a check"
	}
	return "none"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

var verdictIcon = map[Verdict]string{VerdictConsistent: "✅", VerdictInconsistent: "❌", VerdictInconclusive: "⚠️"}

func markdown(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## benchgate rerun: %s %s\n\n", verdictIcon[r.Verdict], r.Verdict)
	fmt.Fprintf(&b, "`%s` (`%s`, %s). %s\n\n", mdtext.Code(r.Path), mdtext.Code(r.RubricKey), r.Kind, mdtext.Escape(r.Reason))
	fmt.Fprintf(&b, "Seed `%s` (%s). %d calls, $%.4f.\n\n", r.Seed, seedNote(r), r.Calls, r.SpendUSD)
	if line := judgeCheck(r); line != "" {
		fmt.Fprintf(&b, "%s\n\n", mdtext.Escape(line))
	}
	if len(r.Questions) > 0 {
		if r.Kind == benchmark.KindMCQ {
			b.WriteString("| Question | Submitted | Re-asked | Note |\n|---|---|---|---|\n")
			for _, q := range r.Questions {
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", mdtext.Code(q.ID), orDash(q.Submitted), orDash(q.ReAsked), mdtext.Escape(q.Fault))
			}
		} else {
			b.WriteString("| Question | Reported | Judged | Diff | Gate (reported/judge) | Note |\n|---|---:|---:|---:|---|---|\n")
			for _, q := range r.Questions {
				note := mdtext.Escape(q.Fault)
				if q.GateFlip {
					note = "reported gate pass, judge fails it"
				}
				note = joinNote(joinNote(joinNote(note, mdtext.Escape(componentNote(q.Components))), againNote(q)), injectionNote(q.Injection))
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s/%s | %s |\n", mdtext.Code(q.ID), ptrInt(q.Reported), ptrInt(q.Judged), ptrInt(q.Diff), ptrBool(q.ReportedGate), ptrBool(q.JudgedGate), note)
			}
		}
		b.WriteString("\n")
	}
	if len(r.Leaks) > 0 {
		b.WriteString("**Answers that reproduce the grading key:**\n\n")
		for _, l := range r.Leaks {
			fmt.Fprintf(&b, "- question `%s` repeats %d words of %s: %s\n", mdtext.Code(l.QuestionID), l.Words, mdtext.Escape(l.Source), mdtext.Escape(l.Excerpt))
		}
		b.WriteString("\n")
	}
	if len(r.Injections) > 0 {
		b.WriteString("**Signs of instructing the judge:**\n\n")
		for _, in := range r.Injections {
			fmt.Fprintf(&b, "- question `%s`, in the %s: %s\n", mdtext.Code(in.QuestionID), in.Source, mdtext.Escape(strings.Join(in.Signs, "; ")))
		}
		b.WriteString("\n")
	}
	if fired := slices.IndexFunc(r.Canaries, CanaryCheck.Fired); fired >= 0 {
		b.WriteString("**Canaries the judge passed** (answers that should not lift a failing answer did):\n\n")
		for _, c := range r.Canaries[fired:] {
			if c.Fired() {
				fmt.Fprintf(&b, "- %s\n", mdtext.Escape(canaryLine(c)))
			}
		}
		b.WriteString("\n")
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "> %s\n", mdtext.Escape(w))
	}
	return b.String()
}

// judgeCheck says what the judge's check before the sample found, and
// what the tests measured, or nothing for a report without either.
func judgeCheck(r Report) string {
	var parts []string
	reference := "their expected grades"
	if r.DriftReference == ReferenceRecord {
		reference = "the judge's own grades in the benchmark's calibration record"
	}
	if r.JudgeBias != nil {
		scored := 0
		for _, f := range r.Fixtures {
			if f.Diff != nil {
				scored++
			}
		}
		parts = append(parts, fmt.Sprintf("Judge check: graded %d of the rubric's calibration fixtures, %+.2f points from %s on average, each half (gates expected to pass, to fail) weighed by the submission's share of it (the judge's estimated drift; the tolerance is %.2f).", scored, *r.JudgeBias, reference, r.Tolerance))
	} else if len(r.Fixtures) > 0 {
		parts = append(parts, fmt.Sprintf("Judge check: none of the %d calibration fixtures tried was graded.", len(r.Fixtures)))
	}
	// Why fixtures were not graded, each reason once: they have no row of
	// their own in the report's table.
	var faults []string
	for _, f := range r.Fixtures {
		if f.Fault != "" && !slices.Contains(faults, f.Fault) {
			faults = append(faults, f.Fault)
		}
	}
	if len(faults) > 0 {
		parts = append(parts, "Fixtures not graded: "+strings.Join(faults, "; ")+".")
	}
	if r.Shift != nil && r.Jumps != nil {
		s := fmt.Sprintf("Tests: shift p = %.2g (level %.2g); jumps p = %.2g (level %.2g; big and moderate jumps: %d and %d up, %d and %d down, %d and %d between the judge's own runs on %d answers graded twice and %d pairs of recorded runs on fixtures)",
			r.Shift.P, r.Shift.Level, r.Jumps.P, r.Jumps.Level, r.Jumps.Up[1], r.Jumps.Up[0], r.Jumps.Down[1], r.Jumps.Down[0], r.Jumps.Controls[1], r.Jumps.Controls[0], r.Jumps.Regraded, r.Jumps.Recorded)
		if r.Bound != nil {
			s += fmt.Sprintf("; upper bound of the inflation %.2f (a consistent verdict needs it below %.2g)", *r.Bound, r.Delta)
		}
		parts = append(parts, s+".")
	}
	return strings.Join(parts, " ")
}

// againNote gives the judge's second grade of an answer where it differs
// from the first.
func againNote(q QuestionCheck) string {
	if q.Again == nil || q.Judged == nil || *q.Again == *q.Judged {
		return ""
	}
	return fmt.Sprintf("judged %d the second time", *q.Again)
}

// injectionNote marks a question whose answer or verdict instructs the
// judge.
func injectionNote(injected bool) string {
	if injected {
		return "signs of instructing the judge"
	}
	return ""
}

// componentNote says which components were awarded differently.
func componentNote(cs []ComponentDiff) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %d→%d", c.ID, c.Reported, c.Judged)
	}
	return strings.Join(parts, ", ")
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
