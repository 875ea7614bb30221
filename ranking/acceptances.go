package ranking

import (
	"fmt"
	"io/fs"

	"github.com/benchgate/benchgate/acceptance"
	"github.com/benchgate/benchgate/verify"
)

// readAcceptances returns the decisions in fsys (acceptance.RecordPath)
// that hold for the submissions in review among results: a record of
// the submission's version now, by its digest. A record of another
// version, or one that cannot be read (which `benchgate accept` never
// writes), accepts nothing.
func readAcceptances(fsys fs.FS, v *verify.Verifier, results []verify.Result) map[string]*Acceptance {
	var out map[string]*Acceptance
	for _, r := range results {
		if r.Status != verify.Review {
			continue
		}
		// Only submissions with a record are parsed again, for the digest.
		rec := acceptance.Holding(fsys, v, r.Path)
		if rec == nil {
			continue
		}
		if out == nil {
			out = map[string]*Acceptance{}
		}
		unverifiable := 0
		if u := r.Summary.Unverifiable; u != nil {
			unverifiable = *u
		}
		out[r.Path] = &Acceptance{Reason: rec.Reason, Unverifiable: unverifiable, AcceptedBy: rec.AcceptedBy, Date: rec.Date}
	}
	return out
}

// acceptanceText says what an entry's decision means, in one sentence.
func acceptanceText(a *Acceptance) string {
	by := ""
	if a.AcceptedBy != "" {
		by = " by " + a.AcceptedBy
	}
	return fmt.Sprintf("accepted after review: %s (%d %s unverifiable; accepted%s on %s)", a.Reason, a.Unverifiable, plural(a.Unverifiable, "answer", "answers"), by, a.Date)
}
