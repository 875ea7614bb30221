package verify

import (
	"reflect"
	"testing"

	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/roundtrip"
)

// TestCacheRecordRoundTrip: every field of a Result, its Meta, its
// findings and its outcomes comes back from the cache as it went in,
// including fields added after this test was written.
func TestCacheRecordRoundTrip(t *testing.T) {
	roundtrip.Check(t, encodeResult, decodeResult)
}

// TestCachedResultsAreFresh: a result read from the cache is the result
// verification gives, field by field, for both kinds of submission.
func TestCachedResultsAreFresh(t *testing.T) {
	fsys := board(t, rubricMeta(), rubricScores(), rubricDir)
	for k, v := range board(t, mcqMeta(), mcqScores(), mcqDir) {
		fsys[k] = v
	}
	dirs := []string{rubricDir, mcqDir}
	plain, err := New(fsys, Options{Today: testToday})
	if err != nil {
		t.Fatal(err)
	}
	fresh := plain.VerifyAll(dirs)
	cache := &countingCache{Dir: filecache.Dir(t.TempDir())}
	for run := 1; run <= 2; run++ {
		v, err := New(fsys, Options{Today: testToday, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		got := v.VerifyAll(dirs)
		for i := range dirs {
			for _, d := range roundtrip.Diff(reflect.ValueOf(got.Submissions[i]), reflect.ValueOf(fresh.Submissions[i]), "Result") {
				t.Errorf("run %d, %s: %s differs from a verification without the cache", run, dirs[i], d)
			}
		}
	}
	if cache.hits != 2 {
		t.Errorf("%d cache hits on the second run, want 2", cache.hits)
	}
	if m := fresh.Submissions[1].Meta; m == nil || m.ModelName == "" || len(m.Lines) == 0 {
		t.Fatalf("the test's submission has no meta to compare: %+v", m)
	}
}
