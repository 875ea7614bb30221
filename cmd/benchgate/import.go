package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/importer"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

const formationEvalSynopsis = "--csv FILE --benchmark KEY [--models m1,m2] [--root DIR] [--dry-run] [--submitter LOGIN] [--contact URL] [--date YYYY-MM-DD] [--format text|json]"

const groundtruthSynopsis = "--scores FILE --benchmark KEY [--runs FILE] [--judge ID] [--model-a ID] [--model-b ID] [--root DIR] [--dry-run] [--submitter LOGIN] [--contact URL] [--date YYYY-MM-DD] [--format text|json]"

const inspectSynopsis = "--log FILE... --benchmark KEY [--scorer NAME] [--models m1,m2] [--root DIR] [--dry-run] [--submitter LOGIN] [--contact URL] [--date YYYY-MM-DD] [--format text|json]"

// importFormats are the formats `benchgate import` reads.
var importFormats = []struct {
	name, synopsis, summary string
	run                     func(args []string, stdout, stderr io.Writer) error
}{
	{"formationeval", formationEvalSynopsis, "FormationEval's per-question results CSV", runImportFormationEval},
	{"groundtruth", groundtruthSynopsis, "a Groundtruth scores file (main.py --score), one side or both", runImportGroundtruth},
	{"inspect", inspectSynopsis, "inspect_ai evaluation logs (.json or .eval) of a multiple-choice task", runImportInspect},
}

func runImport(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		w := stderr
		if len(args) > 0 {
			w = helpOutput(stderr)
		}
		fmt.Fprintln(w, "Usage: benchgate import FORMAT [flags]\n\nTurns published results into submissions of the model track, each verified as it is written. Formats:")
		for _, f := range importFormats {
			fmt.Fprintf(w, "  %-14s %s\n                 benchgate import %s %s\n", f.name, f.summary, f.name, f.synopsis)
		}
		if len(args) == 0 {
			return exitWith(exitUsage)
		}
		return nil
	}
	for _, f := range importFormats {
		if f.name == args[0] {
			return f.run(args[1:], stdout, stderr)
		}
	}
	names := make([]string, len(importFormats))
	for i, f := range importFormats {
		names[i] = f.name
	}
	return fmt.Errorf("unknown format %q (want %s)", args[0], strings.Join(names, ", "))
}

// importFlags are the flags every format takes.
type importFlags struct {
	rootFlag  *boardRoot
	root, key string // root is set by check
	dryRun    bool
	format    string
	hint      string // a note for the end of the output
	opts      importer.Options
}

func newImportFlags(fl *flag.FlagSet) *importFlags {
	f := &importFlags{}
	f.rootFlag = addRoot(fl, "the leaderboard repository (a clone of it)")
	fl.StringVar(&f.key, "benchmark", "", "the benchmark's key in rubrics/rubrics.json")
	fl.BoolVar(&f.dryRun, "dry-run", false, "write nothing; print what would be written, verified")
	fl.StringVar(&f.format, "format", "text", "output format: text, or json (one object: README.md has its fields)")
	fl.StringVar(&f.opts.Submitter, "submitter", "", "meta.json submitter: the GitHub login of who submits the results (default: a placeholder to fill in)")
	fl.StringVar(&f.opts.Contact, "contact", "", "meta.json contact_or_repo: a repository URL or contact address (default: a placeholder to fill in)")
	fl.StringVar(&f.opts.Date, "date", "", "meta.json date: the day of the run, YYYY-MM-DD (default: what the source says, else today)")
	return f
}

