package reproduce

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"time"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/schemas"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// RecordFormat names the record's format and its version: a record of
// another format is refused whole rather than misread.
const RecordFormat = "benchgate reproduction 1"

// RecordDir is the folder of the leaderboard repository that holds the
// records, one per submission.
const RecordDir = "reproductions"

// RecordPath returns where the record of the submission in folder f is
// kept: reproductions/<track>/<slug>.json. It is the one rule: `benchgate
// reproduce --record` writes there, and whoever reads records reads
// there.
func RecordPath(f submission.Folder) string {
	return path.Join(RecordDir, string(f.Track), f.Slug+".json")
}

// digestVersion is hashed with the content, so that a change to what is
// hashed changes every digest rather than matching old records.
const digestVersion = "benchgate reproduction digest 1"

// Digest identifies the version of a submission a reproduction is a fact
// about: its scores in the spot-check's canonical form
// (rerun.ScoresDigest) and its meta.json as parsed (the model it names,
// the sampling), hashed together. Formatting changes neither; any change
// to what the submission reports changes it, and the record no longer
// holds.
func Digest(rubricKey string, files *verify.Files) string {
	h := sha256.New()
	h.Write([]byte(digestVersion + "\n"))
	scores := rerun.ScoresDigest(rubricKey, files)
	h.Write(scores[:])
	// encoding/json writes a struct's fields in their order: the same
	// meta always gives the same bytes.
	meta, err := json.Marshal(files.Meta)
	if err != nil {
		panic("reproduce: meta.json cannot be encoded: " + err.Error()) // strings, numbers and booleans only
	}
	h.Write(meta)
	return hex.EncodeToString(h.Sum(nil))
}

// Record is a reproduction as the leaderboard repository keeps it.
type Record struct {
	Format     string   `json:"format"`
	Submission string   `json:"submission"`
	Digest     string   `json:"digest"`
	RubricKey  string   `json:"rubric_key"`
	Model      string   `json:"model"`
	Asked      string   `json:"asked_model"`
	Verdict    Verdict  `json:"verdict"`
	Reason     string   `json:"reason"`
	Checked    int      `json:"checked"`
	Calls      int      `json:"calls"`
	SpendUSD   float64  `json:"spend_usd"`
	Endpoint   string   `json:"endpoint"`
	Served     []string `json:"served_models"`
	Seed       string   `json:"seed"`
	SeedSource string   `json:"seed_source"`
	Date       string   `json:"date"` // the UTC day of the check, YYYY-MM-DD
}

// NewRecord returns the record of rep, a check made at now.
func NewRecord(rep Report, now time.Time) Record {
	served := rep.Served
	if served == nil {
		served = []string{}
	}
	return Record{
		Format: RecordFormat, Submission: rep.Path, Digest: rep.Digest, RubricKey: rep.RubricKey,
		Model: rep.Model, Asked: rep.Asked, Verdict: rep.Verdict, Reason: rep.Reason,
		Checked: rep.Checked, Calls: rep.Calls, SpendUSD: rep.SpendUSD, Endpoint: rep.Endpoint, Served: served,
		Seed: rep.Seed, SeedSource: rep.SeedSource, Date: now.UTC().Format(time.DateOnly),
	}
}

// Encode writes the record in its file format.
func (r Record) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Status is what the board shows of a record for the submission whose
// digest is now: "reproduced" for a consistent verdict on this version,
// the verdict otherwise, and "" when the record is of another version (a
// changed submission loses its mark).
func (r *Record) Status(digest string) string {
	switch {
	case r == nil || r.Digest != digest:
		return ""
	case r.Verdict == Consistent:
		return "reproduced"
	}
	return string(r.Verdict)
}

// MaxRecordBytes caps a record's size; one is a few hundred bytes.
const MaxRecordBytes = 1 << 20

// ParseRecord reads data, the record at file. It returns the record when
// it can be used, and otherwise error findings, each with its line.
func ParseRecord(file string, data []byte) (*Record, finding.List) {
	var out finding.List
	again := "run `benchgate reproduce --record` again to replace it"
	doc, fs := schemas.ParseFormatted(schemas.Reproduction, RecordFormat, "reproduction.format", file, data, again)
	if doc == nil {
		return nil, append(out, fs...)
	}
	// The schema has checked every member's type: the decoding cannot
	// fail on what it accepted.
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		out.Errorf("reproduction.invalid", file, 0, "", "the record cannot be read: %v; %s", err, again)
		return nil, out
	}
	return &r, nil
}
