package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/reproduce"
)

// reproduceEndpoint is a candidate that answers each question of the
// example board's multiple-choice benchmark with letter(it, submitted),
// submitted being the letter the qwen3-32b-reservoir submission gives.
// reproduceEndpoint serves the candidate: each question answered with the
// letter letter gives, by the model served (the one asked when empty).
func reproduceEndpoint(t *testing.T, root string, opts fakeopenai.Options, letter func(it *benchmark.Item, submitted string) string, served ...string) *fakeopenai.Server {
	t.Helper()
	b := boardBenchmark(t, root, "reservoir-mcq")
	data, err := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		ID     string  `json:"id"`
		Answer *string `json:"answer"`
	}
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	submitted := map[string]string{}
	for _, r := range rows {
		if r.Answer != nil {
			submitted[r.ID] = *r.Answer
		}
	}
	if opts.Key == "" {
		opts.Key = testKey
	}
	opts.Reply = func(req fakeopenai.Request) fakeopenai.Reply {
		user := req.Messages[len(req.Messages)-1].Content
		for i := range b.Items {
			it := &b.Items[i]
			if strings.Contains(user, it.Question) {
				r := fakeopenai.Reply{Content: "Reasoning from the evidence.\nANSWER: " + letter(it, submitted[it.ID]), PromptTokens: 150, CompletionTokens: 20}
				if len(served) > 0 {
					r.Model = served[0]
				}
				return r
			}
		}
		return fakeopenai.Reply{Content: "?"}
	}
	return fakeopenai.New(t, opts)
}

