package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/benchgate/benchgate"
	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/safetext"
)

// placeholderTeam is the CODEOWNERS owner init writes when --maintainers
// is not given: GitHub reports it as unknown, which is the reminder.
const placeholderTeam = "@YOUR-ORG/leaderboard-maintainers"

var (
	keyRe  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	teamRe = regexp.MustCompile(`^@[A-Za-z0-9-]+(/[A-Za-z0-9._-]+)?$`)
)

func runInit(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("init", initUsage, stderr)
	file := fl.String("benchmark", "", "the benchmark file to publish (a rubric .json or an MCQ .jsonl)")
	key := fl.String("key", "", "the benchmark's registry key, as submissions name it in rubric_key")
	kind := fl.String("kind", "", "mcq or rubric (default: read from the file)")
	judge := fl.String("judge", "", "the fixed judge model of a rubric benchmark, e.g. openai/gpt-5.5")
	extraction := fl.String("extraction", "", "the letter-extraction policy of an MCQ benchmark (default "+benchmark.DefaultExtraction+")")
	label := fl.String("label", "", "the benchmark's name on the leaderboard (default: the key)")
	description := fl.String("description", "", "what the benchmark is, shown on the leaderboard")
	license := fl.String("license", "", "the benchmark's licence as an SPDX identifier or expression, e.g. CC-BY-4.0, shown with its description and URL as its attribution")
	webURL := fl.String("url", "", "the http or https address where the benchmark is published, linked from the leaderboard")
	maintainers := fl.String("maintainers", "", "the GitHub team or user that owns .github/, rubrics/ and leaderboard/ in CODEOWNERS, e.g. @org/team")
	source := fl.String("source", "", "the git repository (https) the workflows build benchgate from (default "+defaultSource+")")
	sourceCommit := fl.String("source-commit", "", "the full commit SHA of benchgate's source the workflows build (default: the commit this benchgate was built from)")
	format := fl.String("format", "text", "output format: text or json")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if err := oneOf(*format, []string{"text", "json"}); err != nil {
		return usageError(fl, err)
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
	if d := *description; strings.IndexFunc(d, safetext.Hidden) >= 0 || strings.ContainsAny(d, "\r\n") {
		return usageError(fl, errors.New("--description: write it as plain text on one line, with no control or direction-override character; the board and its README show it as written"))
	}
	p, err := pinFor(buildInfo(), *source, *sourceCommit)
	if err != nil {
		return usageError(fl, err)
	}
	dir := pos[0]
	if err := checkEmpty(dir); err != nil {
		return err
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		return fmt.Errorf("reading the benchmark: %v", err)
	}
	opts := boardOptions{Key: *key, Kind: benchmark.Kind(*kind), Judge: *judge, Extraction: *extraction, Label: *label,
		Description: strings.TrimSpace(*description), License: strings.TrimSpace(*license), URL: strings.TrimSpace(*webURL),
		Maintainers: *maintainers, Pin: p}
	opts.BenchmarkFile = "rubrics/" + *key + strings.ToLower(filepath.Ext(*file))
	if opts.Kind == "" {
		opts.Kind = benchmark.Sniff(data)
	}
	files, err := newBoard(opts, data)
	if err != nil {
		return err
	}
	// The registry's own checks of the attribution, named by the flag
	// that gave the value.
	if _, found := benchmark.LoadRegistry(files); len(found) > 0 {
		for _, f := range found {
			if flagName, ok := attributionFlags[f.Code]; ok {
				return usageError(fl, fmt.Errorf("--%s: %s", flagName, f.Message))
			}
		}
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
	res := initResult{Warnings: []string{}, Dir: dir, Benchmark: *key, Kind: string(opts.Kind), Benchgate: p, Files: sortedNames(files),
		Next: fmt.Sprintf("cd %s && git init && git add . && git commit -m 'New leaderboard', push it to GitHub and enable Pages (Settings → Pages → Source: GitHub Actions); docs/actions.md in benchgate explains the workflows", dir)}
	if opts.Maintainers == "" {
		res.Warnings = append(res.Warnings, fmt.Sprintf(".github/CODEOWNERS names the placeholder %s; replace it with your maintainers' team (or run init with --maintainers @org/team)", placeholderTeam))
	}
	if p.Warning != "" {
		res.Warnings = append(res.Warnings, p.Warning)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(stdout, "Created the leaderboard repository %s with the benchmark %s (%s).\n", dir, *key, opts.Kind)
	for _, w := range res.Warnings {
		fmt.Fprintln(stderr, "benchgate init: warning: "+w)
	}
	fmt.Fprintln(stderr, "benchgate init: "+p.Note)
	fmt.Fprintf(stdout, "Next: %s.\n", res.Next)
	return nil
}

const initUsage = "DIR --benchmark FILE --key KEY [--kind mcq|rubric] [--judge MODEL] [--extraction POLICY] [--label TEXT] [--description TEXT] [--license SPDX] [--url URL] [--maintainers @org/team] [--source URL] [--source-commit SHA] [--format text|json]"

// attributionFlags maps the registry's findings on an entry's attribution
// to the init flag that gave the value.
var attributionFlags = map[string]string{"registry.license": "license", "registry.url": "url"}

// initResult is what init reports with --format json: the folder, the
// benchmark, the files written, what the workflows build, the warnings
// and the next step.
type initResult struct {
	Dir       string   `json:"dir"`
	Benchmark string   `json:"benchmark"`
	Kind      string   `json:"kind"`
	Benchgate pin      `json:"benchgate"`
	Files     []string `json:"files"`
	Warnings  []string `json:"warnings"`
	Next      string   `json:"next"`
}

func sortedNames(files fstest.MapFS) []string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
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
	Description, License, URL     string // the attribution the page shows
	Kind                          benchmark.Kind
	BenchmarkFile                 string // path from the root
	Maintainers                   string // "" for the placeholder
	Pin                           pin
}

// registryEntry is a registry entry as init writes it.
type registryEntry struct {
	Key         string         `json:"key"`
	Label       string         `json:"label"`
	Description string         `json:"description,omitempty"`
	License     string         `json:"license,omitempty"`
	URL         string         `json:"url,omitempty"`
	File        string         `json:"file"`
	Kind        string         `json:"kind"`
	JudgeModel  string         `json:"judge_model,omitempty"`
	Judge       *judgeContract `json:"judge,omitempty"`
	Extraction  string         `json:"extraction,omitempty"`
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
	entry := registryEntry{Key: o.Key, Label: o.Label, Description: o.Description, License: o.License, URL: o.URL, File: o.BenchmarkFile, Kind: string(o.Kind)}
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
		".gitignore":                        {Data: []byte(gitignore()), Mode: 0o644},
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

// ignored is what a board's .gitignore keeps out of its commits: what
// benchgate writes in a checkout that is not the board's content. The
// records a maintainer commits (acceptances/, reproductions/, a rubric's
// calibration record) and submissions/ are not matched; benchgate's caches
// live outside the checkout (BENCHGATE_CACHE_DIR, else the user's cache
// folder).
var ignored = []struct{ Pattern, Why string }{
	{"/leaderboard/", "The published pages: .github/workflows/leaderboard.yml builds them from the\n# submissions on each push. Delete this line if the benchgate App commits\n# them here instead."},
	{"/*.*.json", "benchgate generate's answers, KEY.MODEL.json by default, before they become a\n# submission (benchgate submit copies them into submissions/)."},
	{"/scores.json", "benchgate score's output by default, before benchgate submit copies it."},
	{"*.ledger.jsonl", "Cost ledgers of generate and score: what each call to a model cost."},
	{"/.benchgate-replaced-*/", "What benchgate submit --force leaves if it is stopped while replacing a\n# submission folder."},
}

func gitignore() string {
	var b strings.Builder
	b.WriteString("# What benchgate writes in a checkout that is not the leaderboard's content.\n")
	for _, ig := range ignored {
		fmt.Fprintf(&b, "\n# %s\n%s\n", ig.Why, ig.Pattern)
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
	fmt.Fprintf(&b, "Results of the benchmark `%s` (`%s`, a %s benchmark), checked by [benchgate](%s).\n", o.Key, o.BenchmarkFile, o.Kind, sourcePage(o.Pin))
	if o.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", o.Description)
	}
	switch {
	case o.URL != "" && o.License != "":
		fmt.Fprintf(&b, "\nThe benchmark is published at %s under the licence %s.\n", o.URL, o.License)
	case o.URL != "":
		fmt.Fprintf(&b, "\nThe benchmark is published at %s.\n", o.URL)
	case o.License != "":
		fmt.Fprintf(&b, "\nThe benchmark's licence: %s.\n", o.License)
	}
	b.WriteString("\n## Install benchgate\n\n")
	b.WriteString(installText(o.Pin))
	b.WriteString("\n")
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

// defaultSource is the repository the workflows build benchgate from
// when init is not given --source.
const defaultSource = "https://github.com/benchgate/benchgate.git"

// pin is the benchgate the generated workflows run: a commit of its
// source, built in the job, or a published version go install takes.
type pin struct {
	Source  string `json:"source,omitempty"`  // git repository, https
	Commit  string `json:"commit,omitempty"`  // full SHA; "" for a published version
	Version string `json:"version,omitempty"` // what go install takes after '@', when Commit is ""
	Note    string `json:"note"`              // for the person running init: what was pinned and why
	// Warning says what the pin lacks of the running build: its
	// uncommitted changes. Reported with init's other warnings.
	Warning string `json:"-"`
}

var commitRe = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// pinFor decides what the workflows run: the commit given, else the
// commit the running build records, else the module version go install
// stamped (a binary that records no commit came from the module proxy,
// where that version is published). A build that records neither is
// refused: a workflow that installs nothing that exists fails on every
// pull request.
func pinFor(bi *debug.BuildInfo, source, commit string) (pin, error) {
	if source != "" {
		if err := checkSource(source); err != nil {
			return pin{}, err
		}
	}
	line := versionLine(bi)
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
	src := source
	if src == "" {
		src = defaultSource
	}
	switch {
	case commit != "":
		if !commitRe.MatchString(commit) {
			return pin{}, fmt.Errorf("--source-commit %q: give the full commit SHA, 40 lower-case hex digits as `git rev-parse HEAD` prints it (a branch, tag or short SHA can move or become ambiguous)", commit)
		}
		return pin{Source: src, Commit: commit, Note: "the workflows build benchgate from commit " + commit + " of " + src}, nil
	case rev != "":
		p := pin{Source: src, Commit: rev, Note: "the workflows build benchgate from commit " + rev + " of " + src + ", the commit this benchgate was built from (" + line + "); --source-commit SHA pins another, --source URL another repository"}
		if modified == "true" {
			p.Warning = "this benchgate was built with uncommitted changes, which commit " + rev + " lacks: the workflows build the commit; commit and push the changes and run init again, or pass --source-commit"
		}
		return p, nil
	case source == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" && !strings.Contains(bi.Main.Version, "+"):
		return pin{Version: bi.Main.Version, Note: "the workflows install benchgate " + bi.Main.Version + ", the version running (" + line + "), with go install"}, nil
	}
	return pin{}, fmt.Errorf("this benchgate records no commit it was built from (%s), so init cannot pin the workflows to it: pass --source-commit SHA, the full commit of benchgate's source to build (`git rev-parse HEAD` in a benchgate checkout), and --source URL when that commit is not in %s", line, defaultSource)
}

// checkSource accepts an https repository address a workflow can fetch
// without credentials and hold in a quoted YAML string: printable ASCII
// (anything else is percent-encoded in an address), no quote, backslash
// or shell character.
func checkSource(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Scheme != "https" || u.Host == "" || strings.ContainsAny(s, "\"'\\`$<>") || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0:
		return fmt.Errorf("--source %q: give the https address of a git repository of benchgate's source, like %s", s, defaultSource)
	case u.User != nil:
		return fmt.Errorf("--source %q: the address holds credentials, which would be written into the workflows; give a public address", s)
	}
	return nil
}

// sourcePage is the web page of the source the board's README links.
func sourcePage(p pin) string {
	if p.Source == "" {
		return strings.TrimSuffix(defaultSource, ".git")
	}
	return strings.TrimSuffix(p.Source, ".git")
}

// installText tells a board's contributors how to install the benchgate
// its workflows run, the way they run it.
func installText(p pin) string {
	if p.Commit == "" {
		return fmt.Sprintf("With Go 1.26 or later:\n\n```sh\ngo install github.com/benchgate/benchgate/cmd/benchgate@%s\n```\n\nThis is the version `.github/workflows/` runs.\n", p.Version)
	}
	return fmt.Sprintf("`.github/workflows/` build benchgate from commit `%s` of %s; build the same with Go 1.26 or later:\n\n```sh\ngit clone %s benchgate-src\ngit -C benchgate-src checkout %s\n(cd benchgate-src && go build -o \"$(go env GOPATH)/bin/benchgate\" ./cmd/benchgate)\nbenchgate version\n```\n", p.Commit, p.Source, p.Source, p.Commit)
}
