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
		// A paragraph's continuation line loses its indentation: GitHub shows
		// it as a line of the paragraph like any other.
		{"indented continuation of a paragraph", "Try\n    /benchgate rerun", rerun},
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
		{"a character reference", "&#47;benchgate rerun", ""},
		{"an escaped slash", "\\/benchgate rerun", ""},
		{"escaped comment", "\\<!--\n/benchgate rerun\n-->", rerun},

		// HTML elements left open hold what follows, markdown paragraphs
		// included: GitHub renders the command inside them.
		{"html blockquote", "<blockquote>\n\n/benchgate rerun\n\n</blockquote>", ""},
		{"html blockquote left open", "<blockquote>\n\nquoted words\n\n/benchgate rerun", ""},
		{"html blockquote in capitals with attributes", "<BLOCKQUOTE cite=\"a>b\">\n\n/benchgate rerun", ""},
		{"after an html blockquote", "<blockquote>\n\nquoted words\n\n</blockquote>\n\n/benchgate rerun", rerun},
		{"inline quote element", "Said:<q>\n/benchgate rerun\n</q>", ""},
		{"details with a summary", "<details><summary>Log</summary>\n\n/benchgate rerun\n\n</details>", ""},
		{"after a void element", "<br/>\n\n/benchgate rerun", rerun},
		{"a tag in a comment opens nothing", "<!-- <blockquote> -->\n/benchgate rerun", rerun},
		{"closing tags close nothing unopened", "</blockquote>\n\n/benchgate rerun", rerun},

		// Other markup on the line.
		{"emphasis over lines", "*see\n/benchgate rerun\nabove*", ""},
		{"link text", "[\n/benchgate rerun\n](https://example.org)", ""},
		{"after a hard break", "Please:\\\n/benchgate rerun", rerun},

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

// TestParseCommandAccept: /benchgate accept takes the rest of its line as
// its reason, as written, under the rules every command follows.
func TestParseCommandAccept(t *testing.T) {
	tests := []struct {
		name, body string
		kind       Kind
		reason     string
	}{
		{"reason", "/benchgate accept the source cut responses", KindAccept, "the source cut responses"},
		{"spaces collapse", "  /benchgate   accept  a   b \r\n", KindAccept, "a b"},
		{"no reason", "/benchgate accept", KindAccept, ""},
		{"after a paragraph line", "Read them all.\n/benchgate accept letters checked by hand\nThanks", KindAccept, "letters checked by hand"},
		{"quoted", "> /benchgate accept because", "", ""},
		{"fenced", "```\n/benchgate accept because\n```", "", ""},
		{"code span in the reason", "/benchgate accept see `notes`", "", ""},
		{"emphasis in the reason", "/benchgate accept *surely*", "", ""},
		{"escaped reason", "/benchgate accept a \\* b", "", ""},
		{"character reference in the reason", "/benchgate accept a &amp; b", "", ""},
		{"plain punctuation", "/benchgate accept 3 of 40 (7.5%) cut; letters < 5% elsewhere & fine", KindAccept, "3 of 40 (7.5%) cut; letters < 5% elsewhere & fine"},
		{"inside a sentence", "please /benchgate accept it", "", ""},
		{"the first command wins", "/benchgate accept first\n\n/benchgate accept second", KindAccept, "first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, reason := ParseCommand(tt.body)
			if kind != tt.kind || reason != tt.reason {
				t.Errorf("ParseCommand(%q) = %q, %q; want %q, %q", tt.body, kind, reason, tt.kind, tt.reason)
			}
			if Command(tt.body) != tt.kind {
				t.Errorf("Command(%q) = %q, want %q", tt.body, Command(tt.body), tt.kind)
			}
		})
	}
}

// TestCommandPathological: inputs built to exhaust a parser are read in
// bounded time, and a command after them is found where CommonMark says
// it stands alone. Containers nested past the parser's depth bound leave
// what follows in doubt, so not a command.
func TestCommandPathological(t *testing.T) {
	const cmd = "\n/benchgate rerun"
	r := strings.Repeat
	tests := []struct {
		name, body string
		want       Kind
	}{
		{"quotes nested a megabyte deep", r("> ", 1<<19) + cmd, ""},
		{"list items nested a megabyte deep", r("1. ", 1<<20/3) + cmd, ""},
		{"quoted list items nested a megabyte deep", r("- > ", 1<<18) + cmd, ""},
		{"quotes nested ten deep", r("> ", 10) + cmd, KindRerun},
		{"list items nested ten deep", r("1. ", 10) + cmd, KindRerun},
		{"a fence of 64k backticks", r("`", 1<<16) + cmd, ""},
		{"64k code spans", r("` ", 1<<16) + cmd, KindRerun},
		{"64k open brackets", r("[", 1<<16) + cmd, KindRerun},
		{"64k unclosed links", r("[a](", 1<<16) + cmd, KindRerun},
		{"64k emphasis openers", r("*a ", 1<<16) + cmd, KindRerun},
		{"64k unclosed tags", r("<a ", 1<<16) + cmd, KindRerun},
		{"64k unclosed comments", r("<!--", 1<<16) + cmd, ""},
		{"64k open elements", r("<b>", 1<<16) + "\n" + cmd, ""},
		{"64k closing tags", r("</b>", 1<<16) + "\n" + cmd, KindRerun},
		{"256k lines", r("a\n", 1<<18) + cmd, KindRerun},
		{"64k backslashes", r("\\", 1<<16) + cmd, KindRerun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			if got := Command(tt.body); got != tt.want {
				t.Errorf("Command = %q, want %q", got, tt.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("read in %v", d)
			}
		})
	}
}
