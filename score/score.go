// Package score grades a rubric benchmark's answers file with the
// benchmark's fixed judge and writes the scores.json that benchgate verify
// accepts (submission.RubricRecord rows), or compares two answers files
// pairwise and renders the comparison (RenderPair). Grades come through the
// judge's cache, so running a score again costs nothing. RubricFor tells
// which rubric benchmark an answers file answers.
package score

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/benchgate/benchgate/jsondoc"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/atomicfile"
	"github.com/benchgate/benchgate/internal/progress"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/submission"
)

// Config describes one scoring run.
type Config struct {
	Bench    *benchmark.Benchmark
	Judge    *judge.Judge
	Workers  int // concurrent judge calls; 0 means 4
	Progress io.Writer
	Terminal bool
	Now      func() time.Time // scored_at; nil means time.Now
	// AnswerRule is the benchmark's rule for an answer whose text is in
	// its reasoning; "" means submission.DefaultAnswerRule of a rubric
	// benchmark, the reasoning fallback.
	AnswerRule submission.AnswerRule
}

func (c Config) rule() submission.AnswerRule {
	if c.AnswerRule == "" {
		return submission.DefaultAnswerRule(true)
	}
	return c.AnswerRule
}

// errAccount is matched with errors.Is to tell a failure of the judge's
// account (billing, quota), which every later call would meet too, from a
// failure of one call.
var errAccount = llm.ErrAccount

// Summary says what a scoring run did.
type Summary struct {
	Answers  int
	Scored   int
	Unscored int // rows without a grade, for any of the reasons below
	// Of Unscored: answers with no text to grade (no content and no
	// reasoning the rule takes), not sent to the judge.
	Empty int
	// Of Unscored: answers whose judge call failed, with the reason.
	Failures []Failure
	Flagged  int // answers that tried to instruct the judge
	Cached   int
	Calls    int
	SpendUSD float64
}

// Failure is an answer left unscored because its judge call failed.
type Failure struct {
	ID        string
	Permanent bool   // the call would fail again (llm.ErrPermanent): a person must grade it
	Reason    string // what may be told to anyone (llm.Public), as in score_b_reason
	// Detail is the whole error, with what the endpoint said (such as
	// which content filter refused the answer): for the person who ran
	// the scoring, never written in scores.json.
	Detail string
}

// ErrSetup is matched with errors.Is to tell a run stopped by its setup
// (the judge's endpoint, model or routing) from one stopped otherwise.
var ErrSetup = errors.New("the judge's setup is wrong")

// notFound reports a judge call answered 404: the endpoint, the model, its
// provider routing or its deployment is not there, which is the setup of
// the run, not the answer graded, so that every call would meet it.
func notFound(err error) bool {
	var e *llm.Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// Incomplete reports whether the run left answers unscored that another
// generate or score run may grade: empty answers or failed judge calls.
func (s Summary) Incomplete() bool { return s.Empty > 0 || len(s.Failures) > 0 }

// Text is the run's account for the person who ran it; output is the
// scores.json it wrote.
func (s Summary) Text(output string) string {
	text := fmt.Sprintf("%s: %d answers, %d scored, %d unscored, %d flagged for trying to instruct the judge; %d judge calls (%d answers from the cache), $%.4f\n",
		output, s.Answers, s.Scored, s.Unscored, s.Flagged, s.Calls, s.Cached, s.SpendUSD)
	if n := s.Unscored - s.Empty - len(s.Failures); n > 0 {
		text += fmt.Sprintf("the judge gave no valid verdict for %d answers after re-asking: they are unscored (null) and marked for adjudication.\n", n)
	}
	if s.Empty > 0 {
		text += fmt.Sprintf("%d answers are empty (no content, and no reasoning text the benchmark's rule grades): they are unscored and were not sent to the judge; run `benchgate generate` again with the same --output to ask for them again, then score.\n", s.Empty)
	}
	if len(s.Failures) > 0 {
		var permanent, transient []string
		for _, f := range s.Failures {
			if f.Permanent {
				permanent = append(permanent, f.ID+" ("+f.Detail+")")
			} else {
				transient = append(transient, f.ID+" ("+f.Detail+")")
			}
		}
		text += fmt.Sprintf("the judge call failed for %d answers: they are unscored and marked for adjudication; the rest are written.\n", len(s.Failures))
		if len(permanent) > 0 {
			text += fmt.Sprintf("  %d would fail again (a person must grade them): %s\n", len(permanent), listed(permanent))
		}
		if len(transient) > 0 {
			text += fmt.Sprintf("  %d failed after retries: run the same command again to retry them (grades already made come from the cache): %s\n", len(transient), listed(transient))
		}
	}
	return text
}

// maxListed caps the failures Summary.Text names one by one.
const maxListed = 10

func listed(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:maxListed], "; "), len(items)-maxListed)
}

// ReadAnswers reads an answers file (submission.ParseAnswers), as
// `benchgate generate` writes it.
func ReadAnswers(path string) ([]submission.AnswerRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	rows, fs := submission.ParseAnswers(path, doc)
	if len(fs) > 0 {
		return nil, errors.New(fs[0].String())
	}
	return rows, nil
}

