package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/golden"
)

// fixBuild makes init see a build of the given version and commit.
func fixBuild(t *testing.T, version, commit string) {
	t.Helper()
	fixBuildSettings(t, version, commit, false)
}

// fixBuildSettings is fixBuild of a build that may have had uncommitted
// changes.
func fixBuildSettings(t *testing.T, version, commit string, modified bool) {
	t.Helper()
	old := buildInfo
	t.Cleanup(func() { buildInfo = old })
	buildInfo = func() *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/benchgate/benchgate", Version: version}}
		if commit != "" {
			bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: commit}, {Key: "vcs.modified", Value: strconv.FormatBool(modified)}}
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
		{"a description on two lines", []string{filepath.Join(tmp, "b7"), "--benchmark", basin, "--key", "b", "--judge", "x/y", "--description", "Basins\n# Heading"}, exitUsage, "--description: write it as plain text on one line"},
		{"a description with an escape", []string{filepath.Join(tmp, "b8"), "--benchmark", basin, "--key", "b", "--judge", "x/y", "--description", "Basins \x1b[31m"}, exitUsage, "--description"},
		{"licence not SPDX", []string{filepath.Join(tmp, "b6"), "--benchmark", basin, "--key", "b", "--judge", "x/y", "--license", "Creative Commons"}, exitUsage, `--license: benchmark "b": license "Creative Commons" is not an SPDX licence`},
		{"url not http", []string{filepath.Join(tmp, "b7"), "--benchmark", basin, "--key", "b", "--judge", "x/y", "--url", "example.org/b"}, exitUsage, `--url: benchmark "b": url "example.org/b" is not an http or https address`},
		{"short commit", []string{filepath.Join(tmp, "b8"), "--benchmark", basin, "--key", "b", "--judge", "x/y", "--source-commit", "0123abc"}, exitUsage, "--source-commit \"0123abc\": give the full commit SHA"},
		{"format", []string{filepath.Join(tmp, "b9"), "--benchmark", basin, "--key", "b", "--judge", "x/y", "--format", "yaml"}, exitUsage, "unknown format"},
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

