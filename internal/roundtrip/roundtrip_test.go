package roundtrip

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

type inner struct {
	N *int
	M map[string]float64
}

type faithful struct {
	S  string
	B  []byte
	F  float64
	In *inner
	L  []inner
}

type dropsField struct {
	Kept    string
	Dropped string `json:"-"`
}

type omitsEmpty struct {
	M map[string]int `json:",omitempty"`
}

type hidden struct {
	Shown  string
	hidden int
}

func check[T any](t *testing.T) []string {
	r := &recorder{TB: t}
	Check(r, func(v T) ([]byte, error) { return json.Marshal(v) }, func(data []byte) (T, error) {
		var v T
		err := json.Unmarshal(data, &v)
		return v, err
	})
	return r.errors
}

func TestCheck(t *testing.T) {
	if errs := check[faithful](t); len(errs) > 0 {
		t.Errorf("a faithful encoding failed: %v", errs)
	}
	for name, c := range map[string]struct {
		errs []string
		want string
	}{
		"a field the encoding leaves out": {check[dropsField](t), "full: roundtrip.dropsField.Dropped"},
		"an empty map omitted":            {check[omitsEmpty](t), "empty: roundtrip.omitsEmpty.M (nil true, want nil false)"},
		"an unexported field":             {check[hidden](t), "roundtrip.hidden.hidden is unexported"},
	} {
		if !strings.Contains(strings.Join(c.errs, "\n"), c.want) {
			t.Errorf("%s: failures %q, want one with %q", name, c.errs, c.want)
		}
	}
	_ = hidden{}.hidden
}

func TestDiffTellsNilFromEmpty(t *testing.T) {
	a, b := faithful{L: nil}, faithful{L: []inner{}}
	if d := diff(a, b); len(d) != 1 || !strings.Contains(d[0], ".L") {
		t.Errorf("Diff = %q", d)
	}
	if d := diff(a, a); len(d) != 0 {
		t.Errorf("Diff of equal values = %q", d)
	}
}

func diff(got, want faithful) []string {
	return Diff(reflect.ValueOf(got), reflect.ValueOf(want), "v")
}
