package bot

import (
	"regexp"
	"strings"
)

// Command returns the job a comment asks for: "/benchgate rerun",
// "/benchgate verify" or "/benchgate reproduce" on a line of its own; ""
// for anything else.
//
// The comment is read as GitHub renders it, by CommonMark's block rules:
// the command counts only as a line of a paragraph, with nothing else on
// its line and at most three spaces before it. A command shown as code (a
// fenced or indented code block, or a code span), hidden (an HTML comment,
// tag or block) or quoted (a block quote, with any line that continues
// its paragraph without a ">") is an example or someone else's words, not
// a request. A quoted reply to a maintainer's command therefore runs
// nothing. In doubt, a line is not a command: the cost of one missed is
// typing it again, that of one read in a quotation a spot-check nobody
// asked for.
func Command(body string) Kind {
	var s commandScanner
	for _, line := range mdLines(body) {
		s.line(line)
	}
	s.closeLeaf()
	return s.found
}

// lineCommand returns the command a line's text is, or "".
func lineCommand(text string) Kind {
	f := strings.Fields(text)
	if len(f) != 2 || f[0] != "/benchgate" {
		return ""
	}
	switch f[1] {
	case "rerun":
		return KindRerun
	case "verify":
		return KindVerify
	case "reproduce":
		return KindReproduce
	}
	return ""
}

// mdLines splits a comment at CommonMark's line endings (\n, \r\n and a
// lone \r) and expands tabs to the next multiple of four columns, the
// width CommonMark gives them for block structure.
func mdLines(body string) []string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if strings.Contains(l, "\t") {
			var b strings.Builder
			col := 0
			for _, r := range l {
				if r == '\t' {
					n := 4 - col%4
					b.WriteString("    "[:n])
					col += n
					continue
				}
				b.WriteRune(r)
				col++
			}
			lines[i] = b.String()
		}
	}
	return lines
}

// mdContainer is an open block quote or list item.
type mdContainer struct {
	quote   bool // a block quote; else a list item
	indent  int  // a list item: the columns its content is indented by
	content bool // a list item: it holds a block already, so a blank line does not end it
}

type mdLeaf int

const (
	noLeaf mdLeaf = iota
	paragraph
	fencedCode
	indentedCode
	htmlBlock
)

// paraLine is a line of an open paragraph: its text without its
// indentation, and the command it would be if nothing hides it.
type paraLine struct {
	text    string
	command Kind
}

// commandScanner follows CommonMark's block structure line by line as far
// as telling a paragraph's lines from everything else needs: block quotes
// and list items (containers), fenced and indented code, HTML blocks,
// headings and thematic breaks. Tables, link reference definitions and
// setext headings are read as paragraphs, which is what they are to this
// question: text on the page.
type commandScanner struct {
	open    []mdContainer
	leaf    mdLeaf
	fence   string // fencedCode: the opening fence (its character, as many times as it had)
	htmlEnd int    // htmlBlock: CommonMark's start condition (1 to 7), which says how it ends
	para    []paraLine
	quoted  bool // the open paragraph is inside a block quote
	found   Kind
}

