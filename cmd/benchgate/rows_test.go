package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/submission"
)

// providerEndpoint answers every chat completion with message and
// finish_reason as given, in the shape OpenAI-compatible providers
// document, counting the calls; set swaps the reply.
type providerEndpoint struct {
	*httptest.Server
	calls atomic.Int64
	mu    sync.Mutex
	reply string // the JSON of choices[0]
}

func newProviderEndpoint(t *testing.T, message map[string]any, finish string) *providerEndpoint {
	t.Helper()
	p := &providerEndpoint{}
	p.set(t, message, finish)
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.calls.Add(1)
		p.mu.Lock()
		choice := p.reply
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c-1","object":"chat.completion","created":1764547200,"model":"m","choices":[%s],"usage":{"prompt_tokens":300,"completion_tokens":512,"total_tokens":812}}`, choice)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *providerEndpoint) set(t *testing.T, message map[string]any, finish string) {
	t.Helper()
	m := map[string]any{"role": "assistant"}
	for k, v := range message {
		m[k] = v
	}
	data, err := json.Marshal(map[string]any{"index": 0, "message": m, "finish_reason": finish})
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.reply = string(data)
	p.mu.Unlock()
}

// TestGenerateCutBeforeAnswer: a reply cut at the token limit before any
// answer, as OpenAI, vLLM, OpenRouter and Ollama send it (content null or
// empty, the budget spent on reasoning or on nothing), is a failed call:
// no row, a line in the errors file, exit 1 with what to do, the paid
// call in the ledger; the next run asks those questions again and keeps
// the answers. So is a reply cut mid-answer: a rubric answer cut short is
// not graded as if complete. A reply with content that ends is the row.
func TestGenerateCutBeforeAnswer(t *testing.T) {
	root := copyBoard(t)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	for _, tt := range []struct {
		name    string
		message map[string]any
		finish  string
		failed  bool
	}{
		{"OpenAI: content null, finish length", map[string]any{"content": nil}, "length", true},
		{"vLLM reasoning parser: content null, reasoning_content, finish length", map[string]any{"content": nil, "reasoning_content": "Burial history first, then"}, "length", true},
		{"vLLM 0.11: content null, reasoning, finish length", map[string]any{"content": nil, "reasoning": "Burial history first, then"}, "length", true},
		{"OpenRouter: content empty, reasoning, finish length", map[string]any{"content": "", "reasoning": "Burial history first, then"}, "length", true},
		{"Ollama: content empty, reasoning, finish length", map[string]any{"content": "", "reasoning": "Burial history first, then"}, "length", true},
		{"content cut at the token limit is no complete answer", map[string]any{"content": "Deeper burial, and"}, "length", true},
		{"content, finish stop", map[string]any{"content": "**Deeper** burial."}, "stop", false},
		// A reasoning parser that put the whole reply in the reasoning
		// field: the rubric benchmark's rule grades that text.
		{"vLLM reasoning parser: content null, reasoning_content, finish stop", map[string]any{"content": nil, "reasoning_content": "**Deeper** burial."}, "stop", false},
		{"OpenRouter: content empty, reasoning, finish stop", map[string]any{"content": "", "reasoning": "**Deeper** burial."}, "stop", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ep := newProviderEndpoint(t, tt.message, tt.finish)
			out := filepath.Join(t.TempDir(), "answers.json")
			args := []string{"generate", "--root", root, "--rubric", "basin-analysis", "--model", "org/cand", "--base-url", ep.URL + "/v1", "--api-key-env", "BENCHGATE_TEST_KEY", "--output", out, "--workers", "1", "--max-tokens", "512"}
			code, stdout, stderr := runCLI(t, args...)
			ledger, _ := os.ReadFile(out + ".ledger.jsonl")
			if n := strings.Count(string(ledger), "\n"); n != 5 || ep.calls.Load() != 5 || !strings.Contains(string(ledger), `"completion_tokens":512`) {
				t.Errorf("%d calls, %d ledger lines:\n%s", ep.calls.Load(), n, ledger)
			}
			rows := readAnswersFile(t, out)
			if !tt.failed {
				content, _ := tt.message["content"].(string)
				reasoning, _ := tt.message["reasoning"].(string)
				if r, ok := tt.message["reasoning_content"].(string); ok {
					reasoning = r
				}
				graded, source := submission.CleanAnswer(content), ""
				if graded == "" {
					graded, source = submission.CleanAnswer(reasoning), submission.SourceReasoning
				}
				if code != exitOK || len(rows) != 5 || rows[0].Answer != content || rows[0].Reasoning != reasoning || rows[0].AnswerClean != graded || rows[0].AnswerSource != source || !strings.Contains(stdout, "5 answered now, 0 failed") {
					t.Fatalf("exit %d, rows %+v\n%s%s", code, rows, stdout, stderr)
				}
				return
			}
			summary, errLine := "0 answered now, 5 failed (5 cut at the token limit before answering)", "cut at the token limit (finish_reason length, 512 completion tokens) before any answer"
			if content, _ := tt.message["content"].(string); content != "" {
				summary, errLine = "0 answered now, 5 failed (5 cut at the token limit mid-answer)", "cut at the token limit (finish_reason length, 512 completion tokens) mid-answer"
			}
			if code != exitFail || len(rows) != 0 || !strings.Contains(stdout, summary) || !strings.Contains(stdout, "raise --max-tokens (or, where the question's line says the context window ran out, lower it or use a model with a larger one) and run the same command again") {
				t.Fatalf("exit %d, %d rows\n%s%s", code, len(rows), stdout, stderr)
			}
			errs, _ := os.ReadFile(out + ".errors.jsonl")
			if strings.Count(string(errs), "\n") != 5 || !strings.Contains(string(errs), `"id":"Q1"`) || !strings.Contains(string(errs), errLine) {
				t.Errorf("errors file:\n%s", errs)
			}
			// Given the tokens, the same command asks again and answers.
			ep.set(t, map[string]any{"content": "Deeper burial."}, "stop")
			code, stdout, stderr = runCLI(t, args...)
			if rows := readAnswersFile(t, out); code != exitOK || ep.calls.Load() != 10 || len(rows) != 5 || rows[4].AnswerClean != "Deeper burial." || !strings.Contains(stdout, "0 already done, 5 answered now, 0 failed") {
				t.Errorf("resume: exit %d, %d calls, rows %+v\n%s%s", code, ep.calls.Load(), rows, stdout, stderr)
			}
		})
	}
}

