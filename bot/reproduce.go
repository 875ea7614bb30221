package bot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/publish"
	"github.com/benchgate/benchgate/internal/mdtext"
	"github.com/benchgate/benchgate/judge"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// Candidate is the endpoint /benchgate reproduce asks for the model a
// submission names (BENCHGATE_CANDIDATE_*).
type Candidate struct {
	LLM llm.Completer
	// Endpoint is its host, for the report and the record.
	Endpoint string
	// Models maps model ids to the ids the endpoint serves them under,
	// adding to each benchmark's reproduce_models.
	Models map[string]string
	// Prices, when set, are its USD per million tokens: each call then
	// reserves its worst case before it is made.
	Prices *judge.Prices
}

// reproduceCheck is what a reproduction's check run says of each verdict.
var reproduceCheck = map[reproduce.Verdict]struct {
	conclusion prcheck.Conclusion
	title      string
}{
	reproduce.Consistent:   {prcheck.Success, "The named model gives the claimed answers"},
	reproduce.Inconsistent: {prcheck.Failure, "The claimed answers are better than the named model's"},
	reproduce.Inconclusive: {prcheck.ActionRequired, "A maintainer must decide"},
	reproduce.Unreachable:  {prcheck.Neutral, "Not reproducible through the candidate endpoint"},
}

// Reproduce asks the model a pull request's submission names a sample of
// its questions again when a maintainer asks (/benchgate reproduce),
// under the spot-check's limits and budget; posts the report as a check
// run and a section of the sticky comment; commits the record to the
// leaderboard repository's default branch; and regenerates the board, on
// which the entry is then marked while its submission is this version.
// Anyone else gets a polite reply and nothing runs.
func (w *Worker) Reproduce(ctx context.Context, j Job) error {
	asked := time.Now()
	pr, baseRef, _, out, ok, err := w.maintainersCheck(ctx, j, "/benchgate reproduce", "asks the model the submission names again, at the leaderboard's expense")
	if err != nil || !ok {
		return err
	}
	rep, refused, err := w.reproduce(ctx, j, pr, out)
	if err != nil {
		return err
	}
	if refused != "" {
		rc := prcheck.ReproductionRefused(w.Budget.Explain(refused, "/benchgate reproduce"))
		if _, err := w.GH.PostCheck(ctx, j.InstallationID, j.Repo, pr.HeadSHA, prcheck.ReproduceCheckName, "", rc); err != nil {
			return err
		}
		return w.sticky(ctx, j, pr, asked, prcheck.WithSpotCheck(out.Comment, rc.Summary))
	}
	// Its spend is in the ledger (and so in the day's spend on /metrics);
	// the judge counters (OnJudge) count spot-checks' judge calls only.
	w.Log.Info("reproduction", "repo", j.Repo, "pr", j.PR, "head_sha", pr.HeadSHA, "verdict", rep.Verdict, "calls", rep.Calls, "spend_usd", rep.SpendUSD)
	for _, q := range rep.Questions {
		if q.Err != nil {
			w.Log.Warn("a reproduction call failed", "repo", j.Repo, "pr", j.PR, "question", q.ID, "err", q.Err)
		}
	}
	var md bytes.Buffer
	if err := reproduce.Render(&md, "markdown", rep); err != nil {
		return err
	}
	if rep.Digest != "" {
		note, err := w.record(ctx, j, baseRef, rep, asked)
		if err != nil {
			// The check is not run again for want of its record, which
			// would spend its budget again: the report says so, and how
			// to record it by hand.
			w.Log.Error("the reproduction's record could not be committed", "repo", j.Repo, "pr", j.PR, "err", err)
			seed := ""
			if rep.Seed != "" {
				seed = " --seed " + rep.Seed
			}
			note = fmt.Sprintf("The record could not be committed (%s). A maintainer can write it with `benchgate reproduce %s%s --record`, which asks the same sample again, and push it.",
				mdtext.Escape(err.Error()), mdtext.Code(rep.Path), seed)
		}
		md.WriteString("\n" + note + "\n")
	}
	v := reproduceCheck[rep.Verdict]
	rc := prcheck.Reproduction(v.conclusion, v.title, md.String())
	if _, err := w.GH.PostCheck(ctx, j.InstallationID, j.Repo, pr.HeadSHA, prcheck.ReproduceCheckName, "", rc); err != nil {
		return err
	}
	return w.sticky(ctx, j, pr, asked, prcheck.WithSpotCheck(out.Comment, md.String()))
}

// maintainer reports whether the commenter of j may run command, which
// spends the leaderboard's money as what says; anyone else is told so,
// once.
func (w *Worker) maintainer(ctx context.Context, j Job, command, what string) (bool, error) {
	ok, err := w.GH.CanWrite(ctx, j.InstallationID, j.Repo, j.Commenter)
	if err != nil || ok {
		return ok, err
	}
	// A comment's user may be null on GitHub (a deleted account): it is
	// nobody to mention, and not a collaborator.
	thanks := "Thanks"
	if j.Commenter != "" {
		thanks += ", @" + j.Commenter
	}
	return false, w.locked(ctx, fmt.Sprintf("comment:%s#%d", j.Repo, j.PR), func() error {
		return w.GH.Reply(ctx, j.InstallationID, j.Repo, j.PR, fmt.Sprintf("%s. `%s` %s, so only maintainers (write permission or more) can start it; a maintainer will look at this submission.", thanks, command, what))
	})
}

