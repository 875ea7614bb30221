// Package golden compares rendered output with the golden files that say
// what it must be, testdata/golden/<name> beside the test, and rewrites
// them when a test binary runs with -update. Tests that render for people
// (reports, comments, pages) read like their output this way.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// Updating reports whether the test binary runs with -update: a test
// that keeps its expected output elsewhere than testdata/golden (a table
// generated into the docs) rewrites it then, on the same flag.
func Updating() bool { return *update }

// Dir is the folder of the golden files, relative to the test's package.
const Dir = "testdata/golden"

// Check fails t when got differs from the golden file name, naming the
// first line that differs; with -update it writes got there first.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join(Dir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	line, g, w := firstDiff(string(got), string(want))
	t.Errorf("%s differs from the golden file at line %d (run with -update if the change is intended):\n got: %s\nwant: %s\nall of it:\n%s", path, line, g, w, got)
}

// firstDiff finds the first line where got and want differ.
func firstDiff(got, want string) (line int, g, w string) {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		g, w = "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w || i >= len(gl) || i >= len(wl) {
			return i + 1, g, w
		}
	}
	return 0, "", ""
}
