// Command benchgate checks LLM benchmark leaderboard submissions, and helps
// produce them. Its commands:
//
//	benchgate verify [--root DIR] [--format text|json|markdown|github] [--author LOGIN] [PATH...]
//		check submissions against their benchmarks
//	benchgate lint-benchmark [--root DIR] [--format text|json] KEY|PATH
//		check a benchmark file (by registry key or path)
//	benchgate leaderboard [--root DIR] [--out DIR] [--format md|html|json|csv|all] [--as-of YYYY-MM-DD] [--title TEXT] [--cache DIR] [--explore=false]
//		rank the verified submissions and write the published leaderboard
//	benchgate generate --benchmark KEY --model ID [--workers N] [--rps R] [--output FILE] [--format text|json]
//		ask a candidate model every question of a benchmark
//	benchgate score ANSWERS [--benchmark KEY] [--output scores.json] [--pair OTHER]
//		grade a rubric benchmark's answers with its fixed judge (or compare two pairwise)
//	benchgate calibrate --benchmark KEY [--min-agreement 0.8] [--record] [--runs N]
//		check the judge against the rubric's calibration fixtures, and record its grades for the spot-check
//	benchgate rerun PATH [--root DIR] [--max-calls N] [--max-usd X] [--seed HEX | --secret-file FILE] [--format text|json|markdown]
//		spot-check a submission's reported scores against the benchmark's fixed judge
//	benchgate reproduce PATH [--root DIR] [--base-url URL] [--api-key-env VAR] [--model-map ID=SERVED,...] [--max-calls N] [--max-usd X] [--seed HEX | --secret-file FILE] [--record] [--format text|json|markdown]
//		ask the claimed model a sample of a submission's questions again, and compare
//	benchgate accept PATH --reason TEXT [--by LOGIN] [--root DIR]
//		record a maintainer's acceptance of a submission in review, for this version of it
//	benchgate serve [--workers N] [--drain 60s] (configuration from BENCHGATE_* variables; see docs/github-app.md)
//		run the GitHub App: webhooks, the job queue, checks, comments and leaderboard pushes
//	benchgate setup-app --webhook-url https://HOST/webhook [--org ORG] [--listen localhost:3000] [--config FILE] [--key FILE]
//		create the GitHub App from its manifest and write the configuration serve reads
//	benchgate import FORMAT [flags]
//		turn published results into submissions, each verified as it is written
//	benchgate submit --benchmark KEY --slug SLUG --scores FILE [--track model|harness] --model-name N --model ID --submitter LOGIN --contact URL [--force] [--format text|json]
//		add a run's scores as a submission folder, verify it, and say how to open the pull request
//	benchgate check-pr --files LISTFILE --head DIR --author LOGIN [--maintainer] [--root DIR] [--format text|github]
//		check a pull request's changed files with the App's scope, ownership and verification rules (for Actions)
//	benchgate init DIR --benchmark FILE --key KEY [--kind mcq|rubric] [--judge MODEL] [--extraction POLICY] [--label TEXT] [--description TEXT] [--license SPDX] [--url URL] [--maintainers @org/team] [--source URL] [--source-commit SHA] [--format text|json]
//		create a leaderboard repository with one benchmark, its workflows and submission template
//	benchgate version (also: benchgate --version)
//		print the version, the commit it was built from and the Go version
//	benchgate completion bash|zsh|fish
//		print a shell completion script (bash, zsh or fish) for the commands and their flags
//
// 'benchgate COMMAND -h' (or --help, or 'benchgate help COMMAND') lists a
// command's flags, on stdout. The commands with --root
// read the leaderboard repository it names (the registry
// rubrics/rubrics.json, the benchmark files and submissions/); without it,
// the working directory or the nearest folder above it that holds the
// registry, as git finds its repository.
//
// Each command is a thin shell: it parses its flags, calls the package
// that does the work and renders with that package's renderer. Exit codes,
// the same for every command (README.md has the table): 0 when all is
// well; 1 when what the command checked did not pass or its work failed
// part-way (rerun: the scores are inconsistent); 2 on bad usage or bad
// input; 3 when a maintainer must decide (verify: a submission needs
// review; rerun inconclusive, check-pr action required); 4 when benchgate could not do its job for want of its
// setup (no leaderboard, no API key, a configuration serve refuses) or of
// a service it calls (an endpoint, the queue's database), so that a script
// never takes a judge that cannot be reached for a verdict.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/submission"
)

