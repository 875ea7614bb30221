package verify

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenReport verifies a small board with one submission of each verdict,
// including contributor strings that try to inject markdown and HTML.
func goldenReport(t *testing.T) Report {
	fsys := board(t, rubricMeta(), rubricScores(), rubricDir)
	rows := mcqScores()
	rows[1]["answer"], rows[1]["correct"] = "B", true // a dispute
	for k, v := range board(t, mcqMeta(), rows, mcqDir) {
		fsys[k] = v
	}
	review := rubricScores()
	review[1]["score_b"] = nil
	for k, v := range board(t, rubricMeta(), review, "submissions/model-benchmark/z-review") {
		fsys[k] = v
	}
	meta := mcqMeta()
	meta["rubric_key"] = "<img src=x onerror=alert(1)> [click](https://evil.example) @maintainers | `x`"
	for k, v := range board(t, meta, mcqScores(), "submissions/model-benchmark/w-inject") {
		fsys[k] = v
	}
	return verifyBoard(t, fsys)
}

func TestRenderGolden(t *testing.T) {
	rep := goldenReport(t)
	for _, tc := range []struct{ format, file string }{
		{"text", "report.txt"},
		{"json", "report.json"},
		{"markdown", "report.md"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, tc.format, rep); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", tc.file)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./verify -run TestRenderGolden -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s output differs from %s:\n%s", tc.format, path, buf.String())
			}
		})
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	if err := Render(&bytes.Buffer{}, "yaml", Report{}); err == nil {
		t.Error("no error for an unknown format")
	}
}
