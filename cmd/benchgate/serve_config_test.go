package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesUnusableLeaderboardDir: `benchgate serve` with a
// leaderboard folder outside the repository, inside .git or over the
// submissions does not start (exit 4), naming the setting and what to
// name instead; the same from the configuration file.
func TestServeRefusesUnusableLeaderboardDir(t *testing.T) {
	appKeyOnce.Do(func() { appKey = newAppKey() })
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(keyFile, appKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want string }{
		{"../escape", `BENCHGATE_LEADERBOARD_DIR: "../escape" is not inside the repository`},
		{"/var/www/board", `BENCHGATE_LEADERBOARD_DIR: "/var/www/board" is an absolute path`},
		{".git/hooks", `BENCHGATE_LEADERBOARD_DIR: ".git/hooks" is inside .git`},
		{"submissions", `BENCHGATE_LEADERBOARD_DIR: "submissions" would replace submissions/`},
	} {
		t.Run(tt.dir, func(t *testing.T) {
			t.Setenv("BENCHGATE_APP_ID", "42")
			t.Setenv("BENCHGATE_PRIVATE_KEY_FILE", keyFile)
			t.Setenv("BENCHGATE_WEBHOOK_SECRET", testWebhookSecret)
			t.Setenv("BENCHGATE_DATABASE_URL", "sqlite:"+filepath.Join(t.TempDir(), "q.db"))
			t.Setenv("BENCHGATE_LEADERBOARD_DIR", tt.dir)
			code, _, stderr := runCLI(t, "serve")
			if code != exitSetup || !strings.HasPrefix(stderr, "benchgate serve cannot start:\n") || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "name a folder of its own") {
				t.Errorf("exit %d\n%s", code, stderr)
			}
			t.Setenv("BENCHGATE_LEADERBOARD_DIR", "")
			cfg := filepath.Join(t.TempDir(), "benchgate.yaml")
			if err := os.WriteFile(cfg, []byte("leaderboard_dir: "+tt.dir+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, stderr = runCLI(t, "serve", "--config", cfg)
			if code != exitSetup || !strings.Contains(stderr, tt.want) {
				t.Errorf("from the file: exit %d\n%s", code, stderr)
			}
		})
	}
}
