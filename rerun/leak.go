package rerun

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/safetext"
)

// Leak is one answer that reproduces the grading key.
type Leak struct {
	// QuestionID is the answered question.
	QuestionID string `json:"question_id"`
	// Source names the key text reproduced: "model_answer", "principle",
	// "pass_condition" or "credit_if C2" for a text of the answered
	// question, followed by " of B2" when the text belongs to question B2.
	Source string `json:"source"`
	// Words is the number of key words the answer reproduces in its
	// longest shared run (see LeakThreshold for what a run may bridge).
	// It is at least LeakThreshold.
	Words int `json:"words"`
	// Excerpt is the reproduced passage as the key writes it, shortened
	// for display.
	Excerpt string `json:"excerpt"`
}

// LeakThreshold is the number of reproduced key words from which an answer
// counts as copying the grading key.
//
// Texts are compared as word sequences (see leakTokens), so letter case,
// punctuation, Markdown and line breaks do not matter. A shared run is a
// stretch of the key reproduced in order by the answer: one exact run of
// words, or several exact runs of at least leakLink words each, one after
// the other in both texts, with at most leakGap words of either text
// between two of them, so that a changed, inserted, dropped or swapped
// word does not hide a copy. Only the key words matched count, and words
// the key shares with the answered question's own text do not (the
// candidate was shown those). An answer leaks a key text when such a run
// reaches LeakThreshold words.
//
// The number comes from honest answers. The published Yudnamutana rubric's
// expert calibration answers share runs of up to 11 words with their key
// and the example submissions' answers to the basin-analysis rubric up to
// 9, and neither ever bridges two runs of leakLink words, so 15 leaves a
// margin of four words over the longest honest overlap. On the other side,
// the shortest two consecutive sentences of any model answer of these
// rubrics have 17 words: pasted whole they share 17, and with one word
// changed in the middle two runs of 8 that bridge to 16 (a pair of 21 or
// more words is caught whichever single word is changed).
const LeakThreshold = 15

const (
	// leakLink is the shortest exact run that may be bridged to another.
	// Shorter links chain honest close paraphrase: with links of 5 a
	// calibration answer that lists the same deposits as its key, in
	// nearly the key's words, bridges to 12 words, and with 4 an example
	// answer bridges to 16, over the threshold; with 6 no honest text
	// bridges at all.
	leakLink = 6
	// leakGap is the most words of either text between two bridged runs.
	leakGap = 2

	leakExcerptHead     = 10  // words shown before the ellipsis
	leakExcerptTail     = 6   // words shown after it
	leakExcerptMaxBytes = 300 // guards against a single enormous "word"
)

// FindLeaks returns the answers (question id → answer text) that reproduce
// grading-key text of the rubric: the model_answer, principle,
// gate pass_condition or any component's credit_if of the answered
// question or of any other question, for an answer may paste the key of
// another question. It needs no judge and reads nothing but its
// arguments.
//
// The result follows the rubric's question order, with answers to ids the
// rubric lacks last, ordered by id; within a question the longest run comes
// first. There is at most one Leak per answered question and key text.
func FindLeaks(r *benchmark.Rubric, answers map[string]string) []Leak {
	return findLeaks(r, answers, LeakThreshold)
}

// findLeaks is FindLeaks reporting runs of least words or more; a small
// least measures how much honest answers share with the key.
func findLeaks(r *benchmark.Rubric, answers map[string]string, least int) []Leak {
	if r == nil || len(answers) == 0 {
		return nil
	}
	x := newLeakIndex(r)
	if len(x.keys) == 0 {
		return nil
	}
	pos := make(map[string]int, len(r.Questions))
	for i, q := range r.Questions {
		if _, dup := pos[q.ID]; !dup {
			pos[q.ID] = i
		}
	}
	ids := make([]string, 0, len(answers))
	for id := range answers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		pi, iok := pos[ids[i]]
		pj, jok := pos[ids[j]]
		if iok != jok {
			return iok
		}
		if iok && pi != pj {
			return pi < pj
		}
		return ids[i] < ids[j]
	})

	var out []Leak
	for _, id := range ids {
		qi, ok := pos[id]
		if !ok {
			qi = -1
		}
		var seen []int32
		if qi >= 0 {
			seen = x.ids(leakTokens(r.Questions[qi].Text))
		}
		out = append(out, x.leaks(r, id, qi, x.ids(leakTokens(answers[id])), seen, least)...)
	}
	return out
}

// leakToken is one normalised word and where it stands in its text.
type leakToken struct {
	word       string
	start, end int // byte offsets of the word in the original text
}

