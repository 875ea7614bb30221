package hfhub

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestTreeEntryRefused: an entry of a tree listing that the client cannot
// stand on is refused with what is wrong with it, never taken.
func TestTreeEntryRefused(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct{ name, entry, says string }{
		{"no oid", `{"type":"file","path":"a.json","size":1}`, "needs type, path, oid and size"},
		{"an unknown type", `{"type":"link","path":"a.json","oid":"` + sha + `","size":1}`, "none of file, directory, unknown"},
		{"a path out of the repository", `{"type":"file","path":"../a.json","oid":"` + sha + `","size":1}`, "not a clean relative path"},
		{"an absolute path", `{"type":"file","path":"/a.json","oid":"` + sha + `","size":1}`, "not a clean relative path"},
		{"a path with a dot", `{"type":"file","path":"a/./b.json","oid":"` + sha + `","size":1}`, "not a clean relative path"},
		{"a path with a double slash", `{"type":"file","path":"a//b.json","oid":"` + sha + `","size":1}`, "not a clean relative path"},
		{"a negative size", `{"type":"file","path":"a.json","oid":"` + sha + `","size":-1}`, "negative size"},
		{"a short oid", `{"type":"file","path":"a.json","oid":"0123","size":1}`, "not a git sha1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r rawEntry
			if err := decodeStrict([]byte(tc.entry), &r); err != nil {
				t.Fatal(err)
			}
			if _, err := r.validate(); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("got %v, want an error saying %q", err, tc.says)
			}
		})
	}
}

// FuzzTreeEntry: whatever the Hub sends as an entry, reading it never
// panics, and an entry taken has a clean relative path.
func FuzzTreeEntry(f *testing.F) {
	f.Add(`{"type":"file","path":"submissions/a/meta.json","oid":"0123456789abcdef0123456789abcdef01234567","size":12}`)
	f.Add(`{"type":"directory","path":"submissions","oid":"0123456789abcdef0123456789abcdef01234567","size":0}`)
	f.Add(`{"type":"file","path":"s.json","oid":"0123456789abcdef0123456789abcdef01234567","size":9,"lfs":{"oid":"ab","size":9}}`)
	f.Fuzz(func(t *testing.T, data string) {
		var r rawEntry
		if json.Unmarshal([]byte(data), &r) != nil {
			return
		}
		e, err := r.validate()
		if err == nil && (e.Path == "" || strings.HasPrefix(e.Path, "/") || slices.Contains(strings.Split(e.Path, "/"), "..")) {
			t.Errorf("entry %q taken with path %q", data, e.Path)
		}
	})
}
