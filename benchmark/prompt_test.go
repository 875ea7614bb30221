package benchmark

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// TestParsePrompt: a prompt file's messages, and each mistake at its line.
func TestParsePrompt(t *testing.T) {
	tests := []struct {
		name, text string
		use        PromptUse
		want       []RenderedMessage // rendered with each value its name in capitals
		line       int               // of the error, when want is nil
		err        string
	}{
		{"system and user", "=== system ===\nGrade {{ question_id }}.\n=== user ===\n{{answer}}\n", UseJudge,
			[]RenderedMessage{{"system", "Grade QUESTION_ID."}, {"user", "ANSWER"}}, 0, ""},
		{"a blank line keeps a final line break", "=== system ===\nA\n\n=== user ===\n{{answer}}\n\n", UseJudge,
			[]RenderedMessage{{"system", "A\n"}, {"user", "ANSWER\n"}}, 0, ""},
		{"no final line break", "=== user ===\n{{question}}", UseRubric, []RenderedMessage{{"user", "QUESTION"}}, 0, ""},
		{"CRLF", "=== user ===\r\nQ: {{question}}\r\nA:\r\n", UseRubric, []RenderedMessage{{"user", "Q: QUESTION\nA:"}}, 0, ""},
		{"few-shot", "=== user ===\n1+1?\n=== assistant ===\n2\n=== user ===\n{{question}}", UseRubric,
			[]RenderedMessage{{"user", "1+1?"}, {"assistant", "2"}, {"user", "QUESTION"}}, 0, ""},
		{"literal braces", "=== user ===\n{{braces}}x}} {{question}}", UseRubric, []RenderedMessage{{"user", "{{x}} QUESTION"}}, 0, ""},
		{"choices or each choice", "=== user ===\n{{question}}\nA. {{choice_a}}\nB. {{choice_b}}\nC. {{choice_c}}\nD. {{choice_d}}", UseMCQ,
			[]RenderedMessage{{"user", "QUESTION\nA. CHOICE_A\nB. CHOICE_B\nC. CHOICE_C\nD. CHOICE_D"}}, 0, ""},

		{"unknown placeholder", "=== user ===\n{{question}}\n\nRubric: {{rubrik}}\n{{answer}}", UseJudge, nil, 4, "unknown placeholder {{rubrik}}; a judge prompt may use {{question_id}}"},
		{"a judge placeholder in an mcq prompt", "=== user ===\n{{question}} {{choices}} {{rubric}}", UseMCQ, nil, 2, "unknown placeholder {{rubric}}"},
		{"unclosed", "=== user ===\n{{answer}}\nthen {{question\n}}", UseJudge, nil, 3, `"{{" opens no placeholder (no "}}" on its line); write a literal "{{" as {{braces}}`},
		{"text before the first marker", "Grade this.\n=== user ===\n{{answer}}", UseJudge, nil, 1, "text before the first message"},
		{"another role", "=== developer ===\n{{answer}}", UseJudge, nil, 1, `marker "=== developer ===" names role "developer"`},
		{"an empty message", "=== system ===\n\n=== user ===\n{{answer}}", UseJudge, nil, 1, "the system message is empty"},
		{"no user message", "=== system ===\n{{answer}}", UseJudge, nil, 1, "the prompt has no user message"},
		{"no marker", "", UseJudge, nil, 1, "the file holds no message"},
		{"a judge never shown the answer", "=== user ===\n{{rubric}}", UseJudge, nil, 1, "the prompt never uses {{answer}}; a judge prompt must show it"},
		{"an mcq prompt without choice D", "=== user ===\n{{question}} {{choice_a}} {{choice_b}} {{choice_c}}", UseMCQ, nil, 1, "the prompt never uses {{choices}} or {{choice_d}}"},
		{"not UTF-8", "=== user ===\n{{question}}\n\xff", UseRubric, nil, 3, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePrompt(tt.use, []byte(tt.text))
			if tt.want == nil {
				var pe *PromptError
				if !errors.As(err, &pe) || pe.Line != tt.line || !strings.Contains(pe.Message, tt.err) {
					t.Fatalf("error %v, want line %d: …%s…", err, tt.line, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := p.Render(strings.ToUpper)
			if len(got) != len(tt.want) {
				t.Fatalf("messages %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("message %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestRenderIsOnePass: a value is text, never template: an answer that
// holds a placeholder is shown as written.
func TestRenderIsOnePass(t *testing.T) {
	p, err := ParsePrompt(UseJudge, []byte("=== user ===\n{{rubric}}\n{{answer}}"))
	if err != nil {
		t.Fatal(err)
	}
	got := p.Render(func(name string) string {
		if name == "answer" {
			return "{{rubric}} {{braces}}"
		}
		return "R"
	})
	if got[0].Content != "R\n{{rubric}} {{braces}}" {
		t.Errorf("rendered %q", got[0].Content)
	}
}

// TestPlaceholderTables: every use documents each of its names once, and
// the names a use requires are its own.
func TestPlaceholderTables(t *testing.T) {
	for use, phs := range placeholders {
		seen := map[string]bool{}
		for _, ph := range phs {
			if seen[ph.Name] || ph.Means == "" {
				t.Errorf("%s: %q is listed twice or not described", use, ph.Name)
			}
			seen[ph.Name] = true
		}
		for _, alts := range required[use] {
			for _, n := range alts {
				if !seen[n] {
					t.Errorf("%s requires %q, which it does not have", use, n)
				}
			}
		}
	}
}

// FuzzParsePrompt: any file either fails with a located message or
// parses into messages that render without panic, each non-empty, with
// the values put in as they are.
func FuzzParsePrompt(f *testing.F) {
	f.Add("=== system ===\nGrade.\n=== user ===\n{{rubric}}\n\n{{answer}}\n")
	f.Add("=== user ===\n{{question}}\n{{choices}}")
	f.Add("=== user ===\n{{ braces }}{{question")
	f.Fuzz(func(t *testing.T, text string) {
		for _, use := range []PromptUse{UseJudge, UseMCQ, UseRubric} {
			p, err := ParsePrompt(use, []byte(text))
			if err != nil {
				var pe *PromptError
				if !errors.As(err, &pe) || pe.Line < 1 || pe.Message == "" {
					t.Fatalf("an error without a line or message: %v", err)
				}
				continue
			}
			// Each placeholder is filled once, and nothing else is.
			want := 0
			for _, m := range p.Messages {
				for _, part := range m.Parts {
					if part.Name != "" && part.Name != BracesPlaceholder {
						want++
					}
				}
			}
			got := 0
			for _, m := range p.Render(func(string) string { return "\x00" }) {
				if !validRole(m.Role) {
					t.Fatalf("role %q", m.Role)
				}
				got += strings.Count(m.Content, "\x00")
			}
			if !strings.Contains(text, "\x00") && got != want {
				t.Fatalf("%d values rendered for %d placeholders", got, want)
			}
		}
	})
}

// promptBoard is a leaderboard whose rubric entry's judge is asked with
// a prompt file.
func promptBoard(judge, prompt string) fstest.MapFS {
	return fstest.MapFS{
		RegistryFile:          {Data: []byte(`[{"key": "r", "file": "rubrics/r.json", "judge_model": "j", "judge": ` + judge + `}]`)},
		"rubrics/r-judge.txt": {Data: []byte(prompt)},
	}
}

// TestRegistryJudgePrompt: the judge contract's prompt file, verdict rule
// and response_format, and each mistake in them where it is.
func TestRegistryJudgePrompt(t *testing.T) {
	const good = "=== system ===\nReply in JSON.\n=== user ===\n{{rubric}}\n\n{{answer}}\n"
	tests := []struct {
		name, judge, prompt string
		want                string // the first finding, "" for none
		check               func(t *testing.T, e Entry)
	}{
		{"a prompt file", `{"prompt_file": "rubrics/r-judge.txt"}`, good, "", func(t *testing.T, e Entry) {
			if e.Problem != "" || e.JudgePrompt == nil || e.JudgePrompt.File != "rubrics/r-judge.txt" || len(e.JudgePromptSHA256()) != 64 || len(e.JudgePrompt.Messages) != 2 {
				t.Errorf("entry %+v", e)
			}
		}},
		{"a harness's contract", `{"prompt_file": "rubrics/r-judge.txt", "response_format": false, "temperature": null, "verdict": {"format": "last-fenced-json", "integers": true, "retry": "resend", "retries": 2}}`, good, "", func(t *testing.T, e Entry) {
			p := e.Judge
			if p.Temperature != nil || p.TopP == nil || *p.TopP != 1 || !p.NoResponseFormat || p.Verdict.Format != VerdictLastFencedJSON || !p.Verdict.Integers || p.Verdict.Retry != RetryResend || p.Verdict.Retries == nil || *p.Verdict.Retries != 2 {
				t.Errorf("contract %s", ContractText(p))
			}
		}},
		{"the default rule spelt out is the default", `{"verdict": {"format": "json", "retry": "reask"}}`, good, "", func(t *testing.T, e Entry) {
			if e.Judge.Verdict != (VerdictRule{}) || e.JudgePrompt != nil {
				t.Errorf("contract %s", ContractText(e.Judge))
			}
		}},
		{"a missing prompt file", `{"prompt_file": "rubrics/other.txt"}`, good,
			`error registry.prompt-file rubrics/rubrics.json:1: benchmark "r": judge.prompt_file rubrics/other.txt cannot be read`, nil},
		{"an unclean path", `{"prompt_file": "./rubrics/r-judge.txt"}`, good,
			`error registry.prompt-file rubrics/rubrics.json:1: benchmark "r": judge.prompt_file "./rubrics/r-judge.txt" is not a clean path`, nil},
		{"an unknown placeholder", `{"prompt_file": "rubrics/r-judge.txt"}`, "=== user ===\nReply in JSON.\n{{answer}}\n{{refrence_answer}}\n",
			`error prompt.template rubrics/r-judge.txt:4: unknown placeholder {{refrence_answer}}`, func(t *testing.T, e Entry) {
				if !strings.Contains(e.Problem, "is not a usable judge prompt") {
					t.Errorf("problem %q", e.Problem)
				}
			}},
		{"a fence under JSON mode", `{"prompt_file": "rubrics/r-judge.txt", "verdict": {"format": "last-fenced-json"}}`, good,
			`error registry.response-format rubrics/rubrics.json:1: benchmark "r": the verdict format last-fenced-json reads a fenced block`, nil},
		{"JSON mode never said", `{"prompt_file": "rubrics/r-judge.txt"}`, "=== user ===\n{{answer}}\n",
			`warning registry.response-format rubrics/rubrics.json:1: benchmark "r": the judge is asked for a JSON object (response_format), but rubrics/r-judge.txt never says "JSON"`, nil},
		{"an unknown verdict format", `{"verdict": {"format": "yaml"}}`, good, `error schema rubrics/rubrics.json:1: /0/judge/verdict/format`, nil},
		{"too many retries", `{"verdict": {"retries": 11}}`, good, `error schema rubrics/rubrics.json:1: /0/judge/verdict/retries`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, fs := LoadRegistry(promptBoard(tt.judge, tt.prompt))
			got := ""
			if len(fs) > 0 {
				f := fs[0]
				got = f.Severity.String() + " " + f.Code + " " + f.File + ":" + itoa(f.Line) + ": " + f.Message
			}
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Fatalf("first finding %q, want %q (all: %v)", got, tt.want, fs)
			}
			if tt.check != nil && reg != nil {
				e, _ := reg.Lookup("r")
				tt.check(t, e)
			}
		})
	}
}

// TestRegistryAskPrompt: a benchmark's own prompt for its candidates.
func TestRegistryAskPrompt(t *testing.T) {
	tests := []struct {
		name, entry, prompt, want string
	}{
		{"an mcq prompt file", `{"key": "m", "file": "m.jsonl", "kind": "mcq", "prompt_file": "m.txt"}`, "=== user ===\n{{question}}\n{{choices}}\nAnswer:", ""},
		{"a rubric prompt file", `{"key": "m", "file": "m.json", "judge_model": "j", "prompt_file": "m.txt"}`, "=== user ===\n{{question}}", ""},
		{"both", `{"key": "m", "file": "m.jsonl", "kind": "mcq", "prompt": "answer-line", "prompt_file": "m.txt"}`, "=== user ===\n{{question}}\n{{choices}}",
			`error registry.prompt rubrics/rubrics.json:1: benchmark "m": it names both prompt (a built-in form) and prompt_file`},
		{"an mcq placeholder in a rubric prompt", `{"key": "m", "file": "m.json", "judge_model": "j", "prompt_file": "m.txt"}`, "=== user ===\n{{question}}\n{{choices}}",
			`error prompt.template m.txt:3: unknown placeholder {{choices}}; a rubric prompt may use {{id}}, {{title}}, {{question}}, {{braces}}`},
		{"an mcq form for a rubric", `{"key": "m", "file": "m.json", "judge_model": "j", "prompt": "answer-line"}`, "",
			`error registry.prompt rubrics/rubrics.json:1: benchmark "m": prompt "answer-line" is not a built-in form of rubric benchmarks (open-answer)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			board := fstest.MapFS{RegistryFile: {Data: []byte("[" + tt.entry + "]")}, "m.txt": {Data: []byte(tt.prompt)}}
			reg, fs := LoadRegistry(board)
			got := ""
			if len(fs) > 0 {
				f := fs[0]
				got = f.Severity.String() + " " + f.Code + " " + f.File + ":" + itoa(f.Line) + ": " + f.Message
			}
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Fatalf("first finding %q, want %q", got, tt.want)
			}
			if e, _ := reg.Lookup("m"); tt.want == "" && (e.AskPrompt == nil || e.AskPrompt.SHA256 == "" || e.Problem != "") {
				t.Errorf("entry %+v", e)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
