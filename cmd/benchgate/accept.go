package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchgate/benchgate/acceptance"
	"github.com/benchgate/benchgate/internal/atomicfile"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

func runAccept(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("accept", "PATH --reason TEXT [--by LOGIN] [--root DIR]", stderr)
	rootFlag := addRoot(fl, "the leaderboard repository")
	reason := fl.String("reason", "", "why the submission can be ranked although it needs review, for readers of the board (required)")
	by := fl.String("by", "", "the GitHub login of the maintainer who accepts it, recorded with the decision")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		return usageError(fl, nil)
	}
	if strings.TrimSpace(*reason) == "" {
		return usageError(fl, errors.New("missing --reason: say why the submission can be ranked although it needs review; the board shows it beside the entry"))
	}
	if err := acceptance.CheckWords(*reason, *by); err != nil {
		return usageError(fl, err)
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	v, err := verify.New(boardFS(root), verify.Options{})
	if err != nil {
		return err
	}
	all, err := v.Discover()
	if err != nil {
		return err
	}
	dirs, err := selectSubmissions(root, pos, all)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usageError(fl, fmt.Errorf("%s holds %d submissions: name one submission folder (%s/<track>/<slug>)", pos[0], len(dirs), submission.Dir))
	}
	res, files := v.VerifyFiles(dirs[0])
	rec, err := acceptance.Decide(res, files, *reason, *by, time.Now())
	if err != nil {
		return failed(err)
	}
	f, ok := submission.ParseFolder(res.Path)
	if !ok {
		return fmt.Errorf("%s is not a submission folder (%s/<track>/<slug>), so its decision has no place", res.Path, submission.Dir)
	}
	rel := acceptance.RecordPath(f)
	file := filepath.Join(root, filepath.FromSlash(rel))
	// The same decision again changes nothing, not even the date.
	if old, err := jsondoc.ReadFile(boardFS(root), rel, acceptance.MaxRecordBytes); err == nil {
		if prev, _ := acceptance.ParseRecord(rel, old); prev.Same(rec) {
			fmt.Fprintf(stdout, "%s was already accepted for this version (%s); nothing changed\n", res.Path, rel)
			return nil
		}
	}
	data, err := rec.Encode()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(file, data); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "accepted %s (unverifiable answers: %d): wrote %s\n", res.Path, rec.Unverifiable, rel)
	fmt.Fprintf(stdout, "commit it: the leaderboard ranks the submission, marked \"accepted after review: %s\", for as long as the submission is this version; a change to it needs a new decision\n", rec.Reason)
	return nil
}
