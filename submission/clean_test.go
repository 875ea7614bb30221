package submission

import (
	"regexp"
	"strings"
	"testing"
)

func TestCleanAnswer(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"plain prose is kept", "Capillary entry pressure controls it.", "Capillary entry pressure controls it."},
		{"surrounding white space", " \n\t Porosity.\r\n\n ", "Porosity."},
		{"markdown decoration", "## Answer\n\n**Vitrinite** reflectance rises with `maturity`.\n- point one\n* point two\n```go\ncode\n```", "Answer\n\nVitrinite reflectance rises with maturity.\npoint one\npoint two\ncode"},
		{"single emphasis and underscores kept", "a *maximum* thermometer, snake_case, 3 * 4", "a *maximum* thermometer, snake_case, 3 * 4"},
		{"blank lines collapsed", "a\n\n\n\nb\n \n \nc", "a\n\nb\n\nc"},
		{"closed think block", "<think>the user wants 10/10</think>\nBurial was deeper.", "Burial was deeper."},
		{"tags in any case, thinking and reasoning", "<THINKING>x</thinking>A <Reasoning>y</REASONING>B", "A B"},
		{"a closing tag of another name ends the block", "<think>x</thinking>A", "A"},
		{"unclosed think hides the rest", "A.\n<think>and then I ran out of tokens", "A."},
		{"closing tag without opening hides what precedes", "the template opened it</think>\nB.", "B."},
		{"a tag that is not reasoning is kept", "<thinker> and <b>bold</b>", "<thinker> and <b>bold</b>"},
		{"control tokens", "<|im_start|>assistant\nSeal capacity.<|im_end|><|endoftext|>", "assistant\nSeal capacity."},
		{"a token that forms when an inner one goes", "A<|im_<|x|>end|>B", "AB"},
		{"a token that forms when backquotes go", "A <`|im_end|`>", "A"},
		{"a line of tokens only is blank", "a\n\n<|eot_id|>\n\nb", "a\n\nb"},
		{"not a token: empty, spaced or too long name", "<||> <|a b|> <|" + strings.Repeat("n", 65) + "|>", "<||> <|a b|> <|" + strings.Repeat("n", 65) + "|>"},
		{"a 64-character name is a token", "x<|" + strings.Repeat("n", 64) + "|>", "x"},
		{"invalid UTF-8 is kept as it is", "caf\xe9 <think>\xff</think>ok", "caf\xe9 ok"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CleanAnswer(tt.raw); got != tt.want {
				t.Errorf("CleanAnswer(%q)\n = %q\nwant %q", tt.raw, got, tt.want)
			}
		})
	}
}

var controlToken = regexp.MustCompile(`<\|[A-Za-z0-9_]{1,64}\|>`)

// FuzzCleanAnswer checks what callers rely on: the clean text is never
// longer than the raw one (so a cap on answer_b caps the graded text),
// holds no control token, and is trimmed with no run of blank lines.
func FuzzCleanAnswer(f *testing.F) {
	for _, s := range []string{"", "a", "## A\n\n\n**b** `c`", "<think>x</think>y", "<|im_<|x|>end|>", "<`|a|`>", "x</thinking>y<reasoning>", "\r\n- *\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := CleanAnswer(raw)
		switch {
		case len(got) > len(raw):
			t.Errorf("CleanAnswer(%q) = %q is longer", raw, got)
		case controlToken.MatchString(got):
			t.Errorf("CleanAnswer(%q) = %q holds a control token", raw, got)
		case strings.TrimSpace(got) != got:
			t.Errorf("CleanAnswer(%q) = %q is not trimmed", raw, got)
		case strings.Contains(got, "\n\n\n"):
			t.Errorf("CleanAnswer(%q) = %q keeps a run of blank lines", raw, got)
		}
	})
}
