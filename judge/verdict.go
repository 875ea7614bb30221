package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
)

// Verdict is the judge's grade of one answer, in Groundtruth's shape.
// Numbers are kept as float64 so that a fractional award is reported by
// Check, with the component named, rather than failing to decode.
type Verdict struct {
	GatePassed           bool             `json:"gate_passed"`
	GateReason           string           `json:"gate_reason"`
	Components           []ComponentAward `json:"components"`
	Total                float64          `json:"total"`
	AdjudicationRequired bool             `json:"adjudication_required"`
	AdjudicationNote     string           `json:"adjudication_note"`
}

// ComponentAward is the judge's award for one rubric component.
type ComponentAward struct {
	ID      string  `json:"id"`
	Awarded float64 `json:"awarded"`
	Maximum float64 `json:"maximum"`
	Reason  string  `json:"reason"`
}

// maxVerdictBytes bounds what ParseVerdict reads: a verdict is a few
// kilobytes, and the prose search below must stay cheap on hostile input.
const maxVerdictBytes = 1 << 20

// scanBudget bounds the bytes the prose search reads, as a multiple of the
// reply's length: ordinary prose (even full of LaTeX braces) needs a few
// passes, while a reply built of thousands of nested or unclosed braces
// would need quadratic time and is given up on instead.
const scanBudget = 32

// ParseVerdict reads the judge's verdict from its reply. The reply is
// either the JSON object itself or prose around it; then the verdict is the
// last fenced block (```json, or ``` holding an object) or, without one,
// the last balanced {...} object, because a judge that thinks aloud puts
// its conclusion last. Decoding is strict about what the contract needs:
// gate_passed (a boolean), components (a list of objects with a string id
// and numeric awarded and maximum) and total (a number) must be present and
// typed; gate_reason, reason, adjudication_required and adjudication_note
// may be missing or null but must have their type when given; other fields
// are ignored. The error says what is wrong in words the judge can act on.
func ParseVerdict(content string) (Verdict, error) {
	if len(content) > maxVerdictBytes {
		return Verdict{}, fmt.Errorf("the reply is %d bytes long; a verdict is one short JSON object", len(content))
	}
	raw, err := extractObject(content)
	if err != nil {
		return Verdict{}, err
	}
	return decodeVerdict(raw)
}

// ReadVerdict reads the judge's verdict from its reply under a judge
// contract's verdict rule: ParseVerdict for VerdictJSON (and the zero
// rule), ParseLastFencedVerdict for VerdictLastFencedJSON; with Integers,
// an award or total not written as a JSON integer is a problem the judge
// is told of, as a fractional one is.
func ReadVerdict(rule benchmark.VerdictRule, content string) (Verdict, error) {
	var raw []byte
	var err error
	switch {
	case len(content) > maxVerdictBytes:
		return Verdict{}, fmt.Errorf("the reply is %d bytes long; a verdict is one short JSON object", len(content))
	case rule.Format == benchmark.VerdictLastFencedJSON:
		raw, err = lastFencedObject(content)
	default:
		raw, err = extractObject(content)
	}
	if err != nil {
		return Verdict{}, err
	}
	v, err := decodeVerdict(raw)
	if err != nil || !rule.Integers {
		return v, err
	}
	if problems := notIntegers(raw); len(problems) > 0 {
		return Verdict{}, &FormatError{Problems: problems}
	}
	return v, nil
}

// ParseLastFencedVerdict reads the verdict as the last fenced block of the
// reply, labelled json or unlabelled, that parses as a JSON object: a
// judge that writes a draft verdict and then a corrected one, or whose
// last block is cut short, is read from the block that parses, as a
// harness that tries the blocks from the last does. Decoding is then as
// strict as ParseVerdict's.
func ParseLastFencedVerdict(content string) (Verdict, error) {
	return ReadVerdict(benchmark.VerdictRule{Format: benchmark.VerdictLastFencedJSON}, content)
}