// Exit codes, documented in one table in README.md.
const (
	exitOK    = 0 // nothing failed
	exitFail  = 1 // a submission or benchmark failed its checks
	exitUsage = 2 // bad usage or bad input

	exitInconclusive = 3 // verify, rerun, check-pr: a maintainer must decide
	exitSetup        = 4 // the setup is missing or a service cannot be reached: no verdict
)

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"verify", "check submissions against their benchmarks", runVerify},
	{"lint-benchmark", "check a benchmark file (by registry key or path)", runLintBenchmark},
	{"leaderboard", "rank the verified submissions and write the published leaderboard", runLeaderboard},
	{"generate", "ask a candidate model every question of a benchmark", runGenerate},
	{"score", "grade a rubric benchmark's answers with its fixed judge (or compare two pairwise)", runScore},
	{"calibrate", "check the judge against the rubric's calibration fixtures, and record its grades for the spot-check", runCalibrate},
	{"rerun", "spot-check a submission's reported scores against the benchmark's fixed judge", runRerun},
	{"reproduce", "ask the claimed model a sample of a submission's questions again, and compare", runReproduce},
	{"accept", "record a maintainer's acceptance of a submission in review, for this version of it", runAccept},
	{"serve", "run the GitHub App: webhooks, the job queue, checks, comments and leaderboard pushes", runServe},
	{"setup-app", "create the GitHub App from its manifest and write the configuration serve reads", runSetupApp},
	{"import", "turn published results into submissions, each verified as it is written", runImport},
	{"submit", "add a run's scores as a submission folder, verify it, and say how to open the pull request", runSubmit},
	{"check-pr", "check a pull request's changed files with the App's scope, ownership and verification rules (for Actions)", runCheckPR},
	{"init", "create a leaderboard repository with one benchmark, its workflows and submission template", runInit},
	{"version", "print the version, the commit it was built from and the Go version", runVersion},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stderr)
		return exitUsage
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help" && len(args) == 1:
		// Help asked for is the output, as gh and go print it: to stdout,
		// so that `benchgate --help | less` shows it.
		usage(stdout)
		return exitOK
	case args[0] == "help":
		// benchgate help CMD [SUB] is benchgate CMD [SUB] -h.
		if find(args[1]) == nil {
			return unknownCommand(stderr, args[1])
		}
		args = append(args[1:len(args):len(args)], "-h")
	case args[0] == "--version" || args[0] == "-version":
		args[0] = "version"
	}
	if c := find(args[0]); c != nil {
		return report(stderr, c.name, c.run(args[1:], stdout, &diagnostics{Writer: stderr, help: stdout}))
	}
	return unknownCommand(stderr, args[0])
}

func find(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func unknownCommand(stderr io.Writer, name string) int {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	fmt.Fprintf(stderr, "benchgate: unknown command %q", name)
	if s := nearest(name, names); len(s) > 0 {
		fmt.Fprintf(stderr, "; did you mean %s?", strings.Join(s, " or "))
	}
	fmt.Fprint(stderr, "\n\n")
	usage(stderr)
	return exitUsage
}

// diagnostics is the stderr a command writes its messages and usage errors
// to; help asked for (-h) goes to help, the command's stdout.
type diagnostics struct {
	io.Writer
	help io.Writer
}

// helpOutput is where a command prints the help asked for: stdout when the
// command was given its diagnostics stream, else w itself.
func helpOutput(w io.Writer) io.Writer {
	if d, ok := w.(*diagnostics); ok {
		return d.help
	}
	return w
}

// unwrapDiagnostics is the stream under w, for a check such as isTerminal.
func unwrapDiagnostics(w io.Writer) io.Writer {
	if d, ok := w.(*diagnostics); ok {
		return d.Writer
	}
	return w
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "benchgate checks LLM benchmark leaderboard submissions.\n\nUsage: benchgate COMMAND [flags] [args]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'benchgate COMMAND -h' for a command's flags.")
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, as people type them.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		// Output is stderr for a usage error, stdout for -h (parseFlags).
		fmt.Fprintf(fs.Output(), "Usage: benchgate %s %s\n\nFlags:\n", name, synopsis)
		printFlags(fs, fs.Output())
	}
	return fs
}

