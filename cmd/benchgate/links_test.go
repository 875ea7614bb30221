package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckoutLinksRefused: verify and leaderboard read a checkout as the
// App reads the default branch, following no symbolic link: a registry
// that links to a file outside the checkout is refused, naming the link,
// never read.
func TestCheckoutLinksRefused(t *testing.T) {
	root := copyBoard(t)
	outside := filepath.Join(t.TempDir(), "rubrics.json")
	data, err := os.ReadFile(filepath.Join(root, "rubrics/rubrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "rubrics/rubrics.json"))
	if err := os.Symlink(outside, filepath.Join(root, "rubrics/rubrics.json")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, args := range [][]string{
		{"verify", "--root", root},
		{"leaderboard", "--root", root, "--out", t.TempDir(), "--cache", ""},
	} {
		code, out, stderr := runCLI(t, args...)
		if code == exitOK || !strings.Contains(out+stderr, "rubrics/rubrics.json is a symbolic link") {
			t.Errorf("%s through a linked registry: exit %d\n%s%s", args[0], code, out, stderr)
		}
	}
}