func readAnswersFile(t *testing.T, path string) []submission.AnswerRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	var rows []submission.AnswerRow
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestScoreLeavesRowsUnscored: an answer the judge's endpoint refuses for
// good (Azure's content filter, HTTP 400 content_filter) and an empty
// answer are unscored rows with their reason, the other answers are
// graded (one from its reasoning text, its content being empty) and
// scores.json is written; score exits 1 saying how many and why, the
// refused call is made once, the empty answer costs no call; the
// submission then verifies as one needing review.
func TestScoreLeavesRowsUnscored(t *testing.T) {
	root := copyBoard(t)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	rub := boardBenchmark(t, root, "basin-analysis")
	questionOf := func(req fakeopenai.Request) string {
		for _, q := range rub.Rubric.Questions {
			if strings.Contains(req.Messages[len(req.Messages)-1].Content, q.Text) {
				return q.ID
			}
		}
		return ""
	}
	const filtered = `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"violence":{"filtered":true,"severity":"medium"}}}}}`
	var mu sync.Mutex
	asked := map[string]int{}
	graded := map[string]string{}
	srv := fakeopenai.New(t, fakeopenai.Options{
		Key: testKey,
		Fail: func(call int, req fakeopenai.Request) *fakeopenai.Failure {
			id := questionOf(req)
			mu.Lock()
			asked[id]++
			graded[id] = req.Messages[len(req.Messages)-1].Content
			mu.Unlock()
			if id == "Q3" {
				return &fakeopenai.Failure{Status: 400, Body: filtered}
			}
			return nil
		},
		Reply: func(req fakeopenai.Request) fakeopenai.Reply {
			qi, _ := rub.Index(questionOf(req))
			q := &rub.Rubric.Questions[qi]
			var comps []map[string]any
			for _, c := range q.Components {
				comps = append(comps, map[string]any{"id": c.ID, "awarded": c.Points, "maximum": c.Points, "reason": "meets it"})
			}
			v, _ := json.Marshal(map[string]any{"gate_passed": true, "gate_reason": "passes", "components": comps, "total": 10, "adjudication_required": false, "adjudication_note": ""})
			return fakeopenai.Reply{Content: string(v), PromptTokens: 2000, CompletionTokens: 200}
		},
	})
	work := t.TempDir()
	var answers []submission.AnswerRow
	for _, q := range rub.Rubric.Questions {
		a := submission.AnswerRow{ID: q.ID, Question: q.Text, Answer: "An answer to " + q.ID + "."}
		switch q.ID {
		case "Q4":
			a.Answer, a.Reasoning, a.AnswerSource = "", "**Reasoned** answer to Q4.", submission.SourceReasoning
		case "Q5":
			a.Answer = ""
		}
		a.AnswerClean, _ = submission.DefaultAnswerRule(true).Graded(a.Answer, a.Reasoning)
		answers = append(answers, a)
	}
	data, _ := json.MarshalIndent(answers, "", "  ")
	answersFile := filepath.Join(work, "answers.json")
	os.WriteFile(answersFile, data, 0o644)
	scores := filepath.Join(work, "scores.json")
	ledger := filepath.Join(work, "judge.jsonl")
	code, stdout, stderr := runCLI(t, "score", answersFile, "--root", root, "--output", scores, "--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--ledger", ledger, "--workers", "2")
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitFail, stdout, stderr)
	}
	for _, want := range []string{
		"5 answers, 3 scored, 2 unscored",
		"1 answers are empty (no content, and no reasoning text the benchmark's rule grades): they are unscored and were not sent to the judge",
		"the judge call failed for 1 answers: they are unscored and marked for adjudication; the rest are written.",
		"1 would fail again (a person must grade them): Q3 (judge openai/gpt-5.5, question Q3: llm: model \"openai/gpt-5.5\": the endpoint's content filter refused the prompt (HTTP 400): The response was filtered due to the prompt triggering Azure OpenAI's content management policy. (attempt 1, not retried))",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if asked["Q3"] != 1 || asked["Q5"] != 0 || asked["Q4"] != 1 || !strings.Contains(graded["Q4"], "Reasoned answer to Q4.") {
		t.Errorf("calls per question %v; Q4's prompt:\n%s", asked, graded["Q4"])
	}
	if j, _ := os.ReadFile(ledger); strings.Count(string(j), "\n") != 3 || strings.Contains(string(j), `"question_id":"Q3"`) {
		t.Errorf("judge ledger, want the three paid calls:\n%s", j)
	}
	var rows []submission.RubricRecord
	data, _ = os.ReadFile(scores)
	if err := json.Unmarshal(data, &rows); err != nil || len(rows) != 5 {
		t.Fatalf("%v, %d rows", err, len(rows))
	}
	if r := rows[2]; r.Score != nil || r.Reason != "unscored: the judge call failed: model \"openai/gpt-5.5\": the endpoint's content filter refused the prompt (HTTP 400) (attempt 1, not retried)" || !r.AdjudicationRequired || strings.Contains(r.Reason, "content management policy") {
		t.Errorf("Q3: %+v", r)
	}
	if r := rows[3]; r.Score == nil || r.AnswerSource != submission.SourceReasoning || r.Reasoning != "**Reasoned** answer to Q4." || r.AnswerClean != "Reasoned answer to Q4." {
		t.Errorf("Q4: %+v", r)
	}
	if r := rows[4]; r.Score != nil || !strings.Contains(r.Reason, "the answer is empty") {
		t.Errorf("Q5: %+v", r)
	}
	code, stdout, _ = runCLI(t, "submit", "--root", root, "--rubric", "basin-analysis", "--slug", "cand-basin", "--scores", scores,
		"--model-name", "Cand", "--model-id", "org/cand", "--submitter", "me", "--contact", "https://example.org")
	if code != exitOK || !strings.Contains(stdout, "REVIEW submissions/model-benchmark/cand-basin") || !strings.Contains(stdout, "2 of 5 answers are unscored") {
		t.Errorf("submit: exit %d\n%s", code, stdout)
	}
}
