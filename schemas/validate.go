package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchgate/benchgate/jsondoc"
)

// violation is one way a value breaks its schema.
type violation struct {
	ptr string // JSON pointer of the value
	off int    // where to point a person: the value, or an offending key
	msg string
}

type validator struct {
	file string // the schema's file name, for messages
	out  []violation
}

func (v *validator) add(n *jsondoc.Node, ptr, format string, args ...any) {
	v.out = append(v.out, violation{ptr: ptr, off: n.Off, msg: fmt.Sprintf(format, args...)})
}

// valid reports whether n satisfies s, without collecting messages.
func valid(s *schema, n *jsondoc.Node) bool {
	v := &validator{}
	v.validate(s, n, "")
	return len(v.out) == 0
}

func (v *validator) validate(s *schema, n *jsondoc.Node, ptr string) {
	if s.refTo != nil {
		v.validate(s.refTo, n, ptr)
	}
	if len(s.types) > 0 && !hasType(n, s.types) {
		v.add(n, ptr, "expected %s, found %s", typeList(s.types), describe(n))
		return // the other keywords would only repeat this
	}
	if s.hasCnst && !equal(n, s.cnst) {
		v.add(n, ptr, "must be %s, found %s", literal(s.cnst), describe(n))
	}
	if s.hasEnum {
		ok := false
		for _, e := range s.enum {
			ok = ok || equal(n, e)
		}
		if !ok {
			lits := make([]string, len(s.enum))
			for i, e := range s.enum {
				lits[i] = literal(e)
			}
			v.add(n, ptr, "%s is not one of the allowed values: %s", describe(n), strings.Join(lits, ", "))
		}
	}
	switch n.Kind {
	case jsondoc.Object:
		v.object(s, n, ptr)
	case jsondoc.Array:
		if s.minItems >= 0 && len(n.Elems) < s.minItems {
			v.add(n, ptr, "has %d %s; at least %d %s required", len(n.Elems), plural(len(n.Elems), "item", "items"), s.minItems, plural(s.minItems, "is", "are"))
		}
		if s.maxItems >= 0 && len(n.Elems) > s.maxItems {
			v.add(n, ptr, "has %d items; at most %d %s allowed", len(n.Elems), s.maxItems, plural(s.maxItems, "is", "are"))
		}
		if s.items != nil {
			for i, e := range n.Elems {
				v.validate(s.items, e, ptr+"/"+strconv.Itoa(i))
			}
		}
	case jsondoc.String:
		if s.minLength >= 0 || s.maxLength >= 0 {
			l := utf8.RuneCountInString(n.Str)
			switch {
			case s.minLength == 1 && l == 0:
				v.add(n, ptr, "must not be empty")
			case s.minLength >= 0 && l < s.minLength:
				v.add(n, ptr, "is %d characters long; at least %d are required", l, s.minLength)
			case s.maxLength >= 0 && l > s.maxLength:
				v.add(n, ptr, "is %d characters long; at most %d are allowed", l, s.maxLength)
			}
		}
		if s.pattern != nil && !s.pattern.MatchString(n.Str) {
			v.add(n, ptr, "%s does not match the pattern %s", describe(n), s.patternSrc)
		}
	case jsondoc.Number:
		f, _ := n.Float()
		switch {
		case s.hasMin && f < s.minimum:
			v.add(n, ptr, "must be at least %s, found %s", fmtNum(s.minimum), n.Str)
		case s.hasMax && f > s.maximum:
			v.add(n, ptr, "must be at most %s, found %s", fmtNum(s.maximum), n.Str)
		case s.hasExclMin && f <= s.exclMinimum:
			v.add(n, ptr, "must be greater than %s, found %s", fmtNum(s.exclMinimum), n.Str)
		case s.hasExclMax && f >= s.exclMaximum:
			v.add(n, ptr, "must be less than %s, found %s", fmtNum(s.exclMaximum), n.Str)
		}
	}
	if len(s.oneOf) > 0 {
		matches := 0
		for _, alt := range s.oneOf {
			if valid(alt, n) {
				matches++
			}
		}
		switch {
		case matches == 0:
			shapes := make([]string, len(s.oneOf))
			for i, alt := range s.oneOf {
				shapes[i] = shape(alt)
			}
			v.add(n, ptr, "%s has none of the accepted shapes: %s", describe(n), strings.Join(shapes, "; or "))
		case matches > 1:
			v.add(n, ptr, "matches more than one of the accepted shapes")
		}
	}
}

