package queue

import (
	"context"
	"errors"
	"time"
)

// Work that was done is remembered by what it is, not by the delivery
// that asked for it: a captured delivery, signed and all, can be sent
// again under a new X-GitHub-Delivery id at any time (the signature has
// no date), and River keeps a job's row only CompletedRetention. The
// memory is two tables beside the jobs:
//
//   - benchgate_work holds the key of each piece of work queued once
//     (a command's comment, a pull request's head on a base): an enqueue
//     whose key is there is a duplicate, whatever its delivery id.
//   - benchgate_verdict holds each pull request's last verdict: the head
//     and base it was made for, and its conclusion. A request to verify
//     what was already verified is answered from it, and the check run of
//     a head shared by several pull requests shows the worst of theirs.
//
// Both are kept WorkRetention (DefaultWorkRetention), far beyond the life
// of a job's row.

// DefaultWorkRetention is how long done work and verdicts are remembered.
// A replay is refused for as long as its work is remembered; 90 days
// outlasts the open life of nearly every pull request, and past it a
// replay still meets the job's own checks: a closed or merged pull
// request is never verified again, and a pull request's spot-checks are
// counted for ever (Limits.SpotChecksPerPR). A row is a few hundred
// bytes, one per command or pushed head.
const DefaultWorkRetention = 90 * 24 * time.Hour

// Verdict is the last verification of a pull request.
type Verdict struct {
	Repo    string
	PR      int
	HeadSHA string
	BaseSHA string
	BaseRef string
	// Conclusion is the check run's conclusion (success, failure, …).
	Conclusion string
	// Title is the check run's title, to name the verdict elsewhere.
	Title string
	At    time.Time
	// Complete: everything the verification posts was posted. A verdict
	// is recorded before its check run, so that pull requests sharing a
	// head see each other's, and completed after its comment: a job
	// retried after a failure in between does not take it for done.
	Complete bool
}

// retryTarget names the verifications whose waiting retries a new request
// supersedes: of the head, or (head unknown, as for a comment) of the
// pull request.
type retryTarget struct {
	repo string
	pr   int
	head string
}

// rerequest is the retryTarget of a verification someone asked for again
// (the Re-run button, /benchgate verify), nil for any other: its waiting
// retry would otherwise hold the unique key and make the request a
// duplicate that does nothing until the retry's back-off ends.
func (a VerifyArgs) rerequest() *retryTarget {
	if !a.Rerequested {
		return nil
	}
	return &retryTarget{repo: a.Repo, pr: a.PR, head: a.HeadSHA}
}

// RecordVerdict remembers v as its pull request's last verdict.
func (q *Queue) RecordVerdict(ctx context.Context, v Verdict) error {
	if v.Repo == "" || v.PR == 0 || v.HeadSHA == "" {
		return errors.New("queue: a verdict names its repository, pull request and head")
	}
	if v.At.IsZero() {
		v.At = time.Now()
	}
	return q.b.recordVerdict(ctx, v)
}

// LastVerdict is the last verdict of repo's pull request pr, if one is
// remembered.
func (q *Queue) LastVerdict(ctx context.Context, repo string, pr int) (Verdict, bool, error) {
	return q.b.lastVerdict(ctx, repo, pr)
}

// VerdictsOnHead are the last verdicts of repo's pull requests that were
// made for head, by pull request number.
func (q *Queue) VerdictsOnHead(ctx context.Context, repo, head string) ([]Verdict, error) {
	return q.b.verdictsOnHead(ctx, repo, head)
}

// RememberedWork reports whether the work named key is remembered.
func (q *Queue) RememberedWork(ctx context.Context, key string) (bool, error) {
	return q.b.rememberedWork(ctx, key)
}

// workTable is the memory of queued work; created_at is Unix seconds in
// both databases, so that pruning needs no clock of the database's.
const workTable = `(
	work_key text PRIMARY KEY,
	kind text NOT NULL,
	created_at bigint NOT NULL
)`

// verdictTable is each pull request's last verdict.
const verdictTable = `(
	repo text NOT NULL,
	pr bigint NOT NULL,
	head_sha text NOT NULL,
	base_sha text NOT NULL,
	base_ref text NOT NULL,
	conclusion text NOT NULL,
	title text NOT NULL,
	at bigint NOT NULL,
	complete bigint NOT NULL,
	PRIMARY KEY (repo, pr)
)`

// complete is Verdict.Complete as both databases store it.
func complete(v Verdict) int64 {
	if v.Complete {
		return 1
	}
	return 0
}