func (s *commandScanner) line(line string) {
	// Continue the open containers the line continues.
	pos, matched := 0, 0
	for ; matched < len(s.open); matched++ {
		c := s.open[matched]
		ind, rest := indentOf(line[pos:])
		if c.quote {
			if ind > 3 || !strings.HasPrefix(rest, ">") {
				break
			}
			pos += ind + 1
			if strings.HasPrefix(line[pos:], " ") {
				pos++
			}
		} else if rest == "" {
			if !c.content {
				break
			}
		} else if ind >= c.indent {
			pos += c.indent
		} else {
			break
		}
	}
	all := matched == len(s.open)
	if all {
		switch s.leaf {
		case fencedCode:
			if closesFence(line[pos:], s.fence) {
				s.leaf = noLeaf
			}
			return
		case htmlBlock:
			if htmlBlockEnds(s.htmlEnd, line[pos:]) {
				s.leaf = noLeaf
			}
			return
		}
	}

	// Open the block quotes and list items the line starts.
	opened := false
	for {
		ind, rest := indentOf(line[pos:])
		if ind > 3 {
			break
		}
		var c mdContainer
		var width int
		if strings.HasPrefix(rest, ">") {
			c, width = mdContainer{quote: true}, ind+1
			if strings.HasPrefix(rest[1:], " ") {
				width++
			}
		} else if w, ok := listMarker(rest, all && !opened && s.leaf == paragraph); ok && !thematicBreak(rest) {
			c, width = mdContainer{indent: ind + w}, ind+w
		} else {
			break
		}
		if !opened {
			s.closeLeaf()
			s.open = s.open[:matched]
			opened = true
		}
		s.holdsBlock()
		s.open = append(s.open, c)
		pos = min(pos+width, len(line))
	}

	ind, text := indentOf(line[pos:])
	if !all && !opened {
		// A paragraph goes on in a line that starts no block, even
		// without its containers' markers (a lazy continuation line).
		if s.leaf == paragraph && text != "" && (ind > 3 || !startsBlock(text)) {
			s.addLine(text, ind, false)
			return
		}
		s.closeLeaf()
		s.open = s.open[:matched]
	}
	if text == "" {
		if s.leaf == paragraph {
			s.closeLeaf()
		}
		return
	}
	s.holdsBlock()
	if ind > 3 {
		if s.leaf == paragraph {
			s.addLine(text, ind, opened)
		} else {
			s.leaf = indentedCode
		}
		return
	}
	if s.leaf == indentedCode {
		s.leaf = noLeaf
	}
	if f := openingFence(text); f != "" {
		s.closeLeaf()
		s.leaf, s.fence = fencedCode, f
		return
	}
	if n := htmlBlockStart(text, s.leaf == paragraph); n != 0 {
		s.closeLeaf()
		s.leaf, s.htmlEnd = htmlBlock, n
		if n <= 5 && htmlBlockEnds(n, text) {
			s.leaf = noLeaf
		}
		return
	}
	if atxHeading(text) || thematicBreak(text) {
		s.closeLeaf()
		return
	}
	if s.leaf != paragraph {
		s.leaf, s.quoted = paragraph, false
		for _, c := range s.open {
			s.quoted = s.quoted || c.quote
		}
	}
	s.addLine(text, ind, opened)
}

// holdsBlock records that the innermost container holds a block; those
// around it hold it.
func (s *commandScanner) holdsBlock() {
	if n := len(s.open); n > 0 {
		s.open[n-1].content = true
	}
}

// addLine adds a line to the open paragraph. A line that opened a list
// item or block quote carries more than the command, so it is none.
func (s *commandScanner) addLine(text string, ind int, opened bool) {
	l := paraLine{text: text}
	if ind <= 3 && !opened {
		l.command = lineCommand(text)
	}
	s.para = append(s.para, l)
}

// closeLeaf ends the open leaf block; a paragraph's command, if nothing
// hides it, is then found.
func (s *commandScanner) closeLeaf() {
	if s.leaf == paragraph && !s.quoted && s.found == "" {
		s.found = paragraphCommand(s.para)
	}
	s.leaf, s.para = noLeaf, s.para[:0]
}

// paragraphCommand returns the first command among a paragraph's lines
// that no code span or inline HTML covers.
func paragraphCommand(lines []paraLine) Kind {
	var texts []string
	some := false
	for _, l := range lines {
		texts = append(texts, l.text)
		some = some || l.command != ""
	}
	if !some {
		return ""
	}
	hidden := inlineHidden(strings.Join(texts, "\n"))
	off := 0
	for _, l := range lines {
		end := off + len(l.text)
		if l.command != "" && !overlaps(hidden, off, end) {
			return l.command
		}
		off = end + 1
	}
	return ""
}

func overlaps(spans [][2]int, from, to int) bool {
	for _, s := range spans {
		if s[0] < to && from < s[1] {
			return true
		}
	}
	return false
}

// indentOf returns the number of leading spaces of s and the rest.
func indentOf(s string) (int, string) {
	rest := strings.TrimLeft(s, " ")
	return len(s) - len(rest), rest
}

