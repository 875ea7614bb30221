package ranking

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/golden"
)

func TestRenderCSVGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderCSV(&buf, htmlFixtureBoard()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, CSVFile, buf.Bytes())
}

func TestNoFormula(t *testing.T) {
	for in, want := range map[string]string{
		"=1+2":          "'=1+2",
		"+31 6 1234":    "'+31 6 1234",
		"-2":            "'-2",
		"@SUM(A1)":      "'@SUM(A1)",
		"\t=1":          "'\t=1",
		"\r=1":          "'\r=1",
		"Qwen3-32B":     "Qwen3-32B",
		"a=b":           "a=b",
		"":              "",
		"'already text": "'already text",
	} {
		if got := noFormula(in); got != want {
			t.Errorf("noFormula(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGenerateHistory: the history given to Generate is each entry's
// Added, in leaderboard.json and leaderboard.csv; an entry it does not
// know has none.
func TestGenerateHistory(t *testing.T) {
	const path = "submissions/model-benchmark/qwen3-32b-reservoir"
	h := History{path: {Commit: strings.Repeat("ab", 20), PR: 4, URL: "https://github.com/geo/board/pull/4"}}
	g, err := Generate(exampleBoard(t), GenerateOptions{History: h})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, bm := range g.Board.Benchmarks {
		for _, e := range bm.Entries {
			switch {
			case e.Path == path && (e.Added == nil || *e.Added != h[path]):
				t.Errorf("%s: added %+v", e.Path, e.Added)
			case e.Path == path:
				seen++
			case e.Added != nil:
				t.Errorf("%s has %+v, which the history does not give", e.Path, e.Added)
			}
		}
	}
	if seen != 1 {
		t.Fatalf("%s ranked %d times", path, seen)
	}
	recs, err := csv.NewReader(bytes.NewReader(g.Files[CSVFile])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	found := false
	for _, r := range recs[1:] {
		if r[col["path"]] == path {
			found = r[col["commit"]] == h[path].Commit && r[col["pull_request"]] == "4" && r[col["added_url"]] == h[path].URL
		}
	}
	if !found || !bytes.Contains(g.Files["leaderboard.json"], []byte(`"pull_request": 4`)) {
		t.Error("the history is not in leaderboard.csv and leaderboard.json")
	}
}