// check validates the common flags and opens the benchmark.
func (f *importFlags) check(fl *flag.FlagSet, missing []string) (*benchmark.Benchmark, error) {
	if f.key == "" {
		missing = append([]string{"--benchmark"}, missing...)
	}
	if len(missing) > 0 {
		return nil, usageError(fl, fmt.Errorf("missing %s", strings.Join(missing, ", ")))
	}
	if err := oneOf(f.format, []string{"text", "json"}); err != nil {
		return nil, err
	}
	if f.opts.Date != "" {
		if _, err := time.Parse(time.DateOnly, f.opts.Date); err != nil {
			return nil, usageError(fl, fmt.Errorf("--date %q is not a date YYYY-MM-DD", f.opts.Date))
		}
	}
	f.opts.Today = time.Now().UTC().Format(time.DateOnly)
	root, err := f.rootFlag.locate()
	if err != nil {
		return nil, err
	}
	f.root = root
	return openBenchmark(f.root, f.key)
}

func runImportFormationEval(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("import formationeval", formationEvalSynopsis, stderr)
	f := newImportFlags(fl)
	csvPath := fl.String("csv", "", "FormationEval's per-question results CSV (eval/results/questions.csv)")
	models := fl.String("models", "", "the models to import, comma-separated, as the CSV's column prefixes name them (default: all)")
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 {
		return usageError(fl, fmt.Errorf("unexpected argument %q", pos[0]))
	}
	var missing []string
	if *csvPath == "" {
		missing = append(missing, "--csv")
	}
	b, err := f.check(fl, missing)
	if err != nil {
		return err
	}
	f.opts.Models = splitList(*models)
	file, err := os.Open(*csvPath)
	if err != nil {
		return err
	}
	defer file.Close()
	runs, err := importer.FormationEval(*csvPath, file, b, f.opts)
	if err != nil {
		return err
	}
	f.hint = importer.FormationEvalPolicyHint(b, runs)
	return writeImported(stdout, f, b, runs)
}

func runImportInspect(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("import inspect", inspectSynopsis, stderr)
	f := newImportFlags(fl)
	var logs []string
	fl.Func("log", "an inspect_ai log `FILE`, .json or .eval (repeat the flag, or list more logs after it; logs of one model are joined)", func(s string) error {
		logs = append(logs, s)
		return nil
	})
	scorer := fl.String("scorer", "", "the multiple-choice scorer whose answer and value to read, when the samples have several scores")
	models := fl.String("models", "", "the models to import, comma-separated, as the logs' eval.model names them (default: all)")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	logs = append(logs, pos...)
	var missing []string
	if len(logs) == 0 {
		missing = append(missing, "--log")
	}
	b, err := f.check(fl, missing)
	if err != nil {
		return err
	}
	f.opts.Models = splitList(*models)
	data := make([][]byte, len(logs))
	for i, p := range logs {
		if data[i], err = readLimited(p, importMaxLogBytes); err != nil {
			return err
		}
	}
	runs, err := importer.Inspect(logs, data, b, *scorer, f.opts)
	if err != nil {
		return err
	}
	return writeImported(stdout, f, b, runs)
}

func runImportGroundtruth(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("import groundtruth", groundtruthSynopsis, stderr)
	f := newImportFlags(fl)
	scores := fl.String("scores", "", "the scores file of Groundtruth's main.py --score (one answers file, or A.json B.json)")
	runsFile := fl.String("runs", "", "the scores file's run record, which names its judge (default: <scores stem>.runs.jsonl beside it)")
	judge := fl.String("judge", "", "the judge that graded the file, when no run record names it; it must be the benchmark's judge_model")
	modelA := fl.String("model-a", "", "import side A (main.py's first answers file) as this model, by its provider id (default: the model its answers' run record names)")
	modelB := fl.String("model-b", "", "import side B (the answers file scored pointwise, or main.py's second) as this model, by its provider id (default: the model its answers' run record names)")
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 {
		return usageError(fl, fmt.Errorf("unexpected argument %q", pos[0]))
	}
	var missing []string
	if *scores == "" {
		missing = append(missing, "--scores")
	}
	b, err := f.check(fl, missing)
	if err != nil {
		return err
	}
	data, err := readLimited(*scores, importMaxLogBytes)
	if err != nil {
		return err
	}
	graded, err := groundtruthJudge(*scores, *runsFile, *judge)
	if err != nil {
		return err
	}
	sides, err := groundtruthSides(*scores, data, *modelA, *modelB)
	if err != nil {
		return err
	}
	runs, err := importer.Groundtruth(*scores, data, b, sides, graded, f.opts)
	if err != nil {
		return err
	}
	return writeImported(stdout, f, b, runs)
}

