package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/publish"
	"github.com/benchgate/benchgate/bot/queue"
	"github.com/benchgate/benchgate/internal/mdtext"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/ranking"
	"github.com/benchgate/benchgate/rerun"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// GitHub is what the jobs need of GitHub; package ghapp implements it
// over the REST API. Every method is scoped to an installation.
type GitHub interface {
	PullRequest(ctx context.Context, inst int64, repo string, number int) (pr prcheck.PRInfo, baseRef, baseSHA string, err error)
	// ListFiles lists a pull request's files without content; ReadFiles
	// reads the content of listed files at headSHA.
	ListFiles(ctx context.Context, inst int64, repo string, number int) ([]prcheck.ChangedFile, error)
	ReadFiles(ctx context.Context, inst int64, repo string, number int, headSHA string, listed []prcheck.ChangedFile) ([]prcheck.ChangedFile, error)
	BaseFS(ctx context.Context, inst int64, repo, ref string) (fs.FS, error)
	OpenPulls(ctx context.Context, inst int64, repo string) ([]OpenPull, error)
	CanWrite(ctx context.Context, inst int64, repo, user string) (bool, error)
	// PostCheck posts the check run name on headSHA: the one there is, or
	// with key set a run of its own that key finds again.
	PostCheck(ctx context.Context, inst int64, repo, headSHA, name, key string, out prcheck.CheckOutcome) (int64, error)
	UpsertComment(ctx context.Context, inst int64, repo string, number int, body string) (int64, bool, error)
	// CreateComment adds a comment without looking for one to edit.
	CreateComment(ctx context.Context, inst int64, repo string, number int, body string) (int64, error)
	// Reply answers on a pull request, once: the same words again post
	// nothing, so a flood of one request gets one answer.
	Reply(ctx context.Context, inst int64, repo string, number int, body string) error
}

// Git gives what a push of the leaderboard needs: the repository's clone
// URL and a token that may push to it.
type Git interface {
	CloneURL(repo string) string
	Token(ctx context.Context, inst int64) (string, error)
}

// Proposer opens a pull request, once: for the leaderboard update of a
// protected branch.
type Proposer interface {
	ProposePull(ctx context.Context, inst int64, repo, head, base, title, body string) error
}

// ProposalBranch is the App's branch for leaderboard updates proposed by
// pull request.
const ProposalBranch = "benchgate/leaderboard"

// Worker runs the jobs. It holds no state between jobs, so that a job
// retried after a crash does the same thing again: the check run and the
// comment are found and updated, never duplicated.
type Worker struct {
	GH     GitHub
	Git    Git
	Verify verify.Options
	// Judge, when set, is used by /benchgate rerun and /benchgate
	// reproduce; its Model is replaced by each benchmark's fixed judge.
	Judge *judge.Judge
	// Candidate, when set, is the endpoint /benchgate reproduce asks.
	Candidate   *Candidate
	RerunSecret []byte
	RerunBudget int // calls at most per spot-check or reproduction; 0 means DefaultLimits' SpotCheckCalls
	// AutoRerun spot-checks every submission that verifies, without
	// waiting for a maintainer's /benchgate rerun (BENCHGATE_RERUN_POLICY=auto).
	AutoRerun bool
	// OnJudge, when set, is told each spot-check's judge calls and spend.
	OnJudge func(calls int, usd float64)
	// Supersede, when set, cancels the queued verifications of a pull
	// request's other heads queued before a time at which GitHub gave head
	// as its head (queue.SupersedeVerify).
	Supersede func(ctx context.Context, repo string, pr int, head string, before time.Time) error
	// Newer, when set, reports whether a verification of another head of
	// the pull request was queued after since (queue.NewerVerify): a sign
	// that the branch moved while this one ran.
	Newer func(ctx context.Context, repo string, pr int, head string, since time.Time) (bool, error)
	// Lock, when set, runs work that must not interleave across the
	// processes working the queue under a lock of that name
	// (queue.WithLock): a pull request's comment, its replies.
	Lock func(ctx context.Context, key string, fn func() error) error
	// OnCalls, when set, is told the GitHub calls of each run of a job.
	OnCalls func(kind Kind, calls int64)
	// Verdicts, when set, remembers each pull request's last verdict
	// (*queue.Queue): a head and base verified before are answered from
	// it, and the check run of a head shared by several open pull
	// requests shows the worst of their verdicts.
	Verdicts Verdicts
	// Budget, when set, admits each spot-check under the abuse limits
	// (per pull request, per author, per repository, the day's judge
	// spend) and records what it spent.
	Budget Budget
	// Leaderboard output, as `benchgate leaderboard` writes it.
	BoardDir string
	// Cache, when set, keeps verification results, rankings and parts of
	// the page between regenerations (BENCHGATE_CACHE_DIR), as it does for
	// the CLI.
	Cache ranking.Store
	// Author signs the leaderboard commits: the configured name and
	// e-mail, or the App's identity once it is known.
	Author func() (name, email string, err error)
	// BoardBranch, when set, is the branch the leaderboard is published
	// on (such as a pages branch), built from the default branch's
	// submissions; the App owns it and replaces it with each update.
	BoardBranch string
	// Propose, when set, publishes the leaderboard on ProposalBranch with
	// a pull request to the default branch instead of pushing to it
	// (BENCHGATE_PUBLISH=pr, for protected branches).
	Propose Proposer
	Log     *slog.Logger
}

