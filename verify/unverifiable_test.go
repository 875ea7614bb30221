package verify

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchgate/benchgate/extract"
	"github.com/benchgate/benchgate/internal/fixtures"
)

// TestTruncatedIsUnverifiableNotParseFailure: a response the source
// stored cut short, whose stored text holds no letter, is counted as
// unverifiable and not as a parse failure (the letter may be in the part
// not stored); a whole response with no letter is a parse failure.
func TestTruncatedIsUnverifiableNotParseFailure(t *testing.T) {
	tests := []struct {
		name                        string
		truncated                   bool
		unverifiable, parseFailures int
	}{
		{"cut by the source", true, 1, 0},
		{"whole, no letter", false, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := mcqScores()
			rows[2]["response"], rows[2]["answer"], rows[2]["correct"] = "Because of X, and", nil, false
			if tt.truncated {
				// The source read the whole response and published its letter.
				rows[2]["answer"], rows[2]["correct"], rows[2]["response_truncated"] = "C", true, true
			}
			r := verifyOne(t, board(t, mcqMeta(), rows, mcqDir), mcqDir)
			s := r.Summary
			if *s.Unverifiable != tt.unverifiable || *s.ParseFailures != tt.parseFailures {
				t.Errorf("unverifiable %d, parse failures %d; want %d and %d (%s)", *s.Unverifiable, *s.ParseFailures, tt.unverifiable, tt.parseFailures, s.Line())
			}
		})
	}
}

// TestUnverifiableReviewRate: the registry's unverifiable_review_rate is
// the benchmark's limit; above it the submission goes to review with a
// message that says what a maintainer can do.
func TestUnverifiableReviewRate(t *testing.T) {
	tests := []struct {
		name   string
		rate   string // the registry member, "" for none
		status Status
	}{
		{"default 5%: 1 of 4 needs review", "", Review},
		{"the benchmark allows 25%", `, "unverifiable_review_rate": 0.25`, Pass},
		{"the benchmark allows 10%", `, "unverifiable_review_rate": 0.1`, Review},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := mcqScores()
			rows[2]["response"], rows[2]["response_truncated"] = "Because of X, and", true
			fsys := board(t, mcqMeta(), rows, mcqDir)
			fsys["rubrics/rubrics.json"] = &fstest.MapFile{Data: []byte(strings.Replace(testRegistry, `"reference_model_id": "org/ref"`, `"reference_model_id": "org/ref"`+tt.rate, 1))}
			r := verifyOne(t, fsys, mcqDir)
			if r.Status != tt.status {
				t.Fatalf("status %s, want %s (warnings %v)", r.Status, tt.status, r.Warnings)
			}
			var msg string
			for _, w := range r.Warnings {
				if w.Code == codeUnverifiable {
					msg = w.Message
				}
			}
			if msg == "" {
				t.Fatalf("no %s warning in %v", codeUnverifiable, r.Warnings)
			}
			if strings.Contains(msg, "store full responses") {
				t.Errorf("message asks for what an importer cannot do: %s", msg)
			}
			if want := "benchgate accept " + mcqDir + " --reason"; (tt.status == Review) != strings.Contains(msg, want) {
				t.Errorf("message %q: want %q in it exactly when the submission needs review", msg, want)
			}
		})
	}
}

// TestFormationEvalParseFailuresPublished: on FormationEval's published
// responses, under every policy, a parse failure is a whole response in
// which the policy reads no letter, and a response FormationEval stored
// cut at 500 characters is never one: it is unverifiable when its stored
// text does not decide the letter. FormationEval's own extractor finds
// every letter it published (no "failed" pattern), so its policy counts
// no parse failure.
func TestFormationEvalParseFailuresPublished(t *testing.T) {
	_, subs := fixtures.FormationEval(t)
	for _, policy := range []string{"formationeval-v0.1", "flexible", "answer-line"} {
		p, err := extract.Lookup(policy)
		if err != nil {
			t.Fatal(err)
		}
		rep := verifyBoard(t, formationEvalBoard(t, policy))
		for _, r := range rep.Submissions {
			m := r.Path[strings.LastIndexByte(r.Path, '/')+1:]
			want, cut := 0, 0
			for _, row := range subs[m] {
				res := p.Extract(row["response"].(string))
				truncated := row["response_truncated"] == true
				switch {
				case truncated && !res.Final:
					cut++
				case res.Letter == "":
					want++
				}
			}
			s := r.Summary
			if *s.ParseFailures != want || *s.Unverifiable != cut {
				t.Errorf("%s under %s: %d parse failures, %d unverifiable; want %d and %d", m, policy, *s.ParseFailures, *s.Unverifiable, want, cut)
			}
			if policy == "formationeval-v0.1" && *s.ParseFailures != 0 {
				t.Errorf("%s: %d parse failures where FormationEval publishes none", m, *s.ParseFailures)
			}
		}
	}
}

func TestPercent(t *testing.T) {
	for f, want := range map[float64]string{0.05: "5%", 0.07: "7%", 0.001: "0.1%", 0.0125: "1.25%", 1: "100%"} {
		if got := percent(f); got != want {
			t.Errorf("percent(%v) = %s, want %s", f, got, want)
		}
	}
}
