package rerun

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/internal/synth"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/verify"
)

// awards spreads a total over a question's components, gate first, as a
// judge whose verdicts add up would.
func awards(q *benchmark.RubricQuestion, total int) []map[string]any {
	var out []map[string]any
	left := total
	order := []benchmark.Component{}
	for _, c := range q.Components {
		if c.IsGate {
			order = append([]benchmark.Component{c}, order...)
		} else {
			order = append(order, c)
		}
	}
	got := map[string]int{}
	for _, c := range order {
		a := min(left, c.Points)
		got[c.ID] = a
		left -= a
	}
	for _, c := range q.Components {
		out = append(out, map[string]any{"id": c.ID, "awarded": got[c.ID], "maximum": c.Points, "reason": "r"})
	}
	return out
}

// board is a 50-question synthetic rubric leaderboard whose one submission
// reports the given totals.
type board struct {
	fsys  fstest.MapFS
	bench *benchmark.Benchmark
	dir   string
	truth []int
}

func newBoard(t *testing.T, reported func(i, truth int, r *rand.Rand) int) *board {
	t.Helper()
	files, err := synth.Rubric(50, 3)
	if err != nil {
		t.Fatal(err)
	}
	fsys := files.MapFS()
	reg, _ := benchmark.LoadRegistry(fsys)
	e, _ := reg.Lookup(synth.RubricKey)
	b, fs := benchmark.Load(fsys, e)
	if b == nil {
		t.Fatal(fs)
	}
	r := rand.New(rand.NewPCG(11, 12))
	bd := &board{fsys: fsys, bench: b, dir: synth.RubricSubmission}
	var rows []map[string]any
	for i := range b.Rubric.Questions {
		q := &b.Rubric.Questions[i]
		truth := 3 + r.IntN(7) // 3..9
		switch {
		case i%10 == 9:
			truth = 0 // a failed gate now and then
		case i%5 == 0:
			truth = 3 + r.IntN(3) // room for +5 without reaching 10
		}
		bd.truth = append(bd.truth, truth)
		rep := max(0, min(10, reported(i, truth, r)))
		rows = append(rows, map[string]any{
			"id": q.ID, "question": q.Text, "answer_b": "An answer to " + q.ID, "answer_b_clean": "An answer to " + q.ID,
			"score_b": rep, "score_b_reason": "r", "score_b_gate_passed": rep > 0, "score_b_components": awards(q, rep),
			"score_b_adjudication_required": false, "score_b_adjudication_note": "",
		})
	}
	data, _ := json.MarshalIndent(rows, "", "  ")
	fsys[bd.dir+"/scores.json"] = &fstest.MapFile{Data: data}
	return bd
}

// noise is the judge's disagreement with the truth: mostly none, a point
// either way on about a third of the answers.
func noise(r *rand.Rand) int {
	switch u := r.Float64(); {
	case u < 0.15:
		return -1
	case u < 0.30:
		return 1
	}
	return 0
}

