package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/submission"
)

// check holds the state of one submission's verification.
type check struct {
	v     *Verifier
	dir   string
	res   *Result
	track submission.Track
	out   finding.List
	// Findings per code, and the first of each code past maxPerCode.
	counts  map[string]int
	dropped map[string]finding.Finding
	// files, when set, keeps what was parsed (VerifyFiles).
	files *Files
	// review: a check found what a maintainer must look at (with the
	// limit of the submission's benchmark, which Result does not keep).
	review bool
}

// maxPerCode caps the findings of one code in one submission. A file that
// is wrong on every row says so in its first hundred findings; the rest
// would cost memory, the report's size and the reader's time.
const maxPerCode = 100

// maxEcho caps, in bytes, the contributor text a finding repeats.
const maxEcho = 100

func (c *check) file(name string) string { return path.Join(c.dir, name) }

func (c *check) errorf(code, file string, line int, question, format string, args ...any) {
	if c.keep(finding.Finding{Severity: finding.Error, Code: code, File: file}) {
		c.out.Errorf(code, file, line, question, format, args...)
	}
}

func (c *check) warnf(code, file string, line int, question, format string, args ...any) {
	if c.keep(finding.Finding{Severity: finding.Warning, Code: code, File: file}) {
		c.out.Warnf(code, file, line, question, format, args...)
	}
}

// keep counts a finding and reports whether it is within maxPerCode.
func (c *check) keep(f finding.Finding) bool {
	if c.counts == nil {
		c.counts, c.dropped = map[string]int{}, map[string]finding.Finding{}
	}
	c.counts[f.Code]++
	if c.counts[f.Code] <= maxPerCode {
		return true
	}
	if _, ok := c.dropped[f.Code]; !ok {
		c.dropped[f.Code] = f
	}
	return false
}

// finish adds a closing finding for each capped code, shortens echoed
// question ids and splits the findings into errors and warnings.
func (c *check) finish() {
	codes := make([]string, 0, len(c.dropped))
	for code := range c.dropped {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for _, code := range codes {
		f := c.dropped[code]
		f.Message = fmt.Sprintf("%d more findings like these are not shown; fix the ones above and verify again", c.counts[code]-maxPerCode)
		c.out = append(c.out, f)
	}
	for i := range c.out {
		c.out[i].Question = clip(c.out[i].Question)
	}
	c.res.Errors, c.res.Warnings = c.out.Split()
}

// clip shortens contributor text that a finding repeats, so that a
// megabyte id costs a megabyte once, not once per report line.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	return safetext.Cut(s, maxEcho) + "…"
}

func (c *check) run() {
	defer c.finish()
	if !c.layout() {
		return
	}
	metaDoc := c.readJSON(submission.MetaFile)
	scoresDoc := c.readJSON(submission.ScoresFile)
	if metaDoc == nil {
		return
	}
	meta, fs := submission.ParseMeta(c.file(submission.MetaFile), metaDoc)
	c.out = append(c.out, fs...)
	if meta == nil {
		return
	}
	c.res.Meta = meta
	c.submitter(meta)
	if c.files != nil {
		c.files.Meta = meta
	}
	c.res.RubricKey = meta.RubricKey
	entry, b := c.benchmarkOf(meta)
	if b != nil {
		c.res.Kind = b.Entry.Kind
	} else if entry != nil {
		c.res.Kind = entry.Kind
	}
	if entry != nil {
		c.metaAgainst(meta, entry)
	}
	if scoresDoc == nil || b == nil {
		return
	}
	scoresFile := c.file(submission.ScoresFile)
	if limit := valueBudget(b); scoresDoc.Values > limit {
		// Checked before the schema, whose cost grows with every value.
		c.errorf("scores.size", scoresFile, 0, "", "scores.json holds %d JSON values, but a scores.json for the %d questions of benchmark %q needs at most %d: it has rows or fields the benchmark does not have; submit one row per question", scoresDoc.Values, b.Questions(), b.Entry.Key, limit)
		return
	}
	if msg := ShapeProblem(submission.ScoresFile, submission.SniffShape(scoresDoc), b.Entry.Key, b.Entry.Kind); msg != "" {
		// One line for the whole file, before the schema's error per row.
		c.errorf("scores.kind", scoresFile, scoresDoc.Line(scoresDoc.Root.Off), "", "%s", msg)
		return
	}
	switch b.Entry.Kind {
	case benchmark.KindMCQ:
		rows, fs := submission.ParseMCQScores(scoresFile, scoresDoc)
		c.out = append(c.out, fs...)
		if rows != nil {
			c.mcq(b, rows)
			if c.files != nil {
				c.files.MCQ = rows
			}
		}
	default:
		rows, fs := submission.ParseRubricScores(scoresFile, scoresDoc)
		c.out = append(c.out, fs...)
		if rows != nil {
			c.rubric(b, meta, rows)
			if c.files != nil {
				c.files.Rubric = rows
			}
		}
	}
}