// reproduce runs the reproduction of pull request pr, or names the limit
// that refused it. It is reproduce.Check, the CLI's, with the App's
// candidate endpoint, judge, secret and budget.
func (w *Worker) reproduce(ctx context.Context, j Job, pr prcheck.PRInfo, out prcheck.CheckOutcome) (_ reproduce.Report, refused string, _ error) {
	undecided := func(reason string) (reproduce.Report, string, error) {
		return reproduce.Report{Path: out.Submission, Verdict: reproduce.Inconclusive, Reason: reason, Questions: []reproduce.Question{}}, "", nil
	}
	if out.Submission == "" || out.Report == nil || out.Tree == nil {
		return undecided("this pull request is not a submission that verifies, so there is nothing to reproduce")
	}
	if w.Candidate == nil {
		return undecided("no candidate endpoint is configured for this App (BENCHGATE_CANDIDATE_API_KEY, or BENCHGATE_CANDIDATE_BASE_URL), so the model cannot be asked")
	}
	if len(w.RerunSecret) == 0 {
		// LoadConfig refuses to start so; a Worker built otherwise must
		// not ask a sample its submitter could compute either.
		return undecided("no rerun secret is configured for this App (BENCHGATE_RERUN_SECRET), so a reproduction's sample could be computed by the submitter; none was run")
	}
	// The tree the check verified: the files are not read from GitHub again.
	v, err := verify.New(out.Tree, w.Verify)
	if err != nil {
		return reproduce.Report{}, "", err
	}
	cfg := reproduce.Config{Candidate: w.Candidate.LLM, Models: w.Candidate.Models, Prices: w.Candidate.Prices, Endpoint: w.Candidate.Endpoint, Secret: w.RerunSecret, MaxCalls: w.RerunBudget}
	if cfg.MaxCalls == 0 {
		cfg.MaxCalls = DefaultLimits().SpotCheckCalls
	}
	if b, _ := v.Benchmark(out.Report.Submissions[0].RubricKey); b != nil && b.Rubric != nil {
		if w.Judge == nil {
			return undecided("no judge endpoint is configured for this App (BENCHGATE_JUDGE_BASE_URL), which grades the answers of a rubric benchmark")
		}
		cfg.Judge = w.Judge.For(b.Entry)
	}
	var rep reproduce.Report
	refused, err = w.budgeted(ctx, j, pr, func(maxUSD float64) (spent, error) {
		cfg.MaxUSD = maxUSD
		var err error
		rep, err = reproduce.Check(ctx, v, out.Submission, cfg)
		return spent{calls: rep.Calls, usd: rep.SpendUSD, outOfBudget: rep.OutOfBudget, free: len(rep.Questions) == 0}, err
	})
	return rep, refused, err
}

// recordBranch is the branch of the App's pull request proposing the
// record of the submission in folder f, when the default branch is
// protected (BENCHGATE_PUBLISH=pr).
func recordBranch(f submission.Folder) string {
	return "benchgate/reproduction/" + string(f.Track) + "/" + f.Slug
}

// record commits rep's record to branch, the leaderboard repository's
// default branch, as the App commits the board, and regenerates the board
// from it; with BENCHGATE_PUBLISH=pr it proposes the record in a pull
// request instead. A decided record (consistent or inconsistent) of the
// same version of the submission is not replaced by an undecided one. It
// returns what it did, for the report.
func (w *Worker) record(ctx context.Context, j Job, baseRef string, rep reproduce.Report, at time.Time) (string, error) {
	branch := j.Branch
	if branch == "" {
		branch = baseRef
	}
	f, ok := submission.ParseFolder(rep.Path)
	if !ok {
		return "", fmt.Errorf("%s is not a submission folder, so its record has no place", rep.Path)
	}
	file := reproduce.RecordPath(f)
	data, err := reproduce.NewRecord(rep, at).Encode()
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
		Message: fmt.Sprintf("Record the reproduction of %s: %s (benchgate)", rep.Path, rep.Verdict)}
	if w.Propose != nil {
		cfg.PushBranch = recordBranch(f)
	}
	kept := false
	sha, err := publish.Write(ctx, cfg, func(_ context.Context, tree publish.Tree) (map[string][]byte, error) {
		kept = false
		if old, err := os.ReadFile(filepath.Join(tree.Dir, filepath.FromSlash(file))); err == nil {
			if rec, _ := reproduce.ParseRecord(file, old); rec != nil && rec.Digest == rep.Digest && decided(rec.Verdict) && !decided(rep.Verdict) {
				kept = true
				return nil, nil
			}
		}
		return map[string][]byte{file: data}, nil
	})
	switch {
	case err != nil:
		return "", err
	case kept:
		return fmt.Sprintf("The record `%s` on `%s` keeps its decided verdict on this version of the submission; this undecided one is not recorded.", file, branch), nil
	case sha == "":
		return fmt.Sprintf("`%s` on `%s` already holds this record.", file, branch), nil
	case w.Propose != nil:
		err := w.Propose.ProposePull(ctx, j.InstallationID, j.Repo, cfg.PushBranch, branch, "Record the reproduction of "+rep.Path,
			fmt.Sprintf("benchgate reproduced `%s` (pull request #%d): %s. Merging this pull request records it in `%s`; the leaderboard shows it once the submission is on `%s`.", rep.Path, j.PR, rep.Verdict, file, branch))
		return fmt.Sprintf("Recorded in `%s`, proposed for `%s` in a pull request from `%s`.", file, branch, cfg.PushBranch), err
	}
	if _, err := w.Regenerate(ctx, j, branch); err != nil {
		return "", err
	}
	return fmt.Sprintf("Recorded in `%s` on `%s` (commit %s); the leaderboard marks the entry while its submission is this version.", file, branch, sha), nil
}

// decided reports whether a verdict settles the question: a later check
// that could not settle it does not replace it.
func decided(v reproduce.Verdict) bool {
	return v == reproduce.Consistent || v == reproduce.Inconsistent
}
