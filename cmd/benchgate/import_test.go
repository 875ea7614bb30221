package main

import (
	"archive/zip"
	"bufio"
	"encoding/csv"
	"encoding/json"
	"github.com/benchgate/benchgate/importer"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/internal/golden"
)

// formationEvalBoard is a copy of the example board with the real
// FormationEval v0.1 benchmark registered under the key formationeval with
// the given extraction policy (the example registry does not hold it), and
// the path of the published three-model CSV. It skips when the shared
// fixtures are absent.
func formationEvalBoard(t *testing.T, policy string) (root, csvPath string) {
	t.Helper()
	bench := fixtures.Path(t, "formationeval", "formationeval_v0.1.json")
	csvPath = fixtures.Path(t, "formationeval", "responses_3_models.csv")
	root = copyBoard(t)
	data, err := os.ReadFile(bench)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "rubrics", "formationeval_v0.1.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	registerBenchmark(t, root, map[string]any{"key": "formationeval", "label": "FormationEval v0.1", "file": "rubrics/formationeval_v0.1.json", "kind": "mcq", "extraction": policy})
	return root, csvPath
}

// registerBenchmark appends an entry to the registry of the board in root.
func registerBenchmark(t *testing.T, root string, entry map[string]any) {
	t.Helper()
	p := filepath.Join(root, "rubrics", "rubrics.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var reg []map[string]any
	if err := json.Unmarshal(data, &reg); err != nil {
		t.Fatal(err)
	}
	for _, e := range reg {
		if e["key"] == entry["key"] {
			t.Fatalf("the example registry already holds %v", entry["key"])
		}
	}
	data, _ = json.MarshalIndent(append(reg, entry), "", "  ")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// summaryRows reads the summary table at the end of an import's output:
// model -> its columns.
func summaryRows(t *testing.T, out string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && f[0] == "model" && len(f) > 2 && f[1] == "rows" {
			in = true
			continue
		}
		if in && len(f) == 0 {
			break // the table ends at a blank line
		}
		if in && len(f) >= 9 {
			rows[f[0]] = f[1:]
		}
	}
	if !in {
		t.Fatalf("no summary in the output:\n%s", out)
	}
	return rows
}

// TestImportFormationEvalPublished imports the published responses of
// three models with FormationEval's own extraction policy: every
// submission is written, passes `benchgate verify`, and reproduces the
// published correct counts with no dispute; claude-3.5-haiku's one
// truncated response is marked so and decided from the stored text.
func TestImportFormationEvalPublished(t *testing.T) {
	root, csvPath := formationEvalBoard(t, "formationeval-v0.1")
	code, out, stderr := runCLI(t, "import", "formationeval", "--root", root, "--csv", csvPath, "--benchmark", "formationeval", "--date", "2025-12-01", "--submitter", "maintainer", "--contact", "https://github.com/AlmazErmilov/FormationEval-an-Open-Benchmark-for-Oil-Gas-Geoscience-MCQ-Evaluation")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	golden.Check(t, "import-formationeval.txt", []byte(strings.ReplaceAll(out, root, "ROOT")))

	rows := summaryRows(t, out)
	for model, want := range fixtures.FormationEvalModels {
		r, ok := rows[model]
		if !ok {
			t.Errorf("%s: not in the summary", model)
			continue
		}
		// rows correct published disputes truncated undecidable verify folder
		if r[0] != "505" || r[1] != strconv.Itoa(want) || r[2] != strconv.Itoa(want) || r[3] != "0" || r[7] != "submissions/model-benchmark/"+model+"-formationeval" {
			t.Errorf("%s: summary %v, want 505 rows, %d correct as published, no dispute", model, r, want)
		}
	}
	if r := rows["claude-3.5-haiku"]; r == nil || r[4] != "1" || r[5] != "0" {
		t.Errorf("claude-3.5-haiku: summary %v, want 1 truncated response, decidable", r)
	}

	code, vout, stderr := runCLI(t, "verify", "--root", root, filepath.Join(root, "submissions/model-benchmark"))
	if code != exitOK || !strings.Contains(vout, "7 submission(s): 7 passed") {
		t.Errorf("verify after import: exit %d\n%s%s", code, vout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/claude-3.5-haiku-formationeval/scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatal(err)
	}
	cut := 0
	for _, r := range recs {
		if r["response_truncated"] == true {
			cut++
		}
	}
	if len(recs) != 505 || cut != 1 {
		t.Errorf("claude-3.5-haiku scores.json: %d rows, %d marked response_truncated; want 505 and 1", len(recs), cut)
	}
}

// TestImportFormationEvalDisputes imports the same responses into a
// benchmark whose policy is flexible, which reads 100 of them otherwise
// than FormationEval's extractor did: each is reported as a dispute, the
// letters written are flexible's (so the submissions still verify), and
// the correct counts differ from the published ones where it matters.
func TestImportFormationEvalDisputes(t *testing.T) {
	root, csvPath := formationEvalBoard(t, "flexible")
	code, out, stderr := runCLI(t, "import", "formationeval", "--root", root, "--csv", csvPath, "--benchmark", "formationeval", "--models", "gpt-oss-120b,nemotron-3-nano-30b-a3b", "--date", "2025-12-01")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	rows := summaryRows(t, out)
	if len(rows) != 2 || rows["claude-3.5-haiku"] != nil {
		t.Errorf("--models: summary holds %v, want gpt-oss-120b and nemotron-3-nano-30b-a3b only", rows)
	}
	for model, disputes := range map[string]string{"gpt-oss-120b": "12", "nemotron-3-nano-30b-a3b": "88"} {
		if r := rows[model]; r == nil || r[3] != disputes || r[2] != strconv.Itoa(fixtures.FormationEvalModels[model]) {
			t.Errorf("%s: summary %v, want %s disputes against %d published", model, r, disputes, fixtures.FormationEvalModels[model])
		}
	}
	for _, want := range []string{
		"nemotron-3-nano-30b-a3b: 88 dispute(s): the flexible policy reads another letter or verdict than the source published:",
		"question formationeval_v0.1_petrophysics_resistivity_principles_003: published letter C (correct ",
		"meta.json: the source does not say, so a maintainer must fill in:\n  - model_name",
		"  - submitter (the GitHub login of the pull request's author; or give --submitter)",
		"\nFormationEval chose its published letters by its own rule, which benchgate has as the formationeval-v0.1 policy; flexible reads 100 of them otherwise. To keep the published counts, set \"extraction\": \"formationeval-v0.1\" in \"formationeval\"'s registry entry (benchgate init --extraction formationeval-v0.1) and import again.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestImportFormationEvalDryRun checks that --dry-run verifies and
// reports but leaves the board as it was.
func TestImportFormationEvalDryRun(t *testing.T) {
	root, csvPath := formationEvalBoard(t, "formationeval-v0.1")
	code, out, stderr := runCLI(t, "import", "formationeval", "--root", root, "--csv", csvPath, "--benchmark", "formationeval", "--models", "gpt-oss-120b", "--dry-run", "--submitter", "lab", "--contact", "https://example.org/lab")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for _, want := range []string{"would write submissions/model-benchmark/gpt-oss-120b-formationeval/meta.json:\n{\n  \"model_name\": \"gpt-oss-120b\"", "would write submissions/model-benchmark/gpt-oss-120b-formationeval/scores.json: 505 rows", "PASS   submissions/model-benchmark/gpt-oss-120b-formationeval", "folder (dry run: not written)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "submissions/model-benchmark/gpt-oss-120b-formationeval")); !os.IsNotExist(err) {
		t.Errorf("--dry-run wrote the folder (stat: %v)", err)
	}
}

// smallCSV writes, for the example board's reservoir-mcq benchmark (policy
// answer-line), a FormationEval-format CSV in which model m1 answers every
// question right with "ANSWER: <key>", after edit has changed the cells
// (rows[0] is the header) or cut them; it returns the file's path.
func smallCSV(t *testing.T, root string, edit func(rows [][]string) [][]string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "rubrics", "reservoir-mcq.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := [][]string{{"question_id", "question_text", "correct_answer", "m1_answer", "m1_correct", "m1_pattern", "m1_raw"}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q struct{ ID, Question, AnswerKey string }
		var raw map[string]any
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		q.ID, q.Question, q.AnswerKey = raw["id"].(string), raw["question"].(string), raw["answer_key"].(string)
		rows = append(rows, []string{q.ID, q.Question, q.AnswerKey, q.AnswerKey, "True", "answer_statement", "ANSWER: " + q.AnswerKey})
	}
	if edit != nil {
		rows = edit(rows)
	}
	p := filepath.Join(t.TempDir(), "results.csv")
	out, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	// As a spreadsheet saves it: a byte order mark first.
	_, err = out.WriteString("\ufeff")
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	w.WriteAll(rows)
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImportFormationEvalErrors runs the importer on hand-made CSVs over
// the example reservoir-mcq benchmark: bad input fails naming the file,
// line and column, and nothing is written.
func TestImportFormationEvalErrors(t *testing.T) {
	root := copyBoard(t)
	drop := func(col int) func([][]string) [][]string {
		return func(rows [][]string) [][]string {
			for i := range rows {
				rows[i] = append(rows[i][:col:col], rows[i][col+1:]...)
			}
			return rows
		}
	}
	set := func(row, col int, v string) func([][]string) [][]string {
		return func(rows [][]string) [][]string { rows[row][col] = v; return rows }
	}
	tests := []struct {
		name string
		edit func(rows [][]string) [][]string
		args []string
		code int
		want string // stderr after "benchgate import: ", with FILE for the CSV's path
	}{
		{"missing column", drop(6), nil, exitUsage,
			`FILE:1: column m1_raw: missing from the header: model "m1" has m1_answer but each model needs m1_answer, m1_correct, m1_pattern, m1_raw`},
		{"no question_id", drop(0), nil, exitUsage,
			"FILE:1: column question_id: missing from the header; this is not FormationEval's per-question results CSV (question_id, ..., then <model>_answer, <model>_correct, <model>_pattern, <model>_raw per model)"},
		{"bad letter", set(2, 3, "E"), nil, exitUsage,
			`FILE:3: column m1_answer: question rq-002: "E" is not a letter; want A, B, C, D, or empty when no letter was extracted`},
		{"bad verdict", set(5, 4, "yes"), nil, exitUsage,
			`FILE:6: column m1_correct: question rq-005: "yes" is not True or False`},
		{"unknown question", set(4, 0, "rq-999"), nil, exitUsage,
			`FILE:5: column question_id: question "rq-999" is not in benchmark "reservoir-mcq" (rubrics/reservoir-mcq.jsonl); the results were made for another benchmark or version`},
		{"duplicate question", set(4, 0, "rq-003"), nil, exitUsage,
			`FILE:5: column question_id: question "rq-003" appears again (first on line 4); each question must have one row`},
		{"other key", set(1, 2, "A"), nil, exitUsage,
			`FILE:2: column correct_answer: question rq-001: the CSV's key is "A" but benchmark "reservoir-mcq"'s is D; the results were made for another version of the benchmark`},
		{"missing questions", func(r [][]string) [][]string { return append(r[:1], r[5:]...) }, nil, exitUsage,
			`FILE: 4 of the 40 questions of benchmark "reservoir-mcq" have no result (rq-001, rq-002, rq-003 and 1 more); a submission must answer every question, so import the complete results`},
		{"unknown model", nil, []string{"--models", "m1,m2"}, exitUsage,
			`FILE: no results for model "m2"; the file holds m1`},
		{"not csv", func(r [][]string) [][]string { r[3] = r[3][:2]; return r }, nil, exitUsage,
			"FILE:4: column 1: wrong number of fields; the file is not valid CSV"},
		{"rubric benchmark", nil, []string{"--benchmark", "basin-analysis"}, exitUsage,
			`benchmark "basin-analysis" is a rubric benchmark; only multiple-choice (mcq) benchmarks can be imported into`},
		{"missing flags", nil, []string{"--benchmark", ""}, exitUsage, "missing --benchmark"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := smallCSV(t, root, tt.edit)
			args := append([]string{"import", "formationeval", "--root", root, "--csv", p, "--benchmark", "reservoir-mcq"}, tt.args...)
			code, out, stderr := runCLI(t, args...)
			want := "benchgate import: " + strings.ReplaceAll(tt.want, "FILE", p) + "\n"
			if code != tt.code || !strings.HasPrefix(stderr, want) {
				t.Errorf("exit %d, want %d\nstderr: %s\nwant:   %s\nstdout: %s", code, tt.code, stderr, want, out)
			}
		})
	}
	entries, err := os.ReadDir(filepath.Join(root, "submissions", "model-benchmark"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 {
		t.Errorf("failed imports left folders behind: %d in submissions/model-benchmark, want the 4 examples", len(entries))
	}
}

// TestImportFormationEvalTruncatedAndDisputed imports a hand-made CSV whose
// rows exercise the re-reading: a published letter the policy does not
// read (a dispute, on its line), a published verdict that contradicts the
// letter (a dispute), and a response cut to 497 characters and "..." that
// answer-line cannot decide (truncated and undecidable: the published
// letter is kept and verify reports it unverifiable, not disputed). It
// then imports again, which must refuse to replace the folder.
func TestImportFormationEvalTruncatedAndDisputed(t *testing.T) {
	root := copyBoard(t)
	p := smallCSV(t, root, func(r [][]string) [][]string {
		r[2][6] = "I think it is A." // rq-002, key C: published C, answer-line reads none
		r[3][4] = "False"            // rq-003: published letter right, verdict False
		r[4][6] = strings.Repeat("x", 497) + "..."
		return r
	})
	args := []string{"import", "formationeval", "--root", root, "--csv", p, "--benchmark", "reservoir-mcq", "--date", "2025-12-01", "--submitter", "lab", "--contact", "https://example.org/lab"}
	code, out, stderr := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for _, want := range []string{
		"m1: 2 dispute(s): the answer-line policy reads another letter or verdict than the source published:\n" +
			"  " + p + ":3: question rq-002: published letter C (correct true), re-read none (no rule matched, correct false)\n" +
			"  " + p + ":4: question rq-003: published letter C (correct false), re-read C (rule answer_statement, correct true)\n",
		"1 of 40 responses were truncated before storing and their letter cannot be decided from the stored text",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// rows correct published disputes truncated undecidable verify folder
	if r := summaryRows(t, out)["m1"]; strings.Join(r, " ") != "40 39 39 2 1 1 pass submissions/model-benchmark/m1-reservoir-mcq" {
		t.Errorf("summary %v", r)
	}
	code, _, stderr = runCLI(t, args...)
	if want := "benchgate import: " + filepath.Join(root, "submissions/model-benchmark/m1-reservoir-mcq") + " already exists: remove it to import m1 again, or leave it out with --models; nothing was written\n"; code != exitUsage || stderr != want {
		t.Errorf("second import: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// threeMCQBoard is a copy of the example board with the hand-written
// three-question benchmark testdata/import/three-mcq.jsonl registered as
// three-mcq (policy answer-line).
func threeMCQBoard(t *testing.T) string {
	t.Helper()
	root := copyBoard(t)
	data, err := os.ReadFile(filepath.Join("testdata", "import", "three-mcq.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "rubrics", "three-mcq.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	registerBenchmark(t, root, map[string]any{"key": "three-mcq", "label": "Three questions", "file": "rubrics/three-mcq.jsonl", "kind": "mcq", "extraction": "answer-line"})
	return root
}

// zipEval builds an inspect_ai .eval log from the entries in dir
// (testdata/import/inspect-eval: header.json, samples/*.json,
// summaries.json; see testdata/import/README.md), after edit has changed
// them (name -> content; nil leaves them as they are), and returns its path.
func zipEval(t *testing.T, dir string, edit func(entries map[string]string)) string {
	t.Helper()
	entries := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		entries[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(entries)
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	p := filepath.Join(t.TempDir(), "three.eval")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, entries[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImportInspect imports a .json log (openai/gpt-4o-mini) and a .eval
// log (anthropic/claude-3-5-haiku-latest) of the three-question task: one
// submission per model, each verified; the scorer's letter that the
// answer-line policy does not read in the response is a dispute, on the
// sample's line; meta.json takes the model id from eval.model and the day
// from eval.created (in its own time zone), and scores.json the tokens from
// output.usage, the text parts of the content (not the reasoning) and the
// stop reason.
func TestImportInspect(t *testing.T) {
	root := threeMCQBoard(t)
	jsonLog := filepath.Join("testdata", "import", "inspect-log.json")
	evalLog := zipEval(t, filepath.Join("testdata", "import", "inspect-eval"), nil)
	code, out, stderr := runCLI(t, "import", "inspect", "--root", root, "--benchmark", "three-mcq", "--log", jsonLog, evalLog, "--submitter", "lab", "--contact", "https://example.org/lab")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	golden.Check(t, "import-inspect.txt", []byte(strings.NewReplacer(root, "ROOT", evalLog, "THREE.EVAL").Replace(out)))

	// rows correct published disputes truncated undecidable verify folder
	rows := summaryRows(t, out)
	if r := strings.Join(rows["openai/gpt-4o-mini"], " "); r != "3 2 1 1 0 0 pass submissions/model-benchmark/openai-gpt-4o-mini-three-mcq" {
		t.Errorf("gpt-4o-mini: summary %s", r)
	}
	if r := strings.Join(rows["anthropic/claude-3-5-haiku-latest"], " "); r != "3 3 3 0 0 0 pass submissions/model-benchmark/anthropic-claude-3-5-haiku-latest-three-mcq" {
		t.Errorf("claude: summary %s", r)
	}
	if want := "  " + jsonLog + ":77: question q-3: published letter B (correct false), re-read A (rule answer_statement, correct true)\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q", want)
	}

	var meta map[string]any
	data, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/anthropic-claude-3-5-haiku-latest-three-mcq/meta.json"))
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta["candidate_model_id"] != "anthropic/claude-3-5-haiku-latest" || meta["date"] != "2025-06-03" || meta["submitter"] != "lab" || meta["contact_or_repo"] != "https://example.org/lab" {
		t.Errorf("meta.json: %s", data)
	}
	var recs []map[string]any
	data, _ = os.ReadFile(filepath.Join(root, "submissions/model-benchmark/openai-gpt-4o-mini-three-mcq/scores.json"))
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatal(err)
	}
	q2 := recs[1]
	if len(recs) != 3 || q2["id"] != "q-2" || q2["response"] != "A salt seal is the strongest, so the weakest is...\n\nANSWER: C" || q2["answer"] != "C" || q2["correct"] != false || q2["finish_reason"] != "length" || q2["prompt_tokens"] != 124.0 || q2["completion_tokens"] != 40.0 {
		t.Errorf("scores.json row q-2: %v", q2)
	}
	code, vout, _ := runCLI(t, "verify", "--root", root, filepath.Join(root, "submissions/model-benchmark"))
	if code != exitOK || !strings.Contains(vout, "6 submission(s): 6 passed") {
		t.Errorf("verify after import: exit %d\n%s", code, vout)
	}
}

// TestImportInspectErrors runs the importer on logs edited into bad input:
// each fails naming the file (and the zip entry), the line of the sample in
// a .json log, and the field.
func TestImportInspectErrors(t *testing.T) {
	root := threeMCQBoard(t)
	orig, err := os.ReadFile(filepath.Join("testdata", "import", "inspect-log.json"))
	if err != nil {
		t.Fatal(err)
	}
	jsonLog := func(old, new string) string {
		if !strings.Contains(string(orig), old) {
			t.Fatalf("the log lacks %q", old)
		}
		p := filepath.Join(t.TempDir(), "log.json")
		if err := os.WriteFile(p, []byte(strings.Replace(string(orig), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	evalDir := filepath.Join("testdata", "import", "inspect-eval")
	tests := []struct {
		name string
		log  func() string
		args []string
		want string // after "benchgate import: ", LOG standing for the log's path
	}{
		{"unknown question", func() string { return jsonLog(`"id": "q-2"`, `"id": "q-9"`) }, nil,
			`LOG:51: id: sample "q-9" is not a question of benchmark "three-mcq" (rubrics/three-mcq.jsonl); the task's samples must carry the benchmark's question ids (Sample(id=...))`},
		{"bad letter", func() string { return jsonLog(`"value": "I", "answer": "B"`, `"value": "I", "answer": "E"`) }, nil,
			`LOG:77: scores.choice.answer: sample q-3: "E" is not a letter; want A, B, C or D (a multiple-choice scorer's answer) or none`},
		{"bad verdict", func() string { return jsonLog(`"value": "C", "answer": "B"`, `"value": "P", "answer": "B"`) }, nil,
			`LOG:32: scores.choice.value: sample q-1: "P" is not a verdict; want "C" or "I" (a multiple-choice scorer's value), true or false, 1 or 0`},
		{"missing model", func() string { return jsonLog(`"model": "openai/gpt-4o-mini",`, ``) }, nil,
			`LOG: eval.model: missing: the log does not say which model was evaluated`},
		{"unfinished", func() string { return jsonLog(`"status": "success"`, `"status": "error"`) }, nil,
			`LOG: status: is "error", not "success": the evaluation did not finish; import the log of a finished run`},
		{"two scorers", func() string {
			return jsonLog(`"scores": {"choice": {"value": "C", "answer": "B",`, `"scores": {"match": {"value": "C"}, "choice": {"value": "C", "answer": "B",`)
		}, nil, `LOG:32: scores: sample q-1: several scorers (choice, match); name the multiple-choice one with --scorer`},
		{"no such scorer", func() string { return jsonLog("", "") }, []string{"--scorer", "match"},
			`LOG:32: scores: sample q-1: no score of scorer "match"; the sample has choice`},
		{"second epoch", func() string {
			return jsonLog(`"id": "q-3",
      "epoch": 1,`, `"id": "q-3",
      "epoch": 2,`)
		}, nil, `LOG:77: epoch: sample q-3 is of epoch 2; a submission holds one answer per question, so import a run of one epoch`},
		{"wrong type", func() string { return jsonLog(`"output_tokens": 40,`, `"output_tokens": "forty",`) }, nil,
			`LOG:72: output.usage.output_tokens: holds a JSON string where the format has an integer`},
		{"not json", func() string { return jsonLog(`"version": 2,`, `"version": 2,,`) }, nil,
			`LOG:2: invalid character ',' looking for beginning of object key string; the file is not valid JSON`},
		{"missing question", func() string {
			return zipEval(t, evalDir, func(e map[string]string) { delete(e, "samples/q-2_epoch_1.json") })
		}, nil, `three.eval: 1 of the 3 questions of benchmark "three-mcq" have no result (q-2); a submission must answer every question, so import the complete results`},
		{"no header", func() string { return zipEval(t, evalDir, func(e map[string]string) { delete(e, "header.json") }) }, nil,
			`LOG: header.json: missing from the archive: inspect_ai writes it when an evaluation ends, so this run did not finish; import the log of a finished run`},
		{"lost attachment", func() string {
			return zipEval(t, evalDir, func(e map[string]string) {
				e["samples/q-3_epoch_1.json"] = strings.Replace(e["samples/q-3_epoch_1.json"], `"9a8b7c6d5e4f30211203948576afbecd": `, `"0000": `, 1)
			})
		}, nil, `LOG/samples/q-3_epoch_1.json: output.choices[0].message.content: sample q-3: refers to attachment 9a8b7c6d5e4f30211203948576afbecd, which the sample's attachments lack`},
		{"missing flags", func() string { return "" }, []string{"--benchmark", ""}, "missing --benchmark, --log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.log()
			args := []string{"import", "inspect", "--root", root, "--benchmark", "three-mcq"}
			if p != "" {
				args = append(args, "--log", p)
			}
			code, out, stderr := runCLI(t, append(args, tt.args...)...)
			want := "benchgate import: " + strings.ReplaceAll(tt.want, "LOG", p) + "\n"
			if code != exitUsage || !strings.HasPrefix(stderr, want) {
				t.Errorf("exit %d, want %d\nstderr: %s\nwant:   %s\nstdout: %s", code, exitUsage, stderr, want, out)
			}
		})
	}
}

// TestImportFormationEvalVerifyFails imports results whose model name holds
// a bidirectional override: the folder is written, verify fails it
// (meta.text), and the import exits 1 saying so.
func TestImportFormationEvalVerifyFails(t *testing.T) {
	root := copyBoard(t)
	p := smallCSV(t, root, func(r [][]string) [][]string {
		for c := 3; c <= 6; c++ {
			r[0][c] = strings.Replace(r[0][c], "m1", "m\u202e1", 1)
		}
		return r
	})
	code, out, stderr := runCLI(t, "import", "formationeval", "--root", root, "--csv", p, "--benchmark", "reservoir-mcq", "--date", "2025-12-01")
	if code != exitFail || stderr != "benchgate import: 1 of 1 imported submission(s) do not pass verification (see above)\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(out, "FAIL   submissions/model-benchmark/m-1-reservoir-mcq") || !strings.Contains(out, "(meta.text)") {
		t.Errorf("output lacks the failure:\n%s", out)
	}
}

// groundtruthScores is a Groundtruth scores file (main.py --score A.json
// B.json) for the example basin-analysis rubric, built from the example
// submissions: side A llama-3.3-70b's answers and grades, side B qwen3-32b's.
var groundtruthScores = filepath.Join("testdata", "import", "groundtruth-scores.json")

// TestImportGroundtruth imports both sides of a Groundtruth scores file:
// two rubric submissions, each verified, with the judge named in meta.json
// and on every row, and the grades copied unchanged; answer_b_clean, which
// Groundtruth cleans otherwise than benchgate, is left out.
func TestImportGroundtruth(t *testing.T) {
	root := copyBoard(t)
	code, out, stderr := runCLI(t, "import", "groundtruth", "--root", root, "--scores", groundtruthScores, "--benchmark", "basin-analysis", "--judge", "openai/gpt-5.5",
		"--model-a", "meta-llama/llama-3.3-70b-instruct", "--model-b", "qwen/qwen3-32b", "--date", "2025-11-20", "--submitter", "lab", "--contact", "https://example.org")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	golden.Check(t, "import-groundtruth.txt", []byte(strings.ReplaceAll(out, root, "ROOT")))

	for side, dir := range map[string]string{"a": "meta-llama-llama-3.3-70b-instruct-basin-analysis", "b": "qwen-qwen3-32b-basin-analysis"} {
		var src, got []map[string]any
		data, _ := os.ReadFile(groundtruthScores)
		json.Unmarshal(data, &src)
		data, err := os.ReadFile(filepath.Join(root, "submissions/model-benchmark", dir, "scores.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &got); err != nil || len(got) != len(src) {
			t.Fatalf("%s: %d rows (%v), want %d", dir, len(got), err, len(src))
		}
		for i, row := range got {
			for _, k := range []string{"", "_reason", "_gate_passed", "_adjudication_required", "_adjudication_note"} {
				if g, w := jsonText(row["score_b"+k]), jsonText(src[i]["score_"+side+k]); g != w {
					t.Errorf("%s %s: score_b%s is %s, the source's score_%s%s %s", dir, row["id"], k, g, side, k, w)
				}
			}
			if jsonText(row["score_b_components"]) != jsonText(src[i]["score_"+side+"_components"]) || row["answer_b"] != src[i]["answer_"+side] {
				t.Errorf("%s %s: components or answer changed", dir, row["id"])
			}
			if _, ok := row["answer_b_clean"]; ok || row["judge_model"] != "openai/gpt-5.5" {
				t.Errorf("%s %s: answer_b_clean present (%t) or judge_model %v", dir, row["id"], ok, row["judge_model"])
			}
		}
	}
}

// runRecord writes a Groundtruth run record of the given lines and
// returns its path.
func runRecord(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "scores.runs.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestImportGroundtruthErrors runs the importer on edited Groundtruth
// files: bad input fails naming the file, the row's line and the field;
// grades that break the rubric's arithmetic are written but fail
// verification, and the import exits 1.
func TestImportGroundtruthErrors(t *testing.T) {
	root := copyBoard(t)
	orig, err := os.ReadFile(groundtruthScores)
	if err != nil {
		t.Fatal(err)
	}
	edited := func(old, new string) string {
		if !strings.Contains(string(orig), old) {
			t.Fatalf("the file lacks %q", old)
		}
		p := filepath.Join(t.TempDir(), "scores.json")
		if err := os.WriteFile(p, []byte(strings.Replace(string(orig), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := []string{"import", "groundtruth", "--root", root, "--benchmark", "basin-analysis", "--judge", "openai/gpt-5.5", "--model-b", "qwen/qwen3-32b", "--date", "2025-11-20"}
	tests := []struct {
		name string
		file string
		args []string
		code int
		want string // after "benchgate import: ", FILE standing for the file's path
	}{
		{"other judge", edited(`"id": "Q1",`, `"id": "Q1",`), []string{"--judge", "openai/gpt-4o"}, exitUsage,
			`the scores were graded by "openai/gpt-4o", but benchmark "basin-analysis" is graded only by "openai/gpt-5.5": scores from another judge cannot be a submission to it`},
		{"judge against the run record", groundtruthScores, []string{"--judge", "openai/gpt-4o"}, exitUsage,
			`--judge is "openai/gpt-4o", but the run record testdata/import/groundtruth-scores.runs.jsonl says "openai/gpt-5.5" graded the file`},
		{"recorded judge is another", edited(`"id": "Q1",`, `"id": "Q1",`), []string{"--judge", "", "--runs", runRecord(t, `{"task": "score", "judge_model": "openai/gpt-4o"}`)}, exitUsage,
			`the scores were graded by "openai/gpt-4o", but benchmark "basin-analysis" is graded only by "openai/gpt-5.5"`},
		{"unknown question", edited(`"id": "Q2"`, `"id": "Q9"`), nil, exitUsage,
			`FILE:81: id: question "Q9" is not in benchmark "basin-analysis" (rubrics/basin-analysis.json); the scores were made for another rubric`},
		{"run record not there", groundtruthScores, []string{"--runs", "testdata/import/none.runs.jsonl"}, exitUsage,
			`open testdata/import/none.runs.jsonl: no such file or directory`},
		{"question twice", edited(`"id": "Q2"`, `"id": "Q1"`), nil, exitUsage,
			`FILE:81: id: question "Q1" appears again (first on line 2); each question must have one row`},
		{"other question text", edited(`"question": "A marine Type II`, `"question": "A lacustrine Type I`), nil, exitUsage,
			`FILE:2: question: question Q1: the text is not benchmark "basin-analysis"'s; the answers were made for another version of the rubric`},
		{"answers file", edited(`"score_b": 8,`, ``), nil, exitUsage,
			`FILE:2: score_b: question Q1: missing; this is not a Groundtruth scores file (main.py --score writes score_a and score_b), or side b was not graded`},
		{"wrong type", edited(`"score_a_gate_passed": true,`, `"score_a_gate_passed": "yes",`), []string{"--model-a", "m"}, exitUsage,
			`FILE:2: score_a_gate_passed: question Q1: holds string, want boolean or null`},
		{"mcq benchmark", groundtruthScores, []string{"--benchmark", "reservoir-mcq"}, exitUsage,
			`benchmark "reservoir-mcq" is a mcq benchmark; Groundtruth's scores grade a rubric benchmark`},
		{"not json", edited(`"id": "Q1",`, `"id": "Q1",,`), nil, exitUsage,
			`FILE:3: invalid JSON at column 16: expected a quoted member name, found ','; the file is not valid JSON`},
		{"no judge", edited(`"id": "Q1",`, `"id": "Q1",`), []string{"--judge", ""}, exitUsage,
			"the judge that graded FILE is named in its run record RUNS, which is not there: pass --runs with the record's path (main.py writes <output>.runs.jsonl beside its output), or --judge with the judge's id"},
		{"missing flags", groundtruthScores, []string{"--scores", ""}, exitUsage, "missing --scores"},
		{"arithmetic", edited(`"score_b": 8,`, `"score_b": 9,`), nil, exitFail,
			"1 of 1 imported submission(s) do not pass verification (see above)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append(append(append([]string{}, base...), "--scores", tt.file), tt.args...)...)
			want := "benchgate import: " + strings.NewReplacer("FILE", tt.file, "RUNS", strings.TrimSuffix(tt.file, ".json")+".runs.jsonl").Replace(tt.want)
			if code != tt.code || !strings.HasPrefix(stderr, want) {
				t.Errorf("exit %d, want %d\nstderr: %s\nwant:   %s\nstdout: %s", code, tt.code, stderr, want, out)
			}
			if tt.code == exitFail && !strings.Contains(out, "(arith.sum)") {
				t.Errorf("the output does not name the arithmetic error:\n%s", out)
			}
		})
	}
}

// TestImportGroundtruthRunRecords imports a Groundtruth scores file with
// neither --judge nor the models: the judge comes from the scores' run
// record (main.py's <output>.runs.jsonl, two runs there: a first one and
// its resume) and each side's model from its answers file's record of the
// generation, found beside the scores file as main.py's output/ holds
// them.
func TestImportGroundtruthRunRecords(t *testing.T) {
	root := copyBoard(t)
	code, out, stderr := runCLI(t, "import", "groundtruth", "--root", root, "--scores", groundtruthScores, "--benchmark", "basin-analysis",
		"--date", "2025-11-20", "--submitter", "lab", "--contact", "https://example.org")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for dir, model := range map[string]string{
		"meta-llama-llama-3.3-70b-instruct-basin-analysis": "meta-llama/llama-3.3-70b-instruct",
		"qwen-qwen3-32b-basin-analysis":                    "qwen/qwen3-32b",
	} {
		data, err := os.ReadFile(filepath.Join(root, "submissions/model-benchmark", dir, "meta.json"))
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		if err := json.Unmarshal(data, &meta); err != nil {
			t.Fatal(err)
		}
		if meta["candidate_model_id"] != model || meta["judge_model"] != "openai/gpt-5.5" {
			t.Errorf("%s: candidate_model_id %v, judge_model %v; want %s graded by openai/gpt-5.5", dir, meta["candidate_model_id"], meta["judge_model"], model)
		}
	}
}

// TestImportGroundtruthRunRecordErrors: a run record that cannot say who
// graded or who answered stops the import, naming the record, its line and
// field, and the flag that would say it instead.
func TestImportGroundtruthRunRecordErrors(t *testing.T) {
	scores, err := os.ReadFile(groundtruthScores)
	if err != nil {
		t.Fatal(err)
	}
	judged := `{"run_id": "r1", "task": "score", "judge_model": "openai/gpt-5.5"}`
	llama := `{"run_id": "g1", "task": "generate", "candidate_model": "openrouter/meta-llama/llama-3.3-70b-instruct", "judge_model": null}`
	qwen := `{"run_id": "g2", "task": "generate", "candidate_model": "openrouter/qwen/qwen3-32b"}`
	tests := []struct {
		name  string
		files map[string]string // beside the scores file: its record and the answers' records
		want  string            // after "benchgate import: ", DIR standing for their folder
	}{
		{"mixed judges", map[string]string{"scores.runs.jsonl": judged + "\n" + `{"run_id": "r2", "task": "score", "judge_model": "anthropic/claude-opus-4.5"}`},
			`DIR/scores.runs.jsonl:2: judge_model: run r2 was graded by "anthropic/claude-opus-4.5", but the run on line 1 by "openai/gpt-5.5": the scores file mixes two judges' grades; score it again with one judge`},
		{"no judge named", map[string]string{"scores.runs.jsonl": `{"task": "score", "judge_model": null}`},
			`DIR/scores.runs.jsonl: judge_model: no scoring run names its judge; pass --judge with the judge that graded the file`},
		{"not json", map[string]string{"scores.runs.jsonl": judged + "\n{\"task\": \"score\",,}"},
			`DIR/scores.runs.jsonl:2: invalid JSON at column 18: expected a quoted member name, found ','; each line of a run record is one JSON object`},
		{"unknown task", map[string]string{"scores.runs.jsonl": `{"task": "grade", "judge_model": "openai/gpt-5.5"}`},
			`DIR/scores.runs.jsonl:1: task: is "grade"; main.py records a run's task as score or generate`},
		{"wrong type", map[string]string{"scores.runs.jsonl": `{"task": "score", "judge_model": 5}`},
			`DIR/scores.runs.jsonl:1: judge_model: holds number, want a string or null`},
		{"no answers record", map[string]string{"scores.runs.jsonl": judged, "qwen3-32b.runs.jsonl": qwen},
			`side A was graded from output/llama-3.3-70b.json; its run record is neither output/llama-3.3-70b.runs.jsonl nor DIR/llama-3.3-70b.runs.jsonl. Pass --model-a ID to name its model`},
		{"pod alias", map[string]string{"scores.runs.jsonl": judged, "llama-3.3-70b.runs.jsonl": `{"task": "generate", "candidate_model": "vllm/benchmark"}`, "qwen3-32b.runs.jsonl": qwen},
			`DIR/llama-3.3-70b.runs.jsonl:1: candidate_model: is "vllm/benchmark", the name main.py's pod serves any model under, so it does not say which model answered; pass --model-a ID to name side A's model`},
		{"mixed models", map[string]string{"scores.runs.jsonl": judged, "llama-3.3-70b.runs.jsonl": llama, "qwen3-32b.runs.jsonl": qwen + "\n" + `{"run_id": "g3", "task": "generate", "candidate_model": "openrouter/qwen/qwen3-235b"}`},
			`DIR/qwen3-32b.runs.jsonl:2: candidate_model: run g3 was answered by "openrouter/qwen/qwen3-235b", but the run on line 1 by "openrouter/qwen/qwen3-32b": the answers file mixes two models; pass --model-b ID to name side B's model`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, dir := copyBoard(t), t.TempDir()
			p := filepath.Join(dir, "scores.json")
			if err := os.WriteFile(p, scores, 0o644); err != nil {
				t.Fatal(err)
			}
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out, stderr := runCLI(t, "import", "groundtruth", "--root", root, "--scores", p, "--benchmark", "basin-analysis", "--date", "2025-11-20")
			want := "benchgate import: " + strings.ReplaceAll(tt.want, "DIR", dir) + "\n"
			if code != exitUsage || stderr != want {
				t.Errorf("exit %d, want %d\nstderr: %s\nwant:   %s\nstdout: %s", code, exitUsage, stderr, want, out)
			}
		})
	}
}

// TestImportPlaceholdersFailVerify: what the source does not say is
// written as a FILL IN placeholder, which verify refuses, naming each
// with its file and line, until a person fills it in; the import itself
// succeeds and says so.
func TestImportPlaceholdersFailVerify(t *testing.T) {
	root := copyBoard(t)
	p := smallCSV(t, root, func(r [][]string) [][]string { return r })
	code, out, stderr := runCLI(t, "import", "formationeval", "--root", root, "--csv", p, "--benchmark", "reservoir-mcq", "--date", "2025-12-01")
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	if want := "1 of 1 imported submission(s) fail only on the placeholders (FILL IN: ...)"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	dir := filepath.Join(root, "submissions/model-benchmark/m1-reservoir-mcq")
	code, vout, _ := runCLI(t, "verify", "--root", root, dir)
	for _, want := range []string{
		`m1-reservoir-mcq/meta.json:4: submitter is still a placeholder "FILL IN: the GitHub login of the pull request's author": write the GitHub login of the pull request's author (whoever opens the pull request) (meta.placeholder)`,
		`m1-reservoir-mcq/meta.json:5: contact_or_repo is still a placeholder "FILL IN: a repository URL or a contact address": replace it with what it asks for (meta.placeholder)`,
	} {
		if code != exitFail || !strings.Contains(vout, want) {
			t.Errorf("verify: exit %d, output lacks %q:\n%s", code, want, vout)
		}
	}
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	filled := strings.NewReplacer(importer.SubmitterPlaceholder, "lab", importer.ContactPlaceholder, "https://example.org/lab").Replace(string(meta))
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, vout, _ := runCLI(t, "verify", "--root", root, dir); code != exitOK {
		t.Errorf("verify after filling in: exit %d\n%s", code, vout)
	}
}

// TestImportFormationEvalPlaceholders imports FormationEval's published
// results as a maintainer would, without --submitter or --contact: every
// submission is written with FILL IN placeholders, and verify refuses
// each placeholder of each, with its file and line, until it is filled in.
func TestImportFormationEvalPlaceholders(t *testing.T) {
	root, csvPath := formationEvalBoard(t, "formationeval-v0.1")
	code, out, stderr := runCLI(t, "import", "formationeval", "--root", root, "--csv", csvPath, "--benchmark", "formationeval", "--date", "2025-12-01")
	if code != exitOK || !strings.Contains(out, "3 of 3 imported submission(s) fail only on the placeholders") {
		t.Fatalf("import: exit %d\n%s%s", code, out, stderr)
	}
	code, vout, _ := runCLI(t, "verify", "--root", root, filepath.Join(root, "submissions/model-benchmark"))
	if code != exitFail || !strings.Contains(vout, "7 submission(s): 4 passed, 3 failed") {
		t.Errorf("verify: exit %d\n%s", code, vout)
	}
	for m := range fixtures.FormationEvalModels {
		for _, want := range []string{
			"submissions/model-benchmark/" + m + "-formationeval/meta.json:4: submitter is still a placeholder",
			"submissions/model-benchmark/" + m + "-formationeval/meta.json:5: contact_or_repo is still a placeholder \"FILL IN: a repository URL or a contact address\"",
		} {
			if !strings.Contains(vout, want) {
				t.Errorf("verify output lacks %q", want)
			}
		}
	}
}
