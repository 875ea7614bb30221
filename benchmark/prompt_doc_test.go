package benchmark

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// placeholderTable is the README table of a use's placeholders, rendered
// from the one list of them.
func placeholderTable(use PromptUse) string {
	var b strings.Builder
	b.WriteString("| Placeholder | Stands for |\n|---|---|\n")
	for _, ph := range Placeholders(use) {
		b.WriteString("| `{{" + ph.Name + "}}` | " + strings.ReplaceAll(ph.Means, "|", `\|`) + " |\n")
	}
	return b.String()
}

// TestReadmePlaceholders: README.md shows each use's placeholders exactly
// as benchgate has them.
func TestReadmePlaceholders(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, use := range []PromptUse{UseJudge, UseMCQ, UseRubric} {
		if want := placeholderTable(use); !strings.Contains(string(data), want) {
			t.Errorf("README.md lacks the %s placeholders' table, which is now:\n%s", use, want)
		}
	}
}
