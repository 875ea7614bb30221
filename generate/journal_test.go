package generate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/submission"
)

// Each row is in the journal, synced, before the next call is made: with
// one worker, the call of the n-th question finds n-1 rows there.
func TestJournalHoldsEachRowAsItsCallReturns(t *testing.T) {
	for _, key := range []string{"reservoir-mcq", "basin-analysis"} {
		t.Run(key, func(t *testing.T) {
			b := exampleBenchmark(t, key)
			out := filepath.Join(t.TempDir(), "out.json")
			var mismatch []string
			f := &fakeLLM{}
			f.reply = func(req llm.Request) (llm.Response, error) {
				lines := 0
				if data, err := os.ReadFile(JournalFile(out)); err == nil {
					lines = strings.Count(string(data), "\n")
				}
				if want := int(f.calls.Load()) - 1; lines != want {
					mismatch = append(mismatch, req.QuestionID)
				}
				if req.QuestionID == "rq-002" {
					return llm.Response{}, errors.New("HTTP 503 after 5 attempts") // a failed row is journaled too
				}
				return llm.Response{Content: "ANSWER: A", FinishReason: "stop"}, nil
			}
			// No rewrite of the output before the end.
			sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "org/m", Workers: 1, Output: out, FlushEvery: 1 << 62})
			if err != nil {
				t.Fatal(err)
			}
			if len(mismatch) > 0 {
				t.Errorf("the journal lagged behind the calls at %v", mismatch)
			}
			if sum.Done+sum.Failed != b.Questions() {
				t.Errorf("summary %+v", sum)
			}
			if _, err := os.Stat(JournalFile(out)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the journal is left after a complete run: %v", err)
			}
		})
	}
}

// A run killed between two rewrites of its output leaves rows in the
// journal only: the next run takes them and asks only the rest.
func TestResumeFromJournal(t *testing.T) {
	b := exampleBenchmark(t, "reservoir-mcq")
	dir := t.TempDir()
	out := filepath.Join(dir, "scores.json")
	// The output was last rewritten with rq-001 answered and rq-002
	// failed; then rq-002 to rq-004 came back, rq-003 failed again, and
	// the process died writing rq-005's row.
	row := func(id, letter string) submission.MCQRecord {
		l, p := letter, "answer_statement"
		return submission.MCQRecord{ID: id, Response: "ANSWER: " + letter, Answer: &l, Pattern: &p, FinishReason: "stop", Correct: true}
	}
	failed := func(id string) submission.MCQRecord {
		return submission.MCQRecord{ID: id, FinishReason: "error", Error: "HTTP 503"}
	}
	data, _ := json.Marshal([]submission.MCQRecord{row("rq-001", "D"), failed("rq-002")})
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var journal []byte
	for _, r := range []submission.MCQRecord{row("rq-002", "B"), failed("rq-003"), row("rq-004", "C")} {
		line, _ := json.Marshal(r)
		journal = append(append(journal, line...), '\n')
	}
	journal = append(journal, `{"id":"rq-005","respon`...)
	if err := os.WriteFile(JournalFile(out), journal, 0o644); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	asked := map[string]int{}
	f := &fakeLLM{reply: func(req llm.Request) (llm.Response, error) {
		mu.Lock()
		asked[req.QuestionID]++
		mu.Unlock()
		return llm.Response{Content: "ANSWER: A", FinishReason: "stop"}, nil
	}}
	sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "org/m", Workers: 4, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"rq-001", "rq-002", "rq-004"} {
		if asked[id] != 0 {
			t.Errorf("%s asked again", id)
		}
	}
	if asked["rq-003"] != 1 || asked["rq-005"] != 1 || sum.Skipped != 3 || sum.Done != 37 {
		t.Errorf("asked %v; summary %+v", asked, sum)
	}
	rows := readByID(t, out)
	if len(rows) != 40 || *rows["rq-002"].Answer != "B" || *rows["rq-004"].Answer != "C" || rows["rq-003"].FinishReason != "stop" {
		t.Errorf("%d rows: rq-002 %+v, rq-003 %+v, rq-004 %+v", len(rows), rows["rq-002"], rows["rq-003"], rows["rq-004"])
	}
	if _, err := os.Stat(JournalFile(out)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal is left after a complete run: %v", err)
	}
}

// The journal alone, with no output written yet, is resumed from too; an
// interrupted run keeps it when its output could not be written.
func TestResumeFromJournalAlone(t *testing.T) {
	b := exampleBenchmark(t, "basin-analysis")
	out := filepath.Join(t.TempDir(), "answers.json")
	q := b.Rubric.Questions[1]
	line, _ := json.Marshal(submission.AnswerRow{ID: q.ID, Question: q.Text, Answer: "The seal is the shale."})
	if err := os.WriteFile(JournalFile(out), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fakeLLM{reply: func(req llm.Request) (llm.Response, error) {
		if req.QuestionID == q.ID {
			t.Errorf("%s asked again", q.ID)
		}
		return llm.Response{Content: "An answer.", FinishReason: "stop"}, nil
	}}
	sum, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "org/m", Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 1 || sum.Done != b.Questions()-1 {
		t.Errorf("summary %+v", sum)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rows []submission.AnswerRow
	if err := json.Unmarshal(data, &rows); err != nil || len(rows) != b.Questions() {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if rows[1].Answer != "The seal is the shale." || rows[1].AnswerClean != "The seal is the shale." {
		t.Errorf("journaled row: %+v", rows[1])
	}
}

func TestResumeRefusesABadJournal(t *testing.T) {
	b := exampleBenchmark(t, "reservoir-mcq")
	out := filepath.Join(t.TempDir(), "scores.json")
	if err := os.WriteFile(JournalFile(out), []byte("{\"id\":\"rq-001\",\"finish_reason\":\"stop\"}\nnot json\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fakeLLM{reply: func(llm.Request) (llm.Response, error) { return llm.Response{Content: "ANSWER: A"}, nil }}
	_, err := Run(context.Background(), Config{Bench: b, LLM: f, Model: "org/m", Output: out})
	if err == nil || !strings.Contains(err.Error(), JournalFile(out)+": line 2 is not a row") || !strings.Contains(err.Error(), "move the file away") {
		t.Errorf("error %v", err)
	}
	if f.calls.Load() != 0 {
		t.Errorf("%d calls made", f.calls.Load())
	}
}

func FuzzReadJournal(f *testing.F) {
	f.Add([]byte("{\"id\":\"rq-001\",\"finish_reason\":\"stop\"}\n{\"id\":\"rq-002\"}\n"))
	f.Add([]byte("{\"id\":\"rq-001\"}\n{\"id\":\"rq-0"))
	f.Add([]byte("{} {}\n"))
	f.Add([]byte("[1]\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "j.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := readJournal[submission.MCQRecord](path)
		if err != nil {
			if !strings.Contains(err.Error(), "is not a row") {
				t.Errorf("error without the line: %v", err)
			}
			return
		}
		if n := strings.Count(string(data), "\n"); len(rows) != n {
			t.Errorf("%d rows from %d complete lines", len(rows), n)
		}
	})
}
