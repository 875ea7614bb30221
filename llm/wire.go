package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// This file is the wire format: the request body benchgate sends, and the
// answer bodies providers send back, decoded once into raw types that hold
// what any of them may send, checked, and converted into an answer.

// chatBody is the body of a chat completion request. Every optional field
// is a pointer or omitted when empty, so that a zero that was asked for
// (temperature 0, seed 0) is sent and one that was not is not.
type chatBody struct {
	Model               string           `json:"model"`
	Messages            []wireMessage    `json:"messages"`
	Temperature         *float64         `json:"temperature,omitempty"`
	TopP                *float64         `json:"top_p,omitempty"`
	Seed                *int             `json:"seed,omitempty"`
	MaxTokens           *int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int             `json:"max_completion_tokens,omitempty"`
	ResponseFormat      *responseFormat  `json:"response_format,omitempty"`
	ReasoningEffort     string           `json:"reasoning_effort,omitempty"`
	Reasoning           *reasoningObject `json:"reasoning,omitempty"`
	ServiceTier         string           `json:"service_tier,omitempty"`
	Provider            *providerRouting `json:"provider,omitempty"`
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type string `json:"type"`
}

// reasoningObject is OpenRouter's reasoning request
// (https://openrouter.ai/docs/guides/best-practices/reasoning-tokens).
type reasoningObject struct {
	Effort string `json:"effort"`
}

// providerRouting is OpenRouter's provider routing
// (https://openrouter.ai/docs/guides/routing/provider-selection).
type providerRouting struct {
	AllowFallbacks bool     `json:"allow_fallbacks"`
	Order          []string `json:"order"`
}

// rawAnswer is a 200 answer's body, or one chunk of a streamed one, as
// providers send it. Nothing is assumed present.
type rawAnswer struct {
	Model    string      `json:"model"`    // the model that served the call
	Provider string      `json:"provider"` // OpenRouter's: who served it
	Choices  []rawChoice `json:"choices"`
	Usage    *rawUsage   `json:"usage"`
	Error    *apiError   `json:"error"`

	// An error object that is the whole body, as vLLM sent it before it
	// wrapped it in "error": object "error" beside message, type and
	// code (see topLevelError).
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// topLevelError is the error object that is the whole body, or nil: vLLM
// before 0.9 answered a failure, and a stream that failed midway, with
// {"object": "error", "message": ..., "type": ..., "code": 400} and no
// "error" member (https://github.com/vllm-project/vllm/issues/4667).
func (r *rawAnswer) topLevelError() *apiError {
	if r.Object != "error" || r.Message == "" {
		return nil
	}
	return &apiError{Message: r.Message, Type: r.Type, Code: r.Code}
}

type rawChoice struct {
	Message      *rawMessage `json:"message"`
	Delta        *rawMessage `json:"delta"` // in a streamed chunk
	FinishReason *string     `json:"finish_reason"`
	Error        *apiError   `json:"error"` // OpenRouter's provider failure after it began
}

type rawMessage struct {
	Content rawContent `json:"content"`
	// Refusal is OpenAI's: the model declined, and says so here instead
	// of in the content
	// (https://platform.openai.com/docs/guides/structured-outputs#refusals).
	Refusal *string `json:"refusal"`
	// The reasoning beside the answer: "reasoning" from OpenRouter,
	// vLLM 0.11 and later, and Ollama; "reasoning_content" from older
	// vLLM and DeepSeek
	// (https://docs.vllm.ai/en/stable/features/reasoning_outputs/).
	Reasoning        *string `json:"reasoning"`
	ReasoningContent *string `json:"reasoning_content"`
}

// rawContent is a message's content: a string, null, or an array of
// parts. Mistral's reasoning models send text parts beside thinking parts,
// whose thinking is itself an array of text parts
// (https://docs.mistral.ai/capabilities/reasoning/); text parts make the
// content, thinking parts the reasoning, and reference parts (Mistral's
// citations) are passed over. A part of any other type is an error: it
// would be an answer benchgate cannot read.
type rawContent struct {
	Text     string
	Thinking string
}

func (c *rawContent) UnmarshalJSON(data []byte) error {
	*c = rawContent{}
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		return nil
	case len(data) > 0 && data[0] == '"':
		return json.Unmarshal(data, &c.Text)
	case len(data) == 0 || data[0] != '[':
		return errors.New("content is neither a string nor an array of parts")
	}
	var parts []rawPart
	if err := json.Unmarshal(data, &parts); err != nil {
		return fmt.Errorf("content parts: %w", err)
	}
	var text, thinking strings.Builder
	for i, p := range parts {
		switch p.Type {
		case "text":
			if p.Text == nil {
				return fmt.Errorf("content part %d, of type text, has no text", i)
			}
			text.WriteString(*p.Text)
		case "thinking":
			s, err := p.thinking()
			if err != nil {
				return fmt.Errorf("content part %d: %w", i, err)
			}
			thinking.WriteString(s)
		case "reference":
		default:
			return fmt.Errorf("content part %d is of type %q, which is neither text nor thinking", i, clip(p.Type))
		}
	}
	c.Text, c.Thinking = text.String(), thinking.String()
	return nil
}

