package judge

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

const goodVerdict = `{"gate_passed": true, "gate_reason": "names entry pressure", "components": [{"id": "G1", "awarded": 4, "maximum": 4, "reason": "yes"}, {"id": "P2", "awarded": 3, "maximum": 6, "reason": "partly"}], "total": 7, "adjudication_required": false, "adjudication_note": ""}`

func TestParseVerdict(t *testing.T) {
	want := Verdict{GatePassed: true, GateReason: "names entry pressure", Total: 7, Components: []ComponentAward{
		{ID: "G1", Awarded: 4, Maximum: 4, Reason: "yes"}, {ID: "P2", Awarded: 3, Maximum: 6, Reason: "partly"}}}
	other := strings.Replace(goodVerdict, `"total": 7`, `"total": 6`, 1)
	tests := []struct {
		name    string
		content string
		total   float64 // of the verdict found; -1 when an error is wanted
		errHas  string
	}{
		{"plain JSON", goodVerdict, 7, ""},
		{"surrounding whitespace", "\n  " + goodVerdict + "\n", 7, ""},
		{"fenced json with prose", "Here is my grading.\n```json\n" + goodVerdict + "\n```\nThanks.", 7, ""},
		{"last fenced block wins", "```json\n" + other + "\n```\nOn reflection:\n```json\n" + goodVerdict + "\n```", 7, ""},
		{"unlabelled fence", "Verdict:\n```\n" + goodVerdict + "\n```", 7, ""},
		{"other-language fence skipped", "```python\nx = {}\n```\n```json\n" + goodVerdict + "\n```", 7, ""},
		{"prose then JSON", "The gate passes because the answer names capillary entry pressure. " + goodVerdict, 7, ""},
		{"last object wins", "Draft: " + other + " Final: " + goodVerdict + " Done.", 7, ""},
		{"braces inside strings", `Note {"a": "}{"} then ` + goodVerdict, 7, ""},
		{"stray unclosed brace", "I weighed {the gate first. " + goodVerdict, 7, ""},
		{"many LaTeX braces before", strings.Repeat(`S_w = \\left(\\frac{a R_w}{\\phi^m R_t}\\right)^{1/n}; `, 200) + goodVerdict, 7, ""},
		{"unknown fields tolerated", strings.Replace(goodVerdict, `"total": 7`, `"total": 7, "confidence": "high"`, 1), 7, ""},
		{"optional fields absent", `{"gate_passed": false, "components": [{"id": "G1", "awarded": 0, "maximum": 4}], "total": 0}`, 0, ""},
		{"null optionals", `{"gate_passed": false, "gate_reason": null, "components": [{"id": "G1", "awarded": 0, "maximum": 4, "reason": null}], "total": 0, "adjudication_note": null}`, 0, ""},
		{"fractional award decodes (Check reports it)", `{"gate_passed": true, "components": [{"id": "G1", "awarded": 2.5, "maximum": 4}], "total": 2.5}`, 2.5, ""},

		{"empty", "  ", -1, "empty"},
		{"garbage", "I think this deserves about seven.", -1, "no JSON object"},
		{"array", `[1, 2]`, -1, "no JSON object"},
		{"broken last fence", "```json\n{\"gate_passed\": true,\n```", -1, "last fenced code block is not a valid JSON object"},
		{"gate_passed missing", `{"components": [], "total": 0}`, -1, `"gate_passed" is missing`},
		{"gate_passed as string", strings.Replace(goodVerdict, `"gate_passed": true`, `"gate_passed": "true"`, 1), -1, `"gate_passed" must be true or false, not a string`},
		{"total missing", `{"gate_passed": true, "components": []}`, -1, `"total" is missing`},
		{"total as string", strings.Replace(goodVerdict, `"total": 7`, `"total": "7"`, 1), -1, `"total" must be a number`},
		{"components missing", `{"gate_passed": true, "total": 0}`, -1, `"components" is missing`},
		{"components null", `{"gate_passed": true, "components": null, "total": 0}`, -1, `"components" must be a list`},
		{"component not an object", `{"gate_passed": true, "components": [3], "total": 0}`, -1, "components[0] must be an object"},
		{"component without id", `{"gate_passed": true, "components": [{"awarded": 1, "maximum": 4}], "total": 1}`, -1, `components[0] has no "id"`},
		{"award as string", strings.Replace(goodVerdict, `"awarded": 3`, `"awarded": "3"`, 1), -1, `component P2: "awarded" must be a number`},
		{"maximum missing", strings.Replace(goodVerdict, `, "maximum": 6`, ``, 1), -1, `component P2: "maximum" is missing`},
		{"adjudication flag as string", strings.Replace(goodVerdict, `"adjudication_required": false`, `"adjudication_required": "no"`, 1), -1, `"adjudication_required" must be true or false`},
		{"too long", strings.Repeat(" ", maxVerdictBytes+1), -1, "bytes long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseVerdict(tt.content)
			if tt.total < 0 {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want one saying %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if v.Total != tt.total {
				t.Errorf("total = %v, want %v (the wrong object was taken)", v.Total, tt.total)
			}
			if tt.total == 7 && !reflect.DeepEqual(v, want) {
				t.Errorf("verdict = %+v, want %+v", v, want)
			}
		})
	}
}

