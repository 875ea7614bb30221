package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSubmitWrongKind: submit given a scores file of another kind than the
// benchmark wants says so in one line, before writing anything and before
// any schema error: unscored answers are sent to benchgate score first.
func TestSubmitWrongKind(t *testing.T) {
	root := copyBoard(t)
	basin := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/scores.json")
	reservoir := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json")
	data, err := os.ReadFile(basin)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for k := range r {
			if strings.HasPrefix(k, "score_b") || k == "judge_model" || k == "rubric_sha256" || k == "judge_prompt_sha256" || k == "scored_at" {
				delete(r, k)
			}
		}
	}
	answers := filepath.Join(t.TempDir(), "answers.json")
	if data, err = json.MarshalIndent(rows, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(answers, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, benchmark, scores, want string
	}{
		{"unscored answers", "basin-analysis", answers,
			"benchgate submit: " + answers + " holds a rubric benchmark's answers not graded yet (answer_b without score_b); run `benchgate score " + answers + " --benchmark basin-analysis` first and submit the scores it writes\n"},
		{"rubric scores for a multiple-choice benchmark", "reservoir-mcq", basin,
			"benchgate submit: " + basin + ` holds a rubric benchmark's scores (answer_b graded in score_b), but benchmark "reservoir-mcq" is multiple choice: it wants multiple-choice scores (id, response, answer, correct) per question, as benchgate generate writes them` + "\n"},
		{"multiple-choice scores for a rubric benchmark", "basin-analysis", reservoir,
			"benchgate submit: " + reservoir + ` holds multiple-choice scores (id, response, answer, correct), but benchmark "basin-analysis" is a rubric benchmark: it wants its answers graded by its judge (answer_b and score_b per question), from benchgate generate then benchgate score` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "submit", "--root", root, "--benchmark", tt.benchmark, "--slug", "wrong-kind", "--scores", tt.scores,
				"--model-name", "M", "--model", "org/m", "--submitter", "lab", "--contact", "https://example.org")
			if code != exitUsage || stdout != "" || stderr != tt.want {
				t.Errorf("exit %d, want %d; stdout %q\nstderr %q\nwant   %q", code, exitUsage, stdout, stderr, tt.want)
			}
			if _, err := os.Stat(filepath.Join(root, "submissions/model-benchmark/wrong-kind")); !os.IsNotExist(err) {
				t.Errorf("the folder was written: %v", err)
			}
		})
	}
}
