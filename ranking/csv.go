package ranking

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// CSVColumns are the header of leaderboard.csv: every column of the
// page's table, with the numbers unformatted, and where each entry came
// from.
var CSVColumns = []string{
	"benchmark", "benchmark_label", "track", "rank", "rank_ub", "rank_worst", "could_be_best", "group", "model", "harness",
	"score", "ci_low", "ci_high", "max_score", "rank_low", "rank_high", "n",
	"submitter", "open_weights", "price_blended_per_mtok", "price_input_per_mtok", "price_output_per_mtok",
	"date", "path", "commit", "pull_request", "added_url", "reproduction", "reproduction_checked", "reproduction_date",
}

// RenderCSV writes leaderboard.csv: one row per ranked entry, in the
// board's order, as RFC 4180 has it (CRLF line ends, quoted where a cell
// needs it). A cell a spreadsheet would take for a formula is kept as
// text by a leading apostrophe.
func RenderCSV(w io.Writer, b *Board) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return num(*p)
	}
	for i := range b.Benchmarks {
		bm := &b.Benchmarks[i]
		for _, e := range bm.Entries {
			group := ""
			if ts := trackStats(bm, e.Track); separates(ts) {
				group = strconv.Itoa(e.Group)
			}
			blended := ""
			if p, ok := blendedPrice(e); ok {
				blended = num(roundTo(p))
			}
			open := ""
			if e.OpenWeights != nil {
				open = strconv.FormatBool(*e.OpenWeights)
			}
			var commit, pr, link string
			if a := e.Added; a != nil {
				commit, link = a.Commit, a.URL
				if a.PR > 0 {
					pr = strconv.Itoa(a.PR)
				}
			}
			var repro, reproN, reproDate string
			if r := e.Reproduction; r != nil {
				repro, reproN, reproDate = r.Status, strconv.Itoa(r.Checked), r.Date
			}
			row := []string{
				bm.Key, benchLabel(bm), string(e.Track), strconv.Itoa(e.Rank), strconv.Itoa(e.RankUB), strconv.Itoa(e.RankWorst), strconv.FormatBool(e.CouldBeBest), group, e.ModelName, e.HarnessName,
				num(e.Score), num(e.CILow), num(e.CIHigh), num(bm.MaxScore), strconv.Itoa(e.RankLow), strconv.Itoa(e.RankHigh), strconv.Itoa(e.N),
				e.Submitter, open, blended, opt(e.PriceInput), opt(e.PriceOutput),
				e.Date, e.Path, commit, pr, link, repro, reproN, reproDate,
			}
			for k, c := range row {
				row[k] = noFormula(c)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// noFormula keeps a cell that starts like a formula (= + - @, or a tab or
// carriage return before one) from being run by a spreadsheet that opens
// the file: a leading apostrophe makes it text.
func noFormula(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
