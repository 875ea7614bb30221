package importer

import (
	"bytes"
	"strings"

	"github.com/benchgate/benchgate/jsondoc"
)

// Groundtruth's main.py appends one JSON line per run to
// <output>.runs.jsonl beside its output file (a resumed run adds a line):
// run_id, finished_at, task ("score" or "generate"), rubric, rubric_file,
// output_file, candidate_model (opencode's provider/model, or the pod's
// alias), judge_model (null when the run made no judge call),
// service_tier, and its costs. A scoring run's judge_model names the
// judge; a generation run's candidate_model names the model that answered.
// A scoring run's candidate_model is only main.py's --model default, which
// scoring does not use, so it names nobody.

// GroundtruthRunRecord is one line of a Groundtruth run record.
type GroundtruthRunRecord struct {
	Line           int
	RunID          string
	Task           string
	Rubric         string
	OutputFile     string
	CandidateModel string
	JudgeModel     string
}

// podAlias is the name main.py's RunPod pod serves its model under
// (vllm/benchmark): it says that a pod answered, not which model.
const podAlias = "vllm/benchmark"

// ReadGroundtruthRuns reads a run record (data, named file in messages):
// one JSON object per non-empty line, each with a task of score or
// generate and its string fields strings or null.
func ReadGroundtruthRuns(file string, data []byte) ([]GroundtruthRunRecord, error) {
	var out []GroundtruthRunRecord
	for i, line := range bytes.Split(data, []byte("\n")) {
		n := i + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		doc, err := jsondoc.Parse(line, jsondoc.Limits{})
		if err != nil {
			if se, ok := err.(*jsondoc.SyntaxError); ok {
				return nil, inputErrorf(file, n, "", "%s; each line of a run record is one JSON object", se.Detail())
			}
			return nil, inputErrorf(file, n, "", "%v", err)
		}
		if doc.Root.Kind != jsondoc.Object {
			return nil, inputErrorf(file, n, "", "holds %s, not the object main.py writes for each run", doc.Root.Kind)
		}
		rec := GroundtruthRunRecord{Line: n}
		for _, f := range []struct {
			key string
			dst *string
		}{
			{"run_id", &rec.RunID}, {"task", &rec.Task}, {"rubric", &rec.Rubric}, {"output_file", &rec.OutputFile},
			{"candidate_model", &rec.CandidateModel}, {"judge_model", &rec.JudgeModel},
		} {
			v := doc.Root.Get(f.key)
			switch {
			case v == nil || v.Kind == jsondoc.Null:
			case v.Kind == jsondoc.String:
				*f.dst = v.Str
			default:
				return nil, inputErrorf(file, n, f.key, "holds %s, want a string or null", v.Kind)
			}
		}
		if rec.Task != "score" && rec.Task != "generate" {
			return nil, inputErrorf(file, n, "task", "is %q; main.py records a run's task as score or generate", rec.Task)
		}
		out = append(out, rec)
	}
	if len(out) == 0 {
		return nil, inputErrorf(file, 0, "", "holds no run; main.py writes a line for each run that called a model")
	}
	return out, nil
}

// GroundtruthJudge returns the judge that graded a scores file, from its
// run record: every scoring run that called a judge must name the same
// one, since grades from two judges cannot be compared (the harness
// records judge_model so that a mixed-judge file is caught).
func GroundtruthJudge(file string, recs []GroundtruthRunRecord) (string, error) {
	judge, _, err := agreed(file, recs, "score", "judge_model", "graded", "the scores file mixes two judges' grades; score it again with one judge",
		func(r GroundtruthRunRecord) string { return r.JudgeModel })
	if err == nil && judge == "" {
		err = inputErrorf(file, 0, "judge_model", "no scoring run names its judge; pass --judge with the judge that graded the file")
	}
	return judge, err
}

// GroundtruthCandidate returns the model that wrote an answers file, from
// the run record of the generation: every generation run must name the
// same model, and a pod's alias names none. opencode addresses an
// OpenRouter model as openrouter/<id>; the id is the model's.
func GroundtruthCandidate(file string, recs []GroundtruthRunRecord) (string, error) {
	model, line, err := agreed(file, recs, "generate", "candidate_model", "answered", "the answers file mixes two models",
		func(r GroundtruthRunRecord) string { return r.CandidateModel })
	switch {
	case err != nil:
		return "", err
	case model == "":
		return "", inputErrorf(file, 0, "candidate_model", "no generation run names its model")
	case model == podAlias:
		return "", inputErrorf(file, line, "candidate_model", "is %q, the name main.py's pod serves any model under, so it does not say which model answered", podAlias)
	}
	return strings.TrimPrefix(model, "openrouter/"), nil
}

// agreed returns the value of field that every run of task names (those
// naming none aside) and the line of the first, or an error at the first
// run that names another; "" when none names one.
func agreed(file string, recs []GroundtruthRunRecord, task, field, verb, why string, get func(GroundtruthRunRecord) string) (string, int, error) {
	value, first := "", 0
	for _, r := range recs {
		v := get(r)
		switch {
		case r.Task != task || v == "":
		case value == "":
			value, first = v, r.Line
		case v != value:
			return "", 0, inputErrorf(file, r.Line, field, "run %s was %s by %q, but the run on line %d by %q: %s", orID(r.RunID), verb, v, first, value, why)
		}
	}
	return value, first, nil
}

func orID(id string) string {
	if id == "" {
		return "(no run_id)"
	}
	return id
}

// GroundtruthSources returns the answers file each side of a scores file
// was graded from (source_answer_a and source_answer_b, as main.py
// recorded them), "" for a side that names none; every row must agree.
func GroundtruthSources(file string, data []byte) (a, b string, err error) {
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil || doc.Root.Kind != jsondoc.Array {
		// Groundtruth reports the file's own errors, with their lines.
		return "", "", nil
	}
	src := map[string]*string{"a": &a, "b": &b}
	first := map[string]int{}
	for _, n := range doc.Root.Elems {
		if n.Kind != jsondoc.Object {
			continue
		}
		line := doc.Line(n.Off)
		for _, x := range []string{"a", "b"} {
			key := "source_answer_" + x
			v := n.Get(key)
			if v == nil || v.Kind != jsondoc.String || v.Str == "" {
				continue
			}
			switch {
			case *src[x] == "":
				*src[x], first[x] = v.Str, line
			case v.Str != *src[x]:
				return "", "", inputErrorf(file, line, key, "is %q, but the row on line %d has %q: side %s was graded from two answers files", v.Str, first[x], *src[x], strings.ToUpper(x))
			}
		}
	}
	return a, b, nil
}

// RunRecordPath is where main.py writes the run record of its output file
// p: beside it, <stem>.runs.jsonl.
func RunRecordPath(p string) string {
	dir, base := "", p
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		dir, base = p[:i+1], p[i+1:]
	}
	if j := strings.LastIndex(base, "."); j > 0 {
		base = base[:j]
	}
	return dir + base + ".runs.jsonl"
}
