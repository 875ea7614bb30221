package verify

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"
)

// countCodes counts a result's errors by code.
func countCodes(r Result) map[string]int {
	n := map[string]int{}
	for _, f := range r.Errors {
		n[f.Code]++
	}
	return n
}

// Latencies near the float64 maximum overflow their sum; the mean must stay
// finite, or the JSON report (which cannot hold +Inf) fails for every
// submission verified with it.
func TestLatencyOverflow(t *testing.T) {
	rows := mcqScores()
	for _, r := range rows {
		r["latency_ms"] = 1.7e308
	}
	r := verifyOne(t, board(t, mcqMeta(), rows, mcqDir), mcqDir)
	if r.Status != Pass || r.Summary.MeanLatencyMS == nil || math.IsInf(*r.Summary.MeanLatencyMS, 0) || math.Abs(*r.Summary.MeanLatencyMS-1.7e308) > 1e295 {
		t.Fatalf("status %s, mean latency %v", r.Status, r.Summary.MeanLatencyMS)
	}
	var b bytes.Buffer
	if err := Render(&b, "json", NewReport([]Result{r})); err != nil {
		t.Errorf("json report: %v", err)
	}
}

// A total or an award whose decimal text is not an integer is refused even
// when float64 rounds it to one.
func TestNearIntegerScores(t *testing.T) {
	rows := rubricScores()
	rows[0]["score_b_components"] = []any{comp("C1", 4, 4), comp("C2", 3, 6)}
	v := indent(t, rows)
	v = bytes.Replace(v, []byte(`"score_b": 7`), []byte(`"score_b": 6.99999999999999999`), 1)
	fsys := board(t, rubricMeta(), nil, rubricDir)
	fsys[rubricDir+"/scores.json"] = &fstest.MapFile{Data: v}
	if r := verifyOne(t, fsys, rubricDir); r.Status != Fail || countCodes(r)["arith.score"] != 1 {
		t.Errorf("status %s, errors %v", r.Status, r.Errors)
	}
}

// One code yields at most maxPerCode findings and a closing count, so that
// a file wrong on every row costs a bounded report.
func TestFindingsCappedPerCode(t *testing.T) {
	rows := mcqScores()
	for range 250 {
		rows = append(rows, rows[0])
	}
	r := verifyOne(t, board(t, mcqMeta(), rows, mcqDir), mcqDir)
	if n := countCodes(r)["ids.duplicate"]; n != maxPerCode+1 || len(r.Errors) != maxPerCode+1 {
		t.Fatalf("%d ids.duplicate findings of %d; want %d", n, len(r.Errors), maxPerCode+1)
	}
	last := r.Errors[len(r.Errors)-1]
	if !strings.Contains(last.Message, "150 more findings like these") || last.File != mcqDir+"/scores.json" {
		t.Errorf("closing finding: %+v", last)
	}
}

// Contributor text repeated in findings is cut short.
func TestLongTextNotEchoed(t *testing.T) {
	long := strings.Repeat("é", 1<<20)
	rows := mcqScores()
	rows[0]["id"] = long
	meta := rubricMeta()
	meta["rubric_key"] = long
	for _, tt := range []struct {
		name string
		fsys fstest.MapFS
		dir  string
	}{
		{"id", board(t, mcqMeta(), rows, mcqDir), mcqDir},
		{"rubric_key", board(t, meta, rubricScores(), rubricDir), rubricDir},
	} {
		r := verifyOne(t, tt.fsys, tt.dir)
		if r.Status != Fail {
			t.Errorf("%s: status %s", tt.name, r.Status)
		}
		for _, f := range r.Errors {
			if len(f.Message) > 1000 || len(f.Question) > maxEcho+len("…") {
				t.Errorf("%s: %s finding of %d bytes, question of %d", tt.name, f.Code, len(f.Message), len(f.Question))
			}
		}
	}
}

// A scores.json holds at most Options.MaxValues values, and no more than
// its benchmark can use: both are checked before the schema, whose cost
// grows with every value.
func TestValueLimits(t *testing.T) {
	rows := mcqScores()
	for range 1000 {
		rows = append(rows, rows[0])
	}
	fsys := board(t, mcqMeta(), rows, mcqDir)
	v, err := New(fsys, Options{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	r := v.Verify(mcqDir)
	if fmt.Sprint(countCodes(r)) != "map[scores.size:1]" || !strings.Contains(r.Errors[0].Message, "for the 4 questions of benchmark \"mc\" needs at most 4160") {
		t.Errorf("over the benchmark's budget: %v", r.Errors)
	}
	v, err = New(fsys, Options{Today: testToday, MaxValues: 500})
	if err != nil {
		t.Fatal(err)
	}
	r = v.Verify(mcqDir)
	if fmt.Sprint(countCodes(r)) != "map[json.syntax:1]" || !strings.Contains(r.Errors[0].Message, "more than 500 values") {
		t.Errorf("over MaxValues: %v", r.Errors)
	}
}

// Control characters in contributor text reach a terminal escaped: here a
// question id that would erase its line and print a PASS over the FAIL.
func TestTextReportEscapesControlCharacters(t *testing.T) {
	rows := mcqScores()
	rows[0]["id"] = "m1\r\x1b[2KPASS   submissions/model-benchmark/y-mc\u202e"
	r := verifyOne(t, board(t, mcqMeta(), rows, mcqDir), mcqDir)
	var b bytes.Buffer
	if err := Render(&b, "text", NewReport([]Result{r})); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\r\x1b\u202e") || !strings.Contains(out, `question m1\u000D\u001B[2KPASS`) {
		t.Errorf("text report:\n%q", out)
	}
}

// Points for an empty answer cannot come from the judge: empty is what the
// judge grades, the clean form of answer_b, so a reply that is all
// reasoning is empty too.
func TestPointsForAnEmptyAnswer(t *testing.T) {
	for _, tt := range []struct {
		name          string
		answer, clean any
	}{
		{"null answer", nil, nil},
		{"white space", " \n\t", ""},
		{"reasoning only", "<think>The grader wants a full score.</think>", ""},
		{"no clean answer given", "<think>x</think>\n\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows := rubricScores()
			rows[0]["answer_b"], rows[0]["answer_b_clean"] = tt.answer, tt.clean
			r := verifyOne(t, board(t, rubricMeta(), rows, rubricDir), rubricDir)
			if got := describe(r); strings.Join(got, ",") != "arith.empty-answer scores.json:2 Q1" {
				t.Errorf("errors: %v", got)
			}
			rows[0]["score_b"], rows[0]["score_b_gate_passed"], rows[0]["score_b_components"] = 0, false, []any{comp("C1", 0, 4), comp("C2", 0, 6)}
			if r := verifyOne(t, board(t, rubricMeta(), rows, rubricDir), rubricDir); r.Status != Pass {
				t.Errorf("an empty answer scored 0: %s %v", r.Status, r.Errors)
			}
		})
	}
}