func (v *validator) object(s *schema, n *jsondoc.Node, ptr string) {
	var missing []string
	for _, name := range s.required {
		if n.Get(name) == nil {
			missing = append(missing, strconv.Quote(name))
		}
	}
	if len(missing) > 0 {
		v.add(n, ptr, "missing required %s %s", plural(len(missing), "field", "fields"), strings.Join(missing, ", "))
	}
	for _, m := range n.Members {
		at := ptr + "/" + escapeToken(m.Key)
		if sub, ok := s.props[m.Key]; ok {
			v.validate(sub, m.Value, at)
			continue
		}
		switch {
		case s.addlFalse:
			v.out = append(v.out, violation{ptr: ptr, off: m.KeyOff, msg: fmt.Sprintf("unknown field %q; check its spelling against schemas/%s", m.Key, v.file)})
		case s.addlSchema != nil:
			v.validate(s.addlSchema, m.Value, at)
		}
	}
}

func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func hasType(n *jsondoc.Node, types []string) bool {
	for _, t := range types {
		switch t {
		case "null":
			if n.Kind == jsondoc.Null {
				return true
			}
		case "boolean":
			if n.Kind == jsondoc.Bool {
				return true
			}
		case "string":
			if n.Kind == jsondoc.String {
				return true
			}
		case "object":
			if n.Kind == jsondoc.Object {
				return true
			}
		case "array":
			if n.Kind == jsondoc.Array {
				return true
			}
		case "number":
			if n.Kind == jsondoc.Number {
				return true
			}
		case "integer":
			if f, ok := n.Float(); ok && f == math.Trunc(f) {
				return true
			}
		}
	}
	return false
}

var article = map[string]string{
	"null": "null", "boolean": "a boolean", "string": "a string", "object": "an object",
	"array": "an array", "number": "a number", "integer": "an integer",
}

func typeList(types []string) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = article[t]
	}
	return strings.Join(names, " or ")
}

// describe names a value for a message: short values are shown, long ones
// only by their type.
func describe(n *jsondoc.Node) string {
	switch n.Kind {
	case jsondoc.Null:
		return "null"
	case jsondoc.Bool:
		return strconv.FormatBool(n.Bool)
	case jsondoc.Number:
		return "the number " + n.Str
	case jsondoc.String:
		if utf8.RuneCountInString(n.Str) > 40 {
			return "a string"
		}
		return strconv.Quote(n.Str)
	case jsondoc.Array:
		return "an array"
	}
	return "an object"
}

func literal(v any) string {
	if v == nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shape summarises a schema for a oneOf message.
func shape(s *schema) string {
	if s.refTo != nil && len(s.types) == 0 {
		return shape(s.refTo)
	}
	desc := typeList(s.types)
	if desc == "" {
		desc = "a value"
	}
	if len(s.required) > 0 {
		desc += " with " + strings.Join(s.required, ", ")
	}
	return desc
}

// equal compares a parsed value with a value decoded from a schema (with
// numbers as json.Number).
func equal(n *jsondoc.Node, v any) bool {
	switch x := v.(type) {
	case nil:
		return n.Kind == jsondoc.Null
	case bool:
		return n.Kind == jsondoc.Bool && n.Bool == x
	case string:
		return n.Kind == jsondoc.String && n.Str == x
	case json.Number:
		a, ok1 := n.Float()
		b, err := x.Float64()
		return ok1 && err == nil && a == b
	case []any:
		if n.Kind != jsondoc.Array || len(n.Elems) != len(x) {
			return false
		}
		for i := range x {
			if !equal(n.Elems[i], x[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		if n.Kind != jsondoc.Object || len(n.Members) != len(x) {
			return false
		}
		for k, xv := range x {
			m := n.Get(k)
			if m == nil || !equal(m, xv) {
				return false
			}
		}
		return true
	}
	return false
}
