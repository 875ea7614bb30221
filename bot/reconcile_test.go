package bot

import (
	"context"
	"testing"
)

type fakeLister struct{ done map[string]bool }

func (fakeLister) Installations(ctx context.Context) ([]int64, error) { return []int64{1, 2}, nil }
func (fakeLister) Repositories(ctx context.Context, inst int64) ([]string, error) {
	return map[int64][]string{1: {"geo/a"}, 2: {"geo/b"}}[inst], nil
}
func (fakeLister) OpenPulls(ctx context.Context, inst int64, repo string) ([]OpenPull, error) {
	return []OpenPull{{Number: 1, HeadSHA: repo + "-h1"}, {Number: 2, HeadSHA: repo + "-h2"}}, nil
}
func (l fakeLister) HasCompletedCheck(ctx context.Context, inst int64, repo, head, name string) (bool, error) {
	return l.done[head], nil
}

func TestReconcile(t *testing.T) {
	q := &memQueue{}
	l := fakeLister{done: map[string]bool{"geo/a-h2": true}}
	n, err := Reconcile(context.Background(), l, q, quietLog())
	if err != nil || n != 3 {
		t.Fatalf("queued %d, %v; want the 3 heads without a completed check", n, err)
	}
	for _, j := range q.jobs {
		if j.Kind != KindVerify || j.HeadSHA == "geo/a-h2" || (j.Repo == "geo/b") != (j.InstallationID == 2) {
			t.Errorf("job %+v", j)
		}
	}
	// Reconciling again queues nothing twice.
	if n, _ := Reconcile(context.Background(), l, q, quietLog()); n != 0 || len(q.jobs) != 3 {
		t.Errorf("second reconcile queued %d", n)
	}
}
