package bot

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchgate/benchgate/acceptance"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/publish"
	"github.com/benchgate/benchgate/bot/queue"
	"github.com/benchgate/benchgate/internal/mdtext"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// acceptCommand is what /benchgate accept does, for the reply to anyone
// who may not.
const acceptCommand = "records the decision to rank a submission that verification sent to review"

// Accept records a maintainer's decision to accept the submission of a
// pull request in review (/benchgate accept <reason>), as `benchgate
// accept` does: the pull request's current head is verified against its
// base, the decision (acceptance.Decide) is bound to the submission's
// digest at that head and committed to the default branch under
// acceptances/ (a pull request's branch may be a fork's, which the App
// cannot push to), and the head's check run turns to success, accepted
// after review. The record waits on the default branch for the
// submission: once the pull request is merged the board ranks it, for as
// long as it is the version accepted. The same decision again commits
// nothing; another reason replaces the record. Anyone without write
// permission, a pull request that is no submission in review, or a
// command without a reason gets a reply saying why, and nothing is
// recorded.
func (w *Worker) Accept(ctx context.Context, j Job) error {
	asked := time.Now()
	pr, baseRef, baseSHA, out, ok, err := w.maintainersCheck(ctx, j, "/benchgate accept", acceptCommand)
	if err != nil || !ok {
		return err
	}
	head := "`" + mdtext.Code(pr.HeadSHA[:min(len(pr.HeadSHA), 12)]) + "`"
	answer := func(why string) error {
		return w.locked(ctx, fmt.Sprintf("comment:%s#%d", j.Repo, j.PR), func() error {
			return w.GH.Reply(ctx, j.InstallationID, j.Repo, j.PR, "`/benchgate accept` recorded nothing at "+head+": "+why)
		})
	}
	branch := j.Branch
	if branch == "" {
		branch = baseRef
	}
	if baseRef != branch {
		return answer(fmt.Sprintf("the decision is kept on the default branch, `%s`, which the leaderboard is built from, and this pull request is against `%s`; change its base to `%s` first.",
			mdtext.Code(branch), mdtext.Code(baseRef), mdtext.Code(branch)))
	}
	if out.Submission == "" || out.Report == nil || out.Tree == nil {
		return answer(fmt.Sprintf("this pull request is not a submission verification sent to review (%s), so there is nothing to accept.", mdtext.Escape(out.Title)))
	}
	// The tree the check verified: the files are not read from GitHub again.
	v, err := verify.New(out.Tree, w.Verify)
	if err != nil {
		return err
	}
	res, files := v.VerifyFiles(out.Submission)
	rec, err := acceptance.Decide(res, files, j.Reason, j.Commenter, asked)
	if err != nil {
		why := mdtext.Escape(err.Error()) + "."
		if strings.TrimSpace(j.Reason) == "" {
			why += " Write the reason after the command, on its line: `/benchgate accept <reason>`."
		}
		return answer(why)
	}
	note, err := w.commitAcceptance(ctx, j, branch, rec)
	if err != nil {
		// Retried: the record is written once, however often this runs.
		return err
	}
	acc := prcheck.Accepted(pr, out, decisionText(rec)+"\n\n"+note)
	own := queue.Verdict{Repo: j.Repo, PR: j.PR, HeadSHA: pr.HeadSHA, BaseSHA: baseSHA, BaseRef: baseRef, Conclusion: string(acc.Conclusion), Title: acc.Title}
	var sharing []queue.Verdict
	err = w.locked(ctx, fmt.Sprintf("check:%s@%s", j.Repo, pr.HeadSHA), func() error {
		shown, note, others, err := w.worstOnHead(ctx, j, own, acc)
		if err != nil {
			return err
		}
		sharing = others
		acc.Comment += note
		_, err = w.GH.PostCheck(ctx, j.InstallationID, j.Repo, pr.HeadSHA, prcheck.CheckName, "", shown)
		return err
	})
	if err != nil {
		return err
	}
	if err := w.sticky(ctx, j, pr, asked, acc.Comment); err != nil || w.Verdicts == nil {
		return err
	}
	own.Complete = true
	if err := w.Verdicts.RecordVerdict(ctx, own); err != nil {
		return err
	}
	// Pull requests sharing the head name this verdict in their comments.
	for _, o := range sharing {
		if err := w.VerifyPR(ctx, Job{Kind: KindVerify, DeliveryID: j.DeliveryID, Repo: j.Repo, PR: o.PR, HeadSHA: own.HeadSHA, InstallationID: j.InstallationID, refresh: true}); err != nil {
			return err
		}
	}
	return nil
}

