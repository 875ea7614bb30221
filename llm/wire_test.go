package llm

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDecodeAnswer reads the answer shapes providers document, each into
// what benchgate keeps of it.
func TestDecodeAnswer(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		contentType string
		want        answer
		wantErr     string // a substring of the error; "" for none
	}{
		{
			name: "OpenAI: string content, refusal null, token details",
			body: `{"id":"x","object":"chat.completion","model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":"B","refusal":null},"finish_reason":"stop"}],` +
				`"usage":{"prompt_tokens":20,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":16},"completion_tokens_details":{"reasoning_tokens":0}}}`,
			want: answer{content: "B", finish: "stop", model: "gpt-4o-2024-08-06", choices: 1, usage: usage{known: true, prompt: 20, completion: 3, cached: 16}},
		},
		{
			name: "OpenAI: a refusal, content null",
			body: `{"model":"gpt-4o","choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`,
			want: answer{refusal: "I can't help with that.", finish: "stop", model: "gpt-4o", choices: 1},
		},
		{
			name: "Mistral: text and thinking parts",
			body: `{"model":"magistral-medium-2509","choices":[{"message":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Porosity falls "},{"type":"text","text":"with burial."}]},{"type":"text","text":"ANSWER: "},{"type":"text","text":"C"}]},"finish_reason":"stop"}]}`,
			want: answer{content: "ANSWER: C", reasoning: "Porosity falls with burial.", finish: "stop", model: "magistral-medium-2509", choices: 1},
		},
		{
			name: "a thinking part written as a string, a reference part passed over",
			body: `{"choices":[{"message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"reference","reference_ids":[1]},{"type":"text","text":"A"}]},"finish_reason":"stop"}]}`,
			want: answer{content: "A", reasoning: "hmm", finish: "stop", choices: 1},
		},
		{
			name:    "a part benchgate cannot read",
			body:    `{"choices":[{"message":{"content":[{"type":"image_url","image_url":{"url":"x"}}]},"finish_reason":"stop"}]}`,
			wantErr: `content part 0 is of type "image_url"`,
		},
		{
			name:    "content of another kind",
			body:    `{"choices":[{"message":{"content":42},"finish_reason":"stop"}]}`,
			wantErr: "neither a string nor an array of parts",
		},
		{
			name: "DeepSeek: the context cache's hits",
			body: `{"model":"deepseek-chat","choices":[{"message":{"content":"D","reasoning_content":null},"finish_reason":"stop"}],` +
				`"usage":{"prompt_tokens":100,"completion_tokens":5,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}`,
			want: answer{content: "D", finish: "stop", model: "deepseek-chat", choices: 1, usage: usage{known: true, prompt: 100, completion: 5, cached: 64}},
		},
		{
			name:    "more cached tokens than prompt tokens",
			body:    `{"choices":[{"message":{"content":"D"}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"prompt_cache_hit_tokens":64}}`,
			wantErr: "64 cached prompt tokens of 10",
		},
		{
			name: "token counts written with a zero fraction",
			body: `{"choices":[{"message":{"content":"D"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12.0,"completion_tokens":3e0,"prompt_tokens_details":{"cached_tokens":0.0}}}`,
			want: answer{content: "D", finish: "stop", choices: 1, usage: usage{known: true, prompt: 12, completion: 3}},
		},
		{
			name:    "a token count with a fraction",
			body:    `{"choices":[{"message":{"content":"D"}}],"usage":{"prompt_tokens":12.5,"completion_tokens":3}}`,
			wantErr: "a token count is not a whole number: 12.5",
		},
		{
			name:    "a negative count",
			body:    `{"choices":[{"message":{"content":"D"}}],"usage":{"prompt_tokens":-1,"completion_tokens":5}}`,
			wantErr: "negative",
		},
		{
			name: "OpenRouter: an error in the choice beside partial text",
			body: `{"choices":[{"message":{"content":"The burial"},"finish_reason":"error","error":{"code":502,"message":"Upstream error"}}]}`,
			want: answer{content: "The burial", finish: "error", choices: 1, err: &apiError{Code: []byte("502"), Message: "Upstream error"}},
		},
		{
			name:    "not JSON",
			body:    `<html>Bad gateway</html>`,
			wantErr: "not a JSON chat completion",
		},
		{
			name:        "OpenRouter: a stream with keep-alive comments",
			contentType: "text/event-stream; charset=utf-8",
			body: ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n" +
				`data: {"model":"openai/gpt-4o","provider":"OpenAI","choices":[{"delta":{"role":"assistant","content":"ANSWER"},"finish_reason":null}]}` + "\n\n" +
				`data: {"model":"openai/gpt-4o","choices":[{"delta":{"content":": C","reasoning":"because"},"finish_reason":"stop"}]}` + "\n\n" +
				`data: {"model":"openai/gpt-4o","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"cost":0.0001}}` + "\n\n" +
				"data: [DONE]\n\n",
			want: answer{content: "ANSWER: C", reasoning: "because", finish: "stop", model: "openai/gpt-4o", provider: "OpenAI", choices: 1,
				usage: usage{known: true, prompt: 9, completion: 4, cost: new(0.0001)}},
		},
		{
			name: "a stream labelled as JSON, CRLF lines, a multi-line data field",
			body: ": keep-alive\r\n\r\ndata: {\"choices\":[{\"delta\":\r\ndata: {\"content\":\"B\"},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n",
			want: answer{content: "B", finish: "stop", choices: 1},
		},
		{
			name:    "a stream cut before its end",
			body:    "data: {\"choices\":[{\"delta\":{\"content\":\"The bur\"}}]}\n\n",
			wantErr: "without a finish reason or [DONE]",
		},
		{
			name:    "a stream of comments only",
			body:    ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n",
			wantErr: "held no chunk",
		},
		{
			name: "Mistral: model_length is read as length, the native reason kept",
			body: `{"model":"mistral-small-2506","choices":[{"message":{"content":"The burial hist"},"finish_reason":"model_length"}],"usage":{"prompt_tokens":9,"completion_tokens":4}}`,
			want: answer{content: "The burial hist", finish: "length", native: "model_length", model: "mistral-small-2506", choices: 1, usage: usage{known: true, prompt: 9, completion: 4}},
		},
		{
			name: "a finish reason not listed is kept as sent",
			body: `{"choices":[{"message":{"content":"B"},"finish_reason":"eos"}]}`,
			want: answer{content: "B", finish: "eos", choices: 1},
		},
		{
			name: "text-generation-inference: an error that is a string, inside a 200",
			body: `{"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"}`,
			want: answer{err: &apiError{Message: "Request failed during generation: Server error: CUDA out of memory"}},
		},
		{
			name: "an empty error beside a good answer is no error",
			body: `{"choices":[{"message":{"content":"B"},"finish_reason":"stop","error":{}}],"error":""}`,
			want: answer{content: "B", finish: "stop", choices: 1},
		},
		{
			name:        "older vLLM: a stream that failed midway with a top-level error object",
			contentType: "text/event-stream",
			body: `data: {"choices":[{"delta":{"content":"The bur"}}]}` + "\n\n" +
				`data: {"object":"error","message":"The engine died unexpectedly.","type":"InternalServerError","param":null,"code":500}` + "\n\n",
			want: answer{content: "The bur", choices: 1, err: &apiError{Message: "The engine died unexpectedly.", Code: []byte("500")}},
		},
		{
			name: "an error event whose data is plain text, lone CR line endings, labelled as JSON",
			body: "event: message\rdata: {\"choices\":[{\"delta\":{\"content\":\"A\"}}]}\r\revent: error\rdata: upstream timed out\r\r",
			want: answer{content: "A", choices: 1, err: &apiError{Message: "upstream timed out"}},
		},
		{
			name:    "a stream with a chunk that is not JSON",
			body:    "data: {\"choices\":[\n\n",
			wantErr: "event 1 of the stream is not a JSON chunk",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeAnswer([]byte(tt.body), tt.contentType)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !sameAnswer(*got, tt.want) {
				t.Errorf("answer\n got %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func sameAnswer(a, b answer) bool {
	if (a.usage.cost == nil) != (b.usage.cost == nil) || (a.usage.cost != nil && *a.usage.cost != *b.usage.cost) {
		return false
	}
	if (a.err == nil) != (b.err == nil) || (a.err != nil && (a.err.Message != b.err.Message || a.err.status() != b.err.status())) {
		return false
	}
	a.usage.cost, b.usage.cost, a.err, b.err = nil, nil, nil, nil
	return a == b
}

// FuzzDecodeAnswer: any body is read or refused, never a panic, and what
// is read is valid UTF-8 wherever the body was.
func FuzzDecodeAnswer(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"message":{"content":"B","refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
		`{"choices":[{"message":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"x"}]},{"type":"text","text":"A"}]}}]}`,
		`{"choices":[{"message":{"content":null,"refusal":"no"}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_cache_hit_tokens":4}}`,
		": OPENROUTER PROCESSING\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"A\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		`{"error":{"message":"x","code":502}}`,
		`[{"error":{"code":429}}]`,
		`{"choices":[{"message":{"content":"B"},"finish_reason":"model_length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
		`{"error":"Model is overloaded","error_type":"overloaded"}`,
		`{"object":"error","message":"Extra inputs are not permitted","type":"BadRequestError","param":null,"code":400}`,
		`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":0}}`,
		`{"choices":[{"message":{"content":"D"}}],"usage":{"prompt_tokens":12.0,"completion_tokens":1e300}}`,
		`{"detail":[{"loc":["body","provider"],"msg":"Extra inputs are not permitted"}]}`,
		"event: error\r\ndata: upstream timed out\r\n\r\n",
		"event: message\rdata: {\"choices\":[{\"delta\":{\"content\":\"A\"},\"finish_reason\":\"stop\"}]}\r\r",
		"<!DOCTYPE html><html><head><title>502: Bad gateway</title></head></html>",
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "text/event-stream")
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		a, err := decodeAnswer(body, contentType)
		if err != nil {
			if a != nil {
				t.Fatal("an answer beside an error")
			}
			return
		}
		if utf8.Valid(body) && (!utf8.ValidString(a.content) || !utf8.ValidString(a.reasoning)) {
			t.Errorf("invalid UTF-8 read from a valid body")
		}
		if a.usage.known && (a.usage.prompt < 0 || a.usage.completion < 0 || a.usage.cached > a.usage.prompt) {
			t.Errorf("usage %+v", a.usage)
		}
	})
}

// FuzzReadStream: any event stream is read into one answer or refused,
// never a panic; an answer read holds one choice.
func FuzzReadStream(f *testing.F) {
	f.Add(": OPENROUTER PROCESSING\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"A\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"delta\":\r\ndata: {\"content\":\"B\"}}]}\r\n\r\ndata: [DONE]\r\n")
	f.Add("event: x\nid: 1\nretry: 5\ndata: {\"error\":{\"code\":502}}\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"B\"}}]}\n\ndata: {\"object\":\"error\",\"message\":\"died\",\"code\":500}\n\n")
	f.Add("event: error\rdata: upstream timed out\r\r")
	f.Add("data: {\"error\":\"Model is overloaded\",\"error_type\":\"overloaded\"}\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"B\"},\"finish_reason\":\"model_length\"}]}\r\n\r\ndata: [DONE]\r\n")
	f.Fuzz(func(t *testing.T, body string) {
		raw, err := readStream([]byte(body))
		if err != nil {
			return
		}
		if len(raw.Choices) != 1 || raw.Choices[0].Message == nil {
			t.Errorf("read %+v", raw)
		}
	})
}

// TestParseAPIError reads the error bodies providers send into one error
// object, or none.
func TestParseAPIError(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		want       *apiError // its message, type and status are compared
	}{
		{"OpenAI", `{"error":{"message":"Bad key","type":"invalid_request_error","code":"invalid_api_key"}}`, &apiError{Message: "Bad key", Type: "invalid_request_error"}},
		{"Gemini: an array of one", `[{"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED"}}]`, &apiError{Message: "Quota", Code: []byte("429")}},
		{"text-generation-inference: a string and error_type", `{"error":"Model is overloaded","error_type":"overloaded"}`, &apiError{Message: "Model is overloaded", Type: "overloaded"}},
		{"older vLLM: the whole body", `{"object":"error","message":"The model does not exist.","type":"NotFoundError","param":null,"code":404}`,
			&apiError{Message: "The model does not exist.", Type: "NotFoundError", Code: []byte("404")}},
		{"an empty error object", `{"error":{}}`, nil},
		{"FastAPI: a path not served", `{"detail":"Not Found"}`, &apiError{Message: "Not Found"}},
		{"FastAPI: validation errors", `{"detail":[{"type":"extra_forbidden","loc":["body","provider"],"msg":"Extra inputs are not permitted","input":{}},{"loc":[],"msg":"x"}]}`,
			&apiError{Message: "body.provider: Extra inputs are not permitted; x"}},
		{"FastAPI: a detail of another kind", `{"detail":{"a":1}}`, nil},
		{"an HTML page", `<html><title>502</title></html>`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := parseAPIError([]byte(tt.body))
			if (got == nil) != (tt.want == nil) || got != nil && (got.Message != tt.want.Message || got.Type != tt.want.Type || got.status() != tt.want.status()) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDescribeHTML words a gateway's HTML error page by its title, never
// its markup.
func TestDescribeHTML(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{"<!DOCTYPE html>\n<html><head><title>api.example.com | 502: Bad gateway</title></head><body>x</body></html>",
			`HTTP 502 Bad Gateway: an HTML page from a gateway or proxy in front of the endpoint, titled "api.example.com | 502: Bad gateway"`},
		{"<html>\n<head><TITLE>\n 504 Gateway\n Time-out &amp; more </TITLE></head></html>",
			`HTTP 502 Bad Gateway: an HTML page from a gateway or proxy in front of the endpoint, titled "504 Gateway Time-out & more"`},
		{"<html><body><h1>Bad gateway</h1></body></html>", "HTTP 502 Bad Gateway: an HTML page from a gateway or proxy in front of the endpoint"},
		{"upstream connect error", "HTTP 502 Bad Gateway: upstream connect error"},
	} {
		if what, _ := describeStatus(http.StatusBadGateway, parseAPIError([]byte(tt.body)), []byte(tt.body)); what != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.body, what, tt.want)
		}
	}
}

