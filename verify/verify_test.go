package verify

import (
	"encoding/json"
	"fmt"
	"github.com/benchgate/benchgate/internal/filecache"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// A tiny leaderboard: a two-question rubric benchmark and a four-question
// multiple-choice one, with one valid submission to each.
const (
	testRegistry = `[
  {"key": "rb", "file": "rubrics/rb.json", "judge_model": "openai/gpt-5.5"},
  {"key": "mc", "file": "rubrics/mc.jsonl", "kind": "mcq", "extraction": "answer-line", "reference_model_id": "org/ref"}
]`
	testRubric = `{"schema_version": "2.0", "scoring_model": {"total_points": 10, "gate_failure_score": 0},
 "questions": [
  {"id": "Q1", "question": "What controls seal capacity?",
   "gate": {"component_id": "C1", "points": 4, "pass_condition": "names capillary entry pressure"},
   "components": [{"id": "C1", "points": 4, "is_gate": true, "credit_if": "capillary entry pressure"},
                  {"id": "C2", "points": 6, "is_gate": false, "credit_if": "pore-throat size"}]},
  {"id": "Q2", "question": "What does vitrinite reflectance measure?",
   "gate": {"component_id": "G", "points": 5, "pass_condition": "thermal maturity"},
   "components": [{"id": "G", "points": 5, "is_gate": true, "credit_if": "maturity"},
                  {"id": "H", "points": 5, "is_gate": false, "credit_if": "oil window"}]}
 ]}`
	testMCQ = `{"id": "m1", "question": "Q1?", "choices": ["a", "b", "c", "d"], "answer_index": 0, "answer_key": "A"}
{"id": "m2", "question": "Q2?", "choices": ["a", "b", "c", "d"], "answer_index": 1, "answer_key": "B"}
{"id": "m3", "question": "Q3?", "choices": ["a", "b", "c", "d"], "answer_index": 2, "answer_key": "C"}
{"id": "m4", "question": "Q4?", "choices": ["a", "b", "c", "d"], "answer_index": 3, "answer_key": "D"}
`
)

func rubricMeta() map[string]any {
	return map[string]any{"model_name": "Model X", "candidate_model_id": "org/x", "submitter": "lab", "contact_or_repo": "https://example.org", "rubric_key": "rb", "date": "2026-03-01", "judge_model": "openai/gpt-5.5"}
}

func mcqMeta() map[string]any {
	return map[string]any{"model_name": "Model Y", "candidate_model_id": "org/y", "submitter": "lab", "contact_or_repo": "https://example.org", "rubric_key": "mc", "date": "2026-03-01"}
}

func comp(id string, awarded, maximum any) map[string]any {
	return map[string]any{"id": id, "awarded": awarded, "maximum": maximum, "reason": "r"}
}

func rubricScores() []map[string]any {
	return []map[string]any{
		{"id": "Q1", "question": "What controls seal capacity?", "answer_b": "Capillary entry pressure.", "answer_b_clean": "Capillary entry pressure.",
			"score_b": 7, "score_b_reason": "ok", "score_b_gate_passed": true, "score_b_components": []any{comp("C1", 4, 4), comp("C2", 3, 6)},
			"score_b_adjudication_required": false, "score_b_adjudication_note": ""},
		{"id": "Q2", "question": "What does vitrinite reflectance measure?", "answer_b": "Porosity.", "answer_b_clean": "Porosity.",
			"score_b": 0, "score_b_reason": "gate failed", "score_b_gate_passed": false, "score_b_components": []any{comp("G", 0, 5), comp("H", 0, 5)},
			"score_b_adjudication_required": true, "score_b_adjudication_note": "borderline"},
	}
}

func mcqScores() []map[string]any {
	row := func(id, resp string, answer any, correct bool) map[string]any {
		return map[string]any{"id": id, "response": resp, "answer": answer, "correct": correct, "finish_reason": "stop", "latency_ms": 100}
	}
	return []map[string]any{
		row("m1", "Reasoning.\nANSWER: A", "A", true),
		row("m2", "ANSWER: C", "C", false),
		row("m3", "Because of X.\nANSWER: C", "C", true),
		row("m4", "ANSWER: D", "D", true),
	}
}

const (
	rubricDir = "submissions/model-benchmark/x-rb"
	mcqDir    = "submissions/model-benchmark/y-mc"
)

func board(t testing.TB, meta map[string]any, scores any, dir string) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{
		"rubrics/rubrics.json": {Data: []byte(testRegistry)},
		"rubrics/rb.json":      {Data: []byte(testRubric)},
		"rubrics/mc.jsonl":     {Data: []byte(testMCQ)},
	}
	if meta != nil {
		fsys[dir+"/meta.json"] = &fstest.MapFile{Data: indent(t, meta)}
	}
	if scores != nil {
		fsys[dir+"/scores.json"] = &fstest.MapFile{Data: indent(t, scores)}
	}
	return fsys
}

