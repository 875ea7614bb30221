package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/benchgate/benchgate"
	"github.com/benchgate/benchgate/benchmark"
)

// placeholderTeam is the CODEOWNERS owner init writes when --maintainers
// is not given: GitHub reports it as unknown, which is the reminder.
const placeholderTeam = "@YOUR-ORG/leaderboard-maintainers"

var (
	keyRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	teamRe = regexp.MustCompile(`^@[A-Za-z0-9-]+(/[A-Za-z0-9._-]+)?$`)
)

func runInit(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("init", "DIR --benchmark FILE --key KEY [--kind mcq|rubric] [--judge MODEL] [--extraction POLICY] [--label TEXT] [--maintainers @org/team]", stderr)
	file := fl.String("benchmark", "", "the benchmark file to publish (a rubric .json or an MCQ .jsonl)")
	key := fl.String("key", "", "the benchmark's registry key, as submissions name it in rubric_key")
	kind := fl.String("kind", "", "mcq or rubric (default: read from the file)")
	judge := fl.String("judge", "", "the fixed judge model of a rubric benchmark, e.g. openai/gpt-5.5")
	extraction := fl.String("extraction", "", "the letter-extraction policy of an MCQ benchmark (default "+benchmark.DefaultExtraction+")")
	label := fl.String("label", "", "the benchmark's name on the leaderboard (default: the key)")
	maintainers := fl.String("maintainers", "", "the GitHub team or user that owns .github/, rubrics/ and leaderboard/ in CODEOWNERS, e.g. @org/team")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(fl, errors.New("name the folder of the new leaderboard repository (DIR)"))
	}
	if *file == "" || *key == "" {
		return usageError(fl, errors.New("--benchmark and --key are required"))
	}
	if !keyRe.MatchString(*key) {
		return usageError(fl, fmt.Errorf("--key %q: use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters", *key))
	}
	if *maintainers != "" && !teamRe.MatchString(*maintainers) {
		return usageError(fl, fmt.Errorf("--maintainers %q: name a team as @org/team or a user as @login", *maintainers))
	}
	dir := pos[0]
	if err := checkEmpty(dir); err != nil {
		return err
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		return fmt.Errorf("reading the benchmark: %v", err)
	}
	opts := boardOptions{Key: *key, Kind: benchmark.Kind(*kind), Judge: *judge, Extraction: *extraction, Label: *label, Maintainers: *maintainers, Pin: pinFor(buildInfo())}
	opts.BenchmarkFile = "rubrics/" + *key + strings.ToLower(filepath.Ext(*file))
	if opts.Kind == "" {
		opts.Kind = benchmark.Sniff(data)
	}
	files, err := newBoard(opts, data)
	if err != nil {
		return err
	}
	// Lint the board as it will be: the registry entry and the file
	// together, exactly as lint-benchmark reads them.
	rep, err := benchmark.LintNamed(files, *key, nil)
	if err != nil {
		return err
	}
	if rep.Failed() {
		benchmark.RenderLint(stderr, "text", rep)
		return failed(fmt.Errorf("%s does not pass lint-benchmark (above); fix it and run init again: nothing was written", *file))
	}
	if err := writeBoard(dir, files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Created the leaderboard repository %s with the benchmark %s (%s).\n", dir, *key, opts.Kind)
	if opts.Maintainers == "" {
		fmt.Fprintf(stderr, "benchgate init: warning: .github/CODEOWNERS names the placeholder %s; replace it with your maintainers' team (or run init with --maintainers @org/team)\n", placeholderTeam)
	}
	fmt.Fprintln(stderr, "benchgate init: "+opts.Pin.Note)
	fmt.Fprintf(stdout, "Next: cd %s && git init && git add . && git commit -m 'New leaderboard', push it to GitHub and enable Pages (Settings → Pages → Source: GitHub Actions). docs/actions.md in benchgate explains the workflows.\n", dir)
	return nil
}

