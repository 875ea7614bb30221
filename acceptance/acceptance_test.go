package acceptance

import (
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

var day = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

func result(status verify.Status) verify.Result {
	r := verify.Result{Path: "submissions/model-benchmark/m-fe", RubricKey: "fe", Status: status, Summary: verify.Summary{Unverifiable: new(31)}}
	if status == verify.Fail {
		r.Errors = finding.List{{Code: "mcq.dispute"}}
	}
	if status == verify.Review {
		r.Warnings = finding.List{{Code: "mcq.unverifiable"}}
	}
	return r
}

func files() *verify.Files {
	return &verify.Files{Meta: &submission.Meta{ModelName: "m", RubricKey: "fe"}, MCQ: []submission.MCQRow{{ID: "q1", Response: "A", Answer: "A"}}}
}

// TestDecide: only a submission in review can be accepted, with a reason
// that can be shown; the record names its version by digest.
func TestDecide(t *testing.T) {
	tests := []struct {
		name   string
		status verify.Status
		reason string
		by     string
		err    string // "" for a decision
	}{
		{"in review, with a reason", verify.Review, "  responses stored cut short upstream  ", "octocat", ""},
		{"in review, no login", verify.Review, "responses stored cut short upstream", "", ""},
		{"passes", verify.Pass, "r", "", "passes verification: it is ranked without a decision"},
		{"fails", verify.Fail, "r", "", "fails verification with 1 error(s): a maintainer accepts only a submission in review"},
		{"no reason", verify.Review, " ", "", "a reason is required: say, for readers of the board, why submissions/model-benchmark/m-fe can be ranked although verification sent it to review (mcq.unverifiable)"},
		{"a reason too long", verify.Review, strings.Repeat("x", MaxReasonBytes+1), "", "the reason is 1001 bytes"},
		{"a hidden character", verify.Review, "fine\u202eenif", "", "control or direction-override character"},
		{"not a login", verify.Review, "r", "two words", `accepted by "two words"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := Decide(result(tt.status), files(), tt.reason, tt.by, day)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Format != RecordFormat || rec.Reason != strings.TrimSpace(tt.reason) || rec.Unverifiable != 31 || rec.AcceptedBy != tt.by || rec.Date != "2026-12-02" || len(rec.Digest) != 64 {
				t.Errorf("record %+v", rec)
			}
		})
	}
}

// TestRecordRoundTrip: a record reads back as written, is valid by its
// schema, holds for its submission's version only, and writing the same
// decision on another day changes nothing that matters.
func TestRecordRoundTrip(t *testing.T) {
	rec, err := Decide(result(verify.Review), files(), "cut upstream", "octocat", day)
	if err != nil {
		t.Fatal(err)
	}
	data, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, fs := ParseRecord("acceptances/model-benchmark/m-fe.json", data)
	if got == nil || *got != rec {
		t.Fatalf("read back %+v (%v), want %+v", got, fs, rec)
	}
	if !got.Holds(rec.Submission, rec.Digest) || got.Holds(rec.Submission, strings.Repeat("0", 64)) || got.Holds("submissions/model-benchmark/other", rec.Digest) {
		t.Errorf("Holds is wrong")
	}
	changed := files()
	changed.MCQ[0].Answer = "B"
	if again, _ := Decide(result(verify.Review), changed, "cut upstream", "octocat", day); again.Digest == rec.Digest {
		t.Errorf("a changed submission has the same digest")
	}
	later, _ := Decide(result(verify.Review), files(), "cut upstream", "octocat", day.AddDate(0, 0, 3))
	if !got.Same(later) {
		t.Errorf("the same decision on another day is not the same")
	}
	if f, _ := submission.ParseFolder(rec.Submission); RecordPath(f) != "acceptances/model-benchmark/m-fe.json" {
		t.Errorf("RecordPath = %s", RecordPath(f))
	}
	for name, bad := range map[string]string{
		"another format": `{"format": "benchgate acceptance 9"}`,
		"no reason":      strings.Replace(string(data), `"reason": "cut upstream"`, `"reason": ""`, 1),
		"unknown member": strings.Replace(string(data), `"format"`, `"extra": 1, "format"`, 1),
	} {
		if r, fs := ParseRecord("a.json", []byte(bad)); r != nil || len(fs) == 0 {
			t.Errorf("%s: read %+v", name, r)
		}
	}
}

func FuzzParseRecord(f *testing.F) {
	rec, _ := Decide(result(verify.Review), files(), "cut upstream", "octocat", day)
	data, _ := rec.Encode()
	f.Add(data)
	f.Add([]byte(`{"format": "benchgate acceptance 2"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, fs := ParseRecord("a.json", data)
		if (r == nil) == (len(fs) == 0) {
			t.Errorf("record %v with findings %v", r, fs)
		}
		if r != nil && (r.Format != RecordFormat || r.Reason == "" || len(r.Digest) != 64) {
			t.Errorf("read a record its schema refuses: %+v", r)
		}
	})
}
