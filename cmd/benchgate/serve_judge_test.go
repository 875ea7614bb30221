package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/fakeopenai"
)

// TestServeJudgeFaultsAndBudget runs the App's spot-checks against a judge
// that first misbehaves (a call that hangs past the timeout, then broken
// and inconsistent verdicts) and then answers well, with prices set so
// that the daily budget is counted in dollars:
//   - the faulty judge's spot-check ends inconclusive for a maintainer to
//     decide, never as evidence against the submitter, and the App goes on;
//   - a good judge's spot-check spends, the spend is in the metrics, each
//     call's worst case is reserved before it is made, so that the spend
//     never goes past the budget even when every call costs its worst
//     case, and once the day's budget is spent the next spot-check is
//     refused.
func TestServeJudgeFaultsAndBudget(t *testing.T) {
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	var broken atomic.Bool
	broken.Store(true)
	var faulty *fakeopenai.Server
	var good *fakeopenai.Server
	var badCalls atomic.Int32
	// A call's worst case at the test's prices: nothing for the prompt,
	// and 4 USD per million tokens of a completion as long as the judge
	// contract's limit.
	var maxTokens int
	var worstCall float64
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		good = fakeEndpoint(t, a.root)
		maxTokens = contractMaxTokens(t, a.root)
		worstCall = float64(maxTokens) * 4.0 / 1e6
		faulty = fakeopenai.New(t, fakeopenai.Options{
			Key: testKey,
			Fail: func(call int, req fakeopenai.Request) *fakeopenai.Failure {
				if call == 1 {
					return &fakeopenai.Failure{Hang: true}
				}
				return nil
			},
			Reply: func(req fakeopenai.Request) fakeopenai.Reply {
				if badCalls.Add(1)%2 == 0 {
					return fakeopenai.Reply{Content: `I would give 9. {"gate_passed": tru`}
				}
				return fakeopenai.Reply{Content: `{"gate_passed": true, "gate_reason": "ok", "components": [], "total": 10, "adjudication_required": false, "adjudication_note": ""}`}
			},
		})
		// One judge URL for the App; the test switches what is behind it.
		judge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			target := good.URL
			if broken.Load() {
				target = faulty.URL
			}
			u, _ := url.Parse(target)
			proxy := httputil.NewSingleHostReverseProxy(u)
			proxy.ErrorLog = log.New(io.Discard, "", 0) // the hung call's cancellation
			if !broken.Load() {
				proxy.ModifyResponse = billCompletionLimit(maxTokens)
			}
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(judge.Close)
		cfg.JudgeBaseURL, cfg.JudgeAPIKey, cfg.JudgeTimeout = judge.URL, testKey, 300*time.Millisecond
		// USD per million tokens. Prompts are free, so that every call's
		// worst case is the same: its whole completion limit.
		in, out := 0.0, 4.0
		cfg.JudgePriceInput, cfg.JudgePriceOutput = &in, &out
		// The good judge bills each call its worst case, so the day's
		// budget pays for exactly two; the faulty one reports no usage.
		cfg.Limits.JudgeUSDPerDay, cfg.Limits.SpotCheckUSD = 2*worstCall, 2*worstCall
		a.gh.SetPermission("geo/board", "maint", "admin")
	}})
	meta := exampleMeta(t, a.root, "submissions/model-benchmark/qwen3-32b-basin")
	scores, _ := os.ReadFile(filepath.Join(a.root, "submissions/model-benchmark/qwen3-32b-basin/scores.json"))
	spotCheck := func(n int) fakegithub.CheckRun {
		t.Helper()
		head := fmt.Sprintf("%040d", n)
		dir := fmt.Sprintf("submissions/model-benchmark/judged-%d/", n)
		a.gh.AddPR("geo/board", fakegithub.PR{Number: n, Author: newcomer, HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
			{Name: dir + "meta.json", Status: "added", Content: meta},
			{Name: dir + "scores.json", Status: "added", Content: scores},
		}})
		a.deliver("pull_request", fmt.Sprint("judge-open-", n), prEvent("opened", n, head))
		a.waitFor("the verify check", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
		a.deliver("issue_comment", fmt.Sprint("judge-rerun-", n), commentEvent(n, int64(700+n), "maint", "/benchgate rerun"))
		a.waitFor("the rerun check", func() bool { return len(a.runs(prcheck.RerunCheckName, head)) == 1 })
		return a.runs(prcheck.RerunCheckName, head)[0]
	}

	r := spotCheck(40)
	if r.Conclusion != "action_required" || !strings.Contains(r.Output.Summary, "inconclusive") {
		t.Errorf("with a faulty judge: %s\n%s", r.Conclusion, r.Output.Summary)
	}
	if calls, _ := faulty.Stats(); calls < 5 {
		t.Errorf("the faulty judge saw %d calls", calls)
	}

	broken.Store(false)
	r = spotCheck(41)
	if r.Conclusion == "failure" || r.Conclusion == "neutral" {
		t.Errorf("with a good judge: %s\n%s", r.Conclusion, r.Output.Summary)
	}
	// The App sends the registry's judge contract, as the CLI does, and
	// no seed the contract does not set.
	for _, r := range good.Requests() {
		raw := string(r.Raw)
		for _, want := range []string{`"temperature":0`, `"top_p":1`, `"reasoning_effort":"medium"`, `"service_tier":"flex"`, fmt.Sprintf(`"max_tokens":%d`, maxTokens)} {
			if !strings.Contains(raw, want) {
				t.Errorf("the App's judge call lacks %s: %s", want, raw)
			}
		}
		if strings.Contains(raw, `"seed"`) {
			t.Errorf("the App's judge call has a seed: %s", raw)
		}
	}
	if spent := a.metric("benchgate_judge_spend_today_usd"); spent != 2*worstCall {
		t.Errorf("spend today %v USD, want the day's budget of %v spent and not overshot", spent, 2*worstCall)
	}
	// Four calls, since the endpoint's first two attempts were 429s and
	// every attempt counts: the budget runs out while the judge grades
	// the calibration fixtures, before any answer.
	if !strings.Contains(r.Output.Summary, "the budget ran out after 4 calls") || !strings.Contains(r.Output.Summary, "while the judge graded the calibration fixtures") || strings.Count(r.Output.Summary, "| `Q") != 0 {
		t.Errorf("the good judge's spot-check does not stop at its budget:\n%s", r.Output.Summary)
	}
	r = spotCheck(42)
	if r.Conclusion != "neutral" || !strings.Contains(r.Output.Summary, "judge budget") {
		t.Errorf("once the day's budget is spent: %s\n%s", r.Conclusion, r.Output.Summary)
	}
	if n := a.metric(`benchgate_limit_refusals_total{limit="daily_spend"}`); n != 1 {
		t.Errorf("daily_spend refusals %v, want 1", n)
	}
}

// contractMaxTokens is the max_tokens of the basin-analysis judge
// contract in the registry of the board at root.
func contractMaxTokens(t *testing.T, root string) int {
	t.Helper()
	reg, _ := benchmark.LoadRegistry(os.DirFS(root))
	e, _ := reg.Lookup("basin-analysis")
	if e.Judge.MaxTokens == 0 {
		t.Fatal("the example registry's judge contract sets no max_tokens")
	}
	return e.Judge.MaxTokens
}

// billCompletionLimit makes a judge reply bill its whole completion limit,
// maxTokens, and no prompt, as the worst case a budget must reserve.
func billCompletionLimit(maxTokens int) func(*http.Response) error {
	return func(resp *http.Response) error { return billTokens(resp, maxTokens) }
}

func billTokens(resp *http.Response, maxTokens int) error {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var reply map[string]any
	if resp.StatusCode == http.StatusOK && json.Unmarshal(body, &reply) == nil {
		reply["usage"] = map[string]any{"prompt_tokens": 0, "completion_tokens": maxTokens, "total_tokens": maxTokens}
		if body, err = json.Marshal(reply); err != nil {
			return err
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}
