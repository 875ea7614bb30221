package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Variant makes the server answer as one provider documents it, where
// providers differ from OpenAI's chat completions reference
// (https://platform.openai.com/docs/api-reference/chat/object). A reply
// variant shapes every successful answer; a failure variant answers the
// first Options.VariantCalls calls (every call when 0) with its failure,
// after the key, the body and the rate limit have been checked, and
// before Options.Fail is consulted.
type Variant string

// The variants. Reply variants:
const (
	// OpenAI is OpenAI's own shape: no reasoning text, the token
	// breakdown in usage.prompt_tokens_details.cached_tokens and
	// usage.completion_tokens_details.reasoning_tokens
	// (https://platform.openai.com/docs/api-reference/chat/object).
	OpenAI Variant = ""

	// OpenRouterReasoning carries the reasoning text in
	// message.reasoning, who served the call in the top-level provider,
	// and the cost in usage.cost beside OpenAI's token breakdown
	// (https://openrouter.ai/docs/guides/best-practices/reasoning-tokens,
	// https://openrouter.ai/docs/guides/guides/usage-accounting).
	OpenRouterReasoning Variant = "openrouter-reasoning"

	// VLLMReasoning is vLLM 0.11 and later with a --reasoning-parser: the
	// reasoning in message.reasoning, usage without a breakdown
	// (https://docs.vllm.ai/en/stable/features/reasoning_outputs/).
	VLLMReasoning Variant = "vllm-reasoning"

	// VLLMReasoningContent is vLLM before 0.11 with a --reasoning-parser,
	// and DeepSeek's API: the reasoning in message.reasoning_content
	// (https://docs.vllm.ai/en/v0.10.0/features/reasoning_outputs.html).
	VLLMReasoningContent Variant = "vllm-reasoning-content"

	// VLLMNoParser is vLLM serving a reasoning model without a
	// --reasoning-parser: the thinking stays in the content, between
	// <think> and </think>.
	VLLMNoParser Variant = "vllm-no-parser"

	// Ollama is Ollama's OpenAI compatibility layer: the reasoning of a
	// thinking model in message.reasoning, usage with the two counts only,
	// system_fingerprint "fp_ollama"
	// (https://docs.ollama.com/api/openai-compatibility).
	Ollama Variant = "ollama"

	// NoUsage answers without a usage object, as some self-hosted
	// servers and proxies do.
	NoUsage Variant = "no-usage"

	// AzureContentFilterCompletion is Azure OpenAI's answer whose
	// completion its content filter cut: a 200 with finish_reason
	// "content_filter" and the choice's content_filter_results
	// (https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter).
	AzureContentFilterCompletion Variant = "azure-content-filter-completion"

	// MistralThinking is Mistral's reasoning models (Magistral, and
	// Mistral Small and Medium with reasoning_effort): the content is an
	// array of chunks, a "thinking" chunk whose thinking is itself an array
	// of text chunks, then "text" chunks with the answer; usage without a
	// breakdown (https://docs.mistral.ai/capabilities/reasoning/).
	MistralThinking Variant = "mistral-thinking"

	// OpenRouterStream answers every call, asked for a stream or not, as
	// a server-sent event stream: ": OPENROUTER PROCESSING" comment lines
	// to keep the connection alive, chat.completion.chunk events whose
	// deltas carry the content and the reasoning, the finish reason in the
	// last choice chunk, the usage in a chunk of its own, then
	// "data: [DONE]" (https://openrouter.ai/docs/api/reference/streaming).
	OpenRouterStream Variant = "openrouter-stream"

	// OpenAIRefusal is OpenAI's answer when the model declines: content
	// null and the refusal in message.refusal, finish_reason "stop"
	// (https://platform.openai.com/docs/guides/structured-outputs#refusals).
	// Every call is refused with Reply.Refusal, or a stock sentence.
	OpenAIRefusal Variant = "openai-refusal"

	// DeepSeek is DeepSeek's API: the reasoning of deepseek-reasoner in
	// message.reasoning_content, and its context cache's hits and misses
	// in usage.prompt_cache_hit_tokens and usage.prompt_cache_miss_tokens,
	// which add up to prompt_tokens; Reply.CachedTokens are the hits
	// (https://api-docs.deepseek.com/guides/kv_cache,
	// https://api-docs.deepseek.com/guides/reasoning_model).
	DeepSeek Variant = "deepseek"

	// MistralModelLength is Mistral's answer cut short because the
	// model's context window, not max_tokens, ran out: finish_reason
	// "model_length", one of the values its API reference lists beside
	// OpenAI's "stop" and "length" (https://docs.mistral.ai/api/,
	// ChatCompletionChoice). Usage without a breakdown.
	MistralModelLength Variant = "mistral-model-length"
)

