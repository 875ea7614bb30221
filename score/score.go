// Package score grades a rubric benchmark's answers file with the
// benchmark's fixed judge and writes the scores.json that benchgate verify
// accepts, or compares two answers files pairwise. Grades come through the
// judge's cache, so running a score again costs nothing.
package score

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/benchgate/benchgate/jsondoc"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/internal/atomicfile"
	"github.com/benchgate/benchgate/internal/progress"
	"github.com/benchgate/benchgate/judge"
)

// Config describes one scoring run.
type Config struct {
	Bench    *benchmark.Benchmark
	Judge    *judge.Judge
	Workers  int // concurrent judge calls; 0 means 4
	Progress io.Writer
	Terminal bool
	Now      func() time.Time // scored_at; nil means time.Now
}

// Summary says what a scoring run did.
type Summary struct {
	Answers  int
	Scored   int
	Unscored int // the judge gave no valid verdict; a person must grade these
	Flagged  int // answers that tried to instruct the judge
	Cached   int
	Calls    int
	SpendUSD float64
}

// ReadAnswers reads a Groundtruth answers array (id, question, answer_b,
// answer_b_clean), as `benchgate generate` writes it. A row without an id,
// a question or an answer is an error naming its line.
func ReadAnswers(path string) ([]generate.AnswerRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if doc.Root.Kind != jsondoc.Array {
		return nil, fmt.Errorf("%s is not an answers array (id, question, answer_b, answer_b_clean): it holds %s", path, doc.Root.Kind)
	}
	rows := make([]generate.AnswerRow, 0, len(doc.Root.Elems))
	for i, n := range doc.Root.Elems {
		row := generate.AnswerRow{ID: n.GetString("id"), Question: n.GetString("question"), Answer: n.GetString("answer_b"), AnswerClean: n.GetString("answer_b_clean")}
		if row.ID == "" || row.Question == "" || n.Get("answer_b") == nil {
			return nil, fmt.Errorf("%s:%d: row %d is not an answer: it needs an id, the question and answer_b; this file is not an answers array (id, question, answer_b, answer_b_clean)", path, doc.Line(n.Off), i+1)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// Grade grades every answer and returns the scores rows, in benchmark
// order. An answer to a question the benchmark lacks, or to an older
// wording of one, is an error: it cannot be graded against this rubric.
func Grade(ctx context.Context, cfg Config, answers []generate.AnswerRow) ([]judge.ScoresRow, Summary, error) {
	b := cfg.Bench
	if b == nil || b.Rubric == nil || cfg.Judge == nil {
		return nil, Summary{}, errors.New("score: a rubric benchmark and a judge are required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	idx := make([]int, len(answers))
	seen := map[string]bool{}
	for i, a := range answers {
		qi, ok := b.Index(a.ID)
		switch {
		case !ok:
			return nil, Summary{}, fmt.Errorf("answer %q is to no question of benchmark %q", a.ID, b.Entry.Key)
		case seen[a.ID]:
			return nil, Summary{}, fmt.Errorf("question %s is answered twice", a.ID)
		case a.Question != b.Rubric.Questions[qi].Text:
			return nil, Summary{}, fmt.Errorf("the answer to %s was given to another wording of the question; generate it again with the current benchmark", a.ID)
		}
		seen[a.ID] = true
		idx[i] = qi
	}
	rows := make([]judge.ScoresRow, len(answers))
	results := make([]judge.Result, len(answers))
	errs := make([]error, len(answers))
	track := progress.Start(cfg.Progress, cfg.Terminal, len(answers))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				q := &b.Rubric.Questions[idx[i]]
				// The clean text is what a person reads and what is graded.
				text := answers[i].AnswerClean
				if text == "" {
					text = answers[i].Answer
				}
				res, err := cfg.Judge.Grade(ctx, b.Rubric, q, text)
				results[i], errs[i] = res, err
				c := 0.0
				if res.Usage.CostUSD != nil {
					c = *res.Usage.CostUSD
				}
				track.Add(err != nil, c)
			}
		}()
	}
	for i := range answers {
		select {
		case work <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(work)
	wg.Wait()
	track.Stop()
	if err := ctx.Err(); err != nil {
		return nil, Summary{}, fmt.Errorf("interrupted; graded answers are cached, so running the same command again is cheap: %w", err)
	}
	var sum Summary
	sum.Answers = len(answers)
	at := cfg.Now()
	for i, a := range answers {
		if errs[i] != nil {
			return nil, sum, fmt.Errorf("grading %s: %w", a.ID, errs[i])
		}
		res := results[i]
		q := &b.Rubric.Questions[idx[i]]
		rows[i] = judge.Row(q, a.ID, a.Question, a.Answer, a.AnswerClean, res, cfg.Judge.Model, b.SHA256, at)
		if res.Scored {
			sum.Scored++
		} else {
			sum.Unscored++
		}
		if len(res.Injection) > 0 {
			sum.Flagged++
		}
		if res.Cached {
			sum.Cached++
		}
		sum.Calls += res.Usage.Calls
		if res.Usage.CostUSD != nil {
			sum.SpendUSD += *res.Usage.CostUSD
		}
	}
	// Benchmark order, whatever the answers file's.
	order := make([]judge.ScoresRow, 0, len(rows))
	for qi := 0; qi < b.Questions(); qi++ {
		for i := range answers {
			if idx[i] == qi {
				order = append(order, rows[i])
			}
		}
	}
	return order, sum, nil
}

// Write writes scores rows as scores.json, atomically.
func Write(path string, rows []judge.ScoresRow) error {
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'))
}
