package judge

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/submission"
)

// Row returns the scores.json row for the graded answer to question q:
// answer is the candidate's reply as received and answerClean the text
// that was graded. A scored result gives the total, the gate and every
// component in rubric order; an unscored one gives null score, gate and
// components, with the judge's problems as the reason, and asks for
// adjudication, since a person must grade it. Injection markers also ask
// for adjudication, whatever the grade, and are named in the note.
// scored_at is at in UTC, RFC 3339.
func Row(q *benchmark.RubricQuestion, id, question, answer, answerClean string, res Result, judgeModel, rubricSHA string, at time.Time) submission.RubricRecord {
	row := submission.RubricRecord{
		ID:           id,
		Question:     question,
		Answer:       answer,
		AnswerClean:  answerClean,
		JudgeModel:   judgeModel,
		RubricSHA256: rubricSHA,
		ScoredAt:     at.UTC().Format(time.RFC3339),
	}
	var notes []string
	if res.Scored {
		v := res.Verdict
		total := int(v.Total)
		gate := v.GatePassed
		row.Score, row.GatePassed = &total, &gate
		row.Reason = reason(q, v)
		byID := make(map[string]ComponentAward, len(v.Components))
		for _, a := range v.Components {
			byID[a.ID] = a
		}
		row.Components = make([]submission.ComponentRecord, 0, len(q.Components))
		for _, c := range q.Components {
			a := byID[c.ID]
			row.Components = append(row.Components, submission.ComponentRecord{ID: c.ID, Awarded: int(a.Awarded), Maximum: c.Points, Reason: a.Reason})
		}
		row.AdjudicationRequired = v.AdjudicationRequired
		if s := strings.TrimSpace(v.AdjudicationNote); s != "" {
			notes = append(notes, s)
		}
	} else {
		row.Reason = "unscored: the answer was not graded"
		if res.Usage.Calls > 0 {
			row.Reason = "unscored: the judge gave no valid verdict after " + plural(res.Usage.Calls, "call")
		}
		if len(res.Problems) > 0 {
			row.Reason += ": " + strings.Join(res.Problems, "; ")
		}
		row.AdjudicationRequired = true
		notes = append(notes, "unscored; a person must grade this answer")
	}
	if len(res.Injection) > 0 {
		row.AdjudicationRequired = true
		notes = append(notes, "possible prompt injection in the answer: "+strings.Join(res.Injection, "; "))
	}
	row.AdjudicationNote = strings.Join(notes, " | ")
	return row
}

// reason summarises a verdict in one line: the gate decision, then the
// components that lost points, which is what a reader of a leaderboard
// wants to know.
func reason(q *benchmark.RubricQuestion, v Verdict) string {
	head := "Gate failed"
	if v.GatePassed {
		head = "Gate passed"
	}
	if s := strings.TrimSpace(v.GateReason); s != "" {
		head += ": " + s
	}
	parts := []string{sentence(head)}
	if v.GatePassed {
		for _, a := range v.Components {
			c, _ := q.Component(a.ID)
			if a.Awarded >= float64(c.Points) {
				continue
			}
			p := fmt.Sprintf("%s %d/%d", a.ID, int(a.Awarded), c.Points)
			if s := strings.TrimSpace(a.Reason); s != "" {
				p += ": " + s
			}
			parts = append(parts, sentence(p))
		}
	}
	return strings.Join(parts, " ")
}

// sentence ends s with a full stop unless it already ends a sentence.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
