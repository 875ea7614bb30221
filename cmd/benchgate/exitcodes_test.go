package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSetupExitCode: a missing setup or a service that cannot be reached
// ends every command with exit code 4, which no verdict uses: a script
// never takes an unreachable judge for a failed calibration or a rejected
// submission.
func TestSetupExitCode(t *testing.T) {
	root := copyBoard(t)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir()) // no verdict from an earlier run's cache
	t.Setenv("BENCHGATE_TEST_KEY", "sk-test")
	t.Setenv("BENCHGATE_UNSET", "")
	down := []string{"--judge-base-url", "http://127.0.0.1:1/v1", "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--attempts", "1", "--ledger", ""}
	basin := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin")
	out := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"calibrate, the judge unreachable", append([]string{"calibrate", "--root", root, "--benchmark", "basin-analysis"}, down...), "connection refused"},
		{"score, the judge unreachable", append([]string{"score", "--root", root, "--output", filepath.Join(out, "s.json"), filepath.Join(basin, "scores.json")}, down...), ""},
		{"score --pair, the judge unreachable", append([]string{"score", "--root", root, "--pair", filepath.Join(basin, "scores.json"), filepath.Join(basin, "scores.json")}, down...), "connection refused"},
		{"rerun, the judge unreachable", append([]string{"rerun", "--root", root, basin}, down...), "the endpoint answered no call (see above), so there is no verdict on submissions/model-benchmark/qwen3-32b-basin"},
		{"generate, the model unreachable", []string{"generate", "--root", root, "--benchmark", "reservoir-mcq", "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "--api-key-env", "BENCHGATE_TEST_KEY", "--attempts", "1", "--output", filepath.Join(out, "g.json")}, ""},
		{"score, no API key", []string{"score", "--root", root, "--judge-api-key-env", "BENCHGATE_UNSET", "--judge-base-url", "https://judge.example.org/v1", filepath.Join(basin, "scores.json")}, "BENCHGATE_UNSET"},
		{"calibrate, no API key", []string{"calibrate", "--root", root, "--benchmark", "basin-analysis", "--judge-api-key-env", "BENCHGATE_UNSET", "--judge-base-url", "https://judge.example.org/v1"}, "BENCHGATE_UNSET"},
		{"verify, no leaderboard", []string{"verify", "--root", out}, "no leaderboard at --root"},
		{"check-pr, no leaderboard", []string{"check-pr", "--root", out, "--files", "f", "--head", "h"}, "no leaderboard at --root"},
		{"import, no leaderboard", []string{"import", "formationeval", "--root", out, "--benchmark", "k", "--csv", "x.csv"}, "no leaderboard at --root"},
		{"serve, a configuration file that cannot be read", []string{"serve", "--config", filepath.Join(out, "missing.yaml")}, "missing.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitSetup || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s%s", code, exitSetup, tt.want, stdout, stderr)
			}
		})
	}
}

// TestExitCodeTable: README.md documents every exit code in one table,
// with the values the code uses, and nowhere else lists them.
func TestExitCodeTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	_, table, ok := strings.Cut(readme, "\n## Exit codes\n")
	if !ok {
		t.Fatal("README.md has no section ## Exit codes")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `(\\d)` \\| (.+?) \\|")
	got := map[int]string{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		n, _ := strconv.Atoi(m[1])
		got[n] = m[2]
	}
	want := map[int]string{exitOK: "ok", exitFail: "failed", exitUsage: "usage", exitInconclusive: "review", exitSetup: "setup or service"}
	for code, name := range want {
		if !strings.HasPrefix(got[code], name) {
			t.Errorf("the table's row for %d is %q, want it to start %q", code, got[code], name)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the table has %d rows, want %d: %v", len(got), len(want), got)
	}
	if scattered := regexp.MustCompile(`(?i)exit code 0 (when|consistent)|Exit 0 when`).FindString(readme); scattered != "" {
		t.Errorf("README.md lists exit codes outside the table: %q", scattered)
	}
}

// TestVerifyExitCode: verify exits 3 when a submission needs review and
// none failed, as the table says of review, so that a script does not take
// a submission a maintainer must decide on for one that passed; a failure
// outranks review.
func TestVerifyExitCode(t *testing.T) {
	root := copyBoard(t)
	const review = "submissions/model-benchmark/qwen3-32b-reservoir"
	const pass = "submissions/model-benchmark/qwen3-32b-basin"
	sendToReview(t, root, review)
	broken := filepath.Join(root, "submissions/harness-benchmark")
	tests := []struct {
		name  string
		paths []string
		code  int
		count string
	}{
		{"passes", []string{pass}, exitOK, "1 submission(s): 1 passed, 0 failed, 0 need review"},
		{"needs review", []string{review}, exitInconclusive, "1 submission(s): 0 passed, 0 failed, 1 need review"},
		{"passes and needs review", []string{pass, review}, exitInconclusive, "2 submission(s): 1 passed, 0 failed, 1 need review"},
		{"fails and needs review", []string{review, "submissions/harness-benchmark"}, exitFail, "0 passed, 1 failed, 1 need review"},
	}
	writeFile(t, filepath.Join(broken, firstSubmission(t, broken), "scores.json"), "[")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"verify", "--root", root}
			for _, p := range tt.paths {
				args = append(args, filepath.Join(root, p))
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != tt.code || !strings.Contains(stdout, tt.count) {
				t.Errorf("exit %d, want %d; stdout lacks %q:\n%s%s", code, tt.code, tt.count, stdout, stderr)
			}
		})
	}
}

// firstSubmission is the first submission folder in dir.
func firstSubmission(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("%s: %v", dir, err)
	}
	return entries[0].Name()
}
