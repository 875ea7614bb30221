package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/submission"
)

// TestCLIChildProcess is benchgate run as a process of its own by the
// SIGKILL tests, with the arguments in BENCHGATE_CLI_CHILD_ARGS (a JSON
// array); on its own it does nothing.
func TestCLIChildProcess(t *testing.T) {
	raw := os.Getenv("BENCHGATE_CLI_CHILD_ARGS")
	if raw == "" {
		t.Skip("run by TestGenerateSurvivesSIGKILL and TestScoreSurvivesSIGKILL")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// paidEndpoint is a fake endpoint that answers the first paid calls and
// holds every later one until the test lets them through, counting the
// calls made for each question of the benchmarks.
type paidEndpoint struct {
	*fakeopenai.Server
	open atomic.Bool

	mu    sync.Mutex
	calls map[string]int // by question id
}

func newPaidEndpoint(t *testing.T, root string, paid int) *paidEndpoint {
	t.Helper()
	mcq, rub := boardBenchmark(t, root, "reservoir-mcq"), boardBenchmark(t, root, "basin-analysis")
	p := &paidEndpoint{calls: map[string]int{}}
	p.Server = fakeopenai.New(t, fakeopenai.Options{
		Key:   testKey,
		Reply: boardReplies(t, root),
		Fail: func(call int, req fakeopenai.Request) *fakeopenai.Failure {
			p.mu.Lock()
			p.calls[questionOf(req, mcq, rub)]++
			p.mu.Unlock()
			if call > paid && !p.open.Load() {
				return &fakeopenai.Failure{Hang: true}
			}
			return nil
		},
	})
	return p
}

// questionOf names the question a call is about: the id of the mcq item
// or rubric question its last message holds, whether it asks the question
// or grades an answer to it.
func questionOf(req fakeopenai.Request, mcq, rub *benchmark.Benchmark) string {
	user := req.Messages[len(req.Messages)-1].Content
	for _, it := range mcq.Items {
		if strings.Contains(user, it.Question) {
			return it.ID
		}
	}
	for _, q := range rub.Rubric.Questions {
		if strings.Contains(user, q.Text) {
			return q.ID
		}
	}
	return "?"
}

func (p *paidEndpoint) callsFor(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[id]
}

// startChild starts benchgate with args as a process of its own.
func startChild(t *testing.T, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	raw, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCLIChildProcess$")
	cmd.Env = append(os.Environ(), "BENCHGATE_CLI_CHILD_ARGS="+string(raw))
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// waitUntil polls cond until it holds. The wait has no bearing on what is
// tested, only on how soon it is; the bound turns a hang into a failure.
func waitUntil(t *testing.T, what string, stderr *bytes.Buffer, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 2 minutes; the child's stderr:\n%s", what, stderr)
		}
	}
}

// answered reads a cost ledger and returns the questions whose calls were
// answered.
func answered(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	ids := map[string]bool{}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		var e struct {
			QuestionID string `json:"question_id"`
			Outcome    string `json:"outcome"`
		}
		if !strings.HasSuffix(line, "\n") || json.Unmarshal([]byte(line), &e) != nil {
			continue // a line being written
		}
		if e.Outcome == "answered" {
			ids[e.QuestionID] = true
		}
	}
	return ids
}

func lines(path string) int {
	data, _ := os.ReadFile(path)
	return strings.Count(string(data), "\n")
}

// kill ends the child with SIGKILL: no deferred call, no signal handler,
// no last write.
func kill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the child was not killed: %v", err)
	}
}