// FuzzDescribeStatus: any failing body is worded, never a panic; the
// public wording holds nothing of the body, and the other is bounded.
func FuzzDescribeStatus(f *testing.F) {
	f.Add(502, []byte("<!DOCTYPE html><html><head><title>502: Bad gateway</title></head></html>"))
	f.Add(422, []byte(`{"error":"Input validation error","error_type":"validation"}`))
	f.Add(400, []byte(`{"object":"error","message":"Extra inputs are not permitted","code":400}`))
	f.Add(429, []byte(`[{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}]`))
	f.Add(503, []byte("<title>"))
	f.Add(422, []byte(`{"detail":[{"loc":["body",0,"provider"],"msg":"Extra inputs are not permitted"}]}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		what, public := describeStatus(status, parseAPIError(body), body)
		if len(what) > 2000 {
			t.Errorf("wording of %d bytes", len(what))
		}
		if utf8.Valid(body) && !utf8.ValidString(what) {
			t.Errorf("invalid UTF-8 from a valid body: %q", what)
		}
		if len(body) > 8 && strings.Contains(public, string(body)) {
			t.Errorf("the public wording %q holds the body", public)
		}
	})
}

// TestRequestID reads the endpoint's id of a request from the header each
// provider names it in, and keeps only what cannot break a message.
func TestRequestID(t *testing.T) {
	for _, tt := range []struct {
		header, value, want string
	}{
		{"x-request-id", "req_0123abc", "req_0123abc"},                                                      // OpenAI, Groq
		{"request-id", "req_018EeWyXxfu5pfWkrYcMdjWG", "req_018EeWyXxfu5pfWkrYcMdjWG"},                      // Anthropic
		{"apim-request-id", "6a1b2c3d-0000-4e5f-9a8b-7c6d5e4f3a2b", "6a1b2c3d-0000-4e5f-9a8b-7c6d5e4f3a2b"}, // Azure
		{"x-request-id", "id) (attempt 9\n", "idattempt9"},
		{"x-other", "x", ""},
	} {
		h := http.Header{}
		h.Set(tt.header, tt.value)
		if got := requestID(h); got != tt.want {
			t.Errorf("%s: %q gives %q, want %q", tt.header, tt.value, got, tt.want)
		}
	}
	if got := requestID(http.Header{"X-Request-Id": {strings.Repeat("a", 500)}}); len(got) != 100 {
		t.Errorf("a long id kept %d bytes", len(got))
	}
	// The id is told for a failure at the endpoint's side, not for a
	// request it refused.
	for _, tt := range []struct {
		status int
		want   bool
	}{{502, true}, {498, true}, {408, true}, {200, true}, {400, false}, {401, false}, {429, false}} {
		a := &attempt{status: tt.status, requestID: "req_1"}
		if got := a.idNote() != ""; got != tt.want {
			t.Errorf("HTTP %d: note %q", tt.status, a.idNote())
		}
	}
}
