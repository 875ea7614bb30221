package submission

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		path string
		want string // the folder; "" for none
	}{
		{"submissions/model-benchmark/run/meta.json", "submissions/model-benchmark/run"},
		{"submissions/model-benchmark/run", "submissions/model-benchmark/run"},
		{"submissions/model-benchmark/run/deep/er/x", "submissions/model-benchmark/run"},
		{"submissions/harness-benchmark/agent/scores.json", "submissions/harness-benchmark/agent"},
		{"submissions/_x/run/meta.json", "submissions/_x/run"},
		{"submissions/unknown/run/meta.json", "submissions/unknown/run"},
		{"submissions/model-benchmark/stray.json", "submissions/model-benchmark/stray.json"},
		{"submissions/model-benchmark/.hidden/meta.json", "submissions/model-benchmark/.hidden"},
		{"submissions/model-benchmark/README.md", ""},
		{"submissions/model-benchmark/Readme.MD", ""},
		{"submissions/model-benchmark/.gitkeep", ""},
		{"submissions/_template/meta.json", ""},
		{"submissions/_template/a/b", ""},
		{"submissions/README.md", ""},
		{"submissions/model-benchmark", ""},
		{"submissions", ""},
		{"rubrics/rubrics.json", ""},
		{"Submissions/model-benchmark/run/meta.json", ""},
		{"submissions//run/meta.json", ""},
		{"", ""},
	}
	for _, tt := range tests {
		f, ok := Locate(tt.path)
		got := ""
		if ok {
			got = f.String()
		}
		if got != tt.want {
			t.Errorf("Locate(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestParseFolder(t *testing.T) {
	tests := []struct {
		path string
		want Folder
		ok   bool
	}{
		{"submissions/model-benchmark/run", Folder{ModelTrack, "run"}, true},
		{"submissions/odd/run", Folder{"odd", "run"}, true},
		{"submissions/model-benchmark/run/meta.json", Folder{}, false},
		{"submissions/model-benchmark", Folder{}, false},
		{"other/model-benchmark/run", Folder{}, false},
		{"submissions//run", Folder{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseFolder(tt.path)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseFolder(%q) = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
		if ok && got.String() != tt.path {
			t.Errorf("ParseFolder(%q).String() = %q", tt.path, got.String())
		}
	}
}

func TestDiscover(t *testing.T) {
	fsys := fstest.MapFS{
		"submissions/README.md":                            {},
		"submissions/.gitkeep":                             {},
		"submissions/_template/meta.json":                  {},
		"submissions/model-benchmark/run/meta.json":        {},
		"submissions/model-benchmark/README.md":            {},
		"submissions/model-benchmark/.gitkeep":             {},
		"submissions/model-benchmark/stray.json":           {},
		"submissions/model-benchmark/.hidden/meta.json":    {},
		"submissions/harness-benchmark/agent/scores.json":  {},
		"submissions/_x/run/meta.json":                     {},
		"submissions/model-benchmark/run/nested/meta.json": {},
	}
	got, err := Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"submissions/_x/run",
		"submissions/harness-benchmark/agent",
		"submissions/model-benchmark/.hidden",
		"submissions/model-benchmark/run",
		"submissions/model-benchmark/stray.json",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Discover = %q\nwant %q", got, want)
	}
	// Every discovered folder is where Locate places the files beneath it,
	// so that the App and the CLI cannot disagree.
	for p := range fsys {
		f, ok := Locate(p)
		found := false
		for _, d := range got {
			found = found || p == d || strings.HasPrefix(p, d+"/")
		}
		if ok != found || (ok && !strings.HasPrefix(p+"/", f.String()+"/")) {
			t.Errorf("%s: Locate gives %v, %v; Discover found it: %v", p, f, ok, found)
		}
	}
	if got, err := Discover(fstest.MapFS{}); err != nil || got != nil {
		t.Errorf("Discover of an empty tree = %q, %v", got, err)
	}
}

func TestSelect(t *testing.T) {
	all := []string{"submissions/harness-benchmark/agent", "submissions/model-benchmark/a", "submissions/model-benchmark/b"}
	tests := []struct {
		rel    string
		folder bool
		want   []string
	}{
		{".", true, all},
		{"submissions", true, all},
		{"submissions/model-benchmark", true, all[1:]},
		{"submissions/model-benchmark/a", true, all[1:2]},
		{"submissions/model-benchmark/a/meta.json", false, all[1:2]},
		{"submissions/model-benchmark/README.md", false, all[1:]},
		{"submissions/empty-track", true, nil},
		{"submissions/model-benchmark/new", true, []string{"submissions/model-benchmark/new"}},
		{"rubrics", true, []string{"rubrics"}},
		{"rubrics/rubrics.json", false, []string{"rubrics"}},
	}
	for _, tt := range tests {
		if got := Select(tt.rel, tt.folder, all); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Select(%q, %v) = %q, want %q", tt.rel, tt.folder, got, tt.want)
		}
	}
}

func TestParseTrack(t *testing.T) {
	for in, want := range map[string]Track{"model": ModelTrack, "model-benchmark": ModelTrack, "harness": HarnessTrack, "harness-benchmark": HarnessTrack} {
		if got, err := ParseTrack(in); got != want || err != nil {
			t.Errorf("ParseTrack(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseTrack("models"); err == nil || !strings.Contains(err.Error(), "model or harness") {
		t.Errorf("ParseTrack(models) error = %v", err)
	}
}

func FuzzLocate(f *testing.F) {
	for _, s := range []string{"submissions/model-benchmark/run/meta.json", "submissions/_template/x", "submissions/a/README.md", "submissions/a/.b", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		sub, ok := Locate(p)
		if !ok {
			return
		}
		if !strings.HasPrefix(p+"/", sub.String()+"/") {
			t.Fatalf("Locate(%q) = %q, not a prefix", p, sub)
		}
		if back, ok := ParseFolder(sub.String()); !ok || back != sub {
			t.Fatalf("ParseFolder(%q) = %v, %v", sub.String(), back, ok)
		}
	})
}
