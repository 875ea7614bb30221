package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"empty", "", 1, 1, "the file is empty"},
		{"blank", "  \n ", 2, 2, "the file is empty"},
		{"bom", "\xEF\xBB\xBF{}", 1, 1, "byte order mark"},
		{"duplicate key", "{\n \"a\": 1,\n \"a\": 2\n}", 3, 2, `duplicate key "a" (first on line 2)`},
		{"duplicate key wide object", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"c":0}`, 1, 56, `duplicate key "c"`},
		{"NaN", `{"x": NaN}`, 1, 7, "NaN is not a JSON number"},
		{"Infinity", `[Infinity]`, 1, 2, "Infinity is not a JSON number"},
		{"minus Infinity", `[1, -Infinity]`, 1, 5, "-Infinity is not a JSON number"},
		{"trailing comma array", "[1,\n2,\n]", 2, 2, "trailing comma before ']'"},
		{"trailing comma object", `{"a":1,}`, 1, 7, "trailing comma before '}'"},
		{"cut short", "[\n{\"id\": \"Q1\"", 2, 12, "unexpected end of file inside the object that starts on line 2"},
		{"unterminated string", `{"a": "abc`, 1, 7, "unterminated string"},
		{"trailing data", "{} {}", 1, 4, "after the end of the JSON value"},
		{"invalid utf8 in string", "[\"a\xff\"]", 1, 4, "invalid UTF-8"},
		{"control char", "[\"a\tb\"]", 1, 4, "control character 0x09"},
		{"bad escape", `["\x"]`, 1, 3, `invalid escape \x`},
		{"lone low surrogate", `["\udc00"]`, 1, 3, "low surrogate"},
		{"lone high surrogate", `["\ud800x"]`, 1, 3, "high surrogate"},
		{"leading zero", `[01]`, 1, 2, "leading zero"},
		{"bare word", `[yes]`, 1, 2, "unexpected 'y'"},
		{"single quotes", `{'a': 1}`, 1, 2, "expected a quoted member name"},
		{"missing colon", `{"a" 1}`, 1, 6, "expected ':'"},
		{"huge number", `[1e999]`, 1, 2, "out of range"},
		{"too deep", strings.Repeat("[", 65) + strings.Repeat("]", 65), 1, 65, "deeper than 64 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), Limits{})
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error = %v, want a *SyntaxError", tt.in, err)
			}
			if se.Line != tt.line || se.Col != tt.col || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Parse(%q) = %d:%d %q, want %d:%d containing %q", tt.in, se.Line, se.Col, se.Msg, tt.line, tt.col, tt.msg)
			}
		})
	}
}

// TestParseErrorLines: an error about what is missing after a value
// points where it belongs, at the end of that value's line, not a line
// late at whatever text comes next; an error about text that is there
// points at it, at the start of a line as in the middle or the last line.
func TestParseErrorLines(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"comma missing at the end of a line", "[\n  {\"a\": 1}\n  {\"a\": 2}\n]\n", 2, 11, "expected ',' or ']' after an array element, found '{' on line 3"},
		{"comma missing after a member", "{\n  \"a\": 1\n  \"b\": 2\n}", 2, 9, "expected ',' or '}' after an object member, found '\"' on line 3"},
		{"comma missing mid-line", `[1 2]`, 1, 4, "expected ',' or ']' after an array element, found '2'"},
		{"trailing comma at the end of a line", "{\n  \"a\": 1,\n}\n", 2, 9, "trailing comma before '}'"},
		{"colon missing at the end of a line", "{\n  \"a\"\n  1\n}", 2, 6, `expected ':' after member name "a", found '1' on line 3`},
		{"bad value at the start of a line", "[\n1,\nyes\n]", 3, 1, "unexpected 'y'"},
		{"cut short in the last line", "[\n  {\"a\": 1},\n  {\"a\": 2}", 3, 11, "unexpected end of file inside the array that starts on line 1"},
		{"cut short after a newline", "[\n  {\"a\": 1},\n  {\"a\": 2}\n", 3, 11, "unexpected end of file inside the array that starts on line 1"},
		{"cut short after a comma", "[\n  1,\n\n", 2, 5, "unexpected end of file inside the array"},
		{"cut short after a colon", "{\"a\":\n", 1, 6, `the value of member "a" is missing`},
		{"cut short inside an object", "{\"a\": 1,\n  \"b\": 2\n\n", 2, 9, "unexpected end of file inside the object that starts on line 1"},
		{"trailing data in the last line", "{}\n{}", 2, 1, "after the end of the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), Limits{})
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error = %v, want a *SyntaxError", tt.in, err)
			}
			if se.Line != tt.line || se.Col != tt.col || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("Parse(%q) = %d:%d %q, want %d:%d containing %q", tt.in, se.Line, se.Col, se.Msg, tt.line, tt.col, tt.msg)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	in := `{"s": "h\u00e9\ud83d\ude00\n", "n": -1.5e3, "i": 42, "b": true, "z": null, "a": [1, {"k": []}], "u": "\ufffd"}`
	d, err := Parse([]byte(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var want any
	dec := json.NewDecoder(strings.NewReader(in))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if got := d.Root.Value(); !reflect.DeepEqual(got, want) {
		t.Errorf("Value() = %#v, want %#v", got, want)
	}
	if i, ok := d.Root.Get("i").Int(); !ok || i != 42 {
		t.Errorf("Int() = %d, %v", i, ok)
	}
	if i, ok := d.Root.Get("n").Int(); !ok || i != -1500 {
		t.Errorf("Int() of -1.5e3 = %d, %v; want -1500, true", i, ok)
	}
	if _, ok := d.Root.Get("s").Int(); ok {
		t.Errorf("Int() of a string succeeded")
	}
}

func TestLookupAndPosition(t *testing.T) {
	in := "[\n  {\"id\": \"Q1\"},\n  {\"id\": \"Q/2\", \"a~b\": [true]}\n]"
	d, err := Parse([]byte(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr       string
		line, col int
	}{
		{"", 1, 1},
		{"/0", 2, 3},
		{"/1/id", 3, 10},
		{"/1/a~0b/0", 3, 25},
		{"/1/missing", 3, 3}, // deepest existing ancestor
		{"/7", 1, 1},
	}
	for _, tt := range tests {
		n := d.Lookup(tt.ptr)
		if l, c := d.Position(n.Off); l != tt.line || c != tt.col {
			t.Errorf("Lookup(%q) at %d:%d, want %d:%d", tt.ptr, l, c, tt.line, tt.col)
		}
	}
}

// FuzzParse checks that Parse never panics, and that whatever it accepts
// encoding/json accepts too, with the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}],"c":"\u00e9"}`, `[1e5,-0.5,true,false]`, `{"a":1,"a":2}`, `"\ud83d\ude00"`, `[NaN]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data, Limits{MaxDepth: 32})
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("error %v is not a positioned SyntaxError", err)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("jsondoc accepted %q but encoding/json rejects it: %v", data, err)
		}
		if got := d.Root.Value(); !reflect.DeepEqual(got, want) {
			t.Fatalf("value differs from encoding/json for %q:\n got %#v\nwant %#v", data, got, want)
		}
	})
}
