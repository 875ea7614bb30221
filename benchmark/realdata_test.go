package benchmark

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
)

// TestGroundtruthRubricLintsClean loads the real published schema 2.0 rubric
// unchanged.
func TestGroundtruthRubricLintsClean(t *testing.T) {
	p := fixtures.Path(t, "groundtruth", "Yudnamutana_QA_grading_key.json")
	fsys := os.DirFS(filepath.Dir(p))
	b, fs := Load(fsys, Entry{Key: "yudnamutana", File: filepath.Base(p), Kind: KindRubric, JudgeModel: "openai/gpt-5.5"})
	if len(fs) > 0 || b == nil {
		t.Fatalf("findings on the published rubric: %v", fs)
	}
	r := b.Rubric
	if len(r.Questions) != 3 || r.TotalPoints != 10 {
		t.Fatalf("got %d questions, %d points", len(r.Questions), r.TotalPoints)
	}
	var ids []string
	nfix := 0
	for _, q := range r.Questions {
		ids = append(ids, q.ID)
		nfix += len(q.Calibration)
		if q.Gate.ComponentID != "C1" || len(q.Components) != 3 {
			t.Errorf("question %s: gate %q, %d components", q.ID, q.Gate.ComponentID, len(q.Components))
		}
	}
	if got := fmt.Sprint(ids); got != "[A1 B2 C3]" {
		t.Errorf("ids = %s", got)
	}
	if nfix != 9 {
		t.Errorf("calibration fixtures = %d, want 9", nfix)
	}
	if len(r.GlobalVariants) != 3 || r.GlobalVariants[0].Canonical != "Wywyana Formation" || len(r.GlobalVariants[0].Variants) != 2 {
		t.Errorf("global variants = %+v", r.GlobalVariants)
	}
}

// TestFormationEvalLoads loads the real FormationEval v0.1 benchmark and
// reproduces the bias figure its authors document.
func TestFormationEvalLoads(t *testing.T) {
	p := fixtures.Path(t, "formationeval", "formationeval_v0.1.json")
	b, fs := Load(os.DirFS(filepath.Dir(p)), Entry{Key: "formationeval", File: filepath.Base(p), Kind: KindMCQ, Extraction: "formationeval-v0.1"})
	if b == nil {
		t.Fatalf("findings: %v", fs)
	}
	if len(b.Items) != 505 {
		t.Fatalf("loaded %d questions, want 505", len(b.Items))
	}
	s := b.Stats
	t.Logf("keys %v, longest correct %d (%.1f%%), %d sources, difficulty %v", s.KeyCounts, s.LongestCorrect, 100*s.LongestRate, len(s.Sources), s.Difficulty)
	if got := fmt.Sprintf("%.1f", 100*s.LongestRate); got != "43.2" {
		t.Errorf("uniquely-longest rate = %s%%, want the documented 43.2%%", got)
	}
	var codes []string
	for _, f := range fs {
		codes = append(codes, f.Severity.String()+" "+f.Code)
	}
	if got := fmt.Sprint(codes); got != "[warning mcq.longest-bias warning mcq.source-balance]" {
		t.Errorf("findings = %s, want the two bias warnings only", got)
	}
}
