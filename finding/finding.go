// Package finding defines the problems that benchgate reports: each one is
// located (file, line, question) and worded for the person who must fix it,
// usually a contributor reading it in a pull request.
package finding

import (
	"errors"
	"fmt"
	"strconv"
)

// Severity says whether a finding fails a submission or only informs.
type Severity uint8

const (
	// Error means the file cannot be accepted as it is.
	Error Severity = iota
	// Warning means a person should look, but the file is usable.
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Finding is one problem in one file.
type Finding struct {
	Severity Severity `json:"-"`
	Code     string   `json:"code"`               // stable identifier, e.g. "ids.missing"
	File     string   `json:"file"`               // path relative to the leaderboard root
	Line     int      `json:"line,omitempty"`     // 1-based; 0 when the finding is about the whole file
	Question string   `json:"question,omitempty"` // question id, when the finding is about one question
	Message  string   `json:"message"`
}

// String formats f as "file:line: [question] message (code)".
func (f Finding) String() string {
	s := f.File
	if f.Line > 0 {
		s += ":" + strconv.Itoa(f.Line)
	}
	s += ": "
	if f.Question != "" {
		s += "question " + f.Question + ": "
	}
	return s + f.Message + " (" + f.Code + ")"
}

// List collects findings.
type List []Finding

// Errorf adds an error.
func (l *List) Errorf(code, file string, line int, question, format string, args ...any) {
	*l = append(*l, Finding{Severity: Error, Code: code, File: file, Line: line, Question: question, Message: fmt.Sprintf(format, args...)})
}

// Warnf adds a warning.
func (l *List) Warnf(code, file string, line int, question, format string, args ...any) {
	*l = append(*l, Finding{Severity: Warning, Code: code, File: file, Line: line, Question: question, Message: fmt.Sprintf(format, args...)})
}

// HasErrors reports whether any finding is an error.
func (l List) HasErrors() bool {
	for _, f := range l {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// Split returns the errors and the warnings, each in their original order.
func (l List) Split() (errs, warns List) {
	for _, f := range l {
		if f.Severity == Error {
			errs = append(errs, f)
		} else {
			warns = append(warns, f)
		}
	}
	return errs, warns
}

// FromError turns an error from reading or parsing a file into a finding,
// keeping the line when the error knows it.
func FromError(code, file string, err error) Finding {
	f := Finding{Severity: Error, Code: code, File: file, Message: err.Error()}
	var located interface {
		LineNumber() int
		Detail() string
	}
	if errors.As(err, &located) {
		f.Line, f.Message = located.LineNumber(), located.Detail()
	}
	return f
}