// lastFencedObject returns the body of the last fenced block that is a
// JSON object.
func lastFencedObject(content string) ([]byte, error) {
	blocks := fences(content)
	for i := len(blocks) - 1; i >= 0; i-- {
		body := strings.TrimSpace(blocks[i])
		if strings.HasPrefix(body, "{") && json.Valid([]byte(body)) {
			return []byte(body), nil
		}
	}
	if len(blocks) == 0 {
		return nil, errors.New("the reply holds no fenced ```json block; reply with the verdict object in one ```json block")
	}
	return nil, fmt.Errorf("none of the reply's %d fenced json blocks is a valid JSON object (the last: %s); reply with the verdict object in one ```json block", len(blocks), describeJSONError(strings.TrimSpace(blocks[len(blocks)-1])))
}

// notIntegers lists the awards, maxima and total of a verdict object that
// are numbers not written as JSON integers (3.0, 3e0), which a contract
// that takes integers only refuses even when their value is whole.
func notIntegers(raw []byte) []string {
	var obj struct {
		Total      json.RawMessage `json:"total"`
		Components []struct {
			ID      string          `json:"id"`
			Awarded json.RawMessage `json:"awarded"`
			Maximum json.RawMessage `json:"maximum"`
		} `json:"components"`
	}
	// decodeVerdict has checked every one of these types.
	_ = json.Unmarshal(raw, &obj)
	var out []string
	check := func(what string, n json.RawMessage) {
		if t := strings.TrimSpace(string(n)); strings.ContainsAny(t, ".eE") {
			out = append(out, fmt.Sprintf("%s is written %s, which is not an integer; write whole points as integers, like %s", what, t, wholeText(t)))
		}
	}
	for _, c := range obj.Components {
		check("component "+c.ID+": awarded", c.Awarded)
		check("component "+c.ID+": maximum", c.Maximum)
	}
	check("total", obj.Total)
	return out
}

// wholeText suggests the integer a number such as 3.0 is meant to be.
func wholeText(num string) string {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || !whole(f) {
		return "3"
	}
	return strconv.FormatFloat(f, 'f', 0, 64)
}

// extractObject finds the JSON object a reply offers as its verdict.
func extractObject(content string) ([]byte, error) {
	t := strings.TrimSpace(content)
	if t == "" {
		return nil, errors.New("the reply is empty; it must be the JSON verdict object")
	}
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return []byte(t), nil
	}
	if body, ok := lastFence(t); ok {
		body = strings.TrimSpace(body)
		if !strings.HasPrefix(body, "{") || !json.Valid([]byte(body)) {
			return nil, fmt.Errorf("the last fenced code block is not a valid JSON object: %s", describeJSONError(body))
		}
		return []byte(body), nil
	}
	if obj, ok := lastObject(t); ok {
		return obj, nil
	}
	return nil, errors.New("the reply holds no JSON object; reply with the verdict as one JSON object")
}

// lastFence returns the body of the last fenced block labelled json or
// unlabelled whose body starts with an object. Other languages are skipped:
// a judge may quote code from the answer.
func lastFence(s string) (string, bool) {
	blocks := fences(s)
	if len(blocks) == 0 {
		return "", false
	}
	return blocks[len(blocks)-1], true
}

// fences returns the bodies of the fenced blocks of s labelled json, or
// unlabelled with a body that starts with an object, in order.
func fences(s string) []string {
	var out []string
	rest := s
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		after := rest[i+3:]
		nl := strings.IndexByte(after, '\n')
		if nl < 0 {
			break
		}
		lang := strings.ToLower(strings.TrimSpace(after[:nl]))
		inner := after[nl+1:]
		j := strings.Index(inner, "```")
		if j < 0 {
			break
		}
		b := inner[:j]
		if lang == "json" || (lang == "" && strings.HasPrefix(strings.TrimSpace(b), "{")) {
			out = append(out, b)
		}
		rest = inner[j+3:]
	}
	return out
}

// lastObject returns the last outermost balanced {...} in s that is valid
// JSON. Braces inside JSON strings are skipped; a brace in the prose that
// does not open a JSON object (an unclosed one, or LaTeX such as \frac{a}{b})
// is stepped over by trying the next one.
func lastObject(s string) ([]byte, bool) {
	var last []byte
	budget := scanBudget*len(s) + 1<<16
	for i := 0; i < len(s) && budget > 0; {
		if s[i] != '{' {
			i++
			continue
		}
		end, ok := matchBrace(s, i)
		if !ok {
			budget -= len(s) - i
			i++
			continue
		}
		budget -= end + 1 - i
		if cand := []byte(s[i : end+1]); json.Valid(cand) {
			last = cand
			i = end + 1
			continue
		}
		i++
	}
	return last, last != nil
}

