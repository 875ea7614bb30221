package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/internal/syncbuf"
)

// TestServeJudgeErrorsStayPrivate runs a maintainer's spot-check against
// a judge that fails every call with a message naming its own address and
// an internal one, as a proxy in front of a dead model does. The pull
// request's comment and check run say that the judge failed and how (the
// HTTP status), never where it is or what it said; the App's log keeps
// all of it. A judge that was down once put
// `Post "http://127.0.0.1:…/v1/chat/completions": dial tcp …` in a
// comment.
func TestServeJudgeErrorsStayPrivate(t *testing.T) {
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	const inside = "http://10.0.0.5:8000/v1"
	logs := &syncbuf.Buffer{}
	var judge *fakeopenai.Server
	head := strings.Repeat("8", 40)
	a := startAppWith(t, appOptions{logs: logs, edit: func(a *app, cfg *bot.Config) {
		judge = fakeopenai.New(t, fakeopenai.Options{Key: testKey, Fail: func(int, fakeopenai.Request) *fakeopenai.Failure {
			return &fakeopenai.Failure{Status: 404, Body: `{"error": {"message": "no route for POST ` + judge.URL + `/chat/completions: upstream ` + inside + ` is down"}}`}
		}})
		cfg.JudgeBaseURL, cfg.JudgeAPIKey = judge.URL, testKey
		meta, _ := os.ReadFile(filepath.Join(a.root, "submissions/model-benchmark/qwen3-32b-basin/meta.json"))
		scores, _ := os.ReadFile(filepath.Join(a.root, "submissions/model-benchmark/qwen3-32b-basin/scores.json"))
		a.gh.AddPR("geo/board", fakegithub.PR{Number: 23, Author: "newcomer", HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
			{Name: "submissions/model-benchmark/down-run/meta.json", Status: "added", Content: meta},
			{Name: "submissions/model-benchmark/down-run/scores.json", Status: "added", Content: scores},
		}})
		a.gh.SetPermission("geo/board", "maint", "admin")
	}})
	a.deliver("pull_request", "down-1", prEvent("opened", 23, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	a.deliver("issue_comment", "down-2", commentEvent(23, 903, "maint", "/benchgate rerun"))
	a.waitFor("the rerun check", func() bool { return len(a.runs(prcheck.RerunCheckName, head)) == 1 })
	a.waitFor("the spot-check in the comment", func() bool {
		cs := a.gh.Comments("geo/board", 23)
		return len(cs) == 1 && strings.Contains(cs[0].Body, "judge call failed")
	})
	a.stop()

	r := a.runs(prcheck.RerunCheckName, head)[0]
	shown := map[string]string{"check run": r.Output.Title + r.Output.Summary + r.Output.Text, "comment": a.gh.Comments("geo/board", 23)[0].Body}
	addr := strings.TrimPrefix(strings.TrimSuffix(judge.URL, "/v1"), "http://")
	for where, text := range shown {
		if !strings.Contains(text, "the judge call failed: model") || !strings.Contains(text, "the endpoint or the model was not found (HTTP 404)") {
			t.Errorf("the %s does not say how the judge failed:\n%s", where, text)
		}
		for _, s := range []string{addr, "10.0.0.5", "no route"} {
			if strings.Contains(text, s) {
				t.Errorf("the %s shows %q:\n%s", where, s, text)
			}
		}
	}
	if !strings.Contains(logs.String(), "a spot-check call failed") || !strings.Contains(logs.String(), inside) {
		t.Errorf("the App's log does not keep the judge's error:\n%s", logs.String())
	}
}