func indent(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var testToday = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

func verifyOne(t *testing.T, fsys fstest.MapFS, dir string) Result {
	t.Helper()
	v, err := New(fsys, Options{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	return v.Verify(dir)
}

// describe renders findings compactly: "code file:line question".
func describe(r Result) []string {
	var out []string
	for _, f := range r.Errors {
		out = append(out, fmt.Sprintf("%s %s:%d %s", f.Code, f.File[strings.LastIndexByte(f.File, '/')+1:], f.Line, f.Question))
	}
	return out
}

func TestVerifyRubric(t *testing.T) {
	type mut func(meta map[string]any, rows []map[string]any) any
	tests := []struct {
		name   string
		mutate mut
		status Status
		errs   []string // "code file:line question"
	}{
		{"valid", nil, Pass, nil},
		{"missing question", func(m map[string]any, rows []map[string]any) any { return rows[:1] }, Fail, []string{"ids.missing scores.json:0 "}},
		{"unknown id", func(m map[string]any, rows []map[string]any) any {
			rows[1]["id"] = "Q9"
			return rows
		}, Fail, []string{"ids.unknown scores.json:27 Q9", "ids.missing scores.json:0 "}},
		{"duplicate id", func(m map[string]any, rows []map[string]any) any { return append(rows, rows[0]) }, Fail, []string{"ids.duplicate scores.json:52 Q1"}},
		{"stale question text", func(m map[string]any, rows []map[string]any) any {
			rows[0]["question"] = "What controls seal capacity in shale?"
			return rows
		}, Fail, []string{"ids.stale-question scores.json:2 Q1"}},
		{"judge mismatch", func(m map[string]any, rows []map[string]any) any {
			m["judge_model"] = "openai/gpt-4o"
			return rows
		}, Fail, []string{"judge.mismatch meta.json:5 "}},
		{"judge missing", func(m map[string]any, rows []map[string]any) any {
			delete(m, "judge_model")
			return rows
		}, Fail, []string{"judge.missing meta.json:6 "}},
		{"row judge mismatch", func(m map[string]any, rows []map[string]any) any {
			rows[1]["judge_model"] = "anthropic/claude"
			return rows
		}, Fail, []string{"judge.row-mismatch scores.json:27 Q2"}},
		{"rubric hash of another version", func(m map[string]any, rows []map[string]any) any {
			rows[0]["rubric_sha256"] = strings.Repeat("ab", 32)
			return rows
		}, Fail, []string{"binding.rubric-sha256 scores.json:2 Q1"}},
		{"sum differs", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b"] = 8
			return rows
		}, Fail, []string{"arith.sum scores.json:2 Q1"}},
		{"maximum differs", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b_components"].([]any)[1] = comp("C2", 3, 5)
			return rows
		}, Fail, []string{"arith.maximum scores.json:17 Q1"}},
		{"fractional award", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b_components"].([]any)[1] = comp("C2", 2.5, 6)
			rows[0]["score_b"] = 6.5
			return rows
		}, Fail, []string{"arith.score scores.json:2 Q1"}},
		{"award above maximum", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b_components"].([]any)[1] = comp("C2", 7, 6)
			rows[0]["score_b"] = 11
			return rows
		}, Fail, []string{"arith.score scores.json:2 Q1"}},
		{"award above maximum within total", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b_components"] = []any{comp("C1", 2, 4), comp("C2", 7, 6)}
			rows[0]["score_b"] = 9
			return rows
		}, Fail, []string{"arith.award scores.json:17 Q1"}},
		{"failed gate with points", func(m map[string]any, rows []map[string]any) any {
			rows[1]["score_b_components"] = []any{comp("G", 0, 5), comp("H", 2, 5)}
			rows[1]["score_b"] = 2
			return rows
		}, Fail, []string{"arith.gate-failed scores.json:42 Q2", "arith.gate-failed scores.json:27 Q2"}},
		{"component missing", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b_components"] = []any{comp("C1", 4, 4)}
			rows[0]["score_b"] = 4
			return rows
		}, Fail, []string{"arith.component-missing scores.json:2 Q1"}},
		{"unknown component", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b_components"] = append(rows[0]["score_b_components"].([]any), comp("C3", 0, 0))
			return rows
		}, Fail, []string{"arith.unknown-component scores.json:23 Q1"}},
		{"gate verdict missing", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b_gate_passed"] = nil
			return rows
		}, Fail, []string{"arith.gate-missing scores.json:2 Q1"}},
		{"one unscored of two needs review", func(m map[string]any, rows []map[string]any) any {
			rows[1]["score_b"] = nil
			return rows
		}, Review, nil},
		{"score as string", func(m map[string]any, rows []map[string]any) any {
			rows[0]["score_b"] = "7"
			return rows
		}, Fail, []string{"schema scores.json:7 Q1"}},
		{"harness fields on model track warn only", func(m map[string]any, rows []map[string]any) any {
			m["harness_name"] = "agent"
			return rows
		}, Pass, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta, rows := rubricMeta(), rubricScores()
			var scores any = rows
			if tt.mutate != nil {
				scores = tt.mutate(meta, rows)
			}
			r := verifyOne(t, board(t, meta, scores, rubricDir), rubricDir)
			if got := describe(r); r.Status != tt.status || strings.Join(got, "\n") != strings.Join(tt.errs, "\n") {
				t.Errorf("status %s, errors:\n%s\nwant %s, errors:\n%s\n(full: %v)", r.Status, strings.Join(got, "\n"), tt.status, strings.Join(tt.errs, "\n"), r.Errors)
			}
		})
	}
}

