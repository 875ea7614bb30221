package benchmark

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchgate/benchgate/finding"
)

func TestRecordPath(t *testing.T) {
	for file, want := range map[string]string{
		"rubrics/basin-analysis.json":   "rubrics/basin-analysis.calibration.json",
		"rubrics/v2.1/seals.json":       "rubrics/v2.1/seals.calibration.json",
		"key.json":                      "key.calibration.json",
		"rubrics/no-extension":          "rubrics/no-extension.calibration.json",
		"rubrics/r.calibration.json":    "rubrics/r.calibration.calibration.json",
		"rubrics/reservoir-mcq.jsonl":   "rubrics/reservoir-mcq.calibration.json",
		"rubrics/questions.answer.json": "rubrics/questions.answer.calibration.json",
	} {
		if got := RecordPath(Entry{File: file}); got != want {
			t.Errorf("RecordPath(%s) = %s, want %s", file, got, want)
		}
	}
}

func TestJumpPoints(t *testing.T) {
	for _, tt := range []struct{ total, moderate, big int }{
		{10, 4, 8}, {100, 40, 80}, {20, 8, 16}, {5, 2, 4}, {3, 1, 2}, {2, 1, 2}, {1, 1, 1},
	} {
		if m, b := JumpPoints(tt.total); m != tt.moderate || b != tt.big {
			t.Errorf("JumpPoints(%d) = %d, %d; want %d, %d", tt.total, m, b, tt.moderate, tt.big)
		}
	}
	got := CountDisagreements(10, []int{0, 1, -3, 4, -4, 7, -8, 10})
	if want := (Disagreements{ModeratePoints: 4, BigPoints: 8, Moderate: 5, Big: 2}); got != want {
		t.Errorf("CountDisagreements = %+v, want %+v", got, want)
	}
}

// recordBoard is a leaderboard whose rubric (validRubric) has a calibration
// record, and its entry.
func recordBoard(t testing.TB, record string) (fstest.MapFS, Entry) {
	t.Helper()
	rubric, err := json.Marshal(validRubric())
	if err != nil {
		t.Fatal(err)
	}
	board := fstest.MapFS{"rubrics/r.json": {Data: rubric}}
	if record != "" {
		board["rubrics/r.calibration.json"] = &fstest.MapFile{Data: []byte(record)}
	}
	temp := 0.0
	return board, Entry{Key: "k", File: "rubrics/r.json", Kind: KindRubric, JudgeModel: "j", Judge: JudgeParams{Temperature: &temp, ReasoningEffort: "medium"}}
}

func rubricSHA(t *testing.T) string {
	t.Helper()
	rubric, _ := json.Marshal(validRubric())
	sum := sha256.Sum256(rubric)
	return hex.EncodeToString(sum[:])
}

// goodRecord is the record that Encode writes as goodRecordText: two runs
// of validRubric's four fixtures, one grade a moderate jump (Q2-F2 run 1,
// 5 points under the 7 expected), one a big one (Q2-F1 run 2, a failed
// gate passed with 8), one grading unscored.
func goodRecord(sha string) *CalibrationRecord {
	temp := 0.0
	return &CalibrationRecord{
		Benchmark: "k", RubricSHA256: sha, JudgeModel: "j", Judge: JudgeParams{Temperature: &temp, ReasoningEffort: "medium"},
		Recorded: "2026-12-02", Runs: 2,
		Grades: []RecordedGrade{
			{QuestionID: "Q1", FixtureID: "Q1-F1", Run: 1, GatePassed: false, Total: 0},
			{QuestionID: "Q1", FixtureID: "Q1-F2", Run: 1, GatePassed: true, Total: 7},
			{QuestionID: "Q2", FixtureID: "Q2-F1", Run: 1, GatePassed: false, Total: 0},
			{QuestionID: "Q2", FixtureID: "Q2-F2", Run: 1, GatePassed: true, Total: 2},
			{QuestionID: "Q1", FixtureID: "Q1-F1", Run: 2, GatePassed: false, Total: 0},
			{QuestionID: "Q1", FixtureID: "Q1-F2", Run: 2, GatePassed: true, Total: 8},
			{QuestionID: "Q2", FixtureID: "Q2-F1", Run: 2, GatePassed: true, Total: 8},
		},
		Unscored: []UnscoredGrade{{QuestionID: "Q2", FixtureID: "Q2-F2", Run: 2, Reason: "the judge gave no valid verdict"}},
	}
}

