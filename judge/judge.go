// Package judge grades open answers against a schema 2.0 rubric with a
// fixed LLM judge, compares two answers pairwise, and checks a judge on the
// rubric's calibration fixtures, once or in several runs (and renders that
// check, RenderCalibration, and makes its calibration record,
// Calibration.Record). It is a pure core: it reaches the model only through
// llm.Completer and stores nothing but cache entries, through Store. It
// never guesses a grade: a verdict that breaks the rubric's arithmetic is
// sent back to the judge, and after a few refusals the answer is left
// unscored for a person.
package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/llm"
)

// Store keeps computed results between runs; internal/filecache.Dir is one.
// A failed Put is not an error: the result is computed again next time.
type Store interface {
	Get(key string) ([]byte, bool)
	Put(key string, data []byte)
}

// DefaultRetries is how many times a broken verdict is followed by another
// call when neither the judge contract nor Judge.Retries says.
const DefaultRetries = benchmark.DefaultVerdictRetries

// Judge grades answers with one fixed model and fixed request parameters.
// It holds no state of its own, so it is safe for concurrent use when its
// LLM and Cache are. For a benchmark, build it with For, which takes both
// from the registry, so that every caller sends the same judge contract.
type Judge struct {
	LLM   llm.Completer
	Model string // the judge model id, as the benchmark registry fixes it
	Cache Store  // optional
	// Endpoint names the endpoint that serves the judge (its base URL,
	// never a key): the same model id at two endpoints can be two builds
	// of it, so it is part of the cache key. Empty keeps the keys of
	// grades cached before endpoints were told apart.
	Endpoint string
	// Params are the registry's judge contract: each request parameter
	// set is sent exactly as given, an unset one not at all; its verdict
	// rule says how replies are read and what follows one that cannot be.
	Params benchmark.JudgeParams
	// Prompt is the contract's prompt file, nil for benchgate's own
	// grading prompt (PromptVersion).
	Prompt *benchmark.Prompt
	// Prices, when set, are the judge model's, so that a budget can
	// reserve a call's worst case before making it (see Budget).
	Prices *Prices
	// Retries is how many times a verdict that cannot be parsed or breaks
	// the rubric is followed by another call, when the contract's verdict
	// rule does not say: 0 means DefaultRetries, a negative value none.
	Retries int
	// Run numbers the gradings of a judge that grades the same answers
	// several times, to measure its own noise. Run 0 or 1 is the first,
	// cached under the key every grade has always had; a run above 1 is
	// cached under a key of its own, so that its grade is a call of its
	// own, never the first run's read back, and a run interrupted resumes
	// without paying twice.
	Run int
}

// For returns a copy of j that is benchmark e's fixed judge: its model,
// contract and prompt from the registry entry. The CLI and the App both
// build their judges with it.
func (j Judge) For(e benchmark.Entry) *Judge {
	j.Model, j.Params, j.Prompt = e.JudgeModel, e.Judge, e.JudgePrompt
	return &j
}

// PromptSHA256 returns the digest of the judge's prompt file, "" for
// benchgate's own prompt: what scores rows bind as judge_prompt_sha256.
func (j *Judge) PromptSHA256() string {
	if j.Prompt == nil {
		return ""
	}
	return j.Prompt.SHA256
}

func (j *Judge) prompt() *benchmark.Prompt {
	if j.Prompt == nil {
		return builtinPrompt
	}
	return j.Prompt
}

func (j *Judge) retries() int {
	if n := j.Params.Verdict.Retries; n != nil {
		return *n
	}
	switch {
	case j.Retries == 0:
		return DefaultRetries
	case j.Retries < 0:
		return 0
	}
	return j.Retries
}

