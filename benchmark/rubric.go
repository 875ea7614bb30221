package benchmark

import (
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
)

// Rubric is a schema 2.0 rubric benchmark.
type Rubric struct {
	Name           string
	TotalPoints    int
	GateFailScore  int
	GlobalVariants []Variant
	Questions      []RubricQuestion
}

// Variant is an accepted wording of a term. The published format has both
// objects ({canonical, accepted_variants}) and plain strings; a plain string
// becomes a Variant with only Canonical set.
type Variant struct {
	Canonical string
	Variants  []string
	Note      string
}

// RubricQuestion is one question of a rubric benchmark.
type RubricQuestion struct {
	ID               string
	Text             string
	Title            string
	ModelAnswer      string
	Principle        string
	Gate             Gate
	Components       []Component
	RequiredConcepts []string
	IndicativeTerms  []string
	DoNotCredit      []string
	AcceptedVariants []Variant
	Calibration      []Fixture
	Line             int
}

// Gate is the condition an answer must meet to earn any points.
type Gate struct {
	ComponentID   string
	Points        int
	PassCondition string
	FailExamples  []string
}

// Component is one scored part of an answer.
type Component struct {
	ID       string
	Points   int
	IsGate   bool
	CreditIf string
}

// Fixture is a calibration answer with the grade the rubric's authors
// expect the judge to give it.
type Fixture struct {
	ID         string
	Response   string
	GatePassed bool
	Awards     []Award
	Total      int
	Rationale  string
	Line       int
}

// Award is the points given to one component.
type Award struct {
	ID      string
	Awarded int
}

// Component returns the component with the given id.
func (q *RubricQuestion) Component(id string) (Component, bool) {
	for _, c := range q.Components {
		if c.ID == id {
			return c, true
		}
	}
	return Component{}, false
}

