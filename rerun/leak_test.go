package rerun

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fixtures"
)

// fixtureRubric loads the published Yudnamutana rubric from the shared
// fixtures, or skips.
func fixtureRubric(t testing.TB) *benchmark.Rubric {
	t.Helper()
	p := fixtures.Path(t, "groundtruth", "Yudnamutana_QA_grading_key.json")
	b, fs := benchmark.Load(os.DirFS(filepath.Dir(p)), benchmark.Entry{Key: "y", File: filepath.Base(p), Kind: benchmark.KindRubric, JudgeModel: "j"})
	if b == nil {
		t.Fatalf("loading the fixture rubric: %v", fs)
	}
	return b.Rubric
}

// basinRubric loads the repository's basin-analysis rubric.
func basinRubric(t testing.TB) *benchmark.Rubric {
	t.Helper()
	root := fixtures.Root(t)
	b, fs := benchmark.Load(os.DirFS(filepath.Join(root, "rubrics")), benchmark.Entry{Key: "basin", File: "basin-analysis.json", Kind: benchmark.KindRubric, JudgeModel: "j"})
	if b == nil {
		t.Fatalf("loading rubrics/basin-analysis.json: %v", fs)
	}
	return b.Rubric
}

// basinExamples returns the answer_b texts of the repository's example
// submissions to the basin rubric, by submission folder.
func basinExamples(t testing.TB) map[string]map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtures.Root(t), "submissions", "model-benchmark", "*-basin", "scores.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example basin submissions found (%v)", err)
	}
	out := map[string]map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			ID      string `json:"id"`
			AnswerB string `json:"answer_b"`
		}
		if err := json.Unmarshal(data, &rows); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		answers := map[string]string{}
		for _, r := range rows {
			answers[r.ID] = r.AnswerB
		}
		out[filepath.Base(filepath.Dir(f))] = answers
	}
	return out
}

// calibrationAnswers returns every calibration response of a rubric, each
// as an answer to its own question.
func calibrationAnswers(r *benchmark.Rubric) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, q := range r.Questions {
		for _, f := range q.Calibration {
			out[f.ID] = map[string]string{q.ID: f.Response}
		}
	}
	return out
}

// longestShared is the longest run any answer of the set shares with any
// key text, or 0 when none reaches leakLink words.
func longestShared(r *benchmark.Rubric, set map[string]map[string]string) (int, string) {
	best, where := 0, ""
	for name, answers := range set {
		for _, l := range findLeaks(r, answers, 1) {
			if l.Words > best {
				best, where = l.Words, fmt.Sprintf("%s, question %s, %s: %q", name, l.QuestionID, l.Source, l.Excerpt)
			}
		}
	}
	return best, where
}

// TestLeakHonestAnswers checks that honest answers, which share short runs
// with the key because they say the same things, are never flagged, and
// that the threshold keeps a margin over the longest run they share.
func TestLeakHonestAnswers(t *testing.T) {
	const margin = 3
	tests := []struct {
		name   string
		rubric func(testing.TB) *benchmark.Rubric
		set    func(testing.TB, *benchmark.Rubric) map[string]map[string]string
	}{
		{"fixture calibration responses", fixtureRubric, func(_ testing.TB, r *benchmark.Rubric) map[string]map[string]string { return calibrationAnswers(r) }},
		{"basin calibration responses", basinRubric, func(_ testing.TB, r *benchmark.Rubric) map[string]map[string]string { return calibrationAnswers(r) }},
		{"basin example answers", basinRubric, func(t testing.TB, _ *benchmark.Rubric) map[string]map[string]string { return basinExamples(t) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rubric(t)
			set := tt.set(t, r)
			if len(set) == 0 {
				t.Fatal("no honest answers to check")
			}
			n := 0
			for name, answers := range set {
				n += len(answers)
				if leaks := FindLeaks(r, answers); len(leaks) > 0 {
					t.Errorf("%s: honest answer flagged: %+v", name, leaks)
				}
			}
			longest, where := longestShared(r, set)
			t.Logf("%d answers; longest shared run %d words (%s)", n, longest, where)
			if longest+margin > LeakThreshold {
				t.Errorf("longest honest run is %d words, within %d of LeakThreshold %d", longest, margin, LeakThreshold)
			}
		})
	}
}

