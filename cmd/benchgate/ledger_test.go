package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultLedgers: score, calibrate and rerun, run with their default
// --ledger, leave no file in the working directory (often a leaderboard
// checkout). score's ledger is beside its output, like generate's; the
// ledger of a command that writes no file is ledger.jsonl in the cache
// folder, and without a cache folder there is none.
func TestDefaultLedgers(t *testing.T) {
	root := copyBoard(t)
	srv := fakeEndpoint(t, root)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	cache := filepath.Join(t.TempDir(), "not-yet-made")
	t.Setenv("BENCHGATE_CACHE_DIR", cache)
	work := t.TempDir()
	t.Chdir(work)
	judge := []string{"--root", root, "--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY"}
	sub := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin")
	answers := filepath.Join(sub, "scores.json")
	out := filepath.Join(t.TempDir(), "scores.json")
	cacheLedger := filepath.Join(cache, "ledger.jsonl")
	steps := []struct {
		args   []string
		ledger string // "" for none
	}{
		{[]string{"score", answers, "--output", out}, out + ".ledger.jsonl"},
		{[]string{"score", answers, "--pair", answers}, cacheLedger},
		{[]string{"calibrate", "--rubric", "basin-analysis"}, cacheLedger},
		{[]string{"rerun", sub}, cacheLedger},
	}
	check := func(args []string, ledger string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append(args, judge...)...)
		if code == exitUsage {
			t.Fatalf("%s: exit %d\n%s%s", args[0], code, stdout, stderr)
		}
		if entries, _ := os.ReadDir(work); len(entries) > 0 {
			t.Errorf("%s wrote %s into the working directory", args[0], entries[0].Name())
		}
		if ledger == "" {
			return
		}
		if data, err := os.ReadFile(ledger); err != nil || !strings.Contains(string(data), `"kind":"judge"`) {
			t.Errorf("%s: ledger %s: %v\n%s", args[0], ledger, err, data)
		}
	}
	for _, s := range steps {
		check(s.args, s.ledger)
	}

	// No cache folder: no default ledger, for the commands that write no
	// file of their own.
	t.Setenv("BENCHGATE_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if err := os.Remove(cacheLedger); err != nil {
		t.Fatal(err)
	}
	check([]string{"calibrate", "--rubric", "basin-analysis"}, "")
	if _, err := os.Stat(cacheLedger); err == nil {
		t.Errorf("a ledger without a cache folder")
	}
}

// TestNoLedger: --ledger "" keeps no ledger, for generate as for the
// others.
func TestNoLedger(t *testing.T) {
	root := copyBoard(t)
	srv := fakeEndpoint(t, root)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	out := filepath.Join(t.TempDir(), "answers.json")
	code, stdout, stderr := runCLI(t, "generate", "--root", root, "--rubric", "basin-analysis", "--model", "m", "--output", out,
		"--base-url", srv.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "")
	if code == exitUsage {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("generate wrote no answers: %v", err)
	}
	if _, err := os.Stat(out + ".ledger.jsonl"); err == nil {
		t.Error(`generate --ledger "" kept a ledger`)
	}
}
