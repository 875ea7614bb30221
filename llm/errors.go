package llm

import (
	"errors"
	"fmt"
)

// ErrPermanent and ErrExhausted tell failures apart with errors.Is: a
// permanent failure (a bad request, a rejected key, an unknown model) will
// fail again however often it is tried; an exhausted one failed
// transiently on every attempt and may succeed later. An *Error that is
// neither was stopped by its context; errors.Is finds context.Canceled or
// context.DeadlineExceeded in it.
//
// ErrAccount is a failure of the account rather than of the call: a
// rejected key, no credits (402 without Retry-After), a spent quota (429
// insufficient_quota). Every further call would fail the same way, so a
// run stops on it, keeping what it has, to resume once it is fixed. It is
// not ErrPermanent: the call itself may well succeed later.
//
// ErrSetup is a failure of the setup rather than of the call: no such
// model or deployment, a provider routing that no provider serves, a
// request field the endpoint does not take, answers benchgate cannot read.
// Every further call would fail the same way, so a run stops on it, saying
// what to fix. It is neither ErrPermanent nor ErrAccount.
var (
	ErrPermanent = errors.New("permanent failure")
	ErrExhausted = errors.New("retries exhausted")
	ErrAccount   = errors.New("account error")
	ErrSetup     = errors.New("setup error")
)

// Error is a failed call. Its message says what happened, with the model
// and the attempts, and never holds the API key; it may hold the
// endpoint's address and messages, which are for whoever runs benchgate.
// Public says what may be told to anyone.
type Error struct {
	Model    string
	Attempts int // attempts made
	Status   int // HTTP status of the last answer; 0 when none came back

	kind   error // ErrPermanent, ErrExhausted, ErrAccount, ErrSetup or nil
	msg    string
	public string
	cause  error // a transport or context error
}

// Error says what happened, to which model, after how many attempts.
func (e *Error) Error() string {
	return fmt.Sprintf("llm: model %q: %s", e.Model, e.msg)
}

// Public says what happened as Error does, but names the failure only (a
// refused connection, a timeout, an HTTP status), never the endpoint's
// address or anything the endpoint or the transport said: for a pull
// request's comment, read by contributors, while Error goes to the log.
func (e *Error) Public() string {
	return fmt.Sprintf("model %q: %s", e.Model, e.public)
}

// Public returns what may be told of a failed call to anyone: the Public
// message of the *Error in err, or for any other error only that the
// call failed.
func Public(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Public()
	}
	return "the call failed"
}

// Unwrap gives ErrPermanent, ErrExhausted, ErrAccount or ErrSetup, and the transport or context
// error behind the failure, if any.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}
