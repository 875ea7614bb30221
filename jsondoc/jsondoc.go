// Package jsondoc parses JSON documents strictly and keeps the position of
// every value, so that later checks can name the line a person must fix.
//
// It is stricter than encoding/json: it rejects invalid UTF-8, duplicate
// object keys, lone UTF-16 surrogates and nesting deeper than a limit, and it
// names NaN and Infinity (which some JSON writers emit) instead of reporting a
// bare syntax error.
package jsondoc

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kind is the type of a JSON value.
type Kind uint8

// The kinds of JSON value.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Node is one parsed JSON value.
type Node struct {
	Kind    Kind
	Off     int      // byte offset of the value's first byte in the document
	Str     string   // the decoded string, or the literal text of a number
	Bool    bool     // the value of a boolean
	Elems   []*Node  // the elements of an array
	Members []Member // the members of an object, in document order
}

// Member is one key and value of an object.
type Member struct {
	Key    string
	KeyOff int
	Value  *Node
}

// Get returns the value of the member named key, or nil when n is not an
// object or has no such member.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := range n.Members {
		if n.Members[i].Key == key {
			return n.Members[i].Value
		}
	}
	return nil
}

// Value converts the node to the generic form that encoding/json produces
// with UseNumber: map[string]any, []any, string, json.Number, bool or nil.
func (n *Node) Value() any {
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		return json.Number(n.Str)
	case String:
		return n.Str
	case Array:
		a := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			a[i] = e.Value()
		}
		return a
	case Object:
		m := make(map[string]any, len(n.Members))
		for _, mem := range n.Members {
			m[mem.Key] = mem.Value.Value()
		}
		return m
	}
	return nil
}

// Int returns the value of an integral number node.
func (n *Node) Int() (int64, bool) {
	if n == nil || n.Kind != Number {
		return 0, false
	}
	if i, err := strconv.ParseInt(n.Str, 10, 64); err == nil {
		return i, true
	}
	// 3.0 and 3e0 are integers too. The decimal text decides, not its
	// float64 rounding: 2.99999999999999999 rounds to 3 but is no integer.
	digits, ok := integerDigits(n.Str)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return i, true
}

// integerDigits rewrites a JSON number whose value is an integer as plain
// decimal digits with its sign ("-3.0e1" gives "-30"), and reports false
// for a number with a fractional part.
func integerDigits(num string) (string, bool) {
	sign := ""
	if strings.HasPrefix(num, "-") {
		sign, num = "-", num[1:]
	}
	mant, exp := num, 0
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		mant = num[:i]
		e, err := strconv.Atoi(num[i+1:])
		if err != nil {
			e = math.MaxInt32 // only a zero survives such an exponent
			if strings.HasPrefix(num[i+1:], "-") {
				e = math.MinInt32
			}
		}
		exp = e
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	point := len(whole) + exp - (len(whole) + len(frac) - len(digits)) // digits before the point, after trimming
	if digits == "" {
		return "0", true
	}
	if point < len(digits) {
		if point < 0 || strings.Trim(digits[point:], "0") != "" {
			return "", false
		}
		return sign + digits[:point], true
	}
	if point > 20 {
		return "", false // beyond any int64
	}
	return sign + digits + strings.Repeat("0", point-len(digits)), true
}

// Float returns the value of a number node.
func (n *Node) Float() (float64, bool) {
	if n == nil || n.Kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.Str, 64)
	return f, err == nil
}

// Doc is a parsed document.
type Doc struct {
	Root   *Node
	Size   int
	Values int   // how many values the document holds
	lines  []int // offsets of each '\n'
}

// Position returns the 1-based line and column (in bytes) of a byte offset.
func (d *Doc) Position(off int) (line, col int) {
	i := sort.SearchInts(d.lines, off)
	start := 0
	if i > 0 {
		start = d.lines[i-1] + 1
	}
	return i + 1, off - start + 1
}

// Line returns the 1-based line of a byte offset.
func (d *Doc) Line(off int) int {
	l, _ := d.Position(off)
	return l
}

