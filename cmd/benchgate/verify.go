package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

func runVerify(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("verify", "[--root DIR] [--format text|json|markdown|github] [--author LOGIN] [PATH...]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository (registry, benchmarks, submissions)")
	format := fl.String("format", "text", "output format: text, json, markdown (what a PR comment shows) or github (GitHub Actions annotations; the markdown goes to $GITHUB_STEP_SUMMARY)")
	maxBytes := fl.Int64("max-file-bytes", 64<<20, "size cap for each submission file")
	author := fl.String("author", "", "the GitHub login submitting the submissions under PATH: each meta.json must name it as submitter, as the App requires of a pull request's author (case-insensitive)")
	paths, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if err := oneOf(*format, verify.Formats); err != nil {
		return err
	}
	*author = strings.TrimSpace(*author)
	if *author != "" && len(paths) == 0 {
		// Every merged submission names its own submitter: binding all of
		// them to one login would fail the others'.
		return usageError(fl, errors.New("--author binds the submissions you submit: name their folders (PATH)"))
	}
	if *author != "" {
		if _, err := submission.ParseLogin(*author); err != nil {
			return usageError(fl, fmt.Errorf("--author: %v", err))
		}
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	v, err := verify.New(boardFS(root), verify.Options{MaxFileBytes: *maxBytes, Submitter: *author})
	if err != nil {
		return err
	}
	all, err := v.Discover()
	if err != nil {
		return fmt.Errorf("cannot list submissions: %v", err)
	}
	dirs := all
	if len(paths) > 0 {
		if dirs, err = selectSubmissions(root, paths, all); err != nil {
			return err
		}
	}
	report := v.VerifyAll(dirs)
	if err := verify.Render(stdout, *format, report); err != nil {
		return err
	}
	if summary := os.Getenv("GITHUB_STEP_SUMMARY"); *format == "github" && summary != "" {
		if err := appendSummary(summary, report); err != nil {
			return fmt.Errorf("writing the job summary: %v", err)
		}
	}
	return exitWith(verifyExit(report))
}

// verifyExit is verify's exit code: a failure outranks a submission a
// maintainer must decide on, which outranks a pass.
func verifyExit(r verify.Report) int {
	switch {
	case r.Failed > 0:
		return exitFail
	case r.Review > 0:
		return exitInconclusive
	}
	return exitOK
}

// selectSubmissions turns command-line paths (relative to the working
// directory) into submission folders relative to the root, by the
// layout's rule (submission.Select).
func selectSubmissions(root string, paths, all []string) ([]string, error) {
	var dirs []string
	seen := map[string]bool{}
	for _, p := range paths {
		rel, err := fromRoot(root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("%s is outside the leaderboard root %s (set --root)", p, root)
		}
		info, err := os.Lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s does not exist", p)
			}
			return nil, err
		}
		sel := submission.Select(rel, info.IsDir(), all)
		if len(sel) == 0 {
			return nil, fmt.Errorf("no submissions under %s", p)
		}
		for _, d := range sel {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	return dirs, nil
}

// fromRoot is a path given from the working directory as a
// slash-separated path from root, starting with ".." when it is outside.
func fromRoot(root, p string) (string, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absRoot, abs)
	return filepath.ToSlash(rel), err
}

// appendSummary adds the markdown report to a GitHub Actions job summary.
func appendSummary(path string, report verify.Report) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := verify.Render(f, "markdown", report); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
