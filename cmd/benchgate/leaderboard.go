package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/atomicfile"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/ranking"
)

func runLeaderboard(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("leaderboard", "[--root DIR] [--out DIR] [--format md|html|json|csv|all] [--as-of YYYY-MM-DD] [--title TEXT] [--cache DIR]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository (registry, benchmarks, submissions)")
	out := fl.String("out", "", "output folder (default: leaderboard/ in the root)")
	format := fl.String("format", "all", "what to write: md, html, json, csv or all")
	asOf := fl.String("as-of", "", "the date printed on the board; without it the output holds no date, so the same submissions give identical files")
	title := fl.String("title", "", "the board's title; without it, the first heading of "+ranking.IntroFile+" in the root, else \""+ranking.DefaultTitle+"\"")
	cacheDir := fl.String("cache", filecache.DefaultDir(os.Getenv), "folder for cached verification results, rankings and parts of the page; $"+filecache.EnvVar+" sets the default; empty: no cache")
	if _, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	}
	formats := []string{"all"}
	for _, o := range ranking.Outputs {
		formats = append(formats, o.Format)
	}
	if err := oneOf(*format, formats); err != nil {
		return err
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(root, "leaderboard")
	}
	history, err := ranking.GitHistory(root, "")
	if err != nil {
		return err
	}
	opts := ranking.GenerateOptions{Board: ranking.Options{AsOf: *asOf}, Formats: []string{*format}, Title: *title, History: history}
	if *cacheDir != "" {
		opts.Cache = filecache.Dir(*cacheDir)
	}
	g, err := ranking.Generate(boardFS(root), opts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, o := range ranking.Outputs {
		data, ok := g.Files[o.File]
		if !ok {
			continue
		}
		path := filepath.Join(*out, o.File)
		if err := atomicfile.Write(path, data); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	rep := g.Report
	n, ranked := len(rep.Submissions), g.Board.Ranked()
	fmt.Fprintf(stdout, "%d submission(s): %d ranked, %d not ranked (%d failed, %d need review)\n", n, ranked, n-ranked, rep.Failed, rep.Review)
	return nil
}
