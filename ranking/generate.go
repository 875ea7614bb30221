package ranking

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/benchgate/benchgate/verify"
)

// GenerateOptions say how Generate verifies, ranks and renders.
type GenerateOptions struct {
	Verify verify.Options // how each submission is verified
	Board  Options        // the date and the statistics of the board
	// Cache, when set, keeps the verification results, the rankings and
	// the rendered parts of the page between runs, in place of
	// Verify.Cache and Board.Cache.
	Cache Store
	// Formats are the outputs to render (md, html, json, csv); none or
	// "all" renders every one.
	Formats []string
	// Title, when set, is the board's title, in place of the heading of
	// the tree's IntroFile.
	Title string
	// History, when set, says which commit and pull request added each
	// submission folder (see GitHistory); entries it does not know have
	// no Added.
	History History
	// Explore, with the page among the formats, also writes the instance
	// explorer's files beside it (ExploreDir), and the page links each
	// row to its answers. They hold every response again, about the size
	// of the submissions' scores.json files, and cost about a quarter of
	// a cold run's CPU (docs/PERFORMANCE.md); with Cache set, the file
	// of a submission whose scores.json is unchanged is not made again.
	Explore bool
}

// Generated is a leaderboard built and rendered.
type Generated struct {
	Report verify.Report // the verdict on every submission found
	Board  *Board        // the board built from those that passed
	// Files are the rendered outputs, by file name (see Outputs), and,
	// with Explore, the explorer's files, by path under ExploreDir.
	Files map[string][]byte
}

// Generate is the leaderboard pipeline, the one `benchgate leaderboard`
// and the App both run: it finds every submission under submissions/ of
// the leaderboard tree fsys, verifies each with the same code as
// `benchgate verify`, ranks those that pass and renders the published
// files. The same tree and options always give the same bytes, with the
// cache or without it.
func Generate(fsys fs.FS, o GenerateOptions) (*Generated, error) {
	if o.Cache != nil {
		o.Verify.Cache, o.Board.Cache = o.Cache, o.Cache
	}
	// Options are checked before any submission is read.
	if _, err := o.Board.withDefaults(); err != nil {
		return nil, err
	}
	v, err := verify.New(fsys, o.Verify)
	if err != nil {
		return nil, err
	}
	dirs, err := v.Discover()
	if err != nil {
		return nil, fmt.Errorf("cannot list the submissions: %w", err)
	}
	title, intro, err := ReadIntro(fsys)
	if err != nil {
		return nil, err
	}
	if o.Title != "" {
		title = o.Title
	}
	g := &Generated{Report: v.VerifyAll(dirs)}
	o.Board.Accepted = readAcceptances(fsys, v, g.Report.Submissions)
	if g.Board, err = Build(v, g.Report.Submissions, o.Board); err != nil {
		return nil, err
	}
	g.Board.Title, g.Board.Introduction = strings.TrimSpace(title), intro
	if o.History != nil {
		addHistory(g.Board, o.History)
	}
	addReproductions(fsys, v, g.Board)
	// The explorer's files go with the page that reads them.
	g.Board.explore = o.Explore && (len(o.Formats) == 0 || slices.Contains(o.Formats, "all") || slices.Contains(o.Formats, "html"))
	if g.Files, err = files(g.Board, o.Board.Cache, o.Formats); err != nil {
		return nil, err
	}
	if g.Board.explore {
		more, err := exploreFiles(fsys, v, g.Board, o.Board.Cache)
		if err != nil {
			return nil, fmt.Errorf("the explorer's files: %w", err)
		}
		for name, data := range more {
			g.Files[name] = data
		}
	}
	return g, nil
}
