package benchmark

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
)

// A prompt file is the messages a benchmark's harness sends, as a text
// file in the leaderboard repository: each message starts with a marker
// line naming its role, and its text is everything up to the next marker
// line or the end of the file, less the one line break that ends its last
// line (a blank line before the next marker keeps a final line break). In
// the text, {{name}} stands for a value of the question being asked; the
// names a prompt may use depend on its use (PromptUse) and are listed in
// Placeholders. Values are put in once, never read as template text
// again, so an answer holding "{{rubric}}" is only text.
//
//	=== system ===
//	You grade answers to questions on {{question_title}}.
//	=== user ===
//	{{question}}
//
//	{{answer}}

// MaxPromptBytes caps the size of a prompt file.
const MaxPromptBytes = 1 << 20

// The roles a prompt file's marker lines may name.
var promptRoles = []string{"system", "user", "assistant"}

// PromptUse is what a prompt asks: a judge to grade an answer, or a
// candidate to answer a question.
type PromptUse string

// The uses of a prompt.
const (
	UseJudge  PromptUse = "judge"  // grading one rubric answer (the judge object's prompt_file)
	UseMCQ    PromptUse = "mcq"    // asking one four-choice question (an mcq entry's prompt_file)
	UseRubric PromptUse = "rubric" // asking one open question (a rubric entry's prompt_file)
)

// Placeholder is one name a prompt may use, and what it stands for.
type Placeholder struct {
	Name  string
	Means string
}

// BracesPlaceholder writes a literal "{{", which a prompt cannot hold as
// text.
const BracesPlaceholder = "braces"

// placeholders are the names each use of a prompt may use, in the order
// the documentation lists them: the one home of these names, which the
// judge and generate fill in (each checks in its tests that it fills
// every one) and which README.md's tables show.
var placeholders = map[PromptUse][]Placeholder{
	UseJudge: {
		{"question_id", "the question's id"},
		{"question_title", "the question's title, or nothing"},
		{"question", "the question's text"},
		{"gate_component", "the id of the gate's component"},
		{"gate_points", "the gate component's points"},
		{"gate_pass_condition", "the gate's pass condition"},
		{"gate_fail_examples", "the examples that fail the gate, one `- ` line each, or nothing"},
		{"components", "the components, one line each: `- ID (N points[, gate]). Credit if: …`"},
		{"required_concepts", "the required concepts, one `- ` line each, or nothing"},
		{"indicative_terms", "the indicative terms, one `- ` line each, or nothing"},
		{"accepted_variants", "the rubric's global and the question's accepted variants, one `- ` line each, or nothing"},
		{"do_not_credit", "what earns nothing, one `- ` line each, or nothing"},
		{"reference_answer", "the reference answer (model_answer), or nothing"},
		{"principle", "the principle, or nothing"},
		{"total_points", "the points a question is worth (scoring_model.total_points)"},
		{"gate_failure_score", "the total of an answer that fails the gate (scoring_model.gate_failure_score)"},
		{"rubric", "everything above in benchgate's layout: the question, gate, components and each non-empty list under a heading"},
		{"verdict_shape", "the verdict object to reply with, filled in with the question's component ids and maxima"},
		{"answer", "the candidate answer between its boundary lines: the answer_begin line, the answer, the answer_end line"},
		{"answer_begin", "the line that opens the answer, `<<<ANSWER token>>>`, with a random token drawn for each grading"},
		{"answer_end", "the line that closes the answer, `<<<END token>>>`"},
		{BracesPlaceholder, "a literal `{{`"},
	},
	UseMCQ: {
		{"id", "the question's id"},
		{"question", "the question's text"},
		{"choices", "the four choices, one line each: `A) …` to `D) …`"},
		{"choice_a", "the text of choice A"},
		{"choice_b", "the text of choice B"},
		{"choice_c", "the text of choice C"},
		{"choice_d", "the text of choice D"},
		{BracesPlaceholder, "a literal `{{`"},
	},
	UseRubric: {
		{"id", "the question's id"},
		{"title", "the question's title, or nothing"},
		{"question", "the question's text"},
		{BracesPlaceholder, "a literal `{{`"},
	},
}

// required are the names a prompt of each use must hold at least once:
// a judge that is never shown the answer grades nothing, and a candidate
// never shown the question answers nothing.
var required = map[PromptUse][][]string{
	UseJudge:  {{"answer"}},
	UseMCQ:    {{"question"}, {"choices", "choice_a"}, {"choices", "choice_b"}, {"choices", "choice_c"}, {"choices", "choice_d"}},
	UseRubric: {{"question"}},
}

// Placeholders returns the names a prompt of this use may hold, in the
// documentation's order.
func Placeholders(use PromptUse) []Placeholder {
	return append([]Placeholder(nil), placeholders[use]...)
}

