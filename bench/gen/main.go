// Command gen writes a synthetic leaderboard for measuring benchgate verify.
//
// Usage:
//
//	go run ./bench/gen -out DIR [-kind mcq|rubric|board] [-questions N] [-books N] [-response-bytes N] [-submissions N] [-benchmarks N] [-seed N]
//
// The defaults give an UpstreamBench-scale multiple-choice leaderboard:
// 7,440 questions from 372 books with responses of about 2 KB. With -kind
// rubric, -questions defaults to 50 and -books and -response-bytes are
// ignored. With -kind board it writes many submissions for measuring
// benchgate leaderboard: -submissions (default 1,000) spread over
// -benchmarks (default 5) benchmarks of -questions (default 500) each. The
// same flags always give the same files.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/synth"
)

func main() {
	out := flag.String("out", "", "folder to write the leaderboard into (required)")
	kind := flag.String("kind", "mcq", "kind of leaderboard: mcq or rubric")
	questions := flag.Int("questions", 0, fmt.Sprintf("number of questions (default %d for mcq, %d for rubric)", synth.UpstreamQuestions, synth.RubricQuestions))
	books := flag.Int("books", synth.UpstreamBooks, "number of source books (mcq)")
	respBytes := flag.Int("response-bytes", synth.DefaultResponseBytes, "approximate length of each response in bytes (mcq)")
	seed := flag.Uint64("seed", synth.DefaultSeed, "seed of the generator")
	subs := flag.Int("submissions", 1000, "number of submissions (board)")
	benches := flag.Int("benchmarks", 5, "number of benchmarks (board)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/gen -out DIR [-kind mcq|rubric|board] [-questions N] [-books N] [-response-bytes N] [-submissions N] [-benchmarks N] [-seed N]")
		os.Exit(2)
	}
	var (
		files synth.Files
		err   error
		sub   string
	)
	switch *kind {
	case "mcq":
		n := *questions
		if n == 0 {
			n = synth.UpstreamQuestions
		}
		files, err = synth.MCQ(n, *books, *respBytes, *seed)
		sub = synth.MCQSubmission
	case "rubric":
		n := *questions
		if n == 0 {
			n = synth.RubricQuestions
		}
		files, err = synth.Rubric(n, *seed)
		sub = synth.RubricSubmission
	case "board":
		n := *questions
		if n == 0 {
			n = 500
		}
		files, err = synth.Board(*subs, *benches, n, *seed)
		sub = "submissions/model-benchmark/synth-0001"
	default:
		err = fmt.Errorf("unknown -kind %q (want mcq, rubric or board)", *kind)
	}
	if err == nil {
		err = files.Write(*out)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
	scores := sub + "/scores.json"
	fmt.Printf("wrote %d files under %s; %s is %d bytes\n", len(files), *out, filepath.FromSlash(scores), len(files[scores]))
}
