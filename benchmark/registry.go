// Package benchmark loads the benchmarks a leaderboard accepts: the registry
// (rubrics/rubrics.json) with the prompt files it names (ParsePrompt: the
// prompts that ask a benchmark's questions and grade its answers, part of
// the benchmark like its questions), rubric benchmarks in schema 2.0 (the Groundtruth
// grading-key format) and multiple-choice benchmarks (FormationEval's JSON
// array and UpstreamBench's JSONL). Files are parsed strictly, validated
// against the embedded schemas and then converted to the types below, so
// that the rest of benchgate never sees an invalid benchmark. A rubric's
// calibration record, the judge's own grades of its fixtures, is read with
// it from beside its file (RecordPath, ParseRecord). Open is the one
// lookup of a usable benchmark by registry key; the lint report
// (LintNamed, by key or file path; RenderLint, as text or JSON) is what
// `benchgate lint-benchmark` prints.
package benchmark

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/schemas"
)

// RegistryFile is the registry's path in a leaderboard repository.
const RegistryFile = "rubrics/rubrics.json"

// MaxBenchmarkBytes caps the size of a benchmark file.
const MaxBenchmarkBytes = 256 << 20

// DefaultExtraction is the letter-extraction policy of an mcq benchmark
// whose registry entry names none.
const DefaultExtraction = "flexible"

// Kind is the kind of a benchmark.
type Kind string

// The kinds of benchmark.
const (
	KindRubric Kind = "rubric" // open answers graded 0–N by a fixed LLM judge
	KindMCQ    Kind = "mcq"    // four-choice questions scored by extracting a letter
)

// Entry is one benchmark in the registry.
type Entry struct {
	Key         string
	Label       string
	Description string
	// License is the benchmark's licence as an SPDX identifier or
	// expression (such as CC-BY-4.0), and URL the address of its source:
	// both optional, shown on the leaderboard as the benchmark's
	// attribution.
	License          string
	URL              string
	File             string // path from the repository root
	ProjectDir       string // Groundtruth's project folder; kept, not used
	Kind             Kind
	JudgeModel       string // rubric kind: the fixed judge id
	Extraction       string // mcq kind: the letter-extraction policy
	ReferenceModelID string // the model pinned for the harness track
	// Prompt names the built-in form that asks the questions, and
	// PromptFile the benchmark's own prompt file instead (at most one is
	// set); AskPrompt is that file, parsed, nil for a built-in form.
	Prompt     string
	PromptFile string
	AskPrompt  *Prompt
	// JudgePrompt is the judge contract's prompt_file, parsed (rubric
	// kind); nil for benchgate's own grading prompt.
	JudgePrompt *Prompt
	// MaxAnswerBytes is the registry's max_answer_bytes (rubric kind), 0
	// when it sets none; AnswerCap gives the cap in force.
	MaxAnswerBytes int
	// Judge is the registry's judge contract (rubric kind): the fixed
	// judge's request parameters.
	Judge JudgeParams
	// SpotCheckTolerance is the registry's spot_check_tolerance (rubric
	// kind), nil when it sets none: the inflation in points per question
	// that a spot-check accepts as the judge's drift (rerun.Rule's
	// Tolerance).
	SpotCheckTolerance *float64
	// ReproduceTolerance is the registry's reproduce_tolerance (mcq
	// kind), nil when it sets none: how much less accurate, as a share,
	// the model a reproduction asks may be than the submitter's
	// (reproduce.Rule's Tolerance). ReproduceModels is reproduce_models:
	// the ids the reproduction's endpoint serves models under, by the
	// candidate_model_id submissions give.
	ReproduceTolerance *float64
	ReproduceModels    map[string]string
	// UnverifiableReviewRate is the registry's unverifiable_review_rate
	// (mcq kind), nil when it sets none: the share of questions whose
	// answer cannot be verified (a response the source stored cut short)
	// above which a submission goes to a maintainer's review.
	UnverifiableReviewRate *float64
	Line                   int // line of the entry in the registry file

	// Problem, when set, says why submissions to this benchmark cannot be
	// verified (for example a rubric entry with no judge_model).
	Problem string
}

