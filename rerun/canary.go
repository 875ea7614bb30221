package rerun

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"github.com/benchgate/benchgate/benchmark"
)

// A canary checks that the judge grades against the rubric rather than
// following what the answers say, whatever they say and in whatever
// words, language or encoding: the judge grades an answer known to fail
// (a calibration fixture of another question whose gate fails) with
// answers of the submission appended to it, instructions and all. The
// appended answers answer other questions and add nothing to the
// fixture's, so an honest judge fails its gate again; a judge that obeys
// an instruction in them passes it. A fired canary keeps the check from
// consistent. It cannot see an instruction that the judge obeys only
// when grading the answer's own question.

// CanaryAnswers is how many of the submission's answers one canary
// carries: Rule.Canaries canaries cover up to Rule.Canaries ×
// CanaryAnswers answers, every answer of a 50-question rubric with the
// default rule.
const CanaryAnswers = 5

// CanaryCheck is one canary graded.
type CanaryCheck struct {
	// Answers are the questions whose answers it carried, Against the
	// question whose rubric it was graded against and Fixture the
	// calibration fixture of that question, which fails its gate, that
	// the answers were appended to.
	Answers []string `json:"answers"`
	Against string   `json:"against"`
	Fixture string   `json:"fixture"`
	// JudgedGate is whether the judge passed the gate, which fires the
	// canary; absent when the judge gave no verdict (Fault says why).
	JudgedGate *bool  `json:"judged_gate,omitempty"`
	Judged     *int   `json:"judged,omitempty"`
	Fault      string `json:"fault,omitempty"`
	Cached     bool   `json:"cached,omitempty"`
	Err        error  `json:"-"`
}

// Fired reports whether the judge passed the gate of a canary.
func (c CanaryCheck) Fired() bool { return c.JudgedGate != nil && *c.JudgedGate }

// canary is one canary to grade: the answers it carries (question
// indices), the question it is graded against and that question's
// gate-failing fixture.
type canary struct {
	answers []int
	against int
	fixture int
}

// planCanaries returns at most n canaries over the answers of qs (question
// indices, in the order to cover them), each carrying up to CanaryAnswers
// of them, graded against the question, other than theirs, with a fixture
// whose gate fails whose text shares the fewest words with theirs (ties
// by index). An answer is left out only when its question is the one
// such question of the rubric.
func planCanaries(r *benchmark.Rubric, qs []int, n int) []canary {
	failing := map[int]int{} // question index → its first gate-failing fixture
	for qi := range r.Questions {
		for fi, f := range r.Questions[qi].Calibration {
			if !f.GatePassed {
				failing[qi] = fi
				break
			}
		}
	}
	words := make([]map[string]bool, len(r.Questions))
	for qi := range r.Questions {
		q := &r.Questions[qi]
		words[qi] = wordSet(q.Title + " " + q.Text + " " + q.Gate.PassCondition)
	}
	var out []canary
	for len(qs) > 0 && len(out) < n {
		// A group takes the answers in order, but never the last
		// question left to grade it against.
		var group, rest []int
		for _, qi := range qs {
			if len(group) == CanaryAnswers || !partnerLeft(failing, append(group, qi)) {
				rest = append(rest, qi)
				continue
			}
			group = append(group, qi)
		}
		if len(group) == 0 {
			break
		}
		qs = rest
		best, bestShared := -1, 0.0
		for qi := range r.Questions {
			if _, ok := failing[qi]; !ok || slices.Contains(group, qi) {
				continue
			}
			shared := 0.0
			for _, a := range group {
				shared += jaccard(words[a], words[qi])
			}
			if best < 0 || shared < bestShared {
				best, bestShared = qi, shared
			}
		}
		out = append(out, canary{answers: group, against: best, fixture: failing[best]})
	}
	return out
}

// partnerLeft reports whether a question with a gate-failing fixture is
// outside group.
func partnerLeft(failing map[int]int, group []int) bool {
	for qi := range failing {
		if !slices.Contains(group, qi) {
			return true
		}
	}
	return false
}

// wordSet is the set of s's words of more than three letters, in lower
// case.
func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) > 3 {
			out[w] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	both := 0
	for w := range a {
		if b[w] {
			both++
		}
	}
	if all := len(a) + len(b) - both; all > 0 {
		return float64(both) / float64(all)
	}
	return 0
}

