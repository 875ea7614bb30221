package bot

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/queue"
)

// OpenPull is an open pull request, its head and its base branch.
type OpenPull struct {
	Number  int
	HeadSHA string
	BaseRef string
}

// VerdictReader is the memory of each pull request's last verdict that
// Reconcile reads; QueueAdapter is one.
type VerdictReader interface {
	LastVerdict(ctx context.Context, repo string, pr int) (queue.Verdict, bool, error)
}

// LastVerdict implements VerdictReader from the queue's memory.
func (a QueueAdapter) LastVerdict(ctx context.Context, repo string, pr int) (queue.Verdict, bool, error) {
	return a.Q.LastVerdict(ctx, repo, pr)
}

// verdictHolds reports whether p's last verdict, all of it posted, was
// made for its head on its base branch. A check run belongs to a commit,
// not to a pull request: a head shared by two pull requests has a
// completed check once either is verified, so only the verdict memory
// says that the other, whose delivery was lost, was verified too. The
// base is compared by branch: its commit moves with every merge, which
// GitHub announces to no pull request and which is no missed delivery.
func verdictHolds(ctx context.Context, mem VerdictReader, repo string, p OpenPull) (bool, error) {
	v, ok, err := mem.LastVerdict(ctx, repo, p.Number)
	if err != nil || !ok {
		return false, err
	}
	return v.Complete && v.HeadSHA == p.HeadSHA && (p.BaseRef == "" || v.BaseRef == p.BaseRef), nil
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
// head has no completed benchgate check or, when q remembers verdicts
// (VerdictReader), that has no verdict for its head on its base:
// deliveries lost while the App was down, or never sent, are healed. The
// memory is local, so a pull request without a verdict is queued without
// asking GitHub for its check, and one with a verdict costs the check's
// read as before. A job waiting or running for the head keeps its place
// (jobs are unique per head while they wait or run), so reconciling
// twice queues nothing twice. It returns how many it queued.
func Reconcile(ctx context.Context, l Lister, q Enqueuer, log *slog.Logger) (int, error) {
	mem, _ := q.(VerdictReader)
	// Each pass has delivery ids of its own: a fixed id per head would be
	// remembered as seen, and the head's next pass, after a job that
	// failed for good, would queue nothing for as long as delivery ids
	// are kept.
	pass := time.Now().UnixNano()
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
				held := true
				if mem != nil {
					if held, err = verdictHolds(ctx, mem, repo, p); err != nil {
						return queued, err
					}
				}
				if held {
					done, err := l.HasCompletedCheck(ctx, inst, repo, p.HeadSHA, prcheck.CheckName)
					if err != nil || done {
						continue
					}
				}
				inserted, err := q.Enqueue(ctx, Job{Kind: KindVerify, DeliveryID: fmt.Sprintf("reconcile-%d-%s#%d", pass, repo, p.Number), Repo: repo, PR: p.Number, HeadSHA: p.HeadSHA, InstallationID: inst})
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

// ReconcileEvery reconciles every interval until ctx ends, while lead
// reports true: of several replicas only the queue's maintainer lists
// GitHub, since each pass costs REST calls of the installation's hourly
// budget. A replica that becomes the maintainer reconciles at once: the
// one before it may have died with work undone. A nil lead always leads.
func ReconcileEvery(ctx context.Context, interval time.Duration, lead func() bool, l Lister, q Enqueuer, log *slog.Logger) {
	check := min(interval, reconcileCheck)
	var last time.Time
	was := false
	for {
		leading := lead == nil || lead()
		if leading && (!was || time.Since(last) >= interval) {
			last = time.Now()
			if n, err := Reconcile(ctx, l, q, log); err != nil {
				log.Warn("reconcile failed", "err", err)
			} else if n > 0 {
				log.Info("reconcile done", "queued", n)
			}
		}
		was = leading
		select {
		case <-ctx.Done():
			return
		case <-time.After(check):
		}
	}
}

// reconcileCheck is how often ReconcileEvery asks whether it leads; a
// variable for tests.
var reconcileCheck = 10 * time.Second
