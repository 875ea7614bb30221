package ranking

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// TestGenerateReproduction: an entry whose submission has a record of
// its version is marked, in leaderboard.json, leaderboard.csv,
// LEADERBOARD.md and the page; a record of another version, of another
// submission, or that cannot be read marks nothing.
func TestGenerateReproduction(t *testing.T) {
	const path = "submissions/model-benchmark/qwen3-32b-reservoir"
	fsys := exampleBoard(t)
	v, err := verify.New(fsys, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, files := v.VerifyFiles(path)
	digest := reproduce.Digest(res.RubricKey, files)
	f, _ := submission.ParseFolder(path)
	file := reproduce.RecordPath(f)
	record := func(digest string, verdict reproduce.Verdict, sub string) []byte {
		data, err := reproduce.NewRecord(reproduce.Report{Path: sub, Digest: digest, RubricKey: "reservoir-mcq", Verdict: verdict,
			Reason: "r", Checked: 40, Endpoint: "openrouter.ai", Seed: "0123456789abcdef", SeedSource: "secret"}, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)).Encode()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	mark := func(t *testing.T, data []byte) (*Reproduction, *Generated) {
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
		var got *Reproduction
		for _, bm := range g.Board.Benchmarks {
			for _, e := range bm.Entries {
				switch {
				case e.Path == path:
					got = e.Reproduction
				case e.Reproduction != nil:
					t.Errorf("%s marked %+v", e.Path, e.Reproduction)
				}
			}
		}
		return got, g
	}

	got, g := mark(t, record(digest, reproduce.Consistent, path))
	if got == nil || *got != (Reproduction{Status: "reproduced", Checked: 40, Date: "2026-12-02"}) {
		t.Fatalf("mark %+v", got)
	}
	for name, want := range map[string]string{
		"leaderboard.json": `"status": "reproduced"`,
		CSVFile:            ",reproduced,40,2026-12-02",
		"LEADERBOARD.md":   "reproduced on 2026-12-02: the model the submission names, asked 40 of its questions again",
		"index.html":       "reproduced on 2026-12-02",
	} {
		if !bytes.Contains(g.Files[name], []byte(want)) {
			t.Errorf("%s lacks %q", name, want)
		}
	}
	if got, _ := mark(t, record(digest, reproduce.Inconsistent, path)); got == nil || got.Status != "inconsistent" {
		t.Errorf("inconsistent record: %+v", got)
	}
	for name, data := range map[string][]byte{
		"no record":                    nil,
		"a record of another version":  record(strings.Repeat("0", 64), reproduce.Consistent, path),
		"a record of another folder":   record(digest, reproduce.Consistent, "submissions/model-benchmark/llama-3.3-70b-reservoir"),
		"a record that cannot be read": []byte(`{"format": "benchgate reproduction 1"}`),
	} {
		if got, _ := mark(t, data); got != nil {
			t.Errorf("%s: marked %+v", name, got)
		}
	}
}