// parseRubric converts a schema-valid rubric document and checks what a
// schema cannot: one gate per question, point sums, unique ids and
// consistent calibration fixtures.
func parseRubric(file string, doc *jsondoc.Doc) (*Rubric, finding.List) {
	var out finding.List
	root := doc.Root
	r := &Rubric{}
	if b := root.Get("benchmark"); b != nil {
		r.Name = b.GetString("name")
	}
	sm := root.Get("scoring_model")
	r.TotalPoints, _ = integer(sm, "total_points")
	r.GateFailScore, _ = integer(sm, "gate_failure_score")
	if r.GateFailScore != 0 {
		out.Errorf("rubric.gate-failure-score", file, doc.Line(sm.Off), "", "scoring_model.gate_failure_score is %d; benchgate supports only 0 (a failed gate scores nothing)", r.GateFailScore)
	}
	r.GlobalVariants = variants(root.Get("global_variants"))

	qs := root.Get("questions")
	if len(qs.Elems) == 0 {
		out.Errorf("rubric.no-questions", file, doc.Line(qs.Off), "", "the rubric has no questions")
	}
	seen := map[string]int{}
	digits := map[string]string{}
	for _, n := range qs.Elems {
		q := RubricQuestion{
			ID:               n.GetString("id"),
			Text:             n.GetString("question"),
			Title:            n.GetString("title"),
			ModelAnswer:      n.GetString("model_answer"),
			Principle:        n.GetString("principle"),
			RequiredConcepts: n.GetStrings("required_concepts"),
			IndicativeTerms:  n.GetStrings("indicative_terms"),
			DoNotCredit:      n.GetStrings("do_not_credit"),
			AcceptedVariants: variants(n.Get("accepted_variants")),
			Line:             doc.Line(n.Off),
		}
		if prev, dup := seen[q.ID]; dup {
			out.Errorf("rubric.duplicate-id", file, q.Line, q.ID, "id %q is already used by the question on line %d; question ids must be unique", q.ID, prev)
		} else {
			seen[q.ID] = q.Line
		}
		// Ids such as "Q1" and "q-01" are easy to confuse in a spreadsheet
		// or a file name; say so, without failing.
		if d := strings.TrimLeft(strings.Join(digitsRe.FindAllString(q.ID, -1), ""), "0"); d != "" {
			if other, ok := digits[d]; ok && other != q.ID {
				out.Warnf("rubric.similar-id", file, q.Line, q.ID, "id %q has the same digits as %q; ids this close are easy to confuse", q.ID, other)
			} else {
				digits[d] = q.ID
			}
		}
		if strings.TrimSpace(q.Text) == "" {
			out.Errorf("rubric.empty-question", file, q.Line, q.ID, "the question text is empty")
		}
		g := n.Get("gate")
		q.Gate = Gate{
			ComponentID:   g.GetString("component_id"),
			PassCondition: g.GetString("pass_condition"),
			FailExamples:  g.GetStrings("fail_examples"),
		}
		gatePoints, hasGatePoints := integer(g, "points")
		q.Gate.Points = gatePoints
		if strings.TrimSpace(q.Gate.PassCondition) == "" {
			out.Errorf("rubric.empty-pass-condition", file, doc.Line(g.Off), q.ID, "gate.pass_condition is empty; the judge needs it to decide the gate")
		}
		sum := 0
		var gates []string
		compSeen := map[string]bool{}
		for _, cn := range n.Get("components").Elems {
			c := Component{ID: cn.GetString("id"), CreditIf: cn.GetString("credit_if")}
			c.Points, _ = integer(cn, "points")
			if b := cn.Get("is_gate"); b != nil {
				c.IsGate = b.Bool
			}
			line := doc.Line(cn.Off)
			if compSeen[c.ID] {
				out.Errorf("rubric.duplicate-component", file, line, q.ID, "component id %q appears twice", c.ID)
			}
			compSeen[c.ID] = true
			if strings.TrimSpace(c.CreditIf) == "" {
				out.Errorf("rubric.empty-credit-if", file, line, q.ID, "component %s has an empty credit_if; the judge needs it to award points", c.ID)
			}
			if c.IsGate {
				gates = append(gates, c.ID)
			}
			sum += c.Points
			q.Components = append(q.Components, c)
		}
		switch {
		case len(gates) == 0:
			out.Errorf("rubric.no-gate", file, q.Line, q.ID, "no component has is_gate: true; mark the gate component %q", q.Gate.ComponentID)
		case len(gates) > 1:
			out.Errorf("rubric.many-gates", file, q.Line, q.ID, "%d components have is_gate: true (%s); a question has exactly one gate", len(gates), strings.Join(gates, ", "))
		case gates[0] != q.Gate.ComponentID:
			out.Errorf("rubric.gate-mismatch", file, doc.Line(g.Off), q.ID, "gate.component_id is %q but the component marked is_gate is %q", q.Gate.ComponentID, gates[0])
		}
		if gc, ok := q.Component(q.Gate.ComponentID); !ok {
			out.Errorf("rubric.gate-component", file, doc.Line(g.Off), q.ID, "gate.component_id %q names no component of this question", q.Gate.ComponentID)
		} else if hasGatePoints && gc.Points != gatePoints {
			out.Errorf("rubric.gate-points", file, doc.Line(g.Off), q.ID, "gate.points is %d but component %s is worth %d", gatePoints, gc.ID, gc.Points)
		}
		if sum != r.TotalPoints {
			out.Errorf("rubric.points-sum", file, q.Line, q.ID, "component points add up to %d, but scoring_model.total_points is %d", sum, r.TotalPoints)
		}
		q.Calibration = parseFixtures(file, doc, n.Get("calibration"), &q, &out)
		if len(q.Calibration) == 0 {
			out.Warnf("rubric.no-calibration", file, q.Line, q.ID, "no calibration fixtures; without them the judge cannot be checked on this question")
		}
		r.Questions = append(r.Questions, q)
	}
	if b := root.Get("benchmark"); b != nil {
		if c, ok := integer(b, "question_count"); ok && c != len(r.Questions) {
			out.Warnf("rubric.question-count", file, doc.Line(b.Off), "", "benchmark.question_count is %d but the rubric has %d questions", c, len(r.Questions))
		}
	}
	return r, out
}

