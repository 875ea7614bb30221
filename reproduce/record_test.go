package reproduce

import (
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

func TestRecordPath(t *testing.T) {
	if got := RecordPath(submission.NewFolder(submission.ModelTrack, "qwen3-32b-reservoir")); got != "reproductions/model-benchmark/qwen3-32b-reservoir.json" {
		t.Errorf("RecordPath = %q", got)
	}
}

// TestRecordRoundTrip: a record written is read back as it was, and
// passes its schema.
func TestRecordRoundTrip(t *testing.T) {
	rep := Report{Path: "submissions/model-benchmark/qwen3-32b-reservoir", Digest: strings.Repeat("ab", 32), RubricKey: "reservoir-mcq",
		Model: "qwen/qwen3-32b", Asked: "qwen/qwen3-32b", Endpoint: "openrouter.ai", Verdict: Consistent, Reason: "the claimed answers are what it gives",
		Seed: "0123456789abcdef", SeedSource: "secret", Calls: 41, SpendUSD: 0.0123, Checked: 40}
	rec := NewRecord(rep, time.Date(2026, 12, 2, 23, 30, 0, 0, time.FixedZone("X", -3600)))
	data, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, fs := ParseRecord("r.json", data)
	if len(fs) > 0 {
		t.Fatalf("%v\n%s", fs, data)
	}
	if got.Date != "2026-12-03" || got.Checked != 40 || got.Served == nil || got.Format != RecordFormat || got.Digest != rep.Digest {
		t.Errorf("read back %+v", got)
	}
}

// TestParseRecordFindings: a broken record says where and how to replace it.
func TestParseRecordFindings(t *testing.T) {
	good := `{"format": "benchgate reproduction 1", "submission": "submissions/model-benchmark/x", "digest": "` + strings.Repeat("0", 64) + `",
"rubric_key": "k", "model": "m", "asked_model": "m", "verdict": "consistent", "reason": "r", "checked": 1, "calls": 1, "spend_usd": 0,
"endpoint": "h", "served_models": [], "seed": "", "seed_source": "", "date": "2026-12-02"}`
	tests := []struct {
		name, doc, want string
		line            int
	}{
		{"syntax", `{"format":`, "", 1},
		{"another format", `{"format": "benchgate reproduction 9"}`, `format is "benchgate reproduction 9"`, 1},
		{"a verdict unknown", strings.Replace(good, `"consistent"`, `"reproduced"`, 1), `/verdict: "reproduced" is not one of the allowed values`, 2},
		{"a digest too short", strings.Replace(good, strings.Repeat("0", 64), "00", 1), "/digest", 1},
		{"a field unknown", strings.Replace(good, `"date"`, `"n": 1, "date"`, 1), `unknown field "n"`, 3},
	}
	for _, tc := range tests {
		rec, fs := ParseRecord("r.json", []byte(tc.doc))
		if rec != nil || len(fs) == 0 {
			t.Errorf("%s: no finding", tc.name)
			continue
		}
		if f := fs[0]; !strings.Contains(f.Message, tc.want) || !strings.Contains(f.Message, "benchgate reproduce --record") || f.Line != tc.line || f.File != "r.json" {
			t.Errorf("%s: %+v", tc.name, f)
		}
	}
	if rec, fs := ParseRecord("r.json", []byte(good)); rec == nil || len(fs) > 0 {
		t.Errorf("good record: %v", fs)
	}
}

// TestStatus: the board's mark, which a changed submission loses.
func TestStatus(t *testing.T) {
	d := strings.Repeat("1", 64)
	tests := []struct {
		rec    *Record
		digest string
		want   string
	}{
		{&Record{Digest: d, Verdict: Consistent}, d, "reproduced"},
		{&Record{Digest: d, Verdict: Inconsistent}, d, "inconsistent"},
		{&Record{Digest: d, Verdict: Inconclusive}, d, "inconclusive"},
		{&Record{Digest: d, Verdict: Consistent}, strings.Repeat("2", 64), ""},
		{nil, d, ""},
	}
	for _, tc := range tests {
		if got := tc.rec.Status(tc.digest); got != tc.want {
			t.Errorf("%+v on %.4s: %q, want %q", tc.rec, tc.digest, got, tc.want)
		}
	}
}

// TestDigest: formatting leaves the digest alone; what is reported, in
// scores.json or meta.json, changes it.
func TestDigest(t *testing.T) {
	parse := func(scores, meta string) *verify.Files {
		t.Helper()
		sd, err := jsondoc.Parse([]byte(scores), jsondoc.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		rows, fs := submission.ParseMCQScores("scores.json", sd)
		if fs.HasErrors() {
			t.Fatal(fs)
		}
		md, err := jsondoc.Parse([]byte(meta), jsondoc.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		m, fs := submission.ParseMeta("meta.json", md)
		if m == nil {
			t.Fatal(fs)
		}
		return &verify.Files{Meta: m, MCQ: rows}
	}
	meta := `{"model_name":"M","candidate_model_id":"org/m","submitter":"s","contact_or_repo":"c","rubric_key":"k","date":"2026-01-02"}`
	scores := `[{"id":"q1","response":"ANSWER: A","answer":"A","correct":true},{"id":"q2","response":"ANSWER: B","answer":"B","correct":false}]`
	base := Digest("k", parse(scores, meta))
	same := map[string]*verify.Files{
		"reformatted":      parse("[\n  {\"correct\": true, \"answer\": \"A\", \"id\": \"q1\", \"response\": \"ANSWER: A\"},\n  {\"id\":\"q2\",\"response\":\"ANSWER: B\",\"answer\":\"B\",\"correct\":false}\n]", meta),
		"rows reordered":   parse(`[{"id":"q2","response":"ANSWER: B","answer":"B","correct":false},{"id":"q1","response":"ANSWER: A","answer":"A","correct":true}]`, meta),
		"meta reformatted": parse(scores, "{\n \"date\": \"2026-01-02\", \"rubric_key\": \"k\", \"model_name\":\"M\",\"candidate_model_id\":\"org/m\",\"submitter\":\"s\",\"contact_or_repo\":\"c\"}"),
	}
	for name, f := range same {
		if got := Digest("k", f); got != base {
			t.Errorf("%s: digest changed", name)
		}
	}
	differ := map[string]*verify.Files{
		"an answer changed": parse(strings.Replace(scores, `"answer":"B","correct":false`, `"answer":"C","correct":false`, 1), meta),
		"another model":     parse(scores, strings.Replace(meta, "org/m", "org/n", 1)),
		"sampling recorded": parse(scores, strings.Replace(meta, `"date"`, `"temperature":0.7,"date"`, 1)),
	}
	for name, f := range differ {
		if got := Digest("k", f); got == base {
			t.Errorf("%s: digest unchanged", name)
		}
	}
	if Digest("other", parse(scores, meta)) == base {
		t.Error("another benchmark: digest unchanged")
	}
}

func FuzzParseRecord(f *testing.F) {
	rec, _ := NewRecord(Report{Path: "submissions/model-benchmark/x", Digest: strings.Repeat("0", 64), Verdict: Unreachable, Reason: "r"}, time.Unix(0, 0)).Encode()
	f.Add(rec)
	f.Add([]byte(`{"format": "benchgate reproduction 2"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, fs := ParseRecord("r.json", data)
		if (r == nil) == (len(fs) == 0) {
			t.Errorf("record %v with findings %v", r, fs)
		}
		if r != nil && r.Format != RecordFormat {
			t.Errorf("format %q read", r.Format)
		}
	})
}
