// Package verify checks leaderboard submissions against the benchmarks they
// claim to answer. It is the pure core that the CLI and the GitHub App both
// call: it reads files through an fs.FS and knows nothing of where they came
// from, so the two can never disagree.
package verify

import (
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/submission"
)

// Status is the verdict on one submission.
type Status string

// The verdicts.
const (
	Pass   Status = "pass"   // every check holds
	Fail   Status = "fail"   // at least one error
	Review Status = "review" // no error, but a person must look
)

// Options tune the verifier. The zero value gives the documented defaults.
type Options struct {
	// MaxFileBytes caps each file of a submission; 0 means 64 MiB.
	MaxFileBytes int64
	// MaxDepth bounds the nesting of JSON values; 0 means 16.
	MaxDepth int
	// MaxValues bounds the JSON values in each file; 0 means 250,000.
	// Parsing costs memory per value rather than per byte, so this is
	// what keeps a file of a million tiny rows from taking gigabytes. A
	// 7,440-question submission holds about 75,000.
	MaxValues int
	// ReviewRate is the share of unscored (rubric) or unverifiable (mcq)
	// questions above which a submission needs review; 0 means 0.05. An
	// mcq benchmark's registry entry may set its own
	// (UnverifiableReviewRate).
	ReviewRate float64
	// EmptyRate is the share of questions with an empty answer (rubric)
	// or response (mcq) above which a submission needs review
	// (answers.mostly-empty): a run whose answers went to a reasoning
	// field or were cut at the token limit scores as wrong, not as the
	// model; 0 means 0.5.
	EmptyRate float64
	// Today is the date against which meta.json's date is checked; the zero
	// time means the current date.
	Today time.Time
	// Workers bounds how many submissions are verified at once; 0 means
	// GOMAXPROCS.
	Workers int
	// Cache, when set, keeps results between runs.
	Cache Store
	// Submitter, when set, is the GitHub login of whoever submits: each
	// submission verified must name it as meta.json's submitter
	// (meta.submitter), compared case-insensitively as GitHub compares
	// logins. The App sets it to a pull request's author, `benchgate
	// verify --author` to the login given.
	Submitter string
}

func (o Options) withDefaults() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 64 << 20
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 16
	}
	if o.MaxValues <= 0 {
		o.MaxValues = 250_000
	}
	if o.ReviewRate <= 0 {
		o.ReviewRate = 0.05
	}
	if o.EmptyRate <= 0 {
		o.EmptyRate = 0.5
	}
	if o.Today.IsZero() {
		o.Today = time.Now()
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Result is the verdict on one submission.
type Result struct {
	Path      string         `json:"path"` // the submission folder, relative to the root
	RubricKey string         `json:"rubric_key"`
	Kind      benchmark.Kind `json:"kind"`
	Status    Status         `json:"status"`
	Errors    finding.List   `json:"errors"`
	Warnings  finding.List   `json:"warnings"`
	Summary   Summary        `json:"summary"`
	// Meta is the parsed meta.json, when it could be read.
	Meta *submission.Meta `json:"-"`
	// Outcomes are the per-question results, when scores.json could be
	// checked against its benchmark.
	Outcomes *Outcomes `json:"-"`
}

// Report is the verdict on a set of submissions.
type Report struct {
	Submissions []Result `json:"submissions"`
	Passed      int      `json:"passed"`
	Failed      int      `json:"failed"`
	Review      int      `json:"review"`
}

// RegistryError reports a registry that cannot be used at all.
type RegistryError struct {
	Findings finding.List
}

func (e *RegistryError) Error() string {
	msgs := make([]string, len(e.Findings))
	for i, f := range e.Findings {
		msgs[i] = f.String()
	}
	return "the benchmark registry cannot be used:\n  " + strings.Join(msgs, "\n  ")
}

// Verifier checks submissions in one leaderboard repository.
type Verifier struct {
	fsys     fs.FS
	opts     Options
	registry *benchmark.Registry
	// Findings about the registry, reported with every submission that
	// uses an entry they concern.
	registryFindings finding.List

	mu     sync.Mutex
	loaded map[string]*loadedBenchmark

	fpOnce      sync.Once
	fingerprint string
}

type loadedBenchmark struct {
	once     sync.Once
	b        *benchmark.Benchmark
	findings finding.List
}

// New returns a verifier for the leaderboard whose root is fsys (holding
// rubrics/rubrics.json, the benchmark files and submissions/). It fails
// with a *RegistryError when the registry cannot be read.
func New(fsys fs.FS, opts Options) (*Verifier, error) {
	reg, fs := benchmark.LoadRegistry(fsys)
	if reg == nil {
		return nil, &RegistryError{Findings: fs}
	}
	return &Verifier{fsys: fsys, opts: opts.withDefaults(), registry: reg, registryFindings: fs, loaded: map[string]*loadedBenchmark{}}, nil
}

// Registry returns the registry the verifier uses.
func (v *Verifier) Registry() *benchmark.Registry { return v.registry }

// Benchmark returns the loaded benchmark of a registry key, or nil with the
// findings that explain why it cannot be used. Each benchmark is loaded
// once.
func (v *Verifier) Benchmark(key string) (*benchmark.Benchmark, finding.List) {
	e, ok := v.registry.Lookup(key)
	if !ok {
		return nil, nil
	}
	v.mu.Lock()
	lb := v.loaded[key]
	if lb == nil {
		lb = &loadedBenchmark{}
		v.loaded[key] = lb
	}
	v.mu.Unlock()
	lb.once.Do(func() { lb.b, lb.findings = benchmark.Load(v.fsys, e) })
	return lb.b, lb.findings
}

// Discover returns every submission folder of the repository, sorted, by
// the layout's one rule (submission.Discover): the folders a pull request
// to the App would be verified as.
func (v *Verifier) Discover() ([]string, error) { return submission.Discover(v.fsys) }

// VerifyAll verifies submissions concurrently and returns their results in
// the order given.
func (v *Verifier) VerifyAll(dirs []string) Report {
	results := make([]Result, len(dirs))
	sem := make(chan struct{}, v.opts.Workers)
	var wg sync.WaitGroup
	for i, d := range dirs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = v.Verify(d)
		}()
	}
	wg.Wait()
	return NewReport(results)
}

