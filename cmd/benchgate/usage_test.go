package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLeaderboardCommand(t *testing.T) {
	root := copyBoard(t)
	out := filepath.Join(t.TempDir(), "board")
	code, stdout, stderr := runCLI(t, "leaderboard", "--root", root, "--out", out, "--as-of", "2026-11-29", "--cache", "")
	if code != exitOK || !strings.Contains(stdout, "5 submission(s): 5 ranked") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"LEADERBOARD.md", "index.html", "leaderboard.json"} {
		if data, err := os.ReadFile(filepath.Join(out, f)); err != nil || len(data) == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	only := filepath.Join(t.TempDir(), "md")
	if code, _, _ := runCLI(t, "leaderboard", "--root", root, "--out", only, "--format", "md", "--cache", ""); code != exitOK {
		t.Fatalf("--format md: exit %d", code)
	}
	if entries, _ := os.ReadDir(only); len(entries) != 1 || entries[0].Name() != "LEADERBOARD.md" {
		t.Errorf("--format md wrote %v", entries)
	}
}

// TestUsageErrors: every command says what is wrong with its arguments,
// and exits 2 without doing anything.
func TestUsageErrors(t *testing.T) {
	root := copyBoard(t)
	t.Setenv("BENCHGATE_UNSET", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"leaderboard", "--root", root, "--format", "pdf"}, `unknown format "pdf"`},
		{[]string{"leaderboard", "--root", root, "--as-of", "29/11/2026", "--cache", ""}, `as-of date "29/11/2026" is not YYYY-MM-DD`},
		{[]string{"generate", "--root", root, "--model", "m"}, "--benchmark and --model are required"},
		{[]string{"generate", "--root", root, "--rubric", "nope", "--model", "m"}, `no benchmark "nope"`},
		{[]string{"generate", "--root", root, "--rubric", "reservoir-mcq", "--model", "m", "--workers", "0", "--base-url", "http://127.0.0.1:1/v1"}, "--workers must be at least 1"},
		{[]string{"generate", "--root", root, "--rubric", "reservoir-mcq", "--model", "m", "--timeout", "soon"}, "invalid value"},
		{[]string{"score", "--root", root}, "Usage: benchgate score"},
		{[]string{"score", "--root", root, filepath.Join(root, "rubrics/rubrics.json")}, "is not an answers array"},
		{[]string{"score", "--root", root, "--rubric", "reservoir-mcq", filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/scores.json")}, "is multiple choice"},
		{[]string{"score", "--root", root, "--pair", "b.json", "--format", "yaml", "a.json"}, `unknown format "yaml" (want text, json)`},
		{[]string{"calibrate", "--root", root}, "Usage: benchgate calibrate"},
		{[]string{"calibrate", "--root", root, "--rubric", "reservoir-mcq"}, "has no judge to calibrate"},
		{[]string{"calibrate", "--root", root, "--rubric", "basin-analysis", "--format", "csv"}, `unknown format "csv" (want text, json)`},
		{[]string{"rerun", "--root", root, "--format", "yaml", filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin")}, `unknown format "yaml"`},
		{[]string{"rerun", "--root", root, filepath.Join(root, "submissions/model-benchmark")}, "name one submission folder"},
		{[]string{"submit", "--root", root, "--slug", "x", "--price-input", "cheap"}, "not a number"},
		{[]string{"serve", "extra"}, "Usage: benchgate serve"},
		{[]string{"lint-benchmark", "--root", root, "--format", "xml", "basin-analysis"}, `unknown format "xml"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:1], " ")+" "+tt.want, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s%s", code, exitUsage, tt.want, stdout, stderr)
			}
		})
	}
}

// TestLeaderboardSecondRun: run as a maintainer runs it, twice, with the
// cache that BENCHGATE_CACHE_DIR names; the second run reads every result
// from the cache and writes the same bytes as the first.
func TestLeaderboardSecondRun(t *testing.T) {
	root := copyBoard(t)
	cache := t.TempDir()
	t.Setenv("BENCHGATE_CACHE_DIR", cache)
	var runs [2]map[string][]byte
	for i := range runs {
		out := filepath.Join(t.TempDir(), "board")
		if code, stdout, stderr := runCLI(t, "leaderboard", "--root", root, "--out", out, "--as-of", "2026-11-29"); code != exitOK {
			t.Fatalf("run %d: exit %d\n%s%s", i+1, code, stdout, stderr)
		}
		runs[i] = map[string][]byte{}
		for _, f := range []string{"LEADERBOARD.md", "index.html", "leaderboard.json"} {
			runs[i][f], _ = os.ReadFile(filepath.Join(out, f))
		}
		if entries, _ := os.ReadDir(cache); len(entries) == 0 {
			t.Fatalf("run %d: nothing cached in BENCHGATE_CACHE_DIR", i+1)
		}
	}
	for f, first := range runs[0] {
		if string(first) != string(runs[1][f]) {
			t.Errorf("%s: the second run (from the cache) differs from the first", f)
		}
	}
	if !strings.Contains(string(runs[1]["LEADERBOARD.md"]), "| Qwen3-32B |") {
		t.Errorf("the second run lost the model names:\n%s", runs[1]["LEADERBOARD.md"])
	}
}

// TestDocListsEveryCommand: the package doc of main.go lists each command
// of the table with the synopsis its -h prints, and its summary.
func TestDocListsEveryCommand(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		t.Fatalf("main.go: %v, doc %v", err, f.Doc)
	}
	doc := f.Doc.Text()
	for _, c := range commands {
		code, stdout, _ := runCLI(t, c.name, "-h")
		usage, _, _ := strings.Cut(stdout, "\n")
		synopsis, ok := strings.CutPrefix(usage, "Usage: ")
		if code != exitOK || !ok {
			t.Errorf("%s -h: exit %d\n%s", c.name, code, stdout)
			continue
		}
		if want := "\t" + synopsis + "\n\t\t" + c.summary + "\n"; !strings.Contains(doc, want) {
			t.Errorf("the doc of main.go lacks %q", want)
		}
	}
}
