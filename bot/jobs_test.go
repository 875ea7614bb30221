package bot

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/internal/gitserver"
	"github.com/benchgate/benchgate/verify"
)

var checkOpts = verify.Options{Today: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}

// memGH is GitHub as the jobs see it, in memory: one pull request, a
// base tree, and what was posted.
type memGH struct {
	mu       sync.Mutex
	base     fs.FS
	pr       prcheck.PRInfo
	files    []prcheck.ChangedFile
	writers  map[string]bool
	checks   map[string]prcheck.CheckOutcome // by head and name: one run each
	posts    int
	comment  string
	comments int
	replies  []string
	moves    []string // heads the branch moves to, one after each read of the pull request
	reads    int      // ReadFiles calls
}

func (g *memGH) ListFiles(ctx context.Context, inst int64, repo string, n int) ([]prcheck.ChangedFile, error) {
	out := make([]prcheck.ChangedFile, len(g.files))
	for i, f := range g.files {
		out[i] = prcheck.ChangedFile{Path: f.Path, Status: f.Status, BlobSHA: f.BlobSHA}
	}
	return out, nil
}

func (g *memGH) ReadFiles(ctx context.Context, inst int64, repo string, n int, head string, listed []prcheck.ChangedFile) ([]prcheck.ChangedFile, error) {
	g.mu.Lock()
	g.reads++
	g.mu.Unlock()
	return g.ChangedFiles(ctx, inst, repo, n, head)
}

func (g *memGH) CreateComment(ctx context.Context, inst int64, repo string, n int, body string) (int64, error) {
	id, _, err := g.UpsertComment(ctx, inst, repo, n, body)
	return id, err
}

func (g *memGH) OpenPulls(ctx context.Context, inst int64, repo string) ([]OpenPull, error) {
	return []OpenPull{{Number: g.pr.Number, HeadSHA: g.pr.HeadSHA}}, nil
}

func (g *memGH) PullRequest(ctx context.Context, inst int64, repo string, n int) (prcheck.PRInfo, string, string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	pr := g.pr
	if len(g.moves) > 0 {
		// The branch moves after this read.
		g.pr.HeadSHA, g.moves = g.moves[0], g.moves[1:]
	}
	return pr, "main", "base-sha", nil
}
func (g *memGH) ChangedFiles(ctx context.Context, inst int64, repo string, n int, head string) ([]prcheck.ChangedFile, error) {
	return g.files, nil
}
func (g *memGH) BaseFS(ctx context.Context, inst int64, repo, ref string) (fs.FS, error) {
	return g.base, nil
}
func (g *memGH) CanWrite(ctx context.Context, inst int64, repo, user string) (bool, error) {
	return g.writers[user], nil
}
func (g *memGH) PostCheck(ctx context.Context, inst int64, repo, head, name, key string, out prcheck.CheckOutcome) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.checks[head+" "+name] = out
	g.posts++
	return 1, nil
}
func (g *memGH) UpsertComment(ctx context.Context, inst int64, repo string, n int, body string) (int64, bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.comment == "" {
		g.comments++
	}
	changed := g.comment != body
	g.comment = body
	return 1, changed, nil
}
func (g *memGH) Reply(ctx context.Context, inst int64, repo string, n int, body string) error {
	g.replies = append(g.replies, body)
	return nil
}

