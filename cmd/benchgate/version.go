package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// runVersion prints what build of benchgate this is.
func runVersion(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("version", "(also: benchgate --version)", stderr)
	if err := parseFlags(fl, args); err != nil {
		return flagError(err)
	}
	if fl.NArg() > 0 {
		return usageError(fl, fmt.Errorf("version takes no arguments"))
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(bi))
	return nil
}

// versionLine describes a build: the module version `go install …@VERSION`
// stamps (or "(devel)" for a build from a checkout), the commit and its
// time when the build recorded them (go build in a git checkout does), and
// the Go version.
func versionLine(bi *debug.BuildInfo) string {
	if bi == nil {
		return "benchgate (no build information)"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		vcs = append(vcs, "commit "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		vcs = append(vcs, t)
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "with uncommitted changes")
	}
	line := "benchgate " + version
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	return line + " " + bi.GoVersion
}
