package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/benchgate/benchgate/internal/fakeopenai"
)

// harnessJudgePrompt is a grading prompt written for these tests in the
// manner of a benchmark harness's own: its wording, its layout, the marks
// asked for in a fenced block and no response_format.
const harnessJudgePrompt = `=== system ===
You are an examiner. You mark one answer against a marking scheme and nothing else.
=== user ===
Question {{question_id}}: {{question}}

Marking scheme ({{total_points}} marks; if the gate {{gate_component}} is not met, the mark is {{gate_failure_score}}):
Gate: {{gate_pass_condition}}
{{components}}

The answer to mark lies between {{answer_begin}} and {{answer_end}}:
{{answer}}

Explain your marking, then give the marks as a JSON object in a ` + "```json" + ` block, with "gate_passed", "components" (id, awarded, maximum, reason) and "total".
`

// harnessContract is the judge object of a benchmark whose harness sends
// its own prompt without response_format, reads the last fenced block that
// parses, takes integers only, and asks again afresh on a bad verdict.
const harnessContract = `{"temperature": null, "max_tokens": 4096, "prompt_file": "rubrics/basin-judge.txt", "response_format": false,
      "verdict": {"format": "last-fenced-json", "integers": true, "retry": "resend", "retries": 2}}`

// useHarnessJudge gives the board's rubric benchmark the harness's judge
// contract and prompt file, and returns the file's path.
func useHarnessJudge(t *testing.T, root string) string {
	t.Helper()
	prompt := filepath.Join(root, "rubrics", "basin-judge.txt")
	if err := os.WriteFile(prompt, []byte(harnessJudgePrompt), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(root, "rubrics", "rubrics.json")
	data := readFile(t, reg)
	i := strings.Index(data, `"judge": {`)
	j := strings.Index(data[i:], "}") + i + 1
	if i < 0 || j <= i {
		t.Fatal("the board's registry has no judge object to replace")
	}
	if err := os.WriteFile(reg, []byte(data[:i]+`"judge": `+harnessContract+data[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
	return prompt
}

// harnessReplies answers as the candidate does in boardReplies, and as a
// judge asked with the harness's prompt: full marks in a fenced block.
// Its first reply on Q1 is a good block followed by one cut short, and
// its first reply on Q3 writes a whole award as 4.0, which the integers-
// only contract refuses, so that the prompt is sent again.
func harnessReplies(t *testing.T, root string, judged *[]fakeopenai.Request, mu *sync.Mutex) func(fakeopenai.Request) fakeopenai.Reply {
	candidate := boardReplies(t, root)
	rub := boardBenchmark(t, root, "basin-analysis")
	seen := map[string]int{}
	return func(req fakeopenai.Request) fakeopenai.Reply {
		user := req.Messages[len(req.Messages)-1].Content
		if !strings.Contains(user, "The answer to mark lies between") {
			return candidate(req)
		}
		for i := range rub.Rubric.Questions {
			q := &rub.Rubric.Questions[i]
			if !strings.Contains(user, "Question "+q.ID+":") {
				continue
			}
			mu.Lock()
			*judged = append(*judged, req)
			seen[q.ID]++
			n := seen[q.ID]
			mu.Unlock()
			var comps []map[string]any
			for _, c := range q.Components {
				comps = append(comps, map[string]any{"id": c.ID, "awarded": c.Points, "maximum": c.Points, "reason": "meets the criterion"})
			}
			v, _ := json.Marshal(map[string]any{"gate_passed": true, "gate_reason": "met", "components": comps, "total": 10})
			verdict := string(v)
			reply := "The gate is met.\n```json\n" + verdict + "\n```"
			switch {
			case q.ID == "Q1" && n == 1:
				reply += "\nOn reflection, restated:\n```json\n{\"gate_passed\": true, \"components\": [\n```"
			case q.ID == "Q3" && n == 1:
				c := q.Components[0]
				reply = strings.Replace(reply, `"awarded":`+itoa(c.Points)+`,"id":"`+c.ID+`"`, `"awarded":`+itoa(c.Points)+`.0,"id":"`+c.ID+`"`, 1)
			}
			return fakeopenai.Reply{Content: reply, PromptTokens: 1500, CompletionTokens: 150}
		}
		return fakeopenai.Reply{Content: "?"}
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestScoreWithHarnessPrompt: a rubric benchmark whose registry names its
// harness's grading prompt and verdict format is graded by `benchgate
// score` exactly so, end to end: the prompt file is what the judge is
// sent, with the contract's sampling and no response_format; a reply of
// two fences, the last cut short, is graded from the block that parses; a
// 4.0 is refused and the same prompt sent again; every row binds the
// prompt's digest, and verify refuses the rows once the prompt changes.
func TestScoreWithHarnessPrompt(t *testing.T) {
	root := copyBoard(t)
	prompt := useHarnessJudge(t, root)
	var mu sync.Mutex
	var judged []fakeopenai.Request
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Reply: harnessReplies(t, root, &judged, &mu)})
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	work := t.TempDir()

	if code, out, stderr := runCLI(t, "lint-benchmark", "--root", root, "basin-analysis"); code != exitOK {
		t.Fatalf("lint-benchmark: exit %d\n%s%s", code, out, stderr)
	}
	answers := filepath.Join(work, "answers.json")
	code, out, stderr := runCLI(t, "generate", "--root", root, "--rubric", "basin-analysis", "--model", "org/cand", "--output", answers,
		"--base-url", srv.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--workers", "2")
	if code != exitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, out, stderr)
	}
	scores := filepath.Join(work, "scores.json")
	judgeFlags := []string{"--root", root, "--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", ""}
	code, out, stderr = runCLI(t, append([]string{"score", answers, "--output", scores}, judgeFlags...)...)
	if code != exitOK || !strings.Contains(out, "5 answers, 5 scored, 0 unscored") || !strings.Contains(out, "6 judge calls") {
		t.Fatalf("score: exit %d\n%s%s", code, out, stderr)
	}

	// What the judge was sent: the prompt file, rendered; the contract's
	// parameters; no response_format.
	byQ := map[string][]fakeopenai.Request{}
	for _, req := range judged {
		for _, id := range []string{"Q1", "Q2", "Q3", "Q4", "Q5"} {
			if strings.Contains(req.Messages[1].Content, "Question "+id+":") {
				byQ[id] = append(byQ[id], req)
			}
		}
	}
	first := byQ["Q1"][0]
	if len(first.Messages) != 2 || first.Messages[0].Content != "You are an examiner. You mark one answer against a marking scheme and nothing else." ||
		!strings.HasPrefix(first.Messages[1].Content, "Question Q1: ") || !strings.Contains(first.Messages[1].Content, "\n<<<ANSWER ") ||
		first.ResponseFormat != "" || first.Temperature != nil || first.TopP == nil || *first.TopP != 1 {
		t.Errorf("the judge was sent %+v", first)
	}
	if len(byQ["Q1"]) != 1 || len(byQ["Q3"]) != 2 {
		t.Errorf("calls on Q1 %d (want 1: the block that parses is the verdict), on Q3 %d (want 2: 4.0 refused)", len(byQ["Q1"]), len(byQ["Q3"]))
	}
	if a, b := byQ["Q3"][0].Messages, byQ["Q3"][1].Messages; len(b) != 2 || a[0] != b[0] || a[1] != b[1] {
		t.Errorf("the verdict refused was not followed by the same prompt:\n%+v\n%+v", a, b)
	}

	// Every row binds the prompt file's digest.
	data, _ := os.ReadFile(prompt)
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	var rows []struct {
		ID     string `json:"id"`
		Score  *int   `json:"score_b"`
		Prompt string `json:"judge_prompt_sha256"`
	}
	if err := json.Unmarshal([]byte(readFile(t, scores)), &rows); err != nil || len(rows) != 5 {
		t.Fatalf("scores.json: %v, %d rows", err, len(rows))
	}
	for _, r := range rows {
		if r.Score == nil || *r.Score != 10 || r.Prompt != digest {
			t.Errorf("row %s: score %v, judge_prompt_sha256 %q, want 10 and %s", r.ID, r.Score, r.Prompt, digest)
		}
	}

	// Submitted, the rows verify; once the prompt changes, they do not.
	code, out, stderr = runCLI(t, "submit", "--root", root, "--rubric", "basin-analysis", "--slug", "cand-harness", "--scores", scores,
		"--model-name", "Cand", "--model-id", "org/cand", "--submitter", "me", "--contact", "https://example.org")
	if code != exitOK || strings.Contains(out, "binding.") {
		t.Fatalf("submit: exit %d\n%s%s", code, out, stderr)
	}
	if err := os.WriteFile(prompt, []byte(strings.Replace(harnessJudgePrompt, "You are an examiner.", "You are a strict examiner.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "verify", "--root", root, filepath.Join(root, "submissions", "model-benchmark", "cand-harness"))
	if code != exitFail || !strings.Contains(out, "does not match the judge's prompt file rubrics/basin-judge.txt") || !strings.Contains(out, "binding.judge-prompt") {
		t.Errorf("verify after the prompt changed: exit %d\n%s", code, out)
	}
	// Scored again, the grades are new calls: the prompt is part of the
	// judge's identity, and the cache holds the old prompt's grades.
	code, out, stderr = runCLI(t, append([]string{"score", answers, "--output", scores}, judgeFlags...)...)
	if code != exitOK || !strings.Contains(out, "(0 answers from the cache)") {
		t.Errorf("score after the prompt changed: exit %d\n%s%s", code, out, stderr)
	}
}

// TestBrokenPromptFileStopsScore: a prompt file with an unknown
// placeholder is refused when the registry is read, naming its line, and
// nothing is sent.
func TestBrokenPromptFileStopsScore(t *testing.T) {
	root := copyBoard(t)
	prompt := useHarnessJudge(t, root)
	if err := os.WriteFile(prompt, []byte(harnessJudgePrompt+"{{reference}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "lint-benchmark", "--root", root, "basin-analysis")
	if code == exitOK || !strings.Contains(out+stderr, "rubrics/basin-judge.txt:14: unknown placeholder {{reference}}") {
		t.Errorf("lint-benchmark: exit %d\n%s%s", code, out, stderr)
	}
	var calls atomic.Int64
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Reply: func(fakeopenai.Request) fakeopenai.Reply { calls.Add(1); return fakeopenai.Reply{Content: "{}"} }})
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	answers := filepath.Join(t.TempDir(), "answers.json")
	if err := os.WriteFile(answers, []byte(`[{"id": "Q1", "question": "x", "answer_b": "y", "answer_b_clean": "y"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "score", "--root", root, "--benchmark", "basin-analysis", "--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", answers)
	if code == exitOK || calls.Load() != 0 || !strings.Contains(out+stderr, "rubrics/basin-judge.txt:14") {
		t.Errorf("score with a broken prompt file: exit %d, %d judge calls\n%s%s", code, calls.Load(), out, stderr)
	}
}

// TestRerunReasksAsRecorded: a multiple-choice re-ask uses the
// benchmark's prompt and the sampling meta.json records, not a fixed 0;
// with none recorded, temperature 0, and the report says which.
func TestRerunReasksAsRecorded(t *testing.T) {
	root := copyBoard(t)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	t.Setenv("BENCHGATE_RERUN_SECRET", "s3cret")
	replies := boardReplies(t, root)
	var mu sync.Mutex
	var asked []fakeopenai.Request
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Reply: func(req fakeopenai.Request) fakeopenai.Reply {
		mu.Lock()
		asked = append(asked, req)
		mu.Unlock()
		return replies(req)
	}})
	sub := filepath.Join(root, "submissions", "model-benchmark", "qwen3-32b-reservoir")
	rerun := func() string {
		asked = nil
		code, out, stderr := runCLI(t, "rerun", sub, "--root", root, "--candidate-base-url", srv.URL, "--candidate-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "", "--sample", "3")
		if code == exitUsage || len(asked) != 3 {
			t.Fatalf("rerun: exit %d, %d calls\n%s%s", code, len(asked), out, stderr)
		}
		return out
	}
	out := rerun()
	for _, req := range asked {
		if req.Temperature == nil || *req.Temperature != 0.6 || req.MaxTokens == nil || *req.MaxTokens != 1024 || req.Messages[0].Content != "You are an expert geoscientist answering a four-choice question. Exactly one choice is correct." {
			t.Errorf("re-asked at %v with %q", req.Temperature, req.Messages[0].Content)
		}
	}
	if !strings.Contains(out, "re-asked at temperature 0.6, as meta.json records") {
		t.Errorf("the report does not say how it re-asked:\n%s", out)
	}
	meta := filepath.Join(sub, "meta.json")
	if err := os.WriteFile(meta, []byte(strings.Replace(readFile(t, meta), `"temperature": 0.6,`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out = rerun()
	if req := asked[0]; req.Temperature == nil || *req.Temperature != 0 || !strings.Contains(out, "re-asked at temperature 0 (meta.json records none)") {
		t.Errorf("without a recorded temperature: re-asked at %v\n%s", req.Temperature, out)
	}
}

// TestScoreStopsOnSetupErrors: a judge its endpoint does not know (HTTP
// 404: a wrong model id, provider routing or Azure deployment) stops the
// run with what to check, exit 4 and nothing written, rather than leaving
// every answer for a person to grade.
func TestScoreStopsOnSetupErrors(t *testing.T) {
	root := copyBoard(t)
	var calls atomic.Int64
	srv := fakeopenai.New(t, fakeopenai.Options{Key: testKey, Fail: func(int, fakeopenai.Request) *fakeopenai.Failure {
		calls.Add(1)
		return &fakeopenai.Failure{Status: 404, Body: `{"error": {"message": "No endpoints found matching your data policy", "code": 404}}`}
	}})
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	scores := filepath.Join(t.TempDir(), "scores.json")
	answers := filepath.Join(root, "submissions", "model-benchmark", "qwen3-32b-basin", "scores.json")
	code, out, stderr := runCLI(t, "score", answers, "--root", root, "--output", scores, "--workers", "1", "--ledger", "",
		"--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY")
	if code != exitSetup || !strings.Contains(stderr, "the judge's endpoint does not know the judge (HTTP 404)") || !strings.Contains(stderr, "judge.provider") || calls.Load() > 2 {
		t.Errorf("exit %d after %d calls\n%s%s", code, calls.Load(), out, stderr)
	}
	if _, err := os.Stat(scores); err == nil {
		t.Error("scores.json was written")
	}
}
