package hfhub

import (
	"errors"
	"fmt"
)

// Kinds of failure, told apart with errors.Is. An *Error is one of them
// when the Hub answered; a transport or context error is returned as is.
var (
	// ErrNotFound: the repo, revision or file does not exist, or the token
	// cannot see it. ErrRepoNotFound, ErrRevisionNotFound and
	// ErrEntryNotFound are all ErrNotFound.
	ErrNotFound         = errors.New("not found")
	ErrRepoNotFound     = errors.New("repository not found")
	ErrRevisionNotFound = errors.New("revision not found")
	ErrEntryNotFound    = errors.New("file not found")
	// ErrBadToken: the token itself was refused.
	ErrBadToken = errors.New("invalid token")
	// ErrForbidden: the token lacks the permission.
	ErrForbidden = errors.New("forbidden")
	// ErrConflict: a commit's parent is no longer the head of its branch.
	ErrConflict = errors.New("conflict")
	// ErrRateLimited: the bucket stayed spent through every retry.
	ErrRateLimited = errors.New("rate limited")
	// ErrRefused: the Hub refused the request as it stands (a 4xx other
	// than those above), such as a merge of a draft or closed PR.
	ErrRefused = errors.New("refused")
	// ErrUnavailable: the Hub kept failing (5xx) through every retry.
	ErrUnavailable = errors.New("unavailable")
	// ErrMalformed: the Hub answered something this client cannot read.
	ErrMalformed = errors.New("malformed answer")
)

// Error is the Hub's answer to a failed call: what was asked, the status,
// and what the Hub said in X-Error-Code and X-Error-Message or its JSON
// body (hf-hub.md §2.1 "Errors"). It never holds the token.
type Error struct {
	Op        string // method and path, e.g. "GET /api/datasets/ns/name/refs"
	Status    int
	Code      string // X-Error-Code: RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo
	Message   string // X-Error-Message, or the body's error
	RequestID string // X-Request-Id, for the Hub's support
	kinds     []error
}

func (e *Error) Error() string {
	if e.hasKind(ErrMalformed) {
		return fmt.Sprintf("hfhub: %s: the answer cannot be read: %s", e.Op, e.Message)
	}
	s := fmt.Sprintf("hfhub: %s: %d", e.Op, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.hasKind(ErrRepoNotFound) && e.Status == 401 {
		// hf-hub.md §2.1 "The 401 trap".
		s += " (the Hub answers 401 when a repo does not exist, is private or is gated: check the dataset id and that the token can read it)"
	}
	if e.RequestID != "" {
		s += " [request " + e.RequestID + "]"
	}
	return s
}

func (e *Error) hasKind(k error) bool {
	for _, x := range e.kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Is matches the kinds of failure the answer is.
func (e *Error) Is(target error) bool { return e.hasKind(target) }

// classify names the kinds of a failed answer. The Hub answers 401 with
// RepoNotFound for a missing, private or gated repo; only the message
// "Invalid credentials in Authorization header" means a bad token
// (hf-hub.md §2.1, huggingface_hub utils/_http.py).
func classify(status int, code, msg string) []error {
	switch code {
	case "RepoNotFound", "GatedRepo":
		return []error{ErrNotFound, ErrRepoNotFound}
	case "RevisionNotFound":
		return []error{ErrNotFound, ErrRevisionNotFound}
	case "EntryNotFound":
		return []error{ErrNotFound, ErrEntryNotFound}
	}
	switch {
	case status == 401 && msg == "Invalid credentials in Authorization header":
		return []error{ErrBadToken}
	case status == 401:
		return []error{ErrNotFound, ErrRepoNotFound}
	case status == 403:
		return []error{ErrForbidden}
	case status == 404:
		return []error{ErrNotFound}
	case status == 409 || status == 412:
		return []error{ErrConflict}
	case status == 429:
		return []error{ErrRateLimited}
	case status >= 500:
		return []error{ErrUnavailable}
	}
	return []error{ErrRefused}
}

func malformed(op, format string, args ...any) error {
	return &Error{Op: op, Status: 200, Message: fmt.Sprintf(format, args...), kinds: []error{ErrMalformed}}
}
