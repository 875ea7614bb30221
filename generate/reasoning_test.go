package generate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/submission"
)

// TestRubricReasoningReplies: each way an endpoint returns a reasoning
// model's reply (llm.Response as the client fills it from OpenRouter's,
// vLLM's and Ollama's reasoning or reasoning_content) gives the row the
// benchmark's rule makes: the reasoning text kept in a field of its own,
// the graded text from the content, or from the reasoning when the
// content holds no answer, with answer_b_source saying so; and a reply cut
// at the token limit before any answer is a failed call, not a row.
func TestRubricReasoningReplies(t *testing.T) {
	b := exampleBenchmark(t, "basin-analysis")
	for _, tt := range []struct {
		name    string
		rule    submission.AnswerRule
		resp    llm.Response
		row     *submission.AnswerRow // Q1's row; nil: none
		done    int
		summary string // in Summary.Line
		errLine string // in the errors file; "" means none
	}{
		{
			name:    "content beside reasoning",
			resp:    llm.Response{Content: "**Vitrinite** rises.", Reasoning: "Think of maturity.", FinishReason: "stop"},
			row:     &submission.AnswerRow{Answer: "**Vitrinite** rises.", AnswerClean: "Vitrinite rises.", Reasoning: "Think of maturity."},
			done:    5,
			summary: "5 answered now, 0 failed; spend",
		},
		{
			name:    "empty content, answer in reasoning (OpenRouter, vLLM, Ollama)",
			resp:    llm.Response{Content: "", Reasoning: "Vitrinite reflectance rises with **maturity**.", FinishReason: "stop"},
			row:     &submission.AnswerRow{Answer: "", AnswerClean: "Vitrinite reflectance rises with maturity.", Reasoning: "Vitrinite reflectance rises with **maturity**.", AnswerSource: submission.SourceReasoning},
			done:    5,
			summary: "5 answered now, 0 failed, 5 answered from the reasoning text",
		},
		{
			name:    "content only a think block, answer in reasoning",
			resp:    llm.Response{Content: "<think>\n</think>\n", Reasoning: "Maturity.", FinishReason: "stop"},
			row:     &submission.AnswerRow{Answer: "<think>\n</think>\n", AnswerClean: "Maturity.", Reasoning: "Maturity.", AnswerSource: submission.SourceReasoning},
			done:    5,
			summary: "5 answered from the reasoning text",
		},
		{
			name:    "the content rule keeps the reasoning but grades nothing of it",
			rule:    submission.RuleContent,
			resp:    llm.Response{Content: "", Reasoning: "Maturity.", FinishReason: "stop"},
			row:     &submission.AnswerRow{Answer: "", AnswerClean: "", Reasoning: "Maturity."},
			done:    5,
			summary: "5 answered now, 0 failed; spend",
		},
		{
			name:    "cut at the token limit while reasoning",
			resp:    llm.Response{Content: "", Reasoning: "Let me consider the burial history and", FinishReason: "length", CompletionTokens: 512},
			summary: "0 answered now, 5 failed (5 cut at the token limit before answering)",
			errLine: "the reply was cut at the token limit (finish_reason length, 512 completion tokens) before any answer (38 bytes of reasoning text: the model spent its budget thinking); raise --max-tokens and run again",
		},
		{
			name:    "cut at the token limit with no text at all",
			resp:    llm.Response{FinishReason: "length", CompletionTokens: 512},
			summary: "5 failed (5 cut at the token limit before answering)",
			errLine: "before any answer; raise --max-tokens",
		},
		{
			// A rubric answer cut short would be graded as if complete.
			name:    "cut at the token limit after some answer",
			resp:    llm.Response{Content: "Vitrinite reflectance", FinishReason: "length", CompletionTokens: 512},
			summary: "0 answered now, 5 failed (5 cut at the token limit mid-answer)",
			errLine: "the reply was cut at the token limit (finish_reason length, 512 completion tokens) mid-answer, and a rubric answer cut short is not graded; raise --max-tokens and run again",
		},
		{
			// Mistral's model_length, read as length: the context window,
			// not max_tokens, cut the answer, and more tokens would not help.
			name:    "cut by the model's context window after some answer",
			resp:    llm.Response{Content: "Vitrinite reflectance", FinishReason: "length", NativeFinishReason: "model_length", CompletionTokens: 512},
			summary: "0 answered now, 5 failed (5 cut at the token limit mid-answer)",
			errLine: "the reply was cut short (finish_reason model_length, read as length, 512 completion tokens) mid-answer, and a rubric answer cut short is not graded; the prompt and --max-tokens may exceed the model's context window: lower --max-tokens or use a model with a larger one, and run again",
		},
		{
			name:    "a refusal is no answer",
			resp:    llm.Response{Refusal: "I can't help with that.", FinishReason: "stop"},
			summary: "0 answered now, 5 failed (5 refused, filtered or empty)",
			errLine: `the model refused to answer (refusal): \"I can't help with that.\"`,
		},
		{
			name:    "a completion a content filter cut is no answer",
			resp:    llm.Response{Content: "Vitrinite reflectance", FinishReason: "content_filter"},
			summary: "0 answered now, 5 failed (5 refused, filtered or empty)",
			errLine: "a content filter cut the reply (finish_reason content_filter)",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "answers.json")
			f := &fakeLLM{reply: func(req llm.Request) (llm.Response, error) { return tt.resp, nil }}
			sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "m", Output: out, AnswerRule: tt.rule})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Done != tt.done || sum.Failed != 5-tt.done || f.calls.Load() != 5 {
				t.Errorf("summary %+v after %d calls", sum, f.calls.Load())
			}
			if line := sum.Line(out); !strings.Contains(line, tt.summary) {
				t.Errorf("summary line %q lacks %q", line, tt.summary)
			}
			var rows []submission.AnswerRow
			data, _ := os.ReadFile(out)
			if err := json.Unmarshal(data, &rows); err != nil {
				t.Fatal(err)
			}
			if tt.row == nil {
				if len(rows) != 0 {
					t.Errorf("%d rows written for failed calls: %+v", len(rows), rows)
				}
			} else {
				want := *tt.row
				want.ID, want.Question = "Q1", b.Rubric.Questions[0].Text
				if len(rows) != 5 || rows[0] != want {
					t.Errorf("%d rows; Q1's is\n%+v, want\n%+v", len(rows), rows, want)
				}
			}
			errs, _ := os.ReadFile(out + ".errors.jsonl")
			if tt.errLine == "" && len(errs) > 0 || tt.errLine != "" && (strings.Count(string(errs), "\n") != 5 || !strings.Contains(string(errs), tt.errLine)) {
				t.Errorf("errors file:\n%s\nwant 5 lines with %q", errs, tt.errLine)
			}
			// Resume keeps a row with text to grade, from either field,
			// and asks again for the rest.
			again := 5
			if tt.row != nil && tt.row.AnswerClean != "" {
				again = 0
			}
			before := f.calls.Load()
			if _, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "m", Output: out, AnswerRule: tt.rule}); err != nil || f.calls.Load()-before != int64(again) {
				t.Errorf("resume: %v, %d calls, want %d", err, f.calls.Load()-before, again)
			}
			if strings.Contains(tt.summary, "token limit") && !strings.Contains(sum.Next(out, b), "raise --max-tokens") {
				t.Errorf("next step %q does not say to raise --max-tokens", sum.Next(out, b))
			}
		})
	}
}

