package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing/fstest"

	"github.com/benchgate/benchgate/benchmark"
)

func runLintBenchmark(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("lint-benchmark", "[--root DIR] [--format text|json] KEY|PATH", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository whose registry names KEY")
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
	root, err := rootFlag.locate()
	if err != nil {
		if benchmarkFile(".", pos[0]) == nil {
			return err
		}
		// A benchmark file is linted on its own outside a leaderboard,
		// as before publishing it with init.
		root = ""
	}
	var board fs.FS = fstest.MapFS{}
	if root != "" {
		board = boardFS(root)
	}
	rep, err := benchmark.LintNamed(board, pos[0], benchmarkFile(root, pos[0]))
	if err != nil {
		return registryPath(root, err)
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
// names none; root is "" outside a leaderboard.
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
	if root != "" {
		f.FromRoot, _ = fromRoot(root, p)
	}
	return f
}