// JudgeParams are a rubric benchmark's judge contract, from the registry
// entry's judge object: the fixed judge's request parameters, its prompt
// and how its reply is read. Each parameter is sent exactly as given; one
// unset (nil, 0 or "") is not sent at all, so that the endpoint's default
// applies. The registry pins a judge's sampling (PinnedTemperature,
// PinnedTopP) unless its contract sets it, or sets it to null, which is
// how a parameter a model refuses is left unsent. A judge is only the same
// judge under the same contract: it keys its cache, and the CLI and the
// App send the same one. The zero value is benchgate's own prompt and
// verdict format, with nothing sent beyond the messages and JSON mode.
type JudgeParams struct {
	Temperature     *float64 // 0 to 2
	TopP            *float64 // above 0, at most 1
	MaxTokens       int      // the completion's cap, reasoning included
	ReasoningEffort string   // "none", "minimal", "low", "medium", "high" or "xhigh"
	ServiceTier     string   // "auto", "default", "flex", "priority" or "scale"
	Seed            *int
	Provider        string // the OpenRouter provider that must serve the judge
	// PromptFile is the prompt file the judge is asked with (the entry's
	// JudgePrompt), "" for benchgate's own prompt.
	PromptFile string
	// NoResponseFormat is response_format: false, which sends no
	// response_format; otherwise the judge is asked for a JSON object
	// (response_format json_object).
	NoResponseFormat bool
	// Verdict is how the judge's reply is read, and what is done with a
	// reply that cannot be read.
	Verdict VerdictRule
}

// The sampling a judge contract pins when it does not name it: a fixed
// judge grades the same answer the same way as nearly as its endpoint
// allows, not at whatever default the endpoint samples at.
const (
	PinnedTemperature = 0.0
	PinnedTopP        = 1.0
)

// VerdictRule is the judge contract's verdict object. Its zero value is
// benchgate's own rule: the reply is the JSON verdict, or prose around it,
// and a verdict that cannot be recorded is sent back with its problems
// quoted, DefaultVerdictRetries times at most.
type VerdictRule struct {
	// Format is how the verdict is found in the reply: VerdictJSON (also
	// "") or VerdictLastFencedJSON.
	Format string
	// Integers refuses awards and totals not written as JSON integers:
	// 3.0 or 3e0 is not an integer award under it.
	Integers bool
	// Retry is what is sent after a reply that cannot be recorded:
	// RetryReask (also "") or RetryResend.
	Retry string
	// Retries is how many times a reply that cannot be recorded is
	// followed by another call; nil means DefaultVerdictRetries.
	Retries *int
}

// The verdict formats and retry rules of a judge contract, as the registry
// spells them.
const (
	// VerdictJSON reads the reply as the JSON verdict object or, when
	// prose surrounds it, the last fenced block, else the last balanced
	// JSON object, in it.
	VerdictJSON = "json"
	// VerdictLastFencedJSON reads the last fenced ```json block of the
	// reply that parses as a JSON object; earlier blocks, and blocks that
	// do not parse, are passed over.
	VerdictLastFencedJSON = "last-fenced-json"
	// RetryReask sends the reply back with a message that quotes what was
	// wrong with it and asks for the whole verdict again.
	RetryReask = "reask"
	// RetryResend sends the same prompt again, as a harness that asks
	// afresh does.
	RetryResend = "resend"
)

// DefaultVerdictRetries is how many times a reply that cannot be recorded
// is followed by another call when the contract does not say.
const DefaultVerdictRetries = 3

// DefaultMaxAnswerBytes is the cap on a rubric answer of a benchmark whose
// registry entry sets no max_answer_bytes: 64 KiB, about 16,000 tokens,
// several times a long expert answer and room for a reasoning model's
// thoughts, while a grading prompt stays a few cents however hostile the
// answer.
const DefaultMaxAnswerBytes = 64 << 10

// JudgePromptSHA256 returns the digest of the judge's prompt file, ""
// for benchgate's own prompt: the prompt's part of the judge's identity.
func (e Entry) JudgePromptSHA256() string {
	if e.JudgePrompt == nil {
		return ""
	}
	return e.JudgePrompt.SHA256
}

// AnswerCap returns the most bytes a rubric answer of this benchmark may
// hold, as received (answer_b) and clean (answer_b_clean): the registry's
// max_answer_bytes, or DefaultMaxAnswerBytes. An answer over it is never
// sent to the judge.
func (e Entry) AnswerCap() int {
	if e.MaxAnswerBytes > 0 {
		return e.MaxAnswerBytes
	}
	return DefaultMaxAnswerBytes
}

// Registry is the parsed registry.
type Registry struct {
	Entries []Entry
	byKey   map[string]int
}

// Lookup returns the entry with the given key.
func (r *Registry) Lookup(key string) (Entry, bool) {
	i, ok := r.byKey[key]
	if !ok {
		return Entry{}, false
	}
	return r.Entries[i], true
}