// Verdicts is the memory of each pull request's last verdict.
type Verdicts interface {
	RecordVerdict(ctx context.Context, v queue.Verdict) error
	LastVerdict(ctx context.Context, repo string, pr int) (queue.Verdict, bool, error)
	VerdictsOnHead(ctx context.Context, repo, head string) ([]queue.Verdict, error)
}

// supersedeMargin keeps the verifications queued just before GitHub was
// asked for the head: the queue's clock and this process's may differ a
// little, and cancelling a newer push's job would leave it unchecked.
const supersedeMargin = 5 * time.Second

// VerifyPR verifies a pull request at its current head and posts the
// check run and the sticky comment. A job for a head that is no longer
// the pull request's is done: a newer job verifies the new head.
func (w *Worker) VerifyPR(ctx context.Context, j Job) error {
	if j.PR == 0 {
		return w.verifyHead(ctx, j)
	}
	asked := time.Now()
	pr, baseRef, baseSHA, err := w.GH.PullRequest(ctx, j.InstallationID, j.Repo, j.PR)
	if err != nil {
		return err
	}
	if baseSHA == "" {
		baseSHA = baseRef
	}
	if pr.Closed {
		// A replayed delivery of a merged pull request, or one closed
		// while its job waited: its verdict no longer guards anything,
		// and the check of a head it shared shows the others' verdicts.
		w.Log.Info("verify skipped: the pull request is closed", "repo", j.Repo, "pr", j.PR, "head_sha", pr.HeadSHA)
		return w.closedOnHead(ctx, j, pr.HeadSHA)
	}
	if j.HeadSHA != "" && pr.HeadSHA != j.HeadSHA {
		w.Log.Info("verify superseded by a newer head", "repo", j.Repo, "pr", j.PR, "head_sha", j.HeadSHA, "current", pr.HeadSHA)
		return nil
	}
	if j.BaseRef != "" && baseRef != j.BaseRef {
		w.Log.Info("verify superseded by a newer base", "repo", j.Repo, "pr", j.PR, "base", j.BaseRef, "current", baseRef)
		return nil
	}
	if w.Supersede != nil {
		// Verifications of other heads queued before GitHub named this
		// head are stale; one queued since may be a newer push, kept.
		if err := w.Supersede(ctx, j.Repo, j.PR, pr.HeadSHA, asked.Add(-supersedeMargin)); err != nil {
			w.Log.Warn("cannot cancel the verifications of older heads", "repo", j.Repo, "pr", j.PR, "err", err)
		}
	}
	if done, err := w.unchanged(ctx, j, pr, baseSHA); err != nil || done {
		return err
	}
	out, err := w.check(ctx, j, pr, baseSHA)
	if err != nil {
		return err
	}
	own := queue.Verdict{Repo: j.Repo, PR: j.PR, HeadSHA: pr.HeadSHA, BaseSHA: baseSHA, BaseRef: baseRef, Conclusion: string(out.Conclusion), Title: out.Title}
	// Pull requests sharing the head post on one check run: recording
	// a verdict, reading the others' and posting are one step at a time.
	var sharing []queue.Verdict
	err = w.locked(ctx, fmt.Sprintf("check:%s@%s", j.Repo, pr.HeadSHA), func() error {
		shown, note, others, err := w.worstOnHead(ctx, j, own, out)
		if err != nil {
			return err
		}
		sharing = others
		out.Comment += note
		_, err = w.GH.PostCheck(ctx, j.InstallationID, j.Repo, pr.HeadSHA, prcheck.CheckName, rerunKey(j), shown)
		return err
	})
	if err != nil {
		return err
	}
	// A stranger's request never spends judge budget, and neither does
	// rewriting a comment to name a pull request sharing the head (its
	// spot-check, if any, stays on its own check run).
	if w.AutoRerun && !j.Stranger && !j.refresh && (out.Conclusion == prcheck.Success || out.Conclusion == prcheck.ActionRequired) {
		err = w.spotCheckAndPost(ctx, j, pr, asked, out)
	} else {
		err = w.sticky(ctx, j, pr, asked, out.Comment)
	}
	if err != nil || w.Verdicts == nil {
		return err
	}
	own.Complete = true
	if err := w.Verdicts.RecordVerdict(ctx, own); err != nil {
		return err
	}
	// The others' comments were written before this verdict was known:
	// each is written again, naming this one (and no further).
	for _, v := range sharing {
		if j.refresh {
			break
		}
		if err := w.VerifyPR(ctx, Job{Kind: KindVerify, DeliveryID: j.DeliveryID, Repo: j.Repo, PR: v.PR, HeadSHA: own.HeadSHA, InstallationID: j.InstallationID, refresh: true}); err != nil {
			return err
		}
	}
	return nil
}

