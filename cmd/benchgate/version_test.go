package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"go install at a tag", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}},
			"benchgate v0.4.0 go1.26.8"},
		{"a build in a checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "da20eb9f3c1e2b4a5d6c7e8f9a0b1c2d3e4f5a6b"}, {Key: "vcs.time", Value: "2026-12-01T12:40:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"benchgate (devel) (commit da20eb9f3c1e, 2026-12-01T12:40:00Z, with uncommitted changes) go1.26.8"},
		{"a pseudo-version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201124000-da20eb9f3c1e"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "da20eb9f3c1e"}, {Key: "vcs.modified", Value: "false"}}},
			"benchgate v0.0.0-20261201124000-da20eb9f3c1e (commit da20eb9f3c1e) go1.26.8"},
		{"no build information", nil, "benchgate (no build information)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(tt.bi); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestVersionCommand: `benchgate version` and `benchgate --version` say
// the same, with the Go version this binary was built with.
func TestVersionCommand(t *testing.T) {
	code, out, stderr := runCLI(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "benchgate ") || !strings.Contains(out, runtime.Version()) {
		t.Fatalf("version: exit %d, %q, %q", code, out, stderr)
	}
	if code2, out2, _ := runCLI(t, "--version"); code2 != exitOK || out2 != out {
		t.Errorf("--version: exit %d, %q; want %q", code2, out2, out)
	}
	if code, _, stderr := runCLI(t, "version", "extra"); code != exitUsage || !strings.Contains(stderr, "no arguments") {
		t.Errorf("version extra: exit %d, %q", code, stderr)
	}
}
