package main

import (
	"encoding/json"
	"io"

	"github.com/benchgate/benchgate/generate"
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