// request returns the call every grading makes: the judge contract's
// parameters and, for grading unless the contract says otherwise, JSON
// mode.
func (j *Judge) request(q *benchmark.RubricQuestion, msgs []llm.Message, jsonMode bool) llm.Request {
	p := j.Params
	req := llm.Request{
		Model:           j.Model,
		Messages:        msgs,
		Temperature:     p.Temperature,
		MaxTokens:       p.MaxTokens,
		Seed:            p.Seed,
		ReasoningEffort: p.ReasoningEffort,
		ServiceTier:     p.ServiceTier,
		Provider:        p.Provider,
		JSON:            jsonMode,
		FixedModel:      true, // a grade by another model is not the benchmark's judge's
		Kind:            llm.CallJudge,
		QuestionID:      q.ID,
	}
	if p.TopP != nil {
		req.TopP = *p.TopP
	}
	return req
}

// Usage is what calls to the judge cost.
type Usage struct {
	// Calls counts attempts, failed ones included: each may have been
	// billed, and each counts against a cap on calls.
	Calls            int      `json:"calls"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"` // nil when no call reported a cost
}

func (u *Usage) add(r llm.Response) {
	u.merge(Usage{Calls: llm.Attempts(r, nil), PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens, CostUSD: r.CostUSD})
}

func (u *Usage) merge(o Usage) {
	u.Calls += o.Calls
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	if o.CostUSD != nil {
		c := *o.CostUSD
		if u.CostUSD != nil {
			c += *u.CostUSD
		}
		u.CostUSD = &c
	}
}

// Result is the outcome of grading one answer.
type Result struct {
	// Scored reports whether Verdict holds a grade that passed Check.
	// When false the answer is unscored and Problems says why.
	Scored  bool    `json:"scored"`
	Verdict Verdict `json:"verdict"`
	// Problems are what was wrong with the judge's last reply, when the
	// answer is unscored.
	Problems []string `json:"problems,omitempty"`
	// LastReply is the judge's last reply of an unscored answer, kept for
	// the person who grades it instead.
	LastReply string `json:"last_reply,omitempty"`
	// Injection lists the answer's attempts to instruct the grader (see
	// InjectionMarkers); they call for a person's review whatever the grade.
	Injection []string `json:"injection,omitempty"`
	// Usage counts the calls made by this Grade: zero for a cached result,
	// so that adding up a run's usage counts each call once.
	Usage Usage `json:"usage"`
	// Cached reports that the result was read from the cache.
	Cached bool `json:"cached"`
	// ServedModel is the model that served the grading call, as the
	// endpoint named it; kept in the cache entry, whose grade is read
	// again only when it is the same model as the judge (llm.SameModel).
	ServedModel string `json:"served_model,omitempty"`
}

// Total returns the awarded points of a scored result.
func (r Result) Total() int { return int(r.Verdict.Total) }

// Grade grades answer against question q of rubric r. A reply that cannot
// be parsed or breaks the rubric's contract (see Verdict.Check) is sent
// back with the problems quoted, up to Retries times; if the judge still
// fails, the result is unscored with the reasons. The error is only for a
// call that failed (the endpoint, or ctx); the result then holds the usage
// so far. Scored results are cached under CacheKey.
func (j *Judge) Grade(ctx context.Context, r *benchmark.Rubric, q *benchmark.RubricQuestion, answer string) (Result, error) {
	res := Result{Injection: InjectionMarkers(answer)}
	key := j.CacheKey(r, q, answer)
	if j.Cache != nil {
		if data, ok := j.Cache.Get(key); ok {
			// An entry that no longer reads as a valid grade is a miss.
			if g, err := decodeGrade(data); err == nil && len(g.Verdict.Check(q)) == 0 && llm.SameModel(j.Model, g.ServedModel) {
				res.Scored, res.Verdict, res.Cached, res.ServedModel = true, g.Verdict, true, g.ServedModel
				return res, nil
			}
		}
	}

	prompt := Render(j.prompt(), r, q, answer, boundaryFor(answer))
	msgs := prompt
	for attempt := 0; ; attempt++ {
		resp, err := j.LLM.Complete(ctx, j.request(q, msgs, !j.Params.NoResponseFormat))
		if err != nil {
			res.Usage.Calls += llm.Attempts(resp, err)
			return res, fmt.Errorf("judge %s, question %s: %w", j.Model, q.ID, err)
		}
		res.Usage.add(resp)
		v, problems := j.read(q, resp)
		if len(problems) == 0 {
			res.Scored, res.Verdict, res.Problems, res.LastReply, res.ServedModel = true, v, nil, "", resp.Model
			break
		}
		res.Problems, res.LastReply = problems, resp.Content
		if attempt >= j.retries() {
			break
		}
		if j.Params.Verdict.Retry == benchmark.RetryResend {
			msgs = prompt // asked afresh, as the benchmark's harness does
			continue
		}
		msgs = append(msgs,
			llm.Message{Role: "assistant", Content: resp.Content},
			llm.Message{Role: "user", Content: reask(problems)})
	}
	if res.Scored && j.Cache != nil {
		if data, err := encodeGrade(grade{res.Verdict, res.ServedModel}); err == nil {
			j.Cache.Put(key, data)
		}
	}
	return res, nil
}

