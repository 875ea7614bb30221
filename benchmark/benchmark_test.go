package benchmark

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// validRubric returns a small schema 2.0 rubric that lints clean.
func validRubric() map[string]any {
	q := func(id string) map[string]any {
		return map[string]any{
			"id": id, "question": "Why " + id + "?",
			"gate": map[string]any{"component_id": "C1", "points": 4, "pass_condition": "names the control", "fail_examples": []any{"x"}},
			"components": []any{
				map[string]any{"id": "C1", "points": 4, "is_gate": true, "credit_if": "names it"},
				map[string]any{"id": "C2", "points": 6, "is_gate": false, "credit_if": "explains it"},
			},
			"accepted_variants": []any{"plain string", map[string]any{"canonical": "TOC", "accepted_variants": "total organic carbon, organic richness"}},
			"calibration": []any{
				map[string]any{"fixture_id": id + "-F1", "response_text": "no", "expected_gate_passed": false,
					"expected_component_awards": []any{map[string]any{"id": "C1", "awarded": 0}, map[string]any{"id": "C2", "awarded": 0}}, "expected_total": 0},
				map[string]any{"fixture_id": id + "-F2", "response_text": "yes", "expected_gate_passed": true,
					"expected_component_awards": []any{map[string]any{"id": "C1", "awarded": 4}, map[string]any{"id": "C2", "awarded": 3}}, "expected_total": 7},
			},
		}
	}
	return map[string]any{
		"schema_version":  "2.0",
		"benchmark":       map[string]any{"name": "t", "question_count": 2},
		"scoring_model":   map[string]any{"total_points": 10, "gate_failure_score": 0},
		"global_variants": []any{map[string]any{"canonical": "Ro", "accepted_variants": []any{"vitrinite reflectance"}}, "Ma = million years"},
		"questions":       []any{q("Q1"), q("Q2")},
	}
}

func question(r map[string]any, i int) map[string]any {
	return r["questions"].([]any)[i].(map[string]any)
}
func component(r map[string]any, i, j int) map[string]any {
	return question(r, i)["components"].([]any)[j].(map[string]any)
}
func fixture(r map[string]any, i, j int) map[string]any {
	return question(r, i)["calibration"].([]any)[j].(map[string]any)
}

func lintRubric(t *testing.T, r map[string]any) []string {
	t.Helper()
	data, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"r.json": {Data: data}}
	b, fs := Lint(fsys, Entry{Key: "k", File: "r.json", Kind: KindRubric, JudgeModel: "j"})
	var got []string
	for _, f := range fs {
		if f.File != "r.json" {
			t.Errorf("finding names file %q", f.File)
		}
		if f.Line == 0 && f.Code != "rubric.no-questions" {
			t.Errorf("finding without a line: %v", f)
		}
		got = append(got, fmt.Sprintf("%s %s %s: %s", f.Severity, f.Code, f.Question, f.Message))
	}
	if b != nil && b.Rubric != nil && !fs.HasErrors() && len(b.Rubric.Questions) == 0 {
		t.Errorf("no questions and no error")
	}
	return got
}

