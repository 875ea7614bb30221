package bot

import (
	"os"
	"strings"
	"testing"
)

func TestConfigFile(t *testing.T) {
	key := pemKey(t)
	file := []byte("app_id: 77\nprivate_key_file: /k.pem\nwebhook_secret: [7f3a91c4e2b85d06, 0c9e4b7a2f61d853]\nlisten: \":9000\"\nrerun_policy: command\nqueue_limit: 300\njudge_usd_per_day: 7.5\nspot_checks_per_author_day: 4\ncache_dir: /var/cache/benchgate\n")
	env := map[string]string{"BENCHGATE_LISTEN": ":7000"} // the environment wins
	getenv, err := WithFile(func(k string) string { return env[k] }, file, "benchgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(getenv, func(string) ([]byte, error) { return key, nil })
	if err != nil {
		t.Fatal(err)
	}
	if c.AppID != 77 || len(c.WebhookSecrets) != 2 || c.Listen != ":7000" || c.Limits.QueueWaiting != 300 || c.Limits.JudgeUSDPerDay != 7.5 || c.Limits.SpotChecksPerAuthorDay != 4 || c.CacheDir != "/var/cache/benchgate" {
		t.Errorf("config %v", c)
	}
	// The candidate endpoint's settings, as the judge's.
	getenv, err = WithFile(func(string) string { return "" }, []byte("app_id: 77\nprivate_key_file: /k.pem\nwebhook_secret: 7f3a91c4e2b85d06\nrerun_secret: 5d0b6c1e9a7f4238e1c0\ncandidate_api_key: sk-or-1\ncandidate_models: Qwen/Qwen3-32B=qwen/qwen3-32b\ncandidate_timeout: 90s\n"), "benchgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(getenv, func(string) ([]byte, error) { return key, nil }); err != nil || c.CandidateBaseURL != "https://openrouter.ai/api/v1" || c.CandidateModels["Qwen/Qwen3-32B"] != "qwen/qwen3-32b" || c.CandidateTimeout.String() != "1m30s" {
		t.Errorf("candidate settings from the file: %v, %v", c, err)
	}
	if _, err := WithFile(os.Getenv, []byte("app_id: 1\nwebhook_secrets: x\n"), "b.yaml"); err == nil || !strings.Contains(err.Error(), "unknown keys webhook_secrets") {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := WithFile(os.Getenv, []byte("app_id: [\n"), "b.yaml"); err == nil || !strings.Contains(err.Error(), "b.yaml") {
		t.Errorf("bad YAML: %v", err)
	}
}