// unchanged reports whether the pull request's head and base are those
// of its last verdict, all of which was posted: the verdict stands, and
// nothing more is read or posted. Only the Re-run button verifies such a
// head again (someone with write access asked, maybe because GitHub lost
// what was posted).
func (w *Worker) unchanged(ctx context.Context, j Job, pr prcheck.PRInfo, baseSHA string) (bool, error) {
	if w.Verdicts == nil || j.refresh || (j.Rerequested && j.CommentID == 0) {
		return false, nil
	}
	last, ok, err := w.Verdicts.LastVerdict(ctx, j.Repo, j.PR)
	if err != nil || !ok || !last.Complete || last.HeadSHA != pr.HeadSHA || last.BaseSHA != baseSHA {
		return false, err
	}
	w.Log.Info("verify answered from the last verdict: head and base are unchanged", "repo", j.Repo, "pr", j.PR, "head_sha", pr.HeadSHA, "base_sha", baseSHA, "conclusion", last.Conclusion, "comment", j.CommentID)
	return true, nil
}

// severity orders conclusions from the one that lets a pull request
// through most readily to the one that blocks it.
func severity(c string) int {
	switch prcheck.Conclusion(c) {
	case prcheck.Success:
		return 0
	case prcheck.Neutral:
		return 1
	case prcheck.ActionRequired:
		return 2
	}
	return 3 // failure, and anything unknown
}

// worstOnHead records own as its pull request's verdict and returns what
// the head's check run shows: out, unless other open pull requests have
// the same head (others), in which case the worst of all their verdicts,
// naming whose it is. note is what own's comment adds about them. The others'
// verdicts are from memory; each is read from GitHub only to see that it
// is still open with this head, so a head of one pull request costs
// nothing more.
func (w *Worker) worstOnHead(ctx context.Context, j Job, own queue.Verdict, out prcheck.CheckOutcome) (shown prcheck.CheckOutcome, note string, others []queue.Verdict, _ error) {
	if w.Verdicts == nil {
		return out, "", nil, nil
	}
	if err := w.Verdicts.RecordVerdict(ctx, own); err != nil {
		return out, "", nil, err
	}
	on, err := w.Verdicts.VerdictsOnHead(ctx, j.Repo, own.HeadSHA)
	if err != nil {
		return out, "", nil, err
	}
	all := []queue.Verdict{own}
	for _, v := range on {
		if v.PR == own.PR {
			continue
		}
		p, ref, _, err := w.GH.PullRequest(ctx, j.InstallationID, j.Repo, v.PR)
		if err != nil {
			return out, "", nil, err
		}
		if p.Closed || p.HeadSHA != own.HeadSHA || ref != v.BaseRef {
			continue // no longer shares this head, or its new base is verified by its own job
		}
		all = append(all, v)
	}
	if len(all) == 1 {
		return out, "", nil, nil
	}
	worst := own
	for _, v := range all[1:] {
		if severity(v.Conclusion) > severity(worst.Conclusion) {
			worst = v
		}
	}
	return sharedOutcome(all, worst, out), sharedNote(all, worst, own), all[1:], nil
}

