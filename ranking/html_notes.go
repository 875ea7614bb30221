package ranking

import (
	"html/template"
	"io"
	"strings"

	"github.com/gomarkdown/markdown"
	"github.com/gomarkdown/markdown/ast"
	mdhtml "github.com/gomarkdown/markdown/html"
	"github.com/gomarkdown/markdown/parser"
)

// renderNotes turns a contributor's notes, written in markdown, into HTML
// that can neither run script nor make a request: raw HTML is dropped,
// images become their alt text, and only http(s) links stay links.
func renderNotes(src string) template.HTML {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	p := parser.NewCommonMarkWithExtensions(parser.Tables | parser.Strikethrough | parser.Autolink)
	doc := markdown.Parse(markdown.NormalizeNewlines([]byte(src)), p)
	r := mdhtml.NewRenderer(mdhtml.RendererOptions{
		// The hook below does the real work; the flags are a second line.
		Flags:          mdhtml.SkipHTML | mdhtml.SkipImages | mdhtml.Safelink | mdhtml.NofollowLinks | mdhtml.NoopenerLinks | mdhtml.NoreferrerLinks,
		RenderNodeHook: notesNode,
	})
	return template.HTML(markdown.Render(doc, r))
}

func notesNode(w io.Writer, node ast.Node, entering bool) (ast.WalkStatus, bool) {
	switch n := node.(type) {
	case *ast.HTMLSpan, *ast.HTMLBlock:
		return ast.GoToNext, true
	case *ast.Image:
		if entering {
			io.WriteString(w, template.HTMLEscapeString(plainText(n)))
		}
		return ast.SkipChildren, true
	case *ast.Link:
		dest, ok := webURL(strings.TrimSpace(string(n.Destination)))
		switch {
		case !ok:
			// The link text stays, as text.
		case entering:
			io.WriteString(w, `<a href="`+template.HTMLEscapeString(dest)+`" rel="nofollow noopener noreferrer">`)
		default:
			io.WriteString(w, "</a>")
		}
		return ast.GoToNext, true
	case *ast.Heading:
		// A heading in the notes must not outrank the page's own headings.
		if entering {
			io.WriteString(w, `<p class="note-heading"><strong>`)
		} else {
			io.WriteString(w, "</strong></p>\n")
		}
		return ast.GoToNext, true
	}
	return ast.GoToNext, false
}

// plainText is the text inside a node, such as an image's alt text.
func plainText(n ast.Node) string {
	var b strings.Builder
	ast.WalkFunc(n, func(c ast.Node, entering bool) ast.WalkStatus {
		if !entering {
			return ast.GoToNext
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Literal)
		case *ast.Code:
			b.Write(c.Literal)
		case *ast.Softbreak, *ast.Hardbreak:
			b.WriteByte(' ')
		}
		return ast.GoToNext
	})
	return b.String()
}
