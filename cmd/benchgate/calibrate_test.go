package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fakeopenai"
)

// faithfulReplies answers as a judge that gives every calibration fixture
// of the board's rubric the grade its authors expect.
func faithfulReplies(t *testing.T, root string) func(fakeopenai.Request) fakeopenai.Reply {
	t.Helper()
	rub := boardBenchmark(t, root, "basin-analysis").Rubric
	return func(req fakeopenai.Request) fakeopenai.Reply {
		prompt := req.Messages[len(req.Messages)-1].Content
		var best *benchmark.Fixture
		for qi := range rub.Questions {
			q := &rub.Questions[qi]
			if !strings.Contains(prompt, q.Text) {
				continue
			}
			for fi := range q.Calibration {
				if f := &q.Calibration[fi]; strings.Contains(prompt, f.Response) && (best == nil || len(f.Response) > len(best.Response)) {
					best = f
				}
			}
			if best == nil {
				break
			}
			var comps []map[string]any
			for _, c := range q.Components {
				awarded := 0
				for _, a := range best.Awards {
					if a.ID == c.ID {
						awarded = a.Awarded
					}
				}
				comps = append(comps, map[string]any{"id": c.ID, "awarded": awarded, "maximum": c.Points, "reason": "as the rubric says"})
			}
			v, _ := json.Marshal(map[string]any{"gate_passed": best.GatePassed, "gate_reason": "r", "components": comps, "total": best.Total, "adjudication_required": false, "adjudication_note": ""})
			return fakeopenai.Reply{Content: string(v)}
		}
		t.Errorf("a judge call for no calibration fixture of the board: %.200s", prompt)
		return fakeopenai.Reply{Content: "?"}
	}
}

// faithfulBoard copies the board and starts a judge for it that gives
// each fixture its expected grade (faithfulReplies), with the key in
// BENCHGATE_TEST_KEY and an empty cache folder: the board, its fixtures'
// count and the judge.
func faithfulBoard(t *testing.T) (root string, fixtures int, srv *fakeopenai.Server) {
	t.Helper()
	root = copyBoard(t)
	srv = fakeopenai.New(t, fakeopenai.Options{Key: testKey, Reply: faithfulReplies(t, root)})
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	return root, calibrationFixtures(t, root), srv
}