// encodeGrade is how a grade is kept in the cache, and the only encoding
// of one there: a scored Result holding the verdict, the form entries have
// always had, so that grades paid for by an earlier build are read again.
func encodeGrade(g grade) ([]byte, error) {
	return json.Marshal(Result{Scored: true, Verdict: g.Verdict, ServedModel: g.ServedModel})
}

// grade is what a cache entry holds: the verdict and the model that
// served it ("" for an entry written before it was kept).
type grade struct {
	Verdict     Verdict
	ServedModel string
}

func decodeGrade(data []byte) (grade, error) {
	var c Result
	if err := json.Unmarshal(data, &c); err != nil {
		return grade{}, err
	}
	if !c.Scored {
		return grade{}, errors.New("not a scored grade")
	}
	return grade{c.Verdict, c.ServedModel}, nil
}

// read parses and checks one reply, returning the problems to quote back.
func (j *Judge) read(q *benchmark.RubricQuestion, resp llm.Response) (Verdict, []string) {
	v, err := ReadVerdict(j.Params.Verdict, resp.Content)
	var problems []string
	switch {
	case resp.Refusal != "":
		problems = []string{fmt.Sprintf("you declined to grade (%q); grade the answer against the rubric, which is your task here", safetext.Cut(resp.Refusal, 300))}
	case resp.FinishReason == "content_filter":
		problems = []string{"your reply was cut by a content filter; reply with the verdict alone"}
	case err != nil:
		if fe := (*FormatError)(nil); errors.As(err, &fe) {
			problems = fe.Problems
		} else {
			problems = []string{err.Error()}
		}
	default:
		problems = v.Check(q)
	}
	if len(problems) > 0 && resp.FinishReason == "length" {
		problems = append(problems, "the reply was cut off at the token limit; keep the reasons short")
	}
	return v, problems
}

// reask is the follow-up that sends a broken verdict back. It quotes each
// problem so that the judge fixes what is wrong instead of guessing, and
// asks for the whole verdict again so that the last reply stands alone.
func reask(problems []string) string {
	var b strings.Builder
	b.WriteString("Your verdict cannot be recorded, because:\n")
	for _, p := range problems {
		b.WriteString("- " + p + "\n")
	}
	b.WriteString("\nGrade the same candidate answer against the same rubric and reply with the complete corrected verdict: one JSON object in the required shape, every component exactly once with its rubric maximum, integer awards, and a total equal to their sum. Nothing else.\n")
	return b.String()
}

// verdictKey is the part of a verdict rule a grade depends on.
type verdictKey struct {
	Format   string `json:"format"`
	Integers bool   `json:"integers"`
	Retry    string `json:"retry"`
}

