package publish

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/gitserver"
)

// BenchmarkPublishHistory is what the App's clone of a leaderboard costs
// with and without the branch's history, on a repository grown by merges:
// each adds one submission (a scores.json of 40 KB) and regenerates the
// board (an index.html and a leaderboard.json that grow by an entry). The
// regeneration stops at once, so each iteration is the clone and the
// checkout.
//
//	go test ./bot/publish -run '^$' -bench PublishHistory -benchtime 5x
func BenchmarkPublishHistory(b *testing.B) {
	for _, merges := range []int{100, 400} {
		s := gitserver.New(b, token)
		name := fmt.Sprintf("board-%d", merges)
		s.CreateRepo(b, name, map[string][]byte{"README.md": []byte("# Leaderboard\n")}, branch)
		rng := rand.New(rand.NewPCG(uint64(merges), 1))
		var rows, entries []string
		for i := range merges {
			var scores strings.Builder
			scores.WriteString("[\n")
			for q := range 400 {
				fmt.Fprintf(&scores, "  {\"id\": \"q%03d\", \"score_b\": %d, \"score_b_reason\": \"component %d met\"},\n", q, rng.IntN(11), rng.IntN(9))
			}
			scores.WriteString("]\n")
			rows = append(rows, fmt.Sprintf("<tr><td>%d</td><td>model-%04d</td><td>%.2f</td></tr>", i+1, i, 10*rng.Float64()))
			entries = append(entries, fmt.Sprintf("{\"model\": \"model-%04d\", \"score\": %.4f}", i, 10*rng.Float64()))
			s.Commit(b, name, branch, map[string][]byte{
				fmt.Sprintf("submissions/model-benchmark/model-%04d/scores.json", i): []byte(scores.String()),
				"leaderboard/index.html":       []byte("<table>" + strings.Join(rows, "\n") + "</table>"),
				"leaderboard/leaderboard.json": []byte("[" + strings.Join(entries, ",\n") + "]"),
			}, fmt.Sprintf("Merge pull request #%d from someone/model-%04d", i+1, i))
		}
		cfg := Config{RepoURL: s.RepoURL(name), Token: token, Branch: branch, AuthorName: "a[bot]", AuthorEmail: "1+a[bot]@users.noreply.github.com", OutDir: "leaderboard"}
		stop := errors.New("stop after the checkout")
		cloned := func(ctx context.Context, tree Tree) (map[string][]byte, error) { return nil, stop }
		for _, history := range []bool{false, true} {
			b.Run(fmt.Sprintf("merges=%d/history=%t", merges, history), func(b *testing.B) {
				c := cfg
				c.History = history
				for b.Loop() {
					if _, err := Publish(context.Background(), c, cloned); !errors.Is(err, stop) {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
