package schemas

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// reference compiles the embedded schemas with a complete draft 2020-12
// validator, the oracle that benchgate's own validator must agree with.
func reference(t testing.TB) map[Name]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	out := map[Name]*jsonschema.Schema{}
	for _, n := range All {
		src, _ := Source(n)
		if err := c.AddResource(url(n), bytes.NewReader(src)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range All {
		s, err := c.Compile(url(n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = s
	}
	return out
}

func agree(t *testing.T, ref map[Name]*jsonschema.Schema, label string, data []byte) {
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil {
		return
	}
	compileOnce.Do(compile)
	if compileErr != nil {
		t.Fatal(compileErr)
	}
	for _, n := range All {
		mine := valid(compiled[n], doc.Root)
		theirs := ref[n].Validate(doc.Root.Value()) == nil
		if mine != theirs {
			t.Errorf("%s against %s: benchgate says valid=%v, the reference validator says valid=%v", label, n, mine, theirs)
		}
	}
}

// TestAgreesOnRealFiles checks every JSON file of the example leaderboard,
// the test data and the shared fixtures against every schema.
func TestAgreesOnRealFiles(t *testing.T) {
	ref := reference(t)
	root := fixtures.Root(t)
	dirs := []string{filepath.Join(root, "rubrics"), filepath.Join(root, "submissions"), filepath.Join(root, "..", "shared", "fixtures")}
	n := 0
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			switch {
			case strings.HasSuffix(p, ".json"):
				agree(t, ref, p, data)
				n++
			case strings.HasSuffix(p, ".jsonl"):
				for i, line := range bytes.Split(data, []byte("\n")) {
					agree(t, ref, fmt.Sprintf("%s:%d", p, i+1), line)
				}
				n++
			}
			return nil
		})
	}
	if n < 10 {
		t.Errorf("only %d files checked", n)
	}
}

// FuzzAgreesWithReference: for any JSON document, benchgate's validator
// and the reference validator agree on validity under every schema.
func FuzzAgreesWithReference(f *testing.F) {
	for _, s := range []string{
		`{"model_name":"m","candidate_model_id":"x","submitter":"s","contact_or_repo":"c","rubric_key":"k","date":"2026-01-02","max_tokens":1.0}`,
		`[{"id":"q","response":"","answer":null,"correct":false,"latency_ms":0,"prompt_tokens":-0}]`,
		`[{"id":"Q1","question":"q","answer_b":null,"score_b":7.5,"score_b_components":[{"id":"C1","awarded":1,"maximum":2}]}]`,
		`{"schema_version":"2.0","scoring_model":{"total_points":10},"questions":[{"id":"Q","question":"q","gate":{"component_id":"C","pass_condition":""},"components":[{"id":"C","points":10,"credit_if":"x"}],"accepted_variants":["a",{"canonical":"b","accepted_variants":["c"]}]}]}`,
		`{"id":"q","question":"?","choices":["a","b","c","d"],"answer_index":3,"answer_key":"D","sources":[{"source_id":1}]}`,
		`[{"key":"a","file":"f","kind":"mcq","extraction":"flexible"}]`,
		`{"method":{"confidence":0.95,"bootstrap_resamples":10000,"bootstrap_seed":1,"family_alpha":0.05},"benchmarks":[]}`,
		`{"format":"benchgate calibration record 1","benchmark":"k","rubric_sha256":"` + strings.Repeat("0", 64) + `","judge_model":"j","judge":{"temperature":0,"seed":-1},"recorded":"2026-12-02","runs":2,"grades":[{"question_id":"Q1","fixture_id":"F","run":2,"gate_passed":true,"total":7.0}],"unscored":[{"question_id":"Q1","fixture_id":"F","run":1,"reason":"r"}]}`,
	} {
		f.Add([]byte(s))
	}
	ref := reference(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		agree(t, ref, "fuzz input", data)
	})
}