// calibrateFlags are the flags that calibrate the board's rubric in root
// with the judge at url.
func calibrateFlags(root, url string) []string {
	return []string{"--root", root, "--benchmark", "basin-analysis", "--judge-base-url", url, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", ""}
}

// TestCalibrateRecord: `calibrate --record --runs 2` grades every fixture
// twice and writes a record that the benchmark then loads with, that
// lint-benchmark shows, and that leaves every submission's verdict as it
// was.
func TestCalibrateRecord(t *testing.T) {
	root, n, srv := faithfulBoard(t)
	judgeFlags := calibrateFlags(root, srv.URL)
	before := time.Now().UTC().Format(time.DateOnly)
	code, out, stderr := runCLI(t, append([]string{"calibrate", "--record", "--runs", "2"}, judgeFlags...)...)
	after := time.Now().UTC().Format(time.DateOnly)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	file := filepath.Join(root, "rubrics", "basin-analysis.calibration.json")
	for _, want := range []string{
		"question fixture    expected  run 1  run 2\n",
		"judge openai/gpt-5.5 on basin-analysis, 2 runs: gate agreement 100%, within ±1 point 100% (need 80%)",
		"self-agreement 100%",
		"large disagreements with the expected totals: 0 of the 30 scored gradings by 4+ points, 0 by 8+\n",
		"wrote " + file + " (30 gradings, 0 unscored)\n",
		"  git add " + file + "\n",
		`  git commit -m "basin-analysis: calibration record, judge openai/gpt-5.5, `,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if calls, _ := srv.Stats(); calls != 2*n {
		t.Errorf("%d judge calls, want %d: every fixture twice", calls, 2*n)
	}
	b, err := benchmark.Open(os.DirFS(root), "basin-analysis")
	if err != nil {
		t.Fatal(err)
	}
	rec := b.Record
	if rec == nil || rec.Runs != 2 || len(rec.Grades) != 2*n || len(rec.Unscored) != 0 || rec.JudgeModel != "openai/gpt-5.5" || rec.RubricSHA256 != b.SHA256 ||
		(rec.Recorded != before && rec.Recorded != after) || rec.Judge.ReasoningEffort != "medium" {
		t.Fatalf("the record loaded: %+v", rec)
	}
	code, out, _ = runCLI(t, "lint-benchmark", "--root", root, "basin-analysis")
	if want := "  calibration record rubrics/basin-analysis.calibration.json: judge openai/gpt-5.5, recorded " + rec.Recorded + ", 2 runs: 30 gradings, 0 unscored; large disagreements with the expected totals: 0 of 4+ points, 0 of 8+\n"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("lint-benchmark: exit %d\n%s\nwant a line %q", code, out, want)
	}
	if code, out, _ := runCLI(t, "verify", "--root", root); code != exitOK || !strings.Contains(out, "5 submission(s): 5 passed") {
		t.Errorf("verify with the record: exit %d\n%s", code, out)
	}

	// The record outlives a change of the rubric only as a stale one:
	// lint-benchmark warns, and submissions verify as before.
	rubric := filepath.Join(root, "rubrics", "basin-analysis.json")
	data, _ := os.ReadFile(rubric)
	os.WriteFile(rubric, append(data, '\n'), 0o644)
	code, out, _ = runCLI(t, "lint-benchmark", "--root", root, "basin-analysis")
	if code != exitOK || !strings.Contains(out, "warning: rubrics/basin-analysis.calibration.json:4: the calibration record is stale: the rubric has changed since it was made") ||
		!strings.Contains(out, "record it again with `benchgate calibrate --benchmark basin-analysis --record`") {
		t.Errorf("lint-benchmark of a stale record: exit %d\n%s", code, out)
	}
	// A broken one fails lint-benchmark, never a submission.
	os.WriteFile(rubric, data, 0o644)
	recData, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(recData), `"run":2`, `"run":3`, 1)), 0o644)
	if code, out, _ := runCLI(t, "lint-benchmark", "--root", root, "basin-analysis"); code != exitFail || !strings.Contains(out, "the run is outside 1..2 (runs)") {
		t.Errorf("lint-benchmark of a broken record: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "verify", "--root", root); code != exitOK || !strings.Contains(out, "5 submission(s): 5 passed") {
		t.Errorf("verify with a broken record: exit %d\n%s", code, out)
	}
}