type rawPart struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

// thinking is a thinking part's text: an array of text parts, or a string.
func (p rawPart) thinking() (string, error) {
	var s string
	if json.Unmarshal(p.Thinking, &s) == nil {
		return s, nil
	}
	var inner []rawPart
	if err := json.Unmarshal(p.Thinking, &inner); err != nil {
		return "", errors.New("a thinking part's thinking is neither a string nor an array of text parts")
	}
	var b strings.Builder
	for _, q := range inner {
		if q.Type != "text" || q.Text == nil {
			return "", fmt.Errorf("a thinking part holds a part of type %q, not text", clip(q.Type))
		}
		b.WriteString(*q.Text)
	}
	return b.String(), nil
}

// rawUsage is usage as OpenAI, OpenRouter and DeepSeek report it.
type rawUsage struct {
	PromptTokens        *tokenCount     `json:"prompt_tokens"`
	CompletionTokens    *tokenCount     `json:"completion_tokens"`
	Cost                json.RawMessage `json:"cost"` // OpenRouter's, in USD
	PromptTokensDetails *struct {
		CachedTokens *tokenCount `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens *tokenCount `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// DeepSeek's context cache: prompt_tokens is their sum
	// (https://api-docs.deepseek.com/guides/kv_cache).
	PromptCacheHitTokens  *tokenCount `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens *tokenCount `json:"prompt_cache_miss_tokens"`
}

// tokenCount is a token count: a JSON number that is whole, written as an
// integer or with a zero fraction (12.0), as servers whose usage passes
// through a float type send it. A fraction proper is an error.
type tokenCount int

func (n *tokenCount) UnmarshalJSON(data []byte) error {
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("a token count is not a number: %s", clip(string(data)))
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return fmt.Errorf("a token count is not a whole number: %s", clip(string(data)))
	}
	*n = tokenCount(f)
	return nil
}

// apiError is an OpenAI-style error object, as OpenAI, Azure, vLLM,
// Ollama and OpenRouter send it, at the top of a failing answer or, from
// OpenRouter, inside a 200 one. Its code is a string (OpenAI's
// "insufficient_quota") or a number (OpenRouter's HTTP status). Gemini's
// OpenAI compatibility adds status and details (see geminiDetails).
// Hugging Face's text-generation-inference sends the error as a string,
// its message, with error_type beside it
// (https://huggingface.co/docs/text-generation-inference/messages_api):
// see UnmarshalJSON.
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Param   string          `json:"param"`
	Code    json.RawMessage `json:"code"`
	// Status is Gemini's gRPC status name, such as RESOURCE_EXHAUSTED,
	// or Azure's HTTP status as a number.
	Status  json.RawMessage `json:"status"`
	Details json.RawMessage `json:"details"` // Gemini's google.rpc details
	// Metadata is OpenRouter's: for a rate limit, the limit's headers,
	// such as X-RateLimit-Reset (see headers).
	Metadata json.RawMessage `json:"metadata"`
}

// headers are the rate-limit headers OpenRouter puts in an error's
// metadata instead of the answer's, as its 429 for the free models' daily
// limit does: {"headers": {"X-RateLimit-Limit": "50",
// "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1741305600000"}}
// (https://openrouter.ai/docs/api/reference/limits). Nil when none.
func (e *apiError) headers() http.Header {
	if e == nil || len(e.Metadata) == 0 {
		return nil
	}
	var m struct {
		Headers map[string]any `json:"headers"`
	}
	if json.Unmarshal(e.Metadata, &m) != nil || len(m.Headers) == 0 {
		return nil
	}
	h := http.Header{}
	for k, v := range m.Headers {
		switch v := v.(type) {
		case string:
			h.Set(k, v)
		case float64:
			h.Set(k, strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	return h
}

// UnmarshalJSON reads an error object, or a string that is its message.
func (e *apiError) UnmarshalJSON(data []byte) error {
	var msg string
	if json.Unmarshal(data, &msg) == nil {
		*e = apiError{Message: msg}
		return nil
	}
	type object apiError // without this method
	return json.Unmarshal(data, (*object)(e))
}

// blank reports whether an error says nothing at all, as an "error": ""
// or {} beside a good answer does.
func (e *apiError) blank() bool {
	return e.Message == "" && e.Type == "" && e.Param == "" && len(e.Code) == 0 && len(e.Status) == 0 && len(e.Details) == 0 && len(e.Metadata) == 0
}

// code is the error's code as a string.
func (e *apiError) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(e.Code))
}

// status is the HTTP status a numeric code names, or 0.
func (e *apiError) status() int {
	var n float64
	if json.Unmarshal(e.Code, &n) == nil && n >= 400 && n < 600 && n == math.Trunc(n) {
		return int(n)
	}
	return 0
}

// parseAPIError reads the error object of a failing answer, or nil: in
// the body's "error" member (a string there is its message, with
// text-generation-inference's error_type beside it), in a one-element
// array of such bodies (Gemini), as the whole body (older vLLM), or from
// FastAPI's "detail" (see detailError).
func parseAPIError(body []byte) *apiError {
	type wrapped struct {
		rawAnswer
		ErrorType string          `json:"error_type"`
		Detail    json.RawMessage `json:"detail"`
	}
	pick := func(b wrapped) *apiError {
		e := b.Error
		if e == nil || e.blank() {
			if top := b.topLevelError(); top != nil {
				return top
			}
			return detailError(b.Detail)
		}
		if e.Type == "" {
			e.Type = b.ErrorType
		}
		return e
	}
	var b wrapped
	if json.Unmarshal(body, &b) == nil {
		return pick(b)
	}
	var list []wrapped
	if json.Unmarshal(body, &list) == nil && len(list) > 0 {
		return pick(list[0])
	}
	return nil
}

// detailError reads FastAPI's error body's detail, or returns nil: a
// string, such as the "Not Found" of a path the server does not serve
// (a base URL without /v1, say), or a list of validation errors, each
// with its loc and msg
// (https://fastapi.tiangolo.com/tutorial/handling-errors/). Servers built
// on FastAPI, vLLM and SGLang among them, answer so for what their own
// handlers never see.
func detailError(raw json.RawMessage) *apiError {
	if len(raw) == 0 {
		return nil
	}
	var msg string
	if json.Unmarshal(raw, &msg) == nil {
		if msg == "" {
			return nil
		}
		return &apiError{Message: msg}
	}
	var list []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var parts []string
	for _, d := range list {
		if d.Msg == "" {
			continue
		}
		loc := make([]string, len(d.Loc))
		for i, l := range d.Loc {
			loc[i] = fmt.Sprint(l)
		}
		if len(loc) == 0 {
			parts = append(parts, d.Msg)
			continue
		}
		parts = append(parts, strings.Join(loc, ".")+": "+d.Msg)
	}
	if len(parts) == 0 {
		return nil
	}
	return &apiError{Message: strings.Join(parts, "; ")}
}

// answer is a 200 answer, checked and converted: what benchgate reads.
type answer struct {
	content   string
	reasoning string
	refusal   string
	finish    string // in OpenAI's words (see finishReasons)
	native    string // the finish reason as sent, when it is not OpenAI's
	model     string // as served; "" when the answer did not say
	provider  string
	usage     usage
	err       *apiError // an error reported inside the answer
	choices   int
}

// usage is an answer's usage; known reports that it gave both counts.
type usage struct {
	known      bool
	prompt     int
	completion int
	cached     int // of prompt, read from a cache
	reasoning  int // of completion
	cost       *float64
}

// decodeAnswer reads a 200 answer's body: JSON, or a server-sent event
// stream (see readStream) when the content type or the body says so.
func decodeAnswer(body []byte, contentType string) (*answer, error) {
	if isStream(body, contentType) {
		raw, err := readStream(body)
		if err != nil {
			return nil, err
		}
		return raw.convert()
	}
	var raw rawAnswer
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON chat completion: %w", err)
	}
	return raw.convert()
}

// finishReasons are the finish reasons other servers send for what
// OpenAI calls by another name, in OpenAI's words, which the rest of
// benchgate reads: "length" is an answer cut short, to be failed or
// flagged, never graded as complete. A reason not listed is kept as sent.
var finishReasons = map[string]string{
	// Mistral: the model's context window, not max_tokens, ran out
	// (https://docs.mistral.ai/api/, ChatCompletionChoice.finish_reason).
	"model_length": "length",
}

// convert checks a raw answer and converts it.
func (r *rawAnswer) convert() (*answer, error) {
	if r.Error != nil && r.Error.blank() {
		r.Error = nil
	}
	if r.Error == nil {
		r.Error = r.topLevelError()
	}
	a := &answer{model: r.Model, provider: r.Provider, err: r.Error, choices: len(r.Choices)}
	if len(r.Choices) > 0 {
		ch := r.Choices[0]
		if a.err == nil && ch.Error != nil && !ch.Error.blank() {
			a.err = ch.Error
		}
		if ch.FinishReason != nil {
			a.finish = *ch.FinishReason
			if std, ok := finishReasons[a.finish]; ok {
				a.finish, a.native = std, a.finish
			}
		}
		if m := ch.Message; m != nil {
			a.content = m.Content.Text
			switch {
			case m.Reasoning != nil && *m.Reasoning != "":
				a.reasoning = *m.Reasoning
			case m.ReasoningContent != nil && *m.ReasoningContent != "":
				a.reasoning = *m.ReasoningContent
			default:
				a.reasoning = m.Content.Thinking
			}
			if m.Refusal != nil {
				a.refusal = *m.Refusal
			}
		} else if a.err == nil {
			return nil, errors.New("the first choice has no message")
		}
	}
	if r.Usage != nil {
		u, err := r.Usage.convert()
		if err != nil {
			return nil, err
		}
		a.usage = u
	}
	return a, nil
}

func (u *rawUsage) convert() (usage, error) {
	var out usage
	for name, n := range map[string]*tokenCount{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
		"prompt_cache_hit_tokens": u.PromptCacheHitTokens, "prompt_cache_miss_tokens": u.PromptCacheMissTokens} {
		if n != nil && *n < 0 {
			return usage{}, fmt.Errorf("usage.%s is negative (%d)", name, *n)
		}
	}
	if u.PromptTokens != nil && u.CompletionTokens != nil {
		out.known, out.prompt, out.completion = true, int(*u.PromptTokens), int(*u.CompletionTokens)
	}
	switch {
	case u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil:
		out.cached = int(*u.PromptTokensDetails.CachedTokens)
	case u.PromptCacheHitTokens != nil:
		out.cached = int(*u.PromptCacheHitTokens)
	}
	if u.CompletionTokensDetails != nil && u.CompletionTokensDetails.ReasoningTokens != nil {
		out.reasoning = int(*u.CompletionTokensDetails.ReasoningTokens)
	}
	if out.cached < 0 || out.reasoning < 0 {
		return usage{}, errors.New("usage has a negative token count in its details")
	}
	if out.known && out.cached > out.prompt {
		return usage{}, fmt.Errorf("usage counts %d cached prompt tokens of %d", out.cached, out.prompt)
	}
	if len(u.Cost) > 0 {
		var cost float64
		if json.Unmarshal(u.Cost, &cost) == nil && cost >= 0 {
			out.cost = &cost
		}
	}
	return out, nil
}
