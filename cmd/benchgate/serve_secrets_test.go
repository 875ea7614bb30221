package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/internal/fakegithub"
)

// syncBuffer is a log sink shared by the App's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeKeepsSecrets runs a verification and a judged spot-check, then
// looks for every configured secret, and for installation tokens, in the
// logs, the check runs, the comments and every file the App wrote.
func TestServeKeepsSecrets(t *testing.T) {
	appKeyOnce.Do(func() { appKey = newAppKey() })
	gh := fakegithub.New(t, 42, &appKey.PublicKey)
	gh.AddRepo("geo/board", "main")
	root := copyBoard(t)
	entries, _ := os.ReadDir(filepath.Join(root, "rubrics"))
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(root, "rubrics", e.Name()))
		gh.SetFile("geo/board", "main", "rubrics/"+e.Name(), data)
	}
	meta, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/meta.json"))
	scores, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/scores.json"))
	head := strings.Repeat("9", 40)
	gh.AddPR("geo/board", fakegithub.PR{Number: 21, Author: "newcomer", HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: "submissions/model-benchmark/secret-run/meta.json", Status: "added", Content: meta},
		{Name: "submissions/model-benchmark/secret-run/scores.json", Status: "added", Content: scores},
	}})
	gh.SetPermission("geo/board", "maint", "admin")
	judge := fakeEndpoint(t, root)

	secrets := map[string]string{
		"webhook secret": "whsec-0b8d2f7c9e1a4b6d",
		"judge key":      testKey,
		"rerun secret":   "rerun-5e3a9c1f7d2b8e4a",
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(appKey)})
	// A line from the middle of the key stands for all of it.
	secrets["private key"] = strings.Split(string(pemKey), "\n")[5]
	dir := t.TempDir()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	cfg := bot.Config{
		AppID: 42, PrivateKey: pemKey, WebhookSecrets: [][]byte{[]byte(secrets["webhook secret"])},
		DatabaseURL: "sqlite:" + filepath.Join(dir, "q.db"), Listen: addr, GitHubAPIURL: gh.URL, GitURL: gh.URL,
		JudgeBaseURL: judge.URL, JudgeAPIKey: secrets["judge key"], RerunSecret: []byte(secrets["rerun secret"]),
	}
	t.Setenv("BENCHGATE_CACHE_DIR", filepath.Join(dir, "cache"))
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- serve(ctx, cfg, 2, 5*time.Second, gh.AppSlug, 0, logs) }()

	a := &app{t: t, gh: gh, addr: addr}
	sign := func(event, delivery, body string) {
		a.t.Helper()
		// deliver signs with "s"; this App has another secret.
		req := signedRequest(t, addr, event, delivery, body, secrets["webhook secret"])
		if req != 202 {
			t.Fatalf("%s: status %d", delivery, req)
		}
	}
	sign("pull_request", "sec-1", prEvent("opened", 21, head))
	a.waitFor("the verify check", func() bool { return len(a.runs(bot.CheckName, head)) == 1 })
	sign("issue_comment", "sec-2", commentEvent(21, 901, "maint", "/benchgate rerun"))
	a.waitFor("the rerun check", func() bool { return len(a.runs(bot.RerunCheckName, head)) == 1 })
	cancel()
	<-done

	var places []string
	places = append(places, "logs\x00"+logs.String())
	for _, r := range gh.CheckRuns("geo/board") {
		places = append(places, "check run "+r.Name+"\x00"+r.Output.Title+r.Output.Summary+r.Output.Text)
	}
	for _, c := range gh.Comments("geo/board", 21) {
		places = append(places, "comment\x00"+c.Body)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			places = append(places, p+"\x00"+string(data))
		}
		return nil
	})
	if !strings.Contains(logs.String(), `"msg":"job done"`) {
		t.Fatalf("the logs were not captured:\n%s", logs.String())
	}
	for _, place := range places {
		name, text, _ := strings.Cut(place, "\x00")
		for what, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in %s", what, name)
			}
		}
		if strings.Contains(text, "ghs_") {
			t.Errorf("an installation token appears in %s", name)
		}
	}
}
