package generate

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/extract"
	"github.com/benchgate/benchgate/internal/atomicfile"
	"github.com/benchgate/benchgate/internal/progress"
	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/submission"
)

// Config describes one generation run.
type Config struct {
	Bench       *benchmark.Benchmark
	LLM         llm.Completer
	Model       string
	Workers     int      // concurrent calls; 0 means 4
	Temperature *float64 // nil sends none (reasoning models take none)
	MaxTokens   int      // 0 means the endpoint's default
	Output      string   // the file written (and resumed from)
	// AnswerRule is the benchmark's rule for a reply whose text is in its
	// reasoning; "" means submission.DefaultAnswerRule for its kind. A
	// multiple-choice run takes only RuleContent: its letter is read from
	// the response, which verify reads again.
	AnswerRule submission.AnswerRule
	// ErrorsFile receives one JSON line per failed call of a rubric run,
	// whose answers array has no place for errors; "" means Output with
	// ".errors.jsonl" added.
	ErrorsFile string
	Progress   io.Writer // nil means no progress
	Terminal   bool      // Progress is a terminal: redraw one line
	// FlushEvery is how often the output is rewritten during the run; 0
	// means every 2 s. It is always written at the end, also after an
	// interruption. Between rewrites each row is in JournalFile(Output),
	// written and synced as its call returns.
	FlushEvery time.Duration
}

// Summary says what a run did.
type Summary struct {
	Questions int // in the benchmark
	Skipped   int // already done in the output being resumed
	Done      int // answered in this run
	Failed    int // calls that failed in this run (recorded, to retry on the next)
	NoAnswer  int // of Failed: replies cut at the token limit before any answer
	Cut       int // of Failed: rubric answers cut at the token limit, which are not graded as complete
	// Of Failed: replies that were no answer although the call succeeded:
	// refused (OpenAI's refusal), cut by a content filter, or, for a
	// multiple-choice question, with an empty content.
	Unanswered int
	// Of Failed: calls that failed on every attempt (llm.ErrExhausted):
	// the endpoint could not be reached, timed out or kept failing.
	Exhausted int
	Fallback  int     // answered now by the reasoning text, the content being empty
	SpendUSD  float64 // reported or computed cost of this run's calls
	Unpriced  int     // calls whose cost is unknown
	// Causes are why the failed calls failed, the most frequent first.
	Causes []Cause
	// Concurrency is what the endpoint's rate limits did to the calls in
	// flight, when the endpoint's client reports it (llm.Client does).
	Concurrency llm.Concurrency
}

// concurrencyReporter is a Completer that reports its adaptive
// concurrency, as llm.Client does.
type concurrencyReporter interface {
	Concurrency() llm.Concurrency
}

// Cause is one reason calls failed, and how many.
type Cause struct {
	Text  string // the error, for the person who ran the command
	Calls int
	// Again: asking again as it is would fail again (the endpoint refused
	// the request itself), so what the text says must change first.
	Again bool
}

// maxCauses is how many causes Next lists.
const maxCauses = 3

// Line is the run's account in one line, for the person who ran it; output
// is the file it wrote.
func (s Summary) Line(output string) string {
	line := fmt.Sprintf("%s: %d questions, %d already done, %d answered now, %d failed", output, s.Questions, s.Skipped, s.Done, s.Failed)
	if s.NoAnswer > 0 {
		line += fmt.Sprintf(" (%d cut at the token limit before answering)", s.NoAnswer)
	}
	if s.Cut > 0 {
		line += fmt.Sprintf(" (%d cut at the token limit mid-answer)", s.Cut)
	}
	if s.Unanswered > 0 {
		line += fmt.Sprintf(" (%d refused, filtered or empty)", s.Unanswered)
	}
	if s.Fallback > 0 {
		line += fmt.Sprintf(", %d answered from the reasoning text", s.Fallback)
	}
	line += fmt.Sprintf("; spend $%.4f", s.SpendUSD)
	if s.Unpriced > 0 {
		line += fmt.Sprintf(" (+%d calls of unknown cost)", s.Unpriced)
	}
	if c := s.Concurrency; c.RateLimited > 0 {
		line += fmt.Sprintf("; rate limited %d times: calls at once reduced from %d to %d", c.RateLimited, c.Most, c.Lowest)
		switch {
		case c.Limit == 0:
			line += ", then back up"
		case c.Limit != c.Lowest:
			line += fmt.Sprintf(", %d at the end", c.Limit)
		}
	}
	return line
}