func TestRubricLint(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(r map[string]any)
		want   []string // substrings, one per finding, in order
	}{
		{"valid", func(map[string]any) {}, nil},
		{"wrong schema version", func(r map[string]any) { r["schema_version"] = "1.0" }, []string{`error schema : /schema_version: must be "2.0", found "1.0"`}},
		{"no questions", func(r map[string]any) { r["questions"] = []any{}; r["benchmark"] = map[string]any{} }, []string{"error rubric.no-questions"}},
		{"duplicate id", func(r map[string]any) { question(r, 1)["id"] = "Q1"; fixture(r, 1, 0)["fixture_id"] = "x" }, []string{"error rubric.duplicate-id Q1: id \"Q1\" is already used by the question on line"}},
		{"ids colliding on digits", func(r map[string]any) { question(r, 1)["id"] = "q-01" }, []string{"warning rubric.similar-id q-01: id \"q-01\" has the same digits as \"Q1\""}},
		{"no gate", func(r map[string]any) { component(r, 0, 0)["is_gate"] = false }, []string{"error rubric.no-gate Q1"}},
		{"two gates", func(r map[string]any) { component(r, 0, 1)["is_gate"] = true }, []string{"error rubric.many-gates Q1: 2 components have is_gate: true (C1, C2)"}},
		{"gate id mismatch", func(r map[string]any) {
			component(r, 0, 0)["is_gate"] = false
			component(r, 0, 1)["is_gate"] = true
		}, []string{"error rubric.gate-mismatch Q1: gate.component_id is \"C1\" but the component marked is_gate is \"C2\""}},
		{"gate names no component", func(r map[string]any) { question(r, 0)["gate"].(map[string]any)["component_id"] = "C9" }, []string{"rubric.gate-mismatch", "error rubric.gate-component Q1: gate.component_id \"C9\" names no component"}},
		{"gate points differ", func(r map[string]any) { question(r, 0)["gate"].(map[string]any)["points"] = 3 }, []string{"error rubric.gate-points Q1: gate.points is 3 but component C1 is worth 4"}},
		{"points do not sum", func(r map[string]any) { component(r, 1, 1)["points"] = 5 }, []string{"error rubric.points-sum Q2: component points add up to 9, but scoring_model.total_points is 10"}},
		{"empty pass condition", func(r map[string]any) { question(r, 0)["gate"].(map[string]any)["pass_condition"] = "  " }, []string{"error rubric.empty-pass-condition Q1"}},
		{"empty credit_if", func(r map[string]any) { component(r, 1, 1)["credit_if"] = "" }, []string{"error rubric.empty-credit-if Q2: component C2 has an empty credit_if"}},
		{"fixture award above points", func(r map[string]any) {
			fixture(r, 0, 1)["expected_component_awards"].([]any)[1].(map[string]any)["awarded"] = 7
			fixture(r, 0, 1)["expected_total"] = 11
		}, []string{"error rubric.fixture Q1: calibration fixture Q1-F2: component C2: awarded 7 is outside 0..6"}},
		{"fixture total wrong", func(r map[string]any) { fixture(r, 0, 1)["expected_total"] = 8 }, []string{"error rubric.fixture Q1: calibration fixture Q1-F2: awards add up to 7 but expected_total is 8"}},
		{"fixture failed gate with points", func(r map[string]any) {
			fixture(r, 1, 0)["expected_component_awards"].([]any)[1].(map[string]any)["awarded"] = 2
			fixture(r, 1, 0)["expected_total"] = 2
		}, []string{"error rubric.fixture Q2: calibration fixture Q2-F1: the gate fails, so every award and the total must be 0"}},
		{"fixture misses a component", func(r map[string]any) {
			f := fixture(r, 0, 1)
			f["expected_component_awards"] = f["expected_component_awards"].([]any)[:1]
			f["expected_total"] = 4
		}, []string{"error rubric.fixture Q1: calibration fixture Q1-F2: gives no award for component C2"}},
		{"fixture unknown component", func(r map[string]any) {
			f := fixture(r, 0, 0)
			f["expected_component_awards"] = append(f["expected_component_awards"].([]any), map[string]any{"id": "C7", "awarded": 0})
		}, []string{"error rubric.fixture Q1: calibration fixture Q1-F1: awards points to \"C7\""}},
		{"fractional fixture award", func(r map[string]any) {
			fixture(r, 0, 1)["expected_component_awards"].([]any)[1].(map[string]any)["awarded"] = 2.5
		}, []string{"error rubric.fixture Q1: calibration fixture Q1-F2: component C2: awarded 2.5 is not an integer"}},
		{"no calibration", func(r map[string]any) { delete(question(r, 1), "calibration") }, []string{"warning rubric.no-calibration Q2"}},
		{"two fixtures under one id", func(r map[string]any) { fixture(r, 0, 1)["fixture_id"] = "Q1-F1" }, []string{"warning rubric.duplicate-fixture Q1: calibration fixture id \"Q1-F1\" is already used by the fixture on line"}},
		{"one fixture id in two questions", func(r map[string]any) { fixture(r, 1, 0)["fixture_id"] = "Q1-F1" }, nil},
		{"question count", func(r map[string]any) { r["benchmark"].(map[string]any)["question_count"] = 3 }, []string{"warning rubric.question-count : benchmark.question_count is 3 but the rubric has 2 questions"}},
		{"variant of wrong shape", func(r map[string]any) { question(r, 0)["accepted_variants"] = []any{42} }, []string{"error schema Q1: /questions/0/accepted_variants/0: the number 42 has none of the accepted shapes"}},
		{"missing components", func(r map[string]any) { delete(question(r, 0), "components") }, []string{`error schema Q1: /questions/0: missing required field "components"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRubric()
			tt.mutate(r)
			got := lintRubric(t, r)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("finding %d = %q, want it to contain %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestRubricVariants(t *testing.T) {
	data, _ := json.Marshal(validRubric())
	b, fs := Load(fstest.MapFS{"r.json": {Data: data}}, Entry{Key: "k", File: "r.json", Kind: KindRubric, JudgeModel: "j"})
	if b == nil {
		t.Fatal(fs)
	}
	got := fmt.Sprintf("%+v | %+v", b.Rubric.GlobalVariants, b.Rubric.Questions[0].AcceptedVariants)
	want := "[{Canonical:Ro Variants:[vitrinite reflectance] Note:} {Canonical:Ma = million years Variants:[] Note:}] | [{Canonical:plain string Variants:[] Note:} {Canonical:TOC Variants:[total organic carbon organic richness] Note:}]"
	if got != want {
		t.Errorf("variants:\n got %s\nwant %s", got, want)
	}
}

func TestRegistry(t *testing.T) {
	tests := []struct {
		name, registry string
		want           []string
		check          func(t *testing.T, r *Registry)
	}{
		{"groundtruth entry loads as rubric", `[{"key": "yudnamutana", "label": "Yudnamutana", "file": "rubrics/y.json", "project_dir": "projects/y"}]`,
			[]string{"error registry.no-judge: benchmark \"yudnamutana\": judge_model is missing"},
			func(t *testing.T, r *Registry) {
				e, ok := r.Lookup("yudnamutana")
				if !ok || e.Kind != KindRubric || e.ProjectDir != "projects/y" || e.Problem == "" {
					t.Errorf("entry = %+v", e)
				}
			}},
		{"defaults", `[{"key": "a", "file": "a.json", "judge_model": "openai/gpt-5.5"}, {"key": "b", "file": "b.jsonl", "kind": "mcq"}]`, nil,
			func(t *testing.T, r *Registry) {
				a, _ := r.Lookup("a")
				b, _ := r.Lookup("b")
				if a.Kind != KindRubric || a.Label != "a" || b.Extraction != "flexible" || fmt.Sprint(r.Keys()) != "[a b]" {
					t.Errorf("a = %+v, b = %+v", a, b)
				}
			}},
		{"duplicate key", `[{"key": "a", "file": "a.json", "judge_model": "j"},
{"key": "a", "file": "b.json", "judge_model": "j"}]`, []string{"error registry.duplicate-key: key \"a\" is already used by the entry on line 1"}, nil},
		{"unclean path", `[{"key": "a", "file": "../a.json", "judge_model": "j"}]`, []string{"error registry.file: benchmark \"a\": file \"../a.json\" is not a clean path"}, nil},
		{"unknown extraction", `[{"key": "a", "file": "a.json", "kind": "mcq", "extraction": "regex"}]`, []string{`error schema: /0/extraction: "regex" is not one of the allowed values: "flexible", "answer-line", "formationeval-v0.1"`}, nil},
		{"unknown field", `[{"key": "a", "file": "a.json", "judges": "j"}]`, []string{`error schema: /0: unknown field "judges"`}, nil},
		{"judge contract", `[{"key": "a", "file": "a.json", "judge_model": "openai/gpt-5.5", "judge": {"temperature": 0, "top_p": 1, "max_tokens": 4096, "reasoning_effort": "medium", "service_tier": "flex", "seed": 0, "provider": "openai"}},
			{"key": "b", "file": "b.json", "judge_model": "j"}]`, nil,
			func(t *testing.T, r *Registry) {
				a, _ := r.Lookup("a")
				p := a.Judge
				if p.Temperature == nil || *p.Temperature != 0 || p.TopP == nil || *p.TopP != 1 || p.MaxTokens != 4096 ||
					p.ReasoningEffort != "medium" || p.ServiceTier != "flex" || p.Seed == nil || *p.Seed != 0 || p.Provider != "openai" {
					t.Errorf("judge contract %+v", p)
				}
				// Without a contract, the judge's sampling is pinned.
				b, _ := r.Lookup("b")
				if q := b.Judge; q.Temperature == nil || *q.Temperature != 0 || q.TopP == nil || *q.TopP != 1 || ContractText(q) != `{"temperature":0,"top_p":1}` {
					t.Errorf("an entry without a contract has %s", ContractText(q))
				}
			}},
		{"judge contract: unknown parameter", `[{"key": "a", "file": "a.json", "judge_model": "j", "judge": {"temprature": 0}}]`, []string{`error schema: /0/judge: unknown field "temprature"`}, nil},
		{"judge contract: temperature out of range", `[{"key": "a", "file": "a.json", "judge_model": "j", "judge": {"temperature": 3}}]`, []string{"error schema: /0/judge/temperature"}, nil},
		{"judge contract: top_p 0", `[{"key": "a", "file": "a.json", "judge_model": "j", "judge": {"top_p": 0}}]`, []string{"error schema: /0/judge/top_p"}, nil},
		{"judge contract: fractional max_tokens", `[{"key": "a", "file": "a.json", "judge_model": "j", "judge": {"max_tokens": 10.5}}]`, []string{"error schema: /0/judge/max_tokens"}, nil},
		{"judge contract: unknown effort", `[{"key": "a", "file": "a.json", "judge_model": "j", "judge": {"reasoning_effort": "max"}}]`, []string{"error schema: /0/judge/reasoning_effort"}, nil},
		{"judge contract: unknown tier", `[{"key": "a", "file": "a.json", "judge_model": "j", "judge": {"service_tier": "cheap"}}]`, []string{"error schema: /0/judge/service_tier"}, nil},
		{"judge contract: seed as a string", `[{"key": "a", "file": "a.json", "judge_model": "j", "judge": {"seed": "0"}}]`, []string{"error schema: /0/judge/seed"}, nil},
		{"judge contract on mcq", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "judge": {"temperature": 0}}]`, []string{"warning registry.judge-params: benchmark \"a\": judge applies to rubric benchmarks only"}, nil},
		{"judge on mcq", `[{"key": "a", "file": "a.json", "kind": "mcq", "judge_model": "j"}]`, []string{"warning registry.judge"}, nil},
		{"answer cap", `[{"key": "a", "file": "a.json", "judge_model": "j", "max_answer_bytes": 1000}, {"key": "b", "file": "b.json", "judge_model": "j"}]`, nil,
			func(t *testing.T, r *Registry) {
				a, _ := r.Lookup("a")
				b, _ := r.Lookup("b")
				if a.AnswerCap() != 1000 || b.AnswerCap() != DefaultMaxAnswerBytes || DefaultMaxAnswerBytes != 65536 {
					t.Errorf("caps %d and %d", a.AnswerCap(), b.AnswerCap())
				}
			}},
		{"answer cap not positive", `[{"key": "a", "file": "a.json", "judge_model": "j", "max_answer_bytes": 0}]`, []string{"error schema: /0/max_answer_bytes: must be at least 1, found 0"}, nil},
		{"answer cap not an integer", `[{"key": "a", "file": "a.json", "judge_model": "j", "max_answer_bytes": 1.5}]`, []string{"error schema: /0/max_answer_bytes"}, nil},
		{"answer cap on mcq", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "max_answer_bytes": 10}]`, []string{"warning registry.max-answer-bytes: benchmark \"a\": max_answer_bytes applies to rubric benchmarks only"}, nil},
		{"attribution", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "description": "Forty questions.", "license": "CC-BY-4.0", "url": "https://example.org/a"},
			{"key": "b", "file": "b.jsonl", "kind": "mcq", "license": "(MIT OR Apache-2.0) AND LicenseRef-extra", "url": "HTTP://example.org"}]`, nil,
			func(t *testing.T, r *Registry) {
				a, _ := r.Lookup("a")
				b, _ := r.Lookup("b")
				if a.Description != "Forty questions." || a.License != "CC-BY-4.0" || a.URL != "https://example.org/a" || b.License != "(MIT OR Apache-2.0) AND LicenseRef-extra" || b.URL != "HTTP://example.org" {
					t.Errorf("a = %+v, b = %+v", a, b)
				}
			}},
		{"license not SPDX", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "license": "Creative Commons BY"}]`, []string{`error registry.license: benchmark "a": license "Creative Commons BY" is not an SPDX licence identifier or expression; write it like "CC-BY-4.0"`},
			func(t *testing.T, r *Registry) {
				if a, _ := r.Lookup("a"); a.License != "" {
					t.Errorf("an invalid licence is kept: %q", a.License)
				}
			}},
		{"license lower-case operator", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "license": "MIT or GPL-2.0"}]`, []string{`error registry.license`}, nil},
		{"license empty", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "license": ""}]`, []string{`error schema: /0/license`}, nil},
		{"url not http", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "url": "javascript:alert(1)"}]`, []string{`error registry.url: benchmark "a": url "javascript:alert(1)" is not an http or https address`},
			func(t *testing.T, r *Registry) {
				if a, _ := r.Lookup("a"); a.URL != "" {
					t.Errorf("an invalid url is kept: %q", a.URL)
				}
			}},
		{"url without host", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "url": "https://"}]`, []string{`error registry.url`}, nil},
		{"url with a space", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "url": "https://example.org/a b"}]`, []string{`error registry.url`}, nil},
		{"spot-check tolerance", `[{"key": "a", "file": "a.json", "judge_model": "j", "spot_check_tolerance": 0.5}, {"key": "b", "file": "b.json", "judge_model": "j"}]`, nil,
			func(t *testing.T, r *Registry) {
				a, _ := r.Lookup("a")
				b, _ := r.Lookup("b")
				if a.SpotCheckTolerance == nil || *a.SpotCheckTolerance != 0.5 || b.SpotCheckTolerance != nil {
					t.Errorf("tolerances %v and %v", a.SpotCheckTolerance, b.SpotCheckTolerance)
				}
			}},
		{"spot-check tolerance negative", `[{"key": "a", "file": "a.json", "judge_model": "j", "spot_check_tolerance": -0.1}]`, []string{"error schema: /0/spot_check_tolerance"}, nil},
		{"spot-check tolerance of a point", `[{"key": "a", "file": "a.json", "judge_model": "j", "spot_check_tolerance": 1}]`, []string{"error schema: /0/spot_check_tolerance"}, nil},
		{"spot-check tolerance on mcq", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "spot_check_tolerance": 0.1}]`, []string{"warning registry.spot-check-tolerance: benchmark \"a\": spot_check_tolerance applies to rubric benchmarks only"}, nil},
		{"reproduction's tolerance and models", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "reproduce_tolerance": 0.03, "reproduce_models": {"Qwen/Qwen3-32B": "qwen/qwen3-32b"}}, {"key": "b", "file": "b.jsonl", "kind": "mcq"}]`, nil,
			func(t *testing.T, r *Registry) {
				a, _ := r.Lookup("a")
				b, _ := r.Lookup("b")
				if a.ReproduceTolerance == nil || *a.ReproduceTolerance != 0.03 || a.ReproduceModels["Qwen/Qwen3-32B"] != "qwen/qwen3-32b" || b.ReproduceTolerance != nil || b.ReproduceModels != nil {
					t.Errorf("a %v %v, b %v %v", a.ReproduceTolerance, a.ReproduceModels, b.ReproduceTolerance, b.ReproduceModels)
				}
			}},
		{"reproduction's tolerance of half the accuracy", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "reproduce_tolerance": 0.5}]`, []string{"error schema: /0/reproduce_tolerance"}, nil},
		{"reproduction's model served as nothing", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "reproduce_models": {"m": ""}}]`, []string{"error schema: /0/reproduce_models/m"}, nil},
		{"unverifiable review rate on an mcq", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "unverifiable_review_rate": 0.2}]`, nil,
			func(t *testing.T, r *Registry) {
				if a := r.Entries[0]; a.UnverifiableReviewRate == nil || *a.UnverifiableReviewRate != 0.2 {
					t.Errorf("unverifiable_review_rate read as %v", a.UnverifiableReviewRate)
				}
			}},
		{"unverifiable review rate above 1", `[{"key": "a", "file": "a.jsonl", "kind": "mcq", "unverifiable_review_rate": 1.5}]`, []string{"error schema: /0/unverifiable_review_rate"}, nil},
		{"unverifiable review rate on a rubric", `[{"key": "a", "file": "a.json", "judge_model": "j", "unverifiable_review_rate": 0.2}]`, []string{"warning registry.unverifiable-review-rate: benchmark \"a\": unverifiable_review_rate applies to mcq benchmarks only"}, nil},
		{"reproduction's tolerance on a rubric", `[{"key": "a", "file": "a.json", "judge_model": "j", "reproduce_tolerance": 0.02}]`, []string{"warning registry.reproduce-tolerance: benchmark \"a\": reproduce_tolerance is a share of accuracy, for mcq benchmarks only"}, nil},
		{"not json", `[{"key": "a",}]`, []string{"error json.syntax: invalid JSON at column 13: trailing comma before '}'"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, fs := LoadRegistry(fstest.MapFS{RegistryFile: {Data: []byte(tt.registry)}})
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s %s: %s", f.Severity, f.Code, f.Message))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d findings", got, len(tt.want))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("finding %d = %q, want it to contain %q", i, got[i], tt.want[i])
				}
			}
			if tt.check != nil {
				if r == nil {
					t.Fatal("registry not loaded")
				}
				tt.check(t, r)
			}
		})
	}
}

func TestMCQLint(t *testing.T) {
	item := func(id string, key int, extra string) string {
		return fmt.Sprintf(`{"id": %q, "question": "Which?", "choices": ["a1", "bb2", "c3", "d4"], "answer_index": %d, "answer_key": %q%s}`, id, key, string(Letters[key]), extra)
	}
	tests := []struct {
		name, file, data string
		want             []string
	}{
		{"jsonl valid", "b.jsonl", item("q1", 0, `, "source_book": {"source_id": "s1"}`) + "\n\n" + item("q2", 1, "") + "\n", nil},
		{"json array valid", "b.json", "[" + item("q1", 0, `, "sources": [{"source_id": "s1"}]`) + "]", nil},
		{"jsonl bad line", "b.jsonl", item("q1", 0, "") + "\n" + `{"id": "q2", ` + "\n", []string{"b.jsonl:2: invalid JSON at column 13: unexpected end of file"}},
		{"jsonl duplicate id", "b.jsonl", item("q1", 0, "") + "\n" + item("q1", 1, "") + "\n", []string{"b.jsonl:2: question q1: id \"q1\" is already used by the question on line 1"}},
		{"key mismatch", "b.jsonl", `{"id": "q1", "question": "Which?", "choices": ["a", "b", "c", "d"], "answer_index": 2, "answer_key": "B"}`, []string{"b.jsonl:1: question q1: answer_key is B but answer_index 2 is choice C"}},
		{"three choices", "b.jsonl", "\n" + `{"id": "q1", "question": "Which?", "choices": ["a", "b", "c"], "answer_index": 2}`, []string{"b.jsonl:2: question q1: /choices: has 3 items; at least 4 are required"}},
		{"index out of range", "b.json", `[{"id": "q1", "question": "Which?", "choices": ["a", "b", "c", "d"], "answer_index": 4}]`, []string{"b.json:1: question q1: /0/answer_index: must be at most 3, found 4"}},
		{"duplicate choice", "b.jsonl", `{"id": "q1", "question": "Which?", "choices": ["Shale", "shale", " Shale ", "d"], "answer_index": 3}`, []string{"question q1: choices A and C are the same text"}},
		{"empty choice", "b.jsonl", `{"id": "q1", "question": " ", "choices": ["a", "", "c", "d"], "answer_index": 3}`, []string{"question q1: the question text is empty", "question q1: choice B is empty"}},
		{"empty file", "b.jsonl", "\n\n", []string{"the file holds no questions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, fs := Lint(fstest.MapFS{tt.file: {Data: []byte(tt.data)}}, Entry{Key: "k", File: tt.file, Kind: KindMCQ, Extraction: "flexible"})
			var got []string
			for _, f := range fs {
				got = append(got, f.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d findings", got, len(tt.want))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("finding %d = %q, want it to contain %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
