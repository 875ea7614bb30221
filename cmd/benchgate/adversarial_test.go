package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// The adversarial corpus (testdata/adversarial, described in its README):
// crafted submissions, each verified through the CLI and through the App's
// pull-request check, which must agree with each other and with the case's
// expect.json, within the resource bounds below.

const (
	advCorpus = repoRoot + "/testdata/adversarial"
	// advMinCases is the size the corpus must keep.
	advMinCases = 60
	// advAllocLimit bounds what one verification of one case allocates,
	// by either path. Time is reported, not bounded: on a shared machine a
	// case's time says more about the machine than about the code, so
	// only a hang fails (bench/verify.sh measures speed).
	advAllocLimit = 256 << 20
	// advAttempts is how often each case is run, the best figures kept.
	advAttempts = 3
	// advHangAfter is when a run is declared hung and abandoned.
	advHangAfter = 30 * time.Second
	// advReportEnv names a file to write the table of figures to.
	advReportEnv = "BENCHGATE_ADVERSARIAL_REPORT"
)

// advExpect is a case's expect.json.
type advExpect struct {
	Why     string `json:"why"`
	Verdict string `json:"verdict"` // pass, fail or review
	// Codes and Warnings are the distinct error and warning codes the
	// verifier reports, exactly.
	Codes    []string `json:"codes"`
	Warnings []string `json:"warnings,omitempty"`
	// Track and Slug place the submission at submissions/<track>/<slug>;
	// by default model-benchmark and the case folder's name.
	Track string `json:"track,omitempty"`
	Slug  string `json:"slug,omitempty"`
	// Placement "file" puts the case's one file at submissions/<track>/<slug>
	// itself, as a contributor who forgot the folder would.
	Placement string `json:"placement,omitempty"`
	// Generate writes a file too large or too odd to commit.
	Generate *advRecipe `json:"generate,omitempty"`
	// Symlinks are files of the submission that are symbolic links, each
	// to its target (made by the test: a checkout would hold the link).
	Symlinks map[string]string `json:"symlinks,omitempty"`
}

type advRecipe struct {
	Recipe string `json:"recipe"`
	File   string `json:"file"`
}

type advCase struct {
	name   string
	expect advExpect
	dir    string            // the submission folder, relative to a root
	files  map[string][]byte // path within dir (or the file itself, for placement "file") → content
}

// advLoad reads every case of the corpus, generated files included.
func advLoad(t *testing.T) []*advCase {
	t.Helper()
	entries, err := os.ReadDir(advCorpus)
	if err != nil {
		t.Fatal(err)
	}
	var cases []*advCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c, err := advLoadCase(filepath.Join(advCorpus, e.Name()))
		if err != nil {
			t.Fatalf("case %s: %v", e.Name(), err)
		}
		cases = append(cases, c)
	}
	return cases
}

func advLoadCase(folder string) (*advCase, error) {
	c := &advCase{name: filepath.Base(folder), files: map[string][]byte{}}
	data, err := os.ReadFile(filepath.Join(folder, "expect.json"))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.expect); err != nil {
		return nil, fmt.Errorf("expect.json: %v", err)
	}
	err = filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(folder, p)
		rel = filepath.ToSlash(rel)
		if rel == "expect.json" {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file; the App's path cannot represent it", rel)
		}
		data, err := os.ReadFile(p)
		c.files[rel] = data
		return err
	})
	if err != nil {
		return nil, err
	}
	if g := c.expect.Generate; g != nil {
		gen, ok := advRecipes[g.Recipe]
		if !ok {
			return nil, fmt.Errorf("unknown recipe %q", g.Recipe)
		}
		data, err := gen(c.files[g.File])
		if err != nil {
			return nil, fmt.Errorf("recipe %s: %v", g.Recipe, err)
		}
		c.files[g.File] = data
	}
	track, slug := c.expect.Track, c.expect.Slug
	if track == "" {
		track = string(submission.ModelTrack)
	}
	if slug == "" {
		slug = c.name
	}
	c.dir = path.Join(submission.Dir, track, slug)
	switch c.expect.Placement {
	case "":
	case "file":
		if len(c.files) != 1 {
			return nil, fmt.Errorf("placement file needs exactly one file, found %d", len(c.files))
		}
	default:
		return nil, fmt.Errorf("unknown placement %q", c.expect.Placement)
	}
	return c, nil
}