// Hostile shapes cost linear time: the search gives up rather than go
// quadratic.
func TestParseVerdictPathological(t *testing.T) {
	for name, s := range map[string]string{
		"unclosed":  strings.Repeat("{", 500_000) + goodVerdict,
		"nested":    strings.Repeat("{", 250_000) + strings.Repeat("}", 250_000),
		"in string": "{\"" + strings.Repeat("{", 500_000),
	} {
		start := time.Now()
		ParseVerdict(s)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: ParseVerdict took %v", name, d)
		}
	}
}

func TestCheck(t *testing.T) {
	q := &testRubric().Questions[0] // G1 (gate) 4 points, P2 6 points
	c := func(id string, awarded, maximum float64) ComponentAward {
		return ComponentAward{ID: id, Awarded: awarded, Maximum: maximum}
	}
	tests := []struct {
		name string
		v    Verdict
		want []string
	}{
		{"valid pass", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4), c("P2", 3, 6)}, Total: 7}, nil},
		{"valid fail", Verdict{Components: []ComponentAward{c("G1", 0, 4), c("P2", 0, 6)}, Total: 0}, nil},
		{"valid in another order", Verdict{GatePassed: true, Components: []ComponentAward{c("P2", 6, 6), c("G1", 2, 4)}, Total: 8}, nil},
		{"missing component", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4)}, Total: 4},
			[]string{"component P2 is missing; list every component, with 0 where nothing is earned"}},
		{"unknown component", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4), c("P2", 0, 6), c("X9", 1, 1)}, Total: 5},
			[]string{`component "X9" is not in the rubric (its components are G1, P2)`}},
		{"duplicate component", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4), c("P2", 1, 6), c("P2", 2, 6)}, Total: 7},
			[]string{"component P2 is listed more than once"}},
		{"wrong maximum", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4), c("P2", 3, 5)}, Total: 7},
			[]string{"component P2: maximum is 5 but the rubric gives it 6 points"}},
		{"fractional award", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4), c("P2", 2.5, 6)}, Total: 6.5},
			[]string{"component P2: awarded 2.5 is not a whole number; award integer points only", "total 6.5 is not a whole number"}},
		{"award above maximum", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4), c("P2", 7, 6)}, Total: 11},
			[]string{"component P2: awarded 7 is outside 0..6"}},
		{"negative award", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4), c("P2", -1, 6)}, Total: 3},
			[]string{"component P2: awarded -1 is outside 0..6"}},
		{"total differs", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 4, 4), c("P2", 3, 6)}, Total: 8},
			[]string{"total is 8 but the awards add up to 7"}},
		{"failed gate with points", Verdict{Components: []ComponentAward{c("G1", 0, 4), c("P2", 2, 6)}, Total: 2},
			[]string{"the gate failed, so component P2 must be awarded 0, not 2", "the gate failed, so the total must be 0, not 2"}},
		{"failed gate, gate component awarded", Verdict{Components: []ComponentAward{c("G1", 4, 4), c("P2", 0, 6)}, Total: 4},
			[]string{"the gate failed, so component G1 must be awarded 0, not 4", "the gate failed, so the total must be 0, not 4"}},
		{"passed gate, gate component 0", Verdict{GatePassed: true, Components: []ComponentAward{c("G1", 0, 4), c("P2", 3, 6)}, Total: 3},
			[]string{"the gate passed, so the gate component G1 must be awarded at least 1 point, not 0; if the answer does not meet the gate, set gate_passed to false"}},
		{"no components", Verdict{GatePassed: true, Total: 0}, []string{
			"component G1 is missing; list every component, with 0 where nothing is earned",
			"component P2 is missing; list every component, with 0 where nothing is earned"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.v.Check(q)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Check =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
