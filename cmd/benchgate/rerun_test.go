package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRerunCommand(t *testing.T) {
	root := copyBoard(t)
	srv := fakeEndpoint(t, root)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	t.Setenv("BENCHGATE_RERUN_SECRET", "s3cret")

	// A rubric submission: five questions are too few for the sequential
	// test to decide, so a maintainer must; the report says which answers
	// were re-graded, with the seed.
	code, out, stderr := runCLI(t, "rerun", root+"/submissions/model-benchmark/qwen3-32b-basin", "--root", root, "--format", "json",
		"--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "")
	if code != exitInconclusive {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"verdict", "seed", "calls", "spend_usd", "questions"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	if rep["verdict"] != "inconclusive" || rep["seed_keyed"] != true || len(rep["questions"].([]any)) != 5 || len(rep["seed"].(string)) != 64 {
		t.Errorf("report: %s", out)
	}

	// A multiple-choice submission re-asked of a candidate that gives other
	// letters on a third of the questions.
	code, out, stderr = runCLI(t, "rerun", root+"/submissions/model-benchmark/qwen3-32b-reservoir", "--root", root,
		"--candidate-base-url", srv.URL, "--candidate-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "", "--sample", "12", "--format", "markdown")
	if !strings.Contains(out, "## benchgate rerun:") || !strings.Contains(out, "| Question | Submitted | Re-asked | Note |") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	if code == exitUsage {
		t.Errorf("exit %d: %s", code, stderr)
	}

	// Without a candidate endpoint the letters are re-read, not re-asked.
	code, out, _ = runCLI(t, "rerun", root+"/submissions/model-benchmark/llama-3.3-70b-reservoir", "--root", root, "--ledger", "")
	if code != exitOK || !strings.HasPrefix(out, "CONSISTENT") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if code, _, stderr := runCLI(t, "rerun", "--root", root); code != exitUsage || !strings.Contains(stderr, "Usage") {
		t.Errorf("no path: exit %d %s", code, stderr)
	}
}
