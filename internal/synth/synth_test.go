package synth

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/benchgate/benchgate/verify"
)

func TestDeterministic(t *testing.T) {
	a, err := MCQ(300, 15, 600, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := MCQ(300, 15, 600, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for p, data := range a {
		if !bytes.Equal(data, b[p]) {
			t.Errorf("%s differs between two runs with the same seed", p)
		}
	}
	c, err := MCQ(300, 15, 600, 8)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a[MCQSubmission+"/scores.json"], c[MCQSubmission+"/scores.json"]) {
		t.Error("another seed gave the same scores.json")
	}

	r1, err := Rubric(12, 3)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Rubric(12, 3)
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range r1 {
		if !bytes.Equal(data, r2[p]) {
			t.Errorf("%s differs between two runs with the same seed", p)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][3]int{{0, 1, 10}, {10, 0, 10}, {10, 11, 10}, {10, 2, -1}} {
		if _, err := MCQ(args[0], args[1], args[2], 1); err == nil {
			t.Errorf("MCQ(%v) gave no error", args)
		}
	}
	if _, err := Rubric(0, 1); err == nil {
		t.Error("Rubric(0) gave no error")
	}
}

func verifyOne(t *testing.T, v *verify.Verifier, dir string) verify.Result {
	t.Helper()
	res := v.Verify(dir)
	if res.Status != verify.Pass || len(res.Errors) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("status %s, errors %v, warnings %v", res.Status, res.Errors, res.Warnings)
	}
	return res
}

func TestMCQVerifies(t *testing.T) {
	const n = 2000
	f, err := MCQ(n, 100, 800, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.New(f.MapFS(), verify.Options{Today: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if _, fs := v.Benchmark(MCQKey); len(fs) > 0 {
		t.Errorf("benchmark findings: %v", fs)
	}
	s := verifyOne(t, v, MCQSubmission).Summary
	if *s.Questions != n || *s.Disputes != 0 || *s.Unverifiable != 0 {
		t.Errorf("summary: %d questions, %d disputes, %d unverifiable", *s.Questions, *s.Disputes, *s.Unverifiable)
	}
	if acc := *s.Accuracy; acc < 0.70 || acc > 0.80 {
		t.Errorf("accuracy %.3f, want about 0.75", acc)
	}
	if *s.LengthFinishes == 0 || *s.EmptyResponses == 0 || *s.LengthFinishes+*s.EmptyResponses > n/50 {
		t.Errorf("%d length finishes and %d empty responses, want a few of each", *s.LengthFinishes, *s.EmptyResponses)
	}
	if *s.ParseFailures != *s.LengthFinishes {
		t.Errorf("%d parse failures, want one per cut response (%d)", *s.ParseFailures, *s.LengthFinishes)
	}
}

func TestResponseSize(t *testing.T) {
	f, err := MCQ(400, 20, DefaultResponseBytes, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	// About 2 KB of response plus about 250 bytes of the other fields.
	perRow := len(f[MCQSubmission+"/scores.json"]) / 400
	if perRow < 2100 || perRow > 2500 {
		t.Errorf("%d bytes per row, want about 2.3 KB", perRow)
	}
}

func TestRubricVerifiesFromDisk(t *testing.T) {
	dir := t.TempDir()
	if err := WriteRubric(dir, RubricQuestions, DefaultSeed); err != nil {
		t.Fatal(err)
	}
	v, err := verify.New(os.DirFS(dir), verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, fs := v.Benchmark(RubricKey); len(fs) > 0 {
		t.Errorf("benchmark findings: %v", fs)
	}
	s := verifyOne(t, v, RubricSubmission).Summary
	if *s.Questions != RubricQuestions || *s.Scored != RubricQuestions {
		t.Errorf("summary: %d questions, %d scored", *s.Questions, *s.Scored)
	}
}

func TestMCQVerifiesFromDisk(t *testing.T) {
	dir := t.TempDir()
	if err := WriteMCQ(dir, 200, 10, 300, 5); err != nil {
		t.Fatal(err)
	}
	v, err := verify.New(os.DirFS(dir), verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := v.Discover()
	if err != nil || len(dirs) != 1 || dirs[0] != MCQSubmission {
		t.Fatalf("Discover() = %v, %v", dirs, err)
	}
	verifyOne(t, v, MCQSubmission)
}
