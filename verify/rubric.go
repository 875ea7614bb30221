package verify

import (
	"fmt"
	"strings"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/submission"
)

// rubric checks a rubric-kind scores.json: ids, question texts, the judge
// id of each row, the rubric version and every row's arithmetic.
func (c *check) rubric(b *benchmark.Benchmark, meta *submission.Meta, rows []submission.RubricRow) {
	file := c.file(submission.ScoresFile)
	r := b.Rubric
	seen := c.ids(b, file, len(rows), func(i int) (string, int) { return rows[i].ID, rows[i].Line })

	// valid are the scored rows whose grade is valid (a total in range,
	// the gate stated): the mean and the gate-pass rate are both over
	// them, so that the summary has one denominator.
	var answered, empty, scored, unscored, valid, gatePassed, adjudications, sum int
	judge := b.Entry.JudgeModel
	out := newRubricOutcomes(b.Questions())
	c.res.Outcomes = out
	for i := range rows {
		row := &rows[i]
		qi, ok := seen[i]
		if !ok {
			continue
		}
		q := &r.Questions[qi]
		if strings.TrimSpace(row.Question) != strings.TrimSpace(q.Text) {
			c.errorf("ids.stale-question", file, row.Line, row.ID, "the question text differs from the rubric's (%s): these answers were produced for another version of the benchmark; regenerate them with the current rubric", firstDifference(row.Question, q.Text))
		}
		if row.JudgeModel != "" && row.JudgeModel != judge {
			c.errorf("judge.row-mismatch", file, row.Line, row.ID, "this row was graded by %q, but benchmark %q is graded only by %q", clip(row.JudgeModel), b.Entry.Key, judge)
		}
		if row.RubricSHA != "" && row.RubricSHA != b.SHA256 {
			c.errorf("binding.rubric-sha256", file, row.Line, row.ID, "rubric_sha256 %s… does not match the benchmark file %s (%s…): this row was graded against another version of the rubric; re-score it", short(row.RubricSHA), b.Entry.File, short(b.SHA256))
		}
		c.judgePrompt(file, row, b)
		graded, gradable := c.answer(file, row, b)
		switch {
		case gradable && graded != "", !gradable && strings.TrimSpace(row.Answer) != "":
			answered++
		default:
			empty++
		}
		if row.Adjudicate {
			adjudications++
		}
		if row.Score == nil {
			unscored++
			continue
		}
		scored++
		total, ok := row.Score.Int()
		if !ok || total < 0 || total > int64(r.TotalPoints) {
			c.errorf("arith.score", file, row.Line, row.ID, "score_b %s is not an integer from 0 to %d", row.Score.Str, r.TotalPoints)
			continue
		}
		out.Points[qi] = int(total)
		if total > 0 && gradable && graded == "" {
			// No judge gives points for nothing: these were written by hand.
			c.errorf("arith.empty-answer", file, row.Line, row.ID, "score_b is %d but the answer is empty; an empty answer scores 0 (keep the row as the run produced it)", total)
		}
		if row.GatePassed == nil {
			c.errorf("arith.gate-missing", file, row.Line, row.ID, "score_b_gate_passed is missing for a scored answer; the judge's verdict always says whether the gate passed")
		} else {
			valid++
			sum += int(total)
			if *row.GatePassed {
				gatePassed++
				out.GatePassed[qi] = true
			}
		}
		c.components(file, row, q, int(total))
	}
	if rate := float64(unscored) / float64(max(1, b.Questions())); unscored > 0 && rate > c.v.opts.ReviewRate {
		c.warnf("arith.unscored", file, 0, "", "%d of %d answers are unscored (%.1f%%, above the %.0f%% a submission may leave unscored without review)", unscored, b.Questions(), 100*rate, 100*c.v.opts.ReviewRate)
	} else if unscored > 0 {
		c.warnf("arith.unscored", file, 0, "", "%d of %d answers are unscored; they count as missing", unscored, b.Questions())
	}
	c.mostlyEmpty(file, empty, b.Questions(), "answers", "an answer that went to the reasoning field, was cut at the token limit, or failed is no answer, and scores as none; generate again with the same --output (it retries answers cut at the token limit and keeps the reasoning text, which the benchmark grades when the content is empty), then score")
	s := &c.res.Summary
	s.Questions = new(b.Questions())
	s.Answered = new(answered)
	s.Scored = new(scored)
	s.Unscored = new(unscored)
	if valid > 0 {
		s.Mean = new(float64(sum) / float64(valid))
	}
	if valid != scored {
		s.Graded = new(valid)
	}
	s.GatePassRate = ratio(gatePassed, valid)
	s.Adjudications = new(adjudications)
}

