package golden

import "testing"

func TestFirstDiff(t *testing.T) {
	for _, tt := range []struct {
		got, want string
		line      int
		g, w      string
	}{
		{"a\nb\nc", "a\nx\nc", 2, "b", "x"},
		{"a\nb", "a\nb\nc", 3, "", "c"},
		{"a\nb\nc", "a\nb", 3, "c", ""},
		{"x", "y", 1, "x", "y"},
	} {
		line, g, w := firstDiff(tt.got, tt.want)
		if line != tt.line || g != tt.g || w != tt.w {
			t.Errorf("firstDiff(%q, %q) = %d %q %q; want %d %q %q", tt.got, tt.want, line, g, w, tt.line, tt.g, tt.w)
		}
	}
}

func TestCheck(t *testing.T) {
	Check(t, "sample.txt", []byte("one\ntwo\n"))
	ft := &fakeT{TB: t}
	Check(ft, "sample.txt", []byte("one\nthree\n"))
	if !ft.failed {
		t.Error("a differing output passed")
	}
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Helper()               {}
