package generate

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/golden"
	"github.com/benchgate/benchgate/llm"
)

// TestBuiltinFormsGolden: the built-in forms, byte for byte, as they ask
// a four-choice and an open question.
func TestBuiltinFormsGolden(t *testing.T) {
	it := &benchmark.Item{ID: "x1", Question: "Which rock makes the best top seal?", Choices: [4]string{"Shale", "Sandstone", "Conglomerate", "Fractured limestone"}}
	q := &benchmark.RubricQuestion{ID: "Q1", Title: "Seals", Text: "What controls the column height a shale seal holds?\n"}
	var b strings.Builder
	for _, name := range []string{PromptAnswerLine, PromptFormationEval, PromptOpenAnswer} {
		msgs := MCQMessages
		if builtins[name].Use == benchmark.UseRubric {
			msgs = func(p *benchmark.Prompt, _ *benchmark.Item) []llm.Message { return RubricMessages(p, q) }
		}
		b.WriteString("######## " + name + "\n")
		for _, m := range msgs(builtins[name], it) {
			b.WriteString("======== " + m.Role + "\n" + m.Content + "\n======== end " + m.Role + "\n")
		}
	}
	golden.Check(t, "builtin-forms.txt", []byte(b.String()))
}

// TestBuiltinFormsAreTheRegistrys: each form the registry may name has a
// text here, for a benchmark of its kind, and each kind's default is one.
func TestBuiltinFormsAreTheRegistrys(t *testing.T) {
	n := 0
	for kind, names := range benchmark.BuiltinPrompts {
		use := benchmark.UseMCQ
		if kind == benchmark.KindRubric {
			use = benchmark.UseRubric
		}
		for _, name := range names {
			n++
			if p := builtins[name]; p == nil || p.Use != use || p.Name != name {
				t.Errorf("%s form %q has no text of its use", kind, name)
			}
		}
		if def := PromptForm(benchmark.Entry{Kind: kind}); builtins[def] == nil || builtins[def].Use != use {
			t.Errorf("the default form of %s benchmarks, %q, is not one of theirs", kind, def)
		}
	}
	if n != len(builtins) {
		t.Errorf("%d forms here, %d named in the registry", len(builtins), n)
	}
}

// TestPromptFor: a benchmark's own prompt file wins over the forms.
func TestPromptFor(t *testing.T) {
	own, err := benchmark.ParsePrompt(benchmark.UseMCQ, []byte("=== user ===\nQ{{id}}. {{question}}\n(a) {{choice_a}}\n(b) {{choice_b}}\n(c) {{choice_c}}\n(d) {{choice_d}}\nReply with a, b, c or d."))
	if err != nil {
		t.Fatal(err)
	}
	it := &benchmark.Item{ID: "7", Question: "Which?", Choices: [4]string{"w", "x", "y", "z"}}
	msgs := MCQMessages(PromptFor(benchmark.Entry{Kind: benchmark.KindMCQ, Prompt: "", AskPrompt: own}), it)
	if len(msgs) != 1 || msgs[0].Role != "user" || msgs[0].Content != "Q7. Which?\n(a) w\n(b) x\n(c) y\n(d) z\nReply with a, b, c or d." {
		t.Errorf("messages %q", msgs)
	}
	for _, tt := range []struct {
		e    benchmark.Entry
		want string
	}{
		{benchmark.Entry{Kind: benchmark.KindMCQ, Extraction: "formationeval-v0.1"}, PromptFormationEval},
		{benchmark.Entry{Kind: benchmark.KindMCQ, Extraction: "flexible"}, PromptAnswerLine},
		{benchmark.Entry{Kind: benchmark.KindMCQ, Extraction: "flexible", Prompt: PromptFormationEval}, PromptFormationEval},
		{benchmark.Entry{Kind: benchmark.KindRubric}, PromptOpenAnswer},
	} {
		if got := PromptFor(tt.e); got != builtins[tt.want] {
			t.Errorf("%+v is asked with %s, want %s", tt.e, got.Name, tt.want)
		}
	}
}

// TestEveryPlaceholderHasAValue: generate fills every name an mcq or
// rubric prompt may hold (benchmark.Placeholders).
func TestEveryPlaceholderHasAValue(t *testing.T) {
	it := &benchmark.Item{ID: "7", Question: "Which?", Choices: [4]string{"w", "x", "y", "z"}}
	q := &benchmark.RubricQuestion{ID: "Q1", Title: "T", Text: "Why?"}
	for use, render := range map[benchmark.PromptUse]func(*benchmark.Prompt) string{
		benchmark.UseMCQ:    func(p *benchmark.Prompt) string { return MCQMessages(p, it)[0].Content },
		benchmark.UseRubric: func(p *benchmark.Prompt) string { return RubricMessages(p, q)[0].Content },
	} {
		for _, ph := range benchmark.Placeholders(use) {
			text := "=== user ===\n[{{" + ph.Name + "}}]"
			if use == benchmark.UseMCQ {
				text += "{{question}}{{choices}}"
			} else {
				text += "{{question}}"
			}
			p, err := benchmark.ParsePrompt(use, []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			if got := render(p); strings.HasPrefix(got, "[]") {
				t.Errorf("%s: {{%s}} is empty: %q", use, ph.Name, got)
			}
		}
	}
}
