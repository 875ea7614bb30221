package verify

import (
	"strings"

	"github.com/benchgate/benchgate/submission"
)

// submitter binds meta.json's submitter to who submits
// (Options.Submitter). The leaderboard records the submitter of a merged
// submission from its meta.json, and only that login or a maintainer may
// change the submission later, so a name anyone could type must not stand
// there: it must be the account the submission comes from.
func (c *check) submitter(m *submission.Meta) {
	who := c.v.opts.Submitter
	if who == "" || strings.EqualFold(m.Submitter, who) {
		return
	}
	c.errorf("meta.submitter", c.file(submission.MetaFile), m.Lines["submitter"], "",
		"submitter is %q, but this submission comes from the GitHub account %q: set \"submitter\" to your GitHub login, %q (logins compare case-insensitively, as on GitHub); the leaderboard records it as who submitted the run, and only that account or a maintainer may change the submission later",
		clip(m.Submitter), who, who)
}