// leakTokens splits s into lower-case words of Unicode letters, digits and
// combining marks. Everything else separates words, with these exceptions:
//   - an apostrophe between two word characters is dropped ("don't" is
//     "dont"), so straight and curly apostrophes compare equal;
//   - a '.' or ',' between two digits stays ("3.2", "1,000"), so numbers
//     remain whole;
//   - invisible format characters (soft hyphens, zero-width spaces and
//     joiners) are dropped, so they cannot be slipped into words to hide a
//     copy;
//   - Greek final sigma is folded to σ, as upper-casing and lower-casing
//     again would;
//   - each Han, Hiragana or Katakana character is a word of its own, since
//     those scripts put no spaces between words.
//
// Hyphens and dashes separate, so "calc-silicate" and "calc silicate" are
// the same two words. Text is not Unicode-normalised (the standard library
// has no tables for it), so an accent written as a combining mark differs
// from the same accented letter written as one character.
func leakTokens(s string) []leakToken {
	var toks []leakToken
	var b strings.Builder
	start, end := -1, 0
	lastDigit := false
	flush := func() {
		if start >= 0 {
			toks = append(toks, leakToken{word: b.String(), start: start, end: end})
		}
		b.Reset()
		start = -1
		lastDigit = false
	}
	for i := 0; i < len(s); {
		c, w := utf8.DecodeRuneInString(s[i:])
		next, _ := utf8.DecodeRuneInString(s[i+w:])
		switch {
		case unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana):
			flush()
			toks = append(toks, leakToken{word: string(c), start: i, end: i + w})
		case c == '\'' || c == '\u2019' || c == '\u02bc':
			if start < 0 || !leakWordRune(next) {
				flush()
			}
		case (c == '.' || c == ',') && lastDigit && unicode.IsDigit(next):
			b.WriteRune(c)
			lastDigit = false
		case unicode.Is(unicode.Cf, c):
			// invisible: neither part of a word nor a break
		case leakWordRune(c):
			if start < 0 {
				start = i
			}
			if c = unicode.ToLower(c); c == 'ς' {
				c = 'σ'
			}
			b.WriteRune(c)
			end = i + w
			lastDigit = unicode.IsDigit(c)
		default:
			flush()
		}
		i += w
	}
	flush()
	return toks
}

func leakWordRune(c rune) bool {
	return unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.Is(unicode.M, c)
}

// leakKey is one grading-key text.
type leakKey struct {
	q     int    // index of its question in the rubric
	field string // "model_answer", "credit_if C2", …
	text  string
	toks  []leakToken
	ids   []int32 // word ids, one per token
}

// leakPost is where a leakLink-word n-gram occurs: key and word position.
type leakPost struct{ key, pos int32 }

// leakIndex holds every key text of a rubric, its words as small integers
// and all its leakLink-word n-grams, so that one pass over an answer finds
// every shared run of leakLink words or more in all key texts at once.
type leakIndex struct {
	vocab map[string]int32
	keys  []leakKey
	grams map[[leakLink]int32][]leakPost
}

func newLeakIndex(r *benchmark.Rubric) *leakIndex {
	x := &leakIndex{vocab: map[string]int32{}, grams: map[[leakLink]int32][]leakPost{}}
	add := func(q int, field, text string) {
		toks := leakTokens(text)
		if len(toks) < leakLink {
			return // too short to hold a run that counts
		}
		ids := make([]int32, len(toks))
		for i, t := range toks {
			id, ok := x.vocab[t.word]
			if !ok {
				id = int32(len(x.vocab))
				x.vocab[t.word] = id
			}
			ids[i] = id
		}
		k := int32(len(x.keys))
		x.keys = append(x.keys, leakKey{q: q, field: field, text: text, toks: toks, ids: ids})
		var g [leakLink]int32
		for i := 0; i+leakLink <= len(ids); i++ {
			copy(g[:], ids[i:])
			x.grams[g] = append(x.grams[g], leakPost{key: k, pos: int32(i)})
		}
	}
	for qi, q := range r.Questions {
		add(qi, "model_answer", q.ModelAnswer)
		add(qi, "principle", q.Principle)
		add(qi, "pass_condition", q.Gate.PassCondition)
		for _, c := range q.Components {
			add(qi, "credit_if "+c.ID, c.CreditIf)
		}
	}
	return x
}

// ids maps words to their key-vocabulary ids; a word no key uses gets -1,
// which matches nothing.
func (x *leakIndex) ids(toks []leakToken) []int32 {
	ids := make([]int32, len(toks))
	for i, t := range toks {
		id, ok := x.vocab[t.word]
		if !ok {
			id = -1
		}
		ids[i] = id
	}
	return ids
}

// leakRun is a maximal run of n words shared by a text (from word a) and
// key text key (from word k).
type leakRun struct{ key, a, k, n int }

