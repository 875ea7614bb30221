package verify

import (
	"strings"
	"testing"
)

// TestScoresOfAnotherKind: a scores.json of another kind than its
// benchmark wants fails with one scores.kind line that names both kinds,
// not with a schema error per row; unscored rubric answers are told to go
// through benchgate score first.
func TestScoresOfAnotherKind(t *testing.T) {
	unscored := func() []map[string]any {
		rows := rubricScores()
		for _, r := range rows {
			for k := range r {
				if strings.HasPrefix(k, "score_b") {
					delete(r, k)
				}
			}
		}
		return rows
	}
	rubricMetaFor := func(key string) map[string]any {
		m := rubricMeta()
		m["rubric_key"] = key
		if key == "mc" {
			delete(m, "judge_model")
		}
		return m
	}
	mcqMetaFor := func(key string) map[string]any {
		m := mcqMeta()
		m["rubric_key"] = key
		if key == "rb" {
			m["judge_model"] = "openai/gpt-5.5"
		}
		return m
	}
	tests := []struct {
		name   string
		meta   map[string]any
		scores any
		dir    string
		want   string // the one error's message, in part
	}{
		{"rubric scores for an mcq benchmark", rubricMetaFor("mc"), rubricScores(), mcqDir,
			`scores.json holds a rubric benchmark's scores (answer_b graded in score_b), but benchmark "mc" is multiple choice: it wants multiple-choice scores (id, response, answer, correct) per question`},
		{"unscored answers for an mcq benchmark", rubricMetaFor("mc"), unscored(), mcqDir,
			`scores.json holds a rubric benchmark's answers not graded yet (answer_b without score_b), but benchmark "mc" is multiple choice`},
		{"mcq scores for a rubric benchmark", mcqMetaFor("rb"), mcqScores(), rubricDir,
			`scores.json holds multiple-choice scores (id, response, answer, correct), but benchmark "rb" is a rubric benchmark`},
		{"unscored answers for a rubric benchmark", rubricMeta(), unscored(), rubricDir,
			"scores.json holds a rubric benchmark's answers not graded yet (answer_b without score_b); run `benchgate score scores.json --benchmark rb` first and submit the scores it writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := verifyOne(t, board(t, tt.meta, tt.scores, tt.dir), tt.dir)
			if r.Status != Fail || len(r.Errors) != 1 || r.Errors[0].Code != "scores.kind" || r.Errors[0].Line != 1 || !strings.Contains(r.Errors[0].Message, tt.want) {
				t.Fatalf("status %s, errors %v; want one scores.kind on line 1 containing %q", r.Status, r.Errors, tt.want)
			}
		})
	}
}
