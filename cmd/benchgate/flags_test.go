package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestFlagMistakes: a mistyped flag is named with two dashes, as the docs
// write flags, with the flag it most likely meant.
func TestFlagMistakes(t *testing.T) {
	root := copyBoard(t)
	tests := []struct {
		args []string
		want string // how stderr starts
	}{
		{[]string{"verify", "-fromat", "json"}, "benchgate verify: unknown flag --fromat; did you mean --format?\nUsage: benchgate verify "},
		{[]string{"verify", "--fromat", "json"}, "benchgate verify: unknown flag --fromat; did you mean --format?\n"},
		{[]string{"leaderboard", "--as_of", "2026-11-29"}, "benchgate leaderboard: unknown flag --as_of; did you mean --as-of?\n"},
		{[]string{"generate", "--modle", "m"}, "benchgate generate: unknown flag --modle; did you mean --model?\n"},
		{[]string{"submit", "--slgu", "x"}, "benchgate submit: unknown flag --slgu; did you mean --slug?\n"},
		{[]string{"calibrate", "--min", "0.5"}, "benchgate calibrate: unknown flag --min; did you mean --min-agreement?\n"},
		{[]string{"import", "formationeval", "--cvs", "x.csv"}, "benchgate import: unknown flag --cvs; did you mean --csv?\n"},
		{[]string{"verify", "--zzzzzz"}, "benchgate verify: unknown flag --zzzzzz\n"},
		{[]string{"generate", "--root", root, "--benchmark", "reservoir-mcq", "--model", "m", "--timeout", "soon"}, `benchgate generate: invalid value "soon" for flag --timeout: parse error` + "\n"},
		{[]string{"verify", "--root"}, "benchgate verify: flag needs an argument: --root\n"},
		{[]string{"verfy"}, `benchgate: unknown command "verfy"; did you mean verify?` + "\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.HasPrefix(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr does not start with %q:\n%s", code, exitUsage, tt.want, stderr)
			}
		})
	}
}

// TestHelpWritesDoubleDashes: every command's help lists its flags as
// --name, as the docs write them, and not the former names kept as
// aliases; the synopses name what the issue found missing.
func TestHelpWritesDoubleDashes(t *testing.T) {
	single := regexp.MustCompile(`(?m)^  -[a-z]`)
	vague := regexp.MustCompile(`(?m)^  --[a-z-]+ value$`)
	hidden := map[string][]string{
		"generate":  {"--rubric"},
		"score":     {"--rubric"},
		"calibrate": {"--rubric"},
		"submit":    {"--rubric", "--model-id"},
		"rerun":     {"--candidate-model"},
	}
	synopsis := map[string]string{
		"verify":      "[--format text|json|markdown|github]",
		"leaderboard": "[--cache DIR]",
		"submit":      "--benchmark KEY",
		"generate":    "--benchmark KEY --model ID",
		"calibrate":   "--benchmark KEY",
	}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			_, help, _ := runCLI(t, c.name, "-h")
			if c.name == "import" {
				for _, f := range importFormats {
					_, h, _ := runCLI(t, "import", f.name, "-h")
					help += h
				}
			}
			if single.MatchString(help) {
				t.Errorf("help lists a flag with one dash:\n%s", help)
			}
			if vague.MatchString(help) {
				t.Errorf("help names a flag's argument only \"value\":\n%s", help)
			}
			if c.name != "version" && c.name != "completion" && !strings.Contains(help, "\n  --") {
				t.Errorf("help lists no --flag:\n%s", help)
			}
			for _, old := range hidden[c.name] {
				if strings.Contains(help, old+" ") || strings.Contains(help, old+"\n") {
					t.Errorf("help lists the alias %s:\n%s", old, help)
				}
			}
			if s := synopsis[c.name]; !strings.Contains(help, s) {
				t.Errorf("the synopsis lacks %q:\n%s", s, help)
			}
		})
	}
}

// TestFlagAliases: the former name of a flag still sets it.
func TestFlagAliases(t *testing.T) {
	root := copyBoard(t)
	scores := root + "/submissions/model-benchmark/qwen3-32b-basin/scores.json"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"generate --rubric", []string{"generate", "--root", root, "--rubric", "nope", "--model", "m"}, exitUsage, `no benchmark "nope"`},
		{"generate --benchmark", []string{"generate", "--root", root, "--benchmark", "nope", "--model", "m"}, exitUsage, `no benchmark "nope"`},
		{"calibrate --rubric", []string{"calibrate", "--root", root, "--rubric", "reservoir-mcq"}, exitUsage, "has no judge to calibrate"},
		{"score --rubric", []string{"score", "--root", root, "--rubric", "reservoir-mcq", scores}, exitUsage, "is multiple choice"},
		{"submit --rubric --model-id", []string{"submit", "--root", root, "--rubric", "basin-analysis", "--slug", "old-names", "--scores", scores, "--model-name", "Q", "--model-id", "qwen/qwen3-32b", "--submitter", "lab", "--contact", "https://example.org"}, exitOK, "PASS   submissions/model-benchmark/old-names"},
		{"submit --benchmark --model", []string{"submit", "--root", root, "--benchmark", "basin-analysis", "--slug", "new-names", "--scores", scores, "--model-name", "Q", "--model", "qwen/qwen3-32b", "--submitter", "lab", "--contact", "https://example.org"}, exitOK, "PASS   submissions/model-benchmark/new-names"},
		{"rerun --candidate-model", []string{"rerun", "--root", root, "--candidate-model", "m", "--format", "yaml", root + "/submissions/model-benchmark/qwen3-32b-reservoir"}, exitUsage, `unknown format "yaml"`},
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

func TestNearest(t *testing.T) {
	names := []string{"format", "root", "author", "max-file-bytes"}
	tests := []struct {
		in   string
		want string
	}{
		{"fromat", "format"},
		{"formt", "format"},
		{"rot", "root"},
		{"max", "max-file-bytes"},
		{"xyz", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := strings.Join(nearest(tt.in, names), ","); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