// TestReproduceCommand: the verdicts and their exit codes, the report's
// fields, and the checks that cost nothing.
func TestReproduceCommand(t *testing.T) {
	root := copyBoard(t)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	t.Setenv("BENCHGATE_RERUN_SECRET", "s3cret")
	sub := root + "/submissions/model-benchmark/qwen3-32b-reservoir"
	args := func(srv *fakeopenai.Server, extra ...string) []string {
		return append([]string{"reproduce", sub, "--root", root, "--base-url", srv.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "", "--format", "json"}, extra...)
	}
	decode := func(t *testing.T, out string) map[string]any {
		t.Helper()
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return rep
	}

	t.Run("consistent", func(t *testing.T) {
		// The model gives the submitted letters again: every question of
		// the benchmark is asked, and the claimed answers are its.
		srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s })
		code, out, stderr := runCLI(t, args(srv)...)
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		rep := decode(t, out)
		for _, k := range []string{"verdict", "reason", "seed", "calls", "spend_usd", "checked", "questions"} {
			if _, ok := rep[k]; !ok {
				t.Errorf("report lacks %q", k)
			}
		}
		qs := rep["questions"].([]any)
		if rep["verdict"] != "consistent" || rep["seed_source"] != "secret" || len(qs) == 0 || rep["asked_model"] != "qwen/qwen3-32b" {
			t.Fatalf("report: %s", out)
		}
		q := qs[0].(map[string]any)
		for _, k := range []string{"id", "claimed", "reproduced", "claimed_correct", "reproduced_correct", "served_model"} {
			if _, ok := q[k]; !ok {
				t.Errorf("question lacks %q: %v", k, q)
			}
		}
		if !strings.Contains(stderr, "benchgate reproduce: at most ") {
			t.Errorf("no pre-flight estimate: %s", stderr)
		}
		if int(rep["calls"].(float64)) != len(srv.Requests()) {
			t.Errorf("calls %v, the endpoint saw %d", rep["calls"], len(srv.Requests()))
		}
	})

	t.Run("inconsistent", func(t *testing.T) {
		// The model gets every question wrong: the claimed right answers
		// are not its.
		srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(it *benchmark.Item, _ string) string {
			return string(benchmark.Letters[(it.Answer+1)%4])
		})
		code, out, stderr := runCLI(t, args(srv)...)
		rep := decode(t, out)
		if code != exitFail || rep["verdict"] != "inconsistent" {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		if !strings.Contains(rep["reason"].(string), "claimed right and reproduced wrong") {
			t.Errorf("reason: %s", rep["reason"])
		}
	})

	t.Run("budget refused before the first call", func(t *testing.T) {
		srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s })
		code, out, stderr := runCLI(t, args(srv, "--max-usd", "0.0001", "--price-input", "10", "--price-output", "30")...)
		rep := decode(t, out)
		if code != exitInconclusive || rep["verdict"] != "inconclusive" || rep["calls"].(float64) != 0 || len(srv.Requests()) != 0 {
			t.Fatalf("exit %d, %d requests\n%s%s", code, len(srv.Requests()), out, stderr)
		}
		if !strings.Contains(rep["reason"].(string), "budget") || !strings.Contains(stderr, "at most $") {
			t.Errorf("reason %q, stderr %s", rep["reason"], stderr)
		}
	})

	t.Run("a model the endpoint does not serve", func(t *testing.T) {
		srv := reproduceEndpoint(t, root, fakeopenai.Options{Fail: func(int, fakeopenai.Request) *fakeopenai.Failure {
			return &fakeopenai.Failure{Status: 404, Body: `{"error":{"message":"No endpoints found for qwen/qwen3-32b.","code":404}}`}
		}}, func(_ *benchmark.Item, s string) string { return s })
		code, out, stderr := runCLI(t, args(srv)...)
		rep := decode(t, out)
		if code != exitInconclusive || rep["verdict"] != "unreachable" || rep["spend_usd"].(float64) != 0 || len(srv.Requests()) != 1 {
			t.Fatalf("exit %d, %d requests\n%s%s", code, len(srv.Requests()), out, stderr)
		}
		if !strings.Contains(rep["reason"].(string), "--model-map") {
			t.Errorf("reason: %s", rep["reason"])
		}
	})

	t.Run("another model served", func(t *testing.T) {
		// The endpoint answers with the submitted letters, but says a
		// smaller model served them: no evidence about the model named.
		srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s }, "qwen/qwen3-8b")
		code, out, stderr := runCLI(t, args(srv)...)
		rep := decode(t, out)
		if code != exitInconclusive || rep["verdict"] != "inconclusive" {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		if !strings.Contains(rep["reason"].(string), "qwen/qwen3-8b") || !strings.Contains(out, `"served_model": "qwen/qwen3-8b"`) {
			t.Errorf("the report does not name the model served: %s", out)
		}
	})

	t.Run("a dated snapshot of the model is the model", func(t *testing.T) {
		srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s }, "qwen/qwen3-32b-20250429")
		if code, out, stderr := runCLI(t, args(srv)...); code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
	})

	t.Run("the model map", func(t *testing.T) {
		srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s })
		code, out, stderr := runCLI(t, args(srv, "--model-map", "qwen/qwen3-32b=qwen3:32b", "--max-calls", "3")...)
		rep := decode(t, out)
		if code != exitInconclusive || rep["asked_model"] != "qwen3:32b" || rep["model"] != "qwen/qwen3-32b" {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		for _, r := range srv.Requests() {
			if r.Model != "qwen3:32b" {
				t.Errorf("asked for %q", r.Model)
			}
		}
		if code, _, stderr := runCLI(t, args(srv, "--model-map", "qwen/qwen3-32b")...); code != exitUsage || !strings.Contains(stderr, "ID=SERVED") {
			t.Errorf("bad map: exit %d %s", code, stderr)
		}
	})

	t.Run("record", func(t *testing.T) {
		// --record writes the check where the board reads it; the record
		// marks this version of the submission, and no later one.
		srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s })
		code, out, stderr := runCLI(t, args(srv, "--record")...)
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		file := filepath.Join(root, "reproductions/model-benchmark/qwen3-32b-reservoir.json")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rec, fs := reproduce.ParseRecord(file, data)
		if len(fs) > 0 {
			t.Fatalf("%v\n%s", fs, data)
		}
		digest := decode(t, out)["digest"].(string)
		if rec.Status(digest) != "reproduced" || rec.Checked == 0 || rec.Endpoint == "" || rec.Submission != "submissions/model-benchmark/qwen3-32b-reservoir" {
			t.Errorf("record %+v for digest %s", rec, digest)
		}
		// A later change to the submission: the record no longer holds.
		scores := filepath.Join(sub, "scores.json")
		old, err := os.ReadFile(scores)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.WriteFile(scores, old, 0o644) })
		changed := strings.Replace(string(old), "NMO, DMO and statics are traveltime corrections.", "NMO, DMO and statics correct traveltimes.", 1)
		if changed == string(old) {
			t.Fatal("the response to change is not in scores.json")
		}
		if err := os.WriteFile(scores, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		_, out, _ = runCLI(t, args(srv, "--max-calls", "1")...)
		if now := decode(t, out)["digest"].(string); now == digest || rec.Status(now) != "" {
			t.Errorf("the changed submission's digest %s still marked by the record of %s", now, digest)
		}
	})

	t.Run("harness track", func(t *testing.T) {
		srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s })
		code, out, stderr := runCLI(t, "reproduce", root+"/submissions/harness-benchmark/geoagent-reservoir", "--root", root,
			"--base-url", srv.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "")
		if code != exitInconclusive || !strings.Contains(out, ": unreachable") || !strings.Contains(out, "harness track") || len(srv.Requests()) != 0 {
			t.Fatalf("exit %d, %d requests\n%s%s", code, len(srv.Requests()), out, stderr)
		}
	})
}