// RubricFor returns the key of the one rubric benchmark of the
// leaderboard in fsys that the answers answer: each answer's id is one of
// its questions, asked in the answer's words. Benchmarks that cannot be
// loaded are passed over; none or several is an error that says to name
// the benchmark.
func RubricFor(fsys fs.FS, answers []submission.AnswerRow) (string, error) {
	reg, err := benchmark.OpenRegistry(fsys)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range reg.Entries {
		if e.Kind != benchmark.KindRubric {
			continue
		}
		b, _ := benchmark.Load(fsys, e)
		if b == nil {
			continue
		}
		all := len(answers) > 0
		for _, a := range answers {
			qi, ok := b.Index(a.ID)
			all = all && ok && b.Rubric.Questions[qi].Text == a.Question
		}
		if all {
			found = append(found, e.Key)
		}
	}
	switch len(found) {
	case 0:
		return "", errors.New("cannot tell which benchmark these answers are for: no rubric benchmark of the registry asks all their questions in these words; name it with --benchmark")
	case 1:
	default:
		return "", fmt.Errorf("cannot tell which benchmark these answers are for: the benchmarks %s each ask all their questions; name one with --benchmark", strings.Join(found, ", "))
	}
	return found[0], nil
}

// Grade grades every answer and returns the scores rows, in benchmark
// order. The text graded, and written as answer_b_clean, is the clean form
// of answer_b, or of the reasoning text when the benchmark's rule falls
// back to it (cfg.AnswerRule; the row's answer_b_source then says so). An
// answer to a question the benchmark lacks, or to an older wording of one,
// or whose answer_b_clean is not that clean form, is an error before any
// call: it cannot be graded against this rubric.
//
// An answer with no text to grade is not sent to the judge, and an answer
// whose judge call fails (such as a reply refused by a content filter) is
// not graded either: both are unscored rows that say why, counted in the
// Summary, and the others are graded. A failure of the judge's account
// (billing, quota) or an interruption ends the run with an error instead,
// since every later call would fail too.
func Grade(ctx context.Context, cfg Config, answers []submission.AnswerRow) ([]submission.RubricRecord, Summary, error) {
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
	rule := cfg.rule()
	if !rule.Valid() {
		return nil, Summary{}, fmt.Errorf("score: unknown answer rule %q (want %q or %q)", rule, submission.RuleContent, submission.RuleReasoningFallback)
	}
	idx := make([]int, len(answers))
	texts := make([]string, len(answers))
	sources := make([]string, len(answers))
	seen := map[string]bool{}
	for i, a := range answers {
		text, source, err := graded(b, rule, a)
		if err != nil {
			return nil, Summary{}, err
		}
		texts[i], sources[i] = text, source
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
	rows := make([]submission.RubricRecord, len(answers))
	results := make([]judge.Result, len(answers))
	errs := make([]error, len(answers))
	track := progress.Start(cfg.Progress, cfg.Terminal, len(answers))
	// An account failure (billing, quota) stops the run at once: every
	// other call would meet it too.
	parent := ctx
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if texts[i] == "" {
					track.Add(false, 0)
					continue // nothing to grade: no call
				}
				q := &b.Rubric.Questions[idx[i]]
				res, err := cfg.Judge.Grade(ctx, b.Rubric, q, texts[i])
				results[i], errs[i] = res, err
				switch {
				case errors.Is(err, errAccount):
					stop(fmt.Errorf("grading %s: the judge's account failed, and every other call would too; nothing is written (grades already made are cached, so running the same command again once the account is in order is cheap): %w", answers[i].ID, err))
				case notFound(err):
					stop(fmt.Errorf("grading %s: the judge's endpoint does not know the judge (HTTP 404), and every other call would fail too; nothing is written: check --judge-base-url, the registry's judge_model and judge.provider (OpenRouter's provider routing), and on Azure the judge's --deployment; grades already made are cached (%w): %w", answers[i].ID, ErrSetup, err))
				case errors.Is(err, llm.ErrSetup):
					stop(fmt.Errorf("grading %s: the judge's endpoint refused the setup, and every other call would meet it too; nothing is written (grades already made are cached, so running the same command again once it is fixed is cheap) (%w): %w", answers[i].ID, ErrSetup, err))
				}
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
	if err := parent.Err(); err != nil {
		return nil, Summary{}, fmt.Errorf("interrupted; graded answers are cached, so running the same command again is cheap: %w", err)
	}
	if cause := context.Cause(ctx); cause != nil {
		return nil, Summary{}, cause
	}
	var sum Summary
	sum.Answers = len(answers)
	at := cfg.Now()
	for i, a := range answers {
		res := results[i]
		q := &b.Rubric.Questions[idx[i]]
		rows[i] = judge.Row(q, a.ID, a.Question, a.Answer, texts[i], res, cfg.Judge.Model, b.SHA256, at)
		rows[i].JudgePromptSHA256 = cfg.Judge.PromptSHA256()
		rows[i].Reasoning, rows[i].AnswerSource = a.Reasoning, sources[i]
		switch {
		case errs[i] != nil:
			f := Failure{ID: a.ID, Permanent: errors.Is(errs[i], llm.ErrPermanent), Reason: llm.Public(errs[i]), Detail: errs[i].Error()}
			sum.Failures = append(sum.Failures, f)
			rows[i].Reason = "unscored: the judge call failed: " + f.Reason
			if !f.Permanent {
				rows[i].Reason += "; scoring again retries it"
			}
		case texts[i] == "":
			sum.Empty++
			rows[i].Reason = "unscored: the answer is empty (no content, and no reasoning text the benchmark's rule grades), so it was not sent to the judge; generate it again"
			// Nothing for a person to grade either.
			rows[i].AdjudicationRequired, rows[i].AdjudicationNote = false, ""
		}
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
	order := make([]submission.RubricRecord, 0, len(rows))
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
func Write(path string, rows []submission.RubricRecord) error {
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'))
}