// TestLengthWithoutAnswerRetried: a reply cut at the token limit before
// any answer is a failure that the next run of the same output retries,
// for both kinds; the multiple-choice row records it as an error with the
// reasoning text kept, and the retried row replaces it.
func TestLengthWithoutAnswerRetried(t *testing.T) {
	cut := llm.Response{Content: "", Reasoning: "Porosity first, then", FinishReason: "length", CompletionTokens: 256}
	t.Run("rubric", func(t *testing.T) {
		b := exampleBenchmark(t, "basin-analysis")
		out := filepath.Join(t.TempDir(), "answers.json")
		f := &fakeLLM{reply: func(req llm.Request) (llm.Response, error) {
			if req.QuestionID == "Q2" {
				return cut, nil
			}
			return llm.Response{Content: "An answer.", FinishReason: "stop"}, nil
		}}
		if sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "m", Output: out}); err != nil || sum.Failed != 1 || sum.NoAnswer != 1 || sum.Done != 4 {
			t.Fatalf("%v %+v", err, sum)
		}
		f.reply = func(req llm.Request) (llm.Response, error) {
			if req.QuestionID != "Q2" {
				t.Errorf("%s asked again", req.QuestionID)
			}
			return llm.Response{Content: "Now answered.", FinishReason: "stop"}, nil
		}
		before := f.calls.Load()
		sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "m", Output: out})
		if err != nil || f.calls.Load()-before != 1 || sum.Skipped != 4 || sum.Done != 1 || sum.Failed != 0 {
			t.Fatalf("resume: %v %+v after %d calls", err, sum, f.calls.Load()-before)
		}
		var rows []submission.AnswerRow
		data, _ := os.ReadFile(out)
		json.Unmarshal(data, &rows)
		if len(rows) != 5 || rows[1].ID != "Q2" || rows[1].AnswerClean != "Now answered." {
			t.Errorf("rows after resume: %+v", rows)
		}
	})
	t.Run("mcq", func(t *testing.T) {
		b := exampleBenchmark(t, "reservoir-mcq")
		out := filepath.Join(t.TempDir(), "scores.json")
		f := &fakeLLM{reply: func(req llm.Request) (llm.Response, error) {
			if req.QuestionID == "rq-002" {
				return cut, nil
			}
			return llm.Response{Content: "ANSWER: A", FinishReason: "stop"}, nil
		}}
		if sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "m", Output: out}); err != nil || sum.Failed != 1 || sum.NoAnswer != 1 {
			t.Fatalf("%v %+v", err, sum)
		}
		r := readByID(t, out)["rq-002"]
		if r.FinishReason != "error" || !strings.Contains(r.Error, "cut at the token limit") || r.Reasoning != cut.Reasoning || r.Answer != nil {
			t.Errorf("cut row: %+v", r)
		}
		f.reply = func(req llm.Request) (llm.Response, error) {
			return llm.Response{Content: "ANSWER: " + b.Items[1].Key(), FinishReason: "stop"}, nil
		}
		before := f.calls.Load()
		if sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "m", Output: out}); err != nil || f.calls.Load()-before != 1 || sum.Skipped != 39 {
			t.Fatalf("resume: %v %+v", err, sum)
		}
		if r := readByID(t, out)["rq-002"]; r.FinishReason != "stop" || !r.Correct || r.Error != "" {
			t.Errorf("retried row: %+v", r)
		}
	})
	t.Run("mcq takes no reasoning fallback", func(t *testing.T) {
		b := exampleBenchmark(t, "reservoir-mcq")
		_, err := Run(context.Background(), Config{Bench: b, LLM: &fakeLLM{}, Model: "m", Output: filepath.Join(t.TempDir(), "s.json"), AnswerRule: submission.RuleReasoningFallback})
		if err == nil || !strings.Contains(err.Error(), "multiple-choice") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestAccountFailureStopsTheRun: once the endpoint says the account
// cannot pay, no further question is asked, the answers received are
// saved, and the next run goes on from them.
func TestAccountFailureStopsTheRun(t *testing.T) {
	b := exampleBenchmark(t, "reservoir-mcq")
	out := filepath.Join(t.TempDir(), "scores.json")
	f := &fakeLLM{reply: func(req llm.Request) (llm.Response, error) {
		if req.QuestionID == "rq-011" {
			return llm.Response{}, fmt.Errorf("HTTP 402 insufficient credits: %w", errAccount)
		}
		return llm.Response{Content: "ANSWER: A", FinishReason: "stop"}, nil
	}}
	sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "m", Workers: 1, Output: out})
	if err == nil || !strings.Contains(err.Error(), "the account at the endpoint failed (HTTP 402 insufficient credits") || !strings.Contains(err.Error(), "10 of 40 questions answered so far are saved") {
		t.Fatalf("err = %v", err)
	}
	if rows := readMCQ(t, out); len(rows) != 10 || sum.Failed != 0 || f.calls.Load() > 12 {
		t.Errorf("%d rows, summary %+v, %d calls", len(rows), sum, f.calls.Load())
	}
	f.reply = func(req llm.Request) (llm.Response, error) {
		return llm.Response{Content: "ANSWER: A", FinishReason: "stop"}, nil
	}
	if sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "m", Output: out}); err != nil || sum.Skipped != 10 || sum.Done != 30 {
		t.Errorf("next run: %v %+v", err, sum)
	}
}