// groundtruthJudge is the judge that graded the scores file: the one its
// run record names (given, or found beside it), which --judge, when also
// given, must match; or, with no record, --judge.
func groundtruthJudge(scores, runsFile, judge string) (string, error) {
	explicit := runsFile != ""
	if !explicit {
		runsFile = importer.RunRecordPath(scores)
	}
	data, err := readLimited(runsFile, importMaxLogBytes)
	switch {
	case err != nil && (explicit || !errors.Is(err, fs.ErrNotExist)):
		return "", err
	case err != nil && judge == "":
		return "", fmt.Errorf("the judge that graded %s is named in its run record %s, which is not there: pass --runs with the record's path (main.py writes <output>.runs.jsonl beside its output), or --judge with the judge's id", scores, runsFile)
	case err != nil:
		return judge, nil
	}
	recs, err := importer.ReadGroundtruthRuns(runsFile, data)
	if err != nil {
		return "", err
	}
	recorded, err := importer.GroundtruthJudge(runsFile, recs)
	if err != nil {
		return "", err
	}
	if judge != "" && judge != recorded {
		return "", fmt.Errorf("--judge is %q, but the run record %s says %q graded the file", judge, runsFile, recorded)
	}
	return recorded, nil
}

// groundtruthSides are the sides to import and their models: the ones
// given by --model-a and --model-b, or, with neither, every side the file
// was graded from, each model read from its answers file's run record.
func groundtruthSides(scores string, data []byte, modelA, modelB string) ([]importer.GroundtruthSide, error) {
	if modelA != "" || modelB != "" {
		var sides []importer.GroundtruthSide
		if modelA != "" {
			sides = append(sides, importer.GroundtruthSide{Side: "a", Model: modelA})
		}
		if modelB != "" {
			sides = append(sides, importer.GroundtruthSide{Side: "b", Model: modelB})
		}
		return sides, nil
	}
	srcA, srcB, err := importer.GroundtruthSources(scores, data)
	if err != nil {
		return nil, err
	}
	var sides []importer.GroundtruthSide
	for _, s := range []struct{ side, src, flag string }{{"a", srcA, "--model-a"}, {"b", srcB, "--model-b"}} {
		if s.src == "" {
			continue
		}
		runsFile, err := answersRunRecord(scores, s.src)
		if err != nil {
			return nil, fmt.Errorf("side %s was graded from %s; %v. Pass %s ID to name its model", strings.ToUpper(s.side), s.src, err, s.flag)
		}
		recData, err := readLimited(runsFile, importMaxLogBytes)
		if err != nil {
			return nil, err
		}
		recs, err := importer.ReadGroundtruthRuns(runsFile, recData)
		if err != nil {
			return nil, err
		}
		model, err := importer.GroundtruthCandidate(runsFile, recs)
		if err != nil {
			return nil, fmt.Errorf("%v; pass %s ID to name side %s's model", err, s.flag, strings.ToUpper(s.side))
		}
		sides = append(sides, importer.GroundtruthSide{Side: s.side, Model: model})
	}
	if len(sides) == 0 {
		return nil, fmt.Errorf("%s names no answers file for either side (source_answer_a, source_answer_b): pass --model-a or --model-b", scores)
	}
	return sides, nil
}

// answersRunRecord finds the run record of the answers file src, as
// main.py recorded its path (relative to where it ran): at that path, or
// beside the scores file, where main.py's default output/ folder puts both.
func answersRunRecord(scores, src string) (string, error) {
	candidates := []string{
		importer.RunRecordPath(filepath.FromSlash(src)),
		filepath.Join(filepath.Dir(scores), filepath.Base(importer.RunRecordPath(filepath.FromSlash(src)))),
	}
	for _, p := range candidates {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("its run record is neither %s nor %s", candidates[0], candidates[1])
}

// importMaxLogBytes bounds a log read whole: inspect_ai logs of thousands
// of samples, with their event transcripts, run to hundreds of megabytes.
const importMaxLogBytes = 1 << 30

func readLimited(p string, limit int64) ([]byte, error) {
	file, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB; split the run into several logs", p, limit>>20)
	}
	return data, nil
}