// Lookup returns the node at a JSON pointer (RFC 6901), or the deepest
// existing ancestor when the pointer names a value that is absent.
func (d *Doc) Lookup(ptr string) *Node {
	n := d.Root
	if ptr == "" || ptr == "/" || n == nil {
		return n
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var next *Node
		switch n.Kind {
		case Object:
			next = n.Get(tok)
		case Array:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Elems) {
				next = n.Elems[i]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// Limits bound what a document may hold.
type Limits struct {
	MaxDepth int // deepest nesting of arrays and objects; 0 means 64
	// MaxValues bounds the values (strings, numbers, literals, arrays and
	// objects) of the document; 0 means no limit. A parsed value takes
	// about a hundred bytes, so a file of tiny values takes some fifty
	// times its size in memory: this bounds what a file can cost.
	MaxValues int
}

// SyntaxError describes why a document is not strict JSON.
type SyntaxError struct {
	Line, Col int
	Off       int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// Parse parses data as one strict JSON document.
func Parse(data []byte, lim Limits) (*Doc, error) {
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = 64
	}
	p := &parser{data: data, maxDepth: lim.MaxDepth, maxValues: lim.MaxValues}
	d := &Doc{Size: len(data)}
	// Collect newline offsets first so that errors can be positioned.
	for i, c := range data {
		if c == '\n' {
			d.lines = append(d.lines, i)
		}
	}
	p.doc = d
	// A UTF-8 byte order mark is not JSON (RFC 8259 §8.1), but it is common
	// enough to deserve its own message.
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, p.errAt(0, "the file starts with a UTF-8 byte order mark; save it without one")
	}
	p.skipSpace()
	if p.pos >= len(data) {
		return nil, p.errAt(p.pos, "the file is empty; it must hold one JSON value")
	}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(data) {
		return nil, p.errAt(p.pos, "unexpected "+p.describe(p.pos)+" after the end of the JSON value")
	}
	d.Root, d.Values = root, p.values
	return d, nil
}

type parser struct {
	data      []byte
	pos       int
	maxDepth  int
	maxValues int
	values    int
	doc       *Doc
	slab      []Node
}

func (p *parser) newNode(k Kind, off int) *Node {
	if len(p.slab) == 0 {
		// Nodes come in batches to spare the allocator, sized to the input
		// so that many small documents (JSONL lines) waste little: a value
		// takes at least a few bytes of text.
		p.slab = make([]Node, min(256, 4+(len(p.data)-off)/16))
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.Kind, n.Off = k, off
	return n
}

func (p *parser) errAt(off int, msg string) error {
	line, col := p.doc.Position(off)
	return &SyntaxError{Line: line, Col: col, Off: off, Msg: msg}
}

// missing reports what should follow the text that ends at end: at the
// next token when it is on the same line, else at end, where the missing
// text belongs, rather than a line late at whatever comes next.
func (p *parser) missing(end int, msg string) error {
	if p.pos < len(p.data) && p.doc.Line(p.pos) == p.doc.Line(end) {
		return p.errAt(p.pos, msg+", found "+p.describe(p.pos))
	}
	if p.pos >= len(p.data) {
		return p.errAt(end, msg)
	}
	return p.errAt(end, fmt.Sprintf("%s, found %s on line %d", msg, p.describe(p.pos), p.doc.Line(p.pos)))
}

func (p *parser) describe(off int) string {
	if off >= len(p.data) {
		return "end of file"
	}
	c := p.data[off]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*Node, error) {
	if p.pos >= len(p.data) {
		return nil, p.errAt(p.pos, "unexpected end of file: a value is missing (is the file cut short?)")
	}
	start := p.pos
	if p.values++; p.maxValues > 0 && p.values > p.maxValues {
		return nil, p.errAt(start, fmt.Sprintf("the document holds more than %d values, the limit for this file", p.maxValues))
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n := p.newNode(String, start)
		n.Str = s
		return n, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", Bool, true)
	case c == 'f':
		return p.literal("false", Bool, false)
	case c == 'n':
		return p.literal("null", Null, false)
	case c == 'N' || c == 'I':
		return nil, p.errAt(start, p.nonFinite(start))
	default:
		return nil, p.errAt(start, "unexpected "+p.describe(start)+" where a value should start")
	}
}

func (p *parser) nonFinite(off int) string {
	for _, w := range []string{"NaN", "Infinity", "-Infinity"} {
		if strings.HasPrefix(string(p.data[off:min(off+len(w), len(p.data))]), w) {
			return w + " is not a JSON number; write null or a finite number"
		}
	}
	return "unexpected " + p.describe(off) + " where a value should start"
}

func (p *parser) literal(word string, k Kind, b bool) (*Node, error) {
	start := p.pos
	end := start + len(word)
	if end > len(p.data) || string(p.data[start:end]) != word {
		return nil, p.errAt(start, "invalid literal; expected "+word)
	}
	p.pos = end
	n := p.newNode(k, start)
	n.Bool = b
	return n, nil
}

func (p *parser) number() (*Node, error) {
	start := p.pos
	d := p.data
	i := p.pos
	if d[i] == '-' {
		i++
		if i < len(d) && d[i] == 'I' {
			return nil, p.errAt(start, p.nonFinite(start))
		}
	}
	digits := func() int {
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(d) && d[i] == '0' {
		i++
		if i < len(d) && d[i] >= '0' && d[i] <= '9' {
			return nil, p.errAt(start, "invalid number: a leading zero must not be followed by digits")
		}
	} else if digits() == 0 {
		return nil, p.errAt(start, "invalid number: a digit must follow the minus sign")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return nil, p.errAt(start, "invalid number: a digit must follow the decimal point")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, p.errAt(start, "invalid number: the exponent has no digits")
		}
	}
	p.pos = i
	n := p.newNode(Number, start)
	n.Str = string(d[start:i])
	if f, err := strconv.ParseFloat(n.Str, 64); err != nil || f-f != 0 {
		return nil, p.errAt(start, "number "+n.Str+" is out of range")
	}
	return n, nil
}

func (p *parser) object(depth int) (*Node, error) {
	start := p.pos
	if depth > p.maxDepth {
		return nil, p.errAt(start, fmt.Sprintf("nesting is deeper than %d levels", p.maxDepth))
	}
	p.pos++ // '{'
	n := p.newNode(Object, start)
	var seen map[string]int
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		end := p.pos // after '{' or ','
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.missing(end, fmt.Sprintf("unexpected end of file inside the object that starts on line %d", p.doc.Line(start)))
		}
		if p.data[p.pos] != '"' {
			if p.data[p.pos] == '}' && p.data[end-1] == ',' {
				return nil, p.errAt(end-1, "trailing comma before '}'")
			}
			return nil, p.errAt(p.pos, "expected a quoted member name, found "+p.describe(p.pos))
		}
		keyOff := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		// A map only pays off for wide objects; rows are small.
		if len(n.Members) >= 8 && seen == nil {
			seen = make(map[string]int, 2*len(n.Members))
			for _, m := range n.Members {
				seen[m.Key] = m.KeyOff
			}
		}
		if prev, dup := p.lookupKey(n, seen, key); dup {
			return nil, p.errAt(keyOff, fmt.Sprintf("duplicate key %q (first on line %d); a key may appear once per object", key, p.doc.Line(prev)))
		}
		if seen != nil {
			seen[key] = keyOff
		}
		end = p.pos
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.missing(end, fmt.Sprintf("expected ':' after member name %q", key))
		}
		p.pos++
		end = p.pos
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.missing(end, fmt.Sprintf("unexpected end of file: the value of member %q is missing", key))
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		n.Members = append(n.Members, Member{Key: key, KeyOff: keyOff, Value: v})
		end = p.pos
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.missing(end, fmt.Sprintf("unexpected end of file inside the object that starts on line %d", p.doc.Line(start)))
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return n, nil
		default:
			return nil, p.missing(end, "expected ',' or '}' after an object member")
		}
	}
}

