package reproduce

import (
	"context"
	"errors"
	"testing"

	"github.com/benchgate/benchgate/rerun"
)

// standIn answers question qi with reply(qi), counting the calls; a nil
// reply function stops for the budget.
type standIn struct {
	reply func(qi int) (Reply, error)
	asked []int
}

func (s *standIn) Ask(_ context.Context, qi int) (Reply, error) {
	s.asked = append(s.asked, qi)
	return s.reply(qi)
}

// design is a benchmark of n questions whose key is "A", with the
// submission claiming letter(qi) on each.
func design(n int, letter func(qi int) string) MCQDesign {
	d := MCQDesign{Claims: make([]Claim, n), Key: make([]string, n), Model: "org/model", Seed: 7}
	for i := range n {
		d.Key[i] = "A"
		l := letter(i)
		d.Claims[i] = Claim{Present: l != "-", Letter: l, Correct: l == "A"}
	}
	return d
}

func answered(l string) Reply {
	return Reply{Letter: l, Finish: rerun.FinishAnswered, Served: "org/model"}
}

// TestRunMCQ: the loop's verdicts, as the package documentation states
// them.
func TestRunMCQ(t *testing.T) {
	right3of4 := func(qi int) string {
		if qi%4 == 3 {
			return "B"
		}
		return "A"
	}
	tests := []struct {
		name      string
		n         int
		claim     func(qi int) string
		reply     func(qi int) (Reply, error)
		verdict   Verdict
		cause     Cause
		maxAsked  int // the most calls the check may make
		wantB     int // -1: not checked
		wantAgree int // -1: not checked
	}{
		{"the model's own answers", 400, right3of4, func(qi int) (Reply, error) { return answered(right3of4(qi)), nil },
			Consistent, CauseComplete, 150, 0, 150},
		{"the questions run out first", 40, right3of4, func(qi int) (Reply, error) { return answered(right3of4(qi)), nil },
			Consistent, CauseComplete, 40, 0, 40},
		{"unanswered questions are not asked", 40, func(qi int) string {
			if qi%2 == 0 {
				return "-"
			}
			return "A"
		}, func(qi int) (Reply, error) { return answered("A"), nil }, Consistent, CauseComplete, 20, 0, 20},
		{"the key, from a model that is always wrong", 400, func(int) string { return "A" }, func(int) (Reply, error) { return answered("C"), nil },
			Inconsistent, CauseRejected, 20, -1, 0},
		{"answers better than the model's by a quarter", 400, func(int) string { return "A" }, func(qi int) (Reply, error) { return answered(right3of4(qi)), nil },
			Inconsistent, CauseRejected, 150, -1, -1},
		{"refusals are no wrong answers", 400, func(int) string { return "A" }, func(int) (Reply, error) { return Reply{Finish: rerun.FinishRefused, Served: "org/model"}, nil },
			Inconclusive, CauseFaults, 5, 0, 0},
		{"cut at the token limit", 400, func(int) string { return "A" }, func(int) (Reply, error) { return Reply{Letter: "C", Finish: rerun.FinishLength}, nil },
			Inconclusive, CauseFaults, 5, 0, 0},
		{"failed calls", 400, func(int) string { return "A" }, func(int) (Reply, error) { return Reply{}, errors.New("HTTP 500") },
			Inconclusive, CauseFaults, 5, 0, 0},
		{"another model served", 400, right3of4, func(int) (Reply, error) {
			return Reply{Letter: "A", Finish: rerun.FinishAnswered, Served: "org/other-model"}, nil
		},
			Inconclusive, CauseServed, 1, 0, 0},
		{"a dated snapshot of the model served", 400, right3of4, func(qi int) (Reply, error) {
			return Reply{Letter: right3of4(qi), Finish: rerun.FinishAnswered, Served: "model-2026-01-15"}, nil
		}, Consistent, CauseComplete, 150, 0, 150},
		{"the budget runs out", 400, right3of4, func(qi int) (Reply, error) {
			return Reply{}, &rerun.Stop{Reason: "the budget ran out", OutOfBudget: true}
		}, Inconclusive, CauseBudget, 1, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &standIn{reply: tc.reply}
			out, err := RunMCQ(context.Background(), DefaultRule(), design(tc.n, tc.claim), s)
			if err != nil {
				t.Fatal(err)
			}
			if out.Verdict != tc.verdict || out.Cause != tc.cause {
				t.Errorf("verdict %s (%s), want %s (%s); %+v", out.Verdict, out.Cause, tc.verdict, tc.cause, out)
			}
			if len(s.asked) > tc.maxAsked {
				t.Errorf("asked %d questions, want at most %d", len(s.asked), tc.maxAsked)
			}
			if tc.wantB >= 0 && out.B != tc.wantB {
				t.Errorf("B = %d, want %d", out.B, tc.wantB)
			}
			if tc.wantAgree >= 0 && out.Agree != tc.wantAgree {
				t.Errorf("Agree = %d, want %d", out.Agree, tc.wantAgree)
			}
			seen := map[int]bool{}
			for _, qi := range s.asked {
				if seen[qi] {
					t.Errorf("question %d asked twice", qi)
				}
				seen[qi] = true
			}
		})
	}
}

// TestRunMCQSample: the sample is drawn from the seed, as the
// spot-check's.
func TestRunMCQSample(t *testing.T) {
	d := design(100, func(int) string { return "A" })
	s := &standIn{reply: func(int) (Reply, error) { return answered("A"), nil }}
	if _, err := RunMCQ(context.Background(), DefaultRule(), d, s); err != nil {
		t.Fatal(err)
	}
	order := rerun.SampleOrder(d.Seed, 100)
	for i, qi := range s.asked {
		if order[i] != qi {
			t.Fatalf("asked %v, the sample order is %v", s.asked[:i+1], order[:i+1])
		}
	}
}

func TestParseModelMap(t *testing.T) {
	m, err := ParseModelMap(" Qwen/Qwen3-32B=qwen/qwen3-32b, meta-llama/Llama-3.3-70B-Instruct = meta-llama/llama-3.3-70b-instruct ,")
	if err != nil || len(m) != 2 || m["Qwen/Qwen3-32B"] != "qwen/qwen3-32b" || m["meta-llama/Llama-3.3-70B-Instruct"] != "meta-llama/llama-3.3-70b-instruct" {
		t.Errorf("map %v, %v", m, err)
	}
	for _, bad := range []string{"a", "a=", "=b", "a=b,a=c"} {
		if _, err := ParseModelMap(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if m, err := ParseModelMap(""); err != nil || len(m) != 0 {
		t.Errorf("empty: %v %v", m, err)
	}
}

func FuzzParseModelMap(f *testing.F) {
	for _, s := range []string{"", "a=b", "a=b,c=d", "=", ",,", "a=b=c", "a=b,a=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseModelMap(s)
		if err != nil {
			return
		}
		for k, v := range m {
			if k == "" || v == "" {
				t.Errorf("%q: empty id in %v", s, m)
			}
		}
	})
}
