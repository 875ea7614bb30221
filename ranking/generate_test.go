package ranking

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/synth"
	"github.com/benchgate/benchgate/verify"
)

func generate(t *testing.T, fsys fstest.MapFS, cache Store) map[string][]byte {
	t.Helper()
	g, err := Generate(fsys, GenerateOptions{Verify: verify.Options{Today: today}, Board: Options{AsOf: "2026-11-29"}, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range Outputs {
		if _, ok := g.Files[o.File]; !ok {
			t.Fatalf("%s not rendered", o.File)
		}
	}
	return g.Files
}

// sameFiles fails t for every output that differs between two runs.
func sameFiles(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	for _, o := range Outputs {
		if !bytes.Equal(got[o.File], want[o.File]) {
			t.Errorf("%s: %s differs (%d bytes, want %d)", what, o.File, len(got[o.File]), len(want[o.File]))
		}
	}
}

// syntheticBoard is a board of many submissions on two mcq benchmarks and
// a rubric benchmark.
func syntheticBoard(t *testing.T) fstest.MapFS {
	t.Helper()
	files, err := synth.Board(24, 2, 120, 3)
	if err != nil {
		t.Fatal(err)
	}
	fsys := files.MapFS()
	rub, err := synth.Rubric(12, 5)
	if err != nil {
		t.Fatal(err)
	}
	// One registry with the rubric benchmark beside the two mcq ones.
	var reg, rreg []map[string]any
	json.Unmarshal(fsys[synth.RegistryFile].Data, &reg)
	json.Unmarshal(rub[synth.RegistryFile], &rreg)
	data, _ := json.Marshal(append(reg, rreg...))
	fsys[synth.RegistryFile] = &fstest.MapFile{Data: data}
	for p, data := range rub {
		if p != synth.RegistryFile {
			fsys[p] = &fstest.MapFile{Data: data}
		}
	}
	return fsys
}

// TestWarmCacheChangesNothing: a run whose results all come from the
// cache writes the same bytes as the run that filled it and as a run
// without a cache, for every output; after one submission's meta.json
// changes, the cached board shows the new values and still equals an
// uncached run.
func TestWarmCacheChangesNothing(t *testing.T) {
	boards := map[string]struct {
		fsys fstest.MapFS
		meta string // the submission whose meta.json is edited
	}{
		"example":   {exampleBoard(t), "submissions/model-benchmark/qwen3-32b-reservoir/meta.json"},
		"synthetic": {syntheticBoard(t), "submissions/model-benchmark/synth-0007/meta.json"},
	}
	for name, b := range boards {
		t.Run(name, func(t *testing.T) {
			cache := &countingStore{Dir: filecache.Dir(t.TempDir())}
			plain := generate(t, b.fsys, nil)
			cold := generate(t, b.fsys, cache)
			cache.puts = 0
			warm := generate(t, b.fsys, cache)
			sameFiles(t, "cold run", cold, plain)
			sameFiles(t, "warm run", warm, plain)
			if cache.puts != 0 {
				t.Errorf("the warm run computed %d results again (cache writes)", cache.puts)
			}
			if !strings.Contains(string(warm["LEADERBOARD.md"]), "| 1 | ") {
				t.Fatalf("no ranked entry to compare:\n%s", warm["LEADERBOARD.md"])
			}

			var meta map[string]any
			if err := json.Unmarshal(b.fsys[b.meta].Data, &meta); err != nil {
				t.Fatal(err)
			}
			meta["model_name"] = "Renamed Model 9000"
			meta["harness_name"] = "renamed-harness"
			meta["submitter"] = "renamed-submitter"
			b.fsys[b.meta].Data, _ = json.Marshal(meta)
			edited := generate(t, b.fsys, cache)
			sameFiles(t, "after editing meta.json", edited, generate(t, b.fsys, nil))
			for _, o := range Outputs {
				for _, v := range []string{"Renamed Model 9000", "renamed-harness", "renamed-submitter"} {
					if !bytes.Contains(edited[o.File], []byte(v)) {
						t.Errorf("after editing meta.json, %s does not show %q", o.File, v)
					}
				}
			}
		})
	}
}

// countingStore counts what is written to a cache.
type countingStore struct {
	filecache.Dir
	mu   sync.Mutex
	puts int
}

func (c *countingStore) Put(key string, data []byte) {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	c.Dir.Put(key, data)
}

func TestGenerateErrors(t *testing.T) {
	if _, err := Generate(fstest.MapFS{}, GenerateOptions{}); err == nil || !strings.Contains(err.Error(), "registry") {
		t.Errorf("no registry: %v", err)
	}
	if _, err := Generate(exampleBoard(t), GenerateOptions{Board: Options{AsOf: "yesterday"}}); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Errorf("bad date: %v", err)
	}
	if _, err := Generate(exampleBoard(t), GenerateOptions{Formats: []string{"pdf"}}); err == nil || !strings.Contains(err.Error(), `"pdf"`) {
		t.Errorf("unknown format: %v", err)
	}
}