func parseFixtures(file string, doc *jsondoc.Doc, list *jsondoc.Node, q *RubricQuestion, out *finding.List) []Fixture {
	if list == nil {
		return nil
	}
	var fxs []Fixture
	seen := map[string]int{}
	for _, n := range list.Elems {
		f := Fixture{
			ID:         n.GetString("fixture_id"),
			Response:   n.GetString("response_text"),
			GatePassed: n.Get("expected_gate_passed").Bool,
			Rationale:  n.GetString("rationale"),
			Line:       doc.Line(n.Off),
		}
		bad := func(format string, args ...any) {
			out.Errorf("rubric.fixture", file, f.Line, q.ID, "calibration fixture %s: %s", f.ID, fmt.Sprintf(format, args...))
		}
		// A calibration record names a fixture by its id within its
		// question; two fixtures under one id cannot be told apart there.
		if prev, dup := seen[f.ID]; dup {
			out.Warnf("rubric.duplicate-fixture", file, f.Line, q.ID, "calibration fixture id %q is already used by the fixture on line %d; give each fixture of a question its own id, or a calibration record cannot be made", f.ID, prev)
		} else {
			seen[f.ID] = f.Line
		}
		total, ok := integer(n, "expected_total")
		if !ok {
			bad("expected_total %s is not an integer", n.Get("expected_total").Str)
		}
		f.Total = total
		sum, sumOK := 0, ok
		awarded := map[string]bool{}
		for _, an := range n.Get("expected_component_awards").Elems {
			a := Award{ID: an.GetString("id")}
			v, ok := integer(an, "awarded")
			a.Awarded = v
			c, known := q.Component(a.ID)
			switch {
			case !known:
				bad("awards points to %q, which is not a component of this question", a.ID)
			case awarded[a.ID]:
				bad("awards component %s twice", a.ID)
			case !ok:
				bad("component %s: awarded %s is not an integer", a.ID, an.Get("awarded").Str)
				sumOK = false
			case v < 0 || v > c.Points:
				bad("component %s: awarded %d is outside 0..%d", a.ID, v, c.Points)
			}
			awarded[a.ID] = true
			sum += v
			f.Awards = append(f.Awards, a)
		}
		for _, c := range q.Components {
			if !awarded[c.ID] {
				bad("gives no award for component %s; list every component, with 0 where nothing is earned", c.ID)
			}
		}
		if sumOK && sum != total {
			bad("awards add up to %d but expected_total is %d", sum, total)
		}
		if !f.GatePassed && (sum != 0 || total != 0) {
			bad("the gate fails, so every award and the total must be 0 (awards add up to %d, expected_total is %d)", sum, total)
		}
		fxs = append(fxs, f)
	}
	return fxs
}

// variants converts a list whose entries are plain strings or
// {canonical, accepted_variants, note} objects, where accepted_variants is
// a comma-separated string or a list of strings.
func variants(list *jsondoc.Node) []Variant {
	if list == nil {
		return nil
	}
	var out []Variant
	for _, n := range list.Elems {
		if n.Kind == jsondoc.String {
			out = append(out, Variant{Canonical: n.Str})
			continue
		}
		v := Variant{Canonical: n.GetString("canonical"), Note: n.GetString("note")}
		if av := n.Get("accepted_variants"); av != nil {
			if av.Kind == jsondoc.String {
				for _, s := range strings.Split(av.Str, ",") {
					if s = strings.TrimSpace(s); s != "" {
						v.Variants = append(v.Variants, s)
					}
				}
			} else {
				v.Variants = n.GetStrings("accepted_variants")
			}
		}
		out = append(out, v)
	}
	return out
}
