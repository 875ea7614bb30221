package verify_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/synth"
	"github.com/benchgate/benchgate/verify"
)

// The benchmarks below measure verification at the scale of UpstreamBench
// (7,440 questions from 372 books, ~2 KB responses, ~16 MB scores.json)
// and of a 50-question rubric benchmark, on leaderboards written to disk by
// internal/synth. docs/PERFORMANCE.md records the figures; bench/verify.sh
// runs them.

// mcqBoard writes the UpstreamBench-scale leaderboard once per benchmark
// and returns its root and the size of its scores.json.
func mcqBoard(b *testing.B) (string, int64) {
	b.Helper()
	dir := b.TempDir()
	if err := synth.WriteMCQ(dir, synth.UpstreamQuestions, synth.UpstreamBooks, synth.DefaultResponseBytes, synth.DefaultSeed); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(synth.MCQSubmission), "scores.json"))
	if err != nil {
		b.Fatal(err)
	}
	return dir, st.Size()
}

func reportMBps(b *testing.B, size int64) {
	if s := b.Elapsed().Seconds(); s > 0 && b.N > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/s, "MB/s")
	}
}

// BenchmarkVerifyMCQ7440 verifies the submission from disk the way
// `benchgate verify` does: a fresh Verifier each iteration, so reading the
// registry and loading the 7,440-question benchmark are included.
func BenchmarkVerifyMCQ7440(b *testing.B) {
	dir, size := mcqBoard(b)
	fsys := os.DirFS(dir)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		v, err := verify.New(fsys, verify.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res := v.Verify(synth.MCQSubmission); res.Status != verify.Pass {
			b.Fatalf("status %s: %v", res.Status, res.Errors)
		}
	}
	reportMBps(b, size)
}

// scoreRow holds the fields of an mcq scores.json row.
type scoreRow struct {
	ID               string   `json:"id"`
	Response         string   `json:"response"`
	Answer           *string  `json:"answer"`
	Correct          bool     `json:"correct"`
	Pattern          *string  `json:"pattern"`
	FinishReason     *string  `json:"finish_reason"`
	LatencyMS        *float64 `json:"latency_ms"`
	PromptTokens     *int64   `json:"prompt_tokens"`
	CompletionTokens *int64   `json:"completion_tokens"`
}

// BenchmarkDecodeScoresJSON7440 is the baseline: read the same scores.json
// from disk and decode it with encoding/json into a []struct, with no
// checks at all.
func BenchmarkDecodeScoresJSON7440(b *testing.B) {
	dir, size := mcqBoard(b)
	file := filepath.Join(dir, filepath.FromSlash(synth.MCQSubmission), "scores.json")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		var rows []scoreRow
		if err := json.Unmarshal(data, &rows); err != nil {
			b.Fatal(err)
		}
		if len(rows) != synth.UpstreamQuestions {
			b.Fatalf("%d rows", len(rows))
		}
	}
	reportMBps(b, size)
}

// BenchmarkVerifyRubric50 verifies a 50-question rubric submission from
// disk, with a fresh Verifier each iteration.
func BenchmarkVerifyRubric50(b *testing.B) {
	dir := b.TempDir()
	if err := synth.WriteRubric(dir, synth.RubricQuestions, synth.DefaultSeed); err != nil {
		b.Fatal(err)
	}
	fsys := os.DirFS(dir)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		v, err := verify.New(fsys, verify.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res := v.Verify(synth.RubricSubmission); res.Status != verify.Pass {
			b.Fatalf("status %s: %v", res.Status, res.Errors)
		}
	}
}