// Failure variants:
const (
	// OpenRouterErrorInChoice is OpenRouter's 200 for a provider that
	// failed after it began: the partial text, finish_reason "error" and
	// choices[0].error with the status as a number
	// (https://openrouter.ai/docs/api/reference/errors-and-debugging).
	OpenRouterErrorInChoice Variant = "openrouter-error-in-choice"

	// OpenRouterErrorTopLevel is the same failure reported as a
	// top-level error object beside the partial choice.
	OpenRouterErrorTopLevel Variant = "openrouter-error-top-level"

	// AzureContentFilterPrompt is Azure OpenAI's 400 for a prompt its
	// content filter refused: code "content_filter"
	// (https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter).
	AzureContentFilterPrompt Variant = "azure-content-filter-prompt"

	// OpenRouterNoCredits is OpenRouter's 402 for an account or key out
	// of credits, without Retry-After
	// (https://openrouter.ai/docs/api/reference/errors-and-debugging).
	OpenRouterNoCredits Variant = "openrouter-402"

	// OpenRouterBudgetRetryAfter is OpenRouter's 402 with Retry-After:
	// the key's budget is held by calls in flight, and frees when they end
	// (https://openrouter.ai/docs/api/reference/limits).
	OpenRouterBudgetRetryAfter Variant = "openrouter-402-retry-after"

	// OpenAIInsufficientQuota is OpenAI's 429 for a spent quota, a
	// billing error that no wait cures: code "insufficient_quota"
	// (https://platform.openai.com/docs/guides/error-codes).
	OpenAIInsufficientQuota Variant = "openai-insufficient-quota"

	// OSeriesMaxTokens is OpenAI's and Azure's 400 for max_tokens sent to
	// an o-series or GPT-5 model, which takes only max_completion_tokens
	// (https://platform.openai.com/docs/api-reference/chat/create).
	// Requests without max_tokens are answered.
	OSeriesMaxTokens Variant = "o-series-max-tokens"

	// GPT5Temperature is OpenAI's 400 for a temperature other than the
	// default 1 sent to a GPT-5-class reasoning model. Requests without
	// one are answered.
	GPT5Temperature Variant = "gpt5-temperature"

	// AzureRetryAfterMS is Azure OpenAI's 429, which says how long to
	// wait both in retry-after (whole seconds, here 2) and, more finely,
	// in retry-after-ms (here 1500)
	// (https://learn.microsoft.com/azure/ai-foundry/openai/how-to/quota).
	AzureRetryAfterMS Variant = "azure-retry-after-ms"

	// OpenAIRateLimitReset is OpenAI's 429 without Retry-After: the
	// x-ratelimit-reset-requests (here "1s") and x-ratelimit-reset-tokens
	// (here "20ms") headers say when each limit is back, as durations
	// (https://platform.openai.com/docs/guides/rate-limits). Groq sends
	// the same headers (https://console.groq.com/docs/rate-limits).
	OpenAIRateLimitReset Variant = "openai-ratelimit-reset"

	// GroqFlexCapacity is Groq's 498: the flex service tier is out of
	// capacity for the moment, a transient failure
	// (https://console.groq.com/docs/flex-processing).
	GroqFlexCapacity Variant = "groq-498"

	// GeminiRetryInfo is Gemini's 429 through its OpenAI compatibility: a
	// JSON array holding one error object, status RESOURCE_EXHAUSTED, whose
	// details are a per-minute QuotaFailure and a RetryInfo with
	// retryDelay "3s"
	// (https://ai.google.dev/gemini-api/docs/troubleshooting,
	// https://ai.google.dev/gemini-api/docs/rate-limits).
	GeminiRetryInfo Variant = "gemini-retry-info"

	// GeminiDailyQuota is the same 429 for a per-day quota: its
	// QuotaFailure's quotaId is GenerateRequestsPerDayPerProjectPerModel,
	// which resets at midnight Pacific time
	// (https://ai.google.dev/gemini-api/docs/rate-limits).
	GeminiDailyQuota Variant = "gemini-daily-quota"

	// OpenRouterNoEndpoints is OpenRouter's 404 when no provider serves
	// the model under the request's provider routing and the account's
	// settings
	// (https://openrouter.ai/docs/guides/routing/provider-selection).
	OpenRouterNoEndpoints Variant = "openrouter-no-endpoints"

	// OpenAIUnknownField is OpenAI's 400 for a body field it does not
	// take, such as OpenRouter's provider or reasoning: code
	// unknown_parameter, the field in param
	// (https://platform.openai.com/docs/guides/error-codes). Requests
	// with only documented fields are answered.
	OpenAIUnknownField Variant = "openai-unknown-field"

	// TGIValidation is Hugging Face text-generation-inference's 422 for a
	// request it cannot serve, such as a prompt longer than the model
	// takes: the error is a string, its message, with error_type
	// "validation" beside it, not an error object
	// (https://huggingface.co/docs/text-generation-inference/messages_api).
	TGIValidation Variant = "tgi-validation"

	// VLLMTopLevelError is vLLM's 400, before it wrapped errors in an
	// "error" member, for a body field it does not take: the error object
	// is the whole body, object "error", the pydantic complaint in
	// message, code 400 as a number
	// (https://github.com/vllm-project/vllm/issues/4667 shows the shape).
	// Requests with only OpenAI's documented fields are answered.
	VLLMTopLevelError Variant = "vllm-top-level-error"

	// CerebrasTokensMinute is Cerebras's 429 for its per-minute token
	// limit, without Retry-After: its rate-limit headers name the window,
	// x-ratelimit-remaining-tokens-minute 0 and
	// x-ratelimit-reset-tokens-minute "11.38", in seconds with a
	// fraction, beside a per-day request limit far from spent that resets
	// in 33011.38 s (https://inference-docs.cerebras.ai/support/rate-limits).
	CerebrasTokensMinute Variant = "cerebras-tokens-minute"

	// CerebrasRequestsDay is the same 429 for the per-day request limit:
	// x-ratelimit-remaining-requests-day 0, reset in 33011.38 s
	// (https://inference-docs.cerebras.ai/support/rate-limits).
	CerebrasRequestsDay Variant = "cerebras-requests-day"

	// GatewayHTML is a 502 from a gateway in front of the endpoint, such
	// as Cloudflare's: an HTML error page, text/html, whose title says what
	// failed
	// (https://developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-5xx-errors/).
	GatewayHTML Variant = "gateway-html-502"

	// OpenRouterFreeDaily is OpenRouter's 429 for the free models'
	// requests per day: no Retry-After, the limit named in the message
	// ("free-models-per-day"), and its headers in the error's
	// metadata.headers, X-RateLimit-Remaining "0" and X-RateLimit-Reset
	// in epoch milliseconds, here 12 hours ahead
	// (https://openrouter.ai/docs/api/reference/limits).
	OpenRouterFreeDaily Variant = "openrouter-free-daily"

	// OpenRouterFreeMinute is the same 429 for the free models' requests
	// per minute: "free-models-per-min", X-RateLimit-Reset 30 s ahead
	// (https://openrouter.ai/docs/api/reference/limits).
	OpenRouterFreeMinute Variant = "openrouter-free-minute"
)

