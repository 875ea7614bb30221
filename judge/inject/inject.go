// Package inject finds text that tries to instruct a grader instead of
// answering the question (Markers), and the words of a verdict saying the
// grader met such text (Signs). It reaches no network (the verifier uses
// it); package judge offers the same as InjectionMarkers and
// VerdictInjectionSigns. Markers reads words in look-alike letters as
// they read (safetext.Unconfuse).
package inject

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/benchgate/benchgate/internal/safetext"
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

// Markers returns a human-readable reason, with the text quoted,
// for each way the answer tries to instruct the grader or forge a verdict:
// orders to ignore instructions, words addressed to the grader, requests
// for a score, chat-role lines, verdict JSON, fake boundary markers and
// pairwise verdict tokens. It returns nil for an ordinary answer. A marker
// does not change the grade; it asks a person to look.
func Markers(answer string) []string {
	if !utf8.ValidString(answer) {
		answer = strings.ToValidUTF8(answer, "\ufffd")
	}
	// Look-alike letters of other scripts read as the Latin words they
	// imitate, to a person and to a model alike.
	text := safetext.Unconfuse(invisible.Replace(answer))
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

// verdictSigns is what a verdict says when the judge saw an answer
// instruct it, as the grading prompt asks it to note, or when a judge
// owns up to having obeyed: the words name the attempt (injection,
// instructing or manipulating the grader, asking for full marks) rather
// than the answer's subject, so a reason about the geology never matches.
var verdictSigns = regexp.MustCompile(`(?i)\bprompt[- ]?injections?\b|\binjection\s+attempts?\b|\b(?:tries|tried|trying|attempts?|attempted|attempting)\s+to\s+(?:instruct|manipulate|influence|steer|override|direct)\b|\binstruct(?:s|ed|ing|ions?)?\s+(?:to\s+|for\s+)?(?:the\s+)?(?:grader|judge|evaluator|assessor|examiner|marker|me|you)\b|\baddress(?:es|ed|ing)?\s+(?:the\s+)?(?:grader|judge|evaluator|assessor|examiner)\b|\b(?:asks?|asked|asking|requests?|requested|requesting|demands?|demanded|demanding)\s+(?:the\s+(?:grader|judge)\s+|me\s+)?(?:for\s+)?(?:the\s+)?(?:full|maximum|max|perfect)\s+(?:marks|points|score|credit)\b|\bmanipulat\w*\s+(?:the\s+)?(?:grader|judge|grade|grading|score|scoring|evaluator|assessment)\b|\bas\s+(?:the\s+(?:answer|candidate|response)\s+)?instructed\b`)

// Signs returns, quoted, the words of texts (a verdict's adjudication
// note and reasons) that say the answer tried to instruct the judge; nil
// when they say nothing of the kind.
func Signs(texts ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		t = invisible.Replace(strings.ToValidUTF8(t, "\ufffd"))
		for _, m := range verdictSigns.FindAllString(t, -1) {
			q := fmt.Sprintf("%q", excerpt(m))
			if !seen[strings.ToLower(q)] {
				seen[strings.ToLower(q)] = true
				out = append(out, q)
			}
		}
	}
	return out
}
