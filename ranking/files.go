package ranking

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Output is one file of the published leaderboard.
type Output struct {
	Format string // md, html, json or csv
	File   string // its name in the output folder
	render func(io.Writer, *Board, Store) error
}

// Render writes the file for b.
func (o Output) Render(w io.Writer, b *Board) error { return o.render(w, b, nil) }

// Outputs are the files `benchgate leaderboard` and the App publish.
var Outputs = []Output{
	{"md", "LEADERBOARD.md", func(w io.Writer, b *Board, _ Store) error { return RenderMarkdown(w, b) }},
	{"html", "index.html", renderHTML},
	{"json", "leaderboard.json", func(w io.Writer, b *Board, _ Store) error { return RenderJSON(w, b) }},
	{"csv", CSVFile, func(w io.Writer, b *Board, _ Store) error { return RenderCSV(w, b) }},
}

// CSVFile is the name of the CSV output, which the page links to.
const CSVFile = "leaderboard.csv"

// Files renders the outputs whose format is in formats ("all" or empty:
// every one), by file name.
func Files(b *Board, formats ...string) (map[string][]byte, error) {
	return files(b, nil, formats)
}

// files is Files, keeping rendered parts in cache when it is set.
func files(b *Board, cache Store, formats []string) (map[string][]byte, error) {
	want := map[string]bool{}
	known := []string{"all"}
	for _, o := range Outputs {
		known = append(known, o.Format)
	}
	for _, f := range formats {
		if !slices.Contains(known, f) {
			return nil, fmt.Errorf("unknown output format %q; the formats are %s", f, strings.Join(known, ", "))
		}
		want[f] = true
	}
	all := len(formats) == 0 || want["all"]
	out := map[string][]byte{}
	for _, o := range Outputs {
		if !all && !want[o.Format] {
			continue
		}
		var buf bytes.Buffer
		if err := o.render(&buf, b, cache); err != nil {
			return nil, fmt.Errorf("%s: %w", o.File, err)
		}
		out[o.File] = buf.Bytes()
	}
	return out, nil
}