// closedOnHead posts the check run of head, which closed pull request
// j.PR shared with others, from the verdicts of those still open: the
// worst of theirs, from memory, with nothing verified again and no
// spot-check. A head that no other open pull request has is left as it
// is: no open pull request shows its check.
func (w *Worker) closedOnHead(ctx context.Context, j Job, head string) error {
	if w.Verdicts == nil {
		return nil
	}
	// A closed pull request's verdict no longer stands on the head, whose
	// check may now show another's: reopened, it is verified again rather
	// than answered from memory (unchanged).
	if last, ok, err := w.Verdicts.LastVerdict(ctx, j.Repo, j.PR); err != nil {
		return err
	} else if ok && last.Complete {
		last.Complete = false
		if err := w.Verdicts.RecordVerdict(ctx, last); err != nil {
			return err
		}
	}
	return w.locked(ctx, fmt.Sprintf("check:%s@%s", j.Repo, head), func() error {
		on, err := w.Verdicts.VerdictsOnHead(ctx, j.Repo, head)
		if err != nil {
			return err
		}
		var open []queue.Verdict
		for _, v := range on {
			if v.PR == j.PR {
				continue
			}
			p, ref, _, err := w.GH.PullRequest(ctx, j.InstallationID, j.Repo, v.PR)
			if err != nil {
				return err
			}
			if p.Closed || p.HeadSHA != head || ref != v.BaseRef {
				continue // closed too, moved on, or its new base is verified by its own job
			}
			open = append(open, v)
		}
		if len(open) == 0 {
			return nil
		}
		worst := open[0]
		for _, v := range open[1:] {
			if severity(v.Conclusion) > severity(worst.Conclusion) {
				worst = v
			}
		}
		_, err = w.GH.PostCheck(ctx, j.InstallationID, j.Repo, head, prcheck.CheckName, "", closedOutcome(j.PR, open, worst))
		if err == nil {
			w.Log.Info("the check of a shared head shows the open pull requests' verdicts", "repo", j.Repo, "closed", j.PR, "head_sha", head, "shown", worst.PR, "conclusion", worst.Conclusion)
		}
		return err
	})
}

// closedOutcome is the check run of a head once pull request closed,
// which shared it, is closed: the worst verdict of the open ones, whose
// it is, and each of theirs.
func closedOutcome(closed int, open []queue.Verdict, worst queue.Verdict) prcheck.CheckOutcome {
	return prcheck.CheckOutcome{
		Conclusion: prcheck.Conclusion(worst.Conclusion),
		Title:      fmt.Sprintf("#%d: %s", worst.PR, worst.Title),
		Summary: fmt.Sprintf("#%d, which had this commit as its head, is closed: this check shows the worst verdict of the pull requests still open with this head, #%d's, as last verified (nothing was verified again).\n%s\n\nEach pull request's comment gives its verification; a push or Re-run verifies again.",
			closed, worst.PR, sharedList(open)),
	}
}

// icons are the marks of conclusions in the texts about a shared head.
var icons = map[string]string{string(prcheck.Success): "✅", string(prcheck.Failure): "❌", string(prcheck.ActionRequired): "⚠️", string(prcheck.Neutral): "ℹ️"}

// sharedList names each pull request of a shared head, its base and its
// verdict.
func sharedList(all []queue.Verdict) string {
	var b strings.Builder
	for _, v := range all {
		fmt.Fprintf(&b, "\n- #%d into `%s`: %s %s", v.PR, mdtext.Code(v.BaseRef), icons[v.Conclusion], mdtext.Escape(v.Title))
	}
	return b.String()
}

// sharedOutcome is the check run of a head shared by the pull requests
// all: the worst conclusion, and a summary saying whose it is before own
// outcome's.
func sharedOutcome(all []queue.Verdict, worst queue.Verdict, out prcheck.CheckOutcome) prcheck.CheckOutcome {
	own := all[0]
	shown := out
	shown.Conclusion = prcheck.Conclusion(worst.Conclusion)
	shown.Title = fmt.Sprintf("#%d: %s", worst.PR, worst.Title)
	shown.Summary = fmt.Sprintf("This commit is the head of %d open pull requests, and a check run belongs to a commit, so it shows the worst of their verdicts: #%d's.\n%s\n\nBelow: the verification of #%d.\n\n%s",
		len(all), worst.PR, sharedList(all), own.PR, out.Summary)
	return shown
}

// sharedNote is what the comment of own says about the other pull
// requests with its head.
func sharedNote(all []queue.Verdict, worst, own queue.Verdict) string {
	whose := "this pull request's own"
	if worst.PR != own.PR {
		whose = fmt.Sprintf("#%d's, not this pull request's", worst.PR)
	}
	return fmt.Sprintf("\n\n**This head is shared.** Its commit is the head of %d open pull requests, and the check run on it shows the worst of their verdicts: %s.\n%s\n", len(all), whose, sharedList(all))
}