// matchBrace returns the index of the brace closing the one at s[open],
// reading JSON strings (with escapes) as opaque.
func matchBrace(s string, open int) (int, bool) {
	depth := 0
	inStr, esc := false, false
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
		case inStr:
		case c == '"':
			inStr = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

func describeJSONError(s string) string {
	var v any
	err := json.Unmarshal([]byte(s), &v)
	if err == nil {
		return "it is JSON but not an object"
	}
	return err.Error()
}

// decodeVerdict decodes and type-checks one verdict object.
func decodeVerdict(raw []byte) (Verdict, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Verdict{}, fmt.Errorf("the verdict is not a JSON object: %v", err)
	}
	var v Verdict
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	if b, err := reqBool(obj, "gate_passed"); err != "" {
		bad("%s", err)
	} else {
		v.GatePassed = b
	}
	if n, err := reqNumber(obj, "total"); err != "" {
		bad("%s", err)
	} else {
		v.Total = n
	}
	v.GateReason = optString(obj, "gate_reason", &errs)
	v.AdjudicationRequired = optBool(obj, "adjudication_required", &errs)
	v.AdjudicationNote = optString(obj, "adjudication_note", &errs)

	comps, ok := obj["components"]
	var list []json.RawMessage
	switch {
	case !ok:
		bad(`"components" is missing; list every rubric component as {"id", "awarded", "maximum", "reason"}`)
	case json.Unmarshal(comps, &list) != nil || isNull(comps):
		bad(`"components" must be a list of objects, not %s`, kindOf(comps))
	}
	if list != nil {
		// An empty list stays a list, so the verdict marshals as it read.
		v.Components = make([]ComponentAward, 0, len(list))
	}
	for i, c := range list {
		var co map[string]json.RawMessage
		if json.Unmarshal(c, &co) != nil || isNull(c) {
			bad("components[%d] must be an object, not %s", i, kindOf(c))
			continue
		}
		a := ComponentAward{}
		label := fmt.Sprintf("components[%d]", i)
		if id, ok := co["id"]; !ok {
			bad(`%s has no "id"`, label)
		} else if json.Unmarshal(id, &a.ID) != nil || isNull(id) {
			bad(`%s: "id" must be a string, not %s`, label, kindOf(id))
		} else {
			label = fmt.Sprintf("component %s", a.ID)
		}
		for _, f := range []struct {
			key string
			dst *float64
		}{{"awarded", &a.Awarded}, {"maximum", &a.Maximum}} {
			if n, err := reqNumber(co, f.key); err != "" {
				bad("%s: %s", label, err)
			} else {
				*f.dst = n
			}
		}
		a.Reason = optString(co, "reason", &errs)
		v.Components = append(v.Components, a)
	}
	if len(errs) > 0 {
		return Verdict{}, &FormatError{Problems: errs}
	}
	return v, nil
}

// FormatError reports a verdict object whose fields are missing or of the
// wrong type.
type FormatError struct {
	Problems []string
}

// Error joins the problems into one message.
func (e *FormatError) Error() string {
	return "the verdict object is malformed: " + strings.Join(e.Problems, "; ")
}

func reqBool(obj map[string]json.RawMessage, key string) (bool, string) {
	r, ok := obj[key]
	if !ok {
		return false, fmt.Sprintf("%q is missing", key)
	}
	var b bool
	if isNull(r) || json.Unmarshal(r, &b) != nil {
		return false, fmt.Sprintf("%q must be true or false, not %s", key, kindOf(r))
	}
	return b, ""
}

func reqNumber(obj map[string]json.RawMessage, key string) (float64, string) {
	r, ok := obj[key]
	if !ok {
		return 0, fmt.Sprintf("%q is missing", key)
	}
	var n float64
	if isNull(r) || json.Unmarshal(r, &n) != nil {
		return 0, fmt.Sprintf("%q must be a number, not %s", key, kindOf(r))
	}
	return n, ""
}