// Keys returns the registry's keys, sorted.
func (r *Registry) Keys() []string {
	keys := make([]string, 0, len(r.Entries))
	for _, e := range r.Entries {
		keys = append(keys, e.Key)
	}
	sort.Strings(keys)
	return keys
}

// LoadRegistry reads and checks the registry of the leaderboard in fsys. It
// returns nil only when the file cannot be used at all; entries with
// problems are kept, with Problem set, and reported in the findings.
func LoadRegistry(fsys fs.FS) (*Registry, finding.List) {
	var out finding.List
	data, err := jsondoc.ReadFile(fsys, RegistryFile, MaxBenchmarkBytes)
	if err != nil {
		out.Errorf("registry.read", RegistryFile, 0, "", "cannot read the benchmark registry: %v", err)
		return nil, out
	}
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil {
		out = append(out, finding.FromError("json.syntax", RegistryFile, err))
		return nil, out
	}
	if fs := schemas.Validate(schemas.Registry, RegistryFile, doc); len(fs) > 0 {
		return nil, append(out, fs...)
	}
	reg := &Registry{byKey: map[string]int{}}
	for _, n := range doc.Root.Elems {
		e := Entry{
			Key:              n.GetString("key"),
			Label:            n.GetString("label"),
			Description:      n.GetString("description"),
			License:          strings.TrimSpace(n.GetString("license")),
			URL:              strings.TrimSpace(n.GetString("url")),
			File:             n.GetString("file"),
			ProjectDir:       n.GetString("project_dir"),
			Kind:             Kind(n.GetString("kind")),
			JudgeModel:       strings.TrimSpace(n.GetString("judge_model")),
			Extraction:       n.GetString("extraction"),
			ReferenceModelID: n.GetString("reference_model_id"),
			Prompt:           n.GetString("prompt"),
			PromptFile:       n.GetString("prompt_file"),
			Line:             doc.Line(n.Off),
		}
		e.MaxAnswerBytes, _ = integer(n, "max_answer_bytes") // the schema makes it a positive integer
		e.Judge = judgeParams(n.Get("judge"), true)          // the schema checked every member's type and range
		if f, ok := n.Get("spot_check_tolerance").Float(); ok {
			e.SpotCheckTolerance = &f
		}
		if f, ok := n.Get("reproduce_tolerance").Float(); ok {
			e.ReproduceTolerance = &f
		}
		if f, ok := n.Get("unverifiable_review_rate").Float(); ok {
			e.UnverifiableReviewRate = &f
		}
		if m := n.Get("reproduce_models"); m != nil {
			e.ReproduceModels = map[string]string{}
			for _, mb := range m.Members { // the schema made each a string
				e.ReproduceModels[mb.Key] = mb.Value.Str
			}
		}
		if e.Label == "" {
			e.Label = e.Key
		}
		if e.Kind == "" {
			e.Kind = KindRubric
		}
		if i, dup := reg.byKey[e.Key]; dup {
			out.Errorf("registry.duplicate-key", RegistryFile, e.Line, "", "key %q is already used by the entry on line %d; keys must be unique", e.Key, reg.Entries[i].Line)
			continue
		}
		if e.License != "" && !spdxRe.MatchString(e.License) {
			out.Errorf("registry.license", RegistryFile, e.Line, "", "benchmark %q: license %q is not an SPDX licence identifier or expression; write it like \"CC-BY-4.0\", \"MIT OR Apache-2.0\" or \"LicenseRef-custom\" (https://spdx.org/licenses/)", e.Key, e.License)
			e.License = ""
		}
		if e.URL != "" && !webAddress(e.URL) {
			out.Errorf("registry.url", RegistryFile, e.Line, "", "benchmark %q: url %q is not an http or https address; give the page where the benchmark is published, like \"https://example.org/benchmark\"", e.Key, e.URL)
			e.URL = ""
		}
		clean := path.Clean(e.File)
		if !fs.ValidPath(clean) || clean != e.File {
			e.Problem = fmt.Sprintf("file %q is not a clean path inside the repository (write it like rubrics/name.json)", e.File)
			out.Errorf("registry.file", RegistryFile, e.Line, "", "benchmark %q: %s", e.Key, e.Problem)
		}
		prompts(fsys, n, &e, &out)
		switch e.Kind {
		case KindRubric:
			if e.JudgeModel == "" {
				e.Problem = "judge_model is missing: a rubric benchmark needs its fixed judge id (for example \"openai/gpt-5.5\") in rubrics/rubrics.json"
				out.Errorf("registry.no-judge", RegistryFile, e.Line, "", "benchmark %q: %s", e.Key, e.Problem)
			}
			if e.Extraction != "" {
				out.Warnf("registry.extraction", RegistryFile, e.Line, "", "benchmark %q: extraction applies to mcq benchmarks only and is ignored for a rubric benchmark", e.Key)
			}
			if e.ReproduceTolerance != nil {
				out.Warnf("registry.reproduce-tolerance", RegistryFile, e.Line, "", "benchmark %q: reproduce_tolerance is a share of accuracy, for mcq benchmarks only, and is ignored for a rubric benchmark, whose reproduction tolerates spot_check_tolerance points per question", e.Key)
				e.ReproduceTolerance = nil
			}
			if e.UnverifiableReviewRate != nil {
				out.Warnf("registry.unverifiable-review-rate", RegistryFile, e.Line, "", "benchmark %q: unverifiable_review_rate applies to mcq benchmarks only, whose letters can be unverifiable, and is ignored for a rubric benchmark", e.Key)
				e.UnverifiableReviewRate = nil
			}
		case KindMCQ:
			if e.Extraction == "" {
				e.Extraction = DefaultExtraction
			}
			if e.JudgeModel != "" {
				out.Warnf("registry.judge", RegistryFile, e.Line, "", "benchmark %q: judge_model is ignored for an mcq benchmark, which is scored without a judge", e.Key)
				e.JudgeModel = ""
			}
			if n.Get("judge") != nil {
				out.Warnf("registry.judge-params", RegistryFile, e.Line, "", "benchmark %q: judge applies to rubric benchmarks only, which have a judge, and is ignored for an mcq benchmark", e.Key)
			}
			e.Judge, e.JudgePrompt = JudgeParams{}, nil
			if e.SpotCheckTolerance != nil {
				out.Warnf("registry.spot-check-tolerance", RegistryFile, e.Line, "", "benchmark %q: spot_check_tolerance applies to rubric benchmarks only, whose scores a judge re-grades, and is ignored for an mcq benchmark", e.Key)
				e.SpotCheckTolerance = nil
			}
			if e.MaxAnswerBytes != 0 {
				out.Warnf("registry.max-answer-bytes", RegistryFile, e.Line, "", "benchmark %q: max_answer_bytes applies to rubric benchmarks only, whose answers go to a judge, and is ignored for an mcq benchmark", e.Key)
				e.MaxAnswerBytes = 0
			}
		}
		reg.byKey[e.Key] = len(reg.Entries)
		reg.Entries = append(reg.Entries, e)
	}
	return reg, out
}

