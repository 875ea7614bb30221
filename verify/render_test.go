package verify

import (
	"bytes"
	"github.com/benchgate/benchgate/internal/golden"
	"slices"
	"strings"
	"testing"
)

// goldenReport verifies a small board with one submission of each verdict,
// including contributor strings that try to inject markdown and HTML.
func goldenReport(t *testing.T) Report {
	fsys := board(t, rubricMeta(), rubricScores(), rubricDir)
	rows := mcqScores()
	rows[1]["answer"], rows[1]["correct"] = "B", true // a dispute
	for k, v := range board(t, mcqMeta(), rows, mcqDir) {
		fsys[k] = v
	}
	review := rubricScores()
	review[1]["score_b"] = nil
	for k, v := range board(t, rubricMeta(), review, "submissions/model-benchmark/z-review") {
		fsys[k] = v
	}
	meta := mcqMeta()
	meta["rubric_key"] = "<img src=x onerror=alert(1)> [click](https://evil.example) @maintainers | `x`"
	for k, v := range board(t, meta, mcqScores(), "submissions/model-benchmark/w-inject") {
		fsys[k] = v
	}
	return verifyBoard(t, fsys)
}

func TestRenderGolden(t *testing.T) {
	rep := goldenReport(t)
	for _, tc := range []struct{ format, file string }{
		{"text", "report.txt"},
		{"json", "report.json"},
		{"markdown", "report.md"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, tc.format, rep); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.file, buf.Bytes())
		})
	}
}

// TestRenderUnknownFormat: the error lists exactly Formats, each of which
// Render takes.
func TestRenderUnknownFormat(t *testing.T) {
	err := Render(&bytes.Buffer{}, "yaml", Report{})
	if err == nil {
		t.Fatal("no error for an unknown format")
	}
	msg := err.Error()
	prefix := `unknown format "yaml" (want `
	if !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, ")") {
		t.Fatalf("error %q", msg)
	}
	listed := strings.Split(strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(msg, prefix), ")"), " or ", ", "), ", ")
	if !slices.Equal(listed, Formats) {
		t.Errorf("error lists %q, want Formats %q", listed, Formats)
	}
	for _, f := range Formats {
		if err := Render(&bytes.Buffer{}, f, Report{}); err != nil {
			t.Errorf("Render in %q, one of Formats: %v", f, err)
		}
	}
	for words, want := range map[string]string{"": "", "a": "a", "a b": "a or b", "a b c": "a, b or c"} {
		if got := orList(strings.Fields(words)); got != want {
			t.Errorf("orList(%q) = %q, want %q", words, got, want)
		}
	}
}

func TestRenderGitHub(t *testing.T) {
	rep := goldenReport(t)
	var buf bytes.Buffer
	if err := Render(&buf, "github", rep); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"::error file=submissions/model-benchmark/y-mc/scores.json,line=10,title=benchgate mcq.dispute::question m2: answer is B but the answer-line policy reads C",
		"::warning file=submissions/model-benchmark/z-review/scores.json,title=benchgate arith.unscored::1 of 2 answers are unscored",
		"::notice title=benchgate verify::4 submission(s): 1 passed, 2 failed, 1 need review\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// Contributor text cannot end the command or start another one.
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if !strings.HasPrefix(line, "::") || strings.Count(line, "::") < 2 {
			t.Errorf("a line is not one workflow command: %q", line)
		}
	}
	if got := escapeData("a\nb%c\r::error::x"); got != "a%0Ab%25c%0D::error::x" {
		t.Errorf("escapeData = %q", got)
	}
	if got := escapeProperty("a:b,c\n"); got != "a%3Ab%2Cc%0A" {
		t.Errorf("escapeProperty = %q", got)
	}
}
