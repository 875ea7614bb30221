package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The completion scripts are generated from the command table and from
// each command's own flag set (what its -h lists), so that a command or
// flag added anywhere is completed without a second list to keep.

// completionShells are the shells `benchgate completion` writes for.
var completionShells = []string{"bash", "zsh", "fish"}

// completionCommand is a command (or `import FORMAT`) with its flags.
type completionCommand struct {
	name, summary string
	flags         []string            // with their dashes: --root
	subs          []completionCommand // import's formats
}

// The completion command joins the table in init: its table entry cannot
// refer to the table it reads.
func init() {
	commands = append(commands, command{"completion", "print a shell completion script (bash, zsh or fish) for the commands and their flags", runCompletion})
}

func runCompletion(args []string, stdout, stderr io.Writer) error {
	names := completionShells
	fl := newFlagSet("completion", strings.Join(names, "|"), stderr)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(fl, errors.New("name one shell: "+strings.Join(names, ", ")))
	}
	switch pos[0] {
	case "bash":
		writeBash(stdout, completionCommands())
	case "zsh":
		writeZsh(stdout, completionCommands())
	case "fish":
		writeFish(stdout, completionCommands())
	default:
		return usageError(fl, fmt.Errorf("unknown shell %q (want %s)", pos[0], strings.Join(names, ", ")))
	}
	return nil
}

// completionCommands lists every command of the table with the flags its
// -h prints, and help, which takes a command.
func completionCommands() []completionCommand {
	var out []completionCommand
	for _, c := range commands {
		cc := completionCommand{name: c.name, summary: c.summary}
		switch c.name {
		case "completion":
		case "import":
			for _, f := range importFormats {
				cc.subs = append(cc.subs, completionCommand{name: f.name, summary: f.summary, flags: helpFlags(f.run)})
			}
		default:
			cc.flags = helpFlags(c.run)
		}
		out = append(out, cc)
	}
	return append(out, completionCommand{name: "help", summary: "print a command's help"})
}

// helpFlags are the flags a command's -h lists, in printFlags' format:
// "  --name ...".
func helpFlags(run func(args []string, stdout, stderr io.Writer) error) []string {
	var help bytes.Buffer
	run([]string{"-h"}, io.Discard, &diagnostics{Writer: io.Discard, help: &help})
	var flags []string
	sc := bufio.NewScanner(&help)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "  --"); ok {
			name, _, _ := strings.Cut(rest, " ")
			flags = append(flags, "--"+name)
		}
	}
	return flags
}

func commandNames(cmds []completionCommand) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	return strings.Join(names, " ")
}

func writeBash(w io.Writer, cmds []completionCommand) {
	fmt.Fprintf(w, `# bash completion for benchgate, from: benchgate completion bash
# Load it with: source <(benchgate completion bash)
_benchgate() {
	local cur=${COMP_WORDS[COMP_CWORD]} flags=
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W %q -- "$cur"))
		return
	fi
	case ${COMP_WORDS[1]} in
`, commandNames(cmds))
	for _, c := range cmds {
		switch {
		case c.name == "help":
			fmt.Fprintf(w, "\thelp)\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn ;;\n", commandNames(cmds[:len(cmds)-1]))
		case c.name == "completion":
			fmt.Fprintf(w, "\tcompletion)\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn ;;\n", shellNames())
		case c.subs != nil:
			fmt.Fprintf(w, "\t%s)\n\t\tif [[ $COMP_CWORD -eq 2 ]]; then\n\t\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n\t\tcase ${COMP_WORDS[2]} in\n", c.name, commandNames(c.subs))
			for _, s := range c.subs {
				fmt.Fprintf(w, "\t\t%s) flags=%q ;;\n", s.name, strings.Join(s.flags, " "))
			}
			fmt.Fprint(w, "\t\tesac ;;\n")
		default:
			fmt.Fprintf(w, "\t%s) flags=%q ;;\n", c.name, strings.Join(c.flags, " "))
		}
	}
	fmt.Fprint(w, `	esac
	# Flags are completed; anything else is left to the shell's default
	# (file names), which -o default asks for.
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	fi
}
complete -o default -F _benchgate benchgate
`)
}

func writeZsh(w io.Writer, cmds []completionCommand) {
	fmt.Fprint(w, `#compdef benchgate
# zsh completion for benchgate, from: benchgate completion zsh
# Load it with: source <(benchgate completion zsh) (after compinit), or
# save it as _benchgate in a folder of $fpath.
_benchgate() {
	local -a commands flags
	commands=(
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "\t\t%s\n", zshQuote(strings.ReplaceAll(c.name, ":", `\:`)+":"+c.summary))
	}
	fmt.Fprint(w, "\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe command commands\n\t\treturn\n\tfi\n\tcase $words[2] in\n")
	for _, c := range cmds {
		switch {
		case c.name == "help":
			fmt.Fprint(w, "\thelp)\n\t\t(( CURRENT == 3 )) && _describe command commands\n\t\treturn ;;\n")
		case c.name == "completion":
			fmt.Fprintf(w, "\tcompletion)\n\t\tcompadd %s\n\t\treturn ;;\n", shellNames())
		case c.subs != nil:
			fmt.Fprintf(w, "\t%s)\n\t\tif (( CURRENT == 3 )); then\n\t\t\tcompadd %s\n\t\t\treturn\n\t\tfi\n\t\tcase $words[3] in\n", c.name, commandNames(c.subs))
			for _, s := range c.subs {
				fmt.Fprintf(w, "\t\t%s) flags=(%s) ;;\n", s.name, strings.Join(s.flags, " "))
			}
			fmt.Fprint(w, "\t\tesac ;;\n")
		default:
			fmt.Fprintf(w, "\t%s) flags=(%s) ;;\n", c.name, strings.Join(c.flags, " "))
		}
	}
	fmt.Fprint(w, `	esac
	if [[ $PREFIX == -* ]]; then
		compadd -a flags
	else
		_files
	fi
}
if [[ $funcstack[1] == _benchgate ]]; then
	_benchgate "$@"
else
	compdef _benchgate benchgate
fi
`)
}

func writeFish(w io.Writer, cmds []completionCommand) {
	fmt.Fprint(w, "# fish completion for benchgate, from: benchgate completion fish\n# Load it with: benchgate completion fish | source\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c benchgate -f -n '__fish_use_subcommand' -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range cmds {
		when := fmt.Sprintf("'__fish_seen_subcommand_from %s'", c.name)
		switch {
		case c.name == "help":
			fmt.Fprintf(w, "complete -c benchgate -f -n %s -a %s\n", when, fishQuote(commandNames(cmds[:len(cmds)-1])))
		case c.name == "completion":
			fmt.Fprintf(w, "complete -c benchgate -f -n %s -a %s\n", when, fishQuote(shellNames()))
		case c.subs != nil:
			fmt.Fprintf(w, "complete -c benchgate -f -n \"__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from %s\" -a %s\n", c.name, commandNames(c.subs), fishQuote(commandNames(c.subs)))
			for _, s := range c.subs {
				for _, f := range s.flags {
					fmt.Fprintf(w, "complete -c benchgate -n '__fish_seen_subcommand_from %s; and __fish_seen_subcommand_from %s' -l %s\n", c.name, s.name, strings.TrimPrefix(f, "--"))
				}
			}
		default:
			for _, f := range c.flags {
				fmt.Fprintf(w, "complete -c benchgate -n %s -l %s\n", when, strings.TrimPrefix(f, "--"))
			}
		}
	}
}

func shellNames() string { return strings.Join(completionShells, " ") }

// zshQuote and fishQuote quote s for the shell's single quotes.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
