// Package extract reads the chosen letter (A, B, C or D) from a model's
// response to a four-choice question.
//
// A Policy is one way of reading a response. Three policies exist:
//
//   - FormationEval ("formationeval-v0.1") reproduces, rule for rule, the
//     extractor that FormationEval v0.1 used for its published leaderboard,
//     so that a submission scored by benchgate gets exactly the published
//     numbers, mistakes included (it reads "Answer: D" as A).
//   - AnswerLine ("answer-line") reads only explicit answer statements, in
//     the style of harnesses that prompt for an "ANSWER: X" line.
//   - Flexible ("flexible", the default) tries to read what the model meant.
//
// # Policy formationeval-v0.1
//
// The text is cleaned the way the upstream Python does it: closed
// <thinking>…</thinking> blocks and then closed <think>…</think> blocks are
// removed (shortest match, across lines, tags case-sensitive), the rest is
// trimmed and uppercased (full Unicode case mapping, as str.upper does),
// "*X*" and "**X**" around a single letter are unwrapped, and runs of
// whitespace become one space. If the first character is A–D it is the
// answer (first_char). Otherwise the first rule below that matches anywhere
// in the text decides, X being one of A–D and \b, \s having Python's Unicode
// meaning:
//
//	correct_answer   CORRECT\s+ANSWER[:\s]+X
//	answer_is        ANSWER\s+IS[:\s]+X
//	answer_colon     ANSWER[:\s]+X
//	choose           CHOOSE\s+X
//	choice_is        CHOICE\s+IS[:\s]+X
//	option           OPTION\s+X
//	select           SELECT\s+X
//	go_with          GO\s+WITH\s+X
//	parentheses      \(X\)
//	letter_paren     \bX\)
//	letter_period    \bX\.
//	letter_comma     \bX,
//	start_of_string  ^X\b
//	end_of_string    \bX\s*$
//	is_x             \bIS\s+X\b
//	standalone       the last \bX\b
//
// The pattern names are the ones upstream records in its results. Only
// first_char can be Final: appending text never changes the first
// character, provided the letter came before any "<" that could open a
// think block.
//
// # Policy answer-line
//
// Reasoning is hidden first (see below, tags <think> and <thinking>). Then
// the last explicit statement "ANSWER: X", "ANSWER IS X" or "FINAL ANSWER:
// X" gives the letter (answer_statement; case-insensitive, markdown
// emphasis, brackets and parentheses around X tolerated, as in
// "**Answer:** (C)"). Without one, a response that is nothing but a letter,
// possibly wrapped as in "(B)", "**B**" or "B.", gives that letter
// (bare_letter). Anything else gives no answer. Result.Final is never set:
// a continuation can always add a later answer statement.
//
// # Policy flexible
//
// Reasoning is hidden first: closed <think>, <thinking> and <reasoning>
// blocks (tags in any letter case) are removed, an opening tag that is
// never closed hides everything after it, and a closing tag that was never
// opened hides everything before it (the opening tag was part of the
// prompt template). answer-line does the same with <think> and
// <thinking>.
//
// Then the rules below are tried in order, and the first that reads a
// letter wins. A "letter" is A–D standing as a word of its own: not glued
// into a compound ("D'Arcy", "type-A", "C/O"), not a unit after a number
// ("1 D"), and not the English article: a capital A followed by an
// ordinary lowercase word ("A porous rock") is no answer, while "A",
// "A)", "A.", "(A)", "**A**", "A is correct" and "A or B" are letters.
//
//  1. Strong statements, the last one winning (models revise
//     themselves): \boxed{X} (boxed), and "answer" followed by ":", "=",
//     a dash, "is", "was", "would be", "should be", "must be", "will be",
//     or by nothing but a letter that stands alone (answer_statement):
//     "The answer is C", "Final answer: **(C)**", "ANSWER: C", "the
//     correct answer choice is therefore C", "answer D.".
//  2. Weak statements, the last one winning: "choice" or "option"
//     followed by ":" or "is" and so on ("the correct choice is (C)") and
//     "X is correct / right / best / the answer" (choice_statement);
//     "choose", "select", "pick", "go with", "opt for" followed by X
//     ("I'll go with option C", pick_statement). They come after the
//     strong ones because an explanation after the answer often
//     discusses other options ("Answer: B. Option A is correct only for
//     carbonates").
//  3. last_line: the last line, after other text, is nothing but a letter
//     ("C", "**C**", "(C)", "Option C."): where a model that reasons
//     first puts its pick.
//  4. leading_letter: the response starts with a letter, possibly wrapped
//     or followed by the option's text ("B", "(B)", "**B**", "B) Porosity
//     increases", "B. Because ...", "Option B: ..."); a lowercase letter
//     needs a mark or to be alone ("b)", "b"). Not when the response
//     starts with a list ("A, B and C ..."), walks through the options
//     line by line ("A) ...\nB) ..."), or names another option.
//  5. trailing_letter: the response ends with a capital letter ("... so
//     it is probably B.", "length.C") whose sentence names no other letter,
//     and which is not negated or conditional ("not B", "A or B", "if it
//     were B").
//  6. single_letter: the response mentions exactly one letter, never
//     negated, e.g. "I believe (C) fits best because ...".
//
// A statement does not count when it is negated or conditional ("not",
// "don't", "if", "whether" among the three words before it), when its
// letter is the article ("the answer is a porous rock"), or when it names
// a second letter ("Answer: A or B"). Otherwise there is no answer: several
// letters without a statement ("It could be A or B") are ambiguous, and
// a guess would be worse than admitting that. Result.Final is never set: a
// continuation can always add a later statement, or close a reasoning
// block that hides what came before.
package extract