// layout checks where the folder is and what it holds. It reports whether
// the files may be read.
func (c *check) layout() bool {
	f, ok := submission.ParseFolder(c.dir)
	if !ok {
		c.errorf("layout.path", c.dir, 0, "", "a submission lives in %s/<track>/<slug>/, where track is %s", submission.Dir, trackList())
		return false
	}
	c.track = f.Track
	if !f.Track.Known() {
		c.errorf("layout.track", c.dir, 0, "", "unknown track %q; move the folder under %s", f.Track, trackFolders())
	}
	if !submission.ValidSlug(f.Slug) {
		c.errorf("layout.slug", c.dir, 0, "", "folder name %q is not a valid slug: use %s", f.Slug, submission.SlugRule)
	}
	info, err := fs.Lstat(c.v.fsys, c.dir)
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		c.errorf("layout.symlink", c.dir, 0, "", "the submission folder is a symbolic link; commit the files themselves")
		return false
	}
	if err == nil && !info.IsDir() && info.Mode()&fs.ModeSymlink == 0 {
		c.errorf("layout.not-a-folder", c.dir, 0, "", "%s is a file, but a submission is a folder %s/<track>/<slug>/ holding meta.json and scores.json; move it into its own folder", f.Slug, submission.Dir)
		return false
	}
	entries, err := fs.ReadDir(c.v.fsys, c.dir)
	if err != nil {
		if isNotExist(err) {
			c.errorf("layout.missing", c.dir, 0, "", "no such submission folder")
		} else {
			c.errorf("layout.read", c.dir, 0, "", "cannot list the folder: %v", err)
		}
		return false
	}
	have := map[string]bool{}
	ok = true
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			c.errorf("layout.symlink", c.file(name), 0, "", "%s is a symbolic link; commit the file itself", name)
			ok = ok && name != submission.MetaFile && name != submission.ScoresFile
		case e.IsDir():
			c.errorf("layout.unexpected-dir", c.file(name), 0, "", "%s; remove the folder %s", submission.FolderRule, name)
		case name == submission.MetaFile || name == submission.ScoresFile:
			have[name] = true
		case name == submission.ReadmeFile:
			c.readme()
		default:
			c.errorf("layout.unexpected-file", c.file(name), 0, "", "%s; remove %s", submission.FolderRule, name)
		}
	}
	for _, name := range []string{submission.MetaFile, submission.ScoresFile} {
		if !have[name] && ok {
			c.errorf("layout.missing-file", c.file(name), 0, "", "%s is missing", name)
		}
	}
	return ok && have[submission.MetaFile]
}

func (c *check) readme() {
	data, err := jsondoc.ReadFile(c.v.fsys, c.file(submission.ReadmeFile), c.v.opts.MaxFileBytes)
	if err != nil {
		c.errorf("layout.read", c.file(submission.ReadmeFile), 0, "", "%v", err)
		return
	}
	if !utf8.Valid(data) {
		c.errorf("layout.utf8", c.file(submission.ReadmeFile), lineOfInvalidUTF8(data), "", "README.md is not valid UTF-8; save it as UTF-8")
	}
}

func lineOfInvalidUTF8(b []byte) int {
	line := 1
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		b = b[n:]
	}
	return line
}