// splitList reads a comma-separated flag.
func splitList(s string) []string {
	var out []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// writeImported writes each run as a submission of the model track (or,
// with --dry-run, in a scratch copy of the registry and benchmark),
// verifies it with the verifier of `benchgate verify`, and prints the
// disputes, what meta.json still needs and a summary. Nothing is written
// when any folder exists already. It fails when a submission does not
// pass.
func writeImported(stdout io.Writer, f *importFlags, b *benchmark.Benchmark, runs []*importer.Run) error {
	folders := make([]submission.Folder, len(runs))
	for i, r := range runs {
		slug := r.Slug()
		if !submission.ValidSlug(slug) {
			return fmt.Errorf("model %q gives no valid folder name (%q): a slug needs %s", r.Model, slug, submission.SlugRule)
		}
		folders[i] = submission.NewFolder(submission.ModelTrack, slug)
		for j := range i {
			if folders[j] == folders[i] {
				return fmt.Errorf("models %q and %q would both be written to %s", runs[j].Model, r.Model, folders[i])
			}
		}
		if _, err := os.Lstat(filepath.Join(f.root, filepath.FromSlash(folders[i].String()))); err == nil {
			return fmt.Errorf("%s already exists: remove it to import %s again, or leave it out with --models; nothing was written", filepath.Join(f.root, folders[i].String()), r.Model)
		}
	}
	root := f.root
	if f.dryRun {
		scratch, err := os.MkdirTemp("", "benchgate-import-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(scratch)
		if err := copyBenchmark(f.root, scratch, b.Entry.File); err != nil {
			return err
		}
		root = scratch
	}
	v, err := verify.New(boardFS(root), verify.Options{})
	if err != nil {
		return err
	}
	results := make([]verify.Result, len(runs))
	for i, r := range runs {
		scores, err := encodeRows(r)
		if err != nil {
			return err
		}
		if _, err := submission.Create(root, folders[i], &r.Meta, scores); err != nil {
			return err
		}
		results[i] = v.Verify(folders[i].String())
		switch {
		case f.format == "json":
		case f.dryRun:
			meta, _ := json.MarshalIndent(&r.Meta, "", "  ")
			fmt.Fprintf(stdout, "would write %s/%s:\n%s\n", folders[i], submission.MetaFile, meta)
			fmt.Fprintf(stdout, "would write %s/%s: %d rows, %d bytes\n\n", folders[i], submission.ScoresFile, len(r.Records)+len(r.Rubric), len(scores))
		default:
			fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(f.root, folders[i].String()))
		}
	}
	report := verify.NewReport(results)
	// The placeholders the import wrote fail verification until a person
	// fills them in, as they should; they are listed as what to fill in,
	// and are not the import's failure.
	toFill := 0
	for _, r := range results {
		if r.Status == verify.Fail && onlyPlaceholders(r) {
			toFill++
		}
	}
	err = nil
	if report.Failed > toFill {
		where := "see above"
		if f.format == "json" {
			where = "see verify in the output"
		}
		err = failed(fmt.Errorf("%d of %d imported submission(s) do not pass verification (%s)", report.Failed-toFill, len(runs), where))
	}
	if f.format == "json" {
		out, jerr := newImportJSON(f, b, runs, folders, results, report, toFill)
		if jerr == nil {
			jerr = writeJSON(stdout, out)
		}
		return cmp.Or(jerr, err)
	}
	if !f.dryRun {
		fmt.Fprintln(stdout)
	}
	verify.Render(stdout, "text", report)

	for _, r := range runs {
		if len(r.Disputes) == 0 {
			continue
		}
		fmt.Fprintf(stdout, "\n%s: %d dispute(s): the %s policy reads another letter or verdict than the source published:\n", r.Model, len(r.Disputes), importer.PolicyName(b))
		for _, d := range r.Disputes {
			fmt.Fprintf(stdout, "  %s\n", d)
		}
	}
	writeMissing(stdout, runs)
	fmt.Fprintln(stdout)
	writeImportSummary(stdout, b, runs, folders, results, f.dryRun)
	if err == nil && toFill > 0 {
		fmt.Fprintf(stdout, "\n%d of %d imported submission(s) fail only on the placeholders (FILL IN: ...) written for what the source does not say: fill them in, then run benchgate verify\n", toFill, len(runs))
	}
	if f.hint != "" {
		fmt.Fprintln(stdout, f.hint)
	}
	return err
}

// onlyPlaceholders reports whether every error of r is a placeholder.
func onlyPlaceholders(r verify.Result) bool {
	for _, f := range r.Errors {
		if f.Code != "meta.placeholder" {
			return false
		}
	}
	return len(r.Errors) > 0
}

// writeMissing lists the meta.json fields a maintainer must fill in: once
// when every run lacks the same, else run by run.
func writeMissing(w io.Writer, runs []*importer.Run) {
	if len(runs) == 0 {
		return
	}
	same := true
	for _, r := range runs[1:] {
		same = same && slices.Equal(r.Missing, runs[0].Missing)
	}
	for i, r := range runs {
		if len(r.Missing) == 0 || (same && i > 0) {
			continue
		}
		whose := ""
		if !same {
			whose = " of " + r.Model
		}
		fmt.Fprintf(w, "\nmeta.json%s: the source does not say, so a maintainer must fill in:\n", whose)
		for _, m := range r.Missing {
			fmt.Fprintf(w, "  - %s\n", m)
		}
	}
}

// writeImportSummary prints one line per run: rows, then for a
// multiple-choice benchmark correct answers (and the source's own count),
// disputes and truncated responses (and how many of them the stored text
// cannot decide), for a rubric benchmark the scored rows and the mean,
// then the verdict and the folder.
func writeImportSummary(w io.Writer, b *benchmark.Benchmark, runs []*importer.Run, folders []submission.Folder, results []verify.Result, dryRun bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	folderHead := "folder written"
	if dryRun {
		folderHead = "folder (dry run: not written)"
	}
	if b.Entry.Kind == benchmark.KindRubric {
		fmt.Fprintf(tw, "model\trows\tscored\tmean\tverify\t%s\n", folderHead)
		for i, r := range runs {
			mean := "-"
			if m := results[i].Summary.Mean; m != nil {
				mean = fmt.Sprintf("%.2f", *m)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", r.Model, len(r.Rubric), r.Scored, mean, results[i].Status, folders[i])
		}
		tw.Flush()
		return
	}
	fmt.Fprintf(tw, "model\trows\tcorrect\tpublished\tdisputes\ttruncated\tundecidable\tverify\t%s\n", folderHead)
	for i, r := range runs {
		pub := "-"
		if r.PublishedCorrect >= 0 {
			pub = fmt.Sprint(r.PublishedCorrect)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t%d\t%s\t%s\n", r.Model, len(r.Records), r.Correct, pub, len(r.Disputes), r.Truncated, r.Undecidable, results[i].Status, folders[i])
	}
	tw.Flush()
}

// encodeRows writes a run's scores.json: indented, with <, > and & as
// they are, since responses quote markup (<think>) that escaping would
// hide.
func encodeRows(r *importer.Run) ([]byte, error) {
	var rows any = r.Records
	if r.Rubric != nil {
		rows = r.Rubric
	} else if r.Records == nil {
		rows = []importer.Record{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// copyBenchmark copies the registry and one benchmark file of the
// leaderboard in from to the folder to, where a dry run verifies.
func copyBenchmark(from, to, file string) error {
	for _, name := range []string{benchmark.RegistryFile, file} {
		data, err := fs.ReadFile(os.DirFS(from), name)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
