package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/benchgate/benchgate/benchmark"
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

func (o *optionalBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	o.v = &b
	return nil
}

func runSubmit(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("submit", "--rubric KEY --slug SLUG --scores FILE [--track model|harness] --model-name N --model-id ID --submitter S --contact URL", stderr)
	root := fl.String("root", ".", "the leaderboard repository (a clone of it)")
	key := fl.String("rubric", "", "the benchmark's key in rubrics/rubrics.json")
	slug := fl.String("slug", "", "the submission folder's name: "+submission.SlugPattern)
	scores := fl.String("scores", "", "the scores.json of the run (copied unchanged)")
	track := fl.String("track", "model", "model (a model answering directly) or harness (a harness around the benchmark's pinned model)")
	m := &submission.Meta{}
	fl.StringVar(&m.ModelName, "model-name", "", "display name of the model")
	fl.StringVar(&m.CandidateModelID, "model-id", "", "the model's id at its provider, e.g. qwen/qwen3-32b")
	fl.StringVar(&m.Submitter, "submitter", "", "your handle or organisation")
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
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 {
		return fmt.Errorf("unexpected argument %q", pos[0])
	}
	m.OpenWeights, m.PriceInput, m.PriceOutput, m.Temperature = open.v, priceIn.v, priceOut.v, temp.v
	if *maxTokens > 0 {
		m.MaxTokens = maxTokens
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"rubric", *key}, {"slug", *slug}, {"scores", *scores}, {"model-name", m.ModelName}, {"model-id", m.CandidateModelID}, {"submitter", m.Submitter}, {"contact", m.ContactOrRepo}} {
		if f.v == "" {
			missing = append(missing, "--"+f.name)
		}
	}
	if len(missing) > 0 {
		return usageError(fl, fmt.Errorf("missing %v", missing))
	}
	tr, err := submission.ParseTrack(*track)
	if err != nil {
		return fmt.Errorf("--track: %v", err)
	}
	if !submission.ValidSlug(*slug) {
		return fmt.Errorf("slug %q is not valid: use %s", *slug, submission.SlugRule)
	}
	reg, regFindings := benchmark.LoadRegistry(boardFS(*root))
	if reg == nil {
		return fmt.Errorf("%v", regFindings)
	}
	e, ok := reg.Lookup(*key)
	if !ok {
		return fmt.Errorf("no benchmark %q in %s; known: %v", *key, benchmark.RegistryFile, reg.Keys())
	}
	m.RubricKey = e.Key
	if e.Kind == benchmark.KindRubric {
		m.JudgeModel = e.JudgeModel
	}
	data, err := os.ReadFile(*scores)
	if err != nil {
		return err
	}
	folder := submission.NewFolder(tr, *slug)
	dir, err := submission.Create(*root, folder, m, data)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; choose another --slug, or remove it to replace it", dir)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n\n", dir)
	rel := folder.String()
	v, err := verify.New(boardFS(*root), verify.Options{})
	if err != nil {
		return err
	}
	report := verify.NewReport([]verify.Result{v.Verify(rel)})
	verify.Render(stdout, "text", report)
	if report.Failed > 0 {
		fmt.Fprintf(stdout, "\nThe submission does not pass yet: fix what is listed above, then run `benchgate verify %s` again.\n", rel)
		return exitWith(exitFail)
	}
	branch := "submit/" + *slug
	fmt.Fprintf(stdout, "\nTo open the pull request:\n\n  git checkout -b %s\n  git add %s\n  git commit -m %q\n  git push -u origin %s\n\nthen open a pull request from %s on the leaderboard's repository.\n",
		branch, rel, fmt.Sprintf("Add %s on %s", m.ModelName, e.Key), branch, branch)
	return nil
}