const goodRecordText = `{
  "format": "benchgate calibration record 1",
  "benchmark": "k",
  "rubric_sha256": "SHA",
  "judge_model": "j",
  "judge": {
    "temperature": 0,
    "reasoning_effort": "medium"
  },
  "recorded": "2026-12-02",
  "runs": 2,
  "grades": [
    {"question_id":"Q1","fixture_id":"Q1-F1","run":1,"gate_passed":false,"total":0},
    {"question_id":"Q1","fixture_id":"Q1-F2","run":1,"gate_passed":true,"total":7},
    {"question_id":"Q2","fixture_id":"Q2-F1","run":1,"gate_passed":false,"total":0},
    {"question_id":"Q2","fixture_id":"Q2-F2","run":1,"gate_passed":true,"total":2},
    {"question_id":"Q1","fixture_id":"Q1-F1","run":2,"gate_passed":false,"total":0},
    {"question_id":"Q1","fixture_id":"Q1-F2","run":2,"gate_passed":true,"total":8},
    {"question_id":"Q2","fixture_id":"Q2-F1","run":2,"gate_passed":true,"total":8}
  ],
  "unscored": [
    {"question_id":"Q2","fixture_id":"Q2-F2","run":2,"reason":"the judge gave no valid verdict"}
  ]
}
`

// TestRecordEncode: a record is written one grade a line, and reads back
// as it was, with the line of each grade.
func TestRecordEncode(t *testing.T) {
	sha := rubricSHA(t)
	data, err := goodRecord(sha).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(goodRecordText, "SHA", sha, 1); string(data) != want {
		t.Fatalf("Encode:\n%s\nwant:\n%s", data, want)
	}
	board, e := recordBoard(t, string(data))
	b, fs := Load(board, e)
	if b == nil || len(fs) != 0 || b.Record == nil {
		t.Fatalf("Load: %v, findings %v", b, fs)
	}
	want := goodRecord(sha)
	want.File = "rubrics/r.calibration.json"
	for i := range want.Grades {
		want.Grades[i].Line = 13 + i
	}
	want.Unscored[0].Line = 22
	if !reflect.DeepEqual(b.Record, want) {
		t.Errorf("read back:\n%+v\nwant:\n%+v", b.Record, want)
	}
	if got := b.Record.Disagreements(b.Rubric); got != (Disagreements{ModeratePoints: 4, BigPoints: 8, Moderate: 2, Big: 1}) {
		t.Errorf("disagreements = %+v", got)
	}
	// Empty lists, and a judge without a contract.
	bare := &CalibrationRecord{Benchmark: "k", RubricSHA256: sha, JudgeModel: "j", Recorded: "2026-12-02", Runs: 1}
	data, _ = bare.Encode()
	if !strings.Contains(string(data), `"judge": {},`) || !strings.HasSuffix(string(data), "\"grades\": [],\n  \"unscored\": []\n}\n") {
		t.Errorf("an empty record:\n%s", data)
	}
	e.Judge = JudgeParams{}
	if rec, fs := ParseRecord("r.calibration.json", data, &Benchmark{Entry: e, SHA256: sha, Rubric: b.Rubric}); rec == nil || len(fs) != 0 {
		t.Errorf("an empty record does not read back: %v", fs)
	}
}

