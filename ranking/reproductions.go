package ranking

import (
	"fmt"
	"io/fs"

	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// addReproductions sets each entry's Reproduction from its record in
// fsys (reproduce.RecordPath), when the record is of the version of the
// submission ranked: its digest is the submission's now. An entry
// without a record, or with one that cannot be read (which `benchgate
// reproduce --record` never writes), has none.
func addReproductions(fsys fs.FS, v *verify.Verifier, b *Board) {
	for i := range b.Benchmarks {
		for j := range b.Benchmarks[i].Entries {
			e := &b.Benchmarks[i].Entries[j]
			f, ok := submission.ParseFolder(e.Path)
			if !ok {
				continue
			}
			file := reproduce.RecordPath(f)
			data, err := jsondoc.ReadFile(fsys, file, reproduce.MaxRecordBytes)
			if err != nil {
				continue
			}
			rec, _ := reproduce.ParseRecord(file, data)
			if rec == nil || rec.Submission != e.Path {
				continue
			}
			// Only entries with a record are parsed again, for the digest.
			res, files := v.VerifyFiles(e.Path)
			if status := rec.Status(reproduce.Digest(res.RubricKey, files)); status != "" {
				e.Reproduction = &Reproduction{Status: status, Checked: rec.Checked, Date: rec.Date}
			}
		}
	}
}

// reproductionText says what an entry's mark means, in one sentence.
func reproductionText(r *Reproduction) string {
	if r.Status == "reproduced" {
		return fmt.Sprintf("reproduced on %s: the model the submission names, asked %d of its questions again, gave what the submission claims", r.Date, r.Checked)
	}
	return fmt.Sprintf("%s on %s: asking the model the submission names %d of its questions again did not confirm what the submission claims", r.Status, r.Date, r.Checked)
}
