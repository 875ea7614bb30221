package bot

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/golden"
)

// The generated tables sit between these lines in docs/github-app.md.
const (
	settingsBegin = "<!-- the settings: generated from bot/settings.go by go test ./bot -run TestSettingsDocs -update -->\n"
	limitsBegin   = "<!-- the abuse limits: generated from bot/settings.go by go test ./bot -run TestSettingsDocs -update -->\n"
	tableEnd      = "<!-- end of the generated table -->\n"
)

// TestSettingsDocs: the tables of docs/github-app.md are the table
// settings, rendered; -update rewrites them.
func TestSettingsDocs(t *testing.T) {
	file := filepath.Join("..", "docs", "github-app.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	want := doc
	for _, part := range []struct {
		begin string
		limit bool
	}{{settingsBegin, false}, {limitsBegin, true}} {
		i := strings.Index(want, part.begin)
		if i < 0 {
			t.Fatalf("%s lacks the line %q", file, part.begin)
		}
		i += len(part.begin)
		j := strings.Index(want[i:], tableEnd)
		if j < 0 {
			t.Fatalf("%s: no %q after %q", file, tableEnd, part.begin)
		}
		want = want[:i] + settingsTable(part.limit) + want[i+j:]
	}
	if want == doc {
		return
	}
	if golden.Updating() { // rewrite the settings tables of docs/github-app.md
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's settings tables differ from bot/settings.go: run go test ./bot -run TestSettingsDocs -update", file)
}

// TestSettingsTable: every setting is whole and has a name of its own;
// each default is one its own parser takes.
func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range settings {
		if !strings.HasPrefix(s.Env, "BENCHGATE_") || strings.ToUpper(s.Env) != s.Env || seen[s.Env] {
			t.Errorf("%q: a setting is named BENCHGATE_ and upper case, once", s.Env)
		}
		seen[s.Env] = true
		if s.Doc == "" || s.parse == nil {
			t.Errorf("%s has no description or no parser", s.Env)
		}
		if s.Default != "" && s.DefaultDoc != "" {
			t.Errorf("%s has a default and a description of one", s.Env)
		}
		if s.Default != "" {
			c := Config{}
			if err := s.parse(&c, s.Default, nil); err != nil {
				t.Errorf("%s: its default %q is refused: %v", s.Env, s.Default, err)
			}
		}
	}
}

// TestConfigFileTakesEveryKey: the file takes the key of every setting,
// and gives its value to LoadConfig as the variable would; the Azure
// judge's keys among them.
func TestConfigFileTakesEveryKey(t *testing.T) {
	for _, s := range settings {
		getenv, err := WithFile(func(string) string { return "" }, []byte(s.Key()+": some-value\n"), "benchgate.yaml")
		if err != nil {
			t.Errorf("%s: %v", s.Key(), err)
			continue
		}
		if got := getenv(s.Env); got != "some-value" {
			t.Errorf("%s in the file gives %s %q", s.Key(), s.Env, got)
		}
	}
	key := pemKey(t)
	file := "app_id: 7\nprivate_key_file: /k.pem\nwebhook_secret: 7f3a91c4e2b85d06\n" +
		"judge_base_url: https://example-resource.openai.azure.com/\nrerun_secret: 5d0b6c1e9a7f4238e1c0\n" +
		"judge_azure_api_version: 2025-04-01-preview\njudge_deployments: openai/gpt-5.5=gpt55-judge\njudge_token_param: max_completion_tokens\n"
	getenv, err := WithFile(func(string) string { return "" }, []byte(file), "benchgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(getenv, func(string) ([]byte, error) { return key, nil })
	if err != nil {
		t.Fatal(err)
	}
	if c.JudgeAzureAPIVersion != "2025-04-01-preview" || c.JudgeDeployments["openai/gpt-5.5"] != "gpt55-judge" || c.JudgeTokenParam != "max_completion_tokens" {
		t.Errorf("the Azure judge from the file: version %q, deployments %v, token field %q", c.JudgeAzureAPIVersion, c.JudgeDeployments, c.JudgeTokenParam)
	}
}

// TestConfigStringShowsEverySetting: Config.String names every setting
// that has a value, by its key, and no secret: each secret is set to a
// value of its own and none of them shows.
func TestConfigStringShowsEverySetting(t *testing.T) {
	key := pemKey(t)
	env := map[string]string{
		"BENCHGATE_APP_ID": "12345", "BENCHGATE_PRIVATE_KEY": string(key), "BENCHGATE_WEBHOOK_SECRET": "a7Qe0pX2vR9sLm4t, b8Wf1oY3uN6kJc5h",
		"BENCHGATE_DATABASE_URL": "postgres://board:Zp8dbpassQ@db.internal/board", "BENCHGATE_GIT_URL": "https://git.example.org/",
		"BENCHGATE_JUDGE_BASE_URL": "https://judge.example.org/v1", "BENCHGATE_JUDGE_API_KEY": "sk-judge-Hk3vT9", "BENCHGATE_JUDGE_AZURE_API_VERSION": "2025-04-01-preview",
		"BENCHGATE_JUDGE_DEPLOYMENTS": "openai/gpt-5.5=gpt55-judge", "BENCHGATE_JUDGE_TOKEN_PARAM": "max_tokens",
		"BENCHGATE_JUDGE_PRICE_INPUT": "2.5", "BENCHGATE_JUDGE_PRICE_OUTPUT": "10", "BENCHGATE_JUDGE_PRICE_CACHED_INPUT": "0.25",
		"BENCHGATE_CANDIDATE_API_KEY": "sk-or-Wq7mZ2", "BENCHGATE_CANDIDATE_MODELS": "Qwen/Qwen3-32B=qwen/qwen3-32b",
		"BENCHGATE_CANDIDATE_PRICE_INPUT": "0.2", "BENCHGATE_CANDIDATE_PRICE_OUTPUT": "0.6", "BENCHGATE_CANDIDATE_PRICE_CACHED_INPUT": "0.1",
		"BENCHGATE_RERUN_SECRET": "R3run-Zx81Vq4LpT0w", "BENCHGATE_LEADERBOARD_BRANCH": "gh-pages", "BENCHGATE_CACHE_DIR": "/var/cache/benchgate",
		"BENCHGATE_COMMIT_NAME": "Board Bot", "BENCHGATE_COMMIT_EMAIL": "board@example.org",
	}
	c, err := LoadConfig(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.String()
	for _, secret := range []string{"BEGIN RSA", "a7Qe0pX2vR9sLm4t", "b8Wf1oY3uN6kJc5h", "Zp8dbpassQ", "sk-judge-Hk3vT9", "sk-or-Wq7mZ2", "R3run-Zx81Vq4LpT0w"} {
		if strings.Contains(s, secret) {
			t.Errorf("String() shows %q: %s", secret, s)
		}
	}
	for _, st := range settings {
		if st.show == nil {
			continue
		}
		if !strings.Contains(s, " "+st.Key()+"=") && !strings.HasPrefix(s, st.Key()+"=") {
			t.Errorf("String() lacks %s: %s", st.Key(), s)
		}
	}
	for _, want := range []string{"private_key=set", `webhook_secret="2 set"`, "judge_api_key=set", "rerun_secret=set", "database_url=postgres://board:xxxxx@db.internal/board", "judge_deployments=openai/gpt-5.5=gpt55-judge", `commit_name="Board Bot"`} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %s: %s", want, s)
		}
	}
}

// TestLeaderboardDirRefused: a leaderboard folder the App may not replace
// stops the start, saying what to name instead; a folder of its own is
// taken, cleaned.
func TestLeaderboardDirRefused(t *testing.T) {
	base := map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY": string(pemKey(t)), "BENCHGATE_WEBHOOK_SECRET": testSecret}
	for _, tt := range []struct {
		dir, want string // want: the folder taken, or a fragment of the refusal
		ok        bool
	}{
		{"", "leaderboard", true},
		{"leaderboard/", "leaderboard", true},
		{"docs/leaderboard", "docs/leaderboard", true},
		{" site/board ", "site/board", true},
		{".gitlab/board", ".gitlab/board", true},
		{"../escape", "is not inside the repository", false},
		{"board/../../escape", "is not inside the repository", false},
		{"..", "is not inside the repository", false},
		{".", "is not inside the repository", false},
		{"./", "is not inside the repository", false},
		{"/srv/www/board", "is an absolute path", false},
		{".git/hooks", "is inside .git", false},
		{".git", "is inside .git", false},
		{"docs/.git/x", "is inside .git", false},
		{".GIT/hooks", "is inside .git", false},
		{`board\..\..\escape`, "holds a backslash", false},
		{"submissions", "would replace submissions/", false},
		{"submissions/geo/board", "would replace submissions/", false},
		{"rubrics", "would replace rubrics/", false},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			c, err := LoadConfig(func(k string) string {
				if k == "BENCHGATE_LEADERBOARD_DIR" {
					return tt.dir
				}
				return base[k]
			}, nil)
			switch {
			case tt.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.ok && c.BoardDir != tt.want:
				t.Errorf("folder %q, want %q", c.BoardDir, tt.want)
			case !tt.ok && err == nil:
				t.Fatalf("taken as %q", c.BoardDir)
			case !tt.ok && (!strings.Contains(err.Error(), "BENCHGATE_LEADERBOARD_DIR: ") || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "name a folder of its own")):
				t.Errorf("error %v, want one naming BENCHGATE_LEADERBOARD_DIR and %q", err, tt.want)
			}
		})
	}
}

