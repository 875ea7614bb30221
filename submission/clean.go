package submission

import (
	"strings"

	"github.com/benchgate/benchgate/extract"
)

// CleanAnswer returns the clean form of a rubric answer as received
// (answer_b): the text stored as answer_b_clean, and the only text the
// judge grades. It is the one definition of that text: `benchgate
// generate` writes it, `benchgate score` and the spot-check grade it, and
// `benchgate verify` requires a row's answer_b_clean to equal it, so that
// nobody can show the judge other text than the model produced.
//
// It removes, in this order, and changes nothing else:
//
//  1. Reasoning blocks (extract.WithoutReasoning, the rule the letter
//     extraction policies read responses by): each <think>…</think>, <thinking>…</thinking> and
//     <reasoning>…</reasoning> (tags in any letter case; any closing tag of
//     the three ends a block, since models mix them up). An opening tag
//     that is never closed removes everything after it (the reply ended
//     while reasoning); a closing tag with no opening tag before it
//     removes everything before it (the opening tag was in the prompt
//     template).
//  2. Line by line: lines that open or close a code fence (starting with
//     ```, after white space); the white space around each line; heading
//     marks (#) at the start of a line, with the white space after them;
//     one list bullet ("- " or "* ") at the start of a line.
//  3. The emphasis marks ** and __, and every backquote.
//  4. Chat-template control tokens: every <|name|>, name being 1 to 64
//     ASCII letters, digits and underscores (such as <|im_end|> or
//     <|eot_id|>), including one that forms only once another inside it
//     or a mark of step 3 is removed.
//  5. The white space left around each line, blank lines beyond one
//     between two others, and the white space around the whole text.
//
// Single * and _, words, numbers and punctuation are kept, so the clean
// text is never longer than the raw one.
func CleanAnswer(raw string) string {
	s := extract.WithoutReasoning(raw)
	var b strings.Builder
	b.Grow(len(s))
	first, blank := true, false
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			continue
		}
		t = strings.TrimSpace(strings.TrimLeft(t, "#"))
		if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
			t = t[2:]
		}
		// Tokens last, so that no mark removed before can leave one.
		t = strings.TrimSpace(withoutControlTokens(emphasis.Replace(t)))
		if t == "" && blank {
			continue // one blank line at most between two others
		}
		blank = t == ""
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(t)
	}
	return strings.TrimSpace(b.String())
}

var emphasis = strings.NewReplacer("**", "", "__", "", "`", "")

// maxTokenName bounds the name of a control token; real ones are short.
const maxTokenName = 64

// withoutControlTokens removes <|name|> tokens (step 4 of CleanAnswer).
// Each '>' that ends a token removes it from the end of the output, so a
// token that forms only when an inner one is removed, such as
// "<|im_<|x|>end|>", goes too.
func withoutControlTokens(s string) string {
	if !strings.Contains(s, "|>") {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		out = append(out, s[i])
		if s[i] == '>' {
			out = out[:len(out)-tokenAtEnd(out)]
		}
	}
	return string(out)
}

// tokenAtEnd returns the length of the control token that b ends with, or
// 0.
func tokenAtEnd(b []byte) int {
	n := len(b)
	if n < 5 || b[n-2] != '|' {
		return 0
	}
	for k := n - 3; k >= 1 && n-3-k <= maxTokenName; k-- {
		c := b[k]
		switch {
		case c == '|' && b[k-1] == '<' && k < n-3:
			return n - (k - 1)
		case c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		default:
			return 0
		}
	}
	return 0
}
