package finding

import (
	"errors"
	"fmt"
	"testing"

	"github.com/benchgate/benchgate/jsondoc"
)

func TestString(t *testing.T) {
	tests := []struct {
		f    Finding
		want string
	}{
		{Finding{Code: "c", File: "a/b.json", Message: "m"}, "a/b.json: m (c)"},
		{Finding{Code: "c", File: "a/b.json", Line: 7, Message: "m"}, "a/b.json:7: m (c)"},
		{Finding{Code: "c", File: "a/b.json", Line: 7, Question: "Q1", Message: "m"}, "a/b.json:7: question Q1: m (c)"},
	}
	for _, tt := range tests {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestFromError(t *testing.T) {
	_, err := jsondoc.Parse([]byte("{\n\"a\": 1,\n\"a\": 2}"), jsondoc.Limits{})
	f := FromError("json.syntax", "x.json", fmt.Errorf("wrapped: %w", err))
	if f.Line != 3 || f.Message != `invalid JSON at column 1: duplicate key "a" (first on line 2); a key may appear once per object` {
		t.Errorf("FromError = %+v", f)
	}
	f = FromError("read", "x.json", errors.New("boom"))
	if f.Line != 0 || f.Message != "boom" || f.Severity != Error {
		t.Errorf("FromError = %+v", f)
	}
}

func TestList(t *testing.T) {
	var l List
	l.Warnf("w", "f", 1, "", "warn %d", 1)
	if l.HasErrors() {
		t.Error("a warning counted as an error")
	}
	l.Errorf("e", "f", 2, "Q", "err %s", "x")
	errs, warns := l.Split()
	if !l.HasErrors() || len(errs) != 1 || len(warns) != 1 || errs[0].Message != "err x" || warns[0].Severity != Warning {
		t.Errorf("Split = %v, %v", errs, warns)
	}
}