// TestGenerateSurvivesSIGKILL kills `benchgate generate` with SIGKILL
// once 10 answers were paid for (in the ledger), with the calls after them
// held by the endpoint and the output not rewritten since the start, and
// runs it again: no question answered before the kill is asked again, and
// the file is whole.
func TestGenerateSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchgate as a process of its own")
	}
	const paid = 10
	root := copyBoard(t)
	ep := newPaidEndpoint(t, root, paid)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	out := filepath.Join(t.TempDir(), "scores.json")
	ledger := out + ".ledger.jsonl"
	args := []string{"generate", "--root", root, "--rubric", "reservoir-mcq", "--model", "org/cand", "--output", out,
		"--base-url", ep.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--workers", "4"}

	var stderr bytes.Buffer
	child := startChild(t, &stderr, args...)
	waitUntil(t, "10 answers in the ledger and the journal", &stderr, func() bool {
		return len(answered(t, ledger)) == paid && lines(generate.JournalFile(out)) == paid
	})
	before := answered(t, ledger)
	kill(t, child)

	ep.open.Store(true)
	code, stdout, errOut := runCLI(t, args...)
	if code != exitOK || !strings.Contains(stdout, "40 questions, 10 already done, 30 answered now, 0 failed") {
		t.Fatalf("resumed run: exit %d\n%s%s", code, stdout, errOut)
	}
	for id := range before {
		if n := ep.callsFor(id); n != 1 {
			t.Errorf("%s, answered before the kill, was asked %d times", id, n)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rows []submission.MCQRecord
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.ID] || r.FinishReason != "stop" || r.Answer == nil {
			t.Errorf("row %+v (seen before: %v)", r, seen[r.ID])
		}
		seen[r.ID] = true
	}
	if len(seen) != 40 {
		t.Errorf("%d questions in the output, want 40", len(seen))
	}
	if _, err := os.Stat(generate.JournalFile(out)); !os.IsNotExist(err) {
		t.Errorf("the journal is left: %v", err)
	}
	// What the ledger says was paid for is what the file holds.
	if got := answered(t, ledger); len(got) != 40 {
		t.Errorf("%d questions answered in the ledger, want 40", len(got))
	}
}

// TestScoreSurvivesSIGKILL kills `benchgate score` with SIGKILL once two
// grades were paid for (in the ledger), and runs it again: no answer
// graded before the kill is graded again, since each grade is cached as
// its call returns, and the scores are whole.
func TestScoreSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchgate as a process of its own")
	}
	const paid = 2
	root := copyBoard(t)
	cache := t.TempDir()
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", cache)
	work := t.TempDir()
	answers := filepath.Join(work, "answers.json")
	gen := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Reply: boardReplies(t, root)})
	if code, stdout, stderr := runCLI(t, "generate", "--root", root, "--rubric", "basin-analysis", "--model", "org/cand", "--output", answers,
		"--base-url", gen.URL, "--api-key-env", "BENCHGATE_TEST_KEY"); code != exitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, stdout, stderr)
	}

	ep := newPaidEndpoint(t, root, paid)
	scores, ledger := filepath.Join(work, "scores.json"), filepath.Join(work, "judge.jsonl")
	args := []string{"score", answers, "--root", root, "--output", scores, "--ledger", ledger,
		"--judge-base-url", ep.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--workers", "4"}
	var stderr bytes.Buffer
	child := startChild(t, &stderr, args...)
	waitUntil(t, "2 grades in the ledger and the cache", &stderr, func() bool {
		return len(answered(t, ledger)) == paid && cached(t, cache) == paid
	})
	before := answered(t, ledger)
	kill(t, child)
	if _, err := os.Stat(scores); !os.IsNotExist(err) {
		t.Fatalf("scores written before the end: %v", err)
	}

	ep.open.Store(true)
	code, stdout, errOut := runCLI(t, args...)
	if code != exitOK || !strings.Contains(stdout, "5 answers, 5 scored, 0 unscored") || !strings.Contains(stdout, "(2 answers from the cache)") {
		t.Fatalf("resumed run: exit %d\n%s%s", code, stdout, errOut)
	}
	for id := range before {
		if n := ep.callsFor(id); n != 1 {
			t.Errorf("%s, graded before the kill, was graded %d times", id, n)
		}
	}
	data, err := os.ReadFile(scores)
	if err != nil {
		t.Fatal(err)
	}
	var rows []submission.RubricRecord
	if err := json.Unmarshal(data, &rows); err != nil || len(rows) != 5 {
		t.Fatalf("%d scores rows: %v", len(rows), err)
	}
}

// cached counts the judge's cache entries under the cache folder.
func cached(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(filepath.Join(dir, "judge"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			n++
		}
		return nil
	})
	return n
}