// Next says what to do after a run of benchmark b that wrote output and
// ended without error: retry the failed calls, score the answers of a
// rubric benchmark, or submit an mcq run's scores.
func (s Summary) Next(output string, b *benchmark.Benchmark) string {
	switch {
	case s.NoAnswer > 0 && s.Cut == 0:
		return fmt.Sprintf("%d calls failed, %d of them cut at the token limit before any answer; raise --max-tokens (or, where the question's line says the context window ran out, lower it or use a model with a larger one) and run the same command again to retry them.", s.Failed, s.NoAnswer)
	case s.NoAnswer+s.Cut > 0:
		return fmt.Sprintf("%d calls failed, %d of them cut at the token limit before a complete answer; raise --max-tokens (or, where the question's line says the context window ran out, lower it or use a model with a larger one) and run the same command again to retry them.", s.Failed, s.NoAnswer+s.Cut)
	case s.Failed > 0:
		next := fmt.Sprintf("%d calls failed; run the same command again to retry them.", s.Failed)
		for i, c := range s.Causes {
			if i == maxCauses {
				next += fmt.Sprintf("\n  and %d other causes", len(s.Causes)-maxCauses)
				break
			}
			again := "may pass when asked again"
			if c.Again {
				again = "would fail again as it is: change what it names first"
			}
			next += fmt.Sprintf("\n  %d × %s (%s)", c.Calls, c.Text, again)
		}
		return next
	case b.Rubric != nil:
		return fmt.Sprintf("next: benchgate score %s --benchmark %s", output, b.Entry.Key)
	}
	return fmt.Sprintf("next: benchgate submit --benchmark %s --scores %s --slug ... (see benchgate submit -h)", b.Entry.Key, output)
}

// errorLine is one line of a rubric run's errors file.
type errorLine struct {
	Time     string `json:"time"`
	ID       string `json:"id"`
	Error    string `json:"error"`
	Attempts int    `json:"attempts,omitempty"`
}

// Run asks every question not yet answered in cfg.Output and writes the
// file as it goes. Rerunning with the same output skips what is done and
// retries what failed. Interrupting (cancelling ctx) keeps every answer
// received so far, and so does killing the process: each row is appended
// to JournalFile(cfg.Output) as its call returns, and the next run reads
// it back.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.Bench == nil || cfg.LLM == nil || cfg.Model == "" || cfg.Output == "" {
		return Summary{}, errors.New("generate: a benchmark, an endpoint, a model and an output file are required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = 2 * time.Second
	}
	if cfg.ErrorsFile == "" {
		cfg.ErrorsFile = cfg.Output + ".errors.jsonl"
	}
	if cfg.AnswerRule == "" {
		cfg.AnswerRule = submission.DefaultAnswerRule(cfg.Bench.Rubric != nil)
	}
	switch {
	case !cfg.AnswerRule.Valid():
		return Summary{}, fmt.Errorf("generate: unknown answer rule %q (want %q or %q)", cfg.AnswerRule, submission.RuleContent, submission.RuleReasoningFallback)
	case cfg.Bench.Rubric == nil && cfg.AnswerRule != submission.RuleContent:
		return Summary{}, fmt.Errorf("generate: benchmark %q is multiple-choice, whose letter is read from the response only; its answer rule must be %q", cfg.Bench.Entry.Key, submission.RuleContent)
	}
	r := &runner{cfg: cfg, b: cfg.Bench, n: cfg.Bench.Questions(), prompt: PromptFor(cfg.Bench.Entry), journal: &journal{path: JournalFile(cfg.Output)}}
	if r.b.Rubric == nil {
		p, err := extract.Lookup(r.b.Entry.Extraction)
		if err != nil {
			return Summary{}, err
		}
		r.policy = p
		r.mcq = make([]*submission.MCQRecord, r.n)
	} else {
		r.ans = make([]*submission.AnswerRow, r.n)
	}
	if err := r.resume(); err != nil {
		return Summary{}, err
	}
	return r.run(ctx)
}

