package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
)

// TestServeFormEncodedDelivery: a hook set to the content type
// application/x-www-form-urlencoded delivers payload=<the JSON,
// URL-encoded>, signed as sent. The running App verifies the pull request
// it names as it does for JSON.
func TestServeFormEncodedDelivery(t *testing.T) {
	a := startApp(t)
	head := strings.Repeat("f", 40)
	a.pr(21, head, a.scores)
	form := url.Values{"payload": {prEvent("opened", 21, head)}}.Encode()
	var resp *http.Response
	var err error
	for range 100 {
		req, _ := http.NewRequest(http.MethodPost, "http://"+a.addr+"/webhook", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-GitHub-Event", "pull_request")
		req.Header.Set("X-GitHub-Delivery", "form-1")
		req.Header.Set("X-Hub-Signature-256", bot.Sign([]byte(a.secret), []byte(form)))
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond) // the App is starting
	}
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("form-encoded delivery: status %d, want 202", resp.StatusCode)
	}
	a.waitFor("the check run", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	if r := a.runs(prcheck.CheckName, head)[0]; r.Conclusion != "success" {
		t.Errorf("conclusion %s, want success", r.Conclusion)
	}
}
