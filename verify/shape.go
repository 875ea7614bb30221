package verify

import (
	"fmt"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/submission"
)

// ShapeProblem is the one line that says a scores file (named file) is of another kind
// than benchmark key (of kind) wants, and what to do; "" when its shape
// fits or cannot be told (the schema then says what is wrong). verify
// reports it as scores.kind instead of the schema's error per row, and
// benchgate submit before it writes anything.
func ShapeProblem(file string, shape submission.Shape, key string, kind benchmark.Kind) string {
	switch {
	case shape == submission.ShapeAnswers && kind == benchmark.KindRubric:
		return fmt.Sprintf("%s holds %s; run `benchgate score %s --benchmark %s` first and submit the scores it writes", file, shape, file, key)
	case shape == submission.ShapeMCQ && kind == benchmark.KindRubric:
		return fmt.Sprintf("%s holds %s, but benchmark %q is a rubric benchmark: it wants its answers graded by its judge (answer_b and score_b per question), from benchgate generate then benchgate score", file, shape, key)
	case (shape == submission.ShapeRubric || shape == submission.ShapeAnswers) && kind == benchmark.KindMCQ:
		return fmt.Sprintf("%s holds %s, but benchmark %q is multiple choice: it wants %s per question, as benchgate generate writes them", file, shape, key, submission.ShapeMCQ)
	}
	return ""
}