type runner struct {
	cfg    Config
	b      *benchmark.Benchmark
	n      int
	policy extract.Policy
	prompt *benchmark.Prompt // what asks each question

	mu     sync.Mutex
	mcq    []*submission.MCQRecord // mcq kind, by question
	ans    []*submission.AnswerRow // rubric kind, by question
	sum    Summary
	causes map[string]*Cause // of the failed calls, by text
	dirty  bool
	// journal holds each row from when its call returns until the output
	// is rewritten with it.
	journal *journal
	track   *progress.Tracker
	stop    context.CancelCauseFunc // ends the run early, with the cause
}

// cause counts a failed call's error; the attempt count and the question
// are left out, so that one cause of many calls is told once. The caller
// holds r.mu.
func (r *runner) cause(err error) {
	text := attemptNote.ReplaceAllString(err.Error(), "")
	if u := (*unansweredError)(nil); errors.As(err, &u) {
		text = u.cause // the same for every question, whatever each reply said
	}
	text = questionNote.ReplaceAllString(text, "")
	if r.causes == nil {
		r.causes = map[string]*Cause{}
	}
	c := r.causes[text]
	if c == nil {
		c = &Cause{Text: text, Again: errors.Is(err, llm.ErrPermanent)}
		r.causes[text] = c
	}
	c.Calls++
}

var (
	attemptNote  = regexp.MustCompile(` \(attempt \d+[^)]*\)`)
	questionNote = regexp.MustCompile(`^question [^:]+: `)
)

// errAccount is matched with errors.Is to tell a failure of the account
// at the endpoint (billing, quota), which every later call would meet
// too, from a failure of one call.
var errAccount = llm.ErrAccount

// errSetup, likewise, tells a setup every call would meet (no such model,
// a field the endpoint does not take, answers that cannot be read).
var errSetup = llm.ErrSetup

// resume loads the rows of an earlier run of the same output: those of
// the output, then those of its journal, which may hold rows the output
// does not yet, the first acceptable row of a question winning.
func (r *runner) resume() error {
	data, err := os.ReadFile(r.cfg.Output)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	bad := func(err error) error {
		return fmt.Errorf("cannot resume from %s, which is not a file this command wrote (%v); move it away or choose another --output", r.cfg.Output, err)
	}
	if r.mcq != nil {
		var rows []submission.MCQRecord
		if data != nil {
			if err := json.Unmarshal(data, &rows); err != nil {
				return bad(err)
			}
		}
		journaled, err := readJournal[submission.MCQRecord](r.journal.path)
		if err != nil {
			return err
		}
		for i, row := range append(rows, journaled...) {
			// A failed call, or one that gave no answer, is retried; an
			// answered one is kept.
			if qi, ok := r.b.Index(row.ID); ok && !submission.Unanswered(row.FinishReason) && r.mcq[qi] == nil {
				r.mcq[qi] = &row
				r.sum.Skipped++
				r.dirty = r.dirty || i >= len(rows)
			}
		}
		return nil
	}
	var rows []submission.AnswerRow
	if data != nil {
		if err := json.Unmarshal(data, &rows); err != nil {
			return bad(err)
		}
	}
	journaled, err := readJournal[submission.AnswerRow](r.journal.path)
	if err != nil {
		return err
	}
	for i, row := range append(rows, journaled...) {
		// A changed question text means another version of the
		// benchmark, and a row with no text to grade is no answer: ask
		// again.
		clean, source := r.cfg.AnswerRule.Graded(row.Answer, row.Reasoning)
		if qi, ok := r.b.Index(row.ID); ok && r.ans[qi] == nil && row.Question == r.b.Rubric.Questions[qi].Text && clean != "" {
			// The clean text is always derived from the reply, never kept
			// as found: a file written by an older cleaning, or edited, is
			// rewritten without asking the model again.
			if clean != row.AnswerClean || source != row.AnswerSource {
				row.AnswerClean, row.AnswerSource, r.dirty = clean, source, true
			}
			r.ans[qi] = &row
			r.sum.Skipped++
			r.dirty = r.dirty || i >= len(rows)
		}
	}
	return nil
}

