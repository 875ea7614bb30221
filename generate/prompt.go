// Package generate asks a candidate model every question of a benchmark
// and writes what benchgate verify accepts, in the formats that package
// submission owns: the Groundtruth answers array for a rubric benchmark
// (to be graded by `benchgate score`), or the scored rows of a
// multiple-choice benchmark. Runs are concurrent, resumable and never
// lose a row: a failed call is a row that says so.
package generate

import (
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/llm"
)

// The built-in prompt forms, named in the registry's "prompt" field
// (benchmark.BuiltinPrompts lists them by kind).
const (
	// PromptFormationEval asks for a single letter, as FormationEval's
	// evaluation did.
	PromptFormationEval = "formationeval"
	// PromptAnswerLine asks for the answer on a line "ANSWER: <letter>", as
	// UpstreamBench's evaluation did.
	PromptAnswerLine = "answer-line"
	// PromptOpenAnswer asks an open question for an answer in prose.
	PromptOpenAnswer = "open-answer"
)

// builtins are the texts of the built-in forms, in the format of a
// benchmark's prompt file (see benchmark.ParsePrompt), so that a form
// and a benchmark's own prompt are asked the same way.
var builtins = map[string]*benchmark.Prompt{
	PromptFormationEval: benchmark.MustParsePrompt(benchmark.UseMCQ, PromptFormationEval, `=== system ===
You are taking a multiple-choice exam on Oil & Gas geoscience. Answer with a single letter: A, B, C or D.
=== user ===
{{question}}

{{choices}}

Answer:
`),
	PromptAnswerLine: benchmark.MustParsePrompt(benchmark.UseMCQ, PromptAnswerLine, `=== system ===
You are an expert geoscientist answering a four-choice question. Exactly one choice is correct.
=== user ===
{{question}}

{{choices}}

Think the question through, then give your answer on the last line in the form `+"`ANSWER: <letter>`"+`, where <letter> is A, B, C or D.
`),
	PromptOpenAnswer: benchmark.MustParsePrompt(benchmark.UseRubric, PromptOpenAnswer, `=== system ===
You are an expert geoscientist. Answer the question as a specialist would: reason from the evidence, state what it does and does not establish, and be specific. Answer in prose.
=== user ===
{{question}}
`),
}

// PromptForm returns the name of the built-in form that asks the
// questions of benchmark e when it has no prompt file of its own: the
// registry's choice, or else, for an mcq benchmark, the one its
// extraction policy reads best.
func PromptForm(e benchmark.Entry) string {
	switch {
	case e.Prompt != "":
		return e.Prompt
	case e.Kind == benchmark.KindRubric:
		return PromptOpenAnswer
	case e.Extraction == "formationeval-v0.1":
		return PromptFormationEval
	}
	return PromptAnswerLine
}

// PromptFor returns the prompt that asks the questions of benchmark e:
// its own prompt file when the registry names one, else its built-in
// form.
func PromptFor(e benchmark.Entry) *benchmark.Prompt {
	if e.AskPrompt != nil {
		return e.AskPrompt
	}
	if p := builtins[PromptForm(e)]; p != nil {
		return p
	}
	// The registry admits no other name (its schema and LoadRegistry);
	// an Entry made by hand with one is asked with its kind's default.
	return builtins[PromptForm(benchmark.Entry{Kind: e.Kind, Extraction: e.Extraction})]
}

// MCQMessages builds the messages that ask one four-choice question with
// prompt p (a PromptFor).
func MCQMessages(p *benchmark.Prompt, it *benchmark.Item) []llm.Message {
	return messages(p, func(name string) string {
		switch name {
		case "id":
			return it.ID
		case "question":
			return it.Question
		case "choices":
			var b strings.Builder
			for i, c := range it.Choices {
				fmt.Fprintf(&b, "%c) %s\n", benchmark.Letters[i], c)
			}
			return strings.TrimSuffix(b.String(), "\n")
		case "choice_a", "choice_b", "choice_c", "choice_d":
			if i := int(name[len(name)-1] - 'a'); i < len(it.Choices) {
				return it.Choices[i]
			}
			return ""
		}
		panic("generate: no value for mcq placeholder " + name) // TestEveryPlaceholderHasAValue
	})
}

// RubricMessages builds the messages that ask one open question with
// prompt p (a PromptFor).
func RubricMessages(p *benchmark.Prompt, q *benchmark.RubricQuestion) []llm.Message {
	return messages(p, func(name string) string {
		switch name {
		case "id":
			return q.ID
		case "title":
			return q.Title
		case "question":
			return q.Text
		}
		panic("generate: no value for rubric placeholder " + name) // TestEveryPlaceholderHasAValue
	})
}

func messages(p *benchmark.Prompt, value func(string) string) []llm.Message {
	var out []llm.Message
	for _, m := range p.Render(value) {
		out = append(out, llm.Message{Role: m.Role, Content: m.Content})
	}
	return out
}
