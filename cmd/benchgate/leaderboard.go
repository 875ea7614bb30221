package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/ranking"
	"github.com/benchgate/benchgate/verify"
)

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
	for _, o := range ranking.Outputs {
		formats = append(formats, o.Format)
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
	files, err := ranking.Files(board, *format)
	if err != nil {
		fmt.Fprintf(stderr, "benchgate leaderboard: %v\n", err)
		return exitUsage
	}
	for _, o := range ranking.Outputs {
		data, ok := files[o.File]
		if !ok {
			continue
		}
		path := filepath.Join(*out, o.File)
		if err := generate.WriteAtomic(path, data); err != nil {
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