func newMemGH(t *testing.T) *memGH {
	root := fixtures.Root(t)
	meta, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/meta.json"))
	scores, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json"))
	return &memGH{
		base:    os.DirFS(root),
		pr:      prcheck.PRInfo{HeadSHA: "head-2", Author: "example-lab"}, // as meta.json names its submitter
		files:   []prcheck.ChangedFile{{Path: "submissions/model-benchmark/new-run/meta.json", Status: "added", Content: meta}, {Path: "submissions/model-benchmark/new-run/scores.json", Status: "added", Content: scores}},
		writers: map[string]bool{"maint": true},
		checks:  map[string]prcheck.CheckOutcome{},
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestVerifyJob(t *testing.T) {
	gh := newMemGH(t)
	w := &Worker{GH: gh, Verify: checkOpts, Log: quietLog()}
	job := Job{Kind: KindVerify, Repo: "geo/board", PR: 5, HeadSHA: "head-2", InstallationID: 1}
	// Run twice, as after a crash and a retry: one check run, one comment.
	for i := 0; i < 2; i++ {
		if err := w.VerifyPR(context.Background(), job); err != nil {
			t.Fatal(err)
		}
	}
	if len(gh.checks) != 1 || gh.checks["head-2 "+prcheck.CheckName].Conclusion != prcheck.Success || gh.comments != 1 || !prcheck.IsSticky(gh.comment) {
		t.Errorf("checks %v, %d comments", gh.checks, gh.comments)
	}
	// A job for an older head is done without posting anything.
	before := gh.posts
	if err := w.VerifyPR(context.Background(), Job{Kind: KindVerify, Repo: "geo/board", PR: 5, HeadSHA: "head-1"}); err != nil || gh.posts != before {
		t.Errorf("superseded job posted: %v, %d posts", err, gh.posts-before)
	}
}

// TestVerifyJobNotForThisPR: a job for a base the pull request has left,
// or for a pull request now closed or merged, posts nothing; nor does a
// rerun on a closed one.
func TestVerifyJobNotForThisPR(t *testing.T) {
	gh := newMemGH(t)
	w := &Worker{GH: gh, Verify: checkOpts, Log: quietLog(), RerunSecret: []byte("s")}
	ctx := context.Background()
	if err := w.VerifyPR(ctx, Job{Kind: KindVerify, Repo: "geo/board", PR: 5, HeadSHA: "head-2", BaseRef: "stale", InstallationID: 1}); err != nil || gh.posts != 0 {
		t.Errorf("a job for a base left behind: %v, %d posts", err, gh.posts)
	}
	gh.pr.Closed = true
	if err := w.VerifyPR(ctx, Job{Kind: KindVerify, Repo: "geo/board", PR: 5, HeadSHA: "head-2", InstallationID: 1}); err != nil || gh.posts != 0 || gh.comments != 0 {
		t.Errorf("a job for a closed pull request: %v, %d posts, %d comments", err, gh.posts, gh.comments)
	}
	if err := w.Rerun(ctx, Job{Kind: KindRerun, Repo: "geo/board", PR: 5, Commenter: "maint", InstallationID: 1}); err != nil || gh.posts != 0 || gh.comments != 0 {
		t.Errorf("a rerun on a closed pull request: %v, %d posts, %d comments", err, gh.posts, gh.comments)
	}
}

func TestRerunJob(t *testing.T) {
	gh := newMemGH(t)
	w := &Worker{GH: gh, Verify: checkOpts, Log: quietLog(), RerunSecret: []byte("s")}
	// Anyone but a maintainer gets a polite reply, and nothing runs.
	if err := w.Rerun(context.Background(), Job{Kind: KindRerun, Repo: "geo/board", PR: 5, Commenter: "passer-by"}); err != nil {
		t.Fatal(err)
	}
	if len(gh.replies) != 1 || !strings.Contains(gh.replies[0], "only maintainers") || gh.posts != 0 {
		t.Errorf("replies %v, %d posts", gh.replies, gh.posts)
	}
	// A maintainer's rerun of a multiple-choice submission re-reads every
	// letter: a second check run, and a section of the one comment.
	if err := w.Rerun(context.Background(), Job{Kind: KindRerun, Repo: "geo/board", PR: 5, Commenter: "maint"}); err != nil {
		t.Fatal(err)
	}
	rc := gh.checks["head-2 "+prcheck.RerunCheckName]
	if rc.Conclusion != prcheck.Success || !strings.Contains(rc.Summary, "benchgate rerun") || gh.comments != 1 || !strings.Contains(gh.comment, "benchgate rerun") || !prcheck.IsSticky(gh.comment) {
		t.Errorf("rerun check %+v; comment %q", rc.Conclusion, gh.comment)
	}
	// The spot-check goes on from the tree the check verified.
	if gh.reads != 1 {
		t.Errorf("the pull request's files were read %d times, want once", gh.reads)
	}
}

// gitAccess serves the test git server and its token.
type gitAccess struct {
	srv   *gitserver.Server
	token string
}

func (g gitAccess) CloneURL(repo string) string { return g.srv.RepoURL(repo) }
func (g gitAccess) Token(ctx context.Context, inst int64) (string, error) {
	return g.token, nil
}

func TestRegenerateJob(t *testing.T) {
	srv := gitserver.New(t, "ghs_test")
	srv.CreateRepo(t, "board", gitserver.ReadFolders(fixtures.Root(t), "rubrics", "submissions"), "main")
	w := &Worker{Git: gitAccess{srv, "ghs_test"}, Verify: checkOpts, Log: quietLog(), Author: fixedAuthor("benchgate[bot]", "bot@example.org")}
	sha, err := w.Regenerate(context.Background(), Job{Kind: KindRegenerate, Repo: "board"}, "main")
	if err != nil || sha == "" {
		t.Fatalf("regenerate: %q %v", sha, err)
	}
	got := srv.Files(t, "board", "main")
	if !strings.Contains(string(got["leaderboard/LEADERBOARD.md"]), "Qwen3-32B") || len(got["leaderboard/index.html"]) == 0 || len(got["leaderboard/leaderboard.json"]) == 0 {
		t.Errorf("leaderboard files: %v", keys(got))
	}
	if log := srv.Log(t, "board", "main"); log[0].AuthorName != "benchgate[bot]" {
		t.Errorf("author %+v", log[0])
	}
	// Nothing changed: nothing is committed.
	if sha, err := w.Regenerate(context.Background(), Job{Kind: KindRegenerate, Repo: "board"}, "main"); err != nil || sha != "" {
		t.Errorf("second regenerate: %q %v", sha, err)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestAutoRerun(t *testing.T) {
	gh := newMemGH(t)
	w := &Worker{GH: gh, Verify: checkOpts, Log: quietLog(), AutoRerun: true}
	if err := w.VerifyPR(context.Background(), Job{Kind: KindVerify, Repo: "geo/board", PR: 5, HeadSHA: "head-2"}); err != nil {
		t.Fatal(err)
	}
	if gh.checks["head-2 "+prcheck.CheckName].Conclusion != prcheck.Success || gh.checks["head-2 "+prcheck.RerunCheckName].Conclusion != prcheck.Success || gh.comments != 1 || !strings.Contains(gh.comment, "benchgate rerun") {
		t.Errorf("checks %v, comment %q", gh.checks, gh.comment)
	}
}

func TestRegenerateToBoardBranch(t *testing.T) {
	srv := gitserver.New(t, "ghs_test")
	root := fixtures.Root(t)
	files := map[string][]byte{}
	for _, p := range []string{"rubrics/rubrics.json", "rubrics/basin-analysis.json", "rubrics/reservoir-mcq.jsonl", "submissions/model-benchmark/qwen3-32b-basin/meta.json", "submissions/model-benchmark/qwen3-32b-basin/scores.json"} {
		files[p], _ = os.ReadFile(filepath.Join(root, p))
	}
	srv.CreateRepo(t, "board", files, "main")
	w := &Worker{Git: gitAccess{srv, "ghs_test"}, Verify: checkOpts, Log: quietLog(), Author: fixedAuthor("benchgate[bot]", "bot@example.org"), BoardBranch: "pages"}
	if _, err := w.Regenerate(context.Background(), Job{Kind: KindRegenerate, Repo: "board"}, "main"); err != nil {
		t.Fatal(err)
	}
	if !srv.HasBranch("board", "pages") || len(srv.Files(t, "board", "pages")["leaderboard/index.html"]) == 0 {
		t.Error("the leaderboard is not on the pages branch")
	}
	if _, ok := srv.Files(t, "board", "main")["leaderboard/index.html"]; ok {
		t.Error("the default branch was changed")
	}
}

// fixedAuthor signs commits with a configured name and e-mail.
func fixedAuthor(name, email string) func() (string, string, error) {
	return func() (string, string, error) { return name, email, nil }
}

// TestVerifyLeavesTheCommentToANewerHead: a verification whose branch
// moved while it ran (the queue shows another head's verification queued
// since) posts its head's check run but leaves the comment to the newer
// head; with no such sign it asks GitHub nothing more.
func TestVerifyLeavesTheCommentToANewerHead(t *testing.T) {
	gh := newMemGH(t)
	gh.moves = []string{"head-3"}
	newer := true
	w := &Worker{GH: gh, Verify: checkOpts, Log: quietLog(), Newer: func(ctx context.Context, repo string, pr int, head string, since time.Time) (bool, error) {
		return newer, nil
	}}
	job := Job{Kind: KindVerify, Repo: "geo/board", PR: 5, HeadSHA: "head-2", InstallationID: 1}
	if err := w.VerifyPR(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if _, ok := gh.checks["head-2 "+prcheck.CheckName]; !ok || gh.comments != 0 {
		t.Fatalf("checks %v, %d comments; want head-2's check run and no comment", gh.checks, gh.comments)
	}
	// Not moved: the comment is written.
	gh2 := newMemGH(t)
	w.GH = gh2
	if err := w.VerifyPR(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if gh2.comments != 1 {
		t.Errorf("%d comments when the branch did not move", gh2.comments)
	}
	newer = false
	gh3 := newMemGH(t)
	gh3.moves = []string{"head-3"}
	w.GH = gh3
	if err := w.VerifyPR(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if gh3.comments != 1 {
		t.Errorf("%d comments with no sign of a newer head (GitHub is not asked again)", gh3.comments)
	}
}

// racyGH finds and creates comments as GitHub does, with time between the
// listing and the creation in which another job may create one too.
type racyGH struct {
	*memGH
	mu      sync.Mutex
	created int
}

func (g *racyGH) UpsertComment(ctx context.Context, inst int64, repo string, n int, body string) (int64, bool, error) {
	g.mu.Lock()
	found := g.created > 0
	g.mu.Unlock()
	time.Sleep(100 * time.Millisecond) // the listing's round trip
	if found {
		return 1, true, nil
	}
	g.mu.Lock()
	g.created++
	g.mu.Unlock()
	return 1, true, nil
}

// TestStickyUnderLock: two jobs of one pull request writing its comment
// at once create one comment when Lock serialises them, and two without:
// the race the lock is for.
func TestStickyUnderLock(t *testing.T) {
	pr := prcheck.PRInfo{HeadSHA: "head-2", Author: "newcomer", Comments: 1}
	job := Job{Kind: KindVerify, Repo: "geo/board", PR: 5, HeadSHA: "head-2", InstallationID: 1}
	run := func(lock func(ctx context.Context, key string, fn func() error) error) int {
		gh := &racyGH{memGH: newMemGH(t)}
		w := &Worker{GH: gh, Log: quietLog(), Lock: lock}
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Go(func() {
				if err := w.sticky(context.Background(), job, pr, time.Now(), "body"); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		return gh.created
	}
	var mu sync.Mutex
	serial := func(ctx context.Context, key string, fn func() error) error {
		mu.Lock()
		defer mu.Unlock()
		return fn()
	}
	if n := run(serial); n != 1 {
		t.Errorf("%d comments created under the lock, want 1", n)
	}
	if n := run(nil); n != 2 {
		t.Errorf("%d comments created without the lock; the test no longer races", n)
	}
}