// CacheKey returns the key under which the grade of answer to q is
// cached: a SHA-256 over everything the grade depends on — the prompt
// (benchgate's version, or the prompt file's digest), the judge model
// and the endpoint serving it, its contract (request parameters and
// verdict rule),
// the question as the prompt shows it, the global variants, the scoring
// model and the answer — and the run, above 1 (see Judge.Run).
// The random boundary is left out: it changes every call but not what is
// asked. Calibration fixtures and source line numbers are left out too;
// they are not in the prompt.
func (j *Judge) CacheKey(r *benchmark.Rubric, q *benchmark.RubricQuestion, answer string) string {
	type params struct {
		Temperature     *float64 `json:"temperature"`
		TopP            *float64 `json:"top_p"`
		Seed            *int     `json:"seed"`
		MaxTokens       int      `json:"max_tokens"`
		ReasoningEffort string   `json:"reasoning_effort"`
		ServiceTier     string   `json:"service_tier"`
		Provider        string   `json:"provider"`
		JSON            bool     `json:"json"`
		// Left out for benchgate's own verdict rule, whose keys are
		// those of the grades cached before contracts had one. How many
		// retries does not change a grade that scored.
		Verdict *verdictKey `json:"verdict,omitempty"`
	}
	type question struct {
		ID               string                `json:"id"`
		Text             string                `json:"question"`
		Title            string                `json:"title"`
		ModelAnswer      string                `json:"model_answer"`
		Principle        string                `json:"principle"`
		Gate             benchmark.Gate        `json:"gate"`
		Components       []benchmark.Component `json:"components"`
		RequiredConcepts []string              `json:"required_concepts"`
		IndicativeTerms  []string              `json:"indicative_terms"`
		DoNotCredit      []string              `json:"do_not_credit"`
		AcceptedVariants []benchmark.Variant   `json:"accepted_variants"`
	}
	doc := struct {
		Version string `json:"prompt_version"`
		// The prompt file's digest, left out for benchgate's own prompt.
		PromptSHA256   string              `json:"prompt_sha256,omitempty"`
		Model          string              `json:"judge_model"`
		Params         params              `json:"params"`
		Question       question            `json:"question"`
		GlobalVariants []benchmark.Variant `json:"global_variants"`
		TotalPoints    int                 `json:"total_points"`
		GateFailScore  int                 `json:"gate_failure_score"`
		Answer         []byte              `json:"answer"` // base64: exact even for invalid UTF-8
		Endpoint       string              `json:"endpoint,omitempty"`
		// Left out for the first run, whose keys are those of the
		// grades cached before runs were counted.
		Run int `json:"run,omitempty"`
	}{
		Version:      j.prompt().Name,
		PromptSHA256: j.PromptSHA256(),
		Model:        j.Model,
		Params: params{Temperature: j.Params.Temperature, TopP: j.Params.TopP, Seed: j.Params.Seed, MaxTokens: j.Params.MaxTokens,
			ReasoningEffort: j.Params.ReasoningEffort, ServiceTier: j.Params.ServiceTier, Provider: j.Params.Provider, JSON: !j.Params.NoResponseFormat},
		Question: question{
			ID: q.ID, Text: q.Text, Title: q.Title, ModelAnswer: q.ModelAnswer, Principle: q.Principle,
			Gate: q.Gate, Components: q.Components, RequiredConcepts: q.RequiredConcepts,
			IndicativeTerms: q.IndicativeTerms, DoNotCredit: q.DoNotCredit, AcceptedVariants: q.AcceptedVariants,
		},
		GlobalVariants: r.GlobalVariants,
		TotalPoints:    r.TotalPoints,
		GateFailScore:  r.GateFailScore,
		Answer:         []byte(answer),
		Endpoint:       j.Endpoint,
	}
	if j.Run > 1 {
		doc.Run = j.Run
	}
	if v := j.Params.Verdict; v.Format != "" || v.Integers || v.Retry != "" {
		doc.Params.Verdict = &verdictKey{v.Format, v.Integers, v.Retry}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		// Every field is a string, number or list of them: Marshal cannot
		// fail, and a key that ignored its input would be worse than a panic.
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