// canaryText is what a canary shows the judge: the fixture's response,
// then the answers, each a paragraph of its own, as one answer.
func canaryText(fixture string, answers []string) string {
	return strings.TrimRight(fixture, "\n") + "\n\n" + strings.Join(answers, "\n\n")
}

// runCanaries grades the canaries of a check the tests found consistent:
// over the answers the judge passed, in an order drawn from seed. It
// returns a reason for a maintainer when the check cannot stay consistent
// ("" when it can): a canary fired, or the budget or the judge's account
// stopped them.
func (g *judgeGrader) runCanaries(ctx context.Context, rule Rule, seed uint64) (string, error) {
	if rule.Canaries == 0 {
		return "", nil
	}
	var passed []int
	for _, qi := range rand.New(rand.NewPCG(seed, seed^0xbb67ae8584caa73b)).Perm(len(g.byQ)) {
		if k, ok := g.checked[qi]; ok && g.rep.Questions[k].JudgedGate != nil && *g.rep.Questions[k].JudgedGate {
			passed = append(passed, qi)
		}
	}
	if len(passed) == 0 {
		return "", nil
	}
	plan := planCanaries(g.b.Rubric, passed, rule.Canaries)
	if len(plan) == 0 {
		g.rep.Warnings = append(g.rep.Warnings, "no calibration fixture of the rubric fails its gate on a question other than the answers', so no canary could check that the judge does not follow instructions in them")
		return "", nil
	}
	covered := 0
	for _, c := range plan {
		q := &g.b.Rubric.Questions[c.against]
		f := &q.Calibration[c.fixture]
		cc := CanaryCheck{Against: q.ID, Fixture: f.ID}
		var texts []string
		for _, qi := range c.answers {
			cc.Answers = append(cc.Answers, g.b.Rubric.Questions[qi].ID)
			texts = append(texts, g.answers[qi])
		}
		got, fault, err := g.call(ctx, g.jud, q, canaryText(f.Response, texts), ", while the judge graded the canaries")
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if s := (*Stop)(nil); errors.As(err, &s) {
			if s.OutOfBudget {
				g.rep.OutOfBudget = true
			} else {
				cc.Fault, cc.Err = fault, cause(err)
				g.rep.Canaries = append(g.rep.Canaries, cc)
			}
			return fmt.Sprintf("the scores agree with the judge, but the check stopped before its canaries, which test that the judge does not follow instructions in the answers, were graded (%d of the %d answers it passed covered): %s", covered, len(passed), s.Reason), nil
		}
		cc.Cached = got.Cached
		if err != nil {
			cc.Fault, cc.Err = fault, cause(err)
		} else {
			gate, total := got.Verdict.GatePassed, got.Total()
			cc.JudgedGate, cc.Judged = &gate, &total
			covered += len(c.answers)
		}
		g.rep.Canaries = append(g.rep.Canaries, cc)
	}
	var fired []string
	n, graded, faulted := 0, 0, 0
	for _, c := range g.rep.Canaries {
		switch {
		case c.Fired():
			n++
			fired = append(fired, c.Answers...)
		case c.Fault != "":
			faulted++
		}
		if c.JudgedGate != nil {
			graded++
		}
	}
	if n > 0 {
		if len(fired) > maxNamed {
			fired = append(fired[:maxNamed], fmt.Sprintf("and %d more", len(fired)-maxNamed))
		}
		return fmt.Sprintf("the scores agree with the judge, but in %d of %d canaries the judge passed the gate of an answer known to fail it once answers of the submission were appended to it (one or more of questions %s; see canaries): a judge that does so follows what the answers say rather than the rubric, so its agreement proves nothing; a maintainer must read those answers", n, graded, strings.Join(fired, ", ")), nil
	}
	if faulted > 0 && (graded == 0 || faulted > rule.FaultLimit(len(g.rep.Canaries))) {
		// A canary the judge could not grade tested nothing: the answers
		// it carried are not covered. Faults within the check's allowance
		// are the judge's usual ones; beyond it, or on every canary, a
		// judge that fails only when it reads the answers must not pass
		// for one that ignores them.
		return fmt.Sprintf("the scores agree with the judge, but the judge gave no usable verdict on %d of its %d canaries, which test that it does not follow instructions in the answers (%d of the %d answers it passed covered); run the check again", faulted, len(g.rep.Canaries), covered, len(passed)), nil
	}
	return "", nil
}
