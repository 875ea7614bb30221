package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
)

// benchgate never asks for a stream, but some servers and proxies answer
// every call as one. OpenRouter, for one, keeps a connection alive with
// comment lines such as ": OPENROUTER PROCESSING"
// (https://openrouter.ai/docs/api/reference/streaming). A stream that
// ends is as good an answer as a JSON body, and is read as one.

// isStream reports whether a 200's body is a server-sent event stream:
// by its content type, or, when a server labels it wrongly, by its first
// line being a comment, a data field or an event field.
func isStream(body []byte, contentType string) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && mt == "text/event-stream" {
		return true
	}
	b := bytes.TrimLeft(body, " \t\r\n")
	return bytes.HasPrefix(b, []byte(":")) || bytes.HasPrefix(b, []byte("data:")) || bytes.HasPrefix(b, []byte("event:"))
}

// readStream reads a whole event stream of chat completion chunks into one
// answer: the deltas' content, reasoning and refusal joined, the last
// finish reason, the last usage, and any error a chunk reports: an error
// object, vLLM's top-level one, or an event of type error whose data is
// plain text (Anthropic names its error events so,
// https://docs.anthropic.com/en/docs/build-with-claude/streaming). Comment
// lines and fields other than data and event are passed over, as the SSE
// format says (https://html.spec.whatwg.org/multipage/server-sent-events.html).
func readStream(body []byte) (*rawAnswer, error) {
	out := &rawAnswer{}
	var content, thinking, reasoning, refusal strings.Builder
	var finish *string
	var data []string
	event := "" // the event's type, from an event field
	events, done := 0, false
	dispatch := func() error {
		typ := event
		event = ""
		if len(data) == 0 {
			return nil
		}
		payload := strings.Join(data, "\n")
		data = data[:0]
		if strings.TrimSpace(payload) == "[DONE]" {
			done = true
			return nil
		}
		var chunk rawAnswer
		if err := json.Unmarshal([]byte(payload), &chunk); err != nil {
			if typ != "error" {
				return fmt.Errorf("event %d of the stream is not a JSON chunk: %w", events+1, err)
			}
			// An error event whose data is plain text: the failure is
			// the text, and the stream is over.
			chunk = rawAnswer{Error: &apiError{Message: strings.TrimSpace(payload)}}
		}
		if chunk.Error != nil && chunk.Error.blank() {
			chunk.Error = nil
		}
		if chunk.Error == nil {
			chunk.Error = chunk.topLevelError()
		}
		events++
		if out.Model == "" {
			out.Model = chunk.Model
		}
		if out.Provider == "" {
			out.Provider = chunk.Provider
		}
		if chunk.Usage != nil {
			out.Usage = chunk.Usage
		}
		if chunk.Error != nil && out.Error == nil {
			out.Error = chunk.Error
		}
		for _, ch := range chunk.Choices {
			if ch.Error != nil && !ch.Error.blank() && out.Error == nil {
				out.Error = ch.Error
			}
			if ch.FinishReason != nil {
				finish = ch.FinishReason
			}
			m := ch.Delta
			if m == nil {
				m = ch.Message // some servers send whole messages as chunks
			}
			if m == nil {
				continue
			}
			content.WriteString(m.Content.Text)
			thinking.WriteString(m.Content.Thinking)
			for _, s := range []*string{m.Reasoning, m.ReasoningContent} {
				if s != nil {
					reasoning.WriteString(*s)
				}
			}
			if m.Refusal != nil {
				refusal.WriteString(*m.Refusal)
			}
		}
		return nil
	}
	// Lines end in CRLF, LF or a lone CR, as the format allows.
	text := strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), "\r", "\n")
	for line := range strings.Lines(text) {
		if done {
			break
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if err := dispatch(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, ":"):
			// a comment: a keep-alive
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "data":
				data = append(data, value)
			case "event":
				event = value
			}
		}
	}
	if !done {
		if err := dispatch(); err != nil { // a last event without its blank line
			return nil, err
		}
	}
	if events == 0 {
		return nil, errors.New("the event stream held no chunk of an answer")
	}
	if !done && finish == nil && out.Error == nil {
		return nil, fmt.Errorf("the event stream ended after %d chunks without a finish reason or [DONE]: the answer is incomplete", events)
	}
	msg := &rawMessage{Content: rawContent{Text: content.String(), Thinking: thinking.String()}}
	if reasoning.Len() > 0 {
		s := reasoning.String()
		msg.Reasoning = &s
	}
	if refusal.Len() > 0 {
		s := refusal.String()
		msg.Refusal = &s
	}
	out.Choices = []rawChoice{{Message: msg, FinishReason: finish}}
	return out, nil
}