// moved reports whether the pull request's head is no longer pr.HeadSHA,
// which it was when asked at asked. GitHub is asked again only when the
// queue shows a verification of another head queued since: otherwise
// nothing suggests a push, and a push whose delivery is still on its way
// writes the comment after this job.
func (w *Worker) moved(ctx context.Context, j Job, pr prcheck.PRInfo, asked time.Time) (bool, error) {
	if w.Newer == nil {
		return false, nil
	}
	newer, err := w.Newer(ctx, j.Repo, j.PR, pr.HeadSHA, asked.Add(-supersedeMargin))
	if err != nil || !newer {
		return false, err
	}
	now, _, _, err := w.GH.PullRequest(ctx, j.InstallationID, j.Repo, j.PR)
	if err != nil {
		return false, err
	}
	if now.HeadSHA != pr.HeadSHA {
		w.Log.Info("the branch moved while it was verified: the comment is left to the newer head", "repo", j.Repo, "pr", j.PR, "head_sha", pr.HeadSHA, "current", now.HeadSHA)
		return true, nil
	}
	return false, nil
}

// sticky writes the pull request's one sticky comment, read at asked as
// pr. Finding and creating it run under the pull request's lock (Lock), so
// that two jobs of one pull request never both create it. The comment is
// the pull request's while check runs are each head's own: a head that is
// no longer current leaves it to the newer one (moved). A pull request
// that has no comment at all has no sticky comment to find, so the
// comment is created without listing them; that count is read again under
// the lock, since another job of the pull request may have written the
// comment after this one read it (two re-runs of one suite at once).
func (w *Worker) sticky(ctx context.Context, j Job, pr prcheck.PRInfo, asked time.Time, body string) error {
	return w.locked(ctx, fmt.Sprintf("comment:%s#%d", j.Repo, j.PR), func() error {
		if stale, err := w.moved(ctx, j, pr, asked); err != nil || stale {
			return err
		}
		if pr.Comments == 0 {
			now, _, _, err := w.GH.PullRequest(ctx, j.InstallationID, j.Repo, j.PR)
			if err != nil {
				return err
			}
			if now.Comments == 0 {
				_, err := w.GH.CreateComment(ctx, j.InstallationID, j.Repo, j.PR, body)
				return err
			}
		}
		_, _, err := w.GH.UpsertComment(ctx, j.InstallationID, j.Repo, j.PR, body)
		return err
	})
}

// locked runs fn under the lock named key (Lock), or at once without one.
func (w *Worker) locked(ctx context.Context, key string, fn func() error) error {
	if w.Lock == nil {
		return fn()
	}
	return w.Lock(ctx, key, fn)
}

func (w *Worker) check(ctx context.Context, j Job, pr prcheck.PRInfo, baseSHA string) (prcheck.CheckOutcome, error) {
	pr.Repo, pr.Number = j.Repo, j.PR
	// What the listing settles costs nothing more: only a pull request
	// that may be one submission has its files and the base tree read.
	var listed []prcheck.ChangedFile
	if pr.ChangedFiles < prcheck.MaxListedFiles { // past it, Listed settles it unread
		var err error
		if listed, err = w.GH.ListFiles(ctx, j.InstallationID, j.Repo, j.PR); err != nil {
			return unverifiable(pr, err)
		}
	}
	out, dir, settled := prcheck.Listed(pr, listed)
	if settled {
		return out, nil
	}
	files := listed
	var err error
	if dir != "" {
		if files, err = w.GH.ReadFiles(ctx, j.InstallationID, j.Repo, j.PR, pr.HeadSHA, listed); err != nil {
			return unverifiable(pr, err)
		}
	}
	// A pull request changing more than one submission folder fails
	// whatever its files hold: the base tree says whose submissions it
	// touches, and nothing of it is downloaded.
	base, err := w.GH.BaseFS(ctx, j.InstallationID, j.Repo, baseSHA)
	if err != nil {
		return unverifiable(pr, err)
	}
	if prcheck.NeedsPermission(base, pr, files) {
		if pr.AuthorCanWrite, err = w.GH.CanWrite(ctx, j.InstallationID, j.Repo, pr.Author); err != nil {
			return prcheck.CheckOutcome{}, err
		}
	}
	result := prcheck.CheckPR(base, pr, files, w.Verify)
	if j.Kind == KindAccept {
		// The decision being made replaces any the base holds.
		return result, nil
	}
	return w.withAcceptance(base, pr, result), nil
}

// unverifiable turns a gathering error that no retry changes into the
// check that says so; any other error is returned for the job to retry.
func unverifiable(pr prcheck.PRInfo, err error) (prcheck.CheckOutcome, error) {
	var u *Unverifiable
	if errors.As(err, &u) {
		return prcheck.Unverifiable(pr, u.Conclusion, u.Title, u.Reason), nil
	}
	return prcheck.CheckOutcome{}, err
}