// checkEmpty refuses a folder that holds anything: init never writes over
// a repository.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %v (init needs a new or empty folder)", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty (it holds %s): init writes a new leaderboard repository only into a new or empty folder", dir, entries[0].Name())
	}
	return nil
}

// boardOptions is what a new leaderboard repository is made of.
type boardOptions struct {
	Key, Label, Judge, Extraction string
	Kind                          benchmark.Kind
	BenchmarkFile                 string // path from the root
	Maintainers                   string // "" for the placeholder
	Pin                           pin
}

// registryEntry is a registry entry as init writes it.
type registryEntry struct {
	Key        string         `json:"key"`
	Label      string         `json:"label"`
	File       string         `json:"file"`
	Kind       string         `json:"kind"`
	JudgeModel string         `json:"judge_model,omitempty"`
	Judge      *judgeContract `json:"judge,omitempty"`
	Extraction string         `json:"extraction,omitempty"`
}

// judgeContract is the judge contract init writes for a rubric
// benchmark: benchgate's own, every term spelt out, so that the judge is
// pinned in the file a maintainer reads and edits, not by defaults.
type judgeContract struct {
	Temperature    float64 `json:"temperature"`
	TopP           float64 `json:"top_p"`
	ResponseFormat bool    `json:"response_format"`
	Verdict        struct {
		Format   string `json:"format"`
		Integers bool   `json:"integers"`
		Retry    string `json:"retry"`
		Retries  int    `json:"retries"`
	} `json:"verdict"`
}

func defaultContract() *judgeContract {
	c := &judgeContract{Temperature: benchmark.PinnedTemperature, TopP: benchmark.PinnedTopP, ResponseFormat: true}
	c.Verdict.Format, c.Verdict.Retry, c.Verdict.Retries = benchmark.VerdictJSON, benchmark.RetryReask, benchmark.DefaultVerdictRetries
	return c
}

// newBoard returns the files of a new leaderboard repository.
func newBoard(o boardOptions, data []byte) (fstest.MapFS, error) {
	entry := registryEntry{Key: o.Key, Label: o.Label, File: o.BenchmarkFile, Kind: string(o.Kind)}
	if entry.Label == "" {
		entry.Label = o.Key
	}
	switch o.Kind {
	case benchmark.KindRubric:
		if o.Judge == "" {
			return nil, errors.New("a rubric benchmark needs its fixed judge: add --judge MODEL (e.g. --judge openai/gpt-5.5)")
		}
		if o.Extraction != "" {
			return nil, errors.New("--extraction is for MCQ benchmarks; a rubric benchmark is graded by its judge")
		}
		entry.JudgeModel, entry.Judge = o.Judge, defaultContract()
	case benchmark.KindMCQ:
		if o.Judge != "" {
			return nil, errors.New("--judge is for rubric benchmarks; an MCQ benchmark is scored by letter extraction")
		}
		entry.Extraction = o.Extraction
		if entry.Extraction == "" {
			entry.Extraction = benchmark.DefaultExtraction
		}
	default:
		return nil, fmt.Errorf("--kind %q: want mcq or rubric (or leave it out to read it from the file)", o.Kind)
	}
	registry, err := json.MarshalIndent([]registryEntry{entry}, "", "  ")
	if err != nil {
		return nil, err
	}
	m := fstest.MapFS{
		benchmark.RegistryFile:              {Data: append(registry, '\n'), Mode: 0o644},
		o.BenchmarkFile:                     {Data: data, Mode: 0o644},
		".github/workflows/verify.yml":      {Data: []byte(verifyWorkflow(o.Pin)), Mode: 0o644},
		".github/workflows/leaderboard.yml": {Data: []byte(leaderboardWorkflow(o.Pin)), Mode: 0o644},
		".github/CODEOWNERS":                {Data: []byte(codeowners(o.Maintainers)), Mode: 0o644},
		"README.md":                         {Data: []byte(boardReadme(o)), Mode: 0o644},
	}
	err = fs.WalkDir(benchgate.Template, benchgate.TemplateDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(benchgate.Template, p)
		m[p] = &fstest.MapFile{Data: b, Mode: 0o644}
		return err
	})
	return m, err
}

