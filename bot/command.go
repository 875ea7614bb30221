package bot

import (
	"regexp"
	"strings"

	"github.com/gomarkdown/markdown/ast"
	"github.com/gomarkdown/markdown/parser"
)

// Command returns the job a comment asks for: "/benchgate rerun",
// "/benchgate verify", "/benchgate reproduce" or "/benchgate accept" on a
// line of its own (an accept with its reason after it, see ParseCommand);
// "" for anything else.
func Command(body string) Kind {
	k, _ := ParseCommand(body)
	return k
}

// ParseCommand is Command with the argument of the command that takes
// one: the reason of "/benchgate accept <reason>", the rest of its line
// with its words joined by single spaces ("" when none is given, which
// the job answers).
//
// The comment is parsed as GitHub renders it (CommonMark with GitHub's
// tables and strikethrough) and the command counts only as a line of
// plain text in a paragraph, with nothing else on its line. A command
// shown as code (a fenced or indented code block, or a code span), hidden
// or marked up (an HTML comment, tag or block, emphasis, a link), quoted
// (a block quote, with the lines that continue its paragraph without a
// ">"), inside an HTML element left open around it (a <blockquote>, a
// <details>) or on a list item's marker line is an example or someone
// else's words, not a request; one spelt with escapes or character
// references is none either. In doubt, a line is not a command: the cost
// of one missed is typing it again, that of one read in a quotation a
// spot-check nobody asked for.
func ParseCommand(body string) (found Kind, arg string) {
	// A parser failure on a hostile comment is a comment that asks for
	// nothing.
	defer func() {
		if recover() != nil {
			found, arg = "", ""
		}
	}()
	p := parser.NewCommonMarkWithExtensions(parser.Tables | parser.Strikethrough)
	doc := p.Parse([]byte(body))
	r := commandReader{written: writtenCommands(body)}
	ast.WalkFunc(doc, func(n ast.Node, entering bool) ast.WalkStatus {
		if !entering {
			return ast.GoToNext
		}
		switch n := n.(type) {
		case *ast.Paragraph:
			r.paragraph(n)
			return ast.SkipChildren
		case *ast.HTMLBlock:
			r.open.read(n.Literal)
		case *ast.HTMLSpan:
			r.open.read(n.Literal)
		}
		return ast.GoToNext
	})
	return r.found.kind, r.found.arg
}

// commandReader reads a comment's paragraphs in order, carrying the HTML
// elements left open from one block to the next.
type commandReader struct {
	open    openElements
	written map[command]bool // the commands some line of the comment spells out
	found   command
}

// command is a command as a line says it: its kind and the rest of the
// line, for the commands that take one.
type command struct {
	kind Kind
	arg  string
}

// paragraph looks for a command among the lines of p made only of text
// while no HTML element is open.
func (r *commandReader) paragraph(p *ast.Paragraph) {
	eligible := !insideQuote(p)
	// The first line of a list item's first paragraph holds its marker too.
	item, ok := p.GetParent().(*ast.ListItem)
	markerLine := ok && ast.GetFirstChild(item) == p
	var line strings.Builder
	plain := r.open.none()
	first := true
	flush := func() {
		if eligible && plain && !(first && markerLine) && r.found.kind == "" {
			if c := lineCommand(line.String()); c.kind != "" && r.written[c] {
				r.found = c
			}
		}
		line.Reset()
		plain, first = r.open.none(), false
	}
	for _, c := range p.Children {
		switch c := c.(type) {
		case *ast.Text:
			for i, part := range strings.Split(string(c.Literal), "\n") {
				if i > 0 {
					flush()
				}
				line.WriteString(part)
			}
			plain = plain && r.open.none()
		case *ast.Hardbreak:
			flush()
		default:
			// Markup (code, HTML, emphasis, a link) on a line makes it
			// more than a command; the HTML inside it may open elements.
			plain = false
			ast.WalkFunc(c, func(n ast.Node, entering bool) ast.WalkStatus {
				if h, ok := n.(*ast.HTMLSpan); ok && entering {
					r.open.read(h.Literal)
				}
				return ast.GoToNext
			})
		}
	}
	flush()
}

func insideQuote(n ast.Node) bool {
	for ; n != nil; n = n.GetParent() {
		if _, ok := n.(*ast.BlockQuote); ok {
			return true
		}
	}
	return false
}

// writtenCommands lists the commands that lines of body spell out as
// they are, so that one made of escapes or character references
// ("&#47;benchgate rerun"), which renders the same, is not taken for one;
// an accept's reason, too, is only what its line spells out.
func writtenCommands(body string) map[command]bool {
	out := map[command]bool{}
	for _, line := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if c := lineCommand(line); c.kind != "" {
			out[c] = true
		}
	}
	return out
}

// lineCommand returns the command a line's text is, or none.
func lineCommand(text string) command {
	f := strings.Fields(text)
	if len(f) < 2 || f[0] != "/benchgate" {
		return command{}
	}
	if f[1] == "accept" {
		// The reason is the rest of the line; the job checks it.
		return command{KindAccept, strings.Join(f[2:], " ")}
	}
	if len(f) != 2 {
		return command{}
	}
	switch f[1] {
	case "rerun":
		return command{kind: KindRerun}
	case "verify":
		return command{kind: KindVerify}
	case "reproduce":
		return command{kind: KindReproduce}
	}
	return command{}
}

// openElements counts the HTML elements opened and not yet closed by the
// comment's HTML so far. GitHub renders what follows an unclosed
// <blockquote> inside it, blank lines and markdown paragraphs included.
type openElements struct {
	depth map[string]int
	total int
}

var (
	htmlComment = regexp.MustCompile(`(?s)<!--.*?(?:-->|$)`)
	// htmlTagName finds open and closing tags; attributes are skipped up to
	// the tag's end, quoted values included.
	htmlTagName = regexp.MustCompile(`<(/?)([A-Za-z][A-Za-z0-9-]*)(?:\s(?:[^>"']|"[^"]*"|'[^']*')*)?(/?)>`)
	// voidElements never hold content, so they are never left open.
	voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
		"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}
)

func (o *openElements) none() bool { return o.total == 0 }

// read takes the tags of an HTML block or span into account, comments
// aside.
func (o *openElements) read(html []byte) {
	s := htmlComment.ReplaceAllString(string(html), "")
	for _, m := range htmlTagName.FindAllStringSubmatch(s, -1) {
		name := strings.ToLower(m[2])
		switch {
		case voidElements[name] || m[3] == "/":
		case m[1] == "/":
			if o.depth[name] > 0 {
				o.depth[name]--
				o.total--
			}
		default:
			if o.depth == nil {
				o.depth = map[string]int{}
			}
			o.depth[name]++
			o.total++
		}
	}
}
