package bot

import (
	"context"
	"log/slog"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
)

// OpenPull is an open pull request and its head.
type OpenPull struct {
	Number  int
	HeadSHA string
}

// Lister finds the work that webhooks may have missed; package ghapp
// implements it.
type Lister interface {
	Installations(ctx context.Context) ([]int64, error)
	Repositories(ctx context.Context, inst int64) ([]string, error)
	OpenPulls(ctx context.Context, inst int64, repo string) ([]OpenPull, error)
	HasCompletedCheck(ctx context.Context, inst int64, repo, headSHA, name string) (bool, error)
}

// Reconcile queues the verification of every open pull request whose
// head has no completed benchgate check: deliveries lost while the App
// was down, or never sent, are healed. Queued jobs are unique per head,
// so reconciling twice queues nothing twice. It returns how many it
// queued.
func Reconcile(ctx context.Context, l Lister, q Enqueuer, log *slog.Logger) (int, error) {
	insts, err := l.Installations(ctx)
	if err != nil {
		return 0, err
	}
	queued := 0
	for _, inst := range insts {
		repos, err := l.Repositories(ctx, inst)
		if err != nil {
			log.Warn("reconcile: cannot list repositories", "installation", inst, "err", err)
			continue
		}
		for _, repo := range repos {
			pulls, err := l.OpenPulls(ctx, inst, repo)
			if err != nil {
				log.Warn("reconcile: cannot list pull requests", "repo", repo, "err", err)
				continue
			}
			for _, p := range pulls {
				done, err := l.HasCompletedCheck(ctx, inst, repo, p.HeadSHA, prcheck.CheckName)
				if err != nil || done {
					continue
				}
				inserted, err := q.Enqueue(ctx, Job{Kind: KindVerify, DeliveryID: "reconcile-" + repo + "-" + p.HeadSHA, Repo: repo, PR: p.Number, HeadSHA: p.HeadSHA, InstallationID: inst})
				if err != nil {
					return queued, err
				}
				if inserted {
					queued++
					log.Info("reconcile: queued a missed verification", "repo", repo, "pr", p.Number, "head_sha", p.HeadSHA)
				}
			}
		}
	}
	return queued, nil
}

// ReconcileEvery reconciles at once and then every interval until ctx
// ends.
func ReconcileEvery(ctx context.Context, interval time.Duration, l Lister, q Enqueuer, log *slog.Logger) {
	for {
		if n, err := Reconcile(ctx, l, q, log); err != nil {
			log.Warn("reconcile failed", "err", err)
		} else if n > 0 {
			log.Info("reconcile done", "queued", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
