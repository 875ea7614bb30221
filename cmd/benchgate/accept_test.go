package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
)

// sendToReview stores three of the submission's 40 responses as cut short
// where the stored text decides no letter: 7.5% unverifiable, above the
// 5% that may go unchecked, so verify sends it to review.
func sendToReview(t *testing.T, root, dir string) {
	t.Helper()
	file := filepath.Join(root, dir, "scores.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, reviewScores(t, data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reviewScores is scores.json data with three of its responses cut short
// so (sendToReview).
func reviewScores(t *testing.T, data []byte) []byte {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 2} {
		rows[i]["response"], rows[i]["response_truncated"] = "Weighing the options, the answer is", true
	}
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAccept: `benchgate accept` records a maintainer's decision on a
// submission in review where the board reads it; the board then ranks it,
// shown accepted after review with the reason; the same decision again
// changes nothing; a change to the submission needs a new decision. A
// submission that passes or fails cannot be accepted, and a reason is
// required.
func TestAccept(t *testing.T) {
	root := copyBoard(t)
	const dir = "submissions/model-benchmark/qwen3-32b-reservoir"
	sendToReview(t, root, dir)
	if code, out, _ := runCLI(t, "verify", "--root", root, filepath.Join(root, dir)); !strings.Contains(out, "REVIEW") || !strings.Contains(out, "benchgate accept "+dir+" --reason TEXT") || strings.Contains(out, "store full responses") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}

	const reason = "the source stored responses cut at 500 characters and read its letters from the whole responses"
	args := []string{"accept", "--root", root, filepath.Join(root, dir), "--reason", reason, "--by", "octocat"}
	code, out, stderr := runCLI(t, args...)
	if code != exitOK || !strings.Contains(out, "accepted "+dir+" (unverifiable answers: 3): wrote acceptances/model-benchmark/qwen3-32b-reservoir.json") {
		t.Fatalf("accept: exit %d\n%s%s", code, out, stderr)
	}
	record := filepath.Join(root, "acceptances/model-benchmark/qwen3-32b-reservoir.json")
	first, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(t, args...); code != exitOK || !strings.Contains(out, "already accepted for this version") {
		t.Errorf("accept again: exit %d\n%s", code, out)
	}
	if again, _ := os.ReadFile(record); string(again) != string(first) {
		t.Errorf("accepting again rewrote the record:\n%s", again)
	}

	board := func() string {
		t.Helper()
		out := t.TempDir()
		if code, _, stderr := runCLI(t, "leaderboard", "--root", root, "--out", out, "--format", "md", "--cache", ""); code != exitOK {
			t.Fatalf("leaderboard: exit %d: %s", code, stderr)
		}
		md, err := os.ReadFile(filepath.Join(out, "LEADERBOARD.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(md)
	}
	want := "accepted after review: " + reason + " (3 answers unverifiable; accepted by octocat on "
	if md := board(); !strings.Contains(md, want) {
		t.Errorf("the board lacks %q:\n%s", want, md)
	}

	// Another truncated response: a new version, which the decision does not cover.
	file := filepath.Join(root, dir, "scores.json")
	data, _ := os.ReadFile(file)
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	rows[3]["response"], rows[3]["response_truncated"] = "Weighing the options, the answer is", true
	data, _ = json.MarshalIndent(rows, "", "  ")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if md := board(); strings.Contains(md, "accepted after review") {
		t.Errorf("a changed submission is still shown accepted:\n%s", md)
	}

	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a submission that passes", []string{"accept", "--root", root, filepath.Join(root, "submissions/model-benchmark/llama-3.3-70b-reservoir"), "--reason", "r"}, exitFail, "passes verification: it is ranked without a decision, so there is nothing to accept"},
		{"no reason", []string{"accept", "--root", root, filepath.Join(root, dir)}, exitUsage, "missing --reason"},
		{"a --by that is no login, for a submission that passes", []string{"accept", "--root", root, filepath.Join(root, "submissions/model-benchmark/llama-3.3-70b-reservoir"), "--reason", "r", "--by", "a b"}, exitUsage, `accepted by "a b"`},
		{"a reason with a direction override", []string{"accept", "--root", root, filepath.Join(root, dir), "--reason", "fine\u202eenif"}, exitUsage, "control or direction-override character"},
		{"a folder of several submissions", []string{"accept", "--root", root, filepath.Join(root, "submissions/model-benchmark"), "--reason", "r"}, exitUsage, "name one submission folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr %q lacks %q (stdout %s)", code, tt.code, stderr, tt.want, out)
			}
		})
	}
}

// TestAcceptFormationEval runs the real case on FormationEval's published
// responses: claude-3.5-haiku's one response stored cut at 500 characters
// is unverifiable under the flexible policy (not a parse failure); a
// benchmark whose registry lets no more than 0.1% go unchecked sends it to
// review, a maintainer accepts it, and the board ranks it saying so.
func TestAcceptFormationEval(t *testing.T) {
	bench := fixtures.Path(t, "formationeval", "formationeval_v0.1.json")
	csvPath := fixtures.Path(t, "formationeval", "responses_3_models.csv")
	root := copyBoard(t)
	data, err := os.ReadFile(bench)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "rubrics", "formationeval_v0.1.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	registerBenchmark(t, root, map[string]any{"key": "formationeval", "file": "rubrics/formationeval_v0.1.json", "kind": "mcq", "extraction": "flexible", "unverifiable_review_rate": 0.001})
	code, out, stderr := runCLI(t, "import", "formationeval", "--root", root, "--csv", csvPath, "--benchmark", "formationeval", "--models", "claude-3.5-haiku",
		"--submitter", "octocat", "--contact", "https://example.org/octocat", "--date", "2025-12-01")
	if code != exitOK {
		t.Fatalf("import: exit %d\n%s%s", code, out, stderr)
	}
	const dir = "submissions/model-benchmark/claude-3.5-haiku-formationeval"
	for _, want := range []string{
		"REVIEW " + dir,
		"1 unverifiable",
		"1 of 505 responses were truncated before storing and their letter cannot be decided from the stored text (0.2%, above the 0.1% that benchmark \"formationeval\" lets go unchecked without review); a maintainer can accept it after review with `benchgate accept " + dir + " --reason TEXT`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "parse failure") {
		t.Errorf("the response FormationEval stored cut short is counted as a parse failure:\n%s", out)
	}
	const reason = "FormationEval stored responses cut at 500 characters; its letter was read from the whole response"
	if code, out, stderr := runCLI(t, "accept", "--root", root, filepath.Join(root, dir), "--reason", reason); code != exitOK {
		t.Fatalf("accept: exit %d\n%s%s", code, out, stderr)
	}
	outDir := t.TempDir()
	if code, _, stderr := runCLI(t, "leaderboard", "--root", root, "--out", outDir, "--format", "md", "--cache", ""); code != exitOK {
		t.Fatalf("leaderboard: exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(outDir, "LEADERBOARD.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "accepted after review: " + reason + " (1 answer unverifiable; accepted on "; !strings.Contains(string(md), want) {
		t.Errorf("the board lacks %q:\n%s", want, md)
	}
}