// sentences splits a key text at full stops, question and exclamation
// marks followed by a space and a capital letter or an opening bracket.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(s); i++ {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!') && s[i+1] == ' ' {
			next, _ := utf8.DecodeRuneInString(s[i+2:])
			if unicode.IsUpper(next) || next == '(' {
				out = append(out, s[start:i+1])
				start = i + 2
			}
		}
	}
	return append(out, s[start:])
}

// changeMiddleWord replaces the middle word of s with one no key uses.
func changeMiddleWord(s string) string {
	toks := leakTokens(s)
	m := toks[len(toks)/2]
	return s[:m.start] + "xylophonist" + s[m.end:]
}

// repunctuate keeps the words of s and changes everything between them.
func repunctuate(s string) string {
	s = strings.NewReplacer(",", "", ". ", ";\n\n- ", "(", "[", ")", "]", "'", "\u2019", "-", " ", ":", " —").Replace(s)
	return "**" + s + "**"
}

const honestPrologue = "Before turning to the details, it helps to restate what is being asked and which evidence bears on it. "
const honestEpilogue = " Taken together, these points answer the question; the remaining uncertainty lies in the data, not in the reasoning."

// pasteVariants are the ways a copied passage is disguised.
var pasteVariants = []struct {
	name string
	edit func(string) string
}{
	{"plain", func(s string) string { return s }},
	{"embedded", func(s string) string { return honestPrologue + s + honestEpilogue }},
	{"re-cased", strings.ToUpper},
	{"re-punctuated", repunctuate},
	{"one word changed", func(s string) string { return honestPrologue + changeMiddleWord(s) + honestEpilogue }},
}

// hasLeak reports whether leaks has one for question q from source src.
func hasLeak(leaks []Leak, q, src string) (Leak, bool) {
	for _, l := range leaks {
		if l.QuestionID == q && l.Source == src {
			return l, true
		}
	}
	return Leak{}, false
}

// TestLeakPastedSentences pastes every pair of consecutive sentences of
// every model answer, disguised in each way, and expects it flagged.
func TestLeakPastedSentences(t *testing.T) {
	rubrics := []struct {
		name string
		load func(testing.TB) *benchmark.Rubric
	}{
		{"basin", basinRubric},
		{"fixture", fixtureRubric},
	}
	for _, rb := range rubrics {
		t.Run(rb.name, func(t *testing.T) {
			r := rb.load(t)
			shortest := 0
			for _, q := range r.Questions {
				ss := sentences(q.ModelAnswer)
				if len(ss) < 2 {
					t.Fatalf("question %s: model answer has %d sentences", q.ID, len(ss))
				}
				for i := 0; i+1 < len(ss); i++ {
					pair := ss[i] + " " + ss[i+1]
					n := len(leakTokens(pair))
					if shortest == 0 || n < shortest {
						shortest = n
					}
					// Without the question text nothing of the key was
					// shown to the candidate, and every word counts.
					unseen := *r
					unseen.Questions = slices.Clone(r.Questions)
					for j := range unseen.Questions {
						unseen.Questions[j].Text = ""
					}
					if l, _ := hasLeak(FindLeaks(&unseen, map[string]string{q.ID: pair}), q.ID, "model_answer"); l.Words != n {
						t.Errorf("question %s, sentences %d–%d pasted, question text aside: Words = %d, want %d", q.ID, i+1, i+2, l.Words, n)
					}
					for _, v := range pasteVariants {
						leaks := FindLeaks(r, map[string]string{q.ID: v.edit(pair)})
						l, ok := hasLeak(leaks, q.ID, "model_answer")
						if !ok {
							t.Errorf("question %s, sentences %d–%d (%d words), %s: not flagged; got %+v", q.ID, i+1, i+2, n, v.name, leaks)
							continue
						}
						if v.name == "plain" && (l.Words > n || l.Words < LeakThreshold) {
							t.Errorf("question %s, sentences %d–%d: Words = %d, want %d at most", q.ID, i+1, i+2, l.Words, n)
						}
					}
				}
			}
			t.Logf("shortest sentence pair: %d words", shortest)
		})
	}
}

