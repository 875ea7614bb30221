package verify

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/filecache"
)

// TestVerifySubmitter: with Options.Submitter set, meta.json must name
// that login as its submitter, in any case; the finding points at the
// line and says what to write. A cached result of one submitter is never
// another's.
func TestVerifySubmitter(t *testing.T) {
	fsys := board(t, rubricMeta(), rubricScores(), rubricDir) // submitter "lab"
	tests := []struct {
		name, submitter string
		want            string // the finding's message, or "" for none
	}{
		{"no submitter to bind", "", ""},
		{"the same login", "lab", ""},
		{"the same login in another case", "LaB", ""},
		{"another login", "carol", `set "submitter" to your GitHub login, "carol" (logins compare case-insensitively, as on GitHub), since submitter is always the GitHub login of the pull request's author`},
		{"a login that only starts the same", "lab2", `submitter is "lab"`},
	}
	cache := &countingCache{Dir: filecache.Dir(t.TempDir())}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []Store{nil, cache, cache} { // fresh, then cached
				v, err := New(fsys, Options{Today: testToday, Submitter: tt.submitter, Cache: c})
				if err != nil {
					t.Fatal(err)
				}
				r := v.Verify(rubricDir)
				var got []string
				for _, f := range r.Errors {
					got = append(got, f.Code)
				}
				if tt.want == "" {
					if r.Status != Pass {
						t.Errorf("status %s %v, want pass", r.Status, got)
					}
					continue
				}
				if r.Status != Fail || len(r.Errors) != 1 || r.Errors[0].Code != "meta.submitter" {
					t.Fatalf("status %s %v, want a fail with meta.submitter alone", r.Status, got)
				}
				f := r.Errors[0]
				if f.File != rubricDir+"/meta.json" || f.Line < 2 || !strings.Contains(f.Message, tt.want) {
					t.Errorf("finding %s:%d %q, want meta.json's submitter line saying %q", f.File, f.Line, f.Message, tt.want)
				}
			}
		})
	}
	if cache.hits == 0 {
		t.Error("no result came from the cache: the cached runs were not tested")
	}
}

// TestVerifySubmitterLookalike: a GitHub login is ASCII, so a submitter
// written with a look-alike (the Kelvin sign, which strings.EqualFold
// folds to k; a Cyrillic letter) is no login: it is refused on its line,
// naming the character, whether or not there is an author to bind it to.
// An ASCII name that is not a login stands when nothing is bound.
func TestVerifySubmitterLookalike(t *testing.T) {
	tests := []struct {
		name, claimed, author string
		want                  string // the finding's message, or "" for none
	}{
		{"the Kelvin sign for the author's k", "\u212Aim", "kim", "U+212A, not ASCII"},
		{"the Kelvin sign, nobody bound", "\u212Aim", "", "U+212A, not ASCII"},
		{"a Cyrillic i", "k\u0456m", "kim", "U+0456, not ASCII"},
		{"a Cyrillic a, nobody bound", "l\u0430b", "", "U+0430, not ASCII"},
		{"an ASCII name that is no login, bound", "Lab Inc", "lab", `character 4 of "Lab Inc" is ' '`},
		{"an ASCII name that is no login, nobody bound", "Lab Inc", "", ""},
		{"the author's login in ASCII", "KIM", "kim", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := rubricMeta()
			meta["submitter"] = tt.claimed
			v, err := New(board(t, meta, rubricScores(), rubricDir), Options{Today: testToday, Submitter: tt.author})
			if err != nil {
				t.Fatal(err)
			}
			r := v.Verify(rubricDir)
			if tt.want == "" {
				if r.Status != Pass {
					t.Errorf("status %s %v, want pass", r.Status, r.Errors)
				}
				return
			}
			if r.Status != Fail || len(r.Errors) != 1 || r.Errors[0].Code != "meta.submitter" {
				t.Fatalf("status %s %v, want a fail with meta.submitter alone", r.Status, r.Errors)
			}
			f := r.Errors[0]
			if f.File != rubricDir+"/meta.json" || f.Line < 2 || !strings.Contains(f.Message, "submitter is not a GitHub login") || !strings.Contains(f.Message, tt.want) {
				t.Errorf("finding %s:%d %q, want meta.json's submitter line saying %q", f.File, f.Line, f.Message, tt.want)
			}
		})
	}
}