// TestReproduceSeed: without a secret the seed is drawn at random and
// printed, and --seed replays the same sample.
func TestReproduceSeed(t *testing.T) {
	root := copyBoard(t)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	t.Setenv("BENCHGATE_RERUN_SECRET", "")
	srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s })
	base := []string{"reproduce", root + "/submissions/model-benchmark/qwen3-32b-reservoir", "--root", root, "--base-url", srv.URL,
		"--api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "", "--format", "json", "--max-calls", "5"}
	ids := func(out string) (string, []string) {
		var rep struct {
			Seed      string `json:"seed"`
			Questions []struct {
				ID string `json:"id"`
			} `json:"questions"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var out2 []string
		for _, q := range rep.Questions {
			out2 = append(out2, q.ID)
		}
		return rep.Seed, out2
	}
	_, out, stderr := runCLI(t, base...)
	seed, first := ids(out)
	if !strings.Contains(stderr, "--seed "+seed) {
		t.Errorf("the random seed is not printed: %s", stderr)
	}
	_, out, _ = runCLI(t, append(base, "--seed", seed)...)
	if again, second := ids(out); again != seed || strings.Join(first, ",") != strings.Join(second, ",") {
		t.Errorf("--seed %s asked %v, then %v", seed, first, second)
	}
}

// TestReproduceRubric: a rubric submission's answers are written again by
// the model and graded by the benchmark's judge; a judge that gives full
// marks grades them above the claimed scores, so they are not inflated.
func TestReproduceRubric(t *testing.T) {
	root := copyBoard(t)
	srv := calibratedEndpoint(t, root)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	t.Setenv("BENCHGATE_RERUN_SECRET", "s3cret")
	code, out, stderr := runCLI(t, "reproduce", root+"/submissions/model-benchmark/qwen3-32b-basin", "--root", root, "--format", "json", "--ledger", "",
		"--base-url", srv.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY")
	var rep struct {
		Verdict   string `json:"verdict"`
		Checked   int    `json:"checked"`
		Questions []struct {
			Claimed    any `json:"claimed"`
			Reproduced any `json:"reproduced"`
		} `json:"questions"`
		Rubric *struct {
			Mean float64 `json:"mean_diff"`
		} `json:"rubric_test"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, stderr)
	}
	if code != exitOK || rep.Verdict != "consistent" || rep.Checked != 5 || rep.Rubric == nil || rep.Rubric.Mean >= 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, q := range rep.Questions {
		if q.Reproduced != float64(10) {
			t.Errorf("question reproduced %v, want the judge's 10", q.Reproduced)
		}
	}
	// A budget of one call writes one answer and cannot grade it: the
	// sample is cut short, inconclusive.
	code, out, stderr = runCLI(t, "reproduce", root+"/submissions/model-benchmark/qwen3-32b-basin", "--root", root, "--format", "json", "--ledger", "",
		"--base-url", srv.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--judge-base-url", srv.URL, "--judge-api-key-env", "BENCHGATE_TEST_KEY", "--max-calls", "1")
	if code != exitInconclusive || !strings.Contains(out, `"verdict": "inconclusive"`) || !strings.Contains(out, "budget") {
		t.Errorf("one call: exit %d\n%s%s", code, out, stderr)
	}
	// Without the judge's endpoint the check cannot grade what it gets.
	code, _, stderr = runCLI(t, "reproduce", root+"/submissions/model-benchmark/qwen3-32b-basin", "--root", root, "--ledger", "",
		"--base-url", srv.URL, "--api-key-env", "BENCHGATE_TEST_KEY", "--judge-api-key-env", "BENCHGATE_NO_SUCH_KEY")
	if code != exitSetup || !strings.Contains(stderr, "BENCHGATE_NO_SUCH_KEY") {
		t.Errorf("no judge key: exit %d %s", code, stderr)
	}
}

// TestReproduceRegistryModels: the benchmark's reproduce_models names the
// id the endpoint serves a model under; --model-map overrides it.
func TestReproduceRegistryModels(t *testing.T) {
	root := copyBoard(t)
	t.Setenv("BENCHGATE_TEST_KEY", testKey)
	t.Setenv("BENCHGATE_CACHE_DIR", t.TempDir())
	reg := filepath.Join(root, "rubrics/rubrics.json")
	data, err := os.ReadFile(reg)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"reference_model_id": "qwen/qwen3-32b"`, `"reference_model_id": "qwen/qwen3-32b", "reproduce_models": {"qwen/qwen3-32b": "qwen3-32b-served"}`, 1)
	if edited == string(data) {
		t.Fatal("the registry's mcq entry is not where the test expects it")
	}
	if err := os.WriteFile(reg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := reproduceEndpoint(t, root, fakeopenai.Options{}, func(_ *benchmark.Item, s string) string { return s })
	base := []string{"reproduce", root + "/submissions/model-benchmark/qwen3-32b-reservoir", "--root", root, "--base-url", srv.URL,
		"--api-key-env", "BENCHGATE_TEST_KEY", "--ledger", "", "--format", "json", "--max-calls", "2", "--seed", "0000000000000001"}
	for _, tc := range []struct {
		extra []string
		want  string
	}{{nil, "qwen3-32b-served"}, {[]string{"--model-map", "qwen/qwen3-32b=qwen3:32b"}, "qwen3:32b"}} {
		_, out, stderr := runCLI(t, append(base, tc.extra...)...)
		var rep struct {
			Asked string `json:"asked_model"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Asked != tc.want {
			t.Errorf("%v: asked %q, want %q (%v)\n%s", tc.extra, rep.Asked, tc.want, err, stderr)
		}
	}
	for _, r := range srv.Requests() {
		if r.Model != "qwen3-32b-served" && r.Model != "qwen3:32b" {
			t.Errorf("the endpoint was asked for %q", r.Model)
		}
	}
}
