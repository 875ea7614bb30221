package fakeopenai

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestVariants checks each variant's answer against the shape its
// provider documents: the status, the Retry-After header, and the JSON
// members that tell the variants apart.
func TestVariants(t *testing.T) {
	reply := Reply{Content: "C", Reasoning: "because", PromptTokens: 10, CompletionTokens: 4, CachedTokens: 6, ReasoningTokens: 3}
	tests := []struct {
		v          Variant
		body       string // the request
		status     int
		retryAfter string
		header     map[string]string // other headers the answer carries
		has        []string          // substrings of the answer
		hasNot     []string
		html       bool // the answer is an HTML page, not JSON
	}{
		{v: OpenAI, status: 200, has: []string{`"content":"C"`, `"refusal":null`, `"prompt_tokens_details":{"cached_tokens":6}`, `"completion_tokens_details":{"reasoning_tokens":3}`}, hasNot: []string{`"reasoning"`}},
		{v: OpenRouterReasoning, status: 200, has: []string{`"reasoning":"because"`, `"provider":"OpenAI"`, `"cached_tokens":6`}, hasNot: []string{`"reasoning_content"`}},
		{v: VLLMReasoning, status: 200, has: []string{`"reasoning":"because"`}, hasNot: []string{`"reasoning_content"`, `"prompt_tokens_details"`}},
		{v: VLLMReasoningContent, status: 200, has: []string{`"reasoning_content":"because"`}, hasNot: []string{`"reasoning":`}},
		{v: VLLMNoParser, status: 200, has: []string{`"content":"\u003cthink\u003e\nbecause\n\u003c/think\u003e\n\nC"`}, hasNot: []string{`"reasoning`}},
		{v: Ollama, status: 200, has: []string{`"reasoning":"because"`, `"system_fingerprint":"fp_ollama"`}, hasNot: []string{`"prompt_tokens_details"`}},
		{v: NoUsage, status: 200, has: []string{`"content":"C"`}, hasNot: []string{`"usage"`}},
		{v: AzureContentFilterCompletion, status: 200, has: []string{`"finish_reason":"content_filter"`, `"content_filter_results"`}},
		{v: MistralThinking, status: 200, has: []string{`"content":[{"thinking":[{"text":"because","type":"text"}],"type":"thinking"},{"text":"C","type":"text"}]`}, hasNot: []string{`"reasoning`, `"prompt_tokens_details"`}},
		{v: OpenAIRefusal, status: 200, has: []string{`"content":null`, `"refusal":"I'm sorry, but I can't help with that request."`, `"finish_reason":"stop"`}},
		{v: DeepSeek, status: 200, has: []string{`"reasoning_content":"because"`, `"prompt_cache_hit_tokens":6`, `"prompt_cache_miss_tokens":4`}, hasNot: []string{`"prompt_tokens_details"`}},
		{v: OpenRouterErrorInChoice, status: 200, has: []string{`"finish_reason":"error"`, `"error":{"code":502`, `"content":"The burial history sugg"`}},
		{v: OpenRouterErrorTopLevel, status: 200, has: []string{`"finish_reason":"error"`, `"choices":[`}},
		{v: AzureContentFilterPrompt, status: 400, has: []string{`"code":"content_filter"`, `"innererror"`}},
		{v: OpenRouterNoCredits, status: 402, has: []string{`"code":402`, `Insufficient credits`}},
		{v: OpenRouterBudgetRetryAfter, status: 402, retryAfter: "3", has: []string{`"code":402`}},
		{v: OpenAIInsufficientQuota, status: 429, has: []string{`"code":"insufficient_quota"`, `"type":"insufficient_quota"`}},
		{v: OSeriesMaxTokens, status: 400, body: `{"model":"o3","messages":[{"role":"user","content":"q"}],"max_tokens":5}`, has: []string{`"param":"max_tokens"`, `"code":"unsupported_parameter"`}},
		{v: OSeriesMaxTokens, status: 200, body: `{"model":"o3","messages":[{"role":"user","content":"q"}],"max_completion_tokens":5}`},
		{v: GPT5Temperature, status: 400, body: `{"model":"gpt-5","messages":[{"role":"user","content":"q"}],"temperature":0}`, has: []string{`"param":"temperature"`, `does not support 0`}},
		{v: GPT5Temperature, status: 200, body: `{"model":"gpt-5","messages":[{"role":"user","content":"q"}],"temperature":1}`},
		{v: AzureRetryAfterMS, status: 429, retryAfter: "2", header: map[string]string{"retry-after-ms": "1500"}, has: []string{`"code":"429"`}},
		{v: OpenAIRateLimitReset, status: 429, header: map[string]string{"x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "20ms"}, has: []string{`"code":"rate_limit_exceeded"`}},
		{v: GroqFlexCapacity, status: 498, has: []string{`"code":"capacity_exceeded"`}},
		{v: GeminiRetryInfo, status: 429, has: []string{`[{"error":{`, `"status":"RESOURCE_EXHAUSTED"`, `"retryDelay":"3s"`, `"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"`}},
		{v: GeminiDailyQuota, status: 429, has: []string{`"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"`, `google.rpc.QuotaFailure`}},
		{v: OpenRouterNoEndpoints, status: 404, has: []string{`"code":404`, `No endpoints found`}},
		{v: OpenAIUnknownField, status: 400, body: `{"model":"m","messages":[{"role":"user","content":"q"}],"provider":{"order":["x"]}}`, has: []string{`"param":"provider"`, `"code":"unknown_parameter"`}},
		{v: OpenAIUnknownField, status: 200, body: `{"model":"m","messages":[{"role":"user","content":"q"}],"seed":1,"service_tier":"flex"}`},
		{v: MistralModelLength, status: 200, has: []string{`"finish_reason":"model_length"`, `"content":"C"`}, hasNot: []string{`"prompt_tokens_details"`}},
		{v: TGIValidation, status: 422, has: []string{`"error":"Input validation error: `, `"error_type":"validation"`}, hasNot: []string{`"error":{`}},
		{v: VLLMTopLevelError, status: 400, body: `{"model":"m","messages":[{"role":"user","content":"q"}],"provider":{"order":["x"]}}`,
			has: []string{`"object":"error"`, `Extra inputs are not permitted`, `"code":400`}, hasNot: []string{`"error":{`}},
		{v: VLLMTopLevelError, status: 200, body: `{"model":"m","messages":[{"role":"user","content":"q"}],"seed":1}`},
		{v: CerebrasTokensMinute, status: 429, header: map[string]string{"x-ratelimit-remaining-tokens-minute": "0", "x-ratelimit-reset-tokens-minute": "11.382867097854614",
			"x-ratelimit-remaining-requests-day": "14000", "x-ratelimit-reset-requests-day": "33011.382867097855"}},
		{v: CerebrasRequestsDay, status: 429, header: map[string]string{"x-ratelimit-remaining-requests-day": "0", "x-ratelimit-remaining-tokens-minute": "59000"}},
		{v: GatewayHTML, status: 502, html: true, has: []string{"<title>api.example.com | 502: Bad gateway</title>"}},
		{v: OpenRouterFreeDaily, status: 429, has: []string{`free-models-per-day`, `"X-RateLimit-Remaining":"0"`, `"X-RateLimit-Reset":"1`}},
		{v: OpenRouterFreeMinute, status: 429, has: []string{`free-models-per-min`, `"X-RateLimit-Limit":"20"`}},
	}
	for _, tt := range tests {
		t.Run(string(tt.v)+" "+tt.body, func(t *testing.T) {
			s := New(t, Options{Variant: tt.v, Reply: func(Request) Reply { return reply }})
			body := tt.body
			if body == "" {
				body = `{"model":"m","messages":[{"role":"user","content":"q"}]}`
			}
			resp, got := post(t, s.URL+"/chat/completions", "", body)
			if resp.StatusCode != tt.status || resp.Header.Get("Retry-After") != tt.retryAfter {
				t.Errorf("status %d Retry-After %q, want %d %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), tt.status, tt.retryAfter, got)
			}
			for k, v := range tt.header {
				if resp.Header.Get(k) != v {
					t.Errorf("header %s %q, want %q", k, resp.Header.Get(k), v)
				}
			}
			wantType := "application/json"
			if tt.html {
				wantType = "text/html; charset=UTF-8"
			} else if !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
			if ct := resp.Header.Get("Content-Type"); ct != wantType {
				t.Errorf("Content-Type %q, want %q", ct, wantType)
			}
			for _, h := range tt.has {
				if !strings.Contains(string(got), h) {
					t.Errorf("answer lacks %s: %s", h, got)
				}
			}
			for _, h := range tt.hasNot {
				if strings.Contains(string(got), h) {
					t.Errorf("answer has %s: %s", h, got)
				}
			}
		})
	}
	// A failure variant limited to the first call lets the second through.
	s := New(t, Options{Variant: OpenRouterNoCredits, VariantCalls: 1})
	for i, want := range []int{402, 200} {
		if resp, _ := post(t, s.URL+"/chat/completions", "", `{"model":"m","messages":[{"role":"user","content":"q"}]}`); resp.StatusCode != want {
			t.Errorf("call %d: status %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	if _, err := NewServer(Options{Variant: "openrouter"}); err == nil {
		t.Error("an unknown variant was accepted")
	}
}

// TestStreamVariant checks OpenRouterStream's answer: an event stream of
// comments, chunks and [DONE], whose deltas add up to the reply.
func TestStreamVariant(t *testing.T) {
	s := New(t, Options{Variant: OpenRouterStream, Reply: func(Request) Reply {
		return Reply{Content: "ANSWER: é C", Reasoning: "because", PromptTokens: 10, CompletionTokens: 4}
	}})
	resp, got := post(t, s.URL+"/chat/completions", "", `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	body := string(got)
	if !strings.HasPrefix(body, ": OPENROUTER PROCESSING\n\n") || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("stream:\n%s", body)
	}
	var content, reasoning, finish string
	usage := false
	for _, ev := range strings.Split(strings.TrimSpace(body), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					Reasoning string `json:"reasoning"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %s: %v", data, err)
		}
		for _, ch := range c.Choices {
			content += ch.Delta.Content
			reasoning += ch.Delta.Reasoning
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
		usage = usage || (c.Usage != nil && c.Usage.PromptTokens == 10)
	}
	if content != "ANSWER: é C" || reasoning != "because" || finish != "stop" || !usage {
		t.Errorf("content %q reasoning %q finish %q usage %v", content, reasoning, finish, usage)
	}
}
