package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDocExamplesImport imports the example files of docs/examples as
// README.md shows them: a Groundtruth scores file with its run records into
// the example board, and an inspect_ai log into a board made by init with
// the example's three-question benchmark. Each must import and pass.
func TestDocExamplesImport(t *testing.T) {
	fixBuild(t, "(devel)", "0123456789abcdef0123456789abcdef01234567")
	examples := filepath.Join(repoRoot, "docs/examples")
	t.Run("groundtruth", func(t *testing.T) {
		root := copyBoard(t)
		code, out, stderr := runCLI(t, "import", "groundtruth", "--root", root, "--benchmark", "basin-analysis",
			"--scores", filepath.Join(examples, "groundtruth/output/scores.json"),
			"--submitter", "octocat", "--contact", "https://github.com/octocat/evals", "--date", "2025-11-20")
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		for _, want := range []string{
			"meta-llama/llama-3.3-70b-instruct  5     5       5.00  pass    submissions/model-benchmark/meta-llama-llama-3.3-70b-instruct-basin-analysis",
			"qwen/qwen3-32b                     5     5       6.00  pass    submissions/model-benchmark/qwen-qwen3-32b-basin-analysis",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the import does not end with %q:\n%s", want, out)
			}
		}
	})
	t.Run("inspect", func(t *testing.T) {
		board := filepath.Join(t.TempDir(), "board")
		if code, out, stderr := runCLI(t, "init", board, "--benchmark", filepath.Join(examples, "inspect/three-mcq.jsonl"), "--key", "three-mcq",
			"--extraction", "answer-line", "--maintainers", "@octo-org/maintainers"); code != exitOK {
			t.Fatalf("init: exit %d\n%s%s", code, out, stderr)
		}
		code, out, stderr := runCLI(t, "import", "inspect", "--root", board, "--benchmark", "three-mcq",
			"--log", filepath.Join(examples, "inspect/logs/2025-06-02T10-04-11_three-mcq.json"),
			"--submitter", "octocat", "--contact", "https://github.com/octocat/evals")
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		if want := "openai/gpt-4o-mini  3     2        1          1         0          0            pass    submissions/model-benchmark/openai-gpt-4o-mini-three-mcq"; !strings.Contains(out, want) {
			t.Errorf("the import does not end with %q:\n%s", want, out)
		}
		if code, out, stderr := runCLI(t, "verify", "--root", board); code != exitOK {
			t.Errorf("the imported board does not verify: exit %d\n%s%s", code, out, stderr)
		}
	})
}