// Rerun spot-checks a pull request's submission when a maintainer asks.
// Anyone else gets a polite reply and nothing runs.
func (w *Worker) Rerun(ctx context.Context, j Job) error {
	asked := time.Now()
	pr, _, _, out, ok, err := w.maintainersCheck(ctx, j, "/benchgate rerun", "spends the leaderboard's judge budget")
	if err != nil || !ok {
		return err
	}
	return w.spotCheckAndPost(ctx, j, pr, asked, out)
}

// maintainersCheck is the start of a maintainer's command on a pull
// request, the same for /benchgate rerun, reproduce and accept: the
// commenter's permission (anyone else is answered, ok false), then the
// pull request (with its base branch) and its submission checked against
// its base.
func (w *Worker) maintainersCheck(ctx context.Context, j Job, command, why string) (pr prcheck.PRInfo, baseRef, baseSHA string, out prcheck.CheckOutcome, ok bool, err error) {
	if ok, err = w.maintainer(ctx, j, command, why); err != nil || !ok {
		return pr, "", "", out, false, err
	}
	pr, baseRef, baseSHA, err = w.GH.PullRequest(ctx, j.InstallationID, j.Repo, j.PR)
	if err != nil {
		return pr, baseRef, baseSHA, out, false, err
	}
	if pr.Closed {
		w.Log.Info(command+" skipped: the pull request is closed", "repo", j.Repo, "pr", j.PR, "comment", j.CommentID)
		return pr, baseRef, baseSHA, out, false, nil
	}
	if baseSHA == "" {
		baseSHA = baseRef
	}
	out, err = w.check(ctx, j, pr, baseSHA)
	return pr, baseRef, baseSHA, out, err == nil, err
}

// spotCheckAndPost runs the spot-check of a verified pull request and
// posts its check run and its section of the sticky comment.
func (w *Worker) spotCheckAndPost(ctx context.Context, j Job, pr prcheck.PRInfo, asked time.Time, out prcheck.CheckOutcome) error {
	rep, refused, err := w.spotCheck(ctx, j, pr, out)
	if err != nil {
		return err
	}
	if refused != "" {
		return w.postRefusal(ctx, j, pr, asked, out, refused)
	}
	if w.OnJudge != nil {
		w.OnJudge(rep.Calls, rep.SpendUSD)
	}
	w.Log.Info("spot-check", "repo", j.Repo, "pr", j.PR, "head_sha", pr.HeadSHA, "verdict", rep.Verdict, "calls", rep.Calls, "spend_usd", rep.SpendUSD)
	// The report, posted, says what failed; the log keeps why, endpoint and all.
	for _, f := range rep.Fixtures {
		if f.Err != nil {
			w.Log.Warn("a spot-check call failed", "repo", j.Repo, "pr", j.PR, "question", f.QuestionID, "fixture", f.FixtureID, "err", f.Err)
		}
	}
	for _, q := range rep.Questions {
		if q.Err != nil {
			w.Log.Warn("a spot-check call failed", "repo", j.Repo, "pr", j.PR, "question", q.ID, "err", q.Err)
		}
	}
	var md bytes.Buffer
	rerun.Render(&md, "markdown", rep)
	rc := prcheck.SpotCheck(spotVerdict(rep.Verdict), md.String())
	if _, err := w.GH.PostCheck(ctx, j.InstallationID, j.Repo, pr.HeadSHA, prcheck.RerunCheckName, "", rc); err != nil {
		return err
	}
	return w.sticky(ctx, j, pr, asked, prcheck.WithSpotCheck(out.Comment, md.String()))
}

