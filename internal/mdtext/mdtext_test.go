package mdtext

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/golden"
	"github.com/gomarkdown/markdown"
	"github.com/gomarkdown/markdown/parser"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain model 3.5", "plain model 3.5"},
		{"<script>alert(1)</script>", `\<script\>alert(1)\</script\>`},
		{"[x](javascript:alert(1))", `\[x\](javascript:<!-- -->alert(1))`},
		{"![img](https://evil.example/p.png)", `\!\[img\](https:<!-- -->//evil.example/p.png)`},
		{"@maintainers please", `\@<!-- -->maintainers please`},
		{"a|b\nc", `a\|b c`},
		{"**bold** _it_ `code` ~~s~~ # h", `\*\*bold\*\* \_it\_ \` + "`" + `code\` + "`" + ` \~\~s\~\~ \# h`},
		{"&lt;", `\&lt;`},
		{"see https://evil.example/x", "see https:<!-- -->//evil.example/x"},
		{"HTTP://EVIL.EXAMPLE ftp://x.example", "HTTP:<!-- -->//EVIL.EXAMPLE ftp:<!-- -->//x.example"},
		{"www.evil.example and WWW.x.example", "www<!-- -->.evil.example and WWW<!-- -->.x.example"},
		{"mail me@evil.example", `mail me\@<!-- -->evil.example`},
		{"mailto:me@evil.example", `mailto:<!-- -->me\@<!-- -->evil.example`},
		{"time 12:30, ratio 1:2, a.b, Note: x, end:", "time 12:30, ratio 1:2, a.b, Note: x, end:"},
		{"<!-- -->", `\<\!-- --\>`}, // a contributor's comment is text, not a Break
		{"fixes #12, GH-3 and gh-4", `fixes \#<!-- -->12, GH-<!-- -->3 and gh-<!-- -->4`},
		{"geo/board#5 C# #x", `geo/board\#<!-- -->5 C\# \#x`},
		{"at 0123456789abcdef0123456789abcdef01234567", "at 012345<!-- -->6789ab<!-- -->cdef01<!-- -->234567<!-- -->89abcd<!-- -->ef0123<!-- -->4567"},
		{"abc1234 123456 sha256abcdef0", "abc123<!-- -->4 123456 sha256abcdef0"},
		{"$x^2$ costs $5", "<span>$</span>x^2<span>$</span> costs <span>$</span>5"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// gfmReference matches what GitHub links or renders by itself in text it
// has rendered, beyond its autolinks: a reference to an issue or pull
// request (#1, GH-1), a word that may be a commit's SHA, and "$", which
// starts or ends math unless it stands alone in an element of its own.
var gfmReference = regexp.MustCompile(`(?i)#[0-9]|\bgh-[0-9]|\b[0-9a-f]{7,40}\b|\$`)

// gfmAutolink matches what GitHub's autolink extension could link in one
// run of text, and more: a scheme's "://", "www." and an e-mail address,
// wherever they are and whatever precedes them (GitHub asks for a space or
// one of *_~( before www. and a letterless start before a scheme).
var gfmAutolink = regexp.MustCompile(`(?i)www\.[a-z0-9_-]|[a-z]://[^\s<]|[a-z0-9.+_-]@[a-z0-9_-]+\.[a-z0-9_-]`)

var (
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	htmlTag     = regexp.MustCompile(`<[^>]*>`)
)

// TestEscapeRendersAsText renders escaped text as markdown (gomarkdown's
// CommonMark parser with its autolinks, in a paragraph and in a table
// cell) and reads the HTML as GitHub's autolinker would: no link, no run
// of text holding anything GitHub would link, and the text a reader sees
// is the contributor's, character for character.
func TestEscapeRendersAsText(t *testing.T) {
	inputs := []string{
		"see https://evil.example/login?next=/ now",
		"(https://evil.example)",
		"*www.evil.example*",
		"_www.evil.example_ and ~www.evil.example~",
		"www.evil.example",
		"HTTPS://EVIL.EXAMPLE/",
		"ftp://files.evil.example/x",
		"write to support@evil.example today",
		"mailto:support@evil.example",
		"xmpp:support@evil.example/chat",
		"https://user@evil.example/",
		"@maintainers a.b@c.d.example",
		"fixes #1 and GH-2",
		"see geo/board#77",
		"merged as 0123456789abcdef0123456789abcdef01234567",
		"kim@0123456789abcdef0123456789abcdef01234567",
		"short abcdef0",
		"score $\\frac{1}{2}$ of $x$",
	}
	for _, in := range inputs {
		if !gfmAutolink.MatchString(in) && !gfmReference.MatchString(in) {
			t.Fatalf("%q has nothing GitHub would link: the check below would prove nothing", in)
		}
		for _, doc := range []string{Escape(in) + "\n", "| h |\n| --- |\n| " + Escape(in) + " |\n"} {
			p := parser.NewCommonMarkWithExtensions(parser.Tables | parser.Autolink)
			out := string(markdown.ToHTML([]byte(doc), p, nil))
			if strings.Contains(out, "<a ") {
				t.Errorf("%q renders a link: %s", in, out)
			}
			var seen strings.Builder
			for _, run := range htmlTag.Split(htmlComment.ReplaceAllString(out, "<>"), -1) {
				run = html.UnescapeString(run)
				if gfmAutolink.MatchString(run) {
					t.Errorf("%q: GitHub would link in the run of text %q (%s)", in, run, out)
				}
				if run != "$" && gfmReference.MatchString(run) {
					t.Errorf("%q: GitHub would link or render in the run of text %q (%s)", in, run, out)
				}
				seen.WriteString(run)
			}
			if got := strings.TrimSpace(seen.String()); !strings.Contains(got, in) {
				t.Errorf("%q reads as %q", in, got)
			}
		}
	}
}

func TestCode(t *testing.T) {
	if got := Code("a`b|c\nd"); got != `a'b\|c d` {
		t.Errorf("Code = %q", got)
	}
}

// TestEscapeGolden: contributor text as it reaches a comment or
// LEADERBOARD.md, in a paragraph and a table cell, with what GitHub would
// otherwise link or render: URLs, mentions, references, SHAs and math.
func TestEscapeGolden(t *testing.T) {
	inputs := []string{
		"see https://evil.example/x and www.evil.example",
		"@maintainers: mail me@evil.example",
		"fixes #1, GH-2, gh-3 and geo/board#4",
		"merged as 0123456789abcdef0123456789abcdef01234567 (kim@abcdef0123)",
		"score $\\frac{1}{2}$ costs $5",
		"<b>bold</b> **bold** `code` | cell",
	}
	var b strings.Builder
	b.WriteString("| contributor's text | escaped |\n| --- | --- |\n")
	for _, in := range inputs {
		fmt.Fprintf(&b, "| `%s` | %s |\n", Code(in), Escape(in))
	}
	b.WriteString("\n")
	for _, in := range inputs {
		b.WriteString(Escape(in) + "\n\n")
	}
	golden.Check(t, "escape.md", []byte(b.String()))
}