// exitError ends a subcommand with an exit code. Any other error a
// subcommand returns ends it with exitUsage: its arguments or input would
// not do.
type exitError struct {
	code  int
	err   error  // printed after "benchgate NAME: "; nil when the output said it all
	bare  bool   // err already names the command: printed as it is
	usage func() // when set, the command's usage follows err
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// failed ends a command with exitFail: what it checked did not pass.
func failed(err error) error { return &exitError{code: exitFail, err: err} }

// setupError ends a command with exitSetup: its setup is missing or
// wrong, or a service it needs cannot be reached, so it has no verdict.
func setupError(err error) error { return &exitError{code: exitSetup, err: err} }

// serviceFailed ends a command whose work stopped on err: exitSetup when
// the endpoint could not be reached or refused the account (serviceDown),
// which says nothing about what was checked; else exitFail.
func serviceFailed(err error) error {
	if serviceDown(err) {
		return setupError(err)
	}
	return failed(err)
}

// serviceDown reports a call to a model's endpoint that failed for want of
// the service, not for what was asked: unreachable, timing out or failing
// on every attempt (llm.ErrExhausted), refusing the account (a rejected
// key, no credits, a spent quota: llm.ErrAccount), or set up wrong (no
// such model, a field it does not take: llm.ErrSetup). A request the
// endpoint refuses (a content filter) is the work's own failure.
func serviceDown(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	return errors.Is(err, llm.ErrExhausted) || errors.Is(err, llm.ErrAccount) || errors.Is(err, llm.ErrSetup)
}

// callsExit is the exit code of work made of calls to a model's endpoint:
// failed of them failed, down of those for want of the service
// (llm.ErrExhausted: unreachable, timing out, failing on every attempt),
// and answered succeeded. exitSetup when the endpoint answered none and
// every failure was the service's, so that no run is taken for a verdict;
// exitFail when some failed otherwise.
func callsExit(failed, down, answered int) int {
	switch {
	case failed == 0:
		return exitOK
	case answered == 0 && down == failed:
		return exitSetup
	}
	return exitFail
}

// exitWith ends a command with code and no message: its output said why.
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// usageError reports bad arguments, then the command's usage.
func usageError(fl *flag.FlagSet, err error) error {
	return &exitError{code: exitUsage, err: err, usage: fl.Usage}
}

// flagError ends a command whose flags did not parse (parseFlags): -h,
// whose help is printed, is not a failure.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if _, ok := err.(*exitError); ok {
		return err
	}
	return &exitError{code: exitUsage, err: err}
}

// report prints a subcommand's error, the one place that does, and returns
// its exit code.
func report(stderr io.Writer, name string, err error) int {
	if err == nil {
		return exitOK
	}
	e, ok := err.(*exitError)
	if !ok {
		e = &exitError{code: exitUsage, err: err}
	}
	switch {
	case e.err == nil:
	case e.bare:
		fmt.Fprintln(stderr, e.err)
	default:
		fmt.Fprintf(stderr, "benchgate %s: %v\n", name, e.err)
	}
	if e.usage != nil {
		e.usage()
	}
	return e.code
}

func oneOf(v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("unknown format %q (want %s)", v, strings.Join(allowed, ", "))
}

// openBenchmark opens a registry key of the leaderboard in root.
func openBenchmark(root, key string) (*benchmark.Benchmark, error) {
	b, err := benchmark.Open(boardFS(root), key)
	return b, registryPath(root, err)
}

// registryPath makes an unknown key's error name the registry of the
// leaderboard in root by its path from here.
func registryPath(root string, err error) error {
	var ke *benchmark.KeyError
	if errors.As(err, &ke) {
		ke.Registry = filepath.Join(root, benchmark.RegistryFile)
	}
	return err
}

// boardFS is the leaderboard repository at root as every command reads
// it: following no symbolic link, as the App reads the default branch
// (submission.NoLinks), so that the CLI and the App read the same files.
func boardFS(root string) fs.FS { return submission.NoLinks(os.DirFS(root)) }