func TestRubricSummary(t *testing.T) {
	r := verifyOne(t, board(t, rubricMeta(), rubricScores(), rubricDir), rubricDir)
	got, _ := json.Marshal(r.Summary)
	want := `{"questions":2,"answered":2,"scored":2,"unscored":0,"mean":3.5,"gate_pass_rate":0.5,"adjudications":1}`
	if string(got) != want {
		t.Errorf("summary = %s, want %s", got, want)
	}
	if r.Kind != "rubric" || r.RubricKey != "rb" || r.Meta == nil || r.Meta.ModelName != "Model X" {
		t.Errorf("result = %+v", r)
	}
	if got, _ := json.Marshal(r.Outcomes); string(got) != `{"points":[7,0],"gate_passed":[true,false]}` {
		t.Errorf("outcomes = %s", got)
	}
}

func TestVerifyMCQ(t *testing.T) {
	type mut func(meta map[string]any, rows []map[string]any) any
	tests := []struct {
		name   string
		track  string
		mutate mut
		status Status
		errs   []string
	}{
		{"valid", "", nil, Pass, nil},
		{"correct flag lies", "", func(m map[string]any, rows []map[string]any) any {
			rows[1]["correct"] = true
			return rows
		}, Fail, []string{"mcq.correct scores.json:10 m2"}},
		{"answer edited against its response", "", func(m map[string]any, rows []map[string]any) any {
			rows[1]["answer"], rows[1]["correct"] = "B", true
			return rows
		}, Fail, []string{"mcq.dispute scores.json:10 m2"}},
		{"null answer where the response has one", "", func(m map[string]any, rows []map[string]any) any {
			rows[3]["answer"], rows[3]["correct"] = nil, false
			return rows
		}, Fail, []string{"mcq.dispute scores.json:26 m4"}},
		{"truncated and undecidable is unverifiable", "", func(m map[string]any, rows []map[string]any) any {
			rows[2]["response"], rows[2]["response_truncated"] = "Because of X, and", true
			return rows
		}, Review, nil},
		{"truncated but agreeing is still unverifiable", "", func(m map[string]any, rows []map[string]any) any {
			rows[2]["response"], rows[2]["response_truncated"] = "Because of X.\nANSWER: C and", true
			return rows
		}, Review, nil},
		{"judge on an mcq", "", func(m map[string]any, rows []map[string]any) any {
			m["judge_model"] = "openai/gpt-5.5"
			return rows
		}, Fail, []string{"judge.not-applicable meta.json:5 "}},
		{"unknown rubric key", "", func(m map[string]any, rows []map[string]any) any {
			m["rubric_key"] = "nope"
			return rows
		}, Fail, []string{"meta.rubric-key meta.json:6 "}},
		{"harness track with the pinned model", "harness-benchmark", func(m map[string]any, rows []map[string]any) any {
			m["candidate_model_id"], m["harness_name"], m["harness_repo"] = "org/ref", "agent", "https://example.org/agent"
			return rows
		}, Pass, nil},
		{"harness track with another model", "harness-benchmark", func(m map[string]any, rows []map[string]any) any {
			m["harness_name"], m["harness_repo"] = "agent", "https://example.org/agent"
			return rows
		}, Fail, []string{"meta.reference-model meta.json:2 "}},
		{"harness track without harness fields", "harness-benchmark", func(m map[string]any, rows []map[string]any) any {
			m["candidate_model_id"] = "org/ref"
			return rows
		}, Fail, []string{"meta.harness meta.json:0 ", "meta.harness meta.json:0 "}},
		{"future date", "", func(m map[string]any, rows []map[string]any) any {
			m["date"] = "2027-01-01"
			return rows
		}, Fail, []string{"meta.date meta.json:4 "}},
		{"impossible date", "", func(m map[string]any, rows []map[string]any) any {
			m["date"] = "2026-02-30"
			return rows
		}, Fail, []string{"meta.date meta.json:4 "}},
		{"unknown row field", "", func(m map[string]any, rows []map[string]any) any {
			rows[0]["answr"] = "A"
			return rows
		}, Fail, []string{"schema scores.json:4 m1"}},
		{"scores not an array", "", func(m map[string]any, rows []map[string]any) any { return map[string]any{"rows": rows} }, Fail, []string{"schema scores.json:1 "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta, rows := mcqMeta(), mcqScores()
			var scores any = rows
			if tt.mutate != nil {
				scores = tt.mutate(meta, rows)
			}
			dir := mcqDir
			if tt.track != "" {
				dir = "submissions/" + tt.track + "/y-mc"
			}
			r := verifyOne(t, board(t, meta, scores, dir), dir)
			if got := describe(r); r.Status != tt.status || strings.Join(got, "\n") != strings.Join(tt.errs, "\n") {
				t.Errorf("status %s, errors:\n%s\nwant %s, errors:\n%s\n(full: %v)", r.Status, strings.Join(got, "\n"), tt.status, strings.Join(tt.errs, "\n"), r.Errors)
			}
		})
	}
}

