package benchmark

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/schemas"
)

// Letters are the answer keys of a four-choice question, in choice order.
const Letters = "ABCD"

// Item is one four-choice question.
type Item struct {
	ID         string
	Question   string
	Choices    [4]string
	Answer     int // index of the correct choice, 0–3
	Difficulty string
	Domains    []string
	Topics     []string
	SourceID   string // sources[0].source_id or source_book.source_id
	Line       int
}

// Key returns the letter of the correct choice.
func (it *Item) Key() string { return Letters[it.Answer : it.Answer+1] }

// LongestChoice returns the index of the choice that is strictly longer
// (in characters) than every other, or -1 when the longest is shared.
func (it *Item) LongestChoice() int {
	best, bestLen, tie := -1, -1, false
	for i, c := range it.Choices {
		switch n := utf8.RuneCountInString(c); {
		case n > bestLen:
			best, bestLen, tie = i, n, false
		case n == bestLen:
			tie = true
		}
	}
	if tie {
		return -1
	}
	return best
}

// MCQStats describes a multiple-choice benchmark's balance.
type MCQStats struct {
	Questions      int            `json:"questions"`
	KeyCounts      map[string]int `json:"answer_keys"`
	Difficulty     map[string]int `json:"difficulty"`
	Domains        map[string]int `json:"domains"`
	Sources        map[string]int `json:"sources"`
	LongestCorrect int            `json:"longest_correct"`      // questions whose correct choice is uniquely the longest
	LongestRate    float64        `json:"longest_correct_rate"` // LongestCorrect / Questions
}

// Thresholds above which lint warns about answer-key bias.
const (
	maxLongestRate = 0.35 // chance is about 0.25
	maxKeyShare    = 0.35 // chance is 0.25
)

// parseMCQ reads a FormationEval-style JSON array or an UpstreamBench-style
// JSONL file. Each question is converted as soon as it is parsed, so that a
// large JSONL file never holds more than one line's tree at a time.
func parseMCQ(file string, data []byte) ([]Item, finding.List) {
	var out finding.List
	var items []Item
	seen := map[string]int{}
	add := func(doc *jsondoc.Doc, n *jsondoc.Node, ptr string, lineBase int) {
		if it, ok := mcqItem(file, doc, n, ptr, lineBase, seen, &out); ok {
			items = append(items, it)
		}
	}
	if first := bytes.TrimLeft(data, " \t\r\n"); len(first) > 0 && first[0] == '[' {
		doc, err := jsondoc.Parse(data, jsondoc.Limits{})
		if err != nil {
			return nil, append(out, finding.FromError("json.syntax", file, err))
		}
		for i, n := range doc.Root.Elems {
			add(doc, n, "/"+strconv.Itoa(i), 0)
		}
		return items, out
	}
	// JSONL: one object per line; blank lines are allowed.
	line, records := 0, 0
	for len(data) > 0 {
		line++
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		records++
		doc, err := jsondoc.Parse(l, jsondoc.Limits{})
		if err != nil {
			f := finding.FromError("json.syntax", file, err)
			f.Line = line
			out = append(out, f)
			continue
		}
		add(doc, doc.Root, "", line-1)
	}
	if records == 0 {
		out.Errorf("mcq.no-questions", file, 0, "", "the file holds no questions")
	}
	return items, out
}

