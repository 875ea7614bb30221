package ranking

import (
	"fmt"
	"io/fs"
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
}

// Generated is a leaderboard built and rendered.
type Generated struct {
	Report verify.Report     // the verdict on every submission found
	Board  *Board            // the board built from those that passed
	Files  map[string][]byte // the rendered outputs, by file name (see Outputs)
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
	if g.Files, err = files(g.Board, o.Board.Cache, o.Formats); err != nil {
		return nil, err
	}
	return g, nil
}