// judgeParams converts a judge object, which the schema has checked, or
// nil. A sampling parameter set to null is not sent; one left out is
// pinned when pin is set (a registry's contract), and not sent otherwise
// (a calibration record's, which writes every parameter it sent).
func judgeParams(n *jsondoc.Node, pin bool) JudgeParams {
	var p JudgeParams
	sampling := func(key string, pinned float64) *float64 {
		v := n.Get(key)
		if f, ok := v.Float(); ok {
			return &f
		}
		if v == nil && pin {
			return &pinned
		}
		return nil // null, or left out of a record
	}
	p.Temperature = sampling("temperature", PinnedTemperature)
	p.TopP = sampling("top_p", PinnedTopP)
	if n == nil {
		return p
	}
	p.MaxTokens, _ = integer(n, "max_tokens")
	if s, ok := integer(n, "seed"); ok {
		p.Seed = &s
	}
	p.ReasoningEffort = n.GetString("reasoning_effort")
	p.ServiceTier = n.GetString("service_tier")
	p.Provider = n.GetString("provider")
	p.PromptFile = n.GetString("prompt_file")
	if rf := n.Get("response_format"); rf != nil && rf.Kind == jsondoc.Bool && !rf.Bool {
		p.NoResponseFormat = true
	}
	if v := n.Get("verdict"); v != nil {
		p.Verdict.Format = n.Get("verdict").GetString("format")
		if p.Verdict.Format == VerdictJSON {
			p.Verdict.Format = ""
		}
		p.Verdict.Integers = v.Get("integers") != nil && v.Get("integers").Bool
		p.Verdict.Retry = v.GetString("retry")
		if p.Verdict.Retry == RetryReask {
			p.Verdict.Retry = ""
		}
		// The defaults spelt out are the defaults: one contract, one text.
		if r, ok := integer(v, "retries"); ok && r != DefaultVerdictRetries {
			p.Verdict.Retries = &r
		}
	}
	return p
}

