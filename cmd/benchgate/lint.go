package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/benchmark"
)

func runLintBenchmark(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("lint-benchmark", "[--root DIR] [--format text|json] KEY|PATH", stderr)
	root := fl.String("root", ".", "the leaderboard repository whose registry names KEY")
	format := fl.String("format", "text", "output format: text or json")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(fl, nil)
	}
	if err := oneOf(*format, benchmark.LintFormats); err != nil {
		return err
	}
	rep, err := benchmark.LintNamed(boardFS(*root), pos[0], benchmarkFile(*root, pos[0]))
	if err != nil {
		return registryPath(*root, err)
	}
	if err := benchmark.RenderLint(stdout, *format, rep); err != nil {
		return err
	}
	if rep.Failed() {
		return exitWith(exitFail)
	}
	return nil
}

// benchmarkFile is the file that a command-line path names, nil when it
// names none.
func benchmarkFile(root, p string) *benchmark.File {
	info, err := os.Stat(p)
	if err != nil || info.IsDir() {
		return nil
	}
	dir, base := filepath.Split(p)
	if dir == "" {
		dir = "."
	}
	f := &benchmark.File{FS: os.DirFS(dir), Name: base}
	f.FromRoot, _ = fromRoot(root, p)
	return f
}
