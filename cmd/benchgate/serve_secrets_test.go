package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/internal/syncbuf"
)

// TestServeKeepsSecrets runs a verification, a judged spot-check and a
// reproduction (whose record cannot be pushed to the fake), then
// looks for every configured secret, and for installation tokens, in the
// logs, the check runs, the comments and every file the App wrote.
func TestServeKeepsSecrets(t *testing.T) {
	secrets := map[string]string{
		"webhook secret": "whsec-0b8d2f7c9e1a4b6d",
		"judge key":      testKey,
		"rerun secret":   "rerun-5e3a9c1f7d2b8e4a",
		"candidate key":  "sk-cand-7d1e9b3a5c2f8e04",
	}
	repro := strings.Repeat("8", 40)
	dir := t.TempDir()
	t.Setenv("BENCHGATE_CACHE_DIR", filepath.Join(dir, "cache"))
	logs := &syncbuf.Buffer{}
	head := strings.Repeat("9", 40)
	a := startAppWith(t, appOptions{logs: logs, edit: func(a *app, cfg *bot.Config) {
		judge := fakeEndpoint(t, a.root)
		meta := exampleMeta(t, a.root, "submissions/model-benchmark/qwen3-32b-basin")
		scores, _ := os.ReadFile(filepath.Join(a.root, "submissions/model-benchmark/qwen3-32b-basin/scores.json"))
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 21, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
			{Name: "submissions/model-benchmark/secret-run/meta.json", Status: "added", Content: meta},
			{Name: "submissions/model-benchmark/secret-run/scores.json", Status: "added", Content: scores},
		}})
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 22, Author: newcomer, HeadSHA: repro, BaseRef: "main", Files: []fakegithub.File{
			{Name: "submissions/model-benchmark/secret-repro/meta.json", Status: "added", Content: a.meta},
			{Name: "submissions/model-benchmark/secret-repro/scores.json", Status: "added", Content: a.scores},
		}})
		cand := reproduceEndpoint(t, a.root, fakeopenai.Options{Key: secrets["candidate key"]}, func(_ *benchmark.Item, submitted string) string { return submitted })
		cfg.CandidateBaseURL, cfg.CandidateAPIKey = cand.URL, secrets["candidate key"]
		a.gh.SetPermission("geo/board", "maint", "admin")
		cfg.WebhookSecrets = [][]byte{[]byte(secrets["webhook secret"])}
		cfg.JudgeBaseURL, cfg.JudgeAPIKey = judge.URL, secrets["judge key"]
		cfg.RerunSecret = []byte(secrets["rerun secret"])
		cfg.DatabaseURL = "sqlite:" + filepath.Join(dir, "q.db")
		// A line from the middle of the key stands for all of it.
		secrets["private key"] = strings.Split(string(cfg.PrivateKey), "\n")[5]
	}})
	a.deliver("pull_request", "sec-1", prEvent("opened", 21, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	a.deliver("issue_comment", "sec-2", commentEvent(21, 901, "maint", "/benchgate rerun"))
	a.waitFor("the rerun check", func() bool { return len(a.runs(prcheck.RerunCheckName, head)) == 1 })
	a.deliver("pull_request", "sec-3", prEvent("opened", 22, repro))
	a.waitFor("the second verify check", func() bool { return len(a.runs(prcheck.CheckName, repro)) == 1 })
	a.deliver("issue_comment", "sec-4", commentEvent(22, 902, "maint", "/benchgate reproduce"))
	a.waitFor("the reproduce check", func() bool { return len(a.runs(prcheck.ReproduceCheckName, repro)) == 1 })
	if r := a.runs(prcheck.ReproduceCheckName, repro)[0]; r.Conclusion != "success" || !strings.Contains(r.Output.Summary, "The record could not be committed") {
		t.Errorf("the reproduction: %s\n%s", r.Conclusion, r.Output.Summary)
	}
	a.stop()

	var places []string
	places = append(places, "logs\x00"+logs.String())
	for _, r := range a.gh.CheckRuns("geo/board") {
		places = append(places, "check run "+r.Name+"\x00"+r.Output.Title+r.Output.Summary+r.Output.Text)
	}
	for _, pr := range []int{21, 22} {
		for _, c := range a.gh.Comments("geo/board", pr) {
			places = append(places, "comment\x00"+c.Body)
		}
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			places = append(places, p+"\x00"+string(data))
		}
		return nil
	})
	if !strings.Contains(logs.String(), `"msg":"job done"`) {
		t.Fatalf("the logs were not captured:\n%s", logs.String())
	}
	for _, place := range places {
		name, text, _ := strings.Cut(place, "\x00")
		for what, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in %s", what, name)
			}
		}
		if strings.Contains(text, "ghs_") {
			t.Errorf("an installation token appears in %s", name)
		}
	}
}