// FuzzBoardDir: a leaderboard folder taken is a clean, slash-separated
// folder inside the repository, outside .git, submissions/ and rubrics/,
// taken again as it is; one refused says which setting and what to name.
func FuzzBoardDir(f *testing.F) {
	for _, s := range []string{"leaderboard", "docs/board/", "../x", ".git/hooks", "a/.Git", "/abs", "submissions/x", "rubrics", `a\b`, "./", "a//b/./c/.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		dir, err := boardDir(v)
		if err != nil {
			if !strings.Contains(err.Error(), "name a folder of its own") {
				t.Fatalf("boardDir(%q): %v, without what to do", v, err)
			}
			return
		}
		if dir != path.Clean(dir) || dir == "." || !filepath.IsLocal(dir) || strings.Contains(dir, `\`) {
			t.Fatalf("boardDir(%q) = %q, not a clean folder inside the repository", v, dir)
		}
		for _, part := range strings.Split(dir, "/") {
			if strings.EqualFold(part, ".git") {
				t.Fatalf("boardDir(%q) = %q, inside .git", v, dir)
			}
		}
		for _, kept := range []string{"submissions", "rubrics"} {
			if dir == kept || strings.HasPrefix(dir, kept+"/") || strings.HasPrefix(kept, dir+"/") {
				t.Fatalf("boardDir(%q) = %q, over %s", v, dir, kept)
			}
		}
		if again, err := boardDir(dir); err != nil || again != dir {
			t.Fatalf("boardDir(%q) = %q, but boardDir(%q) = %q, %v", v, dir, dir, again, err)
		}
	})
}
