package ghapp

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/safetext"
)

// maxAnnotationText is GitHub's limit on an annotation's message.
const maxAnnotationText = 64 << 10

// PostCheck posts out as the check run name (prcheck.CheckName when empty) on
// headSHA. There is one such run per head and name: an existing run of
// this App is updated rather than a second one created. Annotations go 50
// to a request, across the create or first update and further updates.
// GitHub appends annotations on every update and cannot remove them, so
// annotations an earlier post on the same run already made are not sent
// again.
//
// key, when set, names a run of its own (its external_id): a re-run that
// someone asked for gets a new run rather than an edit of the one they
// asked to run again, and the job's retries find that same run.
func (a *App) PostCheck(ctx context.Context, inst int64, repo, headSHA, name, key string, out prcheck.CheckOutcome) (int64, error) {
	owner, rname, err := splitRepo(repo)
	if err != nil {
		return 0, err
	}
	if name == "" {
		name = prcheck.CheckName
	}
	existing, err := a.findCheckRun(ctx, inst, owner, rname, headSHA, name, key)
	if err != nil {
		return 0, err
	}
	anns := convertAnnotations(out.Annotations)
	if existing != nil && existing.GetOutput().GetAnnotationsCount() > 0 {
		sent, err := a.checkRunAnnotations(ctx, inst, owner, rname, existing.GetID())
		if err != nil {
			return 0, err
		}
		anns = slicesDeleteSent(anns, sent)
	}
	var batches [][]*github.CheckRunAnnotation
	for len(anns) > prcheck.MaxAnnotationsPerRequest {
		batches = append(batches, anns[:prcheck.MaxAnnotationsPerRequest])
		anns = anns[prcheck.MaxAnnotationsPerRequest:]
	}
	batches = append(batches, anns) // the first request goes even with none
	title, summary := orDash(out.Title), orDash(out.Summary)
	output := func(batch []*github.CheckRunAnnotation) *github.CheckRunOutput {
		return &github.CheckRunOutput{Title: github.String(title), Summary: github.String(summary), Annotations: batch}
	}
	what := fmt.Sprintf("posting check %q on %s@%s", name, repo, headSHA)
	var id int64
	if existing == nil {
		err = a.call(ctx, inst, what, func(gh *github.Client) error {
			opts := github.CreateCheckRunOptions{
				Name: name, HeadSHA: headSHA,
				Status: github.String("completed"), Conclusion: github.String(string(out.Conclusion)),
				Output: output(batches[0]),
			}
			if key != "" {
				opts.ExternalID = github.String(key)
			}
			run, _, err := gh.Checks.CreateCheckRun(ctx, owner, rname, opts)
			if err == nil {
				id = run.GetID()
			}
			return err
		})
		if err != nil {
			return 0, err
		}
		batches = batches[1:]
	} else {
		id = existing.GetID()
	}
	for i, batch := range batches {
		opts := github.UpdateCheckRunOptions{Name: name, Output: output(batch)}
		if existing != nil && i == 0 {
			opts.Status, opts.Conclusion = github.String("completed"), github.String(string(out.Conclusion))
		}
		err := a.call(ctx, inst, what, func(gh *github.Client) error {
			_, _, err := gh.Checks.UpdateCheckRun(ctx, owner, rname, id, opts)
			return err
		})
		if err != nil {
			return id, err
		}
	}
	return id, nil
}

