package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/safetext"
)

// This file is one attempt of a call: sending it, reading the answer, and
// telling what went wrong, if anything.

// checkProvider fails an answer served by another provider than the one
// the call pinned: OpenRouter names who served it in the answer's
// provider field, by display name ("Google AI Studio") where routing
// takes a slug ("google-ai-studio", or "deepinfra/fp8" for one of its
// endpoints). An answer that names none is taken as given.
func checkProvider(a *attempt, want string) {
	got := a.answer.provider
	if got == "" {
		return
	}
	slug, _, _ := strings.Cut(want, "/")
	if providerKey(got) == providerKey(slug) {
		return
	}
	a.what = fmt.Sprintf("the answer was served by %q, not by the provider %q the call is pinned to", clip(got), want)
	a.public = "the answer was served by another provider than the one the call is pinned to"
	a.err = errors.New(a.what)
	a.permanent = true
}

// checkModel fails an answer served by another model than the one asked
// for (see SameModel). On Azure a model not mapped to a deployment is a
// deployment's name, which need not say the model: its answer is taken as
// given.
func (c *Client) checkModel(a *attempt, model string) {
	if c.azure {
		if _, mapped := c.deployments[model]; !mapped {
			return
		}
	}
	if SameModel(model, a.answer.model) {
		return
	}
	a.what = fmt.Sprintf("the answer was served by the model %q, not by %q, which the call is fixed to", clip(a.answer.model), model)
	a.public = "the answer was served by another model than the one the call is fixed to"
	a.err = errors.New(a.what)
	a.once = true
}

// attempt is one try of a call.
type attempt struct {
	n       int
	answer  *answer // the parsed 200 answer, when one came
	latency time.Duration
	end     time.Time

	err        error         // nil on success
	what       string        // what went wrong, worded for a person, without the key
	public     string        // what went wrong, for anyone: no address, no text from the endpoint or the transport
	status     int           // the HTTP status, or the one an error inside a 200 names; 0 when none
	apiErr     *apiError     // the endpoint's error object, if any
	retryAfter time.Duration // from the Retry-After header; 0 when absent
	permanent  bool          // retrying cannot help
	setup      bool          // the setup is wrong: no call can succeed as it is
	account    bool          // the account, not the call, is at fault: no call can succeed
	once       bool          // worth one more attempt, not more: an unreadable answer, another model's
	cancelled  bool          // the caller's ctx is done
	timedOut   bool          // sent, and no complete answer within the timeout
	cause      error         // the transport or context error, for errors.Is
	requestID  string        // the endpoint's id of the request, for its support; "" when it gave none
}

// requestIDHeaders are the response headers that carry the endpoint's id
// of a request, which its support asks for: OpenAI's and Groq's
// x-request-id (https://platform.openai.com/docs/api-reference/debugging-requests),
// Anthropic's request-id (https://docs.anthropic.com/en/api/errors), and
// Azure's apim-request-id and x-ms-request-id
// (https://learn.microsoft.com/azure/ai-foundry/openai/reference).
var requestIDHeaders = []string{"x-request-id", "request-id", "apim-request-id", "x-ms-request-id"}

// requestID is the endpoint's id of the request, or "": letters, digits
// and . _ : - only, at most 100 of them, so that it cannot break the
// message it goes into.
func requestID(h http.Header) string {
	for _, name := range requestIDHeaders {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			continue
		}
		clean := strings.Map(func(r rune) rune {
			if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:-", r)) {
				return r
			}
			return -1
		}, v)
		if len(clean) > 100 {
			clean = clean[:100]
		}
		return clean
	}
	return ""
}

// idNote is the request id's note for the message of a failure the
// endpoint's side is at fault for (a 5xx, a 408, Groq's 498, or a 200
// that reports an error or cannot be read), which its support may look
// up; "" for another failure, or when the endpoint gave no id. It goes
// inside the message's "(attempt N…)" note, which tells one call from
// another, not one cause from another.
func (a *attempt) idNote() string {
	if a.requestID == "" {
		return ""
	}
	if s := a.status; s >= 500 || s == http.StatusRequestTimeout || s == statusFlexCapacity || a.answer != nil || s == http.StatusOK {
		return "; the endpoint's request id: " + a.requestID
	}
	return ""
}

