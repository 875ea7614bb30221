package judge

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// injectionRule is one pattern of text that addresses the grader instead
// of answering the question.
type injectionRule struct {
	re     *regexp.Regexp
	reason string
}

// The rules are narrow on purpose: each needs wording that a technical
// answer has no reason to contain (an imperative to a grader, a chat-role
// line, a verdict's field names, a pairwise verdict token), so ordinary
// prose — including words such as "system", "score", "award" or "total" —
// never matches.
var injectionRules = []injectionRule{
	{regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|former|other|system|grading|original)?\s*(?:instructions?|prompts?|rules|guidelines|directions|rubric)\b|\b(?:new|updated|real|actual)\s+instructions?\s*:`),
		"tells the grader to ignore its instructions"},
	{regexp.MustCompile(`(?i)\byou\s+are\s+(?:now\s+)?(?:the|a|an)\s+(?:\w+\s+)?(?:grader|judge|evaluator|examiner|marker|assessor)\b|\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?(?:grader|judge|evaluator|examiner|assessor|ai|llm)\b|\b(?:dear|attention|hey)\s*,?\s+(?:grader|judge|evaluator|examiner|assessor)\b`),
		"addresses the grader directly"},
	{regexp.MustCompile(`(?i)\b(?:award|give|assign|grant)\s+(?:this\s+(?:answer|response)\s+|it\s+|me\s+)?(?:the\s+)?(?:full|maximum|max|all|perfect|top|highest)\s+(?:points|marks|credit|score)\b`),
		"asks for full marks"},
	{regexp.MustCompile(`(?i)\bscore\s+(?:this|it|me|(?:this|the|my)\s+(?:answer|response))\s+(?:as\s+|at\s+|an?\s+|with\s+)?(?:\d+|ten)\b|\b(?:score|grade|rate|mark)\s+(?:this|it|me|(?:this|the|my)\s+(?:answer|response))\s+(?:as\s+|at\s+|an?\s+|with\s+)?(?:(?:\d+|ten)\s*(?:/\s*\d+|points?\b|marks?\b|out\s+of\b)|(?:full|perfect|maximum|max)\s+(?:points|marks|score|credit)\b)|\b(?:10|ten)\s*/\s*(?:10|ten)\b`),
		"asks for a particular score"},
	{regexp.MustCompile(`(?im)^[ \t>*#_-]*(?:system|assistant|developer)\s*:|<\|(?:im_start|im_end|system|endoftext)\|>|\[/?(?:INST|SYS)\]|<</?SYS>>|</?system>`),
		"contains a chat-role line (system:, assistant:) or chat-template token"},
	{regexp.MustCompile(`(?i)["']?\b(?:gate_passed|adjudication_required|score_b)\b["']?\s*[:=]|["'](?:total|awarded)["']\s*:`),
		"contains what looks like a grading verdict (fields such as gate_passed or total)"},
	{regexp.MustCompile(`(?im)<<<\s*(?:answer|end|begin)\b|^\W*end\s+of\s+(?:the\s+)?(?:candidate(?:'s)?\s+)?(?:answer|response)\W*$`),
		"contains a fake answer boundary or end-of-answer marker"},
	{regexp.MustCompile(`\[\[\s*[AB]\s*(?:>>|>|=|<|<<)\s*[AB]\s*\]\]`),
		"contains a pairwise verdict token such as [[A>>B]]"},
}

// invisible are characters that render as nothing and could split a
// phrase so that it escapes the patterns while a model still reads it.
var invisible = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "", "\u00ad", "")

// InjectionMarkers returns a human-readable reason, with the text quoted,
// for each way the answer tries to instruct the grader or forge a verdict:
// orders to ignore instructions, words addressed to the grader, requests
// for a score, chat-role lines, verdict JSON, fake boundary markers and
// pairwise verdict tokens. It returns nil for an ordinary answer. A marker
// does not change the grade; it asks a person to look.
func InjectionMarkers(answer string) []string {
	if !utf8.ValidString(answer) {
		answer = strings.ToValidUTF8(answer, "\ufffd")
	}
	text := invisible.Replace(answer)
	var out []string
	for _, r := range injectionRules {
		if loc := r.re.FindStringIndex(text); loc != nil {
			out = append(out, fmt.Sprintf("%s: %q", r.reason, excerpt(text[loc[0]:loc[1]])))
		}
	}
	return out
}

// excerpt trims a match for quoting in a message.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:60]) + "…"
	}
	return s
}
