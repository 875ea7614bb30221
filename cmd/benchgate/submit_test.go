package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSubmit(t *testing.T) {
	root := copyBoard(t)
	scores := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/scores.json")
	base := []string{"submit", "--root", root, "--rubric", "basin-analysis", "--scores", scores, "--model-name", "Qwen3 32B (rerun)", "--model-id", "qwen/qwen3-32b", "--submitter", "lab", "--contact", "https://example.org"}
	code, out, stderr := runCLI(t, append(base, "--slug", "qwen3-rerun", "--price-input", "0.1", "--open-weights", "true", "--date", "2026-11-01")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	for _, want := range []string{"PASS   submissions/model-benchmark/qwen3-rerun", "git checkout -b submit/qwen3-rerun", "git add submissions/model-benchmark/qwen3-rerun", `git commit -m "Add Qwen3 32B (rerun) on basin-analysis"`,
		"gh repo fork --remote --remote-name fork\n  git push -u fork submit/qwen3-rerun\n  gh pr create --head lab:submit/qwen3-rerun", "The pull request's author must be lab"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var meta map[string]any
	data, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-rerun/meta.json"))
	json.Unmarshal(data, &meta)
	if meta["judge_model"] != "openai/gpt-5.5" || meta["price_input_per_mtok"] != 0.1 || meta["open_weights"] != true || meta["date"] != "2026-11-01" || meta["price_output_per_mtok"] != nil {
		t.Errorf("meta.json: %s", data)
	}
	orig, _ := os.ReadFile(scores)
	copied, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-rerun/scores.json"))
	if string(orig) != string(copied) {
		t.Error("scores.json was not copied unchanged")
	}

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"existing folder", append(base, "--slug", "qwen3-rerun"), exitUsage, "already exists"},
		{"bad slug", append(base, "--slug", "Qwen 3"), exitUsage, `slug "Qwen 3" is not valid: use 1 to 64 characters`},
		{"missing flags", []string{"submit", "--root", root, "--slug", "x"}, exitUsage, "missing --benchmark, --scores, --model-name, --model, --submitter, --contact"},
		{"unknown benchmark", append(append([]string{}, base...), "--slug", "y", "--rubric", "nope"), exitUsage, `no benchmark "nope"`},
		{"bad track", append(base, "--slug", "z", "--track", "agents"), exitUsage, `--track: unknown track "agents": want model or harness`},
		{"a submitter that is no login", []string{"submit", "--root", root, "--rubric", "basin-analysis", "--scores", scores, "--model-name", "M", "--model-id", "m/m", "--submitter", "Geo Lab (Oslo)", "--contact", "https://example.org", "--slug", "w"}, exitUsage, `--submitter "Geo Lab (Oslo)"`},
		{"harness track needs the pinned model", append(base, "--slug", "w", "--track", "harness", "--harness-name", "h", "--harness-repo", "https://example.org/h"), exitFail, "pins no reference model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out+stderr, tt.want) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s%s", code, tt.code, tt.want, out, stderr)
			}
		})
	}
}

// TestSubmitFolder: a submit that fails takes back the folder it wrote,
// so that the same command can be run again; --force replaces a folder,
// and puts it back when the new one does not pass.
func TestSubmitFolder(t *testing.T) {
	root := copyBoard(t)
	good := filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/scores.json")
	bad := filepath.Join(t.TempDir(), "scores.json")
	if err := os.WriteFile(bad, []byte("[\n{\"id\": 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "submissions/model-benchmark/again")
	submit := func(name, scores string, extra ...string) []string {
		return append([]string{"submit", "--root", root, "--benchmark", "basin-analysis", "--slug", "again", "--scores", scores, "--model-name", name, "--model", "qwen/qwen3-32b", "--submitter", "lab", "--contact", "https://example.org"}, extra...)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		want     string
		wantName string // meta.json's model_name afterwards; "" for no folder
	}{
		{"a failing submit leaves nothing", submit("First", bad), exitFail, "so " + dir + " was removed. Fix what is listed above (in " + bad + ", or the flags), then run the same benchgate submit again.", ""},
		{"so it can be run again", submit("First", bad), exitFail, "invalid JSON", ""},
		{"then pass", submit("First", good), exitOK, "PASS   submissions/model-benchmark/again", "First"},
		{"an existing folder is kept", submit("Second", good), exitUsage, dir + " already exists; choose another --slug, or pass --force to replace it", "First"},
		{"--force that fails puts the folder back", submit("Second", bad, "--force"), exitFail, "and the folder it replaced put back", "First"},
		{"--force replaces it", submit("Second", good, "--force"), exitOK, "replaced the former submissions/model-benchmark/again", "Second"},
		{"--force without a folder writes one", append(submit("Third", good, "--force"), "--slug", "fresh"), exitOK, "PASS   submissions/model-benchmark/fresh", "Second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(out+stderr, tt.want) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%s%s", code, tt.code, tt.want, out, stderr)
			}
			var meta struct {
				ModelName string `json:"model_name"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
			if err == nil {
				err = json.Unmarshal(data, &meta)
			}
			if tt.wantName == "" && !os.IsNotExist(err) || tt.wantName != "" && meta.ModelName != tt.wantName {
				t.Errorf("the folder afterwards: model_name %q (%v), want %q", meta.ModelName, err, tt.wantName)
			}
			if left, _ := filepath.Glob(filepath.Join(root, ".benchgate-replaced-*")); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestTemplateCopy: a copy of the template fails with every placeholder
// named at once, not one per run.
func TestTemplateCopy(t *testing.T) {
	root := copyBoard(t)
	dst := filepath.Join(root, "submissions/model-benchmark/my-run")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(root, "submissions/_template"))); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "verify", "--root", root, dst)
	for _, field := range []string{"_comment", "model_name", "candidate_model_id", "submitter", "contact_or_repo", "rubric_key", "date", "judge_model", "harness_name", "harness_repo", "notes"} {
		if !regexp.MustCompile(`my-run/meta.json:\d+: ` + field + ` .*\(meta\.placeholder\)`).MatchString(out) {
			t.Errorf("%s is not reported as a placeholder", field)
		}
	}
	if code != exitFail || strings.Count(out, "(meta.placeholder)") != 11 {
		t.Errorf("exit %d, %d placeholders:\n%s%s", code, strings.Count(out, "(meta.placeholder)"), out, stderr)
	}
}

// TestSubmitHelpSubmitter: `submit -h` says what submitter must be.
func TestSubmitHelpSubmitter(t *testing.T) {
	code, out, stderr := runCLI(t, "submit", "-h")
	help := out + stderr
	if code != exitOK || !strings.Contains(help, "--submitter LOGIN") || !strings.Contains(help, "the GitHub login of the pull request's author (whoever will open the pull request)") {
		t.Errorf("exit %d, help:\n%s", code, help)
	}
}
