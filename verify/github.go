package verify

import (
	"fmt"
	"io"
	"strings"
)

// renderGitHub writes GitHub Actions workflow commands: one annotation per
// finding, on the file and line it names, and a closing notice with the
// counts. The markdown report belongs in the job summary
// ($GITHUB_STEP_SUMMARY), which the CLI writes beside it.
func renderGitHub(w io.Writer, r Report) error {
	var b strings.Builder
	for _, s := range r.Submissions {
		for _, f := range s.Errors {
			writeCommand(&b, "error", f.File, f.Line, "benchgate "+f.Code, questionPrefix(f.Question)+f.Message)
		}
		for _, f := range s.Warnings {
			writeCommand(&b, "warning", f.File, f.Line, "benchgate "+f.Code, questionPrefix(f.Question)+f.Message)
		}
	}
	fmt.Fprintf(&b, "::notice title=benchgate verify::%s\n", escapeData(fmt.Sprintf("%d submission(s): %d passed, %d failed, %d need review", len(r.Submissions), r.Passed, r.Failed, r.Review)))
	_, err := io.WriteString(w, b.String())
	return err
}

func questionPrefix(q string) string {
	if q == "" {
		return ""
	}
	return "question " + q + ": "
}

func writeCommand(b *strings.Builder, level, file string, line int, title, msg string) {
	fmt.Fprintf(b, "::%s file=%s", level, escapeProperty(file))
	if line > 0 {
		fmt.Fprintf(b, ",line=%d", line)
	}
	fmt.Fprintf(b, ",title=%s::%s\n", escapeProperty(title), escapeData(msg))
}

// escapeData escapes a workflow command's message, as the runner expects,
// so that a contributor's text cannot end the command or start another.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