// repoPath maps a case file to its path from the root.
func (c *advCase) repoPath(rel string) string {
	if c.expect.Placement == "file" {
		return c.dir
	}
	return path.Join(c.dir, rel)
}

// write puts the case's files into a leaderboard root.
func (c *advCase) write(t *testing.T, root string) {
	t.Helper()
	for rel, target := range c.expect.Symlinks {
		p := filepath.Join(root, filepath.FromSlash(c.repoPath(rel)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	for rel, data := range c.files {
		p := filepath.Join(root, filepath.FromSlash(c.repoPath(rel)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// changedFiles are the case's files as a pull request adds them.
func (c *advCase) changedFiles() []prcheck.ChangedFile {
	var out []prcheck.ChangedFile
	for rel, data := range c.files {
		out = append(out, prcheck.ChangedFile{Path: c.repoPath(rel), Status: "added", Content: data})
	}
	for rel, target := range c.expect.Symlinks {
		out = append(out, prcheck.ChangedFile{Path: c.repoPath(rel), Status: "added", Content: []byte(target), Symlink: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// submitter is meta.json's submitter when it can be read, so that the
// App's rule on changing someone else's submission stays out of the way.
func (c *advCase) submitter() string {
	var m struct {
		Submitter string `json:"submitter"`
	}
	if json.Unmarshal(c.files[submission.MetaFile], &m) == nil && m.Submitter != "" {
		return m.Submitter
	}
	return "contributor"
}

// advOutcome is one path's verdict on a case.
type advOutcome struct {
	verdict  string
	codes    []string // distinct error codes, sorted
	warnings []string
	detail   string // for failure messages
}

func (o advOutcome) String() string {
	s := fmt.Sprintf("%s %v", o.verdict, o.codes)
	if len(o.warnings) > 0 {
		s += fmt.Sprintf(" warnings %v", o.warnings)
	}
	return s
}

func advDistinct(codes []string) []string {
	out := []string{}
	for _, c := range codes {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// advJSONReport is what `benchgate verify --format json` prints.
type advJSONReport struct {
	Submissions []advJSONResult `json:"submissions"`
}

type advJSONResult struct {
	Path     string `json:"path"`
	Status   string `json:"status"`
	Errors   []struct{ Code, Message string }
	Warnings []struct{ Code string }
}

func (r advJSONResult) outcome() advOutcome {
	var errs, warns []string
	var msgs []string
	for _, f := range r.Errors {
		errs = append(errs, f.Code)
		if len(msgs) < 5 {
			msgs = append(msgs, f.Code+": "+advShort(f.Message))
		}
	}
	for _, f := range r.Warnings {
		warns = append(warns, f.Code)
	}
	return advOutcome{verdict: r.Status, codes: advDistinct(errs), warnings: advDistinct(warns), detail: strings.Join(msgs, "; ")}
}

func advShort(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// cliArgs are the arguments of `benchgate verify` that verify the case in
// a root that holds it.
func (c *advCase) cliArgs(root string) []string {
	target := filepath.Join(root, filepath.FromSlash(c.dir))
	if c.expect.Placement == "file" {
		// A file selects the folder it is in, here the track.
		target = filepath.Dir(target)
	}
	return []string{"verify", "--root", root, "--format", "json", target}
}

// cliOutcome reads the outcome of `benchgate verify --format json`.
func (c *advCase) cliOutcome(code int, stdout, stderr []byte) advOutcome {
	var rep advJSONReport
	if err := json.Unmarshal(stdout, &rep); err != nil {
		return advOutcome{verdict: fmt.Sprintf("exit %d without a report (%v)", code, err), detail: advShort(string(stderr))}
	}
	if len(rep.Submissions) != 1 || rep.Submissions[0].Path != c.dir {
		return advOutcome{verdict: fmt.Sprintf("%d results, not one for %s", len(rep.Submissions), c.dir)}
	}
	o := rep.Submissions[0].outcome()
	if want := map[string]int{"pass": exitOK, "review": exitInconclusive, "fail": exitFail}[o.verdict]; code != want {
		o.verdict = fmt.Sprintf("%s with exit %d", o.verdict, code)
	}
	return o
}

// prInfo is the pull request that adds the case.
func (c *advCase) prInfo() prcheck.PRInfo {
	return prcheck.PRInfo{Repo: "adversary/board", Number: 1, HeadSHA: "0123456789abcdef0123456789abcdef01234567", Author: c.submitter()}
}

// appOutcome reads the outcome of the App's check.
func (c *advCase) appOutcome(out prcheck.CheckOutcome) advOutcome {
	o := advOutcome{verdict: map[prcheck.Conclusion]string{prcheck.Success: "pass", prcheck.Failure: "fail", prcheck.ActionRequired: "review"}[out.Conclusion]}
	if o.verdict == "" {
		o.verdict = "conclusion " + string(out.Conclusion)
	}
	if out.Report == nil || len(out.Report.Submissions) != 1 {
		o.detail = advShort(out.Summary)
		return o
	}
	res := out.Report.Submissions[0]
	var errs, warns, msgs []string
	for _, f := range res.Errors {
		errs = append(errs, f.Code)
		if len(msgs) < 5 {
			msgs = append(msgs, f.Code+": "+advShort(f.Message))
		}
	}
	for _, f := range res.Warnings {
		warns = append(warns, f.Code)
	}
	o.codes, o.warnings, o.detail = advDistinct(errs), advDistinct(warns), strings.Join(msgs, "; ")
	if res.Path != c.dir {
		o.verdict += " for " + res.Path
	}
	return o
}

// advOptions are the CLI's defaults, which the App gets from its
// configuration.
func advOptions() verify.Options { return verify.Options{MaxFileBytes: 64 << 20} }

func (c *advCase) want() advOutcome {
	return advOutcome{verdict: c.expect.Verdict, codes: advDistinct(c.expect.Codes), warnings: advDistinct(c.expect.Warnings)}
}

func advSame(a, b advOutcome) bool {
	return a.verdict == b.verdict && slices.Equal(a.codes, b.codes) && slices.Equal(a.warnings, b.warnings)
}

// advRun is one measured run.
type advRun struct {
	elapsed time.Duration
	alloc   uint64 // bytes allocated during the run, by every goroutine
	panic   any
	hung    bool
}

// advMeasure runs fn in a goroutine that recovers a panic, and gives up
// waiting after advHangAfter.
func advMeasure(fn func()) advRun {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan any, 1)
	start := time.Now()
	go func() {
		defer func() { done <- recover() }()
		fn()
	}()
	select {
	case p := <-done:
		r := advRun{elapsed: time.Since(start), panic: p}
		runtime.ReadMemStats(&after)
		r.alloc = after.TotalAlloc - before.TotalAlloc
		return r
	case <-time.After(advHangAfter):
		return advRun{hung: true, elapsed: advHangAfter}
	}
}

// advBounded runs fn advAttempts times and reports the best time and
// allocation. It fails the test on a panic, a hang, or an allocation over
// advAllocLimit.
func advBounded(t *testing.T, what string, fn func()) (best advRun, ok bool) {
	t.Helper()
	for i := 0; i < advAttempts; i++ {
		r := advMeasure(fn)
		switch {
		case r.hung:
			t.Errorf("%s: no result after %v (hangs)", what, advHangAfter)
			return r, false
		case r.panic != nil:
			t.Errorf("%s: panic: %v", what, r.panic)
			return r, false
		}
		if i == 0 || r.elapsed < best.elapsed {
			best.elapsed = r.elapsed
		}
		if i == 0 || r.alloc < best.alloc {
			best.alloc = r.alloc
		}
	}
	if best.alloc > advAllocLimit {
		t.Errorf("%s: allocated %.1f MB, over the %d MB limit", what, advMB(best.alloc), advAllocLimit>>20)
	}
	return best, true
}

func advMB(b uint64) float64 { return float64(b) / (1 << 20) }

// advFigures is one case's line of the report.
type advFigures struct {
	name, verdict string
	codes         []string
	elapsed       time.Duration // the slower path's best time
	alloc         uint64        // the larger path's allocation
}

// advBase writes a leaderboard root holding the example registry and
// benchmarks, and with examples also the example submissions.
func advBase(t *testing.T, examples bool) string {
	t.Helper()
	if examples {
		return copyFolders(t, "rubrics", "submissions")
	}
	return copyFolders(t, "rubrics")
}

func TestAdversarialCorpus(t *testing.T) {
	cases := advLoad(t)

	t.Run("shape", func(t *testing.T) {
		if len(cases) < advMinCases {
			t.Errorf("%d cases; the corpus must hold at least %d", len(cases), advMinCases)
		}
		verdicts := map[string]int{}
		dirs := map[string]string{}
		for _, c := range cases {
			e := c.expect
			verdicts[e.Verdict]++
			switch {
			case strings.TrimSpace(e.Why) == "":
				t.Errorf("%s: expect.json has no why", c.name)
			case e.Verdict != "pass" && e.Verdict != "fail" && e.Verdict != "review":
				t.Errorf("%s: verdict %q is not pass, fail or review", c.name, e.Verdict)
			case e.Verdict == "fail" && len(e.Codes) == 0:
				t.Errorf("%s: a failing case names the error codes it expects", c.name)
			case e.Verdict != "fail" && len(e.Codes) > 0:
				t.Errorf("%s: a %s has no errors, but codes are given", c.name, e.Verdict)
			case e.Codes == nil:
				t.Errorf("%s: codes is missing; write [] for none", c.name)
			}
			if !submission.ValidSlug(c.name) {
				t.Errorf("%s: a case folder's name is a valid slug, so that it can name the submission", c.name)
			}
			if prev, dup := dirs[c.dir]; dup {
				t.Errorf("%s and %s both go to %s", prev, c.name, c.dir)
			}
			dirs[c.dir] = c.name
		}
		for _, v := range []string{"pass", "fail", "review"} {
			if verdicts[v] == 0 {
				t.Errorf("no case expects %s", v)
			}
		}
	})

	// Each case alone, through both paths, measured one at a time so that
	// the allocation figures do not mix.
	baseRoot := advBase(t, false)
	base := os.DirFS(baseRoot)
	var figures []advFigures
	t.Run("each", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				root := advBase(t, false)
				c.write(t, root)
				// The base branch lacks the submission; the pull request adds
				// the case's files.
				args, pr, files := c.cliArgs(root), c.prInfo(), c.changedFiles()
				var code int
				var stdout, stderr bytes.Buffer
				var checked prcheck.CheckOutcome
				cr, ok1 := advBounded(t, "CLI", func() {
					stdout.Reset()
					stderr.Reset()
					code = run(args, &stdout, &stderr)
				})
				ar, ok2 := advBounded(t, "App", func() { checked = prcheck.CheckPR(base, pr, files, advOptions()) })
				if !ok1 || !ok2 {
					return
				}
				cli, app := c.cliOutcome(code, stdout.Bytes(), stderr.Bytes()), c.appOutcome(checked)
				want := c.want()
				if !advSame(cli, want) {
					t.Errorf("CLI: %s, want %s (%s)\n  %s", cli, want, c.expect.Why, cli.detail)
				}
				if !advSame(app, want) {
					t.Errorf("App: %s, want %s (%s)\n  %s", app, want, c.expect.Why, app.detail)
				}
				if !advSame(cli, app) {
					t.Errorf("the CLI (%s) and the App (%s) disagree", cli, app)
				}
				figures = append(figures, advFigures{name: c.name, verdict: cli.verdict, codes: cli.codes,
					elapsed: max(cr.elapsed, ar.elapsed), alloc: max(cr.alloc, ar.alloc)})
			})
		}
	})
	advReport(t, figures)

	// Every case in one root, verified in one run beside the example
	// submissions: a broken submission never stops the others.
	t.Run("together", func(t *testing.T) {
		root := advBase(t, true)
		for _, c := range cases {
			c.write(t, root)
		}
		var stdout, stderr bytes.Buffer
		var code int
		// The per-case bounds do not apply to the sum of all cases; a panic
		// or a hang still fails.
		r := advMeasure(func() { code = run([]string{"verify", "--root", root, "--format", "json"}, &stdout, &stderr) })
		switch {
		case r.hung:
			t.Fatalf("verify of the whole root: no result after %v (hangs)", advHangAfter)
		case r.panic != nil:
			t.Fatalf("verify of the whole root: panic: %v", r.panic)
		}
		t.Logf("verify of the whole root (%d cases and the examples): %d ms, %.1f MB allocated", len(cases), r.elapsed.Milliseconds(), advMB(r.alloc))
		var rep advJSONReport
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || code != exitFail {
			t.Fatalf("exit %d, %v; stderr: %s", code, err, advShort(stderr.String()))
		}
		byPath := map[string]advJSONResult{}
		for _, r := range rep.Submissions {
			byPath[r.Path] = r
		}
		examples := 0
		for p, r := range byPath {
			if strings.HasPrefix(p, "submissions/model-benchmark/") || strings.HasPrefix(p, "submissions/harness-benchmark/") {
				if _, err := os.Stat(filepath.Join(repoRoot, p)); err == nil {
					examples++
					if r.Status != "pass" {
						t.Errorf("example %s: %s beside the corpus, want pass: %s", p, r.Status, r.outcome().detail)
					}
				}
			}
		}
		if examples != 5 {
			t.Errorf("%d example submissions in the report, want 5", examples)
		}
		for _, c := range cases {
			r, found := byPath[c.dir]
			switch {
			case !found:
				t.Errorf("%s: %s is missing from the report", c.name, c.dir)
			default:
				if got, want := r.outcome(), c.want(); !advSame(got, want) {
					t.Errorf("%s beside the others: %s, want %s\n  %s", c.name, got, want, got.detail)
				}
			}
		}
	})
}

// advReport logs the slowest cases and the largest allocation, and writes
// the whole table to $BENCHGATE_ADVERSARIAL_REPORT when it is set.
func advReport(t *testing.T, figures []advFigures) {
	if len(figures) == 0 {
		return
	}
	byTime := slices.Clone(figures)
	sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].elapsed > byTime[j].elapsed })
	var slow []string
	for _, f := range byTime[:min(5, len(byTime))] {
		slow = append(slow, fmt.Sprintf("%s %d ms", f.name, f.elapsed.Milliseconds()))
	}
	big := figures[0]
	for _, f := range figures {
		if f.alloc > big.alloc {
			big = f
		}
	}
	t.Logf("adversarial corpus: %d cases; slowest: %s; largest allocation: %s %.1f MB", len(figures), strings.Join(slow, ", "), big.name, advMB(big.alloc))
	out := os.Getenv(advReportEnv)
	if out == "" {
		return
	}
	var b strings.Builder
	// First by category (the name's first word), then every case.
	type tally struct {
		cases, pass, review, fail int
		codes                     map[string]bool
		slowest                   time.Duration
		alloc                     uint64
	}
	cats := map[string]*tally{}
	var order []string
	for _, f := range figures {
		c, _, _ := strings.Cut(f.name, "-")
		if cats[c] == nil {
			cats[c] = &tally{codes: map[string]bool{}}
			order = append(order, c)
		}
		tl := cats[c]
		tl.cases++
		switch f.verdict {
		case "pass":
			tl.pass++
		case "review":
			tl.review++
		default:
			tl.fail++
		}
		for _, code := range f.codes {
			tl.codes[code] = true
		}
		tl.slowest, tl.alloc = max(tl.slowest, f.elapsed), max(tl.alloc, f.alloc)
	}
	sort.Strings(order)
	fmt.Fprintf(&b, "| category | cases | pass | review | fail | distinct error codes | slowest | most allocated |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range order {
		tl := cats[c]
		fmt.Fprintf(&b, "| `%s-…` | %d | %d | %d | %d | %d | %d ms | %.1f MB |\n", c, tl.cases, tl.pass, tl.review, tl.fail, len(tl.codes), tl.slowest.Milliseconds(), advMB(tl.alloc))
	}
	fmt.Fprintf(&b, "\n| case | verdict | codes | ms | MB |\n|---|---|---|---:|---:|\n")
	sorted := slices.Clone(figures)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, f := range sorted {
		codes := strings.Join(f.codes, ", ")
		if codes == "" {
			codes = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %.1f |\n", f.name, f.verdict, codes, f.elapsed.Milliseconds(), advMB(f.alloc))
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Errorf("writing the report: %v", err)
	}
}

// advRecipes make the files of generated cases. Each gets the committed
// version of its file, or nil.
var advRecipes = map[string]func(committed []byte) ([]byte, error){
	"deep-arrays": func([]byte) ([]byte, error) {
		const n = 100_000
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)), nil
	},
	"deep-objects": func([]byte) ([]byte, error) {
		const n = 100_000
		return []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)), nil
	},
	"million-zeros": func([]byte) ([]byte, error) {
		return []byte("[" + strings.Repeat("0,", 999_999) + "0]"), nil
	},
	"million-empty-objects": func([]byte) ([]byte, error) {
		return []byte("[" + strings.Repeat("{},", 999_999) + "{}]"), nil
	},
	"million-rows": func([]byte) ([]byte, error) {
		const row = `{"id":"rq-001","response":"","answer":null,"correct":false}`
		return []byte("[" + strings.Repeat(row+",", 999_999) + row + "]"), nil
	},
	"long-line-response": func(committed []byte) ([]byte, error) {
		return advEditRows(committed, func(rows []map[string]any) []map[string]any {
			rows[0]["response"] = strings.Repeat("The reflection coefficient decides it. ", 10<<20/39) + "ANSWER: " + rows[0]["answer"].(string)
			return rows
		})
	},
	"over-cap": func([]byte) ([]byte, error) {
		data := bytes.Repeat([]byte(" "), 64<<20+1)
		copy(data, "[]")
		return data, nil
	},
	"huge-rubric-key": func(committed []byte) ([]byte, error) {
		var m map[string]any
		if err := json.Unmarshal(committed, &m); err != nil {
			return nil, err
		}
		m["rubric_key"] = strings.Repeat("reservoir-mcq", 1<<20/13)
		return json.MarshalIndent(m, "", "  ")
	},
	"huge-answer":         advAnswerOfSize(60 << 20),
	"answer-at-cap":       advAnswerOfSize(benchmark.DefaultMaxAnswerBytes),
	"answer-one-over-cap": advAnswerOfSize(benchmark.DefaultMaxAnswerBytes + 1),
	"rows-beyond-budget": func(committed []byte) ([]byte, error) {
		return advEditRows(committed, func(rows []map[string]any) []map[string]any {
			return slices.Repeat(rows[:1], 20_000)
		})
	},
	"many-duplicates": func(committed []byte) ([]byte, error) {
		return advEditRows(committed, func(rows []map[string]any) []map[string]any {
			return append(rows, slices.Repeat(rows[:1], 700)...)
		})
	},
	"many-unknown-components": func(committed []byte) ([]byte, error) {
		return advEditRows(committed, func(rows []map[string]any) []map[string]any {
			comps := rows[0]["score_b_components"].([]any)
			for i := range 900 {
				comps = append(comps, map[string]any{"id": fmt.Sprintf("X%d", i), "awarded": 0, "maximum": 0})
			}
			rows[0]["score_b_components"] = comps
			return rows
		})
	},
	"many-unknown": func([]byte) ([]byte, error) {
		var b strings.Builder
		b.WriteString("[\n")
		for i := range 800 {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"id": "made-up-%03d", "response": "ANSWER: A", "answer": "A", "correct": false}`, i)
		}
		b.WriteString("\n]\n")
		return []byte(b.String()), nil
	},
	"wide-meta": func(committed []byte) ([]byte, error) {
		var m map[string]any
		if err := json.Unmarshal(committed, &m); err != nil {
			return nil, err
		}
		for i := range 100_000 {
			m[fmt.Sprintf("x%06d", i)] = 0
		}
		return json.Marshal(m)
	},
	"huge-id": func(committed []byte) ([]byte, error) {
		return advEditRows(committed, func(rows []map[string]any) []map[string]any {
			rows[0]["id"] = strings.Repeat("rq-", 10<<20/3)
			return rows
		})
	},
}

// advEditRows edits the rows of a committed scores.json and writes them on
// one line.
// advAnswerOfSize is a recipe giving the first committed rubric row an
// answer_b of n bytes.
func advAnswerOfSize(n int) func([]byte) ([]byte, error) {
	return func(committed []byte) ([]byte, error) {
		return advEditRows(committed, func(rows []map[string]any) []map[string]any {
			const unit = "Porosity is lost to compaction and quartz cement. "
			rows[0]["answer_b"] = strings.Repeat(unit, n/len(unit)+1)[:n]
			return rows
		})
	}
}

func advEditRows(committed []byte, edit func([]map[string]any) []map[string]any) ([]byte, error) {
	var rows []map[string]any
	if err := json.Unmarshal(committed, &rows); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no rows to start from")
	}
	return json.Marshal(edit(rows))
}