// decisionText is what the check of an accepted submission says of the
// decision, in markdown; the reason is shown as text.
func decisionText(rec acceptance.Record) string {
	by := ""
	if rec.AcceptedBy != "" {
		by = " by @" + rec.AcceptedBy
	}
	return fmt.Sprintf("**accepted after review:** %s\n\n%d %s could not be verified; accepted%s on %s, for this version of `%s` only: a change to it needs a new decision.",
		mdtext.Escape(rec.Reason), rec.Unverifiable, plural(rec.Unverifiable, "answer", "answers"), by, rec.Date, mdtext.Code(rec.Submission))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// acceptanceBranch is the branch of the App's pull request proposing the
// decision on the submission in folder f, when the default branch is
// protected (BENCHGATE_PUBLISH=pr).
func acceptanceBranch(f submission.Folder) string {
	return "benchgate/acceptance/" + string(f.Track) + "/" + f.Slug
}

// commitAcceptance commits rec to branch, the leaderboard repository's
// default branch, as the App commits the board; with BENCHGATE_PUBLISH=pr
// it proposes it in a pull request instead. A record of the same decision
// is left as it is. It returns what it did, for the check.
func (w *Worker) commitAcceptance(ctx context.Context, j Job, branch string, rec acceptance.Record) (string, error) {
	f, ok := submission.ParseFolder(rec.Submission)
	if !ok {
		return "", fmt.Errorf("%s is not a submission folder, so its decision has no place", rec.Submission)
	}
	file := acceptance.RecordPath(f)
	data, err := rec.Encode()
	if err != nil {
		return "", err
	}
	token, err := w.Git.Token(ctx, j.InstallationID)
	if err != nil {
		return "", err
	}
	if w.Author == nil {
		return "", fmt.Errorf("no commit author: Worker.Author is not set")
	}
	name, email, err := w.Author()
	if err != nil {
		return "", err
	}
	cfg := publish.Config{RepoURL: w.Git.CloneURL(j.Repo), Token: token, Branch: branch, AuthorName: name, AuthorEmail: email,
		Message: fmt.Sprintf("Record the acceptance of %s after review (benchgate)", rec.Submission)}
	if w.Propose != nil {
		cfg.PushBranch = acceptanceBranch(f)
	}
	sha, err := publish.Write(ctx, cfg, func(_ context.Context, tree publish.Tree) (map[string][]byte, error) {
		if old, err := os.ReadFile(filepath.Join(tree.Dir, filepath.FromSlash(file))); err == nil {
			if prev, _ := acceptance.ParseRecord(file, old); prev.Same(rec) {
				return nil, nil
			}
		}
		return map[string][]byte{file: data}, nil
	})
	switch {
	case err != nil:
		return "", err
	case sha == "":
		return fmt.Sprintf("`%s` on `%s` already holds this decision.", file, branch), nil
	case w.Propose != nil:
		err := w.Propose.ProposePull(ctx, j.InstallationID, j.Repo, cfg.PushBranch, branch, "Record the acceptance of "+rec.Submission,
			fmt.Sprintf("A maintainer accepted `%s` (pull request #%d) after review. Merging this pull request records the decision in `%s`; the leaderboard ranks the submission once both are on `%s`.", mdtext.Code(rec.Submission), j.PR, file, branch))
		return fmt.Sprintf("Recorded in `%s`, proposed for `%s` in a pull request from `%s`; the leaderboard ranks the submission once both are merged.", file, branch, cfg.PushBranch), err
	}
	return fmt.Sprintf("Recorded in `%s` on `%s` (commit %s); the leaderboard ranks the submission once this pull request is merged.", file, branch, sha), nil
}

// withAcceptance is out, the check of pull request pr against base, with
// the decision base holds on its submission when one holds for this
// version (acceptance.Holding): a head accepted once stays accepted
// whenever it is verified again.
func (w *Worker) withAcceptance(base fs.FS, pr prcheck.PRInfo, out prcheck.CheckOutcome) prcheck.CheckOutcome {
	if out.Conclusion != prcheck.ActionRequired || out.Submission == "" || out.Tree == nil {
		return out
	}
	v, err := verify.New(out.Tree, w.Verify)
	if err != nil {
		return out
	}
	rec := acceptance.Holding(base, v, out.Submission)
	if rec == nil {
		return out
	}
	return prcheck.Accepted(pr, out, decisionText(*rec))
}
