package score

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/submission"
)

// TestGradeRowsLeftUnscored: an answer whose judge call fails, for good
// or after retries, and an answer with no text to grade are unscored rows
// that say why, while every other answer is graded and the run returns
// its rows; an answer whose content is empty is graded by its reasoning
// text under the rubric benchmarks' rule, and the row says so; a failure
// of the judge's account ends the run with no rows.
func TestGradeRowsLeftUnscored(t *testing.T) {
	b, answers := basin(t)
	permanent := fmt.Errorf("HTTP 400 content_filter (attempt 1, not retried): %w", llm.ErrPermanent)
	exhausted := fmt.Errorf("gave up after 5 attempts: %w", llm.ErrExhausted)
	for _, tt := range []struct {
		name       string
		edit       func(rows []submission.AnswerRow)
		fail       map[string]error // the judge's error per question
		err        string           // Grade's error; "" for rows
		unscored   map[string]string
		scored     int
		calls      int
		empty      int
		failures   int
		summary    []string
		incomplete bool
	}{
		{
			name:     "one answer refused by a content filter",
			fail:     map[string]error{"Q3": permanent},
			unscored: map[string]string{"Q3": "unscored: the judge call failed: the call failed"},
			scored:   4, calls: 5, failures: 1, incomplete: true,
			summary: []string{"5 answers, 4 scored, 1 unscored", "the judge call failed for 1 answers", "1 would fail again (a person must grade them): Q3 (judge openai/gpt-5.5, question Q3: HTTP 400 content_filter (attempt 1, not retried): permanent failure)"},
		},
		{
			name:     "retries exhausted on two answers",
			fail:     map[string]error{"Q2": exhausted, "Q4": exhausted},
			unscored: map[string]string{"Q2": "; scoring again retries it", "Q4": "; scoring again retries it"},
			scored:   3, calls: 5, failures: 2, incomplete: true,
			summary: []string{"3 scored, 2 unscored", "2 failed after retries: run the same command again to retry them", "Q2 (judge openai/gpt-5.5, question Q2: gave up after 5 attempts: retries exhausted); Q4 (judge"},
		},
		{
			name:     "an empty answer with no reasoning",
			edit:     func(rows []submission.AnswerRow) { rows[0].Answer, rows[0].AnswerClean = "", "" },
			unscored: map[string]string{"Q1": "unscored: the answer is empty (no content, and no reasoning text the benchmark's rule grades), so it was not sent to the judge"},
			scored:   4, calls: 4, empty: 1, incomplete: true,
			summary: []string{"4 scored, 1 unscored", "1 answers are empty", "run `benchgate generate` again with the same --output"},
		},
		{
			name: "an empty answer with its text in the reasoning",
			edit: func(rows []submission.AnswerRow) {
				rows[0].Reasoning = rows[0].Answer
				rows[0].Answer, rows[0].AnswerSource = "", submission.SourceReasoning
			},
			scored: 5, calls: 5,
			summary: []string{"5 answers, 5 scored, 0 unscored"},
		},
		{
			name: "answer_b_source where answer_b answers",
			edit: func(rows []submission.AnswerRow) {
				rows[0].Reasoning, rows[0].AnswerSource = "other text", submission.SourceReasoning
			},
			err: "answer.source",
		},
		{
			name: "the judge is not found",
			fail: map[string]error{"Q3": &llm.Error{Model: "openai/gpt-5.5", Status: 404}},
			err:  "grading Q3: the judge's endpoint does not know the judge (HTTP 404), and every other call would fail too; nothing is written: check --judge-base-url",
		},
		{
			name: "the judge's account fails",
			fail: map[string]error{"Q2": fmt.Errorf("HTTP 402 insufficient credits: %w", errAccount)},
			err:  "grading Q2: the judge's account failed, and every other call would too; nothing is written",
		},
		{
			// A field the endpoint does not take, no such model: every
			// answer would become a row a person must grade.
			name: "the judge's endpoint refuses the setup",
			fail: map[string]error{"Q2": fmt.Errorf("HTTP 400 unknown parameter: %w", llm.ErrSetup)},
			err:  "grading Q2: the judge's endpoint refused the setup, and every other call would meet it too; nothing is written",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows := append([]submission.AnswerRow{}, answers...)
			if tt.edit != nil {
				tt.edit(rows)
			}
			fj := &fakeJudge{b: b}
			var mu sync.Mutex
			graded := map[string]string{}
			j := &judge.Judge{LLM: completerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				for i := range b.Rubric.Questions {
					q := &b.Rubric.Questions[i]
					if strings.Contains(req.Messages[len(req.Messages)-1].Content, q.Text) {
						mu.Lock()
						graded[q.ID] = fenced(req.Messages[len(req.Messages)-1].Content)
						mu.Unlock()
						if err := tt.fail[q.ID]; err != nil {
							fj.calls.Add(1)
							return llm.Response{}, err
						}
					}
				}
				return fj.Complete(ctx, req)
			}), Model: "openai/gpt-5.5"}
			out, sum, err := Grade(context.Background(), Config{Bench: b, Judge: j, Workers: 2}, rows)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || out != nil {
					t.Fatalf("err %v with %d rows; want %q and none", err, len(out), tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 5 || sum.Scored != tt.scored || sum.Unscored != 5-tt.scored || sum.Empty != tt.empty || len(sum.Failures) != tt.failures || int(fj.calls.Load()) != tt.calls || sum.Incomplete() != tt.incomplete {
				t.Errorf("%d rows, summary %+v after %d calls", len(out), sum, fj.calls.Load())
			}
			for _, r := range out {
				want, unscored := tt.unscored[r.ID]
				switch {
				case unscored && (r.Score != nil || !strings.Contains(r.Reason, want)):
					t.Errorf("%s: score %v, reason %q; want unscored with %q", r.ID, r.Score, r.Reason, want)
				case !unscored && r.Score == nil:
					t.Errorf("%s: unscored (%s)", r.ID, r.Reason)
				}
				if r.Reasoning != rowByID(rows, r.ID).Reasoning || r.AnswerSource != rowByID(rows, r.ID).AnswerSource {
					t.Errorf("%s: reasoning %q, source %q not carried from the answers row", r.ID, r.Reasoning, r.AnswerSource)
				}
				if r.AnswerSource == submission.SourceReasoning && (graded[r.ID] != r.AnswerClean || r.AnswerClean != submission.CleanAnswer(r.Reasoning)) {
					t.Errorf("%s: the judge saw %q; answer_b_clean %q; want the clean reasoning", r.ID, graded[r.ID], r.AnswerClean)
				}
			}
			text := sum.Text("scores.json")
			for _, s := range tt.summary {
				if !strings.Contains(text, s) {
					t.Errorf("summary text lacks %q:\n%s", s, text)
				}
			}
		})
	}
}

func rowByID(rows []submission.AnswerRow, id string) submission.AnswerRow {
	for _, r := range rows {
		if r.ID == id {
			return r
		}
	}
	return submission.AnswerRow{}
}
