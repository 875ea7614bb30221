package judge

import (
	"os"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/internal/golden"
)

// renderMessages writes messages as a golden file shows them.
func renderMessages(b *strings.Builder, title string, msgs []struct{ Role, Content string }) {
	b.WriteString("######## " + title + "\n")
	for _, m := range msgs {
		b.WriteString("======== " + m.Role + "\n" + m.Content + "\n======== end " + m.Role + "\n")
	}
}

// exampleRubric is the example leaderboard's rubric, every element of the
// format used by one of its questions.
func exampleRubric(t *testing.T) *benchmark.Rubric {
	t.Helper()
	root := fixtures.Root(t)
	b, fs := benchmark.Load(os.DirFS(root), benchmark.Entry{Key: "basin-analysis", File: "rubrics/basin-analysis.json", Kind: benchmark.KindRubric, JudgeModel: "j"})
	if b == nil {
		t.Fatalf("the example rubric does not load: %v", fs)
	}
	return b.Rubric
}

// TestBuiltinPromptGolden: benchgate's own grading prompt, byte for byte,
// for every question of the example rubric and the test rubric, with a
// fixed boundary. Its wording is PromptVersion's: a change to this file
// must come with a new PromptVersion.
func TestBuiltinPromptGolden(t *testing.T) {
	const boundary = "0123456789abcdef0123456789abcdef"
	var b strings.Builder
	for _, r := range []*benchmark.Rubric{testRubric(), exampleRubric(t)} {
		for i := range r.Questions {
			q := &r.Questions[i]
			var msgs []struct{ Role, Content string }
			for _, m := range BuildPrompt(r, q, "An answer\nover two lines.", boundary) {
				msgs = append(msgs, struct{ Role, Content string }{m.Role, m.Content})
			}
			renderMessages(&b, "question "+q.ID, msgs)
		}
	}
	golden.Check(t, "builtin-prompt.txt", []byte(b.String()))
}