// listMarker reports whether s (after its indentation) starts a list
// item, and the columns from the marker to the item's content. An item
// may interrupt a paragraph only if it is not empty and, when ordered,
// starts at 1.
func listMarker(s string, interrupt bool) (int, bool) {
	n := 0
	switch {
	case s != "" && strings.IndexByte("-+*", s[0]) >= 0:
		n = 1
	default:
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(s) || s[n] != '.' && s[n] != ')' {
			return 0, false
		}
		if interrupt && s[:n] != "1" {
			return 0, false
		}
		n++
	}
	after := s[n:]
	if after != "" && after[0] != ' ' {
		return 0, false
	}
	spaces, rest := indentOf(after)
	switch {
	case rest == "":
		if interrupt {
			return 0, false
		}
		return n + 1, true
	case spaces > 4: // the content is indented code, one column in
		return n + 1, true
	}
	return n + spaces, true
}

// thematicBreak reports whether s (after its indentation) is a thematic
// break: three or more of one of - _ * and nothing else but spaces.
func thematicBreak(s string) bool {
	if s == "" || strings.IndexByte("-_*", s[0]) < 0 {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// atxHeading reports whether s (after its indentation) is an ATX heading.
func atxHeading(s string) bool {
	n := len(s) - len(strings.TrimLeft(s, "#"))
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ')
}

// openingFence returns the fence s (after its indentation) opens, or "":
// three or more backticks or tildes; after backticks, an info string
// without a backtick.
func openingFence(s string) string {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return ""
	}
	n := len(s) - len(strings.TrimLeft(s, s[:1]))
	if n < 3 || s[0] == '`' && strings.Contains(s[n:], "`") {
		return ""
	}
	return s[:n]
}

// closesFence reports whether line closes the fenced code block opened by
// fence: at most three spaces, then the fence's character at least as
// many times, then only spaces.
func closesFence(line, fence string) bool {
	ind, s := indentOf(line)
	if ind > 3 {
		return false
	}
	rest := strings.TrimLeft(s, fence[:1])
	return len(s)-len(rest) >= len(fence) && strings.Trim(rest, " ") == ""
}

// startsBlock reports whether s, indented at most three spaces, starts a
// block that ends a paragraph it could otherwise continue lazily. Block
// quotes and list items are looked for before this. A lone tag starts an
// HTML block here, as in GitHub's cmark-gfm, though it cannot interrupt
// a paragraph whose containers all go on.
func startsBlock(s string) bool {
	return openingFence(s) != "" || htmlBlockStart(s, false) != 0 || atxHeading(s) || thematicBreak(s)
}

// htmlBlockTags are the tag names of CommonMark's HTML block condition 6.
var htmlBlockTags = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`address article aside base basefont blockquote body caption center col colgroup
		dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head
		header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p param search section
		summary table tbody td tfoot th thead title tr track ul`) {
		htmlBlockTags[t] = true
	}
}

var (
	htmlTag = func() string {
		name := `[A-Za-z][A-Za-z0-9-]*`
		attr := `\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>` + "`" + `]+|'[^']*'|"[^"]*"))?`
		return `<` + name + `(?:` + attr + `)*\s*/?>|</` + name + `\s*>`
	}()
	// htmlTagLine is CommonMark's HTML block condition 7: a whole tag
	// alone on its line.
	htmlTagLine = regexp.MustCompile(`^(?:` + htmlTag + `)[ ]*$`)
	// inlineTag is an inline HTML open or closing tag, which may span
	// lines.
	inlineTag = regexp.MustCompile(`^(?:` + htmlTag + `)`)
)