func TestMCQSummary(t *testing.T) {
	rows := mcqScores()
	rows = append(rows[:3],
		map[string]any{"id": "m4", "response": "", "answer": nil, "correct": false, "finish_reason": "empty", "latency_ms": 300})
	rows[2]["response"], rows[2]["answer"], rows[2]["correct"], rows[2]["finish_reason"] = "I think it is probably", nil, false, "length"
	r := verifyOne(t, board(t, mcqMeta(), rows, mcqDir), mcqDir)
	got, _ := json.Marshal(r.Summary)
	want := `{"questions":4,"answered":2,"correct":1,"accuracy":0.25,"disputes":0,"unverifiable":0,"parse_failures":1,"empty_responses":1,"length_finishes":1,"errors":0,"mean_latency_ms":150}`
	if string(got) != want || r.Status != Pass {
		t.Errorf("status %s, summary = %s, want %s (errors %v)", r.Status, got, want, r.Errors)
	}
	if o := r.Outcomes; string(o.Letters) != "AC\x00\x00" || fmt.Sprint(o.Correct) != "[true false false false]" || fmt.Sprint(o.Unverifiable) != "[false false false false]" {
		t.Errorf("outcomes = %q %v %v", o.Letters, o.Correct, o.Unverifiable)
	}
}