// components checks one scored row's awards against the rubric.
func (c *check) components(file string, row *submission.RubricRow, q *benchmark.RubricQuestion, total int) {
	if !row.HasComps {
		c.errorf("arith.components-missing", file, row.Line, row.ID, "score_b_components is missing; a scored answer lists the award of every rubric component")
		return
	}
	got := map[string]bool{}
	sum, sumOK := 0, true
	failed := row.GatePassed != nil && !*row.GatePassed
	for _, cs := range row.Components {
		comp, known := q.Component(cs.ID)
		switch {
		case !known:
			c.errorf("arith.unknown-component", file, cs.Line, row.ID, "component %q is not in the rubric (its components are %s)", clip(cs.ID), componentIDs(q))
			sumOK = false
			continue
		case got[cs.ID]:
			c.errorf("arith.duplicate-component", file, cs.Line, row.ID, "component %s is listed twice", cs.ID)
			sumOK = false
			continue
		}
		got[cs.ID] = true
		if m, ok := cs.Maximum.Int(); !ok || m != int64(comp.Points) {
			c.errorf("arith.maximum", file, cs.Line, row.ID, "component %s: maximum is %s but the rubric gives it %d points", cs.ID, cs.Maximum.Str, comp.Points)
		}
		a, ok := cs.Awarded.Int()
		switch {
		case !ok:
			c.errorf("arith.award", file, cs.Line, row.ID, "component %s: awarded %s is not an integer; the rubric gives whole points", cs.ID, cs.Awarded.Str)
			sumOK = false
			continue
		case a < 0 || a > int64(comp.Points):
			c.errorf("arith.award", file, cs.Line, row.ID, "component %s: awarded %d is outside 0..%d", cs.ID, a, comp.Points)
		}
		if failed && a != 0 {
			c.errorf("arith.gate-failed", file, cs.Line, row.ID, "the gate failed, so component %s must be awarded 0, not %d", cs.ID, a)
		}
		sum += int(a)
	}
	for _, comp := range q.Components {
		if !got[comp.ID] {
			c.errorf("arith.component-missing", file, row.Line, row.ID, "component %s has no award; list every rubric component, with 0 where nothing was earned", comp.ID)
		}
	}
	if sumOK && sum != total {
		c.errorf("arith.sum", file, row.Line, row.ID, "score_b is %d but the component awards add up to %d", total, sum)
	}
	if failed && total != 0 {
		c.errorf("arith.gate-failed", file, row.Line, row.ID, "the gate failed, so score_b must be 0, not %d", total)
	}
}

func componentIDs(q *benchmark.RubricQuestion) string {
	ids := make([]string, len(q.Components))
	for i, c := range q.Components {
		ids[i] = c.ID
	}
	return strings.Join(ids, ", ")
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// firstDifference describes where two texts part, for a person comparing
// them by eye.
func firstDifference(got, want string) string {
	at, g, w := parting(strings.TrimSpace(got), strings.TrimSpace(want))
	return fmt.Sprintf("from character %d the submission has %s where the rubric has %s", at, g, w)
}

// parting finds where two texts part: the 1-based character, and up to 30
// characters of each from there, quoted.
func parting(got, want string) (at int, g, w string) {
	gr, wr := []rune(got), []rune(want)
	i := 0
	for i < len(gr) && i < len(wr) && gr[i] == wr[i] {
		i++
	}
	excerpt := func(r []rune) string {
		end := min(len(r), i+30)
		s := string(r[i:end])
		if end < len(r) {
			s += "…"
		}
		return fmt.Sprintf("%q", s)
	}
	return i + 1, excerpt(gr), excerpt(wr)
}

// ids checks that the rows cover every benchmark question exactly once. It
// returns, for each row index with a known, first-seen id, the index of its
// question in the benchmark.
func (c *check) ids(b *benchmark.Benchmark, file string, n int, row func(i int) (id string, line int)) map[int]int {
	seen := make(map[int]int, n)
	firstLine := make(map[string]int, n)
	var unknown []string
	for i := 0; i < n; i++ {
		id, line := row(i)
		qi, ok := b.Index(id)
		if !ok {
			unknown = append(unknown, id)
			if len(unknown) <= maxListed {
				c.errorf("ids.unknown", file, line, id, "id %q is not a question of benchmark %q", clip(id), b.Entry.Key)
			}
			continue
		}
		if prev, dup := firstLine[id]; dup {
			c.errorf("ids.duplicate", file, line, id, "question %s is answered twice (first on line %d); keep one row per question", id, prev)
			continue
		}
		firstLine[id] = line
		seen[i] = qi
	}
	if len(unknown) > maxListed {
		c.errorf("ids.unknown", file, 0, "", "%d more rows have ids that are not questions of benchmark %q", len(unknown)-maxListed, b.Entry.Key)
	}
	var missing []string
	for qi := 0; qi < b.Questions(); qi++ {
		if _, ok := firstLine[b.QuestionID(qi)]; !ok {
			missing = append(missing, b.QuestionID(qi))
		}
	}
	if len(missing) > 0 {
		list := missing
		more := ""
		if len(list) > maxListed {
			list, more = list[:maxListed], fmt.Sprintf(" and %d more", len(missing)-maxListed)
		}
		c.errorf("ids.missing", file, 0, "", "%d of %d questions have no row: %s%s; every question of the benchmark must be answered (a failed call is a row with its error, not a missing row)", len(missing), b.Questions(), strings.Join(list, ", "), more)
	}
	return seen
}

// maxListed caps the ids named one by one in a finding.
const maxListed = 20

// judgePrompt checks a row's judge_prompt_sha256 against the judge's
// prompt, as rubric_sha256 is checked against the rubric: a row that names
// none was not graded by benchgate under a prompt file and is not checked.
func (c *check) judgePrompt(file string, row *submission.RubricRow, b *benchmark.Benchmark) {
	want := b.Entry.JudgePromptSHA256()
	switch {
	case row.PromptSHA == "" || row.PromptSHA == want:
	case want == "":
		c.errorf("binding.judge-prompt", file, row.Line, row.ID, "judge_prompt_sha256 %s… names a prompt file, but benchmark %q's judge is asked with benchgate's own prompt (its judge object names no prompt_file): this row was graded with another prompt; re-score it with `benchgate score`", short(row.PromptSHA), b.Entry.Key)
	default:
		c.errorf("binding.judge-prompt", file, row.Line, row.ID, "judge_prompt_sha256 %s… does not match the judge's prompt file %s (%s…): this row was graded with another version of the judge's prompt; re-score it with `benchgate score`", short(row.PromptSHA), b.Entry.JudgePrompt.File, short(want))
	}
}
