package submission

import (
	"testing"

	"github.com/benchgate/benchgate/jsondoc"
)

// TestSniffShape: a file has a shape only when every row agrees on it.
func TestSniffShape(t *testing.T) {
	tests := []struct {
		in   string
		want Shape
	}{
		{`[{"id": "a", "response": "r", "answer": "A", "correct": true}]`, ShapeMCQ},
		{`[{"id": "a", "answer_b": "x", "score_b": 3}, {"id": "b", "answer_b": "y"}]`, ShapeRubric},
		{`[{"id": "a", "question": "q", "answer_b": "x"}]`, ShapeAnswers},
		{`[{"id": "a", "answer_b": "x"}, {"id": "b", "answer": "A"}]`, ShapeUnknown},
		{`[{"id": "a"}]`, ShapeUnknown},
		{`[]`, ShapeUnknown},
		{`{"id": "a"}`, ShapeUnknown},
		{`[1, 2]`, ShapeUnknown},
	}
	for _, tt := range tests {
		doc, err := jsondoc.Parse([]byte(tt.in), jsondoc.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got := SniffShape(doc); got != tt.want {
			t.Errorf("SniffShape(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