// variantFailure answers req with the variant's failure and returns the
// status, or returns ok false to let the call through.
func (s *Server) variantFailure(w http.ResponseWriter, req Request) (status int, ok bool) {
	if s.opts.VariantCalls > 0 && req.Call > s.opts.VariantCalls {
		return 0, false
	}
	partial := func(topLevel bool) int {
		e := map[string]any{"code": 502, "message": "Upstream provider error: the connection was reset", "metadata": map[string]any{"provider_name": "Example"}}
		ch := map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": "The burial history sugg"}, "finish_reason": "error", "native_finish_reason": "error"}
		body := map[string]any{"id": fmt.Sprintf("gen-fake%06d", req.Call), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model, "provider": "Example",
			"usage": map[string]any{"prompt_tokens": promptWords(req), "completion_tokens": 6, "total_tokens": promptWords(req) + 6, "cost": 0.00002}}
		if topLevel {
			body["error"] = e
		} else {
			ch["error"] = e
		}
		body["choices"] = []any{ch}
		return writeJSON(w, http.StatusOK, body)
	}
	switch s.opts.Variant {
	case OpenRouterErrorInChoice:
		return partial(false), true
	case OpenRouterErrorTopLevel:
		return partial(true), true
	case AzureContentFilterPrompt:
		return writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
			"type":    nil, "param": "prompt", "code": "content_filter", "status": 400,
			"innererror": map[string]any{"code": "ResponsibleAIPolicyViolation", "content_filter_result": map[string]any{
				"violence": map[string]any{"filtered": true, "severity": "medium"}}},
		}}), true
	case OpenRouterNoCredits:
		return writeJSON(w, http.StatusPaymentRequired, map[string]any{"error": map[string]any{
			"code": 402, "message": "Insufficient credits. Add more using https://openrouter.ai/settings/credits",
			"metadata": map[string]any{"limit_source": "openrouter_credits"}}}), true
	case OpenRouterBudgetRetryAfter:
		w.Header().Set("Retry-After", "3")
		return writeJSON(w, http.StatusPaymentRequired, map[string]any{"error": map[string]any{
			"code": 402, "message": "This request requires more credits than remain while other requests are in flight; retry when they finish."}}), true
	case OpenAIInsufficientQuota:
		return writeError(w, http.StatusTooManyRequests, "insufficient_quota", "insufficient_quota",
			"You exceeded your current quota, please check your plan and billing details."), true
	case OSeriesMaxTokens:
		if req.MaxTokens != nil {
			return writeParamError(w, "max_tokens", "unsupported_parameter",
				"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."), true
		}
	case GPT5Temperature:
		if req.Temperature != nil && *req.Temperature != 1 {
			return writeParamError(w, "temperature", "unsupported_value",
				fmt.Sprintf("Unsupported value: 'temperature' does not support %g with this model. Only the default (1) value is supported.", *req.Temperature)), true
		}
	case AzureRetryAfterMS:
		w.Header().Set("retry-after", "2")
		w.Header().Set("retry-after-ms", "1500")
		return writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"code": "429",
			"message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2025-04-01-preview have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 2 seconds."}}), true
	case OpenAIRateLimitReset:
		w.Header().Set("x-ratelimit-limit-requests", "500")
		w.Header().Set("x-ratelimit-remaining-requests", "0")
		w.Header().Set("x-ratelimit-reset-requests", "1s")
		w.Header().Set("x-ratelimit-reset-tokens", "20ms")
		return writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded",
			"Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1."), true
	case GroqFlexCapacity:
		return writeError(w, statusFlexCapacity, "capacity_exceeded", "capacity_exceeded",
			"Flex tier capacity exceeded. This is a temporary error due to high demand. Please retry your request."), true
	case GeminiRetryInfo:
		return writeJSON(w, http.StatusTooManyRequests, geminiQuotaError("GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
			"generativelanguage.googleapis.com/generate_content_free_tier_requests", "3s")), true
	case GeminiDailyQuota:
		return writeJSON(w, http.StatusTooManyRequests, geminiQuotaError("GenerateRequestsPerDayPerProjectPerModel-FreeTier",
			"generativelanguage.googleapis.com/generate_content_free_tier_requests", "29s")), true
	case OpenRouterNoEndpoints:
		return writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404,
			"message": "No endpoints found matching your data policy (Free model training). Configure: https://openrouter.ai/settings/privacy"}}), true
	case OpenAIUnknownField:
		if f := unknownField(req.Raw); f != "" {
			return writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
				"message": fmt.Sprintf("Unknown parameter: '%s'.", f), "type": "invalid_request_error", "param": f, "code": "unknown_parameter"}}), true
		}
	case TGIValidation:
		return writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
			"error":      "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 3900 `inputs` tokens and 256 `max_new_tokens`",
			"error_type": "validation"}), true
	case VLLMTopLevelError:
		if f := unknownField(req.Raw); f != "" {
			return writeJSON(w, http.StatusBadRequest, map[string]any{"object": "error",
				"message": fmt.Sprintf("[{'type': 'extra_forbidden', 'loc': ('body', '%s'), 'msg': 'Extra inputs are not permitted'}]", f),
				"type":    "BadRequestError", "param": nil, "code": 400}), true
		}
	case CerebrasTokensMinute, CerebrasRequestsDay:
		day, minute := "14000", "0"
		if s.opts.Variant == CerebrasRequestsDay {
			day, minute = "0", "59000"
		}
		h := w.Header()
		h.Set("x-ratelimit-limit-requests-day", "14400")
		h.Set("x-ratelimit-limit-tokens-minute", "60000")
		h.Set("x-ratelimit-remaining-requests-day", day)
		h.Set("x-ratelimit-remaining-tokens-minute", minute)
		h.Set("x-ratelimit-reset-requests-day", "33011.382867097855")
		h.Set("x-ratelimit-reset-tokens-minute", "11.382867097854614")
		return writeError(w, http.StatusTooManyRequests, "too_many_requests_error", "rate_limit_exceeded", "Rate limit exceeded."), true
	case OpenRouterFreeDaily, OpenRouterFreeMinute:
		limit, window, msg := "50", 12*time.Hour, "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day"
		if s.opts.Variant == OpenRouterFreeMinute {
			limit, window, msg = "20", 30*time.Second, "Rate limit exceeded: free-models-per-min."
		}
		return writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"code": 429, "message": msg,
			"metadata": map[string]any{"headers": map[string]any{"X-RateLimit-Limit": limit, "X-RateLimit-Remaining": "0",
				"X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(window).UnixMilli(), 10)}}}}), true
	case GatewayHTML:
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<!DOCTYPE html>\n<html lang=\"en-US\">\n<head>\n<title>api.example.com | 502: Bad gateway</title>\n"+
			"<meta charset=\"UTF-8\" />\n<style>body{font-family:sans-serif}</style>\n</head>\n<body>\n<h1>Bad gateway</h1>\n"+
			"<p>The web server reported a bad gateway error.</p>\n</body>\n</html>\n")
		return http.StatusBadGateway, true
	}
	return 0, false
}

