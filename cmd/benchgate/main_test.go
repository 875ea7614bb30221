package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the repository, which doubles as the example leaderboard.
const repoRoot = "../.."

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestVerifyExampleData(t *testing.T) {
	code, out, stderr := runCLI(t, "verify", "--root", repoRoot, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s, stdout %s", code, stderr, out)
	}
	var rep struct {
		Submissions []struct {
			Path, Status, Kind string
			Summary            map[string]any
		}
		Passed, Failed, Review int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 5 || rep.Failed != 0 || rep.Review != 0 {
		t.Errorf("example data: %d passed, %d failed, %d review; want all 5 to pass", rep.Passed, rep.Failed, rep.Review)
	}
	for _, s := range rep.Submissions {
		if strings.Contains(s.Path, "_template") {
			t.Errorf("the template was verified as a submission")
		}
		wantKeys := map[string][]string{
			"rubric": {"questions", "answered", "scored", "unscored", "mean", "gate_pass_rate", "adjudications"},
			"mcq":    {"questions", "answered", "correct", "accuracy", "disputes", "unverifiable", "parse_failures", "empty_responses", "length_finishes", "errors", "mean_latency_ms"},
		}[s.Kind]
		if len(s.Summary) != len(wantKeys) {
			t.Errorf("%s: summary keys %v, want %v", s.Path, s.Summary, wantKeys)
		}
		for _, k := range wantKeys {
			if _, ok := s.Summary[k]; !ok {
				t.Errorf("%s: summary lacks %q", s.Path, k)
			}
		}
	}
}

// copyBoard copies the example leaderboard to a temporary folder that a
// test may break.
func copyBoard(t testing.TB) string {
	t.Helper()
	return copyFolders(t, "rubrics", "submissions")
}

// copyFolders copies folders of the repository to a temporary folder.
func copyFolders(t testing.TB, dirs ...string) string {
	t.Helper()
	dst := t.TempDir()
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(repoRoot, p)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestVerifyPathsAndExitCodes(t *testing.T) {
	root := copyBoard(t)
	broken := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json")
	if err := os.WriteFile(broken, []byte("[\n{\"id\": 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := func(p string) string { return filepath.Join(root, p) }
	tests := []struct {
		name  string
		args  []string
		code  int
		count string // the closing line of text output, or a stderr fragment
	}{
		{"all", []string{"verify", "--root", root}, exitFail, "5 submission(s): 4 passed, 1 failed, 0 need review"},
		{"one folder", []string{"verify", "--root", root, sub("submissions/model-benchmark/qwen3-32b-basin")}, exitOK, "1 submission(s): 1 passed"},
		{"a file inside a folder", []string{"verify", sub("submissions/model-benchmark/qwen3-32b-basin/meta.json"), "--root", root}, exitOK, "1 submission(s): 1 passed"},
		{"a track", []string{"verify", "--root", root, sub("submissions/harness-benchmark")}, exitOK, "1 submission(s): 1 passed"},
		{"the broken one", []string{"verify", "--root", root, filepath.Dir(broken)}, exitFail, "scores.json:2: invalid JSON at column 10: unexpected end of file inside the array that starts on line 1 (json.syntax)"},
		{"outside the root", []string{"verify", "--root", root, os.TempDir()}, exitUsage, "is outside the leaderboard root"},
		{"missing path", []string{"verify", "--root", root, sub("submissions/model-benchmark/nope")}, exitUsage, "does not exist"},
		{"bad format", []string{"verify", "--root", root, "--format", "yaml"}, exitUsage, `unknown format "yaml"`},
		{"no registry", []string{"verify", "--root", t.TempDir()}, exitSetup, "(no rubrics/rubrics.json in it); run benchgate init, or pass --root"},
		{"unknown command", []string{"verfy"}, exitUsage, `unknown command "verfy"`},
		{"help", []string{"verify", "-h"}, exitOK, "Usage: benchgate verify"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out+stderr, tt.count) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s%s", code, tt.code, tt.count, out, stderr)
			}
		})
	}
}

func TestLintBenchmark(t *testing.T) {
	root := copyBoard(t)
	bad := filepath.Join(root, "rubrics", "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id": "x", "question": "q", "choices": ["a", "b", "c", "d"], "answer_index": 1, "answer_key": "C"}`+"\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"rubric by key", []string{"lint-benchmark", "--root", root, "basin-analysis"}, exitOK, "OK basin-analysis (rubrics/basin-analysis.json): rubric benchmark, 5 questions"},
		{"mcq by key", []string{"lint-benchmark", "--root", root, "reservoir-mcq"}, exitOK, "answer keys: A 10 (25%), B 10 (25%), C 10 (25%), D 10 (25%)"},
		{"registered file by path", []string{"lint-benchmark", "--root", root, filepath.Join(root, "rubrics/reservoir-mcq.jsonl")}, exitOK, "OK reservoir-mcq"},
		{"unregistered file by path", []string{"lint-benchmark", "--root", root, bad}, exitFail, "bad.jsonl:1: question x: answer_key is C but answer_index 1 is choice B"},
		{"json", []string{"lint-benchmark", "--root", root, "--format", "json", "reservoir-mcq"}, exitOK, `"longest_correct_rate": 0.15`},
		{"unknown key", []string{"lint-benchmark", "--root", root, "nope"}, exitUsage, `"nope" is neither a benchmark key`},
		{"no argument", []string{"lint-benchmark", "--root", root}, exitUsage, "Usage: benchgate lint-benchmark"},
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

func TestVerifyGitHubFormat(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	code, out, _ := runCLI(t, "verify", "--root", repoRoot, "--format", "github")
	if code != exitOK || !strings.Contains(out, "::notice title=benchgate verify::5 submission(s): 5 passed") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if data, err := os.ReadFile(summary); err != nil || !strings.Contains(string(data), "## benchgate verify") {
		t.Errorf("job summary: %v %s", err, data)
	}
}

func TestServeRefusesToStartWithoutConfiguration(t *testing.T) {
	for _, k := range []string{"BENCHGATE_APP_ID", "BENCHGATE_PRIVATE_KEY_FILE", "BENCHGATE_PRIVATE_KEY", "BENCHGATE_WEBHOOK_SECRET"} {
		t.Setenv(k, "")
	}
	code, _, stderr := runCLI(t, "serve")
	if code != exitSetup || !strings.Contains(stderr, "BENCHGATE_WEBHOOK_SECRET is required") || !strings.Contains(stderr, "BENCHGATE_APP_ID is required") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestErrorsPrintedOnce: run prints a command's error once, after
// "benchgate NAME: ", then the command's usage when it asks for it (a bad
// flag does); -h is not a failure.
func TestErrorsPrintedOnce(t *testing.T) {
	root := copyBoard(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		prefix string // how stderr starts (stdout for help asked for)
		named  bool   // stderr holds "benchgate NAME:" once; otherwise never
	}{
		{"message then usage", []string{"generate", "--root", root}, exitUsage, "benchgate generate: --benchmark and --model are required, and nothing else\nUsage: benchgate generate ", true},
		{"usage alone", []string{"score", "--root", root}, exitUsage, "Usage: benchgate score ", false},
		{"an error", []string{"calibrate", "--root", root, "--rubric", "nope"}, exitUsage, `benchgate calibrate: no benchmark "nope" in `, true},
		{"help", []string{"lint-benchmark", "-h"}, exitOK, "Usage: benchgate lint-benchmark ", false},
		{"bad flag", []string{"verify", "--nope"}, exitUsage, "benchgate verify: unknown flag --nope\nUsage: benchgate verify ", true},
		{"a file that cannot be read", []string{"serve", "--config", filepath.Join(root, "missing.yaml")}, exitSetup, "benchgate serve: open ", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			got := stderr
			if tt.name == "help" {
				got = stdout
			}
			if code != tt.code || !strings.HasPrefix(got, tt.prefix) {
				t.Errorf("exit %d, want %d; output does not start with %q:\n%s", code, tt.code, tt.prefix, got)
			}
			name := "benchgate " + tt.args[0] + ":"
			if n, want := strings.Count(stderr, name), map[bool]int{true: 1}[tt.named]; n != want {
				t.Errorf("stderr holds %q %d times:\n%s", name, n, stderr)
			}
		})
	}
	for _, k := range []string{"BENCHGATE_APP_ID", "BENCHGATE_PRIVATE_KEY_FILE", "BENCHGATE_PRIVATE_KEY", "BENCHGATE_WEBHOOK_SECRET"} {
		t.Setenv(k, "")
	}
	if code, _, stderr := runCLI(t, "serve"); code != exitSetup || !strings.HasPrefix(stderr, "benchgate serve cannot start:\n") {
		t.Errorf("serve without configuration: exit %d\n%s", code, stderr)
	}
}
