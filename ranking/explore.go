package ranking

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/extract"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// ExploreDir is the folder, beside index.html, of the instance explorer's
// files: one per ranked entry with its answers question by question, and
// one per benchmark with its questions and every entry's answer to each.
// The page fetches them only when a reader opens a model or a question,
// so that it stays small however many questions a benchmark has.
const ExploreDir = "explore"

// ModelAnswers is one entry's file of the explorer.
type ModelAnswers struct {
	Benchmark string           `json:"benchmark"`
	Kind      benchmark.Kind   `json:"kind"`
	Track     submission.Track `json:"track"`
	Model     string           `json:"model"`
	Harness   string           `json:"harness,omitempty"`
	Path      string           `json:"path"`
	Answers   []AnswerView     `json:"answers"`
}

// AnswerView is one answer as the explorer shows it. Multiple choice: the
// letter submitted, the letter the benchmark's extraction reads in the
// stored response, the rule that read it, and whether the answer is
// unverifiable (stored cut short, so more text could change the letter)
// or disputed (the letter read is not the letter submitted). Rubric: the
// judge's points (nil when unscored), the gate, the reason and each
// component's award, and whether the grade went to adjudication.
type AnswerView struct {
	ID           string `json:"id"`
	Response     string `json:"response"`
	Reasoning    string `json:"reasoning,omitempty"`
	Truncated    bool   `json:"truncated,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	Error        string `json:"error,omitempty"`

	Answer       string `json:"answer,omitempty"`
	Key          string `json:"key,omitempty"`
	Correct      *bool  `json:"correct,omitempty"`
	Read         string `json:"read,omitempty"`
	Pattern      string `json:"pattern,omitempty"`
	Unverifiable bool   `json:"unverifiable,omitempty"`
	Disputed     bool   `json:"disputed,omitempty"`

	Points      *float64         `json:"points,omitempty"`
	GatePassed  *bool            `json:"gate_passed,omitempty"`
	Reason      string           `json:"reason,omitempty"`
	Components  []ComponentAward `json:"components,omitempty"`
	Adjudicate  bool             `json:"adjudicate,omitempty"`
	AdjNote     string           `json:"adjudication_note,omitempty"`
	JudgeModel  string           `json:"judge_model,omitempty"`
	CleanAnswer string           `json:"answer_clean,omitempty"`
}

// ComponentAward is the judge's award for one rubric component.
type ComponentAward struct {
	ID      string   `json:"id"`
	Awarded *float64 `json:"awarded"`
	Maximum *float64 `json:"maximum"`
	Reason  string   `json:"reason,omitempty"`
}

// QuestionIndex is one benchmark's file of the explorer: its questions and,
// for each entry, its answer to every one of them in a compact form.
type QuestionIndex struct {
	Benchmark string          `json:"benchmark"`
	Kind      benchmark.Kind  `json:"kind"`
	MaxPoints int             `json:"max_points,omitempty"`
	Questions []QuestionView  `json:"questions"`
	Entries   []QuestionEntry `json:"entries"`
}

// QuestionView is one question: its text, and for multiple choice the
// choices and the key.
type QuestionView struct {
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Choices []string `json:"choices,omitempty"`
	Key     string   `json:"key,omitempty"`
}

// QuestionEntry is one entry's answers in question order. Multiple
// choice: Letters holds a character per question, the letter submitted,
// "-" for none, in lower case when the answer is unverifiable. Rubric:
// Points holds the points per question, -1 where unscored.
type QuestionEntry struct {
	File    string           `json:"file"` // the entry's ModelAnswers, relative to the page
	Model   string           `json:"model"`
	Harness string           `json:"harness,omitempty"`
	Track   submission.Track `json:"track"`
	Letters string           `json:"letters,omitempty"`
	Points  []float64        `json:"points,omitempty"`
}

// AnswersFile is where an entry's answers are, relative to the page.
func AnswersFile(bm *Benchmark, e Entry) string {
	return ExploreDir + "/" + fileSafe(bm.Key) + "/" + fileSafe(e.Track.Short()+"-"+e.Slug) + ".json"
}

// QuestionsFile is where a benchmark's questions are, relative to the page.
func QuestionsFile(bm *Benchmark) string {
	return ExploreDir + "/" + fileSafe(bm.Key) + "/questions.json"
}

// fileSafe keeps a name to the letters a URL path and every file system
// take as they are (no "." first, no ".."); a name that had to change gets
// a short hash of the original, so that two names never become one.
func fileSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.' && b.Len() > 0 && !strings.HasSuffix(b.String(), "."):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.String() == s && s != "" {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return b.String() + "-" + hex.EncodeToString(sum[:4])
}

// exploreFiles renders the explorer's files for every ranked entry of b,
// by path relative to the page. Each entry's scores.json is read again
// from the tree, entries in parallel; with cache set, an entry whose
// scores.json, names and benchmark are unchanged is not decoded again.
func exploreFiles(fsys fs.FS, v *verify.Verifier, b *Board, cache Store) (map[string][]byte, error) {
	out := map[string][]byte{}
	for i := range b.Benchmarks {
		bm := &b.Benchmarks[i]
		if len(bm.Entries) == 0 {
			continue
		}
		src, _ := v.Benchmark(bm.Key)
		if src == nil {
			continue
		}
		answers := make([]*ModelAnswers, len(bm.Entries))
		data := make([][]byte, len(bm.Entries))
		errs := make([]error, len(bm.Entries))
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for j, e := range bm.Entries {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				answers[j], data[j], errs[j] = entryAnswers(fsys, src, bm, e, cache)
			}()
		}
		wg.Wait()
		for j, e := range bm.Entries {
			if errs[j] != nil {
				return nil, fmt.Errorf("%s: %w", e.Path, errs[j])
			}
			out[AnswersFile(bm, e)] = data[j]
		}
		idx := questionIndex(src, bm, answers)
		js, err := marshalCompact(idx)
		if err != nil {
			return nil, err
		}
		out[QuestionsFile(bm)] = js
	}
	return out, nil
}

// entryAnswers reads one entry's scores.json and makes its file, through
// the cache when it is set. The key holds the file's bytes, not the
// verification result: a response edited without changing its letter
// verifies the same, and must still show as it now reads.
func entryAnswers(fsys fs.FS, src *benchmark.Benchmark, bm *Benchmark, e Entry, cache Store) (*ModelAnswers, []byte, error) {
	raw, err := fs.ReadFile(fsys, path.Join(e.Path, submission.ScoresFile))
	if err != nil {
		return nil, nil, err
	}
	var key string
	if cache != nil {
		h := sha256.New()
		names, _ := json.Marshal([]string{e.Path, string(e.Track), e.ModelName, harnessSuffix(e)})
		sum := sha256.Sum256(raw)
		fmt.Fprintf(h, "explore 2\n%s\n%s\n%s\n%s\n%x\n", filecache.CodeVersion(), src.SHA256, src.Entry.Extraction, names, sum)
		key = hex.EncodeToString(h.Sum(nil))
		if data, ok := cache.Get(key); ok {
			var m ModelAnswers
			if json.Unmarshal(data, &m) == nil {
				return &m, data, nil
			}
		}
	}
	var rows []scoresRow
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", submission.ScoresFile, err)
	}
	m, err := modelAnswers(src, bm, e, rows)
	if err != nil {
		return nil, nil, err
	}
	data, err := marshalCompact(m)
	if err != nil {
		return nil, nil, err
	}
	if key != "" {
		cache.Put(key, data)
	}
	return m, data, nil
}

// scoresRow is what the explorer shows of a row of scores.json, either
// kind; the names are the schema's (schemas/scores-*.schema.json). The
// file passed verification in this run, so it is decoded plainly here:
// checking it again through its schema would double the cost of a board.
type scoresRow struct {
	ID           string `json:"id"`
	Response     string `json:"response"`
	Reasoning    string `json:"reasoning"`
	Truncated    bool   `json:"response_truncated"`
	Answer       string `json:"answer"`
	FinishReason string `json:"finish_reason"`
	Error        string `json:"error"`

	AnswerB    string   `json:"answer_b"`
	CleanB     *string  `json:"answer_b_clean"`
	Score      *float64 `json:"score_b"`
	Reason     string   `json:"score_b_reason"`
	GatePassed *bool    `json:"score_b_gate_passed"`
	Components []struct {
		ID      string   `json:"id"`
		Awarded *float64 `json:"awarded"`
		Maximum *float64 `json:"maximum"`
		Reason  string   `json:"reason"`
	} `json:"score_b_components"`
	Adjudicate bool   `json:"score_b_adjudication_required"`
	AdjNote    string `json:"score_b_adjudication_note"`
	JudgeModel string `json:"judge_model"`
}

// modelAnswers puts an entry's rows in the benchmark's question order.
func modelAnswers(src *benchmark.Benchmark, bm *Benchmark, e Entry, rows []scoresRow) (*ModelAnswers, error) {
	m := &ModelAnswers{Benchmark: bm.Key, Kind: bm.Kind, Track: e.Track, Model: e.ModelName, Harness: harnessSuffix(e), Path: e.Path, Answers: []AnswerView{}}
	byQ := make([]*AnswerView, src.Questions())
	var policy extract.Policy
	if src.Rubric == nil {
		p, err := extract.Lookup(src.Entry.Extraction)
		if err != nil {
			return nil, err
		}
		policy = p
	}
	for _, r := range rows {
		qi, ok := src.Index(r.ID)
		if !ok || byQ[qi] != nil {
			continue
		}
		if src.Rubric != nil {
			a := &AnswerView{ID: r.ID, Response: r.AnswerB, Reasoning: r.Reasoning, Points: r.Score, Reason: r.Reason, GatePassed: r.GatePassed,
				Adjudicate: r.Adjudicate, AdjNote: r.AdjNote, JudgeModel: r.JudgeModel}
			if r.CleanB != nil && *r.CleanB != r.AnswerB {
				a.CleanAnswer = *r.CleanB
			}
			for _, c := range r.Components {
				a.Components = append(a.Components, ComponentAward{ID: c.ID, Awarded: c.Awarded, Maximum: c.Maximum, Reason: c.Reason})
			}
			byQ[qi] = a
			continue
		}
		key := src.Items[qi].Key()
		correct := r.Answer == key
		got := policy.Extract(r.Response)
		a := &AnswerView{ID: r.ID, Response: r.Response, Reasoning: r.Reasoning, Truncated: r.Truncated, FinishReason: r.FinishReason, Error: r.Error,
			Answer: r.Answer, Key: key, Correct: &correct, Read: got.Letter, Pattern: got.Pattern}
		// As verification judges them: an answer cut short where more
		// text could change the letter is evidence neither way; any
		// other whose letter is not the one read is disputed.
		if r.Truncated && !got.Final {
			a.Unverifiable = true
		} else if got.Letter != r.Answer {
			a.Disputed = true
		}
		byQ[qi] = a
	}
	for i, a := range byQ {
		if a == nil {
			// A question the submission left out: shown as unanswered.
			a = &AnswerView{ID: src.QuestionID(i)}
			if src.Rubric == nil {
				no := false
				a.Key, a.Correct = src.Items[i].Key(), &no
			}
		}
		m.Answers = append(m.Answers, *a)
	}
	return m, nil
}

// questionIndex is a benchmark's questions, with every entry's answers.
func questionIndex(src *benchmark.Benchmark, bm *Benchmark, answers []*ModelAnswers) *QuestionIndex {
	idx := &QuestionIndex{Benchmark: bm.Key, Kind: bm.Kind, Questions: []QuestionView{}, Entries: []QuestionEntry{}}
	if src.Rubric != nil {
		idx.MaxPoints = src.Rubric.TotalPoints
		for _, q := range src.Rubric.Questions {
			text := q.Text
			if q.Title != "" && text == "" {
				text = q.Title
			}
			idx.Questions = append(idx.Questions, QuestionView{ID: q.ID, Text: text})
		}
	} else {
		for i := range src.Items {
			it := &src.Items[i]
			idx.Questions = append(idx.Questions, QuestionView{ID: it.ID, Text: it.Question, Choices: it.Choices[:], Key: it.Key()})
		}
	}
	for j, e := range bm.Entries {
		m := answers[j]
		qe := QuestionEntry{File: AnswersFile(bm, e), Model: e.ModelName, Harness: harnessSuffix(e), Track: e.Track}
		if src.Rubric != nil {
			for _, a := range m.Answers {
				p := -1.0
				if a.Points != nil {
					p = *a.Points
				}
				qe.Points = append(qe.Points, p)
			}
		} else {
			var sb strings.Builder
			for _, a := range m.Answers {
				c := byte('-')
				if a.Answer != "" {
					c = a.Answer[0]
				}
				if a.Unverifiable && c != '-' {
					c += 'a' - 'A'
				}
				sb.WriteByte(c)
			}
			qe.Letters = sb.String()
		}
		idx.Entries = append(idx.Entries, qe)
	}
	return idx
}

// marshalCompact is JSON without indentation: these files are for the
// page to read, and 505 questions times 72 models add up.
func marshalCompact(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
