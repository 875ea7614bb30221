package bot

import (
	"strings"
	"testing"
	"time"
)

func TestCommand(t *testing.T) {
	const rerun, verify = KindRerun, KindVerify
	tests := []struct {
		name, body string
		want       Kind
	}{
		{"alone", "/benchgate rerun", rerun},
		{"verify", "/benchgate verify", verify},
		{"reproduce", "/benchgate reproduce", KindReproduce},
		{"reproduce quoted", "> /benchgate reproduce", ""},
		{"after a paragraph line", "Looks odd.\n/benchgate rerun\n", rerun},
		{"spaces and CRLF", "  /benchgate   verify \r\n", verify},
		{"lone CR ends a line", "Looks odd.\r/benchgate rerun", rerun},
		{"three spaces", "   /benchgate rerun", rerun},
		{"inside a sentence", "please /benchgate rerun this", ""},
		{"more words", "/benchgate rerun now", ""},
		{"capitals", "/BENCHGATE rerun", ""},
		{"unknown verb", "/benchgate merge", ""},
		{"the first command wins", "/benchgate verify\n\n/benchgate rerun", verify},

		// Fenced code: ``` and ~~~, up to three spaces before the fence,
		// closed only by a fence of the same character at least as long.
		{"backtick fence", "You can ask:\n```\n/benchgate rerun\n```", ""},
		{"tilde fence", "~~~\n/benchgate rerun\n~~~", ""},
		{"fence with an info string", "```text\n/benchgate rerun\n```", ""},
		{"fence indented three spaces", "   ```\n/benchgate rerun\n   ```", ""},
		{"unclosed fence runs to the end", "```\n/benchgate rerun", ""},
		{"shorter closing fence does not close", "````\n```\n/benchgate rerun\n````", ""},
		{"other character does not close", "```\n~~~\n/benchgate rerun\n```", ""},
		{"closing fence with text after does not close", "```\n``` x\n/benchgate rerun\n```", ""},
		{"after the fence closes", "```\nexample\n```\n/benchgate rerun", rerun},
		{"longer closing fence closes", "```\nx\n`````\n/benchgate rerun", rerun},
		{"four spaces is no fence", "    ```\n/benchgate rerun\n    ```", rerun},
		{"backtick in the info string is no fence", "``` a`b\n\n/benchgate rerun", rerun},
		{"two backticks are no fence", "``\n\n/benchgate rerun", rerun},
		{"fence in a list item", "- ```\n  /benchgate rerun\n  ```", ""},
		{"fence in a list item ends with it", "- ```\n  x\n\n/benchgate rerun", rerun},
		{"fence in a quote ends with it", "> ```\n/benchgate rerun", rerun},

		// Indented code, which cannot interrupt a paragraph.
		{"indented code", "Try:\n\n    /benchgate rerun", ""},
		{"tab-indented code", "\t/benchgate rerun", ""},
		{"indented continuation of a paragraph", "Try\n    /benchgate rerun", ""},
		{"after indented code", "    code\n/benchgate rerun", rerun},

		// Code spans, which may span lines of a paragraph.
		{"code span over lines", "Type `\n/benchgate rerun\n` to ask.", ""},
		{"double-backtick span", "``\n/benchgate rerun\n``", ""},
		{"unmatched backtick", "a ` b\n/benchgate rerun", rerun},
		{"escaped backtick", "\\`\n/benchgate rerun\n\\`", rerun},
		{"runs of different lengths do not match", "``\n/benchgate rerun\n`", rerun},

		// HTML comments and other HTML.
		{"comment block", "<!--\n/benchgate rerun\n-->", ""},
		{"comment block, text before", "Thanks!\n<!-- a note\n/benchgate rerun\n-->", ""},
		{"inline comment over lines", "Thanks <!--\n/benchgate rerun\n--> bye", ""},
		{"after a comment", "<!-- note -->\n/benchgate rerun", rerun},
		{"after a comment block closes", "<!--\nnote\n-->\n/benchgate rerun", rerun},
		{"unclosed comment runs to the end", "<!--\n\n/benchgate rerun", ""},
		{"pre block", "<pre>\n/benchgate rerun\n</pre>", ""},
		{"details block until a blank line", "<details>\n/benchgate rerun\n</details>", ""},
		{"after a details block", "<details>\n</details>\n\n/benchgate rerun", rerun},
		{"in an attribute", "<span title=\"\n/benchgate rerun\n\">x</span>", ""},
		{"escaped comment", "\\<!--\n/benchgate rerun\n-->", rerun},

		// Block quotes: a quoted command is someone else's.
		{"quoted", "> /benchgate rerun", ""},
		{"quoted without a space", ">/benchgate rerun", ""},
		{"quoted reply", "> Could you check?\n> /benchgate rerun\n\nDone, see above.", ""},
		{"nested quote", "> > /benchgate rerun", ""},
		{"lazy continuation of a quote", "> quoted words\n/benchgate rerun", ""},
		{"after a quote and a blank line", "> quoted words\n\n/benchgate rerun", rerun},
		{"after a quote and a break", "> quoted words\n---\n/benchgate rerun", rerun},
		{"quote in a list item", "- > /benchgate rerun", ""},
		{"quote inside a fence", "```\n> x\n```\n/benchgate rerun", rerun},

		// List items: the command on a line of its own in an item counts,
		// one after a list marker does not (the line holds more).
		{"after a list marker", "- /benchgate rerun", ""},
		{"after an ordered marker", "1. /benchgate rerun", ""},
		{"in a list item", "- looks odd\n  /benchgate rerun", rerun},
		{"lazy line of a list item", "- looks odd\n/benchgate rerun", rerun},
		{"after a list", "- a\n- b\n\n/benchgate rerun", rerun},

		{"heading", "# /benchgate rerun", ""},
		{"after a heading", "# Review\n/benchgate rerun", rerun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Command(tt.body); got != tt.want {
				t.Errorf("Command(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

// TestCommandDeepNesting: a megabyte of nested quotes and list items is
// read in one pass (it once took minutes, each container marking all
// those around it on every line).
func TestCommandDeepNesting(t *testing.T) {
	for _, unit := range []string{"> ", "1. ", "- > "} {
		body := strings.Repeat(unit, (1<<20)/len(unit)) + "\n/benchgate rerun"
		start := time.Now()
		if got := Command(body); got != KindRerun {
			t.Errorf("%q nested: %q, want the command after it", unit, got)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%q nested a megabyte deep: %v", unit, d)
		}
	}
}