// mcqItem validates and converts one question: n in doc, at JSON pointer
// ptr, with lineBase added to doc's line numbers (for JSONL lines).
func mcqItem(file string, doc *jsondoc.Doc, n *jsondoc.Node, ptr string, lineBase int, seen map[string]int, out *finding.List) (Item, bool) {
	fs := schemas.ValidateNode(schemas.MCQItem, file, doc, n, ptr)
	id := n.GetString("id")
	for i := range fs {
		fs[i].Line += lineBase
		if fs[i].Question == "" {
			fs[i].Question = id
		}
	}
	if len(fs) > 0 {
		*out = append(*out, fs...)
		return Item{}, false
	}
	it := Item{
		ID:         id,
		Question:   n.GetString("question"),
		Difficulty: n.GetString("difficulty"),
		Domains:    n.GetStrings("domains"),
		Topics:     n.GetStrings("topics"),
		Line:       doc.Line(n.Off) + lineBase,
	}
	it.Answer, _ = integer(n, "answer_index")
	for i, c := range n.Get("choices").Elems {
		it.Choices[i] = c.Str
	}
	if src := n.Get("sources"); src != nil && len(src.Elems) > 0 {
		it.SourceID = src.Elems[0].GetString("source_id")
	}
	if it.SourceID == "" {
		if sb := n.Get("source_book"); sb != nil {
			it.SourceID = sb.GetString("source_id")
		}
	}
	if prev, dup := seen[it.ID]; dup {
		out.Errorf("mcq.duplicate-id", file, it.Line, it.ID, "id %q is already used by the question on line %d; question ids must be unique", it.ID, prev)
		return Item{}, false
	}
	seen[it.ID] = it.Line
	if strings.TrimSpace(it.Question) == "" {
		out.Errorf("mcq.empty-question", file, it.Line, it.ID, "the question text is empty")
	}
	distinct := map[string]int{}
	for i, c := range it.Choices {
		// Case matters: σH and σh are different stresses.
		k := strings.Join(strings.Fields(c), " ")
		if k == "" {
			out.Errorf("mcq.empty-choice", file, it.Line, it.ID, "choice %c is empty", Letters[i])
			continue
		}
		if j, dup := distinct[k]; dup {
			out.Errorf("mcq.duplicate-choice", file, it.Line, it.ID, "choices %c and %c are the same text", Letters[j], Letters[i])
		}
		distinct[k] = i
	}
	if key := n.GetString("answer_key"); key != "" && key != it.Key() {
		out.Errorf("mcq.answer-key", file, it.Line, it.ID, "answer_key is %s but answer_index %d is choice %s; they must agree", key, it.Answer, it.Key())
	}
	return it, true
}

// mcqStats measures a benchmark's balance and warns about biases a model
// could exploit without knowing the answers.
func mcqStats(file string, items []Item, out *finding.List) *MCQStats {
	s := &MCQStats{
		Questions:  len(items),
		KeyCounts:  map[string]int{"A": 0, "B": 0, "C": 0, "D": 0},
		Difficulty: map[string]int{},
		Domains:    map[string]int{},
		Sources:    map[string]int{},
	}
	for i := range items {
		it := &items[i]
		s.KeyCounts[it.Key()]++
		if it.Difficulty != "" {
			s.Difficulty[it.Difficulty]++
		}
		for _, d := range it.Domains {
			s.Domains[d]++
		}
		if it.SourceID != "" {
			s.Sources[it.SourceID]++
		}
		if it.LongestChoice() == it.Answer {
			s.LongestCorrect++
		}
	}
	if s.Questions == 0 {
		return s
	}
	s.LongestRate = float64(s.LongestCorrect) / float64(s.Questions)
	// Below 20 questions a rate says nothing.
	if s.Questions >= 20 && s.LongestRate > maxLongestRate {
		out.Warnf("mcq.longest-bias", file, 0, "", "the correct choice is uniquely the longest in %d of %d questions (%.1f%%; chance is about 25%%): a model that picks the longest choice scores well without knowing the answers", s.LongestCorrect, s.Questions, 100*s.LongestRate)
	}
	if s.Questions >= 20 {
		keys := []string{"A", "B", "C", "D"}
		for _, k := range keys {
			if share := float64(s.KeyCounts[k]) / float64(s.Questions); share > maxKeyShare {
				out.Warnf("mcq.key-bias", file, 0, "", "answer key %s is correct in %.1f%% of questions (chance is 25%%); balance the keys", k, 100*share)
			}
		}
	}
	if len(s.Sources) > 1 {
		lo, hi := s.Questions, 0
		for _, c := range s.Sources {
			lo, hi = min(lo, c), max(hi, c)
		}
		if hi > 4*lo {
			names := make([]string, 0, len(s.Sources))
			for k := range s.Sources {
				names = append(names, k)
			}
			sort.Strings(names)
			out.Warnf("mcq.source-balance", file, 0, "", "sources are unbalanced: from %d to %d questions per source over %d sources; macro-by-source accuracy weighs each source equally", lo, hi, len(names))
		}
	}
	return s
}