// Prompt is a parsed prompt: a built-in form of benchgate's, or a
// benchmark's prompt file.
type Prompt struct {
	Use PromptUse
	// Name is a built-in form's name; File the prompt file's path in the
	// leaderboard repository and SHA256 the digest of its bytes, part of
	// the identity of the judge or the run that uses it.
	Name     string
	File     string
	SHA256   string
	Messages []MessageTemplate
}

// MessageTemplate is one message of a prompt.
type MessageTemplate struct {
	Role  string
	Parts []TemplatePart
	Line  int // of the message's marker line
}

// TemplatePart is a run of literal text, or a placeholder when Name is
// set.
type TemplatePart struct {
	Text string
	Name string
}

// Uses reports whether the prompt holds placeholder name.
func (p *Prompt) Uses(name string) bool {
	for _, m := range p.Messages {
		for _, part := range m.Parts {
			if part.Name == name {
				return true
			}
		}
	}
	return false
}

// Text returns the prompt's literal text, placeholders left out, for
// checks on its wording.
func (p *Prompt) Text() string {
	var b strings.Builder
	for _, m := range p.Messages {
		for _, part := range m.Parts {
			b.WriteString(part.Text)
		}
	}
	return b.String()
}

// RenderedMessage is one message of a rendered prompt.
type RenderedMessage struct {
	Role    string
	Content string
}

// Render fills the placeholders with value(name) and returns the
// messages. value is asked only for names the prompt holds, all of which
// were checked when it was parsed.
func (p *Prompt) Render(value func(name string) string) []RenderedMessage {
	out := make([]RenderedMessage, len(p.Messages))
	for i, m := range p.Messages {
		var b strings.Builder
		for _, part := range m.Parts {
			switch part.Name {
			case "":
				b.WriteString(part.Text)
			case BracesPlaceholder:
				b.WriteString("{{")
			default:
				b.WriteString(value(part.Name))
			}
		}
		out[i] = RenderedMessage{Role: m.Role, Content: b.String()}
	}
	return out
}

// PromptError is a mistake in a prompt file, at a line of it.
type PromptError struct {
	Line    int
	Message string
}

func (e *PromptError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Message) }

// ParsePrompt parses the text of a prompt file for use. Every mistake is
// an error at its line: text before the first marker, a marker naming
// another role, a message with no text, no user message, "{{" that does
// not open a placeholder, a placeholder this use does not have, or a
// required one missing.
func ParsePrompt(use PromptUse, data []byte) (*Prompt, error) {
	allowed := map[string]bool{}
	for _, ph := range placeholders[use] {
		allowed[ph.Name] = true
	}
	if len(allowed) == 0 {
		return nil, fmt.Errorf("unknown prompt use %q", use)
	}
	if !utf8.Valid(data) {
		return nil, &PromptError{Line: 1 + strings.Count(string(data[:firstInvalid(data)]), "\n"), Message: "the file is not valid UTF-8 text"}
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	p := &Prompt{Use: use}
	type raw struct {
		role string
		line int
		body []string
	}
	var msgs []raw
	// The line break that ends the file's last line ends that line only.
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if role, ok := markerRole(line); ok {
			if !validRole(role) {
				return nil, &PromptError{Line: i + 1, Message: fmt.Sprintf("marker %q names role %q; a message is %s", line, role, roleList())}
			}
			msgs = append(msgs, raw{role: role, line: i + 1})
			continue
		}
		if len(msgs) == 0 {
			if strings.TrimSpace(line) != "" {
				return nil, &PromptError{Line: i + 1, Message: "text before the first message; start the file with a marker line such as \"=== system ===\" or \"=== user ===\""}
			}
			continue
		}
		msgs[len(msgs)-1].body = append(msgs[len(msgs)-1].body, line)
	}
	if len(msgs) == 0 {
		return nil, &PromptError{Line: 1, Message: "the file holds no message; each starts with a marker line such as \"=== user ===\""}
	}
	hasUser := false
	for _, m := range msgs {
		// Joined, the lines lose the break that ends the last of them,
		// which belongs to the file's layout, not to the message.
		body := strings.Join(m.body, "\n")
		if strings.TrimSpace(body) == "" {
			return nil, &PromptError{Line: m.line, Message: fmt.Sprintf("the %s message is empty", m.role)}
		}
		parts, err := parseTemplate(body, m.line+1, allowed, use)
		if err != nil {
			return nil, err
		}
		hasUser = hasUser || m.role == "user"
		p.Messages = append(p.Messages, MessageTemplate{Role: m.role, Parts: parts, Line: m.line})
	}
	if !hasUser {
		return nil, &PromptError{Line: msgs[0].line, Message: "the prompt has no user message; a prompt asks in a \"=== user ===\" message"}
	}
	for _, alts := range required[use] {
		ok := false
		for _, name := range alts {
			ok = ok || p.Uses(name)
		}
		if !ok {
			return nil, &PromptError{Line: msgs[0].line, Message: fmt.Sprintf("the prompt never uses {{%s}}; a %s prompt must show it", strings.Join(alts, "}} or {{"), use)}
		}
	}
	return p, nil
}

