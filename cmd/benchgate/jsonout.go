package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/generate"
	"github.com/benchgate/benchgate/importer"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// The --format json outputs of generate, submit and import: one JSON
// object on stdout, in the shapes README.md documents, with what the text
// output says; progress and errors stay on stderr.

// writeJSON writes v indented, with <, > and & as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// generateJSON is generate's --format json output.
type generateJSON struct {
	Output     string      `json:"output"`
	Benchmark  string      `json:"benchmark"`
	Model      string      `json:"model"`
	Questions  int         `json:"questions"`
	Skipped    int         `json:"skipped"`  // already done in the output resumed
	Answered   int         `json:"answered"` // in this run
	Failed     int         `json:"failed"`
	NoAnswer   int         `json:"no_answer"`  // of failed: cut at the token limit before any answer
	Cut        int         `json:"cut"`        // of failed: rubric answers cut mid-answer
	Unanswered int         `json:"unanswered"` // of failed: refused, filtered or empty
	Exhausted  int         `json:"exhausted"`  // of failed: the endpoint failed on every attempt
	Fallback   int         `json:"fallback"`   // answered from the reasoning text
	SpendUSD   float64     `json:"spend_usd"`
	Unpriced   int         `json:"unpriced"`
	Causes     []causeJSON `json:"causes"`
	Next       string      `json:"next,omitempty"`  // what to do next, as the text output says it
	Error      string      `json:"error,omitempty"` // why the run stopped early
}

type causeJSON struct {
	Text  string `json:"text"`
	Calls int    `json:"calls"`
	Again bool   `json:"again"` // asking again as it is would fail again
}

func newGenerateJSON(output, key, model string, s generate.Summary) generateJSON {
	g := generateJSON{
		Output: output, Benchmark: key, Model: model,
		Questions: s.Questions, Skipped: s.Skipped, Answered: s.Done, Failed: s.Failed,
		NoAnswer: s.NoAnswer, Cut: s.Cut, Unanswered: s.Unanswered, Exhausted: s.Exhausted, Fallback: s.Fallback,
		SpendUSD: s.SpendUSD, Unpriced: s.Unpriced, Causes: []causeJSON{},
	}
	for _, c := range s.Causes {
		g.Causes = append(g.Causes, causeJSON{c.Text, c.Calls, c.Again})
	}
	return g
}

// submitJSON is submit's --format json output.
type submitJSON struct {
	Folder   string          `json:"folder"` // from the root: submissions/<track>-benchmark/<slug>
	Path     string          `json:"path"`   // as written, from the working directory
	Passed   bool            `json:"passed"`
	Removed  bool            `json:"removed"`  // it did not pass, so the folder was taken back
	Restored bool            `json:"restored"` // and the folder --force replaced put back
	Replaced bool            `json:"replaced"` // --force replaced a former folder
	Verify   json.RawMessage `json:"verify"`   // verify --format json's report of the folder
	// PullRequest is how to open the pull request, when it passed.
	PullRequest *pullRequestJSON `json:"pull_request,omitempty"`
}

type pullRequestJSON struct {
	Branch string `json:"branch"`
	Title  string `json:"title"`
	Author string `json:"author"` // the login that must open it: meta.json's submitter
	Steps  string `json:"steps"`  // the commands, as the text output gives them
}

// importJSON is import's --format json output.
type importJSON struct {
	Benchmark   string          `json:"benchmark"`
	Kind        benchmark.Kind  `json:"kind"`
	DryRun      bool            `json:"dry_run"` // nothing was written
	Submissions []importedJSON  `json:"submissions"`
	Verify      json.RawMessage `json:"verify"`  // verify --format json's report of them
	ToFill      int             `json:"to_fill"` // of those failing, how many fail only on placeholders to fill in
	Hint        string          `json:"hint,omitempty"`
}

type importedJSON struct {
	Model   string   `json:"model"` // as the source names it
	Folder  string   `json:"folder"`
	Path    string   `json:"path,omitempty"` // as written; absent in a dry run
	Status  string   `json:"status"`         // verify's: pass, fail or review
	Rows    int      `json:"rows"`
	Missing []string `json:"missing"` // meta.json fields a maintainer must fill in
	// Multiple choice: correct answers as re-read, the source's own count
	// (null when it gives none), disputes, responses stored cut short and
	// how many of those decide no letter.
	Correct          *int      `json:"correct,omitempty"`
	PublishedCorrect *int      `json:"published_correct,omitempty"`
	Disputes         *[]string `json:"disputes,omitempty"` // [] when none
	Truncated        *int      `json:"truncated,omitempty"`
	Undecidable      *int      `json:"undecidable,omitempty"`
	// Rubric: rows with a score, and their mean.
	Scored *int     `json:"scored,omitempty"`
	Mean   *float64 `json:"mean,omitempty"`
}

func newImportJSON(f *importFlags, b *benchmark.Benchmark, runs []*importer.Run, folders []submission.Folder, results []verify.Result, report verify.Report, toFill int) (importJSON, error) {
	var rep bytes.Buffer
	if err := verify.Render(&rep, "json", report); err != nil {
		return importJSON{}, err
	}
	out := importJSON{Benchmark: b.Entry.Key, Kind: b.Entry.Kind, DryRun: f.dryRun, Submissions: []importedJSON{},
		Verify: json.RawMessage(bytes.TrimSpace(rep.Bytes())), ToFill: toFill, Hint: f.hint}
	for i, r := range runs {
		s := importedJSON{Model: r.Model, Folder: folders[i].String(), Status: string(results[i].Status), Missing: append([]string{}, r.Missing...)}
		if !f.dryRun {
			s.Path = filepath.Join(f.root, filepath.FromSlash(s.Folder))
		}
		if b.Entry.Kind == benchmark.KindRubric {
			s.Rows, s.Scored, s.Mean = len(r.Rubric), &r.Scored, results[i].Summary.Mean
		} else {
			s.Rows, s.Correct, s.Truncated, s.Undecidable = len(r.Records), &r.Correct, &r.Truncated, &r.Undecidable
			if r.PublishedCorrect >= 0 {
				s.PublishedCorrect = &r.PublishedCorrect
			}
			disputes := []string{}
			for _, d := range r.Disputes {
				disputes = append(disputes, d.String())
			}
			s.Disputes = &disputes
		}
		out.Submissions = append(out.Submissions, s)
	}
	return out, nil
}