// spotCheck runs the spot-check of pull request pr, or names the limit
// that refused it.
func (w *Worker) spotCheck(ctx context.Context, j Job, pr prcheck.PRInfo, out prcheck.CheckOutcome) (_ rerun.Report, refused string, _ error) {
	if out.Submission == "" || out.Report == nil || out.Tree == nil {
		return rerun.Report{Verdict: rerun.VerdictInconclusive, Reason: "this pull request is not a submission that verifies, so there is nothing to spot-check"}, "", nil
	}
	// The tree the check verified: the files are not read from GitHub again.
	v, err := verify.New(out.Tree, w.Verify)
	if err != nil {
		return rerun.Report{}, "", err
	}
	cfg := rerun.Config{Secret: w.RerunSecret, MaxCalls: w.RerunBudget}
	if cfg.MaxCalls == 0 {
		cfg.MaxCalls = DefaultLimits().SpotCheckCalls
	}
	if b, _ := v.Benchmark(out.Report.Submissions[0].RubricKey); b != nil && b.Rubric != nil {
		if w.Judge == nil {
			return rerun.Report{Verdict: rerun.VerdictInconclusive, Reason: "no judge endpoint is configured for this App (BENCHGATE_JUDGE_BASE_URL)"}, "", nil
		}
		if len(w.RerunSecret) == 0 {
			// LoadConfig refuses to start so; a Worker built otherwise
			// must not run a sample its submitter could compute either.
			return rerun.Report{Verdict: rerun.VerdictInconclusive, Reason: "no rerun secret is configured for this App (BENCHGATE_RERUN_SECRET), so a spot-check's sample could be computed by the submitter; none was run"}, "", nil
		}
		// The registry's judge contract, as the CLI sends it.
		cfg.Judge = w.Judge.For(b.Entry)
	}
	var rep rerun.Report
	refused, err = w.budgeted(ctx, j, pr, func(maxUSD float64) (spent, error) {
		cfg.MaxUSD = maxUSD
		var err error
		rep, err = rerun.Check(ctx, v, out.Submission, cfg)
		return spent{calls: rep.Calls, usd: rep.SpendUSD, outOfBudget: rep.OutOfBudget}, err
	})
	return rep, refused, err
}

// spent is what a budgeted check made and spent.
type spent struct {
	calls       int
	usd         float64
	outOfBudget bool // the budget stopped it
	// free: the check found nothing to ask (a reproduction of the harness
	// track, say), so it counts towards none of the limits.
	free bool
}

// budgeted runs a check that spends money under the abuse limits: a
// spot-check or a reproduction, which share them. It is admitted by the
// Budget (all checks run when there is none), run with what it may
// spend, and settled with what it spent; refused names the limit that
// stopped it.
func (w *Worker) budgeted(ctx context.Context, j Job, pr prcheck.PRInfo, run func(maxUSD float64) (spent, error)) (refused string, _ error) {
	if w.Budget == nil {
		_, err := run(0)
		return "", err
	}
	key := spotCheckKey(j)
	// Counted against the pull request's author whoever asked: a flood of
	// pull requests under the auto policy is one author's.
	g, err := w.Budget.Admit(ctx, queue.SpotCheck{Key: key, Repo: j.Repo, PR: j.PR, Author: pr.Author})
	if err != nil {
		return "", err
	}
	if !g.Admitted {
		w.Log.Warn("check refused by a limit", "kind", j.Kind, "repo", j.Repo, "pr", j.PR, "author", pr.Author, "limit", g.Limit)
		return g.Limit, nil
	}
	// The grant is at most the day's budget left; with prices each call
	// reserves its worst case first, so the check never spends past it
	// (without them, the call under way may add its own cost).
	s, err := run(g.MaxUSD)
	if err != nil {
		return "", err
	}
	switch {
	case g.DayLimited && s.outOfBudget && s.calls == 0:
		// What was left of the day's budget did not pay for one call: the
		// day is spent as far as this check goes, so it is refused as such
		// (the maintainers are told when the budget resets) and its
		// admission is withdrawn, counting towards none of the limits.
		w.Log.Warn("check refused by the day's budget before its first call", "kind", j.Kind, "repo", j.Repo, "pr", j.PR, "left_usd", g.MaxUSD)
		return LimitDailySpend, w.Budget.Withdraw(ctx, key, LimitDailySpend)
	case s.free && s.calls == 0:
		return "", w.Budget.Withdraw(ctx, key, "")
	}
	return "", w.Budget.Settle(ctx, key, s.calls, s.usd)
}

// spotCheckKey names a spot-check across its job's retries: the delivery
// that asked for it, so that a retry is not counted again.
func spotCheckKey(j Job) string {
	if j.DeliveryID != "" {
		return string(j.Kind) + ":" + j.DeliveryID
	}
	return fmt.Sprintf("%s:%s#%d@%s", j.Kind, j.Repo, j.PR, j.HeadSHA)
}

// postRefusal tells the pull request that a limit stopped its
// spot-check: a neutral check run, and the reason in the sticky comment.
func (w *Worker) postRefusal(ctx context.Context, j Job, pr prcheck.PRInfo, asked time.Time, out prcheck.CheckOutcome, limit string) error {
	rc := prcheck.SpotCheckRefused(w.Budget.Explain(limit, "/benchgate rerun"))
	if _, err := w.GH.PostCheck(ctx, j.InstallationID, j.Repo, pr.HeadSHA, prcheck.RerunCheckName, "", rc); err != nil {
		return err
	}
	return w.sticky(ctx, j, pr, asked, prcheck.WithSpotCheck(out.Comment, rc.Summary))
}

