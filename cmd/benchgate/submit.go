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
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// optionalFloat is a flag that may be left unset.
type optionalFloat struct{ v *float64 }

func (o *optionalFloat) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatFloat(*o.v, 'g', -1, 64)
}

func (o *optionalFloat) argName() string { return "number" }

func (o *optionalFloat) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("not a number")
	}
	o.v = &f
	return nil
}

// optionalBool is a boolean flag that may be left unset.
type optionalBool struct{ v *bool }

func (o *optionalBool) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatBool(*o.v)
}

func (o *optionalBool) argName() string { return "true|false" }

func (o *optionalBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	o.v = &b
	return nil
}

func runSubmit(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("submit", "--benchmark KEY --slug SLUG --scores FILE [--track model|harness] --model-name N --model ID --submitter LOGIN --contact URL [--force] [--format text|json]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository (a clone of it)")
	key := fl.String("benchmark", "", "the benchmark's key in rubrics/rubrics.json")
	alias(fl, "rubric", "benchmark")
	slug := fl.String("slug", "", "the submission folder's name: "+submission.SlugPattern)
	scores := fl.String("scores", "", "the scores.json of the run (copied unchanged)")
	track := fl.String("track", "model", "model (a model answering directly) or harness (a harness around the benchmark's pinned model)")
	m := &submission.Meta{}
	fl.StringVar(&m.ModelName, "model-name", "", "display name of the model")
	fl.StringVar(&m.CandidateModelID, "model", "", "the model's id at its provider, e.g. qwen/qwen3-32b (meta.json's candidate_model_id)")
	alias(fl, "model-id", "model")
	fl.StringVar(&m.Submitter, "submitter", "", submission.SubmitterIs+" (whoever will open the pull request)")
	fl.StringVar(&m.ContactOrRepo, "contact", "", "a repository URL or a contact address")
	fl.StringVar(&m.Date, "date", time.Now().UTC().Format(time.DateOnly), "the date of the run, YYYY-MM-DD")
	fl.StringVar(&m.HarnessName, "harness-name", "", "the harness (harness track)")
	fl.StringVar(&m.HarnessRepo, "harness-repo", "", "the harness's repository (harness track)")
	fl.StringVar(&m.Notes, "notes", "", "what a reader needs to reproduce the run")
	var open optionalBool
	var priceIn, priceOut, temp optionalFloat
	fl.Var(&open, "open-weights", "true when the model's weights are openly available")
	fl.Var(&priceIn, "price-input", "USD per million input tokens")
	fl.Var(&priceOut, "price-output", "USD per million output tokens")
	fl.Var(&temp, "temperature", "the sampling temperature of the run")
	maxTokens := fl.Int("max-tokens", 0, "the max tokens of the run (0: not reported)")
	force := fl.Bool("force", false, "replace the submission folder when it exists (it is put back if the new one does not pass)")
	format := fl.String("format", "text", "output format: text, or json (one object: README.md has its fields)")
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 {
		return fmt.Errorf("unexpected argument %q", pos[0])
	}
	if err := oneOf(*format, []string{"text", "json"}); err != nil {
		return err
	}
	m.OpenWeights, m.PriceInput, m.PriceOutput, m.Temperature = open.v, priceIn.v, priceOut.v, temp.v
	if *maxTokens > 0 {
		m.MaxTokens = maxTokens
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"benchmark", *key}, {"slug", *slug}, {"scores", *scores}, {"model-name", m.ModelName}, {"model", m.CandidateModelID}, {"submitter", m.Submitter}, {"contact", m.ContactOrRepo}} {
		if f.v == "" {
			missing = append(missing, "--"+f.name)
		}
	}
	if len(missing) > 0 {
		return usageError(fl, fmt.Errorf("missing %s", strings.Join(missing, ", ")))
	}
	if _, err := submission.ParseLogin(m.Submitter); err != nil {
		return usageError(fl, fmt.Errorf("--submitter %q: %v; give %s", m.Submitter, err, submission.SubmitterIs))
	}
	tr, err := submission.ParseTrack(*track)
	if err != nil {
		return fmt.Errorf("--track: %v", err)
	}
	if !submission.ValidSlug(*slug) {
		return fmt.Errorf("slug %q is not valid: use %s", *slug, submission.SlugRule)
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	reg, err := benchmark.OpenRegistry(boardFS(root))
	if err != nil {
		return err
	}
	e, ok := reg.Lookup(*key)
	if !ok {
		return registryPath(root, &benchmark.KeyError{Key: *key, Known: reg.Keys()})
	}
	m.RubricKey = e.Key
	if e.Kind == benchmark.KindRubric {
		m.JudgeModel = e.JudgeModel
	}
	data, err := os.ReadFile(*scores)
	if err != nil {
		return fmt.Errorf("--scores: %v", err)
	}
	// A file of another kind is named in one line before anything is
	// written; any other problem of the file is verify's to list.
	if doc, err := jsondoc.Parse(data, jsondoc.Limits{}); err == nil {
		if msg := verify.ShapeProblem(*scores, submission.SniffShape(doc), e.Key, e.Kind); msg != "" {
			return errors.New(msg)
		}
	}
	folder := submission.NewFolder(tr, *slug)
	rel := folder.String()
	dir := filepath.Join(root, filepath.FromSlash(rel))
	var old *asideFolder // the folder --force replaces
	if *force {
		if old, err = setAside(root, dir); err != nil {
			return err
		}
	}
	if _, err := submission.Create(root, folder, m, data); err != nil {
		if old != nil {
			if rerr := old.restore(); rerr != nil {
				return fmt.Errorf("%v; %v", err, rerr)
			}
		}
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; choose another --slug, or pass --force to replace it", dir)
		}
		return err
	}
	// A submit that fails takes back the folder it wrote, so that the
	// same command can be run again once the input is fixed.
	undo := func() {
		os.RemoveAll(dir)
		if old != nil {
			if err := old.restore(); err != nil {
				fmt.Fprintf(stderr, "benchgate submit: %v\n", err)
			}
		}
	}
	text := *format == "text"
	if text {
		fmt.Fprintf(stdout, "wrote %s\n\n", dir)
	}
	v, err := verify.New(boardFS(root), verify.Options{})
	if err != nil {
		undo()
		return err
	}
	report := verify.NewReport([]verify.Result{v.Verify(rel)})
	out := submitJSON{Folder: rel, Path: dir, Passed: report.Failed == 0}
	var verified bytes.Buffer
	verify.Render(&verified, *format, report)
	if text {
		stdout.Write(verified.Bytes())
	} else {
		out.Verify = json.RawMessage(bytes.TrimSpace(verified.Bytes()))
	}
	if report.Failed > 0 {
		undo()
		out.Removed, out.Restored = true, old != nil
		if !text {
			if err := writeJSON(stdout, out); err != nil {
				return err
			}
			return exitWith(exitFail)
		}
		back := ""
		if old != nil {
			back = ", and the folder it replaced put back"
		}
		fmt.Fprintf(stdout, "\nThe submission does not pass, so %s was removed%s. Fix what is listed above (in %s, or the flags), then run the same benchgate submit again.\n", dir, back, *scores)
		return exitWith(exitFail)
	}
	if old != nil {
		if err := old.discard(); err != nil {
			fmt.Fprintf(stderr, "benchgate submit: the replaced folder: %v\n", err)
		}
		out.Replaced = true
		if text {
			fmt.Fprintf(stdout, "\nreplaced the former %s\n", rel)
		}
	}
	pr := pullRequestJSON{Branch: "submit/" + *slug, Title: fmt.Sprintf("Add %s on %s", m.ModelName, e.Key), Author: m.Submitter}
	steps := pullRequestSteps(pr.Branch, rel, pr.Title, pr.Author)
	if text {
		fmt.Fprint(stdout, steps)
		return nil
	}
	pr.Steps = strings.TrimSpace(steps)
	out.PullRequest = &pr
	return writeJSON(stdout, out)
}

