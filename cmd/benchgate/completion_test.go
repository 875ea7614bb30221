package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletionScripts: each shell's script names every command of the
// table and every flag its -h lists, import's formats and theirs.
func TestCompletionScripts(t *testing.T) {
	cmds := completionCommands()
	if len(cmds) != len(commands)+1 || cmds[len(cmds)-1].name != "help" {
		t.Fatalf("completion lists %d commands, want the table's %d and help", len(cmds), len(commands))
	}
	for _, shell := range completionShells {
		t.Run(shell, func(t *testing.T) {
			code, script, stderr := runCLI(t, "completion", shell)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			for _, c := range cmds {
				if !strings.Contains(script, c.name) {
					t.Errorf("the script lacks the command %s", c.name)
				}
				for _, sub := range append([]completionCommand{c}, c.subs...) {
					if sub.name != "version" && sub.name != "help" && sub.name != "completion" && sub.name != "import" && len(sub.flags) == 0 {
						t.Errorf("%s has no flags", sub.name)
					}
					for _, f := range sub.flags {
						if shell == "fish" {
							f = "-l " + strings.TrimPrefix(f, "--")
						}
						if !strings.Contains(script, f) {
							t.Errorf("the script lacks %s's flag %s", sub.name, f)
						}
					}
				}
			}
		})
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		if code, _, stderr := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, "Usage: benchgate completion bash|zsh|fish") {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, stderr)
		}
	}
}

// TestCompletionBash sources the bash script in bash, where bash exists,
// and completes commands, flags and import's formats with it.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	_, script, _ := runCLI(t, "completion", "bash")
	file := filepath.Join(t.TempDir(), "benchgate.bash")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	// complete WORDS... prints what completing the last word offers.
	prog := `source "$1" || exit 1
complete -p benchgate
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _benchgate; echo "${COMPREPLY[*]}"; }
c benchgate ver
c benchgate verify --fo
c benchgate import ''
c benchgate import formationeval --cs
c benchgate help acc
c benchgate completion z
c benchgate submit --sub
c benchgate verify submissions
`
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", prog, "bash", file).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	want := strings.Join([]string{
		"complete -o default -F _benchgate benchgate",
		"verify version",
		"--format",
		"formationeval groundtruth inspect",
		"--csv",
		"accept",
		"zsh",
		"--submitter",
		"", // not a flag: left to the shell's file names
	}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("bash completed:\n%s\nwant:\n%s", out, want)
	}
}
