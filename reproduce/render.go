package reproduce

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/benchgate/benchgate/internal/mdtext"
)

// Formats are the output formats of Render.
var Formats = []string{"text", "json", "markdown"}

// Render writes rep in one of Formats; markdown is for a pull request's
// comment, every text from the submission or the endpoint escaped.
func Render(w io.Writer, format string, rep Report) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case "text":
		return renderText(w, rep)
	case "markdown":
		_, err := io.WriteString(w, renderMarkdown(rep))
		return err
	}
	return fmt.Errorf("unknown format %q (valid: %s)", format, strings.Join(Formats, ", "))
}

func renderText(w io.Writer, rep Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", rep.Path, rep.Verdict)
	fmt.Fprintf(&b, "  %s\n", rep.Reason)
	if rep.Asked != "" {
		host := ""
		if rep.Endpoint != "" {
			host = " at " + rep.Endpoint
		}
		fmt.Fprintf(&b, "  model: %s, asked as %s%s\n", rep.Model, rep.Asked, host)
	}
	if rep.Seed != "" {
		fmt.Fprintf(&b, "  seed: %s (%s)\n", rep.Seed, rep.SeedSource)
	}
	fmt.Fprintf(&b, "  calls: %d, spend: $%.4f, questions compared: %d\n", rep.Calls, rep.SpendUSD, rep.Checked)
	if t := rep.Test; t != nil {
		fmt.Fprintf(&b, "  pairs: %d claimed right and reproduced wrong, %d the reverse, of %d (log-likelihood ratio %.2f, boundary %.2f; tolerance %s)\n", t.B, t.C, t.N, t.LogLR, t.Threshold, accuracyPoints(t.Tolerance))
	}
	if r := rep.Rubric; r != nil {
		bound := "none"
		if r.Bound != nil {
			bound = fmt.Sprintf("%.2f", *r.Bound)
		}
		fmt.Fprintf(&b, "  claimed − reproduced: %+.2f points a question over %d (upper bound %s; shift test p %.4g, jump test p %.4g)\n", r.Mean, r.N, bound, r.Shift.P, r.Jumps.P)
	}
	if rep.Agreement != nil {
		fmt.Fprintf(&b, "  letters agreeing: %.1f%%\n", 100**rep.Agreement)
	}
	if len(rep.Served) > 0 {
		fmt.Fprintf(&b, "  served by: %s\n", strings.Join(rep.Served, ", "))
	}
	for _, wn := range rep.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", wn)
	}
	for _, q := range rep.Questions {
		fmt.Fprintf(&b, "  %s: claimed %s, reproduced %s%s\n", q.ID, value(q.Claimed, q.ClaimedCorrect), value(q.Reproduced, q.ReproducedCorrect), fault(q.Fault))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// value writes a claimed or reproduced letter or score, with its
// correctness when known.
func value(v any, correct *bool) string {
	s := fmt.Sprint(v)
	switch v {
	case nil:
		s = "-"
	case "":
		s = "no letter"
	}
	if correct != nil {
		if *correct {
			s += " (right)"
		} else {
			s += " (wrong)"
		}
	}
	return s
}

func fault(f string) string {
	if f == "" {
		return ""
	}
	return " — " + f
}

var verdictIcon = map[Verdict]string{Consistent: "✅", Inconsistent: "❌", Inconclusive: "⚠️", Unreachable: "➖"}

func renderMarkdown(rep Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## benchgate reproduce: %s %s\n\n", verdictIcon[rep.Verdict], rep.Verdict)
	fmt.Fprintf(&b, "`%s` (`%s`, %s). %s\n\n", mdtext.Code(rep.Path), mdtext.Code(rep.RubricKey), rep.Kind, mdtext.Escape(rep.Reason))
	if rep.Asked != "" {
		host := ""
		if rep.Endpoint != "" {
			host = " at `" + mdtext.Code(rep.Endpoint) + "`"
		}
		fmt.Fprintf(&b, "Model `%s`, asked as `%s`%s. ", mdtext.Code(rep.Model), mdtext.Code(rep.Asked), host)
	}
	if rep.Seed != "" {
		fmt.Fprintf(&b, "Seed `%s` (%s). ", rep.Seed, rep.SeedSource)
	}
	fmt.Fprintf(&b, "%d calls, $%.4f; %d questions compared.\n\n", rep.Calls, rep.SpendUSD, rep.Checked)
	if t := rep.Test; t != nil {
		fmt.Fprintf(&b, "Claimed right and reproduced wrong: %d; the reverse: %d (log-likelihood ratio %.2f, boundary %.2f; tolerance %s).\n\n", t.B, t.C, t.LogLR, t.Threshold, accuracyPoints(t.Tolerance))
	}
	if r := rep.Rubric; r != nil {
		fmt.Fprintf(&b, "Claimed − reproduced: %+.2f points a question over %d (shift test p %.4g, jump test p %.4g).\n\n", r.Mean, r.N, r.Shift.P, r.Jumps.P)
	}
	if len(rep.Served) > 0 {
		served := make([]string, len(rep.Served))
		for i, s := range rep.Served {
			served[i] = "`" + mdtext.Code(s) + "`"
		}
		fmt.Fprintf(&b, "Served by %s.\n\n", strings.Join(served, ", "))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(&b, "> %s\n\n", mdtext.Escape(w))
	}
	if len(rep.Questions) > 0 {
		b.WriteString("| Question | Claimed | Reproduced | Note |\n|---|---|---|---|\n")
		for _, q := range rep.Questions {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", mdtext.Code(q.ID), mdtext.Escape(value(q.Claimed, q.ClaimedCorrect)), mdtext.Escape(value(q.Reproduced, q.ReproducedCorrect)), mdtext.Escape(q.Fault))
		}
	}
	return b.String()
}
