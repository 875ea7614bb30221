package bot

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func pemKey(t *testing.T) []byte {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 1024) // small: only parsed here
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

func TestLoadConfig(t *testing.T) {
	key := pemKey(t)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	ecPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER})
	files := map[string][]byte{"/keys/app.pem": key, "/keys/ec.pem": ecPEM, "/keys/junk.pem": []byte("hello"), "/keys/rerun": []byte("5d0b6c1e9a7f4238e1c0\n")}
	readFile := func(p string) ([]byte, error) {
		if d, ok := files[p]; ok {
			return d, nil
		}
		return nil, errors.New("open " + p + ": no such file or directory")
	}
	valid := map[string]string{"BENCHGATE_APP_ID": "12345", "BENCHGATE_PRIVATE_KEY_FILE": "/keys/app.pem", "BENCHGATE_WEBHOOK_SECRET": "7f3a91c4e2b85d06, 0c9e4b7a2f61d853"}
	tests := []struct {
		name string
		env  map[string]string
		want []string // fragments of the error; none for success
	}{
		{"valid, defaults", valid, nil},
		{"an Azure judge", merge(valid, map[string]string{"BENCHGATE_JUDGE_AZURE_API_VERSION": "2025-04-01-preview", "BENCHGATE_JUDGE_DEPLOYMENTS": "openai/gpt-5.5=gpt55-judge", "BENCHGATE_JUDGE_TOKEN_PARAM": "max_completion_tokens"}), nil},
		{"nothing set", map[string]string{}, []string{"BENCHGATE_APP_ID is required", "BENCHGATE_PRIVATE_KEY_FILE (or BENCHGATE_PRIVATE_KEY) is required", "BENCHGATE_WEBHOOK_SECRET is required"}},
		{"no webhook secret, no start", map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY_FILE": "/keys/app.pem", "BENCHGATE_WEBHOOK_SECRET": " , "}, []string{"BENCHGATE_WEBHOOK_SECRET is required"}},
		{"bad id", map[string]string{"BENCHGATE_APP_ID": "abc", "BENCHGATE_PRIVATE_KEY_FILE": "/keys/app.pem", "BENCHGATE_WEBHOOK_SECRET": testSecret}, []string{`BENCHGATE_APP_ID: "abc" is not a positive number`}},
		{"missing key file", map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY_FILE": "/keys/none.pem", "BENCHGATE_WEBHOOK_SECRET": testSecret}, []string{"no such file"}},
		{"not PEM", map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY_FILE": "/keys/junk.pem", "BENCHGATE_WEBHOOK_SECRET": testSecret}, []string{"not PEM"}},
		{"not RSA", map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY_FILE": "/keys/ec.pem", "BENCHGATE_WEBHOOK_SECRET": testSecret}, []string{"not an RSA private key"}},
		{"both key forms", map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY_FILE": "/keys/app.pem", "BENCHGATE_PRIVATE_KEY": "x", "BENCHGATE_WEBHOOK_SECRET": testSecret}, []string{"not both"}},
		{"bad database", merge(valid, map[string]string{"BENCHGATE_DATABASE_URL": "mysql://x"}), []string{"use sqlite:PATH or postgres://"}},
		{"bad policy", merge(valid, map[string]string{"BENCHGATE_RERUN_POLICY": "always"}), []string{`BENCHGATE_RERUN_POLICY: "always" is not command or auto`}},
		{"bad publish mode", merge(valid, map[string]string{"BENCHGATE_PUBLISH": "force"}), []string{`BENCHGATE_PUBLISH: "force" is not push or pr`}},
		{"auto needs a judge", merge(valid, map[string]string{"BENCHGATE_RERUN_POLICY": "auto"}), []string{"needs a judge"}},
		{"a judge and a rerun secret", merge(valid, map[string]string{"BENCHGATE_JUDGE_BASE_URL": "https://judge.example.org/v1", "BENCHGATE_RERUN_SECRET": "5d0b6c1e9a7f4238e1c0"}), nil},
		{"a judge and a rerun secret file", merge(valid, map[string]string{"BENCHGATE_JUDGE_BASE_URL": "https://judge.example.org/v1", "BENCHGATE_RERUN_SECRET_FILE": "/keys/rerun"}), nil},
		// Spot-checks without a secret would draw a sample the submitter
		// can compute: the App does not start, and says how to fix it.
		{"a judge without a rerun secret", merge(valid, map[string]string{"BENCHGATE_JUDGE_BASE_URL": "https://judge.example.org/v1"}), []string{"BENCHGATE_RERUN_SECRET is required when spot-checks can run", "openssl rand -hex 32", "unset BENCHGATE_JUDGE_BASE_URL"}},
		{"a weak rerun secret", merge(valid, map[string]string{"BENCHGATE_JUDGE_BASE_URL": "https://judge.example.org/v1", "BENCHGATE_RERUN_SECRET": "secret"}), []string{"BENCHGATE_RERUN_SECRET", "openssl rand -hex 32"}},
		{"both rerun secret forms", merge(valid, map[string]string{"BENCHGATE_RERUN_SECRET": "5d0b6c1e9a7f4238e1c0", "BENCHGATE_RERUN_SECRET_FILE": "/keys/rerun"}), []string{"not both"}},
		{"missing rerun secret file", merge(valid, map[string]string{"BENCHGATE_RERUN_SECRET_FILE": "/keys/none"}), []string{"BENCHGATE_RERUN_SECRET_FILE: open /keys/none"}},
		{"bad API URL", merge(valid, map[string]string{"BENCHGATE_GITHUB_API_URL": "ftp://x"}), []string{"not an http(s) URL"}},
		{"bad limits", merge(valid, map[string]string{"BENCHGATE_SPOT_CHECKS_PER_PR": "0", "BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY": "ten", "BENCHGATE_SPOT_CHECKS_PER_REPO_DAY": "many", "BENCHGATE_JUDGE_USD_PER_DAY": "NaN", "BENCHGATE_SPOT_CHECK_CALLS": "-5", "BENCHGATE_QUEUE_LIMIT": "1e3"}), []string{
			`BENCHGATE_SPOT_CHECKS_PER_PR: "0" is not a whole number of at least 1`, `BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY: "ten" is not a whole number of at least 1`, `BENCHGATE_SPOT_CHECKS_PER_REPO_DAY: "many"`, `BENCHGATE_JUDGE_USD_PER_DAY: "NaN" is not an amount`, `BENCHGATE_SPOT_CHECK_CALLS: "-5"`, `BENCHGATE_QUEUE_LIMIT: "1e3"`}},
		{"bad judge settings", merge(valid, map[string]string{"BENCHGATE_JUDGE_TIMEOUT": "soon", "BENCHGATE_JUDGE_PRICE_INPUT": "-1"}), []string{`BENCHGATE_JUDGE_TIMEOUT: "soon"`, `BENCHGATE_JUDGE_PRICE_INPUT: "-1" is not a price`}},
		{"bad Azure judge settings", merge(valid, map[string]string{"BENCHGATE_JUDGE_DEPLOYMENTS": "openai/gpt-5.5", "BENCHGATE_JUDGE_TOKEN_PARAM": "max_output_tokens"}), []string{
			`BENCHGATE_JUDGE_DEPLOYMENTS: deployment "openai/gpt-5.5" is not written MODEL=DEPLOYMENT`, `BENCHGATE_JUDGE_TOKEN_PARAM: "max_output_tokens" is neither`}},
		{"deployments without Azure", merge(valid, map[string]string{"BENCHGATE_JUDGE_DEPLOYMENTS": "openai/gpt-5.5=gpt55"}), []string{"BENCHGATE_JUDGE_DEPLOYMENTS is for Azure OpenAI: set BENCHGATE_JUDGE_AZURE_API_VERSION too"}},
		{"one price without the other", merge(valid, map[string]string{"BENCHGATE_JUDGE_PRICE_OUTPUT": "10"}), []string{"set both BENCHGATE_JUDGE_PRICE_INPUT and BENCHGATE_JUDGE_PRICE_OUTPUT"}},
		{"a cached-input price alone", merge(valid, map[string]string{"BENCHGATE_JUDGE_PRICE_CACHED_INPUT": "0.5"}), []string{"BENCHGATE_JUDGE_PRICE_CACHED_INPUT prices cached prompt tokens"}},
		{"a bad cached-input price", merge(valid, map[string]string{"BENCHGATE_JUDGE_PRICE_INPUT": "2", "BENCHGATE_JUDGE_PRICE_OUTPUT": "8", "BENCHGATE_JUDGE_PRICE_CACHED_INPUT": "cheap"}), []string{`BENCHGATE_JUDGE_PRICE_CACHED_INPUT: "cheap" is not a price`}},
		{"a commit name without an e-mail", merge(valid, map[string]string{"BENCHGATE_COMMIT_NAME": "Board Bot"}), []string{"set both BENCHGATE_COMMIT_NAME and BENCHGATE_COMMIT_EMAIL, or neither"}},
		{"a commit e-mail that is not one", merge(valid, map[string]string{"BENCHGATE_COMMIT_NAME": "Board Bot", "BENCHGATE_COMMIT_EMAIL": "board"}), []string{`BENCHGATE_COMMIT_EMAIL: "board" is not an e-mail address`}},
		{"a spot-check above the day's budget", merge(valid, map[string]string{"BENCHGATE_JUDGE_USD_PER_DAY": "5", "BENCHGATE_SPOT_CHECK_USD": "7.5"}), []string{"BENCHGATE_SPOT_CHECK_USD (7.50) is more than BENCHGATE_JUDGE_USD_PER_DAY (5.00)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(func(k string) string { return tt.env[k] }, readFile)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if c.CloneURL("geo/board") != "https://github.com/geo/board.git" {
					t.Errorf("clone URL %s", c.CloneURL("geo/board"))
				}
				if c.JudgeTimeout != 3*time.Minute {
					t.Errorf("judge timeout %v, want Groundtruth's 3m", c.JudgeTimeout)
				}
				if c.Limits != DefaultLimits() {
					t.Errorf("limits %+v, want the defaults", c.Limits)
				}
				if l := c.Limits; l.SpotChecksPerAuthorDay < 1 || l.SpotChecksPerAuthorDay >= l.SpotChecksPerRepoDay {
					t.Errorf("by default one author may have %d of the repository's %d spot-checks a day: it must be some, and fewer", l.SpotChecksPerAuthorDay, l.SpotChecksPerRepoDay)
				}
				if c.AppID != 12345 || len(c.WebhookSecrets) != 2 || string(c.WebhookSecrets[1]) != "0c9e4b7a2f61d853" || c.DatabaseURL != "sqlite:benchgate.db" || c.GitHubAPIURL != "https://api.github.com/" || c.RerunPolicy != RerunCommand || c.PublishMode != PublishPush {
					t.Errorf("config %v", c)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestConfigModes: the rerun policy and the publish mode are read as
// their constants.
func TestConfigModes(t *testing.T) {
	env := map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY": string(pemKey(t)), "BENCHGATE_WEBHOOK_SECRET": testSecret,
		"BENCHGATE_RERUN_POLICY": "auto", "BENCHGATE_JUDGE_BASE_URL": "http://judge.example/v1", "BENCHGATE_RERUN_SECRET": "5d0b6c1e9a7f4238e1c0", "BENCHGATE_PUBLISH": "pr"}
	c, err := LoadConfig(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.RerunPolicy != RerunAuto || c.PublishMode != PublishPR {
		t.Errorf("rerun policy %q, publish mode %q", c.RerunPolicy, c.PublishMode)
	}
}

func merge(a, b map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// TestConfigCacheDir: the App keeps its cache where BENCHGATE_CACHE_DIR
// says, as the CLI does, and by default in the user's cache folder.
func TestConfigCacheDir(t *testing.T) {
	key := pemKey(t)
	env := map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY": string(key), "BENCHGATE_WEBHOOK_SECRET": testSecret}
	load := func() Config {
		c, err := LoadConfig(func(k string) string { return env[k] }, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	t.Setenv("XDG_CACHE_HOME", "/home/app/.cache")
	if c := load(); c.CacheDir != "/home/app/.cache/benchgate" {
		t.Errorf("default cache %q", c.CacheDir)
	}
	env["BENCHGATE_CACHE_DIR"] = "/srv/cache"
	if c := load(); c.CacheDir != "/srv/cache" {
		t.Errorf("BENCHGATE_CACHE_DIR: cache %q", c.CacheDir)
	}
}

func TestConfigStringHidesSecrets(t *testing.T) {
	c := Config{AppID: 1, PrivateKey: []byte("-----BEGIN RSA PRIVATE KEY-----secretkey"), WebhookSecrets: [][]byte{[]byte("hooksecret")}, JudgeAPIKey: "sk-judge", DatabaseURL: "postgres://u:dbpass@h/db"}
	s := c.String()
	for _, secret := range []string{"secretkey", "hooksecret", "sk-judge", "dbpass"} {
		if strings.Contains(s, secret) {
			t.Errorf("String() shows %q: %s", secret, s)
		}
	}
}

func TestGitURLFor(t *testing.T) {
	for api, want := range map[string]string{
		"https://api.github.com/":         "https://github.com/",
		"https://ghe.example.org/api/v3/": "https://ghe.example.org/",
		"http://127.0.0.1:8080/":          "http://127.0.0.1:8080/",
		"https://api.octo.ghe.com/":       "https://octo.ghe.com/",
	} {
		if got := gitURLFor(api); got != want {
			t.Errorf("gitURLFor(%s) = %s, want %s", api, got, want)
		}
	}
}

func TestAPIURLProblem(t *testing.T) {
	for api, want := range map[string]string{
		"https://api.github.com/":           "",
		"https://api.octo.ghe.com/":         "",
		"https://ghe.example.org/api/v3/":   "",
		"http://127.0.0.1:8080/":            "",
		"http://localhost:9/":               "",
		"https://ghe.example.org/":          "under /api/v3/",
		"https://github.com/":               "that is the web address",
		"https://octo.ghe.com/":             "that is the web address",
		"https://api.github.com/api/v3/":    "at its root",
		"https://ghe.example.org/api/v3/x/": "under /api/v3/",
	} {
		got := apiURLProblem(api)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("apiURLProblem(%s) = %q, want %q", api, got, want)
		}
	}
}

func TestLoadConfigLimits(t *testing.T) {
	env := map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY": string(pemKey(t)), "BENCHGATE_WEBHOOK_SECRET": testSecret,
		"BENCHGATE_SPOT_CHECKS_PER_PR": "2", "BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY": "3", "BENCHGATE_SPOT_CHECKS_PER_REPO_DAY": "9", "BENCHGATE_JUDGE_USD_PER_DAY": "12.5",
		"BENCHGATE_SPOT_CHECK_USD": "0.75", "BENCHGATE_SPOT_CHECK_CALLS": "40", "BENCHGATE_QUEUE_LIMIT": "250"}
	c, err := LoadConfig(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{SpotChecksPerPR: 2, SpotChecksPerAuthorDay: 3, SpotChecksPerRepoDay: 9, JudgeUSDPerDay: 12.5, SpotCheckUSD: 0.75, SpotCheckCalls: 40, QueueWaiting: 250}
	if c.Limits != want {
		t.Errorf("limits %+v, want %+v", c.Limits, want)
	}
	if s := c.String(); !strings.Contains(s, "spot_checks_per_pr=2 spot_checks_per_author_day=3 spot_checks_per_repo_day=9 judge_usd_per_day=12.50 spot_check_usd=0.75 spot_check_calls=40 queue_limit=250") {
		t.Errorf("String() = %q, want the limits", s)
	}
}

// testSecret is a webhook secret that LoadConfig accepts.
const testSecret = "b41f0e7c93a2d658"

// TestWebhookSecretStrength: serve refuses a webhook secret shorter than
// 16 bytes or plainly not random, saying why and what to use instead.
func TestWebhookSecretStrength(t *testing.T) {
	tests := []struct {
		secret string
		want   string // in the error; "" when accepted
	}{
		{"...", "BENCHGATE_WEBHOOK_SECRET is 3 bytes long: anyone who guesses it can forge deliveries; use at least 16 random bytes, such as the output of `openssl rand -hex 32`"},
		{"s", "is 1 byte long"},
		{"aaaaaaaaaaaaaaaa", "holds only 1 different characters"},
		{"abababababababababab", "holds only 2 different characters"},
		{"changemechangeme", `contains "changeme"`},
		{"changeme-right-now-please", `contains "changeme"`},
		{"my-webhook-token-2026", `contains "webhook"`},
		{"0123456789abcdef", "is mostly a run of consecutive characters"},
		{"zyxwvutsrqponmlk", "is mostly a run of consecutive characters"},
		{"new, 0c9e4b7a2f61d853", "BENCHGATE_WEBHOOK_SECRET (secret 1 of 2) is 3 bytes long"},
		{testSecret, ""},
		{"6f1d0a9b3c7e2f48a5d1c0b9e8f7a6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c", ""},
		{"q3V9+xT2/LmZ8kP0", ""},
		{"7f3a91c4e2b85d06, 0c9e4b7a2f61d853", ""},
	}
	for _, tt := range tests {
		t.Run(tt.secret, func(t *testing.T) {
			env := map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY": string(pemKey(t)), "BENCHGATE_WEBHOOK_SECRET": tt.secret}
			_, err := LoadConfig(func(k string) string { return env[k] }, nil)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), tt.secret) && len(tt.secret) > 3 {
				t.Errorf("the error quotes the secret: %v", err)
			}
		})
	}
}

// TestCandidateConfig: the candidate endpoint's settings, named as the
// judge's: OpenRouter when only a key is given, a key read from a file,
// the model map; and no start without the rerun secret, whose absence
// would let a submitter compute which questions are asked again.
func TestCandidateConfig(t *testing.T) {
	files := map[string][]byte{"/keys/app.pem": pemKey(t), "/keys/candidate": []byte("sk-or-file\n")}
	readFile := func(p string) ([]byte, error) {
		if d, ok := files[p]; ok {
			return d, nil
		}
		return nil, errors.New("open " + p + ": no such file or directory")
	}
	valid := map[string]string{"BENCHGATE_APP_ID": "1", "BENCHGATE_PRIVATE_KEY_FILE": "/keys/app.pem", "BENCHGATE_WEBHOOK_SECRET": testSecret, "BENCHGATE_RERUN_SECRET": "5d0b6c1e9a7f4238e1c0"}
	in, out := 0.2, 0.6
	tests := []struct {
		name string
		env  map[string]string
		want Config // the candidate's fields; ignored when fails is set
		fail []string
	}{
		{"none: no reproductions", valid, Config{CandidateTimeout: 3 * time.Minute}, nil},
		{"a key alone: OpenRouter", merge(valid, map[string]string{"BENCHGATE_CANDIDATE_API_KEY": " sk-or-1 "}),
			Config{CandidateBaseURL: "https://openrouter.ai/api/v1", CandidateAPIKey: "sk-or-1", CandidateTimeout: 3 * time.Minute}, nil},
		{"a key file", merge(valid, map[string]string{"BENCHGATE_CANDIDATE_API_KEY_FILE": "/keys/candidate"}),
			Config{CandidateBaseURL: "https://openrouter.ai/api/v1", CandidateAPIKey: "sk-or-file", CandidateTimeout: 3 * time.Minute}, nil},
		{"a local endpoint without a key, its models, prices and timeout", merge(valid, map[string]string{"BENCHGATE_CANDIDATE_BASE_URL": "http://vllm.internal:8000/v1", "BENCHGATE_CANDIDATE_MODELS": "Qwen/Qwen3-32B=qwen3-32b, org/m=m", "BENCHGATE_CANDIDATE_PRICE_INPUT": "0.2", "BENCHGATE_CANDIDATE_PRICE_OUTPUT": "0.6", "BENCHGATE_CANDIDATE_TIMEOUT": "90s"}),
			Config{CandidateBaseURL: "http://vllm.internal:8000/v1", CandidateTimeout: 90 * time.Second, CandidateModels: map[string]string{"Qwen/Qwen3-32B": "qwen3-32b", "org/m": "m"}, CandidatePriceInput: &in, CandidatePriceOutput: &out}, nil},
		{"without the rerun secret", merge(valid, map[string]string{"BENCHGATE_RERUN_SECRET": "", "BENCHGATE_CANDIDATE_API_KEY": "sk-or-1"}), Config{},
			[]string{"BENCHGATE_RERUN_SECRET is required when reproductions can run", "openssl rand -hex 32", "unset the candidate endpoint"}},
		{"both key forms", merge(valid, map[string]string{"BENCHGATE_CANDIDATE_API_KEY": "a", "BENCHGATE_CANDIDATE_API_KEY_FILE": "/keys/candidate"}), Config{}, []string{"BENCHGATE_CANDIDATE_API_KEY_FILE or BENCHGATE_CANDIDATE_API_KEY, not both"}},
		{"a missing key file", merge(valid, map[string]string{"BENCHGATE_CANDIDATE_API_KEY_FILE": "/keys/none"}), Config{}, []string{"BENCHGATE_CANDIDATE_API_KEY_FILE: open /keys/none"}},
		{"bad settings", merge(valid, map[string]string{"BENCHGATE_CANDIDATE_BASE_URL": "openrouter.ai", "BENCHGATE_CANDIDATE_MODELS": "Qwen/Qwen3-32B", "BENCHGATE_CANDIDATE_TIMEOUT": "later", "BENCHGATE_CANDIDATE_PRICE_OUTPUT": "1"}), Config{}, []string{
			`BENCHGATE_CANDIDATE_BASE_URL: "openrouter.ai" is not an http(s) URL`, `BENCHGATE_CANDIDATE_MODELS: model map entry "Qwen/Qwen3-32B" is not written ID=SERVED`, `BENCHGATE_CANDIDATE_TIMEOUT: "later"`, "set both BENCHGATE_CANDIDATE_PRICE_INPUT and BENCHGATE_CANDIDATE_PRICE_OUTPUT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(func(k string) string { return tt.env[k] }, readFile)
			if tt.fail != nil {
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tt.fail {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q:\n%v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := Config{CandidateBaseURL: c.CandidateBaseURL, CandidateAPIKey: c.CandidateAPIKey, CandidateTimeout: c.CandidateTimeout, CandidateModels: c.CandidateModels, CandidatePriceInput: c.CandidatePriceInput, CandidatePriceOutput: c.CandidatePriceOutput, CandidatePriceCachedInput: c.CandidatePriceCachedInput}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("candidate settings %+v, want %+v", got, tt.want)
			}
			if strings.Contains(c.String(), "sk-or") {
				t.Errorf("the configuration's text shows the key: %s", c)
			}
		})
	}
}
