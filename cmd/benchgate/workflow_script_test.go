package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestMain lets a test run this package's test binary as the benchgate
// command, for the workflow scripts to call.
func TestMain(m *testing.M) {
	if os.Getenv("BENCHGATE_TEST_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestVerifyWorkflowScript runs the shell of the verify workflow init
// writes against a real git repository: a board made by init as the base,
// a pull request on top, fetched by its head SHA into a clone checked out
// at the base. The pull request's files must be judged as check-pr judges
// them, and nothing of the pull request may reach the checkout.
func TestVerifyWorkflowScript(t *testing.T) {
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	fixBuild(t, "v1.2.3", "")
	tmp := t.TempDir()
	board := filepath.Join(tmp, "board")
	if code, _, stderr := runCLI(t, "init", board, "--benchmark", filepath.Join(repoRoot, "rubrics/reservoir-mcq.jsonl"), "--key", "reservoir-mcq"); code != exitOK {
		t.Fatal(stderr)
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(board, "init", "-q")
	git(board, "add", ".")
	git(board, "commit", "-qm", "base")
	base := git(board, "rev-parse", "HEAD")

	var steps struct {
		Jobs map[string]struct {
			Steps []struct{ Name, Run string }
		}
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(board, ".github/workflows/verify.yml"))), &steps); err != nil {
		t.Fatal(err)
	}
	var script []string
	for _, s := range steps.Jobs["verify"].Steps {
		if s.Name == "Read the pull request's files as data" || s.Name == "benchgate check-pr" {
			script = append(script, s.Run)
		}
	}
	if len(script) != 2 {
		t.Fatalf("the verify workflow lacks its two script steps: %+v", steps)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}

	merged := filepath.Join(repoRoot, "submissions/model-benchmark/qwen3-32b-reservoir")
	for _, tc := range []struct {
		name, author string
		extra        string // a path outside the submission the pull request also changes
		code         int
		want         string
	}{
		{"submission", "example-lab", "", exitOK, "1 passed"},
		{"another submitter", "mallory", "", exitFail, "::error"},
		// A submission and anything else fails, naming what to move out.
		{"with a registry edit", "example-lab", "rubrics/rubrics.json", exitFail, "outside it: `rubrics/rubrics.json`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			git(board, "checkout", "-q", "-B", "pr-"+tc.author, base)
			dir := filepath.Join(board, "submissions/model-benchmark/qwen")
			for _, f := range []string{"meta.json", "scores.json"} {
				writeFile(t, filepath.Join(dir, f), readFile(t, filepath.Join(merged, f)))
			}
			if tc.extra != "" {
				writeFile(t, filepath.Join(board, tc.extra), "[]\n")
			}
			git(board, "add", ".")
			git(board, "commit", "-qm", "pr")
			head := git(board, "rev-parse", "HEAD")

			work := filepath.Join(t.TempDir(), "work")
			git(tmp, "clone", "-q", "--no-checkout", board, work)
			git(work, "checkout", "-q", base)
			runner := t.TempDir()
			bin := filepath.Join(runner, "bin")
			writeFile(t, filepath.Join(bin, "benchgate"), "#!/bin/sh\nBENCHGATE_TEST_AS_CLI=1 exec '"+exe+"' \"$@\"\n")
			if err := os.Chmod(filepath.Join(bin, "benchgate"), 0o755); err != nil {
				t.Fatal(err)
			}
			// gh is the GitHub CLI the workflow asks for the author's
			// permission; here it does not answer, as when GitHub does not.
			writeFile(t, filepath.Join(bin, "gh"), "#!/bin/sh\nexit 1\n")
			if err := os.Chmod(filepath.Join(bin, "gh"), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", strings.Join(script, "\n"))
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "RUNNER_TEMP="+runner,
				"HEAD_SHA="+head, "BASE_SHA="+base, "GH_TOKEN=unused", "AUTHOR="+tc.author, "REPO=geo/board", "GITHUB_STEP_SUMMARY=")
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(string(out), tc.want) {
				t.Errorf("exit %d, want %d; output, which should say %q:\n%s", code, tc.code, tc.want, out)
			}
			if got := git(work, "rev-parse", "HEAD"); got != base {
				t.Errorf("the checkout moved to %s", got)
			}
			if _, err := os.Stat(filepath.Join(work, "submissions/model-benchmark/qwen")); err == nil {
				t.Errorf("the pull request's files reached the checkout")
			}
		})
	}
}