// TestLeakSources pastes single key texts, of the answered question and of
// others, and checks the Source named.
func TestLeakSources(t *testing.T) {
	r := basinRubric(t)
	q1, q3 := r.Questions[0], r.Questions[2]
	c2, ok := q1.Component("C2")
	if !ok {
		t.Fatal("basin Q1 has no component C2")
	}
	pair := func(s string) string { ss := sentences(s); return ss[0] + " " + ss[1] }
	tests := []struct {
		name   string
		q      string
		answer string
		source string
	}{
		{"own principle", q1.ID, q1.Principle, "principle"},
		{"own pass condition", q1.ID, honestPrologue + q1.Gate.PassCondition, "pass_condition"},
		{"own credit_if", q1.ID, c2.CreditIf + honestEpilogue, "credit_if C2"},
		{"other model answer", q1.ID, honestPrologue + pair(q3.ModelAnswer) + honestEpilogue, "model_answer of " + q3.ID},
		{"other principle", q3.ID, strings.ToLower(q1.Principle), "principle of " + q1.ID},
		{"answer to an unknown question", "Z9", pair(q3.ModelAnswer), "model_answer of " + q3.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leaks := FindLeaks(r, map[string]string{tt.q: tt.answer})
			if _, ok := hasLeak(leaks, tt.q, tt.source); !ok {
				t.Errorf("no leak from %q; got %+v", tt.source, leaks)
			}
			for _, l := range leaks {
				if l.Words < LeakThreshold || l.Excerpt == "" {
					t.Errorf("malformed leak %+v", l)
				}
			}
		})
	}
}

// TestLeakOrder checks the order of the result and that each key text is
// reported once per answer, however often it is pasted.
func TestLeakOrder(t *testing.T) {
	r := basinRubric(t)
	q1, q2, q4 := r.Questions[0], r.Questions[1], r.Questions[3]
	answers := map[string]string{
		"ZZ":  q2.Principle,
		q4.ID: q4.ModelAnswer + " " + q4.ModelAnswer + " " + q4.Principle,
		q1.ID: q1.Principle + " " + q2.ModelAnswer + " " + q1.Principle,
		q2.ID: "A short honest answer.",
	}
	leaks := FindLeaks(r, answers)
	var got []string
	for _, l := range leaks {
		got = append(got, fmt.Sprintf("%s/%s", l.QuestionID, l.Source))
	}
	want := []string{
		q1.ID + "/model_answer of " + q2.ID,
		q1.ID + "/principle",
		q4.ID + "/model_answer",
		q4.ID + "/principle",
		"ZZ/principle of " + q2.ID,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("leaks = %q\nwant    %q", got, want)
	}
	for i := 1; i < len(leaks); i++ {
		if leaks[i].QuestionID == leaks[i-1].QuestionID && leaks[i].Words > leaks[i-1].Words {
			t.Errorf("%v before the longer %v", leaks[i-1], leaks[i])
		}
	}
}

// synthRubric is a one-question rubric with the given question and model
// answer.
func synthRubric(question, modelAnswer string) *benchmark.Rubric {
	return &benchmark.Rubric{Questions: []benchmark.RubricQuestion{{
		ID:          "Q1",
		Text:        question,
		ModelAnswer: modelAnswer,
		Principle:   "Short.",
		Gate:        benchmark.Gate{ComponentID: "C1", PassCondition: "Passes."},
		Components:  []benchmark.Component{{ID: "C1", CreditIf: "Credited."}},
	}}}
}

