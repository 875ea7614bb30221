package ranking

import (
	"testing"

	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/synth"
)

// BenchmarkRenderHTML1000 renders index.html of the 1,000 × 500 board of
// bench/leaderboard.sh, whole ("uncached") and from the parts a previous
// run cached ("cached"), on all of GOMAXPROCS.
func BenchmarkRenderHTML1000(b *testing.B) {
	files1000, err := synth.Board(1000, 5, 500, 1)
	if err != nil {
		b.Fatal(err)
	}
	g, err := Generate(files1000.MapFS(), GenerateOptions{Formats: []string{"json"}})
	if err != nil {
		b.Fatal(err)
	}
	cache := filecache.Dir(b.TempDir())
	if _, err := files(g.Board, cache, []string{"html"}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		cache Store
	}{{"uncached", nil}, {"cached", cache}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := files(g.Board, bc.cache, []string{"html"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