// readJSON reads and strictly parses one file of the submission.
func (c *check) readJSON(name string) *jsondoc.Doc {
	file := c.file(name)
	data, err := jsondoc.ReadFile(c.v.fsys, file, c.v.opts.MaxFileBytes)
	if err != nil {
		var tl *jsondoc.TooLargeError
		switch {
		case errors.As(err, &tl):
			c.errorf("layout.too-large", file, 0, "", "%v; a submission file may be at most %d bytes", err, c.v.opts.MaxFileBytes)
		case isNotExist(err):
			// Reported by layout.
		default:
			c.errorf("layout.read", file, 0, "", "cannot read the file: %v", err)
		}
		return nil
	}
	doc, err := jsondoc.Parse(data, jsondoc.Limits{MaxDepth: c.v.opts.MaxDepth, MaxValues: c.v.opts.MaxValues})
	if err != nil {
		c.out = append(c.out, finding.FromError("json.syntax", file, err))
		return nil
	}
	return doc
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// valueBudget bounds the JSON values of a scores.json for b, generously: an
// mcq row holds at most 12, a rubric row about 10 plus 5 per component.
func valueBudget(b *benchmark.Benchmark) int {
	n := 4096
	if b.Entry.Kind == benchmark.KindMCQ {
		return n + 16*b.Questions()
	}
	for _, q := range b.Rubric.Questions {
		n += 128 + 16*len(q.Components)
	}
	return n
}

// benchmarkOf finds the registry entry and the loaded benchmark that
// meta.json names.
func (c *check) benchmarkOf(meta *submission.Meta) (*benchmark.Entry, *benchmark.Benchmark) {
	metaFile := c.file(submission.MetaFile)
	e, ok := c.v.registry.Lookup(meta.RubricKey)
	if !ok {
		c.errorf("meta.rubric-key", metaFile, meta.Lines["rubric_key"], "", "rubric_key %q names no benchmark in %s; known keys: %s", clip(meta.RubricKey), benchmark.RegistryFile, strings.Join(c.v.registry.Keys(), ", "))
		return nil, nil
	}
	b, fs := c.v.Benchmark(e.Key)
	if b == nil {
		msg := "see `benchgate lint-benchmark " + e.Key + "`"
		if errs, _ := fs.Split(); len(errs) > 0 {
			msg = errs[0].String()
			if len(errs) > 1 {
				msg += fmt.Sprintf(" (and %d more; run `benchgate lint-benchmark %s`)", len(errs)-1, e.Key)
			}
		}
		c.errorf("benchmark.invalid", e.File, 0, "", "benchmark %q cannot be used to verify submissions until its maintainers fix it: %s", e.Key, msg)
		return &e, nil
	}
	return &e, b
}

// metaAgainst checks meta.json against the registry entry and the track.
func (c *check) metaAgainst(m *submission.Meta, e *benchmark.Entry) {
	file := c.file(submission.MetaFile)
	if d, err := time.Parse(time.DateOnly, m.Date); err == nil && d.After(c.v.opts.Today.AddDate(0, 0, 1)) {
		c.errorf("meta.date", file, m.Lines["date"], "", "date %s is in the future; write the date the evaluation was run", m.Date)
	}
	switch e.Kind {
	case benchmark.KindRubric:
		switch {
		case e.JudgeModel == "":
			// The registry names no judge: its entry is the fault, which
			// benchmark.invalid reports; no judge can match it.
		case m.JudgeModel == "":
			c.errorf("judge.missing", file, m.Lines["rubric_key"], "", "judge_model is missing; benchmark %q is graded by %q: set \"judge_model\": %q", e.Key, e.JudgeModel, e.JudgeModel)
		case m.JudgeModel != e.JudgeModel:
			c.errorf("judge.mismatch", file, m.Lines["judge_model"], "", "judge_model is %q but benchmark %q is graded only by %q; re-score the answers with that judge", clip(m.JudgeModel), e.Key, e.JudgeModel)
		}
	case benchmark.KindMCQ:
		if m.JudgeModel != "" {
			c.errorf("judge.not-applicable", file, m.Lines["judge_model"], "", "judge_model is %q but benchmark %q is multiple choice and scored without a judge; remove judge_model", clip(m.JudgeModel), e.Key)
		}
	}
	switch c.track {
	case submission.HarnessTrack:
		if m.HarnessName == "" {
			c.errorf("meta.harness", file, 0, "", "harness_name is required on the harness-benchmark track")
		}
		if m.HarnessRepo == "" {
			c.errorf("meta.harness", file, 0, "", "harness_repo is required on the harness-benchmark track")
		}
		switch {
		case e.ReferenceModelID == "":
			c.errorf("meta.reference-model", file, m.Lines["candidate_model_id"], "", "benchmark %q pins no reference model (reference_model_id in %s), so it has no harness track", e.Key, benchmark.RegistryFile)
		case m.CandidateModelID != e.ReferenceModelID:
			c.errorf("meta.reference-model", file, m.Lines["candidate_model_id"], "", "candidate_model_id is %q, but the harness track of %q compares harnesses around the pinned model %q; run your harness with that model, or submit to model-benchmark", clip(m.CandidateModelID), e.Key, e.ReferenceModelID)
		}
	case submission.ModelTrack:
		if m.HarnessName != "" || m.HarnessRepo != "" {
			c.warnf("meta.harness", file, m.Lines["harness_name"], "", "harness fields are set on the model-benchmark track; if this is a harness run around the pinned model, move it to harness-benchmark")
		}
	}
}

// trackList names the tracks: "model-benchmark or harness-benchmark".
func trackList() string {
	names := make([]string, len(submission.Tracks))
	for i, t := range submission.Tracks {
		names[i] = string(t)
	}
	return strings.Join(names, " or ")
}

// trackFolders names the tracks' folders: "submissions/a/ or submissions/b/".
func trackFolders() string {
	names := make([]string, len(submission.Tracks))
	for i, t := range submission.Tracks {
		names[i] = submission.Dir + "/" + string(t) + "/"
	}
	return strings.Join(names, " or ")
}