// TestInitRefusesUnpinned: a build that records neither a commit nor a
// published version writes no board, rather than workflows that install
// nothing that exists, and says what to pass.
func TestInitRefusesUnpinned(t *testing.T) {
	fixBuild(t, "(devel)", "")
	dir := filepath.Join(t.TempDir(), "board")
	code, _, stderr := runCLI(t, "init", dir, "--benchmark", filepath.Join(repoRoot, "rubrics/reservoir-mcq.jsonl"), "--key", "r")
	if code != exitUsage || !strings.Contains(stderr, "pass --source-commit SHA") {
		t.Errorf("exit %d, want %d with a message naming --source-commit: %s", code, exitUsage, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("a refused init wrote %s", dir)
	}
}

func TestInitWorkflowsGolden(t *testing.T) {
	p := pin{Version: "v1.2.3"}
	golden.Check(t, "init-verify.yml", []byte(verifyWorkflow(p)))
	golden.Check(t, "init-leaderboard.yml", []byte(leaderboardWorkflow(p)))
	src := pin{Source: defaultSource, Commit: "0123456789abcdef0123456789abcdef01234567"}
	golden.Check(t, "init-verify-source.yml", []byte(verifyWorkflow(src)))
	golden.Check(t, "init-leaderboard-source.yml", []byte(leaderboardWorkflow(src)))
}

// TestInitBoardTextGolden: the board's README, for a benchgate built from
// a commit and for a published one, and its .gitignore.
func TestInitBoardTextGolden(t *testing.T) {
	o := boardOptions{Key: "basin", Label: "Basin analysis", Judge: "openai/gpt-5.5", Kind: benchmark.KindRubric, BenchmarkFile: "rubrics/basin.json",
		Description: "Five open questions on basin analysis.", License: "CC-BY-4.0", URL: "https://example.org/basin",
		Pin: pin{Source: defaultSource, Commit: "0123456789abcdef0123456789abcdef01234567"}}
	golden.Check(t, "init-README-source.md", []byte(boardReadme(o)))
	o.Pin, o.Description, o.License, o.URL = pin{Version: "v1.2.3"}, "", "", ""
	golden.Check(t, "init-README-release.md", []byte(boardReadme(o)))
	golden.Check(t, "init-gitignore", []byte(gitignore()))
}

func TestPinFor(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	const other = "89abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name, version, commit string
		source, sourceCommit  string
		modified              bool
		want                  pin // Note and Warning: a part of them
		err                   string
	}{
		{name: "published version", version: "v1.2.3", want: pin{Version: "v1.2.3", Note: "the version running"}},
		{name: "published pseudo-version", version: "v0.0.0-20261201000000-0123456789ab", want: pin{Version: "v0.0.0-20261201000000-0123456789ab", Note: "go install"}},
		{name: "built from a checkout", version: "(devel)", commit: commit, want: pin{Source: defaultSource, Commit: commit, Note: "the commit this benchgate was built from"}},
		{name: "checkout at a tag", version: "v1.2.3", commit: commit, want: pin{Source: defaultSource, Commit: commit, Note: "built from"}},
		{name: "built with uncommitted changes", version: "(devel)", commit: commit, modified: true, want: pin{Source: defaultSource, Commit: commit, Warning: "uncommitted changes"}},
		{name: "commit given", version: "(devel)", commit: commit, sourceCommit: other, want: pin{Source: defaultSource, Commit: other, Note: other}},
		{name: "source given", version: "(devel)", commit: commit, source: "https://git.example.org/geo/benchgate.git", want: pin{Source: "https://git.example.org/geo/benchgate.git", Commit: commit, Note: "git.example.org"}},
		{name: "no version data", version: "(devel)", err: "pass --source-commit SHA"},
		{name: "dirty version, no commit", version: "v1.2.3+dirty", err: "pass --source-commit SHA"},
		{name: "source without a commit", version: "v1.2.3", source: "https://git.example.org/b.git", err: "pass --source-commit SHA"},
		{name: "short commit", version: "(devel)", sourceCommit: "0123456", err: "full commit SHA"},
		{name: "branch", version: "(devel)", sourceCommit: "main", err: "full commit SHA"},
		{name: "ssh source", version: "(devel)", sourceCommit: commit, source: "git@github.com:benchgate/benchgate.git", err: "https address"},
		{name: "source with a token", version: "(devel)", sourceCommit: commit, source: "https://x-access-token:abc@github.com/benchgate/benchgate.git", err: "credentials"},
		{name: "source not in ASCII", version: "(devel)", sourceCommit: commit, source: "https://example.org/\x80", err: "https address"},
		{name: "source that breaks the YAML", version: "(devel)", sourceCommit: commit, source: `https://example.org/"x`, err: "https address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixBuildSettings(t, tc.version, tc.commit, tc.modified)
			p, err := pinFor(buildInfo(), tc.source, tc.sourceCommit)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("pin %+v, err %v; want an error saying %q", p, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Version != tc.want.Version || p.Source != tc.want.Source || p.Commit != tc.want.Commit || !strings.Contains(p.Note, tc.want.Note) ||
				(tc.want.Warning == "") != (p.Warning == "") || !strings.Contains(p.Warning, tc.want.Warning) {
				t.Errorf("pin %+v, want %+v (note saying %q)", p, tc.want, tc.want.Note)
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

// TestInitBoard makes a board with its attribution, pinned to a commit of
// benchgate's source, reported as JSON, and uses it as a maintainer does:
// the registry holds the attribution and the page shows it, the README
// says how to build the benchgate the workflows build, and git commits
// what init wrote and the records a maintainer keeps, never what the
// commands write for the moment.
func TestInitBoard(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	fixBuild(t, "(devel)", "")
	const commit = "0123456789abcdef0123456789abcdef01234567"
	dir := filepath.Join(t.TempDir(), "board")
	code, out, stderr := runCLI(t, "init", dir, "--benchmark", filepath.Join(repoRoot, "rubrics/reservoir-mcq.jsonl"), "--key", "reservoir",
		"--description", "Forty reservoir questions.", "--license", "CC-BY-4.0", "--url", "https://example.org/reservoir",
		"--source-commit", commit, "--format", "json")
	if code != exitOK {
		t.Fatalf("init: exit %d\n%s%s", code, out, stderr)
	}
	if stderr != "" {
		t.Errorf("with --format json init writes to stderr only on failure: %s", stderr)
	}
	var res initResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--format json: %v\n%s", err, out)
	}
	if res.Dir != dir || res.Benchmark != "reservoir" || res.Kind != "mcq" || res.Benchgate.Commit != commit || res.Benchgate.Source != defaultSource ||
		len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], placeholderTeam) || !strings.Contains(res.Next, "git init") {
		t.Errorf("the JSON report: %+v", res)
	}
	var written []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			written = append(written, filepath.ToSlash(rel))
		}
		return err
	})
	sort.Strings(written)
	if strings.Join(written, " ") != strings.Join(res.Files, " ") {
		t.Errorf("the JSON lists %v, init wrote %v", res.Files, written)
	}

	reg, found := benchmark.LoadRegistry(os.DirFS(dir))
	if len(found) > 0 || reg == nil {
		t.Fatalf("registry: %v", found)
	}
	if e, _ := reg.Lookup("reservoir"); e.Description != "Forty reservoir questions." || e.License != "CC-BY-4.0" || e.URL != "https://example.org/reservoir" {
		t.Errorf("registry entry %+v lacks the attribution", e)
	}
	for _, wf := range []string{"verify.yml", "leaderboard.yml"} {
		if w := readFile(t, filepath.Join(dir, ".github/workflows", wf)); !strings.Contains(w, `BENCHGATE_COMMIT: "`+commit+`"`) || strings.Contains(w, "go install") {
			t.Errorf("%s does not build commit %s:\n%s", wf, commit, w)
		}
	}
	readme := readFile(t, filepath.Join(dir, "README.md"))
	for _, want := range []string{"## Install benchgate", "git clone " + defaultSource, "checkout " + commit, "go build", "Forty reservoir questions.", "https://example.org/reservoir", "CC-BY-4.0"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}

	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	git("init", "-q")
	git("add", ".")
	if tracked := strings.Fields(git("ls-files")); strings.Join(tracked, " ") != strings.Join(written, " ") {
		t.Errorf("git adds %v of what init wrote, %v", tracked, written)
	}
	git("commit", "-qm", "New leaderboard")
	// What the commands write in a checkout, made by the commands where
	// they need no model: the pages.
	if code, out, stderr := runCLI(t, "leaderboard", "--root", dir, "--format", "all", "--cache", ""); code != exitOK {
		t.Fatalf("leaderboard: exit %d\n%s%s", code, out, stderr)
	}
	if page := readFile(t, filepath.Join(dir, "leaderboard/index.html")); !strings.Contains(page, "CC-BY-4.0") || !strings.Contains(page, "https://example.org/reservoir") {
		t.Errorf("the page does not show the benchmark's licence and address")
	}
	merged := filepath.Join(repoRoot, "submissions/model-benchmark/qwen3-32b-reservoir")
	for _, f := range []struct{ path, why string }{
		{"reservoir.qwen_qwen3-32b.json", "generate's default output"},
		{"reservoir.qwen_qwen3-32b.json.ledger.jsonl", "generate's cost ledger"},
		{"scores.json", "score's default output"},
		{"scores.json.ledger.jsonl", "score's cost ledger"},
		{".benchgate-replaced-123/old/meta.json", "a submission set aside by submit --force"},
	} {
		writeFile(t, filepath.Join(dir, f.path), "{}\n")
	}
	for _, f := range []string{
		"submissions/model-benchmark/qwen/meta.json", "submissions/model-benchmark/qwen/scores.json",
		"acceptances/model-benchmark/qwen.json", "reproductions/model-benchmark/qwen.json", "rubrics/reservoir.calibration.json",
	} {
		writeFile(t, filepath.Join(dir, f), readFile(t, filepath.Join(merged, "meta.json")))
	}
	status := git("status", "--porcelain", "--untracked-files=all")
	var untracked []string
	for _, l := range strings.Split(strings.TrimSpace(status), "\n") {
		untracked = append(untracked, strings.TrimPrefix(l, "?? "))
	}
	sort.Strings(untracked)
	want := []string{"acceptances/model-benchmark/qwen.json", "reproductions/model-benchmark/qwen.json", "rubrics/reservoir.calibration.json",
		"submissions/model-benchmark/qwen/meta.json", "submissions/model-benchmark/qwen/scores.json"}
	if strings.Join(untracked, " ") != strings.Join(want, " ") {
		t.Errorf("git would commit %v, want exactly the board's records %v", untracked, want)
	}
}
