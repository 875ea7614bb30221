package main

import (
	"strings"
	"testing"
)

// TestHelpToStdout: help asked for is output (stdout, exit 0), as gh and
// go print it, so that `benchgate --help | less` shows it; help that
// follows a usage error goes to stderr with exit 2.
func TestHelpToStdout(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // a line stdout starts with, "" for none
		stderrHas  string
		stderrNone bool
	}{
		{"--help", []string{"--help"}, exitOK, "benchgate checks LLM benchmark leaderboard submissions.", "", true},
		{"-h", []string{"-h"}, exitOK, "benchgate checks LLM benchmark leaderboard submissions.", "", true},
		{"help", []string{"help"}, exitOK, "benchgate checks LLM benchmark leaderboard submissions.", "", true},
		{"help verify", []string{"help", "verify"}, exitOK, "Usage: benchgate verify [--root DIR]", "", true},
		{"help import", []string{"help", "import"}, exitOK, "Usage: benchgate import FORMAT [flags]", "", true},
		{"help import inspect", []string{"help", "import", "inspect"}, exitOK, "Usage: benchgate import inspect --log FILE...", "", true},
		{"verify -h", []string{"verify", "-h"}, exitOK, "Usage: benchgate verify [--root DIR]", "", true},
		{"verify --help", []string{"verify", "--help"}, exitOK, "Usage: benchgate verify [--root DIR]", "", true},
		{"submit -h", []string{"submit", "-h"}, exitOK, "Usage: benchgate submit --benchmark KEY", "", true},
		{"help nothing", []string{"help", "verfy"}, exitUsage, "", `unknown command "verfy"; did you mean verify?`, false},
		{"no command", nil, exitUsage, "", "Usage: benchgate COMMAND", false},
		{"bad flag", []string{"verify", "--formt", "json"}, exitUsage, "", "unknown flag --formt; did you mean --format?\nUsage: benchgate verify", false},
		{"import, no format", []string{"import"}, exitUsage, "", "Usage: benchgate import FORMAT", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if tt.stdout == "" && stdout != "" || !strings.HasPrefix(stdout, tt.stdout) {
				t.Errorf("stdout does not start with %q:\n%s", tt.stdout, stdout)
			}
			if tt.stderrNone && stderr != "" {
				t.Errorf("stderr is not empty:\n%s", stderr)
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, stderr)
			}
		})
	}
}
