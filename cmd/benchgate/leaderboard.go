package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/ranking"
	"github.com/benchgate/benchgate/verify"
)

// outputs are the files of the published leaderboard, by format.
var outputs = []struct {
	format, file string
	render       func(io.Writer, *ranking.Board) error
}{
	{"md", "LEADERBOARD.md", ranking.RenderMarkdown},
	{"html", "index.html", ranking.RenderHTML},
	{"json", "leaderboard.json", ranking.RenderJSON},
}

func runLeaderboard(args []string, stdout, stderr io.Writer) int {
	fl := newFlagSet("leaderboard", "[--root DIR] [--out DIR] [--format md|html|json|all] [--as-of YYYY-MM-DD]", stderr)
	root := fl.String("root", ".", "the leaderboard repository (registry, benchmarks, submissions)")
	out := fl.String("out", "", "output folder (default: leaderboard/ in the root)")
	format := fl.String("format", "all", "what to write: md, html, json or all")
	asOf := fl.String("as-of", "", "the date printed on the board; without it the output holds no date, so the same submissions give identical files")
	cacheDir := fl.String("cache", defaultCacheDir(), "folder for cached verification results (empty: no cache)")
	if _, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	}
	formats := []string{"all"}
	for _, o := range outputs {
		formats = append(formats, o.format)
	}
	if err := oneOf(*format, formats); err != nil {
		fmt.Fprintf(stderr, "benchgate leaderboard: %v\n", err)
		return exitUsage
	}
	if *out == "" {
		*out = filepath.Join(*root, "leaderboard")
	}
	opts := verify.Options{}
	lopts := ranking.Options{AsOf: *asOf}
	if *cacheDir != "" {
		opts.Cache = filecache.Dir(*cacheDir)
		lopts.Cache = filecache.Dir(*cacheDir)
	}
	v, err := verify.New(os.DirFS(*root), opts)
	if err != nil {
		fmt.Fprintf(stderr, "benchgate leaderboard: %v\n", err)
		return exitUsage
	}
	dirs, err := v.Discover()
	if err != nil {
		fmt.Fprintf(stderr, "benchgate leaderboard: cannot list submissions: %v\n", err)
		return exitUsage
	}
	report := v.VerifyAll(dirs)
	board, err := ranking.Build(v, report.Submissions, lopts)
	if err != nil {
		fmt.Fprintf(stderr, "benchgate leaderboard: %v\n", err)
		return exitUsage
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "benchgate leaderboard: %v\n", err)
		return exitUsage
	}
	for _, o := range outputs {
		if *format != "all" && *format != o.format {
			continue
		}
		var buf bytes.Buffer
		if err := o.render(&buf, board); err != nil {
			fmt.Fprintf(stderr, "benchgate leaderboard: %s: %v\n", o.file, err)
			return exitUsage
		}
		path := filepath.Join(*out, o.file)
		if err := generate.WriteAtomic(path, buf.Bytes()); err != nil {
			fmt.Fprintf(stderr, "benchgate leaderboard: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	ranked := 0
	for _, b := range board.Benchmarks {
		ranked += len(b.Entries)
	}
	fmt.Fprintf(stdout, "%d submission(s): %d ranked, %d not ranked (%d failed, %d need review)\n", len(report.Submissions), ranked, len(report.Submissions)-ranked, report.Failed, report.Review)
	return exitOK
}

// defaultCacheDir keeps cached results out of the repository.
func defaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "benchgate")
	}
	return ""
}