// pullRequestSteps are submit's closing instructions: commit the folder
// on a branch, then open the pull request from a fork, as a contributor
// without write access to the leaderboard's repository must, or from a
// branch of it for one who has.
func pullRequestSteps(branch, folder, title, login string) string {
	return fmt.Sprintf(`
To open the pull request, commit the folder on a branch:

  git checkout -b %[1]s
  git add %[2]s
  git commit -m %[3]q

then, from a fork of the leaderboard's repository (without write access to it), with the GitHub CLI:

  gh repo fork --remote --remote-name fork
  git push -u fork %[1]s
  gh pr create --head %[4]s:%[1]s --title %[3]q --body "benchgate verify passes."

or without it: fork the repository on GitHub, then git remote add fork https://github.com/%[4]s/REPO.git,
push as above and open the pull request from the link that git push prints.
With write access to the repository: git push -u origin %[1]s, then gh pr create --title %[3]q.
The pull request's author must be %[4]s, the submitter meta.json names.
`, branch, folder, title, login)
}

// asideFolder is a submission folder that --force moved out of the way.
type asideFolder struct{ dir, tmp string }

// setAside moves the existing submission folder dir out of submissions/,
// into a hidden folder of root (the same file system, so a rename), for
// --force; nil when there is none.
func setAside(root, dir string) (*asideFolder, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(root, ".benchgate-replaced-")
	if err != nil {
		return nil, fmt.Errorf("--force: %v", err)
	}
	if err := os.Rename(dir, filepath.Join(tmp, "old")); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("--force: cannot move %s aside: %v", dir, err)
	}
	return &asideFolder{dir, tmp}, nil
}

// restore puts the folder back in place of whatever is at its path.
func (a *asideFolder) restore() error {
	os.RemoveAll(a.dir)
	if err := os.Rename(filepath.Join(a.tmp, "old"), a.dir); err != nil {
		return fmt.Errorf("cannot put the former %s back (it is in %s): %v", a.dir, a.tmp, err)
	}
	return os.Remove(a.tmp)
}

// discard removes the folder for good, once its replacement passed.
func (a *asideFolder) discard() error { return os.RemoveAll(a.tmp) }