func (p *parser) lookupKey(n *Node, seen map[string]int, key string) (int, bool) {
	if seen != nil {
		off, ok := seen[key]
		return off, ok
	}
	for _, m := range n.Members {
		if m.Key == key {
			return m.KeyOff, true
		}
	}
	return 0, false
}

func (p *parser) array(depth int) (*Node, error) {
	start := p.pos
	if depth > p.maxDepth {
		return nil, p.errAt(start, fmt.Sprintf("nesting is deeper than %d levels", p.maxDepth))
	}
	p.pos++ // '['
	n := p.newNode(Array, start)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		end := p.pos // after '[' or ','
		p.skipSpace()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			return nil, p.errAt(end-1, "trailing comma before ']'")
		}
		if p.pos >= len(p.data) {
			return nil, p.missing(end, fmt.Sprintf("unexpected end of file inside the array that starts on line %d", p.doc.Line(start)))
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		n.Elems = append(n.Elems, v)
		end = p.pos
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.missing(end, fmt.Sprintf("unexpected end of file inside the array that starts on line %d", p.doc.Line(start)))
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return n, nil
		default:
			return nil, p.missing(end, "expected ',' or ']' after an array element")
		}
	}
}

// str parses a string starting at the opening quote.
func (p *parser) str() (string, error) {
	start := p.pos
	d := p.data
	i := start + 1
	// Fast path: no escapes and plain ASCII.
	for i < len(d) {
		c := d[i]
		if c == '"' {
			p.pos = i + 1
			return string(d[start+1 : i]), nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		i++
	}
	var b []byte
	b = append(b, d[start+1:i]...)
	for {
		if i >= len(d) {
			return "", p.errAt(start, "unterminated string (the closing quote is missing)")
		}
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(b), nil
		case c < 0x20:
			return "", p.errAt(i, fmt.Sprintf("control character 0x%02x inside a string; escape it (for a newline write \\n)", c))
		case c == '\\':
			if i+1 >= len(d) {
				return "", p.errAt(start, "unterminated string (the closing quote is missing)")
			}
			switch e := d[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, n, err := p.unicodeEscape(i)
				if err != nil {
					return "", err
				}
				b = appendRune(b, r)
				i += n
				continue
			default:
				return "", p.errAt(i, fmt.Sprintf("invalid escape \\%c in a string", e))
			}
			i += 2
		case c < 0x80:
			b = append(b, c)
			i++
		default:
			size, ok := validRune(d[i:])
			if !ok {
				return "", p.errAt(i, "invalid UTF-8 in a string; save the file as UTF-8")
			}
			b = append(b, d[i:i+size]...)
			i += size
		}
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// unicodeEscape decodes \uXXXX (and a following low surrogate) at i and
// returns the rune and the number of bytes consumed.
func (p *parser) unicodeEscape(i int) (rune, int, error) {
	d := p.data
	r, ok := hex4(d[i+2:])
	if !ok {
		return 0, 0, p.errAt(i, "invalid \\u escape: four hex digits must follow \\u")
	}
	if r < 0xD800 || r > 0xDFFF {
		return r, 6, nil
	}
	if r >= 0xDC00 {
		return 0, 0, p.errAt(i, "invalid \\u escape: a low surrogate without a high surrogate before it")
	}
	if i+12 <= len(d) && d[i+6] == '\\' && d[i+7] == 'u' {
		if lo, ok := hex4(d[i+8:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, nil
		}
	}
	return 0, 0, p.errAt(i, "invalid \\u escape: a high surrogate without a low surrogate after it")
}

// LineNumber returns the line of the error, for callers that locate errors
// without knowing their type.
func (e *SyntaxError) LineNumber() int { return e.Line }

// Detail returns the error without its line, for reports that show the
// line separately.
func (e *SyntaxError) Detail() string {
	return fmt.Sprintf("invalid JSON at column %d: %s", e.Col, e.Msg)
}

// GetString returns the string member key of object n, or "" when it is
// absent or not a string.
func (n *Node) GetString(key string) string {
	if v := n.Get(key); v != nil && v.Kind == String {
		return v.Str
	}
	return ""
}

// GetStrings returns the string elements of the array member key of
// object n.
func (n *Node) GetStrings(key string) []string {
	v := n.Get(key)
	if v == nil || v.Kind != Array {
		return nil
	}
	out := make([]string, 0, len(v.Elems))
	for _, e := range v.Elems {
		if e.Kind == String {
			out = append(out, e.Str)
		}
	}
	return out
}
