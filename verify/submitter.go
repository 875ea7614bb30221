package verify

import (
	"strings"

	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/submission"
)

// submitter binds meta.json's submitter to who submits
// (Options.Submitter). The leaderboard records the submitter of a merged
// submission from its meta.json, and only that login or a maintainer may
// change the submission later, so a name anyone could type must not stand
// there: it must be the account the submission comes from. Logins are
// ASCII and compared as such (submission.SameLogin), so a look-alike such
// as the Kelvin sign for K names nobody: a submitter that is not ASCII is
// refused even when there is no one to bind it to.
func (c *check) submitter(m *submission.Meta) {
	who := c.v.opts.Submitter
	if submission.IsFillIn(m.Submitter) {
		// meta.placeholder reports it; the submission fails.
		return
	}
	if strings.IndexFunc(m.Submitter, safetext.Hidden) >= 0 {
		// meta.text reports the hidden character; the submission fails.
		return
	}
	file, line := c.file(submission.MetaFile), m.Lines["submitter"]
	if _, err := submission.ParseLogin(m.Submitter); err != nil && (who != "" || !ascii(m.Submitter)) {
		c.errorf("meta.submitter", file, line, "", "submitter is not a GitHub login: %s; set \"submitter\" to %s, as GitHub spells it", err, submission.SubmitterIs)
		return
	}
	if who == "" || submission.SameLogin(m.Submitter, who) {
		return
	}
	c.errorf("meta.submitter", file, line, "",
		"submitter is %q, but this submission comes from the GitHub account %q: set \"submitter\" to your GitHub login, %q (logins compare case-insensitively, as on GitHub), since submitter is always %s; the leaderboard records it as who submitted the run, and only that account or a maintainer may change the submission later",
		clip(m.Submitter), who, who, submission.SubmitterIs)
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
