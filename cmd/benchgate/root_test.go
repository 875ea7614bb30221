package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindRoot: without --root, a command finds the leaderboard as git
// finds its repository, from the working directory upward, inside a
// submission folder too; outside one, and with a --root that is not one,
// it says where it looked and what to do, with exit code 4.
func TestFindRoot(t *testing.T) {
	board := copyBoard(t)
	outside := t.TempDir()
	file := filepath.Join(outside, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(board, "submissions/model-benchmark/qwen3-32b-basin")
	tests := []struct {
		name string
		wd   string
		args []string
		code int
		want string // in stdout+stderr
	}{
		{"at the root", board, []string{"verify"}, exitOK, "5 submission(s): 5 passed"},
		{"in a submission folder", sub, []string{"verify", "."}, exitOK, "PASS   submissions/model-benchmark/qwen3-32b-basin"},
		{"in a submission folder, every submission", sub, []string{"verify"}, exitOK, "5 submission(s): 5 passed"},
		{"in rubrics/", filepath.Join(board, "rubrics"), []string{"lint-benchmark", "basin-analysis"}, exitOK, "OK basin-analysis"},
		{"a file of the folder", sub, []string{"verify", "meta.json"}, exitOK, "1 submission(s): 1 passed"},
		{"leaderboard writes into the root found", sub, []string{"leaderboard", "--cache", "", "--format", "md"}, exitOK, "wrote " + filepath.Join("..", "..", "..", "leaderboard", "LEADERBOARD.md")},
		{"outside a leaderboard", outside, []string{"verify"}, exitSetup,
			"benchgate verify: no leaderboard here (no rubrics/rubrics.json in " + outside + " or above); run benchgate init, or pass --root\n"},
		{"submit outside a leaderboard", outside, []string{"submit", "--benchmark", "basin-analysis", "--slug", "x", "--scores", "s.json", "--model-name", "M", "--model", "m", "--submitter", "s", "--contact", "c"}, exitSetup,
			"benchgate submit: no leaderboard here (no rubrics/rubrics.json in " + outside + " or above)"},
		{"generate outside a leaderboard", outside, []string{"generate", "--benchmark", "basin-analysis", "--model", "m"}, exitSetup, "no leaderboard here"},
		{"--root that does not exist", board, []string{"verify", "--root", filepath.Join(outside, "nonexistent")}, exitSetup,
			"benchgate verify: no leaderboard at --root " + filepath.Join(outside, "nonexistent") + ": the folder does not exist; run benchgate init, or pass --root\n"},
		{"--root without a registry", board, []string{"leaderboard", "--root", outside}, exitSetup,
			"benchgate leaderboard: no leaderboard at --root " + outside + " (no rubrics/rubrics.json in it); run benchgate init, or pass --root\n"},
		{"--root that is a file", board, []string{"rerun", "--root", file, "x"}, exitSetup, "it is a file, not a folder; run benchgate init, or pass --root"},
		{"--root wins over the search", sub, []string{"verify", "--root", outside}, exitSetup, "no leaderboard at --root"},
		{"a benchmark file outside a leaderboard is linted alone", outside, []string{"lint-benchmark", filepath.Join(board, "rubrics/reservoir-mcq.jsonl")}, exitOK, "mcq benchmark, 40 questions"},
		{"a key outside a leaderboard", outside, []string{"lint-benchmark", "reservoir-mcq"}, exitSetup, "no leaderboard here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(tt.wd)
			code, out, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out+stderr, tt.want) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s%s", code, tt.code, tt.want, out, stderr)
			}
			if strings.Contains(out+stderr, "[rubrics/") {
				t.Errorf("the output holds a Go slice of findings:\n%s%s", out, stderr)
			}
		})
	}
}
