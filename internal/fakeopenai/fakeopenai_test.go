package fakeopenai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const key = "sk-fake-123456"

func post(t *testing.T, url, auth, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

const validBody = `{"model":"m-1","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Hello"},{"type":"text","text":"there"}]}],"temperature":0,"seed":7,"max_tokens":16,"response_format":{"type":"json_object"}}`

func TestResponseShape(t *testing.T) {
	cost := 0.00042
	s := New(t, Options{Key: key, Reply: func(r Request) Reply {
		return Reply{Content: `{"answer":"B"}`, PromptTokens: 12, CompletionTokens: 5, Cost: &cost}
	}})
	resp, body := post(t, s.URL+"/chat/completions", key, validBody)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var got struct {
		ID      *string `json:"id"`
		Object  string  `json:"object"`
		Created int64   `json:"created"`
		Model   string  `json:"model"`
		Choices []struct {
			Index   *int `json:"index"`
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int      `json:"prompt_tokens"`
			CompletionTokens int      `json:"completion_tokens"`
			TotalTokens      int      `json:"total_tokens"`
			Cost             *float64 `json:"cost"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID == nil || !strings.HasPrefix(*got.ID, "chatcmpl-") || got.Object != "chat.completion" || got.Model != "m-1" ||
		time.Since(time.Unix(got.Created, 0)) > time.Minute {
		t.Errorf("envelope: %s", body)
	}
	if len(got.Choices) != 1 || got.Choices[0].Index == nil || *got.Choices[0].Index != 0 ||
		got.Choices[0].Message.Role != "assistant" || got.Choices[0].Message.Content != `{"answer":"B"}` ||
		got.Choices[0].FinishReason != "stop" {
		t.Errorf("choices: %s", body)
	}
	if got.Usage.PromptTokens != 12 || got.Usage.CompletionTokens != 5 || got.Usage.TotalTokens != 17 ||
		got.Usage.Cost == nil || *got.Usage.Cost != cost {
		t.Errorf("usage: %s", body)
	}

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	r := reqs[0]
	if r.Call != 1 || r.Status != 200 || r.Path != "/v1/chat/completions" || r.Model != "m-1" ||
		len(r.Messages) != 2 || r.Messages[1] != (Message{Role: "user", Content: "Hello\nthere"}) ||
		r.Temperature == nil || *r.Temperature != 0 || r.TopP != nil || r.Seed == nil || *r.Seed != 7 ||
		r.MaxTokens == nil || *r.MaxTokens != 16 || r.MaxCompletionTokens != nil || r.ResponseFormat != "json_object" ||
		string(r.Raw) != validBody {
		t.Errorf("recorded %+v", r)
	}
}

func TestNoCostWhenNotGiven(t *testing.T) {
	s := New(t, Options{})
	_, body := post(t, s.URL+"/chat/completions", "", `{"model":"m","messages":[{"role":"user","content":"one two three"}]}`)
	if strings.Contains(string(body), "cost") {
		t.Errorf("usage.cost without a cost: %s", body)
	}
	var got struct {
		Usage struct{ PromptTokens, CompletionTokens int } `json:"usage"`
	}
	if err := json.Unmarshal(body, &got); err != nil || !strings.Contains(string(body), `"content":"OK"`) {
		t.Fatalf("%v: %s", err, body)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		auth     string
		body     string
		status   int
		errType  string
		errCode  any
		recorded bool
	}{
		{"wrong key", "/chat/completions", "sk-wrong", validBody, 401, "invalid_request_error", "invalid_api_key", true},
		{"no key", "/chat/completions", "", validBody, 401, "invalid_request_error", "invalid_api_key", true},
		{"malformed JSON", "/chat/completions", key, `{"model":"m",`, 400, "invalid_request_error", nil, true},
		{"trailing data", "/chat/completions", key, validBody + "{}", 400, "invalid_request_error", nil, true},
		{"no model", "/chat/completions", key, `{"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", nil, true},
		{"no messages", "/chat/completions", key, `{"model":"m","messages":[]}`, 400, "invalid_request_error", nil, true},
		{"temperature out of range", "/chat/completions", key, `{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":3}`, 400, "invalid_request_error", nil, true},
		{"unknown path", "/embeddings", key, validBody, 404, "invalid_request_error", "unknown_url", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, Options{Key: key})
			resp, body := post(t, s.URL+tt.path, tt.auth, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			var e struct {
				Error *struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    any     `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error == nil || e.Error.Message == "" ||
				e.Error.Type != tt.errType || e.Error.Code != tt.errCode {
				t.Errorf("error body %s", body)
			}
			if strings.Contains(string(body), key) || (tt.auth != "" && strings.Contains(string(body), tt.auth)) {
				t.Errorf("the error echoes a key: %s", body)
			}
			calls, status := s.Stats()
			if tt.recorded != (calls == 1) || (tt.recorded && status[tt.status] != 1) {
				t.Errorf("stats %d %v", calls, status)
			}
		})
	}
}

func TestGetNotAllowed(t *testing.T) {
	s := New(t, Options{})
	resp, err := http.Get(s.URL + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", resp.StatusCode)
	}
}

func TestAzureHeader(t *testing.T) {
	s := New(t, Options{Key: key})
	url := strings.TrimSuffix(s.URL, "/v1") + "/openai/deployments/d1/chat/completions?api-version=2024-06-01"
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(validBody))
	req.Header.Set("api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r := s.Requests()[0]
	if resp.StatusCode != 200 || r.Path != "/openai/deployments/d1/chat/completions" || r.Query != "api-version=2024-06-01" {
		t.Errorf("status %d, recorded %s?%s", resp.StatusCode, r.Path, r.Query)
	}
}

func TestFailures(t *testing.T) {
	t.Run("status with Retry-After", func(t *testing.T) {
		s := New(t, Options{Fail: FailFirst(2, Failure{Status: 429, RetryAfter: "3"})})
		for i, want := range []int{429, 429, 200} {
			resp, body := post(t, s.URL+"/chat/completions", "", validBody)
			if resp.StatusCode != want {
				t.Errorf("call %d: %d, want %d: %s", i+1, resp.StatusCode, want, body)
			}
			if want == 429 && (resp.Header.Get("Retry-After") != "3" || !strings.Contains(string(body), `"code":"rate_limit_exceeded"`)) {
				t.Errorf("call %d: Retry-After %q, body %s", i+1, resp.Header.Get("Retry-After"), body)
			}
		}
		if calls, status := s.Stats(); calls != 3 || status[429] != 2 || status[200] != 1 {
			t.Errorf("stats %d %v", calls, status)
		}
	})
	t.Run("raw body", func(t *testing.T) {
		s := New(t, Options{Fail: FailFirst(1, Failure{Status: 502, Body: "<html>Bad gateway</html>"})})
		resp, body := post(t, s.URL+"/chat/completions", "", validBody)
		if resp.StatusCode != 502 || string(body) != "<html>Bad gateway</html>" {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	})
	t.Run("per call decision sees the request", func(t *testing.T) {
		s := New(t, Options{Fail: func(call int, r Request) *Failure {
			if r.Messages[0].Content == "fail me" {
				return &Failure{Status: 503}
			}
			return nil
		}})
		resp, _ := post(t, s.URL+"/chat/completions", "", `{"model":"m","messages":[{"role":"user","content":"fail me"}]}`)
		resp2, _ := post(t, s.URL+"/chat/completions", "", `{"model":"m","messages":[{"role":"user","content":"fine"}]}`)
		if resp.StatusCode != 503 || resp2.StatusCode != 200 {
			t.Errorf("%d %d", resp.StatusCode, resp2.StatusCode)
		}
	})
	t.Run("closed connection", func(t *testing.T) {
		s := New(t, Options{Fail: FailFirst(1, Failure{CloseConn: true})})
		_, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(validBody))
		if err == nil {
			t.Fatal("no error from a closed connection")
		}
		// The call is counted once the handler returns, which may be just
		// after the client saw the connection drop.
		deadline := time.Now().Add(2 * time.Second)
		for {
			_, status := s.Stats()
			if status[0] == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("status %v", status)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	t.Run("hang until the client gives up", func(t *testing.T) {
		s := New(t, Options{Fail: FailFirst(1, Failure{Hang: true})})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions", strings.NewReader(validBody))
		start := time.Now()
		_, err := http.DefaultClient.Do(req)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want the client's deadline", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("hung for %v", d)
		}
	})
	t.Run("hang ends on Close", func(t *testing.T) {
		s, err := NewServer(Options{Fail: FailFirst(1, Failure{Hang: true})})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(validBody))
			done <- err
		}()
		for calls := 0; calls == 0; calls, _ = s.Stats() {
			time.Sleep(5 * time.Millisecond)
		}
		s.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Close left a hung request open")
		}
	})
}

func TestLatency(t *testing.T) {
	s := New(t, Options{Latency: 150 * time.Millisecond})
	start := time.Now()
	post(t, s.URL+"/chat/completions", "", validBody)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("answered in %v, want at least 150ms", d)
	}
}

func TestRateLimit(t *testing.T) {
	s := New(t, Options{RateLimit: 10, RateBurst: 1})
	var wg sync.WaitGroup
	statuses := make(chan int, 5)
	retryAfter := make(chan string, 5)
	for range 5 {
		wg.Go(func() {
			resp, _ := post(t, s.URL+"/chat/completions", "", validBody)
			statuses <- resp.StatusCode
			if resp.StatusCode == 429 {
				retryAfter <- resp.Header.Get("Retry-After")
			}
		})
	}
	wg.Wait()
	close(statuses)
	close(retryAfter)
	counts := map[int]int{}
	for st := range statuses {
		counts[st]++
	}
	// Five at once against a burst of one: one passes, four are refused.
	if counts[200] != 1 || counts[429] != 4 {
		t.Errorf("statuses %v", counts)
	}
	for ra := range retryAfter {
		if ra != "1" {
			t.Errorf("Retry-After %q, want 1", ra)
		}
	}
	// After a tenth of a second the bucket holds a token again.
	time.Sleep(120 * time.Millisecond)
	if resp, _ := post(t, s.URL+"/chat/completions", "", validBody); resp.StatusCode != 200 {
		t.Errorf("after refilling: %d", resp.StatusCode)
	}
	if _, status := s.Stats(); status[429] != 4 || status[200] != 2 {
		t.Errorf("stats %v", status)
	}
}

func TestNewServerRejects(t *testing.T) {
	if _, err := NewServer(Options{RateLimit: -1}); err == nil {
		t.Error("negative rate accepted")
	}
	if _, err := NewServer(Options{RateBurst: -1}); err == nil {
		t.Error("negative burst accepted")
	}
	if _, err := NewServer(Options{MaxConcurrent: -1}); err == nil {
		t.Error("negative concurrency accepted")
	}
}

func TestMaxConcurrent(t *testing.T) {
	hold := make(chan struct{})
	working := make(chan struct{}, 4)
	s := New(t, Options{MaxConcurrent: 2, Reply: func(Request) Reply {
		working <- struct{}{}
		<-hold
		return Reply{Content: "OK"}
	}})
	statuses := make(chan int, 3)
	for range 2 {
		go func() {
			resp, _ := post(t, s.URL+"/chat/completions", "", validBody)
			statuses <- resp.StatusCode
		}()
	}
	<-working
	<-working
	// Two calls are being answered: a third is refused at once.
	resp, body := post(t, s.URL+"/chat/completions", "", validBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "" || !strings.Contains(string(body), "Concurrency limit reached") {
		t.Errorf("third call: status %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	hold <- struct{}{}
	if st := <-statuses; st != 200 {
		t.Errorf("a held call ended with %d", st)
	}
	// Its place is free as soon as its reply is read.
	go func() {
		resp, _ := post(t, s.URL+"/chat/completions", "", validBody)
		statuses <- resp.StatusCode
	}()
	<-working
	close(hold)
	for range 2 {
		if st := <-statuses; st != 200 {
			t.Errorf("a held call ended with %d", st)
		}
	}
	if _, status := s.Stats(); status[429] != 1 || status[200] != 3 {
		t.Errorf("stats %v", status)
	}
}