// writeBoard writes the files under dir.
func writeBoard(dir string, files fstest.MapFS) error {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name].Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func codeowners(team string) string {
	if team == "" {
		team = placeholderTeam
	}
	var b strings.Builder
	b.WriteString("# The maintainers own what decides and publishes the leaderboard: the\n")
	b.WriteString("# workflows, the registry and benchmarks, and the published pages.\n")
	b.WriteString("# Submissions have no owner here: benchgate checks who may change them.\n")
	if team == placeholderTeam {
		b.WriteString("# Replace the placeholder below with your maintainers' team.\n")
	}
	for _, p := range []string{"/.github/", "/rubrics/", "/leaderboard/"} {
		fmt.Fprintf(&b, "%s %s\n", p, team)
	}
	return b.String()
}

func boardReadme(o boardOptions) string {
	label := o.Label
	if label == "" {
		label = o.Key
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s leaderboard\n\n", label)
	fmt.Fprintf(&b, "Results of the benchmark `%s` (`%s`, a %s benchmark), checked by [benchgate](https://github.com/benchgate/benchgate).\n\n", o.Key, o.BenchmarkFile, o.Kind)
	b.WriteString("## How to submit\n\n")
	b.WriteString("1. Run the benchmark and collect your scores (`benchgate generate`, then `benchgate score` for a rubric benchmark).\n")
	fmt.Fprintf(&b, "2. Copy `%s/` to `submissions/<track>/<slug>/` (track `model-benchmark` or `harness-benchmark`) and fill it in as its README says, with `rubric_key` `%s`", benchgate.TemplateDir, o.Key)
	if o.Kind == benchmark.KindRubric {
		fmt.Fprintf(&b, " and `judge_model` `%s`", o.Judge)
	}
	b.WriteString(". `benchgate submit` does this for you.\n")
	b.WriteString("3. Check it locally: `benchgate verify submissions/<track>/<slug>`.\n")
	b.WriteString("4. Open a pull request that adds that one folder and nothing else; set `submitter` to your GitHub login.\n\n")
	b.WriteString("The workflow `.github/workflows/verify.yml` verifies the pull request against this branch's registry and benchmarks, and reports on its changed files. A pull request may change only its own submission folder; a merged submission may be changed only by its submitter or a maintainer. After a merge, `.github/workflows/leaderboard.yml` publishes the leaderboard to GitHub Pages.\n")
	return b.String()
}

// buildInfo is the running binary's build information; a variable so that
// tests can fix it.
var buildInfo = func() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return bi
}

// pin is the version of benchgate that generated workflows install.
type pin struct {
	Version string // what go install takes after '@'
	Note    string // for the person running init: what was pinned and why
}

// pinFor pins the workflows to the running build: its module version when
// go install stamped one, else its commit when the build recorded it.
func pinFor(bi *debug.BuildInfo) pin {
	line := versionLine(bi)
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return pin{Version: bi.Main.Version, Note: "the workflows install benchgate " + bi.Main.Version + ", the version running (" + line + ")"}
	}
	var rev, modified string
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	if rev != "" {
		note := "this is a development build (" + line + "): the workflows install its commit " + rev + ", which works once that commit is on github.com/benchgate/benchgate; to pin a release instead, set BENCHGATE_VERSION in both workflows to a tag such as v1.2.3"
		if modified == "true" {
			note += "; the build has uncommitted changes, which the pinned commit lacks"
		}
		return pin{Version: rev, Note: note}
	}
	return pin{Version: unpinned, Note: "this build records no version or commit (" + line + "): set BENCHGATE_VERSION in .github/workflows/verify.yml and leaderboard.yml to a benchgate release tag such as v1.2.3 before pushing; until then they fail at the install step"}
}

// unpinned is BENCHGATE_VERSION when init knows no version: go install
// refuses it, naming it, so the workflow fails at once and says what to set.
const unpinned = "SET-A-BENCHGATE-VERSION"
