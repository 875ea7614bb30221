package ranking

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/benchgate/benchgate/acceptance"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// reviewBoard is the example board with one submission sent to review:
// three of its 40 responses stored cut short where the stored text
// decides no letter (7.5%, above the 5% default).
func reviewBoard(t *testing.T, path string) fstest.MapFS {
	t.Helper()
	fsys := exampleBoard(t)
	var rows []map[string]any
	if err := json.Unmarshal(fsys[path+"/scores.json"].Data, &rows); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 2} {
		rows[i]["response"], rows[i]["response_truncated"] = "Weighing the options, the answer is", true
	}
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	fsys[path+"/scores.json"] = &fstest.MapFile{Data: data}
	return fsys
}

// TestGenerateAcceptance: a submission in review is excluded until a
// maintainer's decision about its version is in acceptances/; then it is
// ranked, shown "accepted after review: <reason>" with its count of
// unverifiable answers in leaderboard.json, LEADERBOARD.md and the page.
// A decision about another version, or a record that cannot be read,
// ranks nothing.
func TestGenerateAcceptance(t *testing.T) {
	const path = "submissions/model-benchmark/qwen3-32b-reservoir"
	fsys := reviewBoard(t, path)
	v, err := verify.New(fsys, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, files := v.VerifyFiles(path)
	if res.Status != verify.Review || *res.Summary.Unverifiable != 3 {
		t.Fatalf("status %s, summary %s; want review with 3 unverifiable", res.Status, res.Summary.Line())
	}
	rec, err := acceptance.Decide(res, files, "FormationEval stored responses cut at 500 characters; the published letters were read from the whole responses", "octocat", time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	good, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	other := rec
	other.Digest = "0000000000000000000000000000000000000000000000000000000000000000"
	stale, _ := other.Encode()
	f, _ := submission.ParseFolder(path)
	file := acceptance.RecordPath(f)

	generate := func(t *testing.T, data []byte) (*Entry, *Generated) {
		t.Helper()
		fs := fstest.MapFS{}
		for k, v := range fsys {
			fs[k] = v
		}
		if data != nil {
			fs[file] = &fstest.MapFile{Data: data}
		}
		g, err := Generate(fs, GenerateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got *Entry
		for _, bm := range g.Board.Benchmarks {
			for i, e := range bm.Entries {
				if e.Path == path {
					got = &bm.Entries[i]
				} else if e.Acceptance != nil {
					t.Errorf("%s marked %+v", e.Path, e.Acceptance)
				}
			}
			for _, x := range bm.Excluded {
				if x.Path == path && got != nil {
					t.Errorf("%s both ranked and excluded", path)
				}
			}
		}
		return got, g
	}

	e, g := generate(t, good)
	if e == nil || e.Acceptance == nil {
		t.Fatalf("accepted submission not ranked with its decision: %+v", e)
	}
	if want := (Acceptance{Reason: rec.Reason, Unverifiable: 3, AcceptedBy: "octocat", Date: "2026-12-02"}); *e.Acceptance != want {
		t.Errorf("acceptance %+v, want %+v", *e.Acceptance, want)
	}
	text := "accepted after review: FormationEval stored responses cut at 500 characters; the published letters were read from the whole responses (3 answers unverifiable; accepted by octocat on 2026-12-02)"
	for name, want := range map[string]string{
		"leaderboard.json": `"reason": "FormationEval stored responses cut at 500 characters`,
		"LEADERBOARD.md":   text,
		"index.html":       "accepted after review: FormationEval stored responses cut at 500 characters",
	} {
		if !bytes.Contains(g.Files[name], []byte(want)) {
			t.Errorf("%s lacks %q", name, want)
		}
	}
	for name, data := range map[string][]byte{"no record": nil, "another version's": stale, "unreadable": []byte(`{"format": "benchgate acceptance 1"}`)} {
		if e, _ := generate(t, data); e != nil {
			t.Errorf("%s: ranked %+v", name, e)
		}
	}
}

// TestGenerateUnknownMeta: the template's null open_weights and prices
// are unknown on the board, not closed weights at $0.
func TestGenerateUnknownMeta(t *testing.T) {
	const path = "submissions/model-benchmark/qwen3-32b-reservoir"
	fsys := exampleBoard(t)
	meta := string(fsys[path+"/meta.json"].Data)
	for _, v := range []string{`"open_weights": true`, `"price_input_per_mtok": 0.1`, `"price_output_per_mtok": 0.3`} {
		meta = strings.Replace(meta, v, v[:strings.Index(v, ":")]+": null", 1)
	}
	fsys[path+"/meta.json"] = &fstest.MapFile{Data: []byte(meta)}
	g, err := Generate(fsys, GenerateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var e *Entry
	for _, bm := range g.Board.Benchmarks {
		for i := range bm.Entries {
			if bm.Entries[i].Path == path {
				e = &bm.Entries[i]
			}
		}
	}
	if e == nil {
		t.Fatalf("%s not ranked", path)
	}
	if e.OpenWeights != nil || e.PriceInput != nil || e.PriceOutput != nil {
		t.Errorf("null read as a value: open %v, prices %v %v", e.OpenWeights, e.PriceInput, e.PriceOutput)
	}
	if got := openWeights(e.OpenWeights); got != "unknown" {
		t.Errorf("open weights shown as %q", got)
	}
	if text, _ := priceText(*e); text != "" {
		t.Errorf("price shown as %q", text)
	}
}
