// Command pagesize generates a leaderboard's published files, the page and
// the instance explorer's files beside it, into a folder, and prints their
// sizes: what a reader downloads on opening the page, and on opening one
// model or one benchmark's questions.
//
// Usage:
//
//	go run ./bench/pagesize -root BOARD -out DIR [-as-of YYYY-MM-DD]
//
// The page heights at 1400 px and 390 × 844 of the folder it writes are
// measured in Chromium by
//
//	BENCHGATE_PAGE_DIR=DIR go test ./ranking -run TestPageHeights -v
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/ranking"
	"github.com/benchgate/benchgate/submission"
)

func main() {
	root := flag.String("root", "", "the leaderboard repository (registry, benchmarks, submissions; required)")
	out := flag.String("out", "", "folder to write the files into (required)")
	asOf := flag.String("as-of", "", "the date printed on the board")
	flag.Parse()
	if *root == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: pagesize -root BOARD -out DIR [-as-of YYYY-MM-DD]")
		os.Exit(2)
	}
	g, err := ranking.Generate(submission.NoLinks(os.DirFS(*root)), ranking.GenerateOptions{Board: ranking.Options{AsOf: *asOf}, Explore: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	names := make([]string, 0, len(g.Files))
	for name := range g.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	var models, modelBytes, largest, questions, questionBytes int
	for _, name := range names {
		data := g.Files[name]
		path := filepath.Join(*out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		switch {
		case !strings.HasPrefix(name, ranking.ExploreDir+"/"):
			fmt.Printf("%-40s %9d bytes\n", name, len(data))
		case strings.HasSuffix(name, "/questions.json"):
			questions++
			questionBytes += len(data)
		default:
			models++
			modelBytes += len(data)
			largest = max(largest, len(data))
		}
	}
	if models > 0 {
		fmt.Printf("%s: %d entries' answers, %d bytes in all, %d on average, %d the largest\n", ranking.ExploreDir, models, modelBytes, modelBytes/models, largest)
		fmt.Printf("%s: %d benchmarks' questions, %d bytes in all\n", ranking.ExploreDir, questions, questionBytes)
	}
}