func optString(obj map[string]json.RawMessage, key string, errs *[]string) string {
	r, ok := obj[key]
	if !ok || isNull(r) {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) != nil {
		*errs = append(*errs, fmt.Sprintf("%q must be a string, not %s", key, kindOf(r)))
	}
	return s
}

func optBool(obj map[string]json.RawMessage, key string, errs *[]string) bool {
	r, ok := obj[key]
	if !ok || isNull(r) {
		return false
	}
	var b bool
	if json.Unmarshal(r, &b) != nil {
		*errs = append(*errs, fmt.Sprintf("%q must be true or false, not %s", key, kindOf(r)))
	}
	return b
}

func isNull(r json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(r), []byte("null")) }

// kindOf names a JSON value's type, with a short excerpt, for messages.
func kindOf(r json.RawMessage) string {
	t := bytes.TrimSpace(r)
	if len(t) == 0 {
		return "nothing"
	}
	kind := "a number"
	switch t[0] {
	case '"':
		kind = "a string"
	case '{':
		kind = "an object"
	case '[':
		kind = "a list"
	case 't', 'f':
		kind = "a boolean"
	case 'n':
		return "null"
	}
	ex := string(t)
	if len(ex) > 40 {
		ex = ex[:40] + "…"
	}
	return kind + " (" + ex + ")"
}

// Check lists every way the verdict breaks the grading contract of
// question q; none means it can be recorded as a score:
//
//   - every rubric component appears exactly once, by id (missing, unknown
//     and duplicate ids are each reported);
//   - each maximum equals the component's points in the rubric;
//   - each award is a whole number from 0 to the component's points;
//   - total is a whole number and equals the sum of the awards;
//   - when the gate failed, every award and the total are 0;
//   - when the gate passed, the gate component is awarded at least 1 point.
//
// The last rule is the decision the rubric leaves open: a gate component
// earning nothing on an answer that passed the gate contradicts itself
// (passing the gate is what that component rewards), while partial credit
// on it is allowed, because its credit_if may grade how well the gate
// condition is met.
func (v Verdict) Check(q *benchmark.RubricQuestion) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	seen := map[string]bool{}
	sum, sumOK := 0.0, true
	for _, a := range v.Components {
		c, known := q.Component(a.ID)
		switch {
		case !known:
			add("component %q is not in the rubric (its components are %s)", a.ID, componentIDs(q))
			sumOK = false
			continue
		case seen[a.ID]:
			add("component %s is listed more than once", a.ID)
			sumOK = false
			continue
		}
		seen[a.ID] = true
		if a.Maximum != float64(c.Points) {
			add("component %s: maximum is %s but the rubric gives it %d points", a.ID, num(a.Maximum), c.Points)
		}
		switch {
		case !whole(a.Awarded):
			add("component %s: awarded %s is not a whole number; award integer points only", a.ID, num(a.Awarded))
		case a.Awarded < 0 || a.Awarded > float64(c.Points):
			add("component %s: awarded %s is outside 0..%d", a.ID, num(a.Awarded), c.Points)
		}
		if !v.GatePassed && a.Awarded != 0 {
			add("the gate failed, so component %s must be awarded 0, not %s", a.ID, num(a.Awarded))
		}
		if v.GatePassed && a.ID == q.Gate.ComponentID && a.Awarded < 1 {
			add("the gate passed, so the gate component %s must be awarded at least 1 point, not %s; if the answer does not meet the gate, set gate_passed to false", a.ID, num(a.Awarded))
		}
		sum += a.Awarded
	}
	for _, c := range q.Components {
		if !seen[c.ID] {
			add("component %s is missing; list every component, with 0 where nothing is earned", c.ID)
		}
	}
	switch {
	case !whole(v.Total):
		add("total %s is not a whole number", num(v.Total))
	case sumOK && v.Total != sum:
		add("total is %s but the awards add up to %s", num(v.Total), num(sum))
	}
	if !v.GatePassed && v.Total != 0 {
		add("the gate failed, so the total must be 0, not %s", num(v.Total))
	}
	return out
}

func whole(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) && math.Abs(f) < 1<<53 }

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func componentIDs(q *benchmark.RubricQuestion) string {
	ids := make([]string, len(q.Components))
	for i, c := range q.Components {
		ids[i] = c.ID
	}
	return strings.Join(ids, ", ")
}