// TestParseRecord: each way a record can be wrong is a finding on its
// line, naming the fixture and how to make the record again.
func TestParseRecord(t *testing.T) {
	sha := rubricSHA(t)
	good := strings.Replace(goodRecordText, "SHA", sha, 1)
	const again = "; record it again with `benchgate calibrate --benchmark k --record`"
	// line replaces line n (1-based) of the good record.
	line := func(n int, text string) func(string) string {
		return func(s string) string {
			lines := strings.Split(s, "\n")
			lines[n-1] = text
			return strings.Join(lines, "\n")
		}
	}
	grade := func(q, f string, run int, gate bool, total int) string {
		g, _ := json.Marshal(gradeJSON{q, f, run, gate, total})
		return "    " + string(g) + ","
	}
	tests := []struct {
		name     string
		edit     func(string) string
		severity finding.Severity
		code     string
		line     int
		question string
		message  string
	}{
		{"not JSON", line(13, `    {"question_id":"Q1",,`), finding.Error, "json.syntax", 13, "", "column 25: expected a quoted member name, found ','"},
		{"another format", line(2, `  "format": "benchgate calibration record 2",`), finding.Error, "record.format", 2, "",
			`format is "benchgate calibration record 2", but this benchgate reads only "benchgate calibration record 1"`},
		{"an unknown member", line(11, `  "runs": 2, "seed": 7,`), finding.Error, "schema", 11, "", `unknown field "seed"; check its spelling against schemas/calibration-record.schema.json`},
		{"a date of another shape", line(10, `  "recorded": "2 Dec 2026",`), finding.Error, "schema", 10, "", `/recorded: "2 Dec 2026" does not match the pattern`},
		{"a day not in the calendar", line(10, `  "recorded": "2026-02-30",`), finding.Error, "record.date", 10, "", `recorded "2026-02-30" is not a day of the calendar`},
		{"no runs", line(11, `  "runs": 0,`), finding.Error, "schema", 11, "", `/runs: must be at least 1, found 0`},
		{"a total that is no integer", line(13, `    {"question_id":"Q1","fixture_id":"Q1-F1","run":1,"gate_passed":false,"total":0.5},`), finding.Error, "schema", 13, "", `/grades/0/total: expected an integer, found the number 0.5`},
		{"an unknown question", line(14, grade("Q9", "Q1-F2", 1, true, 7)), finding.Error, "record.fixture", 14, "Q9", `fixture Q1-F2, run 1: "Q9" is not a question of the rubric`},
		{"an unknown fixture", line(14, grade("Q1", "Q1-F9", 1, true, 7)), finding.Error, "record.fixture", 14, "Q1", `fixture Q1-F9, run 1: "Q1-F9" is not a calibration fixture of question Q1`},
		{"another question's fixture", line(14, grade("Q1", "Q2-F2", 1, true, 7)), finding.Error, "record.fixture", 14, "Q1", `fixture Q2-F2, run 1: "Q2-F2" is not a calibration fixture of question Q1`},
		{"a total above the points", line(14, grade("Q1", "Q1-F2", 1, true, 11)), finding.Error, "record.total", 14, "Q1", "fixture Q1-F2, run 1: total 11 is outside 0..10, the rubric's points"},
		{"a negative total", line(14, grade("Q1", "Q1-F2", 1, true, -1)), finding.Error, "record.total", 14, "Q1", "fixture Q1-F2, run 1: total -1 is outside 0..10"},
		{"points for a failed gate", line(13, grade("Q1", "Q1-F1", 1, false, 3)), finding.Error, "record.gate", 13, "Q1", "fixture Q1-F1, run 1: the gate failed, so the total must be 0, not 3"},
		{"a run above runs", line(14, grade("Q1", "Q1-F2", 3, true, 7)), finding.Error, "record.run", 14, "Q1", "fixture Q1-F2, run 3: the run is outside 1..2 (runs)"},
		{"run 0", line(14, grade("Q1", "Q1-F2", 0, true, 7)), finding.Error, "record.run", 14, "Q1", "fixture Q1-F2, run 0: the run is outside 1..2"},
		{"a fixture graded twice in a run", line(17, grade("Q1", "Q1-F1", 1, false, 0)), finding.Error, "record.duplicate", 17, "Q1",
			"fixture Q1-F1, run 1: the fixture has another entry for this run, on line 13; a fixture has at most one grade or unscored entry a run"},
		{"graded and unscored in one run", line(22, `    {"question_id":"Q2","fixture_id":"Q2-F1","run":2,"reason":"x"}`), finding.Error, "record.duplicate", 22, "Q2",
			"fixture Q2-F1, run 2: the fixture has another entry for this run, on line 19"},
		{"an unscored grading of an unknown fixture", line(22, `    {"question_id":"Q2","fixture_id":"Q2-F7","run":2,"reason":"x"}`), finding.Error, "record.fixture", 22, "Q2", `fixture Q2-F7, run 2: "Q2-F7" is not a calibration fixture of question Q2`},
		{"an empty reason", line(22, `    {"question_id":"Q2","fixture_id":"Q2-F2","run":2,"reason":""}`), finding.Error, "schema", 22, "", "/unscored/0/reason: must not be empty"},

		// Stale: true of another rubric or judge, so not checked further.
		{"another benchmark's", line(3, `  "benchmark": "other",`), finding.Warning, "record.stale", 3, "",
			`the calibration record is stale: it names benchmark "other", not "k"; the spot-check will not use it`},
		{"another rubric's", line(4, `  "rubric_sha256": "`+strings.Repeat("0", 64)+`",`), finding.Warning, "record.stale", 4, "",
			"the calibration record is stale: the rubric has changed since it was made (rubric_sha256 000000000000…, the file's is now " + sha[:12] + "…)"},
		{"another judge's", line(5, `  "judge_model": "openai/gpt-4o",`), finding.Warning, "record.stale", 5, "",
			`the calibration record is stale: it was graded by "openai/gpt-4o", but the registry's judge is "j"`},
		{"another judge contract's", line(8, `    "reasoning_effort": "high"`), finding.Warning, "record.stale", 6, "",
			`the calibration record is stale: it was graded under the judge contract {"temperature":0,"reasoning_effort":"high"}, but the registry's is {"temperature":0,"reasoning_effort":"medium"}`},
		{"another judge prompt's", line(5, `  "judge_model": "j", "judge_prompt_sha256": "`+strings.Repeat("a", 64)+`",`), finding.Warning, "record.stale", 5, "",
			"the calibration record is stale: the judge's prompt has changed since it was made (judge_prompt_sha256 aaaaaaaaaaaa…, the prompt's is now none: benchgate's own prompt)"},
		{"stale and wrong inside", func(s string) string {
			return line(14, grade("Q1", "Q1-F2", 1, true, 99))(line(5, `  "judge_model": "m",`)(s))
		}, finding.Warning, "record.stale", 5, "", `it was graded by "m"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			board, e := recordBoard(t, tt.edit(good))
			b, _ := Load(board, e)
			if b == nil {
				t.Fatal("the rubric does not load")
			}
			data, _ := board.ReadFile("rubrics/r.calibration.json")
			rec, fs := ParseRecord("rubrics/r.calibration.json", data, b)
			if rec != nil || len(fs) != 1 {
				t.Fatalf("record %v, findings %v; want none and one finding", rec, fs)
			}
			f := fs[0]
			if f.Severity != tt.severity || f.Code != tt.code || f.File != "rubrics/r.calibration.json" || f.Line != tt.line || f.Question != tt.question ||
				!strings.Contains(f.Message, tt.message) || !strings.HasSuffix(f.Message, again) {
				t.Errorf("finding %s %+v;\nwant %s %s on line %d, question %q, containing %q and ending %q", f.Severity, f, tt.severity, tt.code, tt.line, tt.question, tt.message, again)
			}
		})
	}
}

// TestParseRecordCapsFindings: a record wrong on every line has its first
// errors listed, then counted.
func TestParseRecordCapsFindings(t *testing.T) {
	sha := rubricSHA(t)
	good := strings.Replace(goodRecordText, "SHA", sha, 1)
	rows := strings.Repeat(`    {"question_id":"Q1","fixture_id":"Q1-F1","run":9,"gate_passed":false,"total":0},`+"\n", 80)
	data := strings.Replace(good, "  \"grades\": [\n", "  \"grades\": [\n"+rows, 1)
	board, e := recordBoard(t, "")
	b, _ := Load(board, e)
	rec, fs := ParseRecord("r.calibration.json", []byte(data), b)
	// Each extra row is outside the runs and, after the first, a second
	// entry of its fixture and run: 159 errors.
	if rec != nil || len(fs) != 51 || fs[50].Code != "record.more" || fs[50].Message != "109 more errors not shown; fix the ones above first, or record it again with `benchgate calibrate --benchmark k --record`" {
		t.Errorf("%d findings, the last %v", len(fs), fs[len(fs)-1])
	}
}

// TestLoadRecord: Load, which verification uses, never fails a benchmark
// for its record; Lint, which lint-benchmark uses, reports each error.
func TestLoadRecord(t *testing.T) {
	sha := rubricSHA(t)
	good := strings.Replace(goodRecordText, "SHA", sha, 1)
	broken := strings.Replace(strings.Replace(good, `"total":7}`, `"total":70}`, 1), `"run":2,"gate_passed":false`, `"run":9,"gate_passed":false`, 1)
	stale := strings.Replace(good, `"judge_model": "j"`, `"judge_model": "old"`, 1)
	tests := []struct {
		name   string
		record string   // "" for none
		dir    bool     // the record's path is a folder
		read   bool     // a record is read
		load   []string // severity and code of each finding of Load
		lint   []string // of Lint
	}{
		{name: "none"},
		{name: "good", record: good, read: true},
		{name: "malformed", record: broken, load: []string{"warning record.invalid"}, lint: []string{"error record.total", "error record.run"}},
		{name: "stale", record: stale, load: []string{"warning record.stale"}, lint: []string{"warning record.stale"}},
		{name: "a folder", dir: true, load: []string{"warning record.invalid"}, lint: []string{"error record.read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			board, e := recordBoard(t, tt.record)
			if tt.dir {
				board["rubrics/r.calibration.json/x"] = &fstest.MapFile{Data: []byte("{}")}
			}
			for _, mode := range []struct {
				name string
				fn   func(fstest.MapFS, Entry) (*Benchmark, finding.List)
				want []string
			}{{"Load", func(f fstest.MapFS, e Entry) (*Benchmark, finding.List) { return Load(f, e) }, tt.load}, {"Lint", func(f fstest.MapFS, e Entry) (*Benchmark, finding.List) { return Lint(f, e) }, tt.lint}} {
				b, fs := mode.fn(board, e)
				if b == nil || b.Rubric == nil {
					t.Fatalf("%s: no benchmark: %v", mode.name, fs)
				}
				if (b.Record != nil) != tt.read {
					t.Errorf("%s: record %v, want one: %v", mode.name, b.Record, tt.read)
				}
				var got []string
				for _, f := range fs {
					got = append(got, f.Severity.String()+" "+f.Code)
					if f.File != "rubrics/r.calibration.json" {
						t.Errorf("%s: %v names another file", mode.name, f)
					}
				}
				if strings.Join(got, ", ") != strings.Join(mode.want, ", ") {
					t.Errorf("%s: findings %v, want %v", mode.name, fs, mode.want)
				}
			}
		})
	}
	// Load's one warning quotes the first error and counts the others.
	board, e := recordBoard(t, broken)
	_, fs := Load(board, e)
	if len(fs) != 1 || fs[0].Line != 14 || fs[0].Question != "Q1" ||
		fs[0].Message != "the calibration record cannot be used, so the spot-check will do without it: fixture Q1-F2, run 1: total 70 is outside 0..10, the rubric's points; record it again with `benchgate calibrate --benchmark k --record` (and 1 more; see `benchgate lint-benchmark k`)" {
		t.Errorf("Load's warning: %+v", fs)
	}
	// A rubric that fails its lint has no record to check against it,
	// and a multiple-choice benchmark, which has no judge, none at all.
	board, e = recordBoard(t, good)
	board["rubrics/r.json"].Data = []byte(`{"schema_version": "2.0", "scoring_model": {"total_points": 10}, "questions": []}`)
	if b, fs := Lint(board, e); b.Record != nil || len(fs) != 1 || fs[0].Code != "rubric.no-questions" {
		t.Errorf("a failing rubric: record %v, findings %v", b.Record, fs)
	}
	board = fstest.MapFS{
		"rubrics/m.jsonl":            {Data: []byte(`{"id": "x", "question": "q", "choices": ["a", "b", "c", "d"], "answer_index": 1, "answer_key": "B"}` + "\n")},
		"rubrics/m.calibration.json": {Data: []byte("not even JSON")},
	}
	if b, fs := Lint(board, Entry{Key: "m", File: "rubrics/m.jsonl", Kind: KindMCQ}); b == nil || b.Record != nil || len(fs) != 0 {
		t.Errorf("an mcq benchmark: %v, findings %v", b, fs)
	}
}

// TestLintShowsRecord: lint-benchmark says what the record holds, that
// there is none, or why it cannot be used.
func TestLintShowsRecord(t *testing.T) {
	sha := rubricSHA(t)
	good := strings.Replace(goodRecordText, "SHA", sha, 1)
	tests := []struct {
		name, record string
		rubric       func(r map[string]any) // changes validRubric, when set
		want         []string
		not          string
	}{
		{"good", good, nil, []string{"OK k (rubrics/r.json)", "  calibration record rubrics/r.calibration.json: judge j, recorded 2026-12-02, 2 runs: 7 gradings, 1 unscored; large disagreements with the expected totals: 2 of 4+ points, 1 of 8+\n"}, "no calibration record"},
		{"none", "", nil, []string{"  no calibration record (rubrics/r.calibration.json); make one with `benchgate calibrate --benchmark k --record`\n"}, "warning"},
		{"stale", strings.Replace(good, `"benchmark": "k"`, `"benchmark": "x"`, 1), nil, []string{"OK k", "  warning: rubrics/r.calibration.json:3: the calibration record is stale"}, "no calibration record"},
		{"malformed", strings.Replace(good, `"total":7}`, `"total":70}`, 1), nil, []string{"FAIL k", "  error: rubrics/r.calibration.json:14: question Q1: fixture Q1-F2, run 1: total 70 is outside 0..10"}, "no calibration record"},
		{"beside a failing rubric", good, func(r map[string]any) { component(r, 0, 1)["points"] = 5 }, []string{"FAIL k", "rubric.points-sum"}, "calibration record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			board, e := recordBoard(t, tt.record)
			if tt.rubric != nil {
				r := validRubric()
				tt.rubric(r)
				board["rubrics/r.json"].Data, _ = json.Marshal(r)
			}
			b, fs := Lint(board, e)
			rep := NewLintReport(e, b, fs)
			text := render(t, "text", rep)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			if strings.Contains(text, tt.not) {
				t.Errorf("text holds %q:\n%s", tt.not, text)
			}
		})
	}
	board, e := recordBoard(t, good)
	b, fs := Lint(board, e)
	var got struct {
		Rubric struct {
			File   string      `json:"calibration_record_file"`
			Record RecordFacts `json:"calibration_record"`
		} `json:"rubric"`
	}
	if err := json.Unmarshal([]byte(render(t, "json", NewLintReport(e, b, fs))), &got); err != nil {
		t.Fatal(err)
	}
	want := RecordFacts{JudgeModel: "j", Recorded: "2026-12-02", Runs: 2, Gradings: 7, Unscored: 1, Disagreements: Disagreements{ModeratePoints: 4, BigPoints: 8, Moderate: 2, Big: 1}}
	if got.Rubric.File != "rubrics/r.calibration.json" || got.Rubric.Record != want {
		t.Errorf("json: %+v", got)
	}
}

// FuzzParseRecord: whatever the file holds, ParseRecord returns a record
// only without errors, and a record it returns is one it reads back the
// same after writing it.
func FuzzParseRecord(f *testing.F) {
	rubric, _ := json.Marshal(validRubric())
	sum := sha256.Sum256(rubric)
	sha := hex.EncodeToString(sum[:])
	good := strings.Replace(goodRecordText, "SHA", sha, 1)
	f.Add([]byte(good))
	f.Add([]byte(strings.Replace(good, `"total":7}`, `"total":7.0}`, 1)))
	f.Add([]byte(strings.Replace(good, `"runs": 2`, `"runs": 1`, 1)))
	f.Add([]byte(`{"format": "benchgate calibration record 1"}`))
	f.Add([]byte(`[]`))
	board, e := recordBoard(f, "")
	b, fs := Load(board, e)
	if b == nil {
		f.Fatal(fs)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, fs := ParseRecord("r.calibration.json", data, b)
		if rec == nil {
			if len(fs) == 0 {
				t.Fatal("no record and no finding")
			}
			return
		}
		if fs.HasErrors() {
			t.Fatalf("a record with errors: %v", fs)
		}
		for _, g := range rec.Grades {
			if g.Run < 1 || g.Run > rec.Runs || g.Total < 0 || g.Total > b.Rubric.TotalPoints || (!g.GatePassed && g.Total != 0) {
				t.Fatalf("an invalid grade was accepted: %+v", g)
			}
		}
		again, err := rec.Encode()
		if err != nil {
			t.Fatal(err)
		}
		rec2, fs := ParseRecord("r.calibration.json", again, b)
		if rec2 == nil {
			t.Fatalf("a record does not read back: %v\n%s", fs, again)
		}
		clearLines(rec)
		clearLines(rec2)
		if !reflect.DeepEqual(rec, rec2) {
			t.Fatalf("read back otherwise:\n%+v\n%+v", rec, rec2)
		}
	})
}

func clearLines(r *CalibrationRecord) {
	for i := range r.Grades {
		r.Grades[i].Line = 0
	}
	for i := range r.Unscored {
		r.Unscored[i].Line = 0
	}
}

// TestRecordBindsThePrompt: a record made under a judge contract with a
// prompt file and a verdict rule reads back under that contract, and is
// stale under the same contract with another version of the prompt.
func TestRecordBindsThePrompt(t *testing.T) {
	sha := rubricSHA(t)
	board, e := recordBoard(t, "")
	b, fs := Load(board, e)
	if b == nil {
		t.Fatal(fs)
	}
	two := 2
	b.Entry.Judge = JudgeParams{PromptFile: "rubrics/j.txt", NoResponseFormat: true, Verdict: VerdictRule{Format: VerdictLastFencedJSON, Integers: true, Retry: RetryResend, Retries: &two}}
	b.Entry.JudgePrompt = &Prompt{File: "rubrics/j.txt", SHA256: strings.Repeat("c", 64)}
	rec := goodRecord(sha)
	rec.Judge, rec.JudgePromptSHA256 = b.Entry.Judge, b.Entry.JudgePrompt.SHA256
	data, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"judge": {
    "prompt_file": "rubrics/j.txt",
    "response_format": false,
    "verdict": {
      "format": "last-fenced-json",
      "integers": true,
      "retry": "resend",
      "retries": 2
    }
  },
  "judge_prompt_sha256": "cccc`) {
		t.Errorf("the record's head:\n%s", data)
	}
	if got, fs := ParseRecord("r.calibration.json", data, b); got == nil || len(fs) != 0 {
		t.Errorf("the record does not read back under its own contract: %v", fs)
	}
	b.Entry.JudgePrompt = &Prompt{File: "rubrics/j.txt", SHA256: strings.Repeat("d", 64)}
	if got, fs := ParseRecord("r.calibration.json", data, b); got != nil || len(fs) != 1 || !strings.Contains(fs[0].Message, "the judge's prompt has changed since it was made (judge_prompt_sha256 cccccccccccc…, the prompt's is now dddddddddddd…)") {
		t.Errorf("under another prompt: %v", fs)
	}
}
