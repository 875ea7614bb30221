package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSubmit(t *testing.T) {
	root := copyBoard(t)
	scores := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/scores.json")
	base := []string{"submit", "--root", root, "--rubric", "basin-analysis", "--scores", scores, "--model-name", "Qwen3 32B (rerun)", "--model-id", "qwen/qwen3-32b", "--submitter", "lab", "--contact", "https://example.org"}
	code, out, stderr := runCLI(t, append(base, "--slug", "qwen3-rerun", "--price-input", "0.1", "--open-weights", "true", "--date", "2026-11-01")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for _, want := range []string{"PASS   submissions/model-benchmark/qwen3-rerun", "git checkout -b submit/qwen3-rerun", "git add submissions/model-benchmark/qwen3-rerun", `git commit -m "Add Qwen3 32B (rerun) on basin-analysis"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var meta map[string]any
	data, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-rerun/meta.json"))
	json.Unmarshal(data, &meta)
	if meta["judge_model"] != "openai/gpt-5.5" || meta["price_input_per_mtok"] != 0.1 || meta["open_weights"] != true || meta["date"] != "2026-11-01" || meta["price_output_per_mtok"] != nil {
		t.Errorf("meta.json: %s", data)
	}
	orig, _ := os.ReadFile(scores)
	copied, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-rerun/scores.json"))
	if string(orig) != string(copied) {
		t.Error("scores.json was not copied unchanged")
	}

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"existing folder", append(base, "--slug", "qwen3-rerun"), exitUsage, "already exists"},
		{"bad slug", append(base, "--slug", "Qwen 3"), exitUsage, `slug "Qwen 3" is not valid: use 1 to 64 characters`},
		{"missing flags", []string{"submit", "--root", root, "--slug", "x"}, exitUsage, "missing [--rubric --scores --model-name --model-id --submitter --contact]"},
		{"unknown benchmark", append(append([]string{}, base...), "--slug", "y", "--rubric", "nope"), exitUsage, `no benchmark "nope"`},
		{"bad track", append(base, "--slug", "z", "--track", "agents"), exitUsage, `--track: unknown track "agents": want model or harness`},
		{"harness track needs the pinned model", append(base, "--slug", "w", "--track", "harness", "--harness-name", "h", "--harness-repo", "https://example.org/h"), exitFail, "pins no reference model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out+stderr, tt.want) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s%s", code, tt.code, tt.want, out, stderr)
			}
		})
	}
}
