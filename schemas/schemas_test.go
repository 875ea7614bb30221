package schemas

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/jsondoc"
)

func TestSchemasAreValidJSON(t *testing.T) {
	for _, n := range All {
		src, err := Source(n)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(src, &v); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if v["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v, want draft 2020-12", n, v["$schema"])
		}
	}
}

func TestValidate(t *testing.T) {
	record := "{\n\"format\": \"benchgate calibration record 1\",\n\"benchmark\": \"k\",\n\"rubric_sha256\": \"" + strings.Repeat("a", 64) + "\",\n\"judge_model\": \"j\",\n\"judge\": {\"temperature\": 3},\n\"recorded\": \"2026-12-02\",\n\"runs\": 1,\n" +
		"\"grades\": [\n{\"question_id\": \"Q1\", \"fixture_id\": \"F1\", \"run\": 1, \"gate_passed\": \"yes\", \"total\": 7}\n],\n\"unscored\": [{\"question_id\": \"Q1\", \"fixture_id\": \"F2\", \"run\": 1}]\n}"
	tests := []struct {
		name   Name
		doc    string
		want   []string // substrings, one per finding, in order
		lines  []int
		quests []string
	}{
		{Meta, `{"model_name":"m","candidate_model_id":"x/m","submitter":"s","contact_or_repo":"c","rubric_key":"k","date":"2026-01-02"}`, nil, nil, nil},
		{Meta, "{\n\"model_name\": \"m\",\n\"candidate_model_id\": \"x\",\n\"submitter\": \"s\",\n\"contact_or_repo\": \"c\",\n\"rubric_key\": \"k\",\n\"date\": \"2 Jan 2026\",\n\"temprature\": 0\n}",
			[]string{`/date: "2 Jan 2026" does not match the pattern`, `the top level: unknown field "temprature"; check its spelling against schemas/meta.schema.json`}, []int{7, 8}, []string{"", ""}},
		{ScoresMCQ, "[\n{\"id\":\"q1\",\"response\":\"A\",\"answer\":\"A\",\"correct\":true},\n{\"id\":\"q2\",\"response\":\"E\",\"answer\":\"E\",\"correct\":false}\n]",
			[]string{`/1/answer: "E" is not one of the allowed values: "A", "B", "C", "D", null`}, []int{3}, []string{"q2"}},
		{ScoresMCQ, `[{"id":"q1","answer":"A","correct":true}]`, []string{`/0: missing required field "response"`}, []int{1}, []string{"q1"}},
		{Rubric, `{"schema_version":"2.0","scoring_model":{"total_points":10},"questions":[{"id":"Q1","question":"?","gate":{"component_id":"C1","pass_condition":"p"},"components":[{"id":"C1","points":10,"credit_if":"x"}],"accepted_variants":[7]}]}`,
			[]string{"/questions/0/accepted_variants/0: the number 7 has none of the accepted shapes: a string; or an object with canonical"}, []int{1}, []string{"Q1"}},
		{CalibrationRecord, record, []string{"/judge/temperature: must be at most 2, found 3", `/grades/0/gate_passed: expected a boolean, found "yes"`, `/unscored/0: missing required field "reason"`}, []int{6, 10, 12}, []string{"", "", ""}},
	}
	for i, tt := range tests {
		doc, err := jsondoc.Parse([]byte(tt.doc), jsondoc.Limits{})
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		got := Validate(tt.name, "f.json", doc)
		if len(got) != len(tt.want) {
			t.Errorf("%d %s: got %d findings %v, want %d", i, tt.name, len(got), got, len(tt.want))
			continue
		}
		for j, f := range got {
			if !strings.Contains(f.Message, tt.want[j]) || f.Line != tt.lines[j] || f.Question != tt.quests[j] || f.File != "f.json" || f.Code != "schema" {
				t.Errorf("%d %s: finding %d = %+v, want message containing %q on line %d, question %q", i, tt.name, j, f, tt.want[j], tt.lines[j], tt.quests[j])
			}
		}
	}
}

func TestValidateCapsFindings(t *testing.T) {
	rows := make([]string, 200)
	for i := range rows {
		rows[i] = `{"id":"q","response":1,"answer":"A","correct":true}`
	}
	doc, err := jsondoc.Parse([]byte("["+strings.Join(rows, ",\n")+"]"), jsondoc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got := Validate(ScoresMCQ, "scores.json", doc)
	if len(got) != MaxFindings+1 || !strings.Contains(got[MaxFindings].Message, "150 more schema errors") {
		t.Fatalf("got %d findings, last %v", len(got), got[len(got)-1])
	}
	if got[0].Line != 1 || got[49].Line != 50 {
		t.Errorf("findings not in row order: first on line %d, 50th on line %d", got[0].Line, got[49].Line)
	}
}