// findCheckRun returns this App's run named name on headSHA, the newest
// when there are several (with key set, only one whose external_id is
// key), or nil. Other Apps may use the same name; their runs are not ours
// to update.
func (a *App) findCheckRun(ctx context.Context, inst int64, owner, repo, headSHA, name, key string) (*github.CheckRun, error) {
	opts := &github.ListCheckRunsOptions{CheckName: github.String(name), Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}}
	for {
		var res *github.ListCheckRunsResults
		var resp *github.Response
		err := a.call(ctx, inst, fmt.Sprintf("listing check runs on %s@%s", repo, headSHA), func(gh *github.Client) error {
			var err error
			res, resp, err = gh.Checks.ListCheckRunsForRef(ctx, owner, repo, headSHA, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		var best *github.CheckRun
		for _, r := range res.CheckRuns {
			if r.GetName() != name || r.GetHeadSHA() != headSHA || r.GetApp().GetID() != a.cfg.AppID || (key != "" && r.GetExternalID() != key) {
				continue
			}
			if best == nil || r.GetID() > best.GetID() {
				best = r
			}
		}
		if best != nil {
			return best, nil
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// checkRunAnnotations lists the annotations a run already carries.
func (a *App) checkRunAnnotations(ctx context.Context, inst int64, owner, repo string, id int64) ([]*github.CheckRunAnnotation, error) {
	var all []*github.CheckRunAnnotation
	opts := &github.ListOptions{PerPage: 100}
	for {
		var page []*github.CheckRunAnnotation
		var resp *github.Response
		err := a.call(ctx, inst, fmt.Sprintf("listing the annotations of check run %d", id), func(gh *github.Client) error {
			var err error
			page, resp, err = gh.Checks.ListCheckRunAnnotations(ctx, owner, repo, id, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

type annKey struct {
	path, level, title, message string
	start, end                  int
}

func keyOf(a *github.CheckRunAnnotation) annKey {
	return annKey{a.GetPath(), a.GetAnnotationLevel(), a.GetTitle(), a.GetMessage(), a.GetStartLine(), a.GetEndLine()}
}

// slicesDeleteSent drops the annotations already present on the run, each
// present one cancelling one of ours.
func slicesDeleteSent(anns, sent []*github.CheckRunAnnotation) []*github.CheckRunAnnotation {
	have := map[annKey]int{}
	for _, s := range sent {
		have[keyOf(s)]++
	}
	var out []*github.CheckRunAnnotation
	for _, a := range anns {
		if k := keyOf(a); have[k] > 0 {
			have[k]--
			continue
		}
		out = append(out, a)
	}
	return out
}

// convertAnnotations shapes the core's annotations as GitHub accepts them:
// one it would refuse would fail the whole request, so lines are made
// valid, an unknown level becomes a warning, and a finding with no file
// (which GitHub cannot place) is left to the summary, which has it anyway.
func convertAnnotations(in []prcheck.Annotation) []*github.CheckRunAnnotation {
	var out []*github.CheckRunAnnotation
	for _, a := range in {
		if a.Path == "" {
			continue
		}
		start := max(a.StartLine, 1)
		end := max(a.EndLine, start)
		level := a.Level
		if level != prcheck.LevelNotice && level != prcheck.LevelWarning && level != prcheck.LevelFailure {
			level = prcheck.LevelWarning
		}
		msg := a.Message
		if msg == "" {
			msg = orDash(a.Title)
		}
		ann := &github.CheckRunAnnotation{
			Path: github.String(a.Path), StartLine: github.Int(start), EndLine: github.Int(end),
			AnnotationLevel: github.String(string(level)), Message: github.String(safetext.Cut(msg, maxAnnotationText)),
		}
		if a.Title != "" {
			ann.Title = github.String(safetext.Cut(a.Title, 255))
		}
		out = append(out, ann)
	}
	return out
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// UpsertComment keeps the App's one sticky comment on a pull request: the
// App's own comment that prcheck.IsSticky recognises is edited when body
// differs (changed reports an edit or a creation), and created when there
// is none. Only a comment by the App's bot user (Identity.BotLogin) of
// type Bot counts, so a marker pasted by anyone else is ignored.
func (a *App) UpsertComment(ctx context.Context, inst int64, repo string, number int, body string) (int64, bool, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return 0, false, err
	}
	mine, err := a.ownComment(ctx, inst, repo, number, prcheck.IsSticky)
	if err != nil {
		return 0, false, err
	}
	what := fmt.Sprintf("writing the comment on %s#%d", repo, number)
	if mine != nil {
		if mine.GetBody() == body {
			return mine.GetID(), false, nil
		}
		err := a.call(ctx, inst, what, func(gh *github.Client) error {
			_, _, err := gh.Issues.EditComment(ctx, owner, name, mine.GetID(), &github.IssueComment{Body: github.String(body)})
			return err
		})
		return mine.GetID(), err == nil, err
	}
	id, err := a.CreateComment(ctx, inst, repo, number, body)
	if err != nil {
		return 0, false, err
	}
	return id, true, nil
}

// CreateComment adds a comment to an issue or pull request, without
// looking for one to edit.
func (a *App) CreateComment(ctx context.Context, inst int64, repo string, number int, body string) (int64, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return 0, err
	}
	var id int64
	err = a.call(ctx, inst, fmt.Sprintf("writing the comment on %s#%d", repo, number), func(gh *github.Client) error {
		c, _, err := gh.Issues.CreateComment(ctx, owner, name, number, &github.IssueComment{Body: github.String(body)})
		if err == nil {
			id = c.GetID()
		}
		return err
	})
	return id, err
}

// ownComment finds the App's own comment on an issue or pull request
// whose body matches; nil when there is none. Only a comment by
// the App's bot user (Identity.BotLogin) of type Bot counts.
func (a *App) ownComment(ctx context.Context, inst int64, repo string, number int, match func(body string) bool) (*github.IssueComment, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	me, ok := a.Identity()
	if !ok {
		return nil, ErrNoIdentity
	}
	login := me.BotLogin
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		var page []*github.IssueComment
		var resp *github.Response
		err := a.call(ctx, inst, fmt.Sprintf("listing the comments of %s#%d", repo, number), func(gh *github.Client) error {
			var err error
			page, resp, err = gh.Issues.ListComments(ctx, owner, name, number, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, c := range page {
			u := c.GetUser()
			if strings.EqualFold(u.GetLogin(), login) && u.GetType() == "Bot" && match(c.GetBody()) {
				return c, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// Reply posts a plain comment on an issue or pull request, once: when the
// App already said exactly this there, nothing is posted, so that a flood
// of the same request (or a retried job) gets one answer.
func (a *App) Reply(ctx context.Context, inst int64, repo string, number int, body string) error {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return err
	}
	said, err := a.ownComment(ctx, inst, repo, number, func(b string) bool { return b == body })
	if err != nil || said != nil {
		return err
	}
	return a.call(ctx, inst, fmt.Sprintf("replying on %s#%d", repo, number), func(gh *github.Client) error {
		_, _, err := gh.Issues.CreateComment(ctx, owner, name, number, &github.IssueComment{Body: github.String(body)})
		return err
	})
}
