package score

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/progress"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/submission"
)

// PairResult is one question judged pairwise.
type PairResult struct {
	ID      string        `json:"id"`
	Outcome judge.Outcome `json:"outcome"`
	Mean    float64       `json:"mean"`
	Pair    judge.Pair    `json:"pair"`
}

// PairReport is a pairwise comparison of two answers files: A's wins, ties
// and losses against B, with a two-sided sign test.
type PairReport struct {
	Questions []PairResult `json:"questions"`
	Wins      int          `json:"wins"`
	Ties      int          `json:"ties"`
	Losses    int          `json:"losses"`
	Undecided int          `json:"undecided"`
	PValue    float64      `json:"sign_test_p"`
	Calls     int          `json:"calls"`
	SpendUSD  float64      `json:"spend_usd"`
}

// Compare judges the questions answered in both files, each twice with the
// order swapped.
func Compare(ctx context.Context, cfg Config, a, b []submission.AnswerRow) (PairReport, error) {
	bench := cfg.Bench
	if bench == nil || bench.Rubric == nil || cfg.Judge == nil {
		return PairReport{}, errors.New("score: a rubric benchmark and a judge are required")
	}
	other := map[string]submission.AnswerRow{}
	for _, row := range b {
		other[row.ID] = row
	}
	type job struct {
		qi   int
		a, b string // the texts graded
	}
	var jobs []job
	for _, row := range a {
		qi, ok := bench.Index(row.ID)
		if !ok {
			return PairReport{}, fmt.Errorf("answer %q is to no question of benchmark %q", row.ID, bench.Entry.Key)
		}
		if ob, ok := other[row.ID]; ok {
			ta, _, err := graded(bench, cfg.rule(), row)
			if err != nil {
				return PairReport{}, err
			}
			tb, _, err := graded(bench, cfg.rule(), ob)
			if err != nil {
				return PairReport{}, err
			}
			jobs = append(jobs, job{qi, ta, tb})
		}
	}
	if len(jobs) == 0 {
		return PairReport{}, errors.New("the two answers files share no question")
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].qi < jobs[j].qi })
	track := progress.Start(cfg.Progress, cfg.Terminal, len(jobs))
	rep := PairReport{Questions: make([]PairResult, len(jobs))}
	var tally judge.Tally
	for i, jb := range jobs {
		q := &bench.Rubric.Questions[jb.qi]
		p, err := cfg.Judge.Compare(ctx, bench.Rubric, q, jb.a, jb.b)
		if err != nil {
			track.Stop()
			return PairReport{}, fmt.Errorf("comparing %s: %w", q.ID, err)
		}
		c := 0.0
		if p.Usage.CostUSD != nil {
			c = *p.Usage.CostUSD
			rep.SpendUSD += c
		}
		rep.Calls += p.Usage.Calls
		track.Add(false, c)
		tally.Add(p)
		rep.Questions[i] = PairResult{ID: q.ID, Outcome: p.Outcome, Mean: p.Mean, Pair: p}
	}
	track.Stop()
	rep.Wins, rep.Ties, rep.Losses, rep.Undecided = tally.Wins, tally.Ties, tally.Losses, tally.Undecided
	rep.PValue = tally.PValue()
	return rep, nil
}

// PairFormats lists the output formats of RenderPair.
var PairFormats = []string{"text", "json"}

// RenderPair writes a pairwise report in one of PairFormats: as text, a
// line per question and the tally of A (the answers file a) against B (b);
// as JSON, the report itself.
func RenderPair(w io.Writer, format, a, b string, rep PairReport) error {
	switch format {
	case "text", "":
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	default:
		return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(PairFormats, ", "))
	}
	var t strings.Builder
	for _, q := range rep.Questions {
		out := string(q.Outcome)
		if out == "" {
			out = "undecided"
		}
		fmt.Fprintf(&t, "%-12s %-9s (forward %s, swapped %s)\n", q.ID, out, q.Pair.Forward.Token, q.Pair.Swapped.Token)
	}
	fmt.Fprintf(&t, "A = %s, B = %s: %d wins, %d ties, %d losses for A", a, b, rep.Wins, rep.Ties, rep.Losses)
	if rep.Undecided > 0 {
		fmt.Fprintf(&t, ", %d undecided", rep.Undecided)
	}
	fmt.Fprintf(&t, "; sign test p = %.4g; %d judge calls, $%.4f\n", rep.PValue, rep.Calls, rep.SpendUSD)
	_, err := io.WriteString(w, t.String())
	return err
}
