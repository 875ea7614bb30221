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

// The prompt forms of multiple-choice benchmarks, named in the registry's
// "prompt" field.
const (
	// PromptFormationEval asks for a single letter, as FormationEval's
	// evaluation did.
	PromptFormationEval = "formationeval"
	// PromptAnswerLine asks for the answer on a line "ANSWER: <letter>", as
	// UpstreamBench's evaluation did.
	PromptAnswerLine = "answer-line"
)

// PromptForm returns the prompt form of an mcq benchmark: the registry's
// choice, or else the one its extraction policy reads best.
func PromptForm(e benchmark.Entry) string {
	if e.Prompt != "" {
		return e.Prompt
	}
	if e.Extraction == "formationeval-v0.1" {
		return PromptFormationEval
	}
	return PromptAnswerLine
}

// MCQMessages builds the messages that ask one four-choice question.
func MCQMessages(form string, it *benchmark.Item) []llm.Message {
	var b strings.Builder
	b.WriteString(it.Question)
	b.WriteString("\n\n")
	for i, c := range it.Choices {
		fmt.Fprintf(&b, "%c) %s\n", benchmark.Letters[i], c)
	}
	switch form {
	case PromptFormationEval:
		b.WriteString("\nAnswer:")
		return []llm.Message{
			{Role: "system", Content: "You are taking a multiple-choice exam on Oil & Gas geoscience. Answer with a single letter: A, B, C or D."},
			{Role: "user", Content: b.String()},
		}
	default:
		b.WriteString("\nThink the question through, then give your answer on the last line in the form `ANSWER: <letter>`, where <letter> is A, B, C or D.")
		return []llm.Message{
			{Role: "system", Content: "You are an expert geoscientist answering a four-choice question. Exactly one choice is correct."},
			{Role: "user", Content: b.String()},
		}
	}
}

// RubricMessages builds the messages that ask one open question.
func RubricMessages(r *benchmark.Rubric, q *benchmark.RubricQuestion) []llm.Message {
	return []llm.Message{
		{Role: "system", Content: "You are an expert geoscientist. Answer the question as a specialist would: reason from the evidence, state what it does and does not establish, and be specific. Answer in prose."},
		{Role: "user", Content: q.Text},
	}
}