func (c *Client) try(ctx context.Context, req Request, body []byte) *attempt {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	start := time.Now()
	status, header, data, sent, err := c.post(actx, req.Model, body)
	end := time.Now()

	a := &attempt{latency: end.Sub(start), end: end, status: status, requestID: requestID(header)}
	hasRetryAfter := false
	if status != 0 {
		if d, ok := parseRetryAfter(header.Get("Retry-After"), end); ok {
			a.retryAfter, hasRetryAfter = d, true
		}
	}
	if ms := header.Get("retry-after-ms"); ms != "" {
		hasRetryAfter = true // Azure's form of the same
	}
	switch {
	case ctx.Err() != nil:
		a.err, a.cancelled, a.cause = ctx.Err(), true, context.Cause(ctx)
		a.what = "the call was cancelled"
		a.public = a.what
	case !sent:
		a.err = err
		a.what = c.redact("the request was not sent: " + err.Error())
		a.public = "the request was not sent"
		a.permanent = true
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || isTimeout(err)):
		a.err = err
		a.what = fmt.Sprintf("no complete answer within the %v timeout (raise --timeout for a slow reasoning model)", c.timeout)
		a.public = fmt.Sprintf("no complete answer within the %v timeout", c.timeout)
		a.timedOut = true
		a.cause = err
	case err != nil && status != 0:
		a.err = err
		a.what = c.redact(fmt.Sprintf("the answer (HTTP %d) could not be read: %v", status, err))
		a.public = fmt.Sprintf("the answer (HTTP %d) could not be read", status)
		a.cause = err
	case err != nil:
		// The transport's words name the endpoint ("Post \"http://…\":
		// dial tcp …"): the public message names only the failure.
		a.err = err
		a.what = c.redact("the connection failed: " + err.Error())
		a.public = connectionFailure(err)
		a.cause = err
	case status >= 200 && status < 300:
		ans, perr := decodeAnswer(data, header.Get("Content-Type"))
		if perr != nil {
			a.err = perr
			a.what = c.redact(fmt.Sprintf("the answer (HTTP %d, %s) could not be read: %v; it began %s", status, received(header, data), perr, quoteStart(data)))
			a.public = fmt.Sprintf("the answer (HTTP %d) could not be read", status)
			a.once = true
			return a
		}
		a.answer = ans
		c.inAnswerError(a, ans, hasRetryAfter)
	default:
		a.apiErr = parseAPIError(data)
		a.what, a.public = describeStatus(status, a.apiErr, data)
		a.permanent, a.account = classify(status, a.apiErr, hasRetryAfter)
		a.setup = !a.account && setupFailure(status, a.apiErr)
		w := askedWait(status, header, a.apiErr, end)
		a.retryAfter = w.d
		if w.daily && !a.permanent {
			// A per-day limit: no wait within the run cures it.
			quota := ""
			if w.quota != "" {
				quota = " (" + w.quota + ")"
			}
			a.what += fmt.Sprintf("; a per-day limit%s is reached: %s", quota, w.resetNote(end))
			a.public += "; a per-day limit is reached"
			a.permanent, a.account = true, true
		}
		a.what = c.redact(a.what)
		a.err = errors.New(a.what)
	}
	return a
}

// received says what kind of body came: its content type and size.
func received(h http.Header, data []byte) string {
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "no content type"
	}
	return fmt.Sprintf("%s, %d bytes", clip(ct), len(data))
}

// quoteStart quotes the start of a body for a message.
func quoteStart(data []byte) string {
	const limit = 200
	s := string(data)
	if len(s) > limit {
		return strconv.Quote(safetext.Cut(s, limit)) + "…"
	}
	return strconv.Quote(s)
}

// post sends one request and reads the whole answer. sent reports that
// the request reached the transport, after which the endpoint may have
// done the work.
func (c *Client) post(ctx context.Context, model string, body []byte) (status int, header http.Header, data []byte, sent bool, err error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint(model), bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, false, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	switch {
	case c.key == "":
	case c.azure:
		hreq.Header.Set("api-key", c.key)
	default:
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return 0, nil, nil, true, err
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err == nil && len(data) > maxResponseBytes {
		err = fmt.Errorf("the answer is larger than %d bytes", maxResponseBytes)
	}
	return resp.StatusCode, resp.Header, data, true, err
}

// inAnswerError fails an attempt whose 200 answer reports an error: a
// top-level error object, an error in the choice, or finish_reason
// "error", which OpenRouter sends when the provider failed after it began
// to answer, beside whatever partial text it had
// (https://openrouter.ai/docs/api/reference/errors-and-debugging). The
// partial text is not an answer. An answer without choices fails too, and
// is worth one more attempt only: it is paid for and holds nothing to
// read, and a server that sends one may well send it again.
func (c *Client) inAnswerError(a *attempt, ans *answer, hasRetryAfter bool) {
	e := ans.err
	switch {
	case e != nil:
		a.apiErr = e
		a.status = e.status()
		if a.status != 0 {
			what, public := describeStatus(a.status, e, nil)
			a.what, a.public = "the endpoint reported an error inside its answer: "+what, "the endpoint reported an error inside its answer: "+public
			a.permanent, a.account = classify(a.status, e, hasRetryAfter)
		} else {
			a.what = "the endpoint reported an error inside its answer" + suffix(clip(e.Message))
			a.public = "the endpoint reported an error inside its answer"
		}
	case ans.choices == 0:
		a.what, a.public = "the endpoint answered without any choices", "the endpoint answered without any choices"
		a.once = true
	case ans.finish == "error":
		a.what, a.public = "the answer ended with finish_reason \"error\": the provider failed while answering", "the answer ended with finish_reason \"error\""
	default:
		return
	}
	a.what = c.redact(a.what)
	a.err = errors.New(a.what)
}
