package importer

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/extract"
)

// FormationEval's per-question results CSV (upstream eval/results/questions.csv)
// has the base columns question_id, question_text, choice_a..choice_d,
// correct_answer, difficulty, domains, topics and calc_required, then four
// columns per model M: M_answer (the letter upstream extracted, empty when
// none), M_correct (True or False), M_pattern (the rule that fired, "failed"
// when none) and M_raw (the response).
var formationEvalModelColumns = []string{"_answer", "_correct", "_pattern", "_raw"}

// Upstream stored a response longer than 500 characters as its first 497
// and "...". A response of exactly that shape is taken as cut: whether it
// was is not recorded, and taking it so only matters where the stored text
// cannot decide the letter, when the published letter is kept.
const (
	formationEvalStoredRunes = 500
	formationEvalCutMark     = "..."
)

// FormationEval reads FormationEval's per-question results CSV, named file
// in messages, and returns one run per model (those of opts.Models, or
// all, in column order) on benchmark b, whose extraction policy re-reads
// every letter. The CSV must hold every question of b exactly once, with
// b's answer key in correct_answer when it has that column.
func FormationEval(file string, r io.Reader, b *benchmark.Benchmark, opts Options) ([]*Run, error) {
	policy, err := policyFor(b)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, inputErrorf(file, 0, "", "the file is empty; want FormationEval's per-question results CSV with a header row")
	}
	if err != nil {
		return nil, csvError(file, err)
	}
	// A CSV saved by a spreadsheet may start with a byte order mark.
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	col := map[string]int{}
	for i, name := range header {
		if j, dup := col[name]; dup {
			return nil, inputErrorf(file, 1, "column "+name, "the header names it twice (columns %d and %d)", j+1, i+1)
		}
		col[name] = i
	}
	idCol, ok := col["question_id"]
	if !ok {
		return nil, inputErrorf(file, 1, "column question_id", "missing from the header; this is not FormationEval's per-question results CSV (question_id, ..., then <model>_answer, <model>_correct, <model>_pattern, <model>_raw per model)")
	}
	keyCol, hasKey := col["correct_answer"]
	var found []string
	for _, name := range header {
		model, ok := strings.CutSuffix(name, "_answer")
		if !ok || model == "" || name == "correct_answer" {
			continue
		}
		for _, suffix := range formationEvalModelColumns {
			if _, ok := col[model+suffix]; !ok {
				return nil, inputErrorf(file, 1, "column "+model+suffix, "missing from the header: model %q has %s but each model needs %s", model, name, strings.Join(modelColumns(model), ", "))
			}
		}
		found = append(found, model)
	}
	if len(found) == 0 {
		return nil, inputErrorf(file, 1, "", "no model columns in the header; each model needs %s", strings.Join(modelColumns("<model>"), ", "))
	}
	models, err := selectModels(file, found, opts)
	if err != nil {
		return nil, err
	}

	rows := make([][]published, len(models)) // per model, by question index
	for m := range rows {
		rows[m] = make([]published, b.Questions())
	}
	seen := map[string]int{} // question id -> line
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		fieldLine := func(name string) int { l, _ := cr.FieldPos(col[name]); return l }
		id := rec[idCol]
		qi, err := placeQuestion(file, line, "column question_id", b, seen, id, "the results were made for another benchmark or version")
		if err != nil {
			return nil, err
		}
		it := &b.Items[qi]
		if hasKey && rec[keyCol] != it.Key() {
			return nil, inputErrorf(file, fieldLine("correct_answer"), "column correct_answer", "question %s: the CSV's key is %q but benchmark %q's is %s; the results were made for another version of the benchmark", id, rec[keyCol], b.Entry.Key, it.Key())
		}
		for m, model := range models {
			p := published{id: id, line: line, response: rec[col[model+"_raw"]]}
			p.letter = rec[col[model+"_answer"]]
			if !checkLetter(p.letter) {
				return nil, inputErrorf(file, fieldLine(model+"_answer"), "column "+model+"_answer", "question %s: %q is not a letter; want A, B, C, D, or empty when no letter was extracted", id, p.letter)
			}
			switch v := rec[col[model+"_correct"]]; v {
			case "True", "False":
				c := v == "True"
				p.correct = &c
			default:
				return nil, inputErrorf(file, fieldLine(model+"_correct"), "column "+model+"_correct", "question %s: %q is not True or False", id, v)
			}
			if pat := rec[col[model+"_pattern"]]; pat != "failed" {
				p.pattern = pat
			}
			p.truncated = utf8.RuneCountInString(p.response) == formationEvalStoredRunes && strings.HasSuffix(p.response, formationEvalCutMark)
			rows[m][qi] = p
		}
	}
	if err := missingQuestions(file, b, seen); err != nil {
		return nil, err
	}
	source := fmt.Sprintf("FormationEval's published per-question results (%s)", filepath.Base(file))
	runs := make([]*Run, len(models))
	for m, model := range models {
		run := newRun(model, false, b.Entry.Key, importNotes(source, policy), opts)
		run.PublishedCorrect = 0
		for qi := range rows[m] {
			run.add(file, &b.Items[qi], policy, rows[m][qi])
		}
		runs[m] = run
	}
	return runs, nil
}

func modelColumns(model string) []string {
	out := make([]string, len(formationEvalModelColumns))
	for i, s := range formationEvalModelColumns {
		out[i] = model + s
	}
	return out
}

// csvError names the line of a CSV syntax error for people.
func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return inputErrorf(file, pe.Line, fmt.Sprintf("column %d", pe.Column), "%v; the file is not valid CSV", pe.Err)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// FormationEvalPolicyHint says, when letters were disputed under another
// policy, that FormationEval published its letters by its own rule, which
// benchgate has as the formationeval policy: a board that takes the
// published counts as they are registers the benchmark with it.
func FormationEvalPolicyHint(b *benchmark.Benchmark, runs []*Run) string {
	if PolicyName(b) == extract.FormationEval {
		return ""
	}
	disputes := 0
	for _, r := range runs {
		disputes += len(r.Disputes)
	}
	if disputes == 0 {
		return ""
	}
	return fmt.Sprintf("\nFormationEval chose its published letters by its own rule, which benchgate has as the %s policy; %s reads %d of them otherwise. To keep the published counts, set \"extraction\": %q in %q's registry entry (benchgate init --extraction %[1]s) and import again.", extract.FormationEval, PolicyName(b), disputes, extract.FormationEval, b.Entry.Key)
}

// PolicyName is the name of b's letter-extraction policy, its default
// when the registry names none.
func PolicyName(b *benchmark.Benchmark) string {
	p, err := extract.Lookup(b.Entry.Extraction)
	if err != nil {
		return b.Entry.Extraction
	}
	return p.Name()
}