// TestLeakEdgeCases covers inputs with nothing to find, other scripts, and
// key text the candidate was shown in the question.
func TestLeakEdgeCases(t *testing.T) {
	const french = "Le réservoir est scellé par une argile compactée; la pression capillaire d'entrée dépasse la flottabilité de la colonne d'huile à chaque profondeur étudiée."
	const greekJapanese = "Η πίεση των πόρων αυξάνεται γρήγορα κάτω από τη σφράγιση και το ρευστό παραμένει παγιδευμένο. 貯留層の圧力は急速に上昇する。"
	question := "Explain why the pore pressure rises below the seal in this basin and what the measured pressure gradient tells you about the trap."
	tests := []struct {
		name   string
		r      *benchmark.Rubric
		answer string
		want   bool
	}{
		{"nil rubric", nil, "anything", false},
		{"empty rubric", &benchmark.Rubric{}, french, false},
		{"empty answer", synthRubric(question, french), "", false},
		{"whitespace answer", synthRubric(question, french), " \n\t ", false},
		{"punctuation only", synthRubric(question, french), "…—!?;:**__", false},
		{"accented, re-cased", synthRubric(question, french), strings.ToUpper(french), true},
		{"curly apostrophes", synthRubric(question, french), strings.ReplaceAll(french, "'", "\u2019"), true},
		{"zero-width spaces inside words", synthRubric(question, french), strings.ReplaceAll(french, "ss", "s\u200bs"), true},
		{"greek and japanese", synthRubric(question, greekJapanese), "Όπως είπαμε: " + strings.ToUpper(greekJapanese), true},
		{"invalid utf-8", synthRubric(question, french), "\xff\xfe" + french[:40] + "\xc3", false},
		{"question restated", synthRubric(question, question+" "+french), "The question asks us to " + strings.ToLower(question), false},
		{"question restated with the key", synthRubric(question, question+" "+french), question + " " + french, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leaks := FindLeaks(tt.r, map[string]string{"Q1": tt.answer})
			if got := len(leaks) > 0; got != tt.want {
				t.Errorf("flagged = %v, want %v: %+v", got, tt.want, leaks)
			}
			for _, l := range leaks {
				if !utf8.ValidString(l.Excerpt) {
					t.Errorf("excerpt is not valid UTF-8: %q", l.Excerpt)
				}
			}
		})
	}
}

// TestLeakTokens pins the normalisation.
func TestLeakTokens(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"**Short answer:** the ROCK", "short answer the rock"},
		{"peak-to-late oil window", "peak to late oil window"},
		{"calc‑silicate — marble", "calc silicate marble"},
		{"don't vs don’t vs 'quoted'", "dont vs dont vs quoted"},
		{"1.1 %Ro at 3.2 km, 1,000 m; 25 °C/km.", "1.1 ro at 3.2 km 1,000 m 25 c km"},
		{"end. 2. Next", "end 2 next"},
		{"Élan ÉCOLE straße", "élan école straße"},
		{"ΟΔΟΣ οδός", "οδοσ οδόσ"},
		{"soft\u00adhyphen zero\u200bwidth", "softhyphen zerowidth"},
		{"貯留層 abc", "貯 留 層 abc"},
		{"x_y+z", "x y z"},
	}
	for _, tt := range tests {
		var got []string
		for _, tok := range leakTokens(tt.in) {
			got = append(got, tok.word)
			if tok.start < 0 || tok.end > len(tt.in) || tok.start >= tok.end {
				t.Errorf("%q: token %+v out of range", tt.in, tok)
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("leakTokens(%q) = %q, want %q", tt.in, g, tt.want)
		}
	}
}

// TestLeakExcerpt checks that long passages are shortened for display.
func TestLeakExcerpt(t *testing.T) {
	r := basinRubric(t)
	q := r.Questions[0]
	leaks := FindLeaks(r, map[string]string{q.ID: q.ModelAnswer})
	l, ok := hasLeak(leaks, q.ID, "model_answer")
	if !ok {
		t.Fatalf("whole model answer not flagged: %+v", leaks)
	}
	if l.Words != len(leakTokens(q.ModelAnswer)) {
		t.Errorf("Words = %d, want all %d", l.Words, len(leakTokens(q.ModelAnswer)))
	}
	if !strings.Contains(l.Excerpt, " … ") || len(strings.Fields(l.Excerpt)) > leakExcerptHead+leakExcerptTail+1+4 {
		t.Errorf("excerpt not shortened: %q", l.Excerpt)
	}
	if !strings.HasPrefix(q.ModelAnswer, strings.SplitN(l.Excerpt, " … ", 2)[0]) {
		t.Errorf("excerpt %q does not start the model answer as written", l.Excerpt)
	}
}