// runs returns every maximal shared run of at least leakLink words between
// the word ids a and any key text. Each matching n-gram is looked up once
// and each run is extended once: a hit that lies inside a run already found
// on the same diagonal (same key, same offset between the texts) is
// skipped, so the work grows with the text plus the runs, not with their
// product.
func (x *leakIndex) runs(a []int32) []leakRun {
	var out []leakRun
	ends := map[[2]int]int{} // key, a−k → end in a of the last run found
	var g [leakLink]int32
	for i := 0; i+leakLink <= len(a); i++ {
		copy(g[:], a[i:])
		for _, p := range x.grams[g] {
			k := int(p.pos)
			diag := [2]int{int(p.key), i - k}
			if ends[diag] > i {
				continue
			}
			ids := x.keys[p.key].ids
			n := leakLink
			for i+n < len(a) && k+n < len(ids) && a[i+n] == ids[k+n] {
				n++
			}
			ends[diag] = i + n
			out = append(out, leakRun{key: int(p.key), a: i, k: k, n: n})
		}
	}
	return out
}

// leaks checks one answer (word ids ans) to question qi (−1 when the
// rubric has no such question), whose question text has word ids seen,
// and reports the key texts it shares runs of least words or more with.
func (x *leakIndex) leaks(r *benchmark.Rubric, id string, qi int, ans, seen []int32, least int) []Leak {
	runs := x.runs(ans)
	if len(runs) == 0 {
		return nil
	}
	// shown[key] counts, for each prefix of the key, the words the key
	// shares with the question text, which the candidate was allowed to
	// repeat.
	shown := map[int][]int{}
	for _, s := range x.runs(seen) {
		c := shown[s.key]
		if c == nil {
			c = make([]int, len(x.keys[s.key].ids)+1)
			shown[s.key] = c
		}
		for j := s.k; j < s.k+s.n; j++ {
			c[j+1] = 1
		}
	}
	for _, c := range shown {
		for j := 1; j < len(c); j++ {
			c[j] += c[j-1]
		}
	}

	sort.Slice(runs, func(i, j int) bool {
		if runs[i].key != runs[j].key {
			return runs[i].key < runs[j].key
		}
		return runs[i].k < runs[j].k
	})
	type found struct {
		Leak
		key int
	}
	var fs []found
	for lo := 0; lo < len(runs); {
		hi := lo
		for hi < len(runs) && runs[hi].key == runs[lo].key {
			hi++
		}
		key := runs[lo].key
		words, from, to := leakChain(runs[lo:hi], shown[key])
		lo = hi
		if words < least || words == 0 {
			continue
		}
		k := &x.keys[key]
		src := k.field
		if k.q != qi {
			src += " of " + r.Questions[k.q].ID
		}
		fs = append(fs, found{Leak{QuestionID: id, Source: src, Words: words, Excerpt: leakExcerpt(k, from, to)}, key})
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Words != fs[j].Words {
			return fs[i].Words > fs[j].Words
		}
		oi, oj := x.keys[fs[i].key].q == qi, x.keys[fs[j].key].q == qi
		if oi != oj {
			return oi
		}
		return fs[i].key < fs[j].key
	})
	out := make([]Leak, len(fs))
	for i, f := range fs {
		out[i] = f.Leak
	}
	return out
}

// leakChain finds the best chain of runs of one key text, sorted by their
// start in the key: consecutive in both texts with at most leakGap words
// between links. It returns the key words matched, not counting those
// marked in shown (prefix counts; nil for none), and the chain's span of
// key words [from, to).
func leakChain(runs []leakRun, shown []int) (words, from, to int) {
	type link struct{ words, from int }
	best := make([]link, len(runs))
	// Maximal runs never share an end point in both texts (they would lie
	// on one diagonal and overlap), so an end identifies a run.
	byEnd := make(map[[2]int]int, len(runs))
	for i, u := range runs {
		w := u.n
		if shown != nil {
			w -= shown[u.k+u.n] - shown[u.k]
		}
		best[i] = link{words: w, from: u.k}
		for gk := 0; gk <= leakGap; gk++ {
			for ga := 0; ga <= leakGap; ga++ {
				p, ok := byEnd[[2]int{u.k - gk, u.a - ga}]
				if ok && best[p].words+w > best[i].words {
					best[i] = link{words: best[p].words + w, from: best[p].from}
				}
			}
		}
		byEnd[[2]int{u.k + u.n, u.a + u.n}] = i
		if best[i].words > words {
			words, from, to = best[i].words, best[i].from, u.k+u.n
		}
	}
	return words, from, to
}

// leakExcerpt shows key words [from, to) as the key writes them, with the
// middle of a long passage elided and whitespace collapsed.
func leakExcerpt(k *leakKey, from, to int) string {
	part := func(i, j int) string {
		return strings.Join(strings.Fields(k.text[k.toks[i].start:k.toks[j-1].end]), " ")
	}
	var s string
	if to-from > leakExcerptHead+leakExcerptTail+2 {
		s = part(from, from+leakExcerptHead) + " … " + part(to-leakExcerptTail, to)
	} else {
		s = part(from, to)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) > leakExcerptMaxBytes {
		s = safetext.Cut(s, leakExcerptMaxBytes) + "…"
	}
	return s
}
