// Package acceptance is a maintainer's decision to accept a submission
// that verification sent to review (verify.Review): more answers than its
// benchmark lets go unchecked could not be verified, or an answer needs a
// person's eyes. The decision is a small record kept in the leaderboard
// repository (RecordPath), bound to the submission's content digest: the
// board ranks the submission, marked accepted after review with the
// reason, only while it is the version accepted. `benchgate accept`
// writes the record; any other front end (the App's command) calls
// Decide the same way.
package acceptance

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/schemas"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// RecordFormat names the record's format and its version: a record of
// another format is refused whole rather than misread.
const RecordFormat = "benchgate acceptance 1"

// RecordDir is the folder of the leaderboard repository that holds the
// records, one per submission.
const RecordDir = "acceptances"

// MaxReasonBytes caps a reason; the board shows it beside the entry.
const MaxReasonBytes = 1000

// MaxRecordBytes caps a record's size; one is a few hundred bytes.
const MaxRecordBytes = 1 << 16

// RecordPath returns where the decision on the submission in folder f is
// kept: acceptances/<track>/<slug>.json, the one place it is written and
// read.
func RecordPath(f submission.Folder) string {
	return path.Join(RecordDir, string(f.Track), f.Slug+".json")
}

// Record is a maintainer's acceptance as the repository keeps it.
type Record struct {
	Format     string `json:"format"`
	Submission string `json:"submission"`
	// Digest is reproduce.Digest of the version accepted.
	Digest    string `json:"digest"`
	RubricKey string `json:"rubric_key"`
	Reason    string `json:"reason"`
	// Unverifiable is how many answers verification could not verify
	// when the submission was accepted.
	Unverifiable int    `json:"unverifiable"`
	AcceptedBy   string `json:"accepted_by,omitempty"`
	Date         string `json:"date"` // the UTC day of the decision, YYYY-MM-DD
}

// CheckWords checks what a maintainer writes into a decision, before any
// submission is read: a reason the board can show (plain text, at most
// MaxReasonBytes) and, when given, a GitHub login for by.
func CheckWords(reason, by string) error {
	reason = strings.TrimSpace(reason)
	switch {
	case len(reason) > MaxReasonBytes:
		return fmt.Errorf("the reason is %d bytes; at most %d are shown on the board, so shorten it", len(reason), MaxReasonBytes)
	case strings.IndexFunc(reason, safetext.Hidden) >= 0:
		return fmt.Errorf("the reason holds a control or direction-override character; write it as plain text on one line")
	}
	if by != "" {
		if _, err := submission.ParseLogin(by); err != nil {
			return fmt.Errorf("accepted by %q: %v; give the maintainer's GitHub login", by, err)
		}
	}
	return nil
}

// Decide is the decision to accept the submission that verification
// judged res, having parsed files (verify.Verifier.VerifyFiles), for
// reason, by the maintainer whose login is by ("" when not known), at
// now. Only a submission in review can be accepted: one that passes needs
// no decision, and one that fails has errors no decision can outweigh.
func Decide(res verify.Result, files *verify.Files, reason, by string, now time.Time) (Record, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case res.Status == verify.Pass:
		return Record{}, fmt.Errorf("%s passes verification: it is ranked without a decision, so there is nothing to accept", res.Path)
	case res.Status == verify.Fail:
		return Record{}, fmt.Errorf("%s fails verification with %d error(s): a maintainer accepts only a submission in review, so the errors must be fixed first (benchgate verify %s lists them)", res.Path, len(res.Errors), res.Path)
	case res.Status != verify.Review || files == nil || files.Meta == nil:
		return Record{}, fmt.Errorf("%s was not verified: nothing to accept", res.Path)
	case reason == "":
		return Record{}, fmt.Errorf("a reason is required: say, for readers of the board, why %s can be ranked although %s", res.Path, reviewWhy(res))
	}
	if err := CheckWords(reason, by); err != nil {
		return Record{}, err
	}
	unverifiable := 0
	if u := res.Summary.Unverifiable; u != nil {
		unverifiable = *u
	}
	return Record{
		Format: RecordFormat, Submission: res.Path, Digest: reproduce.Digest(res.RubricKey, files), RubricKey: res.RubricKey,
		Reason: reason, Unverifiable: unverifiable, AcceptedBy: by, Date: now.UTC().Format(time.DateOnly),
	}, nil
}

// reviewWhy says in a few words why res needs review, from its review
// warnings.
func reviewWhy(res verify.Result) string {
	if len(res.Warnings) == 0 {
		return "it needs review"
	}
	return "verification sent it to review (" + res.Warnings[0].Code + ")"
}

// Holds reports whether r is a decision about the submission at path in
// the version whose digest is digest.
func (r *Record) Holds(path, digest string) bool {
	return r != nil && r.Submission == path && r.Digest == digest
}

// Holding returns the decision kept in records (RecordPath) on the
// submission in folder dir that holds for the version v reads there, or
// nil: none is recorded, the record cannot be read (`benchgate accept`
// never writes such a one), it is about another version, or the
// submission is not in review. The board and the App's check ask it the
// same way.
func Holding(records fs.FS, v *verify.Verifier, dir string) *Record {
	f, ok := submission.ParseFolder(dir)
	if !ok {
		return nil
	}
	file := RecordPath(f)
	data, err := jsondoc.ReadFile(records, file, MaxRecordBytes)
	if err != nil {
		return nil
	}
	rec, _ := ParseRecord(file, data)
	if rec == nil || rec.Submission != dir {
		return nil
	}
	res, files := v.VerifyFiles(dir)
	if res.Status != verify.Review || !rec.Holds(dir, reproduce.Digest(res.RubricKey, files)) {
		return nil
	}
	return rec
}

// Same reports whether r and o record the same decision, whatever day it
// was recorded: writing o over r would change nothing that matters.
func (r *Record) Same(o Record) bool {
	return r != nil && r.Submission == o.Submission && r.Digest == o.Digest && r.Reason == o.Reason && r.AcceptedBy == o.AcceptedBy
}

// Encode writes the record in its file format.
func (r Record) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ParseRecord reads data, the record at file. It returns the record when
// it can be used, and otherwise error findings, each with its line.
func ParseRecord(file string, data []byte) (*Record, finding.List) {
	again := "run `benchgate accept` again to replace it"
	doc, fs := schemas.ParseFormatted(schemas.Acceptance, RecordFormat, "acceptance.format", file, data, again)
	if doc == nil {
		return nil, fs
	}
	// The schema has checked every member's type: the decoding cannot
	// fail on what it accepted.
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		var out finding.List
		out.Errorf("acceptance.invalid", file, 0, "", "the record cannot be read: %v; %s", err, again)
		return nil, out
	}
	return &r, nil
}
