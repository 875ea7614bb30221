package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/atomicfile"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/ranking"
)

func runLeaderboard(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("leaderboard", "[--root DIR] [--out DIR] [--format md|html|json|csv|all] [--as-of YYYY-MM-DD] [--title TEXT] [--cache DIR] [--explore=false]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository (registry, benchmarks, submissions)")
	out := fl.String("out", "", "output folder (default: leaderboard/ in the root)")
	format := fl.String("format", "all", "what to write: md, html, json, csv or all")
	asOf := fl.String("as-of", "", "the date printed on the board; without it the output holds no date, so the same submissions give identical files")
	title := fl.String("title", "", "the board's title; without it, the first heading of "+ranking.IntroFile+" in the root, else \""+ranking.DefaultTitle+"\"")
	explore := fl.Bool("explore", true, "with the page, also write the instance explorer's files (each model's answers, each question's answers) under "+ranking.ExploreDir+"/, which the page loads when a reader opens a model or a question")
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
	opts := ranking.GenerateOptions{Board: ranking.Options{AsOf: *asOf}, Formats: []string{*format}, Title: *title, History: history, Explore: *explore}
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
	if !*explore && (*format == "all" || *format == "html") {
		// A page written without the explorer must not be published beside
		// an earlier run's answers.
		if err := os.RemoveAll(filepath.Join(*out, ranking.ExploreDir)); err != nil {
			return err
		}
	}
	if n, err := writeExplorer(*out, g.Files); err != nil {
		return err
	} else if n > 0 {
		fmt.Fprintf(stdout, "wrote %d explorer file(s) in %s\n", n, filepath.Join(*out, ranking.ExploreDir))
	}
	rep := g.Report
	n, ranked := len(rep.Submissions), g.Board.Ranked()
	fmt.Fprintf(stdout, "%d submission(s): %d ranked, %d not ranked (%d failed, %d need review)\n", n, ranked, n-ranked, rep.Failed, rep.Review)
	return nil
}

// writeExplorer writes the explorer's files of files (those under
// ranking.ExploreDir) beneath out, after removing the folder's earlier
// contents: the explorer is generated whole, and a model no longer on the
// board must not keep its answers there. It returns how many it wrote.
func writeExplorer(out string, files map[string][]byte) (int, error) {
	var names []string
	for name := range files {
		if strings.HasPrefix(name, ranking.ExploreDir+"/") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return 0, nil
	}
	sort.Strings(names)
	dir := filepath.Join(out, ranking.ExploreDir)
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	for _, name := range names {
		path := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return 0, err
		}
		if err := atomicfile.Write(path, files[name]); err != nil {
			return 0, err
		}
	}
	return len(names), nil
}
