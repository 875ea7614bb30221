package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
)

// TestServeEndToEnd runs the App against a fake GitHub: a signed
// pull_request delivery ends in one check run and one comment.
func TestServeEndToEnd(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("a", 40)
	a.pr(3, head, a.scores)
	a.deliver("pull_request", "delivery-1", prEvent("opened", 3, head))
	a.waitFor("the check run and the comment", func() bool {
		return len(a.gh.CheckRuns("geo/board")) > 0 && len(a.gh.Comments("geo/board", 3)) > 0
	})
	runs := a.gh.CheckRuns("geo/board")
	if len(runs) != 1 || runs[0].Name != prcheck.CheckName || runs[0].Conclusion != "success" || runs[0].HeadSHA != head {
		t.Fatalf("check runs: %+v", runs)
	}
	if cs := a.gh.Comments("geo/board", 3); len(cs) != 1 || !strings.Contains(cs[0].Body, prcheck.StickyMarker) {
		t.Errorf("comments: %+v", cs)
	}
}

// TestServeReconcilesMissedDeliveries: an open pull request whose
// delivery never arrived is found and verified at start-up.
func TestServeReconcilesMissedDeliveries(t *testing.T) {
	head := strings.Repeat("b", 40)
	a := startAppWith(t, appOptions{reconcile: time.Hour, edit: func(a *app, cfg *bot.Config) {
		a.gh.AddInstallation(7, "geo/board")
		a.pr(4, head, a.scores)
	}})
	a.waitFor("the reconciled check run", func() bool { return len(a.gh.CheckRuns("geo/board")) > 0 })
	a.stop()
	if runs := a.gh.CheckRuns("geo/board"); len(runs) != 1 || runs[0].HeadSHA != head || runs[0].Conclusion != "success" {
		t.Errorf("check runs: %+v", runs)
	}
}

// TestServeWarnsWhatWillNotWork: serve starts without a judge, and says
// at start-up, in its structured log, what will not work for want of it.
// (Without a rerun secret it does not start with a judge: see
// bot.TestLoadConfig.)
func TestServeWarnsWhatWillNotWork(t *testing.T) {
	tests := []struct {
		name string
		cfg  bot.Config
		want []string // the unset variables warned about, in order
	}{
		{"judge and candidate set", bot.Config{JudgeBaseURL: "https://judge.example.org/v1", CandidateBaseURL: "https://openrouter.ai/api/v1", RerunSecret: []byte("k")}, nil},
		{"no candidate", bot.Config{JudgeBaseURL: "https://judge.example.org/v1", RerunSecret: []byte("k")}, []string{"BENCHGATE_CANDIDATE_API_KEY"}},
		{"no judge", bot.Config{CandidateBaseURL: "https://openrouter.ai/api/v1", RerunSecret: []byte("k")}, []string{"BENCHGATE_JUDGE_BASE_URL"}},
		{"neither", bot.Config{}, []string{"BENCHGATE_JUDGE_BASE_URL", "BENCHGATE_CANDIDATE_API_KEY"}},
	}
	says := map[string]string{
		"BENCHGATE_JUDGE_BASE_URL":    "spot-checks of rubric submissions cannot run",
		"BENCHGATE_CANDIDATE_API_KEY": "/benchgate reproduce reports that the model cannot be asked",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			warnUnset(slog.New(slog.NewJSONHandler(&buf, nil)), tt.cfg)
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				if line == "" {
					continue
				}
				var rec struct{ Level, Msg, Unset string }
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("not a JSON log line: %s", line)
				}
				if rec.Level != "WARN" || !strings.Contains(rec.Msg, says[rec.Unset]) {
					t.Errorf("%s: %s %q", rec.Unset, rec.Level, rec.Msg)
				}
				got = append(got, rec.Unset)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("warned about %v, want %v", got, tt.want)
			}
		})
	}
}
