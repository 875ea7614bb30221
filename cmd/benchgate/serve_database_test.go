package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/internal/syncbuf"
)

// TestServeSaysWhereTheDefaultDatabaseIs: with BENCHGATE_DATABASE_URL at its
// default, serve warns at start with the SQLite file's absolute path, and
// the file is there.
func TestServeSaysWhereTheDefaultDatabaseIs(t *testing.T) {
	dir := t.TempDir()
	logs := &syncbuf.Buffer{}
	a := startAppWith(t, appOptions{logs: logs, edit: func(a *app, cfg *bot.Config) {
		t.Chdir(dir) // after the fake board is copied from testdata
		cfg.DatabaseURL = bot.DefaultDatabaseURL
	}})
	want := filepath.Join(dir, "benchgate.db")
	// Stopped only once it serves, so that the queue is open and the
	// stop does not cut its creation short.
	a.waitFor("the App to answer /healthz", func() bool {
		res, err := http.Get("http://" + a.addr + "/healthz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	a.stop()
	var found bool
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["level"] == "WARN" && rec["database"] == want {
			found = true
		}
	}
	if !found {
		t.Errorf("no WARN naming %s:\n%s", want, logs.String())
	}
	if _, err := os.Stat(want); err != nil {
		t.Errorf("the queue is not where the log says: %v", err)
	}
}