// TestMCQUnverifiableOutcomes: the outcomes mark which answers could not
// be verified, so that the board can take their credit away.
func TestMCQUnverifiableOutcomes(t *testing.T) {
	rows := mcqScores()
	rows[2]["response"], rows[2]["response_truncated"] = "Because of X, and", true
	r := verifyOne(t, board(t, mcqMeta(), rows, mcqDir), mcqDir)
	if *r.Summary.Unverifiable != 1 || fmt.Sprint(r.Outcomes.Unverifiable) != "[false false true false]" {
		t.Errorf("unverifiable %d, outcomes %v", *r.Summary.Unverifiable, r.Outcomes.Unverifiable)
	}
}

func TestVerifyLayout(t *testing.T) {
	tests := []struct {
		name  string
		dir   string
		edit  func(fsys fstest.MapFS, dir string)
		errs  []string
		files bool // whether meta and scores are written
	}{
		{"extra file", mcqDir, func(f fstest.MapFS, d string) { f[d+"/run.log"] = &fstest.MapFile{Data: []byte("x")} }, []string{"layout.unexpected-file run.log:0 "}, true},
		{"readme allowed", mcqDir, func(f fstest.MapFS, d string) { f[d+"/README.md"] = &fstest.MapFile{Data: []byte("# notes\n")} }, nil, true},
		{"readme not utf-8", mcqDir, func(f fstest.MapFS, d string) { f[d+"/README.md"] = &fstest.MapFile{Data: []byte("a\nb\xff\n")} }, []string{"layout.utf8 README.md:2 "}, true},
		{"subfolder", mcqDir, func(f fstest.MapFS, d string) { f[d+"/raw/x.json"] = &fstest.MapFile{Data: []byte("{}")} }, []string{"layout.unexpected-dir raw:0 "}, true},
		{"symlink", mcqDir, func(f fstest.MapFS, d string) {
			f[d+"/scores.json"] = &fstest.MapFile{Data: []byte("../../../rubrics/mc.jsonl"), Mode: 0o777 | 1<<27}
		}, []string{"layout.symlink scores.json:0 "}, true},
		{"missing scores", mcqDir, func(f fstest.MapFS, d string) { delete(f, d+"/scores.json") }, []string{"layout.missing-file scores.json:0 "}, true},
		{"bad slug", "submissions/model-benchmark/My_Model", nil, []string{"layout.slug My_Model:0 "}, true},
		{"bad track", "submissions/models/y", nil, []string{"layout.track y:0 "}, true},
		{"not json", mcqDir, func(f fstest.MapFS, d string) {
			f[d+"/scores.json"] = &fstest.MapFile{Data: []byte("[\n{\"id\": \"m1\",}\n]")}
		}, []string{"json.syntax scores.json:2 "}, true},
		{"duplicate key", mcqDir, func(f fstest.MapFS, d string) {
			f[d+"/meta.json"] = &fstest.MapFile{Data: []byte("{\n\"model_name\": \"a\",\n\"model_name\": \"b\"\n}")}
		}, []string{"json.syntax meta.json:3 "}, true},
		{"NaN", mcqDir, func(f fstest.MapFS, d string) {
			f[d+"/scores.json"] = &fstest.MapFile{Data: []byte(`[{"id": "m1", "response": "", "answer": null, "correct": false, "latency_ms": NaN}]`)}
		}, []string{"json.syntax scores.json:1 "}, true},
		{"too deep", mcqDir, func(f fstest.MapFS, d string) {
			f[d+"/scores.json"] = &fstest.MapFile{Data: []byte(strings.Repeat("[", 40) + strings.Repeat("]", 40))}
		}, []string{"json.syntax scores.json:1 "}, true},
		{"too large", mcqDir, func(f fstest.MapFS, d string) {
			f[d+"/scores.json"] = &fstest.MapFile{Data: make([]byte, 2<<20)}
		}, []string{"layout.too-large scores.json:0 "}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := board(t, mcqMeta(), mcqScores(), tt.dir)
			if tt.edit != nil {
				tt.edit(fsys, tt.dir)
			}
			v, err := New(fsys, Options{Today: testToday, MaxFileBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			r := v.Verify(tt.dir)
			got := describe(r)
			wantStatus := Pass
			if len(tt.errs) > 0 {
				wantStatus = Fail
			}
			if r.Status != wantStatus || strings.Join(got, "\n") != strings.Join(tt.errs, "\n") {
				t.Errorf("status %s, errors:\n%s\nwant:\n%s\n(full: %v)", r.Status, strings.Join(got, "\n"), strings.Join(tt.errs, "\n"), r.Errors)
			}
		})
	}
}

// One broken submission never stops the others.
func TestVerifyAllIsolatesFailures(t *testing.T) {
	fsys := board(t, mcqMeta(), mcqScores(), mcqDir)
	for k, v := range board(t, rubricMeta(), rubricScores(), rubricDir) {
		fsys[k] = v
	}
	fsys["submissions/model-benchmark/broken/meta.json"] = &fstest.MapFile{Data: []byte("{")}
	fsys["submissions/model-benchmark/broken/scores.json"] = &fstest.MapFile{Data: []byte("\xff")}
	fsys["submissions/_template/meta.json"] = &fstest.MapFile{Data: []byte("{}")}
	fsys["submissions/model-benchmark/README.md"] = &fstest.MapFile{Data: []byte("# Models\n")}
	fsys["submissions/harness-benchmark/scores.json"] = &fstest.MapFile{Data: []byte("[]")}
	fsys["submissions/harness-benchmark/.gitkeep"] = &fstest.MapFile{}
	// Not the template: a folder named like one is verified (and fails).
	fsys["submissions/harness-benchmark/_draft/meta.json"] = &fstest.MapFile{Data: []byte("{}")}
	v, err := New(fsys, Options{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := v.Discover()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(dirs, " "); got != "submissions/harness-benchmark/_draft submissions/harness-benchmark/scores.json submissions/model-benchmark/broken "+rubricDir+" "+mcqDir {
		t.Fatalf("Discover() = %s", got)
	}
	dirs = dirs[1:]
	rep := v.VerifyAll(dirs)
	if rep.Passed != 2 || rep.Failed != 2 || rep.Review != 0 {
		t.Errorf("report: %d passed, %d failed, %d review", rep.Passed, rep.Failed, rep.Review)
	}
	if got := describe(rep.Submissions[0]); strings.Join(got, ",") != "layout.not-a-folder scores.json:0 " {
		t.Errorf("stray file: %v", got)
	}
	if got := describe(rep.Submissions[1]); strings.Join(got, ",") != "json.syntax meta.json:1 ,json.syntax scores.json:1 " {
		t.Errorf("broken: %v", got)
	}
}

func TestBrokenBenchmarkFailsItsSubmissions(t *testing.T) {
	fsys := board(t, rubricMeta(), rubricScores(), rubricDir)
	fsys["rubrics/rb.json"] = &fstest.MapFile{Data: []byte(strings.Replace(testRubric, `"points": 6`, `"points": 5`, 1))}
	r := verifyOne(t, fsys, rubricDir)
	if got := describe(r); strings.Join(got, ",") != "benchmark.invalid rb.json:0 " {
		t.Errorf("errors: %v", r.Errors)
	}
	if !strings.Contains(r.Errors[0].Message, "component points add up to 9") {
		t.Errorf("message does not say what is wrong: %s", r.Errors[0].Message)
	}
}

// TestBrokenRegistryEntryOnce: a rubric benchmark whose registry entry
// names no judge fails its submissions with that one finding, not also a
// judge mismatch against the empty judge.
func TestBrokenRegistryEntryOnce(t *testing.T) {
	tests := []struct {
		name, from, to string
		want           string // in the one error's message
	}{
		{"no judge_model", `, "judge_model": "openai/gpt-5.5"}`, `}`, "judge_model is missing"},
		{"an empty judge_model", `"judge_model": "openai/gpt-5.5"`, `"judge_model": " "`, "judge_model is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := board(t, rubricMeta(), rubricScores(), rubricDir)
			fsys["rubrics/rubrics.json"] = &fstest.MapFile{Data: []byte(strings.Replace(testRegistry, tt.from, tt.to, 1))}
			r := verifyOne(t, fsys, rubricDir)
			if got := describe(r); strings.Join(got, ",") != "benchmark.invalid rb.json:0 " || !strings.Contains(r.Errors[0].Message, tt.want) {
				t.Errorf("errors: %v", r.Errors)
			}
		})
	}
}

func TestRegistryMissing(t *testing.T) {
	_, err := New(fstest.MapFS{}, Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot read the benchmark registry") {
		t.Errorf("err = %v", err)
	}
}

// countingCache records hits and writes around a folder cache; it may be
// used by concurrent verifications.
type countingCache struct {
	filecache.Dir
	mu         sync.Mutex
	hits, puts int
}

func (c *countingCache) Get(key string) ([]byte, bool) {
	r, ok := c.Dir.Get(key)
	if ok {
		c.mu.Lock()
		c.hits++
		c.mu.Unlock()
	}
	return r, ok
}

func (c *countingCache) Put(key string, data []byte) {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	c.Dir.Put(key, data)
}

func TestCache(t *testing.T) {
	fsys := board(t, rubricMeta(), rubricScores(), rubricDir)
	for k, v := range board(t, mcqMeta(), mcqScores(), mcqDir) {
		fsys[k] = v
	}
	cache := &countingCache{Dir: filecache.Dir(t.TempDir())}
	run := func() Report {
		v, err := New(fsys, Options{Today: testToday, Cache: cache, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return v.VerifyAll([]string{rubricDir, mcqDir})
	}
	first := run()
	second := run()
	if cache.puts != 2 || cache.hits != 2 {
		t.Fatalf("puts %d, hits %d; want 2 and 2", cache.puts, cache.hits)
	}
	a, _ := json.Marshal(first)
	b, _ := json.Marshal(second)
	o1, o2 := second.Submissions[0].Outcomes, second.Submissions[1].Outcomes
	if string(a) != string(b) || second.Submissions[0].Meta == nil || fmt.Sprint(o1.Points, o1.GatePassed) != "[7 0] [true false]" || string(o2.Letters) != "ACCD" || fmt.Sprint(o2.Correct) != "[true false true true]" {
		t.Errorf("cached results differ:\n%s\n%s", a, b)
	}
	// Any change to a submission's files, or to a benchmark, is a miss.
	rows := mcqScores()
	rows[1]["answer"], rows[1]["correct"] = "B", true
	fsys[mcqDir+"/scores.json"].Data = indent(t, rows)
	third := run()
	if cache.hits != 3 || third.Submissions[1].Status != Fail {
		t.Errorf("after editing scores.json: hits %d, status %s", cache.hits, third.Submissions[1].Status)
	}
	fsys["rubrics/rb.json"].Data = append(fsys["rubrics/rb.json"].Data, '\n')
	run()
	if cache.hits != 3 {
		t.Errorf("after editing a benchmark: hits %d, want no new hit", cache.hits)
	}
}

// TestRubricSummaryOneDenominator: the mean and the gate-pass rate are
// over the same rows, the scored ones with a valid grade, and the summary
// says how many those are when a grade is not valid.
func TestRubricSummaryOneDenominator(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(rows []map[string]any)
		line   string // Summary.Line()
		errs   string // describe()
	}{
		{"every grade valid", func([]map[string]any) {}, "mean 3.50 over 2 scored, gate pass 50%, 1 adjudication", ""},
		{"a total above the rubric's", func(rows []map[string]any) { rows[1]["score_b"] = 11 },
			"mean 7.00 over the 1 of 2 scored answers with a valid grade, gate pass 100%, 1 adjudication", "arith.score scores.json:27 Q2"},
		{"no gate", func(rows []map[string]any) { delete(rows[0], "score_b_gate_passed") },
			"mean 0.00 over the 1 of 2 scored answers with a valid grade, gate pass 0%, 1 adjudication", "arith.gate-missing scores.json:2 Q1"},
		{"no valid grade", func(rows []map[string]any) { rows[0]["score_b"] = -1; rows[1]["score_b"] = 11 },
			"none of 2 scored answers has a valid grade, 1 adjudication", "arith.score scores.json:2 Q1,arith.score scores.json:27 Q2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := rubricScores()
			tt.mutate(rows)
			r := verifyOne(t, board(t, rubricMeta(), rows, rubricDir), rubricDir)
			if got := r.Summary.Line(); got != tt.line {
				t.Errorf("summary %q, want %q", got, tt.line)
			}
			if got := strings.Join(describe(r), ","); got != tt.errs {
				t.Errorf("errors %q, want %q", got, tt.errs)
			}
		})
	}
}