func (r *runner) pending() []int {
	var todo []int
	for i := 0; i < r.n; i++ {
		if (r.mcq != nil && r.mcq[i] == nil) || (r.ans != nil && r.ans[i] == nil) {
			todo = append(todo, i)
		}
	}
	return todo
}

func (r *runner) run(parent context.Context) (Summary, error) {
	// A failure of the account stops the run through ctx, as an
	// interruption does: every later call would fail the same way.
	ctx, stop := context.WithCancelCause(parent)
	defer stop(nil)
	r.stop = stop
	r.sum.Questions = r.n
	todo := r.pending()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < r.cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r.ask(ctx, i)
			}
		}()
	}
	r.track = progress.Start(r.cfg.Progress, r.cfg.Terminal, len(todo))
	flushErr := make(chan error, 1)
	stopFlush := make(chan struct{})
	go func() {
		t := time.NewTicker(r.cfg.FlushEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if err := r.flush(); err != nil {
					flushErr <- err
					return
				}
			case <-stopFlush:
				flushErr <- nil
				return
			}
		}
	}()
dispatch:
	for _, i := range todo {
		if ctx.Err() != nil {
			break // select would pick at random between the two
		}
		select {
		case work <- i:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(work)
	wg.Wait()
	close(stopFlush)
	err := <-flushErr
	r.track.Stop()
	if ferr := r.flush(); err == nil {
		err = ferr
	}
	// With every row in the output, the journal is no longer needed; if
	// the output could not be written, it keeps them for the next run.
	if jerr := r.journal.finish(err != nil); err == nil {
		err = jerr
	}
	if cause := context.Cause(ctx); err == nil && errors.Is(cause, errAccount) {
		err = fmt.Errorf("stopped: the account at the endpoint failed (%w), and every other call would too; %d of %d questions answered so far are saved in %s; run the same command again once the account is in order", cause, r.sum.Skipped+r.sum.Done, r.n, r.cfg.Output)
	} else if err == nil && errors.Is(cause, errSetup) {
		err = fmt.Errorf("stopped: the endpoint refused the setup (%w), and every other call would meet it too; %d of %d questions answered so far are saved in %s; fix what it names and run the same command again", cause, r.sum.Skipped+r.sum.Done, r.n, r.cfg.Output)
	} else if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("interrupted: %d of %d questions answered so far are saved in %s; run the same command again to go on", r.sum.Skipped+r.sum.Done, r.n, r.cfg.Output)
	}
	for _, c := range r.causes {
		r.sum.Causes = append(r.sum.Causes, *c)
	}
	if c, ok := r.cfg.LLM.(concurrencyReporter); ok {
		r.sum.Concurrency = c.Concurrency()
	}
	slices.SortFunc(r.sum.Causes, func(a, b Cause) int { return cmp.Or(b.Calls-a.Calls, strings.Compare(a.Text, b.Text)) })
	return r.sum, err
}