// noisyJudge serves verdicts around the truth through a real HTTP
// endpoint; fail, when set, decides which calls misbehave.
func (bd *board) noisyJudge(t *testing.T, seed uint64, fail func(call int) *fakeopenai.Failure) *judge.Judge {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, 1))
	srv := fakeopenai.New(t, fakeopenai.Options{
		Fail: func(call int, req fakeopenai.Request) *fakeopenai.Failure {
			if fail != nil {
				return fail(call)
			}
			return nil
		},
		Reply: func(req fakeopenai.Request) fakeopenai.Reply {
			user := req.Messages[len(req.Messages)-1].Content
			for i := range bd.bench.Rubric.Questions {
				q := &bd.bench.Rubric.Questions[i]
				if !strings.Contains(user, q.Text) {
					continue
				}
				mu.Lock()
				total := max(0, min(10, bd.truth[i]+noise(r)))
				if bd.truth[i] == 0 {
					total = 0
				}
				mu.Unlock()
				v, _ := json.Marshal(map[string]any{"gate_passed": total > 0, "gate_reason": "g", "components": awards(q, total), "total": total, "adjudication_required": false, "adjudication_note": ""})
				return fakeopenai.Reply{Content: string(v), PromptTokens: 1500, CompletionTokens: 150, Cost: new(0.01)}
			}
			return fakeopenai.Reply{Content: "no such question"}
		},
	})
	client, err := llm.New(llm.Config{BaseURL: srv.URL, MaxAttempts: 2, Timeout: 300 * time.Millisecond, Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return &judge.Judge{LLM: client, Model: synth.JudgeModel}
}

func (bd *board) check(t *testing.T, j *judge.Judge, cfg Config) Report {
	t.Helper()
	v, err := verify.New(bd.fsys, verify.Options{Today: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Judge = j
	rep, err := Check(context.Background(), v, bd.dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

var secret = []byte("leaderboard secret")

func TestVerdicts(t *testing.T) {
	tests := []struct {
		name     string
		reported func(i, truth int, r *rand.Rand) int
		want     Verdict // "": any verdict
	}{
		{"honest: one noisy run of the same judge", func(i, truth int, r *rand.Rand) int {
			if truth == 0 {
				return 0
			}
			return truth + noise(r)
		}, VerdictConsistent},
		{"inflated by two points everywhere", func(i, truth int, r *rand.Rand) int { return truth + 2 }, VerdictInconsistent},
		{"inflated by five on a fifth of the questions", func(i, truth int, r *rand.Rand) int {
			if i%5 == 0 {
				return truth + 5
			}
			return truth
		}, VerdictInconsistent},
		{"cherry-picked: the best of three runs", func(i, truth int, r *rand.Rand) int {
			if truth == 0 {
				return 0
			}
			return truth + max(noise(r), noise(r), noise(r))
		}, ""}, // about +0.5 a question, less than the test is built to detect: it passes as consistent about half the time (docs/PERFORMANCE.md), so one sample's verdict shows nothing; its calls and findings are checked
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bd := newBoard(t, tt.reported)
			rep := bd.check(t, bd.noisyJudge(t, 5, nil), Config{Secret: secret})
			if tt.want != "" && rep.Verdict != tt.want {
				t.Errorf("verdict %s (%s), want %s", rep.Verdict, rep.Reason, tt.want)
			}
			if rep.Calls != rep.Checked || rep.Calls > DefaultRule().MaxN || len(rep.Sample) != rep.Checked || fmt.Sprintf("%.2f", rep.SpendUSD) != fmt.Sprintf("%.2f", 0.01*float64(rep.Calls)) {
				t.Errorf("%d calls, %d checked, %d sampled, $%.2f", rep.Calls, rep.Checked, len(rep.Sample), rep.SpendUSD)
			}
			for _, q := range rep.Questions {
				if q.Diff != nil && *q.Diff != 0 && len(q.Components) == 0 {
					t.Errorf("question %s differs by %d but names no component", q.ID, *q.Diff)
				}
			}
			t.Logf("%s after %d calls: %s", rep.Verdict, rep.Calls, rep.Reason)
		})
	}
}

func TestBudget(t *testing.T) {
	bd := newBoard(t, func(i, truth int, r *rand.Rand) int { return truth })
	rep := bd.check(t, bd.noisyJudge(t, 5, nil), Config{Secret: secret, MaxCalls: 3})
	if rep.Verdict != VerdictInconclusive || rep.Calls != 3 || !strings.Contains(rep.Reason, "budget ran out after 3 calls") {
		t.Errorf("%s after %d calls: %s", rep.Verdict, rep.Calls, rep.Reason)
	}
	rep = bd.check(t, bd.noisyJudge(t, 5, nil), Config{Secret: secret, MaxUSD: 0.045})
	if rep.Verdict != VerdictInconclusive || rep.Calls != 5 {
		t.Errorf("dollar budget: %s after %d calls", rep.Verdict, rep.Calls)
	}
}

// Judge faults (broken JSON, timeouts) are never held against the
// submission, even an inflated one.
func TestJudgeFaults(t *testing.T) {
	bd := newBoard(t, func(i, truth int, r *rand.Rand) int { return truth + 3 })
	broken := bd.noisyJudge(t, 5, nil)
	broken.LLM = brokenJudge{}
	rep := bd.check(t, broken, Config{Secret: secret})
	if rep.Verdict != VerdictInconclusive || rep.JudgeFaults != 5 || rep.Checked != 0 {
		t.Errorf("broken JSON: %s, %d faults, %d checked: %s", rep.Verdict, rep.JudgeFaults, rep.Checked, rep.Reason)
	}
	hanging := bd.noisyJudge(t, 5, func(call int) *fakeopenai.Failure { return &fakeopenai.Failure{Hang: true} })
	rep = bd.check(t, hanging, Config{Secret: secret})
	if rep.Verdict != VerdictInconclusive || rep.JudgeFaults != 5 {
		t.Errorf("timeouts: %s, %d faults: %s", rep.Verdict, rep.JudgeFaults, rep.Reason)
	}
}

type brokenJudge struct{}

func (brokenJudge) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return llm.Response{Content: `{"gate_passed": true, "total": `, Attempts: 1}, nil
}

func TestLeakMakesConsistentInconclusive(t *testing.T) {
	bd := newBoard(t, func(i, truth int, r *rand.Rand) int { return truth })
	var rows []map[string]any
	json.Unmarshal(bd.fsys[bd.dir+"/scores.json"].Data, &rows)
	rows[4]["answer_b_clean"] = "As I recall: " + bd.bench.Rubric.Questions[4].ModelAnswer
	rows[4]["answer_b"] = rows[4]["answer_b_clean"]
	data, _ := json.Marshal(rows)
	bd.fsys[bd.dir+"/scores.json"] = &fstest.MapFile{Data: data}
	rep := bd.check(t, bd.noisyJudge(t, 5, nil), Config{Secret: secret})
	if len(rep.Leaks) == 0 || rep.Leaks[0].QuestionID != "Q5" {
		t.Fatalf("leaks: %+v", rep.Leaks)
	}
	if rep.Verdict == VerdictConsistent {
		t.Errorf("a submission copying the key was called consistent")
	}
}

// TestCheckReadsUnderVerifyLimits: the spot-check reads the files only
// through the verifier, so a scores.json over its size cap is refused
// before any judge call, not read a second time without a cap.
func TestCheckReadsUnderVerifyLimits(t *testing.T) {
	bd := newBoard(t, func(i, truth int, r *rand.Rand) int { return truth })
	v, err := verify.New(bd.fsys, verify.Options{Today: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), MaxFileBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(context.Background(), v, bd.dir, Config{Judge: bd.noisyJudge(t, 5, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != VerdictInconclusive || rep.Calls != 0 || !strings.Contains(rep.Reason, "does not pass verification") {
		t.Fatalf("verdict %s after %d calls: %s", rep.Verdict, rep.Calls, rep.Reason)
	}
}
