package ranking

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/gomarkdown/markdown"
	"github.com/gomarkdown/markdown/parser"

	"github.com/benchgate/benchgate/internal/golden"
)

// TestRenderMarkdownReferencesInert: a model name and a submitter that
// hold what GitHub links or renders by itself in LEADERBOARD.md (a
// reference to an issue or pull request, a commit's SHA, math) read as
// written but link and render nothing: no text GitHub sees holds one.
func TestRenderMarkdownReferencesInert(t *testing.T) {
	const (
		model     = "Fixed in GH-1 and #2, see 0123456789abcdef0123456789abcdef01234567"
		submitter = "geo/board#3 for $x^2$"
	)
	b := htmlFixtureBoard()
	e := &b.Benchmarks[0].Entries[1]
	e.ModelName, e.Submitter = model, submitter
	var md bytes.Buffer
	if err := RenderMarkdown(&md, b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "LEADERBOARD-references.md", md.Bytes())

	out := string(markdown.ToHTML(md.Bytes(), parser.NewCommonMarkWithExtensions(parser.Tables), nil))
	reference := regexp.MustCompile(`(?i)#[0-9]|\bgh-[0-9]|\b[0-9a-f]{7,40}\b`)
	var seen strings.Builder
	for _, run := range regexp.MustCompile(`<[^>]*>`).Split(regexp.MustCompile(`(?s)<!--.*?-->`).ReplaceAllString(out, "<>"), -1) {
		run = html.UnescapeString(run)
		seen.WriteString(run)
		// The board's own commit links (its Added column) are the App's
		// voice, not the contributor's; only the two texts are checked.
		if (strings.Contains(model, run) || strings.Contains(submitter, run)) && reference.MatchString(run) {
			t.Errorf("GitHub would link the run of text %q", run)
		}
		if strings.Contains(run, "$") && run != "$" {
			t.Errorf("GitHub would read math in the run of text %q", run)
		}
	}
	for _, s := range []string{model, submitter} {
		if !strings.Contains(seen.String(), s) {
			t.Errorf("LEADERBOARD.md does not read %q", s)
		}
	}
}
