package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/benchgate/benchgate/benchmark"
)

// rootFix is what to do when there is no leaderboard where a command
// looks for one.
const rootFix = "run benchgate init, or pass --root"

// boardRoot is the --root flag: the leaderboard repository a command
// reads. Unset, it is found as git finds its repository: the working
// directory or the nearest folder above it that holds the registry, so
// that a command works from anywhere inside a checkout, a submission
// folder included.
type boardRoot struct {
	dir string
	set bool
}

func (r *boardRoot) String() string  { return r.dir }
func (r *boardRoot) argName() string { return "DIR" }

func (r *boardRoot) Set(s string) error {
	r.dir, r.set = s, true
	return nil
}

// addRoot registers --root; what says what the command reads there.
func addRoot(fl *flag.FlagSet, what string) *boardRoot {
	r := &boardRoot{}
	fl.Var(r, "root", what+" (default: the working directory, or the nearest folder above it that holds "+benchmark.RegistryFile+")")
	return r
}

// locate returns the leaderboard's root, as a path from the working
// directory ("." when it is the working directory), or a setup error that
// says where it looked and how to fix it.
func (r *boardRoot) locate() (string, error) {
	if r.set {
		return r.dir, checkRoot(r.dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", setupError(fmt.Errorf("cannot find the leaderboard: the working directory: %v", err))
	}
	root, ok := findRoot(wd)
	if !ok {
		return "", setupError(fmt.Errorf("no leaderboard here (no %s in %s or above); %s", benchmark.RegistryFile, wd, rootFix))
	}
	rel, err := filepath.Rel(wd, root)
	if err != nil {
		return root, nil
	}
	return rel, nil
}

// findRoot walks up from the absolute folder dir to the first folder that
// holds the registry.
func findRoot(dir string) (string, bool) {
	for {
		if hasRegistry(dir) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func hasRegistry(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(benchmark.RegistryFile)))
	return err == nil && info.Mode().IsRegular()
}

// checkRoot says what is wrong with a --root that was given.
func checkRoot(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return setupError(fmt.Errorf("no leaderboard at --root %s: the folder does not exist; %s", dir, rootFix))
	case err != nil:
		return setupError(fmt.Errorf("no leaderboard at --root %s: %v; %s", dir, err, rootFix))
	case !info.IsDir():
		return setupError(fmt.Errorf("no leaderboard at --root %s: it is a file, not a folder; %s", dir, rootFix))
	case !hasRegistry(dir):
		return setupError(fmt.Errorf("no leaderboard at --root %s (no %s in it); %s", dir, benchmark.RegistryFile, rootFix))
	}
	return nil
}
