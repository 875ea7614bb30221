package ghapp

import (
	"context"
	"strings"

	"github.com/benchgate/benchgate/bot"
	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"
)

// appClient is a go-github client acting as the App itself (JWT), for the
// endpoints under /app.
func (a *App) appClient() *github.Client {
	atr := ghinstallation.NewAppsTransportFromPrivateKey(a.rt, a.cfg.AppID, a.key)
	atr.BaseURL = strings.TrimSuffix(a.base.String(), "/")
	return a.newClient(atr)
}

// Installations lists the App's installations.
func (a *App) Installations(ctx context.Context) ([]int64, error) {
	var ids []int64
	opts := &github.ListOptions{PerPage: 100}
	for {
		var list []*github.Installation
		var resp *github.Response
		err := a.callAs(ctx, func() (*github.Client, error) { return a.appClient(), nil }, "listing the App's installations", func(gh *github.Client) (err error) {
			list, resp, err = gh.Apps.ListInstallations(ctx, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, in := range list {
			ids = append(ids, in.GetID())
		}
		if resp.NextPage == 0 {
			return ids, nil
		}
		opts.Page = resp.NextPage
	}
}

// Repositories lists the repositories an installation covers.
func (a *App) Repositories(ctx context.Context, inst int64) ([]string, error) {
	var repos []string
	opts := &github.ListOptions{PerPage: 100}
	for {
		var page *github.ListRepositories
		var resp *github.Response
		err := a.call(ctx, inst, "list the installation's repositories", func(gh *github.Client) (err error) {
			page, resp, err = gh.Apps.ListRepos(ctx, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, r := range page.Repositories {
			repos = append(repos, r.GetFullName())
		}
		if resp.NextPage == 0 {
			return repos, nil
		}
		opts.Page = resp.NextPage
	}
}

// OpenPulls lists a repository's open pull requests with their heads and
// base branches.
func (a *App) OpenPulls(ctx context.Context, inst int64, repo string) ([]bot.OpenPull, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	var out []bot.OpenPull
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		var page []*github.PullRequest
		var resp *github.Response
		err := a.call(ctx, inst, "list open pull requests of "+repo, func(gh *github.Client) (err error) {
			page, resp, err = gh.PullRequests.List(ctx, owner, name, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, pr := range page {
			out = append(out, bot.OpenPull{Number: pr.GetNumber(), HeadSHA: pr.GetHead().GetSHA(), BaseRef: pr.GetBase().GetRef()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// HasCompletedCheck reports whether this App has a completed check run of
// the given name on a commit.
func (a *App) HasCompletedCheck(ctx context.Context, inst int64, repo, headSHA, name string) (bool, error) {
	owner, rname, err := splitRepo(repo)
	if err != nil {
		return false, err
	}
	var runs *github.ListCheckRunsResults
	err = a.call(ctx, inst, "list check runs of "+headSHA, func(gh *github.Client) (err error) {
		runs, _, err = gh.Checks.ListCheckRunsForRef(ctx, owner, rname, headSHA, &github.ListCheckRunsOptions{CheckName: github.String(name)})
		return err
	})
	if err != nil {
		return false, err
	}
	for _, r := range runs.CheckRuns {
		if r.GetStatus() == "completed" && (r.GetApp() == nil || r.GetApp().GetID() == 0 || r.GetApp().GetID() == a.cfg.AppID) {
			return true, nil
		}
	}
	return false, nil
}

// ProposePull opens a pull request from head to base unless one is open
// already (then the pushed branch has updated it).
func (a *App) ProposePull(ctx context.Context, inst int64, repo, head, base, title, body string) error {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return err
	}
	var open []*github.PullRequest
	err = a.call(ctx, inst, "list the leaderboard pull request", func(gh *github.Client) (err error) {
		open, _, err = gh.PullRequests.List(ctx, owner, name, &github.PullRequestListOptions{State: "open", Head: owner + ":" + head, Base: base})
		return err
	})
	if err != nil || len(open) > 0 {
		return err
	}
	return a.call(ctx, inst, "open the leaderboard pull request", func(gh *github.Client) error {
		_, _, err := gh.PullRequests.Create(ctx, owner, name, &github.NewPullRequest{Title: github.String(title), Head: github.String(head), Base: github.String(base), Body: github.String(body)})
		return err
	})
}
