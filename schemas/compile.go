package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// schema is one compiled (sub)schema. benchgate validates its files with
// this small compiler of the draft 2020-12 keywords its schemas use,
// working directly on parsed documents: it is several times faster than a
// general validator on large scores files, and its messages are worded for
// contributors. A schema that uses any other keyword does not compile, and
// a test checks that it agrees with a complete draft 2020-12 validator.
type schema struct {
	ptr string // location in the schema file, for errors in the schemas themselves

	ref     string // "#/$defs/name", resolved into refTo
	refTo   *schema
	types   []string // JSON Schema type names
	enum    []any
	hasEnum bool
	cnst    any
	hasCnst bool

	props      map[string]*schema
	propOrder  []string
	required   []string
	addlFalse  bool
	addlSchema *schema

	items              *schema
	minItems, maxItems int // -1 when absent

	minLength, maxLength int // -1 when absent
	pattern              *regexp.Regexp
	patternSrc           string

	minimum, maximum         float64
	hasMin, hasMax           bool
	exclMinimum, exclMaximum float64
	hasExclMin, hasExclMax   bool

	oneOf []*schema
}

// annotations are keywords that do not affect validation.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true, "default": true, "$comment": true, "examples": true,
}

type compiler struct {
	defs map[string]*schema
	refs []*schema
}

func compileSchema(src []byte) (*schema, error) {
	var raw any
	dec := json.NewDecoder(strings.NewReader(string(src)))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	c := &compiler{defs: map[string]*schema{}}
	root, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a schema must be an object")
	}
	if defs, ok := root["$defs"].(map[string]any); ok {
		// Compile definitions first so that references resolve.
		names := sortedKeys(defs)
		for _, name := range names {
			c.defs[name] = &schema{}
		}
		for _, name := range names {
			s, err := c.compile(defs[name], "/$defs/"+name)
			if err != nil {
				return nil, err
			}
			*c.defs[name] = *s
		}
	}
	s, err := c.compile(root, "")
	if err != nil {
		return nil, err
	}
	for _, r := range c.refs {
		name, ok := strings.CutPrefix(r.ref, "#/$defs/")
		if !ok || c.defs[name] == nil {
			return nil, fmt.Errorf("%s: $ref %q: only references to #/$defs/NAME are supported", r.ptr, r.ref)
		}
		r.refTo = c.defs[name]
	}
	return s, nil
}

func (c *compiler) compile(v any, ptr string) (*schema, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object", ptr)
	}
	s := &schema{ptr: ptr, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	for _, k := range sortedKeys(obj) {
		val := obj[k]
		at := ptr + "/" + k
		var err error
		switch k {
		case "$defs":
			if ptr != "" {
				err = fmt.Errorf("%s: $defs is supported only at the top level", at)
			}
		case "$ref":
			s.ref, _ = val.(string)
			c.refs = append(c.refs, s)
		case "type":
			switch t := val.(type) {
			case string:
				s.types = []string{t}
			case []any:
				for _, x := range t {
					name, _ := x.(string)
					s.types = append(s.types, name)
				}
			}
			for _, t := range s.types {
				if !validType[t] {
					err = fmt.Errorf("%s: unknown type %q", at, t)
				}
			}
		case "enum":
			s.enum, ok = val.([]any)
			s.hasEnum = true
			if !ok {
				err = fmt.Errorf("%s: enum must be an array", at)
			}
		case "const":
			s.cnst, s.hasCnst = val, true
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: properties must be an object", at)
			}
			s.props = map[string]*schema{}
			for _, name := range sortedKeys(props) {
				if s.props[name], err = c.compile(props[name], at+"/"+name); err != nil {
					return nil, err
				}
				s.propOrder = append(s.propOrder, name)
			}
		case "required":
			list, _ := val.([]any)
			for _, x := range list {
				name, _ := x.(string)
				s.required = append(s.required, name)
			}
		case "additionalProperties":
			if b, ok := val.(bool); ok {
				s.addlFalse = !b
			} else {
				s.addlSchema, err = c.compile(val, at)
			}
		case "items":
			s.items, err = c.compile(val, at)
		case "minItems":
			s.minItems, err = count(val, at)
		case "maxItems":
			s.maxItems, err = count(val, at)
		case "minLength":
			s.minLength, err = count(val, at)
		case "maxLength":
			s.maxLength, err = count(val, at)
		case "pattern":
			s.patternSrc, _ = val.(string)
			s.pattern, err = regexp.Compile(s.patternSrc)
		case "minimum":
			s.minimum, err = number(val, at)
			s.hasMin = true
		case "maximum":
			s.maximum, err = number(val, at)
			s.hasMax = true
		case "exclusiveMinimum":
			s.exclMinimum, err = number(val, at)
			s.hasExclMin = true
		case "exclusiveMaximum":
			s.exclMaximum, err = number(val, at)
			s.hasExclMax = true
		case "oneOf":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: oneOf must be an array", at)
			}
			for i, x := range list {
				sub, err := c.compile(x, fmt.Sprintf("%s/%d", at, i))
				if err != nil {
					return nil, err
				}
				s.oneOf = append(s.oneOf, sub)
			}
		default:
			if !annotations[k] {
				err = fmt.Errorf("%s: keyword %q is not supported by benchgate's validator; use the supported ones or extend schemas/compile.go", at, k)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

var validType = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "integer": true, "string": true}

func count(v any, at string) (int, error) {
	f, err := number(v, at)
	if err != nil || f < 0 || f != math.Trunc(f) {
		return 0, fmt.Errorf("%s: must be a non-negative integer", at)
	}
	return int(f), nil
}

func number(v any, at string) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: must be a number", at)
	}
	return n.Float64()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
