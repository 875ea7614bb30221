package submission

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestCreate(t *testing.T) {
	root := t.TempDir()
	price := 0.1
	meta := &Meta{ModelName: "M", CandidateModelID: "o/m", Submitter: "s", ContactOrRepo: "https://example.org", RubricKey: "k", Date: "2026-11-01", PriceInput: &price}
	scores := []byte("[\n  {\"id\": \"Q1\"}\n]")
	f := NewFolder(ModelTrack, "m-run")
	dir, err := Create(root, f, meta, scores)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "submissions", "model-benchmark", "m-run"); dir != want {
		t.Errorf("dir = %s, want %s", dir, want)
	}
	data, _ := os.ReadFile(filepath.Join(dir, MetaFile))
	var back Meta
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(&back, meta) || data[len(data)-1] != '\n' || data[1] != '\n' {
		t.Errorf("meta.json: %v\n%s", err, data)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ScoresFile)); string(got) != string(scores) {
		t.Errorf("scores.json is not the scores unchanged: %s", got)
	}
	if dirs, err := Discover(os.DirFS(root)); err != nil || !reflect.DeepEqual(dirs, []string{f.String()}) {
		t.Errorf("Discover = %v, %v", dirs, err)
	}

	// An existing folder, or a file where the folder would be, is never
	// replaced.
	if _, err := Create(root, f, &Meta{ModelName: "other"}, []byte("[]")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Create: %v, want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ScoresFile)); string(got) != string(scores) {
		t.Errorf("the second Create changed scores.json: %s", got)
	}
	stray := NewFolder(ModelTrack, "stray.json")
	os.WriteFile(filepath.Join(root, filepath.FromSlash(stray.String())), []byte("{}"), 0o644)
	if _, err := Create(root, stray, meta, scores); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over a file: %v, want fs.ErrExist", err)
	}
}
