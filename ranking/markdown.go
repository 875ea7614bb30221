package ranking

import (
	"fmt"
	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/submission"
	"io"
	"strings"

	"github.com/benchgate/benchgate/internal/mdtext"
)

// RenderMarkdown writes LEADERBOARD.md.
func RenderMarkdown(w io.Writer, b *Board) error {
	var s strings.Builder
	fmt.Fprintf(&s, "# %s\n\n", mdtext.Escape(boardTitle(b)))
	if b.Introduction != "" {
		// The maintainer's own markdown, as they wrote it.
		s.WriteString(b.Introduction + "\n\n")
	}
	if b.AsOf != "" {
		fmt.Fprintf(&s, "As of %s. ", b.AsOf)
	}
	s.WriteString(methodText(b.Method) + "\n")
	for _, bm := range b.Benchmarks {
		writeBenchmarkMD(&s, &bm, b.Method.Alpha)
	}
	if len(b.Unmatched) > 0 {
		s.WriteString("\n## Submissions to no known benchmark\n\n")
		writeExcludedMD(&s, b.Unmatched)
	}
	_, err := io.WriteString(w, s.String())
	return err
}

func writeBenchmarkMD(s *strings.Builder, bm *Benchmark, alpha float64) {
	fmt.Fprintf(s, "\n## %s\n\n", mdtext.Escape(bm.Label))
	if bm.Description != "" {
		s.WriteString(mdtext.Escape(bm.Description) + "\n\n")
	}
	if a := attributionMD(bm); a != "" {
		s.WriteString(a + "\n\n")
	}
	fmt.Fprintf(s, "`%s`: %s, %d questions", mdtext.Code(bm.Key), kindName(bm.Kind), bm.Questions)
	if bm.JudgeModel != "" {
		fmt.Fprintf(s, ", graded by the fixed judge `%s`", mdtext.Code(bm.JudgeModel))
	}
	if bm.LongestRate != nil {
		fmt.Fprintf(s, "; the key is uniquely the longest choice in %.1f%% of questions", 100**bm.LongestRate)
	}
	s.WriteString(".\n")
	for _, t := range submission.Tracks {
		var es []Entry
		for _, e := range bm.Entries {
			if e.Track == t {
				es = append(es, e)
			}
		}
		if len(es) == 0 {
			continue
		}
		ts := trackStats(bm, t)
		fmt.Fprintf(s, "\n### %s\n\n", trackName(t))
		if bm.Kind == benchmark.KindMCQ {
			s.WriteString("| Rank | Ranks, 95% all at once | Could be #1 | Group | Model | Accuracy | 95% CI | Correct | Macro by source | Parse failures | Submitter |\n")
			s.WriteString("|---:|---:|---|---:|---|---:|---|---:|---:|---:|---|\n")
		} else {
			s.WriteString("| Rank | Ranks, 95% all at once | Could be #1 | Group | Model | Mean | 95% CI | Gate pass | Adjudications | Unscored | Submitter |\n")
			s.WriteString("|---:|---:|---|---:|---|---:|---|---:|---:|---:|---|\n")
		}
		for _, e := range es {
			name := mdtext.Escape(displayName(e))
			best := "no"
			if e.CouldBeBest {
				best = "yes"
			}
			if bm.Kind == benchmark.KindMCQ {
				macro := "–"
				if e.MCQ.MacroBySource != nil {
					macro = pct(*e.MCQ.MacroBySource)
				}
				fmt.Fprintf(s, "| %d | %s | %s | %s | %s | %s | %s–%s | %d/%d | %s | %d | %s |\n",
					e.Rank, rankText(e), best, groupCell(ts, e), name, pct(e.Score), pct(e.CILow), pct(e.CIHigh), *e.Correct, e.N, macro, e.MCQ.ParseFailures, mdtext.Escape(e.Submitter))
			} else {
				fmt.Fprintf(s, "| %d | %s | %s | %s | %s | %.2f | %.2f–%.2f | %s | %d | %d | %s |\n",
					e.Rank, rankText(e), best, groupCell(ts, e), name, e.Score, e.CILow, e.CIHigh, pct(e.Rubric.GatePassRate), e.Rubric.Adjudications, e.Rubric.Unscored, mdtext.Escape(e.Submitter))
			}
		}
		s.WriteString("\n" + familyNoteFor(bm, es, alpha, mdtext.Escape) + "\n")
		for _, e := range es {
			if r := e.Reproduction; r != nil {
				fmt.Fprintf(s, "\n%s: %s.\n", mdtext.Escape(displayName(e)), mdtext.Escape(reproductionText(r)))
			}
			if a := e.Acceptance; a != nil {
				fmt.Fprintf(s, "\n%s: %s.\n", mdtext.Escape(displayName(e)), mdtext.Escape(acceptanceText(a)))
			}
		}
	}
	if len(bm.Entries) == 0 {
		s.WriteString("\nNo submission has passed verification yet.\n")
	}
	if len(bm.Excluded) > 0 {
		s.WriteString("\n### Not ranked\n\n")
		writeExcludedMD(s, bm.Excluded)
	}
}

// attributionMD is a benchmark's licence and source, as the registry
// gives them.
func attributionMD(bm *Benchmark) string {
	var parts []string
	if bm.License != "" {
		parts = append(parts, "Licence: "+mdtext.Escape(bm.License))
	}
	if u, ok := webURL(bm.URL); ok {
		parts = append(parts, "Source: <"+u+">")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ". ") + "."
}

func writeExcludedMD(s *strings.Builder, xs []Excluded) {
	s.WriteString("| Submission | Model | Status | Reason |\n|---|---|---|---|\n")
	for _, x := range xs {
		status := x.Status
		if x.Score != nil {
			status += fmt.Sprintf(" (self-reported %.2f)", *x.Score)
		}
		fmt.Fprintf(s, "| `%s` | %s | %s | %s |\n", mdtext.Code(x.Path), mdtext.Escape(x.ModelName), status, mdtext.Escape(x.Reason))
	}
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

func kindName(k benchmark.Kind) string {
	if k == benchmark.KindMCQ {
		return "four-choice questions, scored by accuracy"
	}
	return "open answers graded by a rubric, scored by the mean per question"
}

func trackName(t submission.Track) string {
	if t == submission.HarnessTrack {
		return "Harness track (harnesses around the pinned model)"
	}
	return "Model track"
}

// displayName names an entry: the model, and the harness around it when
// the model's name does not already say.
func displayName(e Entry) string {
	if e.HarnessName == "" || strings.Contains(strings.ToLower(e.ModelName), strings.ToLower(e.HarnessName)) {
		return e.ModelName
	}
	return e.ModelName + " + " + e.HarnessName
}

// thousands formats n with comma separators, as the prose around it does.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
