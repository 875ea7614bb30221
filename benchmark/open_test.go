package benchmark

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestOpen(t *testing.T) {
	rubric, err := json.Marshal(validRubric())
	if err != nil {
		t.Fatal(err)
	}
	board := fstest.MapFS{
		RegistryFile: {Data: []byte(`[{"key": "r", "file": "rubrics/r.json", "judge_model": "j"},
{"key": "gone", "file": "rubrics/gone.jsonl", "kind": "mcq"}]`)},
		"rubrics/r.json": {Data: rubric},
	}
	b, err := Open(board, "r")
	if err != nil || b.Rubric == nil || b.Entry.Key != "r" || b.Questions() != 2 {
		t.Fatalf("Open(r) = %+v, %v", b, err)
	}

	_, err = Open(board, "nope")
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "nope" || err.Error() != `no benchmark "nope" in rubrics/rubrics.json (known: gone, r)` {
		t.Errorf("unknown key: %v", err)
	}
	ke.Registry = "board/rubrics/rubrics.json"
	if !strings.Contains(ke.Error(), " in board/rubrics/rubrics.json ") {
		t.Errorf("the registry as the reader knows it: %v", ke)
	}

	if _, err = Open(board, "gone"); err == nil || !strings.HasPrefix(err.Error(), `benchmark "gone" cannot be used: rubrics/gone.jsonl: cannot read benchmark "gone"`) {
		t.Errorf("missing file: %v", err)
	}
	if _, err = Open(fstest.MapFS{}, "r"); err == nil || !strings.HasPrefix(err.Error(), "the benchmark registry cannot be used: rubrics/rubrics.json: cannot read the benchmark registry") {
		t.Errorf("no registry: %v", err)
	}
}