// statusFlexCapacity is Groq's 498.
const statusFlexCapacity = 498

// geminiQuotaError is Gemini's 429 body: an array of one error object
// with a QuotaFailure and a RetryInfo.
func geminiQuotaError(quotaID, metric, retryDelay string) []any {
	return []any{map[string]any{"error": map[string]any{
		"code":    429,
		"message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
		"status":  "RESOURCE_EXHAUSTED",
		"details": []any{
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
				"quotaMetric": metric, "quotaId": quotaID, "quotaDimensions": map[string]any{"location": "global", "model": "gemini-2.5-flash"}, "quotaValue": "250"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{map[string]any{
				"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retryDelay},
		},
	}}}
}

// openAIFields are the chat completion body's fields that OpenAI's API
// reference documents, of those benchgate may send
// (https://platform.openai.com/docs/api-reference/chat/create).
var openAIFields = map[string]bool{"model": true, "messages": true, "temperature": true, "top_p": true, "seed": true, "max_tokens": true,
	"max_completion_tokens": true, "response_format": true, "reasoning_effort": true, "service_tier": true, "stream": true, "n": true,
	"stop": true, "logprobs": true, "user": true}

// unknownField is the first top-level field of a request body, in
// sorted order, that OpenAI does not take; "" when there is none.
func unknownField(raw []byte) string {
	var body map[string]json.RawMessage
	if json.Unmarshal(raw, &body) != nil {
		return ""
	}
	var unknown []string
	for k := range body {
		if !openAIFields[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	if len(unknown) == 0 {
		return ""
	}
	return unknown[0]
}

func writeParamError(w http.ResponseWriter, param, code, msg string) int {
	return writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": param, "code": code}})
}

// replyBody is the body of a successful answer in the server's variant.
func (s *Server) replyBody(req Request, r Reply) map[string]any {
	finish := r.FinishReason
	if finish == "" {
		finish = "stop"
	}
	v := s.opts.Variant
	msg := map[string]any{"role": "assistant", "content": r.Content}
	switch v {
	case OpenAI, NoUsage, AzureContentFilterCompletion:
		msg["refusal"] = nil
	case MistralModelLength:
		finish = "model_length"
	case OpenAIRefusal:
		refusal := r.Refusal
		if refusal == "" {
			refusal = "I'm sorry, but I can't help with that request."
		}
		msg["content"], msg["refusal"] = nil, refusal
	case MistralThinking:
		var parts []any
		if r.Reasoning != "" {
			parts = append(parts, map[string]any{"type": "thinking", "thinking": []any{map[string]any{"type": "text", "text": r.Reasoning}}})
		}
		msg["content"] = append(parts, map[string]any{"type": "text", "text": r.Content})
	case DeepSeek:
		msg["reasoning_content"] = nil
		if r.Reasoning != "" {
			msg["reasoning_content"] = r.Reasoning
		}
	case OpenRouterReasoning, OpenRouterStream, VLLMReasoning, Ollama:
		if r.Reasoning != "" {
			msg["reasoning"] = r.Reasoning
		}
	case VLLMReasoningContent:
		msg["reasoning_content"] = nil
		if r.Reasoning != "" {
			msg["reasoning_content"] = r.Reasoning
		}
	case VLLMNoParser:
		if r.Reasoning != "" {
			msg["content"] = "<think>\n" + r.Reasoning + "\n</think>\n\n" + r.Content
		}
	}
	ch := map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}
	if v == AzureContentFilterCompletion {
		ch["finish_reason"] = "content_filter"
		ch["content_filter_results"] = map[string]any{"violence": map[string]any{"filtered": true, "severity": "medium"}}
	}
	body := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake%06d", req.Call),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   cmpOr(r.Model, req.Model),
		"choices": []any{ch},
	}
	u := map[string]any{"prompt_tokens": r.PromptTokens, "completion_tokens": r.CompletionTokens, "total_tokens": r.PromptTokens + r.CompletionTokens}
	if r.Cost != nil {
		u["cost"] = *r.Cost
	}
	switch v {
	case OpenAI, OpenRouterReasoning, OpenRouterStream, AzureContentFilterCompletion, OpenAIRefusal:
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": r.CachedTokens}
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": r.ReasoningTokens}
	case DeepSeek:
		u["prompt_cache_hit_tokens"] = r.CachedTokens
		u["prompt_cache_miss_tokens"] = r.PromptTokens - r.CachedTokens
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": r.ReasoningTokens}
	case Ollama:
		body["system_fingerprint"] = "fp_ollama"
	}
	if v == OpenRouterReasoning || v == OpenRouterStream {
		body["provider"] = "OpenAI"
		if r.Provider != "" {
			body["provider"] = r.Provider
		}
	}
	if v != NoUsage {
		body["usage"] = u
	}
	return body
}

// Variants are every variant, for tests that go through them all.
var Variants = []Variant{OpenAI, OpenRouterReasoning, VLLMReasoning, VLLMReasoningContent, VLLMNoParser, Ollama, NoUsage,
	AzureContentFilterCompletion, MistralThinking, OpenRouterStream, OpenAIRefusal, DeepSeek, OpenRouterErrorInChoice, OpenRouterErrorTopLevel, AzureContentFilterPrompt,
	OpenRouterNoCredits, OpenRouterBudgetRetryAfter, OpenAIInsufficientQuota, OSeriesMaxTokens, GPT5Temperature,
	AzureRetryAfterMS, OpenAIRateLimitReset, GroqFlexCapacity, GeminiRetryInfo, GeminiDailyQuota, OpenRouterNoEndpoints, OpenAIUnknownField,
	MistralModelLength, TGIValidation, VLLMTopLevelError, CerebrasTokensMinute, CerebrasRequestsDay, GatewayHTML, OpenRouterFreeDaily, OpenRouterFreeMinute}

// valid reports whether v is one of Variants.
func (v Variant) valid() bool {
	for _, k := range Variants {
		if v == k {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// writeStream writes an answer body as OpenRouter streams it: comment
// lines, a chunk per part of the message, the finish reason, the usage,
// then [DONE].
func writeStream(w http.ResponseWriter, body map[string]any) int {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var b strings.Builder
	b.WriteString(": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n")
	chunk := func(choices []any, usage any) {
		c := map[string]any{"id": body["id"], "object": "chat.completion.chunk", "created": body["created"], "model": body["model"],
			"provider": body["provider"], "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		data, _ := json.Marshal(c)
		b.WriteString("data: " + string(data) + "\n\n")
	}
	ch := body["choices"].([]any)[0].(map[string]any)
	msg := ch["message"].(map[string]any)
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}
	}
	chunk(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	if r, ok := msg["reasoning"].(string); ok {
		chunk(delta(map[string]any{"content": "", "reasoning": r}, nil), nil)
	}
	content, _ := msg["content"].(string)
	half := len(content) / 2
	for half > 0 && !utf8.RuneStart(content[half]) {
		half--
	}
	chunk(delta(map[string]any{"content": content[:half]}, nil), nil)
	chunk(delta(map[string]any{"content": content[half:]}, ch["finish_reason"]), nil)
	if u, ok := body["usage"]; ok {
		chunk([]any{}, u)
	}
	b.WriteString("data: [DONE]\n\n")
	_, _ = io.WriteString(w, b.String())
	return http.StatusOK
}
