package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// workflowFile is the part of a GitHub Actions workflow these tests read.
type workflowFile struct {
	Permissions map[string]string
	Jobs        map[string]struct {
		Permissions map[string]string
		Steps       []struct {
			Name, Uses, Run string
			With            map[string]any
		}
	}
}

func parseWorkflow(t *testing.T, text string) workflowFile {
	t.Helper()
	var w workflowFile
	if err := yaml.Unmarshal([]byte(text), &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestWorkflowActionsPinned: every action the workflows use is pinned by a
// full commit SHA, with the release it is in a comment beside it.
func TestWorkflowActionsPinned(t *testing.T) {
	line := regexp.MustCompile(`^\s*(?:- )?uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$`)
	src := pin{Source: defaultSource, Commit: "0123456789abcdef0123456789abcdef01234567"}
	for name, text := range map[string]string{"verify.yml": verifyWorkflow(pin{Version: "v1.2.3"}), "leaderboard.yml": leaderboardWorkflow(pin{Version: "v1.2.3"}),
		"verify.yml from source": verifyWorkflow(src), "leaderboard.yml from source": leaderboardWorkflow(src)} {
		uses := 0
		for _, l := range strings.Split(text, "\n") {
			if !strings.Contains(l, "uses:") {
				continue
			}
			uses++
			if !line.MatchString(l) {
				t.Errorf("%s: %q is not pinned as uses: OWNER/ACTION@<40 hex digits> # vX.Y.Z", name, strings.TrimSpace(l))
			}
		}
		if uses == 0 {
			t.Errorf("%s uses no action: the check above proves nothing", name)
		}
		if strings.Contains(text, "@@") {
			t.Errorf("%s keeps a placeholder:\n%s", name, text)
		}
		for _, j := range parseWorkflow(t, text).Jobs {
			for _, s := range j.Steps {
				if s.Uses != "" && !regexp.MustCompile(`@[0-9a-f]{40}$`).MatchString(s.Uses) {
					t.Errorf("%s: GitHub reads uses: %q", name, s.Uses)
				}
			}
		}
	}
}

// TestWorkflowPermissions: a token can do no more than its job needs. The
// verify workflow and the leaderboard's build job, which run benchgate on
// the repository's files, can write nothing; only the deploy job, which
// runs no code of the repository, may publish to Pages.
func TestWorkflowPermissions(t *testing.T) {
	readOnly := func(where string, perms map[string]string) {
		t.Helper()
		if len(perms) == 0 {
			t.Errorf("%s names no permissions, so it gets the repository's defaults", where)
		}
		for scope, level := range perms {
			if level != "read" && level != "none" {
				t.Errorf("%s has %s: %s", where, scope, level)
			}
		}
	}
	verify := parseWorkflow(t, verifyWorkflow(pin{Version: "v1.2.3"}))
	readOnly("verify.yml", verify.Permissions)
	for name, j := range verify.Jobs {
		if j.Permissions != nil {
			readOnly("verify.yml job "+name, j.Permissions)
		}
	}
	board := parseWorkflow(t, leaderboardWorkflow(pin{Version: "v1.2.3"}))
	readOnly("leaderboard.yml", board.Permissions)
	readOnly("leaderboard.yml job build", board.Jobs["build"].Permissions)
	deploy := board.Jobs["deploy"]
	if deploy.Permissions["pages"] != "write" || deploy.Permissions["id-token"] != "write" || len(deploy.Permissions) != 2 {
		t.Errorf("the deploy job has %v, want pages: write and id-token: write only", deploy.Permissions)
	}
	for _, s := range deploy.Steps {
		if s.Run != "" || !strings.HasPrefix(s.Uses, "actions/deploy-pages@") {
			t.Errorf("the deploy job, which may publish, runs %+v", s)
		}
	}
}

// TestLeaderboardWorkflowScript runs the leaderboard workflow's build
// step in a clone of a board with the whole history, as its checkout
// (fetch-depth: 0) makes it: the board is dated by the commit it is built
// from, in UTC, and each entry links the commit that added it. A shallow
// clone, the checkout's default, would know neither.
func TestLeaderboardWorkflowScript(t *testing.T) {
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
		// Late on 4 March in New York is 5 March in UTC.
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-03-04T23:30:00-05:00", "GIT_AUTHOR_DATE=2026-03-04T23:30:00-05:00")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(board, "init", "-q")
	git(board, "add", ".")
	git(board, "commit", "-qm", "New leaderboard")
	merged := filepath.Join(repoRoot, "submissions/model-benchmark/qwen3-32b-reservoir")
	for _, f := range []string{"meta.json", "scores.json"} {
		writeFile(t, filepath.Join(board, "submissions/model-benchmark/qwen", f), readFile(t, filepath.Join(merged, f)))
	}
	git(board, "add", ".")
	git(board, "commit", "-qm", "Add qwen")
	added := git(board, "rev-parse", "HEAD")

	w := parseWorkflow(t, readFile(t, filepath.Join(board, ".github/workflows/leaderboard.yml")))
	var script string
	for _, s := range w.Jobs["build"].Steps {
		if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["fetch-depth"] != 0 {
			t.Errorf("the build checks out with fetch-depth %v, want 0 (the whole history)", s.With["fetch-depth"])
		}
		if s.Name == "benchgate leaderboard" {
			script = s.Run
		}
	}
	if !strings.Contains(script, "--as-of") {
		t.Fatalf("the build's leaderboard step passes no --as-of: %q", script)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	build := func(clone ...string) (md, html string) {
		t.Helper()
		work := filepath.Join(t.TempDir(), "work")
		git(tmp, append(append([]string{"clone", "-q"}, clone...), "file://"+board, work)...)
		runner := t.TempDir()
		bin := filepath.Join(runner, "bin")
		writeFile(t, filepath.Join(bin, "benchgate"), "#!/bin/sh\nBENCHGATE_TEST_AS_CLI=1 exec '"+exe+"' \"$@\"\n")
		if err := os.Chmod(filepath.Join(bin, "benchgate"), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "RUNNER_TEMP="+runner, "TZ=America/New_York", "BENCHGATE_CACHE_DIR="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the leaderboard step: %v\n%s", err, out)
		}
		return readFile(t, filepath.Join(work, "leaderboard/LEADERBOARD.md")), readFile(t, filepath.Join(work, "leaderboard/index.html"))
	}
	md, html := build()
	if !strings.Contains(md, "As of 2026-03-05.") {
		t.Errorf("LEADERBOARD.md is not dated by the commit in UTC:\n%s", md)
	}
	if !strings.Contains(html, "Added by") || !strings.Contains(html, "commit "+added[:12]) {
		t.Errorf("the page does not say which commit added the entry (%s)", added[:12])
	}
	if _, html := build("--depth", "1"); strings.Contains(html, "Added by") {
		t.Errorf("a shallow clone knows who added an entry: the check above proves nothing")
	}
}

// TestSourceBuildStep runs the step that builds benchgate from its pinned
// commit, as both workflows init writes hold it, against a real git
// repository of a small Go command standing for benchgate's source: it
// must fetch that commit by its SHA, build it into $RUNNER_TEMP/bin and
// run it; a commit the repository lacks must fail the step.
func TestSourceBuildStep(t *testing.T) {
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	src := filepath.Join(t.TempDir(), "benchgate")
	writeFile(t, filepath.Join(src, "go.mod"), "module example.org/benchgate\n\ngo 1.26\n")
	writeFile(t, filepath.Join(src, "cmd/benchgate/main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"benchgate from the pinned commit\") }\n")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = src
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "pinned")
	pinned := git("rev-parse", "HEAD")
	// A later commit on the branch: the step must build the pinned one.
	writeFile(t, filepath.Join(src, "cmd/benchgate/main.go"), "package main\n\nfunc main() { panic(\"a later commit\") }\n")
	git("commit", "-qam", "later")

	p := pin{Source: "file://" + src, Commit: pinned}
	for name, text := range map[string]string{"verify.yml": verifyWorkflow(p), "leaderboard.yml": leaderboardWorkflow(p)} {
		w := parseWorkflow(t, text)
		var env struct{ Env map[string]string }
		if err := yaml.Unmarshal([]byte(text), &env); err != nil {
			t.Fatal(err)
		}
		if env.Env["BENCHGATE_COMMIT"] != pinned || env.Env["BENCHGATE_SOURCE"] != p.Source || env.Env["BENCHGATE_VERSION"] != "" {
			t.Errorf("%s: env %v, want the source and commit only", name, env.Env)
		}
		var script string
		for _, j := range w.Jobs {
			for _, s := range j.Steps {
				if s.Name == "Build benchgate from its pinned commit" {
					script = s.Run
				}
			}
		}
		if script == "" {
			t.Fatalf("%s has no step that builds the pinned commit:\n%s", name, text)
		}
		run := func(commit string) (string, error) {
			runner := t.TempDir()
			cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "RUNNER_TEMP="+runner, "BENCHGATE_SOURCE="+p.Source, "BENCHGATE_COMMIT="+commit, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
			out, err := cmd.CombinedOutput()
			if err == nil {
				if _, statErr := os.Stat(filepath.Join(runner, "bin/benchgate")); statErr != nil {
					t.Errorf("%s: the step built nothing into $RUNNER_TEMP/bin: %v", name, statErr)
				}
			}
			return string(out), err
		}
		if out, err := run(pinned); err != nil || !strings.Contains(out, "benchgate from the pinned commit") {
			t.Errorf("%s: the build step: %v\n%s", name, err, out)
		}
		if out, err := run("89abcdef0123456789abcdef0123456789abcdef"); err == nil {
			t.Errorf("%s: a commit the source lacks was built:\n%s", name, out)
		}
	}
}

// FuzzSourcePin: a --source and --source-commit that init accepts are
// written into both workflows as exactly those strings, in YAML that
// parses, whatever they hold.
func FuzzSourcePin(f *testing.F) {
	f.Add(defaultSource, "0123456789abcdef0123456789abcdef01234567")
	f.Add("https://git.example.org/a/b.git#x", "0123456789abcdef0123456789abcdef01234567")
	f.Add("https://example.org/\"x", "0123456789abcdef0123456789abcdef01234567")
	f.Add("https://example.org/a: b", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	f.Fuzz(func(t *testing.T, source, commit string) {
		p, err := pinFor(nil, source, commit)
		if err != nil {
			return
		}
		if source == "" {
			source = defaultSource
		}
		for _, text := range []string{verifyWorkflow(p), leaderboardWorkflow(p)} {
			var w struct{ Env map[string]string }
			if err := yaml.Unmarshal([]byte(text), &w); err != nil {
				t.Fatalf("source %q commit %q: the workflow does not parse: %v", source, commit, err)
			}
			if w.Env["BENCHGATE_SOURCE"] != source || w.Env["BENCHGATE_COMMIT"] != commit || len(w.Env) != 2 {
				t.Fatalf("source %q commit %q: the workflow's env reads %q", source, commit, w.Env)
			}
		}
	})
}
