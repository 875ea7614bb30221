package ranking

import (
	"testing"

	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/synth"
	"github.com/benchgate/benchgate/verify"
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

// BenchmarkBuild1000 ranks the 1,000 × 500 board of bench/leaderboard.sh,
// verified once beforehand, with no cache: for each of its five
// benchmarks of 200 models, the bootstrap and the family of 19,900 paired
// tests with all they give.
func BenchmarkBuild1000(b *testing.B) {
	files1000, err := synth.Board(1000, 5, 500, 1)
	if err != nil {
		b.Fatal(err)
	}
	v, err := verify.New(files1000.MapFS(), verify.Options{})
	if err != nil {
		b.Fatal(err)
	}
	dirs, err := v.Discover()
	if err != nil {
		b.Fatal(err)
	}
	results := v.VerifyAll(dirs).Submissions
	for b.Loop() {
		if _, err := Build(v, results, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
