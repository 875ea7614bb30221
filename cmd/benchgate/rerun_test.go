package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRerunCommand(t *testing.T) {
	root := copyBoard(t)
	srv := calibratedEndpoint(t, root)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	t.Setenv("BENCHGATE_RERUN_SECRET", "s3cret")

	// A rubric submission: all five questions are re-graded, by a judge
	// that gives full marks (and grades the fixtures as expected), so the
	// reported scores are below the judge's and an inflation is ruled
	// out; the report says which answers were re-graded, with the seed.
	code, out, stderr := runCLI(t, "rerun", root+"/submissions/model-benchmark/qwen3-32b-basin", "--root", root, "--format", "json",
		"--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "")
	if code != exitOK {
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
	if rep["verdict"] != "consistent" || rep["seed_source"] != "secret" || len(rep["questions"].([]any)) != 5 || len(rep["seed"].(string)) != 16 {
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

// TestRerunSeed: without a secret the CLI draws the sample from a random
// seed, prints it with the command that replays it, and --seed replays
// the same sample; --secret-file keys it as BENCHGATE_RERUN_SECRET does.
func TestRerunSeed(t *testing.T) {
	root := copyBoard(t)
	srv := calibratedEndpoint(t, root)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	t.Setenv("BENCHGATE_RERUN_SECRET", "")
	check := func(extra ...string) map[string]any {
		t.Helper()
		args := append([]string{"rerun", root + "/submissions/model-benchmark/qwen3-32b-basin", "--root", root, "--format", "json",
			"--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", ""}, extra...)
		code, out, stderr := runCLI(t, args...)
		if code == exitUsage || code == exitSetup {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return rep
	}
	first, second := check(), check()
	if first["seed_source"] != "random" || second["seed_source"] != "random" || first["seed"] == second["seed"] {
		t.Errorf("without a secret: seeds %v (%v) and %v (%v)", first["seed"], first["seed_source"], second["seed"], second["seed_source"])
	}
	replay := check("--seed", first["seed"].(string))
	if replay["seed_source"] != "given" || replay["seed"] != first["seed"] || fmt.Sprint(replay["sample"]) != fmt.Sprint(first["sample"]) {
		t.Errorf("replayed: seed %v (%v), sample %v; first %v", replay["seed"], replay["seed_source"], replay["sample"], first["sample"])
	}
	// The text report says how to replay it.
	_, out, _ := runCLI(t, "rerun", root+"/submissions/model-benchmark/qwen3-32b-basin", "--root", root,
		"--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "")
	if !strings.Contains(out, "drawn at random") || !strings.Contains(out, "benchgate rerun --seed ") {
		t.Errorf("the text report does not say how to replay the check:\n%s", out)
	}
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BENCHGATE_RERUN_SECRET", "s3cret")
	fromEnv := check()
	t.Setenv("BENCHGATE_RERUN_SECRET", "")
	fromFile := check("--secret-file", file)
	if fromFile["seed_source"] != "secret" || fromFile["seed"] != fromEnv["seed"] {
		t.Errorf("--secret-file: seed %v (%v); from the environment %v", fromFile["seed"], fromFile["seed_source"], fromEnv["seed"])
	}
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--seed", "xyz"}, exitUsage, "is not 16 hex digits"},
		{[]string{"--secret-file", filepath.Join(t.TempDir(), "none")}, exitFail, "--secret-file"},
	} {
		args := append([]string{"rerun", root + "/submissions/model-benchmark/qwen3-32b-basin", "--root", root, "--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", ""}, tc.args...)
		if code, _, stderr := runCLI(t, args...); code == exitOK || !strings.Contains(stderr, tc.says) {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
		}
	}
}
