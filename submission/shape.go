package submission

import "github.com/benchgate/benchgate/jsondoc"

// Shape is the kind of rows a scores file holds, told from the fields
// they share, so that a file of the wrong kind is named in one line
// rather than by a schema error on every row.
type Shape int

const (
	ShapeUnknown Shape = iota // not an array of rows of one known kind
	// ShapeMCQ: a multiple-choice benchmark's scores (id, response,
	// answer, correct), as benchgate generate writes them.
	ShapeMCQ
	// ShapeRubric: a rubric benchmark's scores (answer_b graded in
	// score_b), as benchgate score writes them.
	ShapeRubric
	// ShapeAnswers: a rubric benchmark's answers not graded yet (answer_b
	// without score_b), as benchgate generate writes them.
	ShapeAnswers
)

// String names the shape for people.
func (s Shape) String() string {
	switch s {
	case ShapeMCQ:
		return "multiple-choice scores (id, response, answer, correct)"
	case ShapeRubric:
		return "a rubric benchmark's scores (answer_b graded in score_b)"
	case ShapeAnswers:
		return "a rubric benchmark's answers not graded yet (answer_b without score_b)"
	}
	return "rows of no known kind"
}

// SniffShape tells the shape of a parsed scores file. A row is a rubric
// row when it has answer_b, a multiple-choice row when it has answer or
// correct without answer_b; the file has a shape only when every row
// agrees, so that a file with a few broken rows is left to the schema.
func SniffShape(doc *jsondoc.Doc) Shape {
	if doc == nil || doc.Root == nil || doc.Root.Kind != jsondoc.Array || len(doc.Root.Elems) == 0 {
		return ShapeUnknown
	}
	var mcq, rubric, graded int
	for _, n := range doc.Root.Elems {
		switch {
		case n.Kind != jsondoc.Object:
			return ShapeUnknown
		case n.Get("answer_b") != nil:
			rubric++
			if n.Get("score_b") != nil {
				graded++
			}
		case n.Get("answer") != nil || n.Get("correct") != nil:
			mcq++
		}
	}
	rows := len(doc.Root.Elems)
	switch {
	case mcq == rows:
		return ShapeMCQ
	case rubric == rows && graded == 0:
		return ShapeAnswers
	case rubric == rows:
		return ShapeRubric
	}
	return ShapeUnknown
}
