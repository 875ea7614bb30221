package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/internal/fakegithub"
)

// TestServeEndToEnd runs the App against a fake GitHub: a signed
// pull_request delivery ends in one check run and one comment.
func TestServeEndToEnd(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	gh := fakegithub.New(t, 42, &key.PublicKey)
	gh.AddRepo("geo/board", "main")
	root := copyBoard(t)
	for _, dir := range []string{"rubrics"} {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(root, dir, e.Name()))
			gh.SetFile("geo/board", "main", dir+"/"+e.Name(), data)
		}
	}
	meta, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/meta.json"))
	scores, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json"))
	head := strings.Repeat("a", 40)
	gh.AddPR("geo/board", fakegithub.PR{Number: 3, Author: "newcomer", HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: "submissions/model-benchmark/new-run/meta.json", Status: "added", Content: meta},
		{Name: "submissions/model-benchmark/new-run/scores.json", Status: "added", Content: scores},
	}})

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := bot.Config{
		AppID: 42, PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		WebhookSecrets: [][]byte{[]byte("hook-secret")}, DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "q.db"),
		Listen: addr, GitHubAPIURL: gh.URL, GitURL: gh.URL, BoardDir: "leaderboard", AuthorName: "benchgate[bot]",
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- serve(ctx, cfg, 2, 5*time.Second, gh.AppSlug, 0, io.Discard) }()
	defer func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("serve exited %d", code)
		}
	}()

	body := `{"action": "opened", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "pull_request": {"number": 3, "head": {"sha": "` + head + `"}}}`
	var resp *http.Response
	for i := 0; i < 100; i++ { // until the server listens
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", strings.NewReader(body))
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", "delivery-1")
		req.Header.Set("X-Hub-Signature-256", bot.Sign([]byte("hook-secret"), []byte(body)))
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery: %v %v", err, resp)
	}
	resp.Body.Close()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && (len(gh.CheckRuns("geo/board")) == 0 || len(gh.Comments("geo/board", 3)) == 0) {
		time.Sleep(100 * time.Millisecond)
	}
	runs := gh.CheckRuns("geo/board")
	if len(runs) != 1 || runs[0].Name != bot.CheckName || runs[0].Conclusion != "success" || runs[0].HeadSHA != head {
		t.Fatalf("check runs: %+v", runs)
	}
	if cs := gh.Comments("geo/board", 3); len(cs) != 1 || !strings.Contains(cs[0].Body, bot.StickyMarker) {
		t.Errorf("comments: %+v", cs)
	}
}

// TestServeReconcilesMissedDeliveries: an open pull request whose
// delivery never arrived is found and verified at start-up.
func TestServeReconcilesMissedDeliveries(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	gh := fakegithub.New(t, 42, &key.PublicKey)
	gh.AddRepo("geo/board", "main")
	gh.AddInstallation(7, "geo/board")
	root := copyBoard(t)
	entries, _ := os.ReadDir(filepath.Join(root, "rubrics"))
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(root, "rubrics", e.Name()))
		gh.SetFile("geo/board", "main", "rubrics/"+e.Name(), data)
	}
	meta, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/meta.json"))
	scores, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-basin/scores.json"))
	head := strings.Repeat("b", 40)
	gh.AddPR("geo/board", fakegithub.PR{Number: 4, Author: "newcomer", HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
		{Name: "submissions/model-benchmark/late/meta.json", Status: "added", Content: meta},
		{Name: "submissions/model-benchmark/late/scores.json", Status: "added", Content: scores},
	}})
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	cfg := bot.Config{
		AppID: 42, PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		WebhookSecrets: [][]byte{[]byte("s")}, DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "q.db"),
		Listen: addr, GitHubAPIURL: gh.URL, GitURL: gh.URL,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- serve(ctx, cfg, 2, 5*time.Second, gh.AppSlug, time.Hour, io.Discard) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && len(gh.CheckRuns("geo/board")) == 0 {
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	<-done
	runs := gh.CheckRuns("geo/board")
	if len(runs) != 1 || runs[0].HeadSHA != head || runs[0].Conclusion != "success" {
		t.Errorf("check runs: %+v", runs)
	}
}