// longAnswer returns about n words drawn at random from the rubric's key
// texts, the hardest honest-looking input: every word is a key word.
func longAnswer(r *benchmark.Rubric, n int) string {
	var vocab []string
	for _, q := range r.Questions {
		for _, tok := range leakTokens(q.ModelAnswer + " " + q.Principle) {
			vocab = append(vocab, tok.word)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(vocab[rng.IntN(len(vocab))])
		b.WriteByte(' ')
	}
	return b.String()
}

// TestLeakLongAnswers runs 20,000-word answers, random and repetitive.
func TestLeakLongAnswers(t *testing.T) {
	r := basinRubric(t)
	q := r.Questions[1]
	ss := sentences(q.ModelAnswer)
	pasted := ss[2] + " " + ss[3]
	repeated := strings.Repeat(q.ModelAnswer+" ", 20000/len(leakTokens(q.ModelAnswer))+1)
	monotone := strings.Repeat("the ", 20000)
	tests := []struct {
		name   string
		answer string
		want   []string // sources flagged
	}{
		{"random key words", longAnswer(r, 20000), nil},
		{"random key words with a paste", longAnswer(r, 10000) + pasted + longAnswer(r, 10000), []string{"model_answer"}},
		{"the model answer over and over", repeated, []string{"model_answer"}},
		{"one word repeated", monotone, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			leaks := FindLeaks(r, map[string]string{q.ID: tt.answer})
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			var got []string
			for _, l := range leaks {
				if l.QuestionID == q.ID && !strings.Contains(l.Source, " of ") {
					got = append(got, l.Source)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("own sources flagged = %q, want %q (all: %+v)", got, tt.want, leaks)
			}
		})
	}
}

// BenchmarkFindLeaks measures a 20,000-word answer to each of the basin
// rubric's questions.
func BenchmarkFindLeaks(b *testing.B) {
	r := basinRubric(b)
	answers := map[string]string{}
	for _, q := range r.Questions {
		answers[q.ID] = longAnswer(r, 20000)
	}
	b.ResetTimer()
	for b.Loop() {
		FindLeaks(r, answers)
	}
}

// FuzzFindLeaks checks that FindLeaks never panics, that what it returns
// is well formed, and that an answer equal to a long enough key is always
// flagged.
func FuzzFindLeaks(f *testing.F) {
	f.Fuzz(func(t *testing.T, answer, key string) {
		r := &benchmark.Rubric{Questions: []benchmark.RubricQuestion{
			{ID: "Q1", ModelAnswer: key, Principle: answer, Gate: benchmark.Gate{PassCondition: key}},
			{ID: "Q2", Text: answer, ModelAnswer: answer + " " + key, Components: []benchmark.Component{{ID: "C1", CreditIf: key}}},
		}}
		leaks := FindLeaks(r, map[string]string{"Q1": answer, "Q2": key, "Q3": answer + key})
		seen := map[string]bool{}
		order := map[string]int{"Q1": 0, "Q2": 1, "Q3": 2}
		for i, l := range leaks {
			if l.Words < LeakThreshold {
				t.Errorf("leak below the threshold: %+v", l)
			}
			if len(l.Excerpt) > leakExcerptMaxBytes+len("…") {
				t.Errorf("excerpt of %d bytes", len(l.Excerpt))
			}
			if !utf8.ValidString(l.Excerpt) {
				t.Errorf("invalid excerpt %q", l.Excerpt)
			}
			k := l.QuestionID + "\x00" + l.Source
			if seen[k] {
				t.Errorf("two leaks for %s from %s", l.QuestionID, l.Source)
			}
			seen[k] = true
			if i > 0 {
				p := leaks[i-1]
				if order[p.QuestionID] > order[l.QuestionID] || p.QuestionID == l.QuestionID && p.Words < l.Words {
					t.Errorf("out of order: %+v before %+v", p, l)
				}
			}
		}
		if n := len(leakTokens(key)); n >= LeakThreshold {
			if l, ok := hasLeak(FindLeaks(r, map[string]string{"Q1": key}), "Q1", "model_answer"); !ok || l.Words != n {
				t.Errorf("a %d-word key pasted whole gave %+v", n, l)
			}
		}
	})
}