// TestCalibrateRecordRuns: the first run reads the judge cache as any
// calibration does; the later runs are calls of their own, which a
// calibration run again reads from the cache under their runs.
func TestCalibrateRecordRuns(t *testing.T) {
	root, n, srv := faithfulBoard(t)
	judgeFlags := calibrateFlags(root, srv.URL)
	calls := func() int { c, _ := srv.Stats(); return c }

	if code, out, stderr := runCLI(t, append([]string{"calibrate"}, judgeFlags...)...); code != exitOK || calls() != n {
		t.Fatalf("one run: exit %d, %d calls\n%s%s", code, calls(), out, stderr)
	}
	code, out, stderr := runCLI(t, append([]string{"calibrate", "--record", "--runs", "2"}, judgeFlags...)...)
	if code != exitOK || calls() != 2*n || !strings.Contains(out, "15 of the 30 gradings were read from the judge cache") {
		t.Fatalf("two runs after one: exit %d, %d calls in all, want %d: run 1 from the cache, run 2 called\n%s%s", code, calls(), 2*n, out, stderr)
	}
	code, out, _ = runCLI(t, append([]string{"calibrate", "--record", "--runs", "2"}, judgeFlags...)...)
	if code != exitOK || calls() != 2*n || !strings.Contains(out, "30 of the 30 gradings were read from the judge cache") {
		t.Errorf("the same again: exit %d, %d calls in all, want none more\n%s", code, calls(), out)
	}
	// --runs without --record grades as often, and writes nothing.
	os.Remove(filepath.Join(root, "rubrics", "basin-analysis.calibration.json"))
	code, out, _ = runCLI(t, append([]string{"calibrate", "--runs", "3"}, judgeFlags...)...)
	if code != exitOK || calls() != 3*n || !strings.Contains(out, ", 3 runs:") || strings.Contains(out, "wrote") {
		t.Errorf("--runs 3: exit %d, %d calls in all, want %d\n%s", code, calls(), 3*n, out)
	}
	if _, err := os.Stat(filepath.Join(root, "rubrics", "basin-analysis.calibration.json")); err == nil {
		t.Error("--runs without --record wrote a record")
	}
	// With --format json, stdout is the calibration and nothing else.
	code, out, stderr = runCLI(t, append([]string{"calibrate", "--record", "--format", "json"}, judgeFlags...)...)
	var cal struct{ Runs int }
	if err := json.Unmarshal([]byte(out), &cal); code != exitOK || err != nil || cal.Runs != defaultRecordRuns || !strings.Contains(stderr, "wrote ") {
		t.Errorf("--record --format json: exit %d, %v, runs %d\n%s%s", code, err, cal.Runs, out, stderr)
	}
	if code, _, stderr := runCLI(t, append([]string{"calibrate", "--record", "--runs", "0"}, judgeFlags...)...); code != exitUsage || !strings.Contains(stderr, "--runs must be at least 1") {
		t.Errorf("--runs 0: exit %d\n%s", code, stderr)
	}
}

// TestCalibrateRecordRefused: a calibration stopped part-way, or a judge
// below --min-agreement, writes no record, and says so.
func TestCalibrateRecordRefused(t *testing.T) {
	root, n, _ := faithfulBoard(t)
	file := filepath.Join(root, "rubrics", "basin-analysis.calibration.json")
	flags := func(url string, more ...string) []string {
		return append(append([]string{"calibrate"}, calibrateFlags(root, url)...), more...)
	}

	// The account runs dry in the second run. Grades are cached per
	// endpoint: the account is fixed at the same one.
	var dry atomic.Bool
	dry.Store(true)
	endpoint := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Reply: faithfulReplies(t, root), Fail: func(call int, _ fakeopenai.Request) *fakeopenai.Failure {
		if dry.Load() && call > n+5 {
			return &fakeopenai.Failure{Status: 402}
		}
		return nil
	}})
	// One worker: no grading is in flight, paid for but not kept, when the
	// account error stops the run.
	code, out, stderr := runCLI(t, flags(endpoint.URL, "--record", "--runs", "2", "--workers", "1")...)
	if code != exitSetup || !strings.Contains(stderr, "no calibration record was written; the grades made so far are cached, so the same command resumes without paying for them again") {
		t.Errorf("a run stopped by the account: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("a stopped run wrote a record")
	}
	// Run again once the account is fixed: only what was not graded.
	dry.Store(false)
	before, _ := endpoint.Stats()
	code, out, stderr = runCLI(t, flags(endpoint.URL, "--record", "--runs", "2")...)
	if calls, _ := endpoint.Stats(); code != exitOK || calls-before != n-5 {
		t.Errorf("resumed: exit %d, %d calls, want %d\n%s%s", code, calls-before, n-5, out, stderr)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the resumed run wrote no record: %v", err)
	}
	os.Remove(file)

	// A judge that gives full marks to everything is no reference.
	lenient := fakeEndpoint(t, root)
	code, out, stderr = runCLI(t, flags(lenient.URL, "--record")...)
	if code != exitFail || !strings.Contains(stderr, "below --min-agreement 0.80") || !strings.Contains(stderr, "no calibration record was written") {
		t.Errorf("a judge below the agreement: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("a judge below the agreement was recorded")
	}
}