// NewReport counts the verdicts of results.
func NewReport(results []Result) Report {
	r := Report{Submissions: results}
	if r.Submissions == nil {
		r.Submissions = []Result{}
	}
	for _, res := range results {
		switch res.Status {
		case Pass:
			r.Passed++
		case Fail:
			r.Failed++
		case Review:
			r.Review++
		}
	}
	return r
}

// Verify checks one submission folder, given relative to the root. It never
// panics: an internal fault becomes a failing result that says so.
func (v *Verifier) Verify(dir string) Result {
	if v.opts.Cache == nil {
		return v.verify(dir)
	}
	key := v.cacheKey(dir)
	if key != "" {
		if data, ok := v.opts.Cache.Get(key); ok {
			if r, err := decodeResult(data); err == nil && r.Path == dir {
				return r
			}
		}
	}
	r := v.verify(dir)
	if key != "" && !hasInternal(r) {
		if data, err := encodeResult(r); err == nil {
			v.opts.Cache.Put(key, data)
		}
	}
	return r
}

func hasInternal(r Result) bool {
	for _, f := range r.Errors {
		if f.Code == "internal" {
			return true
		}
	}
	return false
}

// Files is what verification parsed of a submission's files, for work
// that goes on from a verified submission (the spot-check) without
// reading or parsing them again.
type Files struct {
	Meta *submission.Meta
	// The rows of scores.json, of the benchmark's kind; nil when it could
	// not be parsed.
	Rubric []submission.RubricRow
	MCQ    []submission.MCQRow
}

// VerifyFiles is Verify, also returning what it parsed. It does not use
// the cache, which keeps only results.
func (v *Verifier) VerifyFiles(dir string) (Result, *Files) {
	files := &Files{}
	return v.verifyWith(dir, files), files
}

func (v *Verifier) verify(dir string) Result { return v.verifyWith(dir, nil) }

func (v *Verifier) verifyWith(dir string, files *Files) (res Result) {
	res.Path = dir
	c := &check{v: v, dir: dir, res: &res, files: files}
	defer func() {
		if p := recover(); p != nil {
			res.Errors = append(res.Errors, finding.Finding{Code: "internal", File: dir, Message: fmt.Sprintf("benchgate failed on this submission (%v); this is a bug in benchgate, please report it with the files: %s", p, firstLine(string(debug.Stack())))})
		}
		res.finish(v.opts, c.review)
	}()
	c.run()
	return res
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// finish sorts findings and settles the status.
// review is whether a check asked for a maintainer's review.
func (r *Result) finish(o Options, review bool) {
	if r.Errors == nil {
		r.Errors = finding.List{}
	}
	if r.Warnings == nil {
		r.Warnings = finding.List{}
	}
	switch {
	case len(r.Errors) > 0:
		r.Status = Fail
	case review || r.needsReview(o):
		r.Status = Review
	default:
		r.Status = Pass
	}
}

func (r *Result) needsReview(o Options) bool {
	if hasReviewWarning(r.Warnings) {
		return true
	}
	s := r.Summary
	if s.Questions == nil || *s.Questions == 0 {
		return false
	}
	limit := o.ReviewRate * float64(*s.Questions)
	if s.Unscored != nil && float64(*s.Unscored) > limit {
		return true
	}
	return false
}