// htmlBlockStart returns which of CommonMark's seven HTML block start
// conditions s (after its indentation) meets, or 0. The seventh, a lone
// tag, cannot interrupt a paragraph.
func htmlBlockStart(s string, interrupt bool) int {
	if !strings.HasPrefix(s, "<") {
		return 0
	}
	low := strings.ToLower(s)
	for _, t := range []string{"<pre", "<script", "<style", "<textarea"} {
		if rest, ok := strings.CutPrefix(low, t); ok && (rest == "" || strings.IndexByte(" >", rest[0]) >= 0) {
			return 1
		}
	}
	switch {
	case strings.HasPrefix(s, "<!--"):
		return 2
	case strings.HasPrefix(s, "<?"):
		return 3
	case strings.HasPrefix(s, "<![CDATA["):
		return 5
	case len(s) > 2 && s[1] == '!' && isASCIILetter(s[2]):
		return 4
	}
	name := strings.TrimPrefix(low[1:], "/")
	end := 0
	for end < len(name) && (isASCIILetter(name[end]) || name[end] >= '0' && name[end] <= '9') {
		end++
	}
	if htmlBlockTags[name[:end]] {
		rest := name[end:]
		if rest == "" || rest[0] == ' ' || rest[0] == '>' || strings.HasPrefix(rest, "/>") {
			return 6
		}
	}
	if !interrupt && htmlTagLine.MatchString(s) {
		return 7
	}
	return 0
}

// htmlBlockEnds reports whether line ends an HTML block of the start
// condition n.
func htmlBlockEnds(n int, line string) bool {
	switch n {
	case 1:
		low := strings.ToLower(line)
		return strings.Contains(low, "</pre>") || strings.Contains(low, "</script>") || strings.Contains(low, "</style>") || strings.Contains(low, "</textarea>")
	case 2:
		return strings.Contains(line, "-->")
	case 3:
		return strings.Contains(line, "?>")
	case 4:
		return strings.Contains(line, ">")
	case 5:
		return strings.Contains(line, "]]>")
	}
	return strings.Trim(line, " ") == ""
}

func isASCIILetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// inlineHidden returns the byte ranges of a paragraph's text that render
// as code or not at all: code spans and inline HTML (comments, tags,
// processing instructions, declarations, CDATA), which may span lines.
// The text is read left to right as CommonMark does, a backslash escaping
// the punctuation after it.
func inlineHidden(text string) [][2]int {
	var spans [][2]int
	// Closers and backtick runs looked for in vain: none further on either.
	noCloser, noRun := map[string]bool{}, map[int]bool{}
	closer := func(from int, close string) int { // the end of the first close at or after from, or -1
		if noCloser[close] {
			return -1
		}
		i := strings.Index(text[from:], close)
		if i < 0 {
			noCloser[close] = true
			return -1
		}
		return from + i + len(close)
	}
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '\\' && i+1 < len(text) && isASCIIPunct(text[i+1]):
			i += 2
			continue
		case c == '`':
			j := i
			for j < len(text) && text[j] == '`' {
				j++
			}
			if end := closingRun(text, j, j-i, noRun); end >= 0 {
				spans = append(spans, [2]int{i, end})
				j = end
			}
			i = j
			continue
		case c == '<':
			end := -1
			rest := text[i:]
			switch {
			case strings.HasPrefix(rest, "<!--"):
				end = closer(i+2, "-->")
			case strings.HasPrefix(rest, "<?"):
				end = closer(i+2, "?>")
			case strings.HasPrefix(rest, "<![CDATA["):
				end = closer(i+9, "]]>")
			case len(rest) > 2 && rest[1] == '!' && isASCIILetter(rest[2]):
				end = closer(i+2, ">")
			default:
				if m := inlineTag.FindStringIndex(rest); m != nil {
					end = i + m[1]
				}
			}
			if end >= 0 {
				spans = append(spans, [2]int{i, end})
				i = end
				continue
			}
		}
		i++
	}
	return spans
}

// closingRun returns the end of the first run of exactly n backticks at
// or after from, or -1. A length looked for in vain is remembered in
// none, since no later search for it can succeed either.
func closingRun(text string, from, n int, none map[int]bool) int {
	if none[n] {
		return -1
	}
	for i := from; i < len(text); {
		j := strings.IndexByte(text[i:], '`')
		if j < 0 {
			break
		}
		i += j
		k := i
		for k < len(text) && text[k] == '`' {
			k++
		}
		if k-i == n {
			return k
		}
		i = k
	}
	none[n] = true
	return -1
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