// markerRole reads a marker line, "=== role ===".
func markerRole(line string) (string, bool) {
	line = strings.TrimRight(line, " \t")
	if !strings.HasPrefix(line, "=== ") || !strings.HasSuffix(line, " ===") || len(line) < len("=== x ===") {
		return "", false
	}
	return strings.TrimSpace(line[4 : len(line)-4]), true
}

func validRole(role string) bool {
	for _, r := range promptRoles {
		if role == r {
			return true
		}
	}
	return false
}

func roleList() string {
	return `"=== system ===", "=== user ===" or "=== assistant ==="`
}

func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// parseTemplate splits a message's text into literal runs and
// placeholders; line is the file's line of the text's first line.
func parseTemplate(s string, line int, allowed map[string]bool, use PromptUse) ([]TemplatePart, error) {
	var parts []TemplatePart
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			if s != "" {
				parts = append(parts, TemplatePart{Text: s})
			}
			return parts, nil
		}
		if i > 0 {
			parts = append(parts, TemplatePart{Text: s[:i]})
		}
		at := line + strings.Count(s[:i], "\n")
		rest := s[i+2:]
		j := strings.Index(rest, "}}")
		nl := strings.IndexByte(rest, '\n')
		if j < 0 || (nl >= 0 && nl < j) {
			return nil, &PromptError{Line: at, Message: "\"{{\" opens no placeholder (no \"}}\" on its line); write a literal \"{{\" as {{braces}}"}
		}
		name := strings.TrimSpace(rest[:j])
		if !allowed[name] {
			return nil, &PromptError{Line: at, Message: fmt.Sprintf("unknown placeholder {{%s}}; a %s prompt may use %s (a literal \"{{\" is {{braces}})", clipName(name), use, names(use))}
		}
		parts = append(parts, TemplatePart{Name: name})
		line = at
		s = rest[j+2:]
	}
}

func clipName(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func names(use PromptUse) string {
	var ns []string
	for _, ph := range placeholders[use] {
		ns = append(ns, "{{"+ph.Name+"}}")
	}
	return strings.Join(ns, ", ")
}

// MustParsePrompt parses a built-in form, which is part of benchgate and
// cannot be wrong at run time: its tests parse every one.
func MustParsePrompt(use PromptUse, name, text string) *Prompt {
	p, err := ParsePrompt(use, []byte(text))
	if err != nil {
		panic(fmt.Sprintf("built-in prompt %s: %v", name, err))
	}
	p.Name = name
	return p
}

// readPrompt reads and parses the prompt file at file in fsys, reporting
// a mistake in it at its line of the file, and one in naming it at at,
// the line of the registry entry.
func readPrompt(fsys fs.FS, use PromptUse, file, key, member string, at int, out *finding.List) (*Prompt, string) {
	clean := path.Clean(file)
	if !fs.ValidPath(clean) || clean != file {
		msg := fmt.Sprintf("%s %q is not a clean path inside the repository (write it like rubrics/%s-judge.txt)", member, file, key)
		out.Errorf("registry.prompt-file", RegistryFile, at, "", "benchmark %q: %s", key, msg)
		return nil, msg
	}
	data, err := jsondoc.ReadFile(fsys, file, MaxPromptBytes)
	if err != nil {
		msg := fmt.Sprintf("%s %s cannot be read: %v", member, file, err)
		out.Errorf("registry.prompt-file", RegistryFile, at, "", "benchmark %q: %s; add the file, or remove %s to use benchgate's own prompt", key, msg, member)
		return nil, msg
	}
	p, err := ParsePrompt(use, data)
	if err != nil {
		line := 0
		if pe := (*PromptError)(nil); errors.As(err, &pe) {
			line = pe.Line
			err = errors.New(pe.Message)
		}
		msg := fmt.Sprintf("%s %s:%d is not a usable %s prompt: %v", member, file, line, use, err)
		out.Errorf("prompt.template", file, line, "", "%v (the %s of benchmark %q; see \"Prompts\" in benchgate's README)", err, member, key)
		return nil, msg
	}
	sum := sha256.Sum256(data)
	p.File, p.SHA256 = file, hex.EncodeToString(sum[:])
	return p, ""
}
