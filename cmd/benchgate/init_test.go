package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/golden"
)

// fixBuild makes init see a build of the given version and commit.
func fixBuild(t *testing.T, version, commit string) {
	t.Helper()
	old := buildInfo
	t.Cleanup(func() { buildInfo = old })
	buildInfo = func() *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/benchgate/benchgate", Version: version}}
		if commit != "" {
			bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: commit}}
		}
		return bi
	}
}

func TestInit(t *testing.T) {
	fixBuild(t, "v1.2.3", "")
	for _, tc := range []struct {
		name, bench, key string
		file             string // where the board keeps the benchmark
		flags            []string
		registry         []string // what the registry entry must hold
	}{
		{"mcq", "rubrics/reservoir-mcq.jsonl", "reservoir", "rubrics/reservoir.jsonl", nil, []string{`"kind": "mcq"`, `"extraction": "flexible"`}},
		{"mcq-policy", "rubrics/reservoir-mcq.jsonl", "reservoir", "rubrics/reservoir.jsonl", []string{"--kind", "mcq", "--extraction", "answer-line", "--label", "Reservoir"}, []string{`"label": "Reservoir"`, `"extraction": "answer-line"`}},
		{"rubric", "rubrics/basin-analysis.json", "basin", "rubrics/basin.json", []string{"--judge", "openai/gpt-5.5", "--maintainers", "@geo/maintainers"}, []string{`"kind": "rubric"`, `"judge_model": "openai/gpt-5.5"`,
			// An explicit contract: the judge pinned in the file.
			`"judge": {
      "temperature": 0,
      "top_p": 1,
      "response_format": true,
      "verdict": {
        "format": "json",
        "integers": false,
        "retry": "reask",
        "retries": 3
      }
    }`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "board")
			args := append([]string{"init", dir, "--benchmark", filepath.Join(repoRoot, tc.bench), "--key", tc.key}, tc.flags...)
			code, out, stderr := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("init: exit %d\nstdout %s\nstderr %s", code, out, stderr)
			}
			if !strings.Contains(stderr, "v1.2.3") {
				t.Errorf("init does not say which version it pinned: %s", stderr)
			}
			if code, out, stderr := runCLI(t, "verify", "--root", dir); code != exitOK {
				t.Fatalf("verify of the new board: exit %d\n%s%s", code, out, stderr)
			}
			if code, out, stderr := runCLI(t, "lint-benchmark", "--root", dir, tc.key); code != exitOK {
				t.Fatalf("lint-benchmark of the new board: exit %d\n%s%s", code, out, stderr)
			}
			registry := readFile(t, filepath.Join(dir, "rubrics/rubrics.json"))
			for _, want := range tc.registry {
				if !strings.Contains(registry, want) {
					t.Errorf("registry lacks %s:\n%s", want, registry)
				}
			}
			// The contract written is benchgate's own, spelt out.
			if reg, _ := benchmark.LoadRegistry(os.DirFS(dir)); reg != nil && tc.name == "rubric" {
				if e, _ := reg.Lookup(tc.key); benchmark.ContractText(e.Judge) != `{"temperature":0,"top_p":1}` || e.JudgePrompt != nil {
					t.Errorf("the contract written reads as %s", benchmark.ContractText(e.Judge))
				}
			}
			if !strings.Contains(registry, `"file": "`+tc.file+`"`) {
				t.Errorf("registry does not name %s:\n%s", tc.file, registry)
			}
			if readFile(t, filepath.Join(dir, tc.file)) != readFile(t, filepath.Join(repoRoot, tc.bench)) {
				t.Errorf("the benchmark was not copied as it is")
			}
			for _, wf := range []string{"verify.yml", "leaderboard.yml"} {
				if w := readFile(t, filepath.Join(dir, ".github/workflows", wf)); !strings.Contains(w, `BENCHGATE_VERSION: "v1.2.3"`) {
					t.Errorf("%s is not pinned to v1.2.3:\n%s", wf, w)
				}
			}
			owners := readFile(t, filepath.Join(dir, ".github/CODEOWNERS"))
			team, warned := "@geo/maintainers", false
			if !strings.Contains(strings.Join(tc.flags, " "), "--maintainers") {
				team, warned = placeholderTeam, true
			}
			for _, p := range []string{"/.github/", "/rubrics/", "/leaderboard/"} {
				if !strings.Contains(owners, p+" "+team+"\n") {
					t.Errorf("CODEOWNERS does not give %s to %s:\n%s", p, team, owners)
				}
			}
			if got := strings.Contains(stderr, "warning: .github/CODEOWNERS names the placeholder"); got != warned {
				t.Errorf("placeholder warning %v, want %v: %s", got, warned, stderr)
			}
			if readme := readFile(t, filepath.Join(dir, "README.md")); !strings.Contains(readme, "## How to submit") || !strings.Contains(readme, "`"+tc.key+"`") {
				t.Errorf("README does not say how to submit to %s:\n%s", tc.key, readme)
			}
		})
	}
}