// prompts reads the prompt files entry e names, its own (prompt_file) and
// its judge's, reporting each mistake where it is; a prompt that cannot
// be used makes the entry unusable, since asking otherwise than the
// benchmark says would be another benchmark.
func prompts(fsys fs.FS, n *jsondoc.Node, e *Entry, out *finding.List) {
	if e.PromptFile != "" {
		if e.Prompt != "" {
			e.Problem = "it names both prompt (a built-in form) and prompt_file; keep the one the benchmark is asked with"
			out.Errorf("registry.prompt", RegistryFile, e.Line, "", "benchmark %q: %s", e.Key, e.Problem)
		} else {
			use := UseMCQ
			if e.Kind == KindRubric {
				use = UseRubric
			}
			p, problem := readPrompt(fsys, use, e.PromptFile, e.Key, "prompt_file", e.Line, out)
			e.AskPrompt = p
			if problem != "" {
				e.Problem = problem
			}
		}
	}
	if e.Prompt != "" && !builtinFor(e.Kind, e.Prompt) {
		e.Problem = fmt.Sprintf("prompt %q is not a built-in form of %s benchmarks (%s)", e.Prompt, e.Kind, strings.Join(BuiltinPrompts[e.Kind], ", "))
		out.Errorf("registry.prompt", RegistryFile, e.Line, "", "benchmark %q: %s", e.Key, e.Problem)
	}
	j := n.Get("judge")
	if e.Kind != KindRubric || j == nil {
		return
	}
	if e.Judge.PromptFile != "" {
		p, problem := readPrompt(fsys, UseJudge, e.Judge.PromptFile, e.Key, "judge.prompt_file", e.Line, out)
		e.JudgePrompt = p
		if problem != "" {
			e.Problem = problem
		}
	}
	if e.Judge.Verdict.Format == VerdictLastFencedJSON && !e.Judge.NoResponseFormat {
		e.Problem = "the verdict format last-fenced-json reads a fenced block, but response_format makes the judge reply with one bare JSON object, which has none; set \"response_format\": false in the judge object"
		out.Errorf("registry.response-format", RegistryFile, e.Line, "", "benchmark %q: %s", e.Key, e.Problem)
	}
	if p := e.JudgePrompt; p != nil && !e.Judge.NoResponseFormat && !strings.Contains(strings.ToLower(p.Text()), "json") {
		out.Warnf("registry.response-format", RegistryFile, e.Line, "", "benchmark %q: the judge is asked for a JSON object (response_format), but %s never says \"JSON\", which OpenAI requires of a JSON-mode prompt (https://platform.openai.com/docs/api-reference/chat/create); say it in the prompt, or set \"response_format\": false", e.Key, p.File)
	}
}

// BuiltinPrompts are the names of benchgate's built-in prompt forms, by
// the kind of benchmark they ask; the registry's prompt names one, and
// the first is the default of a kind. Package generate holds their texts.
var BuiltinPrompts = map[Kind][]string{
	KindMCQ:    {"answer-line", "formationeval"},
	KindRubric: {"open-answer"},
}

func builtinFor(k Kind, name string) bool {
	for _, n := range BuiltinPrompts[k] {
		if n == name {
			return true
		}
	}
	return false
}

// integer returns the integral number member key of object n.
func integer(n *jsondoc.Node, key string) (int, bool) {
	i, ok := n.Get(key).Int()
	return int(i), ok
}

var digitsRe = regexp.MustCompile(`[0-9]+`)

// spdxRe is the shape of an SPDX licence expression: identifiers (with an
// optional "+"), LicenseRef- and DocumentRef- references, joined by AND, OR
// and WITH, with parentheses. It checks the shape only, not that each
// identifier is on the SPDX list, which grows.
var spdxRe = regexp.MustCompile(`^\(*(?:(?:DocumentRef-[A-Za-z0-9.-]+:)?LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9][A-Za-z0-9.-]*\+?)\)*(?: (?:AND|OR|WITH) \(*(?:(?:DocumentRef-[A-Za-z0-9.-]+:)?LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9][A-Za-z0-9.-]*\+?)\)*)*$`)

// webAddress reports whether s is an absolute http or https address with
// a host and nothing a page could not link to as it is.
func webAddress(s string) bool {
	if strings.ContainsAny(s, " \t\n\r\"'<>`\\") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