// ask makes one call and records its row.
func (r *runner) ask(ctx context.Context, i int) {
	req := llm.Request{Model: r.cfg.Model, Temperature: r.cfg.Temperature, MaxTokens: r.cfg.MaxTokens, Kind: llm.CallCandidate}
	if r.mcq != nil {
		it := &r.b.Items[i]
		req.Messages, req.QuestionID = MCQMessages(r.prompt, it), it.ID
	} else {
		q := &r.b.Rubric.Questions[i]
		req.Messages, req.QuestionID = RubricMessages(r.prompt, q), q.ID
	}
	resp, err := r.cfg.LLM.Complete(ctx, req)
	if err != nil && ctx.Err() != nil {
		return // interrupted: not a failure of the model, asked again next run
	}
	if errors.Is(err, errAccount) || errors.Is(err, errSetup) {
		r.stop(err) // not this question's failure: asked again next run
		return
	}
	noAnswer := err == nil && resp.FinishReason == "length" && submission.CleanAnswer(resp.Content) == ""
	cut, unanswered := false, false
	switch {
	case noAnswer:
		// The budget ran out before the answer: a failure to retry with
		// more tokens, not the model's answer. Reasoning text cut off
		// mid-thought is no answer either, whatever the rule.
		err = fmt.Errorf("question %s: %s before any answer%s; %s", req.QuestionID, cutAt(resp), reasoningNote(resp.Reasoning), cutFix(resp))
	case err == nil && r.ans != nil && resp.FinishReason == "length":
		// A rubric answer cut short would be graded as if complete.
		cut = true
		err = fmt.Errorf("question %s: %s mid-answer, and a rubric answer cut short is not graded; %s", req.QuestionID, cutAt(resp), cutFix(resp))
	case err == nil:
		if u := r.unanswered(resp); u != nil {
			unanswered, err = true, fmt.Errorf("question %s: %w", req.QuestionID, u)
		}
	}
	var c float64
	if resp.CostUSD != nil {
		c = *resp.CostUSD
	}
	r.track.Add(err != nil, c)
	// The row goes to the journal once r.mu is released: a sync there
	// must not hold up the other workers' rows or the output's rewrite.
	var row any
	defer func() {
		if row != nil {
			r.journal.append(row)
		}
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dirty = true
	if resp.CostUSD != nil {
		r.sum.SpendUSD += *resp.CostUSD
	} else if err == nil || noAnswer || cut || unanswered {
		r.sum.Unpriced++
	}
	if err != nil {
		r.sum.Failed++
		switch {
		case noAnswer:
			r.sum.NoAnswer++
		case cut:
			r.sum.Cut++
		case unanswered:
			r.sum.Unanswered++
		}
		if errors.Is(err, llm.ErrExhausted) {
			r.sum.Exhausted++
		}
		r.cause(err)
	} else {
		r.sum.Done++
	}
	if r.mcq != nil {
		r.mcq[i] = r.mcqRow(&r.b.Items[i], resp, err)
		row = r.mcq[i]
		return
	}
	if err != nil {
		r.logError(req.QuestionID, err, resp.Attempts)
		return
	}
	q := &r.b.Rubric.Questions[i]
	clean, source := r.cfg.AnswerRule.Graded(resp.Content, resp.Reasoning)
	if source != "" {
		r.sum.Fallback++
	}
	r.ans[i] = &submission.AnswerRow{ID: q.ID, Question: q.Text, Answer: resp.Content, AnswerClean: clean, Reasoning: resp.Reasoning, AnswerSource: source}
	row = r.ans[i]
}

// unansweredError is a successful call whose reply is no answer. cause
// is the same for every question, for the run's summary; detail is this
// reply's, such as the refusal's words.
type unansweredError struct {
	finish string // the row's finish reason
	cause  string
	detail string
}

func (e *unansweredError) Error() string { return e.cause + suffixed(e.detail) }

func suffixed(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// unanswered says why a successful reply is no answer, or returns nil: a
// refusal or a completion a content filter cut, of either kind; for a
// multiple-choice question, whose letter is read from the content only,
// an empty content, whatever the reasoning text holds.
func (r *runner) unanswered(resp llm.Response) *unansweredError {
	switch resp.Unanswered() {
	case "refusal":
		return &unansweredError{finish: "refusal", cause: "the model refused to answer (refusal)", detail: strconv.Quote(safetext.Cut(resp.Refusal, 500))}
	case "content_filter":
		return &unansweredError{finish: "content_filter", cause: "a content filter cut the reply (finish_reason content_filter)"}
	}
	if r.mcq != nil && strings.TrimSpace(resp.Content) == "" {
		return &unansweredError{finish: "empty", cause: "the reply's content was empty (a multiple-choice letter is read from the content only)" + reasoningNote(resp.Reasoning)}
	}
	return nil
}

// cutAt says where a reply cut short stopped: at the token limit, or where
// the endpoint's own finish reason says, such as Mistral's model_length
// (the model's context window ran out), which benchgate reads as length.
func cutAt(resp llm.Response) string {
	if resp.NativeFinishReason != "" {
		return fmt.Sprintf("the reply was cut short (finish_reason %s, read as length, %d completion tokens)", resp.NativeFinishReason, resp.CompletionTokens)
	}
	return fmt.Sprintf("the reply was cut at the token limit (finish_reason length, %d completion tokens)", resp.CompletionTokens)
}

// cutFix says how to get a reply whole: more tokens for one cut at the
// limit; for one the model's context window cut, fewer, or another model.
func cutFix(resp llm.Response) string {
	if resp.NativeFinishReason != "" {
		return "the prompt and --max-tokens may exceed the model's context window: lower --max-tokens or use a model with a larger one, and run again"
	}
	return "raise --max-tokens and run again"
}

// reasoningNote says how much reasoning text a reply cut at the token
// limit held, which tells a person why the budget ran out.
func reasoningNote(reasoning string) string {
	if strings.TrimSpace(reasoning) == "" {
		return ""
	}
	return fmt.Sprintf(" (%d bytes of reasoning text: the model spent its budget thinking)", len(reasoning))
}

func (r *runner) mcqRow(it *benchmark.Item, resp llm.Response, err error) *submission.MCQRecord {
	row := &submission.MCQRecord{ID: it.ID, Reasoning: resp.Reasoning}
	u := (*unansweredError)(nil)
	if err != nil && !errors.As(err, &u) {
		row.FinishReason, row.Error = "error", err.Error()
		return row
	}
	// The call succeeded, answer or not, and was paid for.
	lat := float64(resp.Latency.Microseconds()) / 1000
	row.LatencyMS = &lat
	if resp.UsageKnown {
		// Without usage the counts are unknown, not 0: the row leaves them out.
		pt, ct := resp.PromptTokens, resp.CompletionTokens
		row.PromptTokens, row.CompletionTokens = &pt, &ct
	}
	switch {
	case u != nil && u.finish == "empty":
		row.FinishReason = "empty" // no error: verify counts it as an empty response
		return row
	case u != nil && u.finish == "refusal":
		row.FinishReason, row.Error = "refusal", "refusal: "+resp.Refusal
		return row
	case u != nil:
		// Filtered: the partial text is kept and read as any response
		// is, so that verify reads the same letter; the row is a failure.
		row.FinishReason, row.Error = u.finish, err.Error()
	case resp.FinishReason == "length":
		row.FinishReason = "length"
	default:
		row.FinishReason = "stop"
	}
	row.Response = resp.Content
	if got := r.policy.Extract(resp.Content); got.Letter != "" {
		l, p := got.Letter, got.Pattern
		row.Answer, row.Pattern = &l, &p
		row.Correct = l == it.Key()
	}
	return row
}

func (r *runner) logError(id string, err error, attempts int) {
	f, ferr := os.OpenFile(r.cfg.ErrorsFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	line, _ := json.Marshal(errorLine{Time: time.Now().UTC().Format(time.RFC3339), ID: id, Error: err.Error(), Attempts: attempts})
	f.Write(append(line, '\n'))
}

// flush rewrites the output with every row so far, atomically.
func (r *runner) flush() error {
	r.mu.Lock()
	if !r.dirty {
		r.mu.Unlock()
		return nil
	}
	var rows any
	if r.mcq != nil {
		list := []*submission.MCQRecord{}
		for _, row := range r.mcq {
			if row != nil {
				list = append(list, row)
			}
		}
		rows = list
	} else {
		list := []*submission.AnswerRow{}
		for _, row := range r.ans {
			if row != nil {
				list = append(list, row)
			}
		}
		rows = list
	}
	data, err := json.MarshalIndent(rows, "", "  ")
	r.dirty = false
	r.mu.Unlock()
	if err != nil {
		return err
	}
	return atomicfile.Write(r.cfg.Output, append(data, '\n'))
}