// TestInitTemplate checks that a new board's submission template is this
// repository's, file for file.
func TestInitTemplate(t *testing.T) {
	fixBuild(t, "v1.2.3", "")
	dir := filepath.Join(t.TempDir(), "board")
	if code, _, stderr := runCLI(t, "init", dir, "--benchmark", filepath.Join(repoRoot, "rubrics/reservoir-mcq.jsonl"), "--key", "r"); code != exitOK {
		t.Fatal(stderr)
	}
	want, _ := filepath.Glob(filepath.Join(repoRoot, "submissions/_template/*"))
	got, _ := filepath.Glob(filepath.Join(dir, "submissions/_template/*"))
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("template files %v, want %v", got, want)
	}
	for _, w := range want {
		if readFile(t, w) != readFile(t, filepath.Join(dir, "submissions/_template", filepath.Base(w))) {
			t.Errorf("the new board's %s differs from this repository's", filepath.Base(w))
		}
	}
}

func TestInitRefuses(t *testing.T) {
	fixBuild(t, "v1.2.3", "")
	tmp := t.TempDir()
	broken := filepath.Join(tmp, "broken.jsonl")
	mcq := readFile(t, filepath.Join(repoRoot, "rubrics/reservoir-mcq.jsonl"))
	// The second question repeats the first's id: lint's duplicate finding.
	lines := strings.SplitN(mcq, "\n", 3)
	if err := os.WriteFile(broken, []byte(lines[0]+"\n"+lines[0]+"\n"+lines[2]), 0o644); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(tmp, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	basin := filepath.Join(repoRoot, "rubrics/basin-analysis.json")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"lint", []string{filepath.Join(tmp, "b1"), "--benchmark", broken, "--key", "r"}, exitFail, "does not pass lint-benchmark"},
		{"not empty", []string{full, "--benchmark", basin, "--key", "b", "--judge", "openai/gpt-5.5"}, exitUsage, "is not empty (it holds notes.txt)"},
		{"rubric without judge", []string{filepath.Join(tmp, "b2"), "--benchmark", basin, "--key", "b"}, exitUsage, "needs its fixed judge"},
		{"judge for mcq", []string{filepath.Join(tmp, "b3"), "--benchmark", broken, "--key", "r", "--judge", "x/y"}, exitUsage, "--judge is for rubric benchmarks"},
		{"bad key", []string{filepath.Join(tmp, "b4"), "--benchmark", basin, "--key", "../x", "--judge", "x/y"}, exitUsage, "--key"},
		{"bad team", []string{filepath.Join(tmp, "b5"), "--benchmark", basin, "--key", "b", "--judge", "x/y", "--maintainers", "geo"}, exitUsage, "--maintainers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"init"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr %s, want it to say %q", code, tc.code, stderr, tc.want)
			}
			if tc.name == "lint" && !strings.Contains(stderr, "duplicate") {
				t.Errorf("the refusal does not show lint's findings: %s", stderr)
			}
			if dir := tc.args[0]; dir != full {
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("a refused init wrote %s", dir)
				}
			} else if entries, _ := os.ReadDir(full); len(entries) != 1 {
				t.Errorf("init wrote into a folder that was not empty: %v", entries)
			}
		})
	}
}

func TestInitWorkflowsGolden(t *testing.T) {
	p := pin{Version: "v1.2.3"}
	golden.Check(t, "init-verify.yml", []byte(verifyWorkflow(p)))
	golden.Check(t, "init-leaderboard.yml", []byte(leaderboardWorkflow(p)))
}

func TestPinFor(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name, version, commit string
		want, note            string
	}{
		{"tagged", "v1.2.3", "", "v1.2.3", "the version running"},
		{"pseudo-version", "v0.0.0-20261201000000-0123456789ab", "", "v0.0.0-20261201000000-0123456789ab", "the version running"},
		{"devel with commit", "(devel)", commit, commit, "development build"},
		{"devel without commit", "(devel)", "", unpinned, "set BENCHGATE_VERSION"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixBuild(t, tc.version, tc.commit)
			p := pinFor(buildInfo())
			if p.Version != tc.want || !strings.Contains(p.Note, tc.note) {
				t.Errorf("pin %q (%s), want %q and a note saying %q", p.Version, p.Note, tc.want, tc.note)
			}
		})
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestShippedVerifyWorkflow checks that this repository's verify workflow
// is the one init writes, but for building benchgate from the base branch
// (this repository is benchgate) where a board installs a version.
func TestShippedVerifyWorkflow(t *testing.T) {
	p := pin{Version: "v1.2.3"}
	want := verifyWorkflow(p)
	for _, r := range []struct{ old, new string }{
		{"env:\n  # The benchgate version installed; the same in leaderboard.yml.\n  BENCHGATE_VERSION: \"v1.2.3\"\n", ""},
		{"      - name: Install benchgate\n        run: GOBIN=\"$RUNNER_TEMP/bin\" go install \"github.com/benchgate/benchgate/cmd/benchgate@${BENCHGATE_VERSION}\"\n",
			"      - name: Build benchgate from the base branch\n        # This repository is benchgate: its base branch is the version to run.\n        run: go build -o \"$RUNNER_TEMP/bin/benchgate\" ./cmd/benchgate\n"},
	} {
		if !strings.Contains(want, r.old) {
			t.Fatalf("the generated workflow no longer has %q: update this test with it", r.old)
		}
		want = strings.Replace(want, r.old, r.new, 1)
	}
	if got := readFile(t, filepath.Join(repoRoot, ".github/workflows/verify.yml")); got != want {
		t.Errorf(".github/workflows/verify.yml differs from the workflow init writes (less the install step); it should be:\n%s", want)
	}
}