// Regenerate rebuilds the leaderboard from the default branch and pushes
// it when it changed.
func (w *Worker) Regenerate(ctx context.Context, j Job, branch string) (string, error) {
	token, err := w.Git.Token(ctx, j.InstallationID)
	if err != nil {
		return "", err
	}
	dir := w.BoardDir
	if dir == "" {
		dir = "leaderboard"
	}
	if w.Author == nil {
		return "", errors.New("no commit author: Worker.Author is not set")
	}
	name, email, err := w.Author()
	if err != nil {
		return "", err
	}
	cfg := publish.Config{RepoURL: w.Git.CloneURL(j.Repo), Token: token, Branch: branch, AuthorName: name, AuthorEmail: email, OutDir: dir, History: true}
	switch {
	case w.Propose != nil:
		cfg.PushBranch = ProposalBranch
	case w.BoardBranch != "" && w.BoardBranch != branch:
		cfg.PushBranch = w.BoardBranch
	}
	sha, err := publish.Publish(ctx, cfg, func(ctx context.Context, tree publish.Tree) (map[string][]byte, error) {
		// The commit and pull request that added each submission are read
		// from the clone's history, as `benchgate leaderboard` reads them
		// from a checkout.
		history, err := ranking.GitHistory(tree.Dir, "")
		if err != nil {
			return nil, err
		}
		return w.board(submission.NoLinks(os.DirFS(tree.Dir)), tree.Time, history)
	})
	if err != nil || sha == "" || w.Propose == nil {
		return sha, err
	}
	return sha, w.Propose.ProposePull(ctx, j.InstallationID, j.Repo, ProposalBranch, branch, "Update the leaderboard",
		"benchgate regenerated the leaderboard from `"+branch+"` after the latest merge. Merging this pull request publishes it; a newer merge replaces it.")
}

// board builds the leaderboard of a tree as `benchgate leaderboard`
// does, dated by the day (UTC) the tree's branch last changed: the same
// tree always gives the same files.
func (w *Worker) board(fsys fs.FS, changed time.Time, history ranking.History) (map[string][]byte, error) {
	g, err := ranking.Generate(fsys, ranking.GenerateOptions{
		Verify:  w.Verify,
		Board:   ranking.Options{AsOf: AsOf(changed)},
		Cache:   w.Cache,
		History: history,
		Explore: true, // as `benchgate leaderboard` writes it by default
	})
	if err != nil {
		return nil, err
	}
	return g.Files, nil
}

// AsOf is the date the App prints on a leaderboard built from a branch
// whose head commit was made at t: its day in UTC.
func AsOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

// spotVerdict is what the check run reports of a spot-check's verdict.
func spotVerdict(v rerun.Verdict) prcheck.SpotVerdict {
	switch v {
	case rerun.VerdictConsistent:
		return prcheck.SpotHolds
	case rerun.VerdictInconsistent:
		return prcheck.SpotTooHigh
	}
	return prcheck.SpotUndecided
}

// rerunKey names the new check run of a verification someone asked for
// again (the Re-run button, /benchgate verify): one per request, found
// again by the job's retries. Other verifications update the head's run.
func rerunKey(j Job) string {
	if !j.Rerequested || j.DeliveryID == "" {
		return ""
	}
	return "rerequested:" + j.DeliveryID
}

// verifyHead verifies each open pull request whose head is j.HeadSHA: a
// re-run request from a fork's pull request names none.
func (w *Worker) verifyHead(ctx context.Context, j Job) error {
	if j.HeadSHA == "" {
		return errors.New("a verification names neither a pull request nor a head commit")
	}
	pulls, err := w.GH.OpenPulls(ctx, j.InstallationID, j.Repo)
	if err != nil {
		return err
	}
	found := false
	for _, p := range pulls {
		if p.HeadSHA != j.HeadSHA {
			continue
		}
		found = true
		pj := j
		pj.PR = p.Number
		if err := w.VerifyPR(ctx, pj); err != nil {
			return err
		}
	}
	if !found {
		w.Log.Info("re-run of a head that no open pull request has", "repo", j.Repo, "head_sha", j.HeadSHA)
	}
	return nil
}

// Unverifiable is what GitHub gives that no retry changes and the check
// cannot read, such as a submodule in a pull request or a base branch too
// large for GitHub to list: the check is posted with the reason instead of
// the job retrying until it gives up with no verdict at all.
type Unverifiable struct {
	Conclusion prcheck.Conclusion
	Title      string
	Reason     string // markdown, for the check run and the comment
}

func (u *Unverifiable) Error() string { return u.Title + ": " + u.Reason }