import (
	"fmt"
	"strings"
)

// Names of the policies accepted by Lookup.
const (
	// FormationEval reproduces FormationEval v0.1's published extractor.
	FormationEval = "formationeval-v0.1"
	// AnswerLine reads explicit "ANSWER: X" statements, or a bare letter.
	AnswerLine = "answer-line"
	// Flexible is the default policy, designed to read what the model meant.
	Flexible = "flexible"
)

// Result is what a policy read from one response.
type Result struct {
	// Letter is "A", "B", "C" or "D", or "" when no answer could be read.
	Letter string
	// Pattern is the short name of the rule that fired ("first_char",
	// "answer_colon", "answer_statement", ...), or "" when none did.
	Pattern string
	// Final is true when appending more text to the response could not
	// change Letter. It decides whether a response that was cut short
	// before it was stored can still be scored.
	Final bool
}

// Policy is a named way of reading the answer letter from a response. The
// zero Policy is the Flexible policy.
type Policy struct {
	name string
	fn   func(string) Result
}

var policies = map[string]func(string) Result{
	FormationEval: extractFormationEval,
	AnswerLine:    extractAnswerLine,
	Flexible:      extractFlexible,
}

// Lookup returns the policy with the given name; "" means Flexible. An
// unknown name is an error that lists the valid names.
func Lookup(name string) (Policy, error) {
	if name == "" {
		name = Flexible
	}
	fn, ok := policies[name]
	if !ok {
		return Policy{}, fmt.Errorf("extract: unknown policy %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	return Policy{name: name, fn: fn}, nil
}

// Names returns the names of all policies, sorted.
func Names() []string {
	return []string{AnswerLine, Flexible, FormationEval}
}

// Name returns the policy's name, as accepted by Lookup.
func (p Policy) Name() string {
	if p.fn == nil {
		return Flexible
	}
	return p.name
}

// Extract reads the answer letter from one response. It never panics, and
// accepts any string, including invalid UTF-8.
func (p Policy) Extract(response string) Result {
	if p.fn == nil {
		return extractFlexible(response)
	}
	return p.fn(response)
}

// letters maps an option letter byte to its Letter string without
// allocating.
var letters = [...]string{"A", "B", "C", "D"}

func letterString(b byte) string {
	return letters[upperASCII(b)-'A']
}
