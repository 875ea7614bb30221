package bot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/bot/queue"
	"github.com/benchgate/benchgate/internal/fakeopenai"
	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/internal/gitserver"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/verify"
)

// TestReproduceJob: the reproduction job under the spot-check's ledger.
//   - A submission on the harness track is unreachable, asks nothing and
//     counts towards no limit.
//   - A model that gives the key's letters reproduces the claims: the
//     record, consistent, is committed to the default branch.
//   - A later check that cannot decide (the endpoint serves another
//     model) is reported but does not replace the decided record of the
//     same version.
//   - A record that cannot be committed leaves the report posted, saying
//     so and how to record it by hand, rather than the job running the
//     paid check again.
//   - The pull request's limit (three) is then reached: the next is
//     refused with a neutral check run naming the command to ask again
//     with.
func TestReproduceJob(t *testing.T) {
	root := fixtures.Root(t)
	srv := gitserver.New(t, "ghs_test")
	srv.CreateRepo(t, "board", gitserver.ReadFolders(root, "rubrics", "submissions"), "main")
	served, cand, client := keyCandidate(t, root)
	q, err := queue.Open(t.Context(), "sqlite::memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	limits := Limits{SpotChecksPerPR: 3, SpotChecksPerAuthorDay: 10, SpotChecksPerRepoDay: 10, JudgeUSDPerDay: 5, SpotCheckUSD: 1, SpotCheckCalls: 160}
	gh := newMemGH(t)
	w := &Worker{GH: gh, Git: gitAccess{srv, "ghs_test"}, Verify: checkOpts, Log: quietLog(), RerunSecret: []byte("s"),
		Author:    fixedAuthor("benchgate[bot]", "bot@example.org"),
		Candidate: &Candidate{LLM: client, Endpoint: "candidate.test"},
		Budget:    &Ledger{Q: q, Limits: limits}}
	run := func(delivery string) prcheck.CheckOutcome {
		t.Helper()
		if err := w.Reproduce(context.Background(), Job{Kind: KindReproduce, DeliveryID: delivery, Repo: "board", PR: 5, Commenter: "maint", Branch: "main"}); err != nil {
			t.Fatal(err)
		}
		return gh.checks["head-2 "+prcheck.ReproduceCheckName]
	}

	// The harness track.
	mcqFiles := gh.files
	harness := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(root, "submissions/harness-benchmark/geoagent-reservoir", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	gh.files = []prcheck.ChangedFile{{Path: "submissions/harness-benchmark/h-run/meta.json", Status: "added", Content: harness("meta.json")}, {Path: "submissions/harness-benchmark/h-run/scores.json", Status: "added", Content: harness("scores.json")}}
	if rc := run("h1"); rc.Conclusion != prcheck.Neutral || !strings.Contains(rc.Summary, "harness track") {
		t.Fatalf("harness track: %s\n%s", rc.Conclusion, rc.Summary)
	}
	if calls, _ := cand.Stats(); calls != 0 {
		t.Errorf("the harness track's reproduction made %d calls", calls)
	}

	// A model that reproduces the claims.
	gh.files = mcqFiles
	const file = "reproductions/model-benchmark/new-run.json"
	if rc := run("d1"); rc.Conclusion != prcheck.Success || !strings.Contains(rc.Summary, "Recorded in `"+file+"` on `main`") {
		t.Fatalf("the reproduction: %s\n%s", rc.Conclusion, rc.Summary)
	}
	recorded := srv.Files(t, "board", "main")[file]
	if rec, _ := reproduce.ParseRecord(file, recorded); rec == nil || rec.Verdict != reproduce.Consistent || rec.Endpoint != "candidate.test" {
		t.Fatalf("record %s", recorded)
	}
	if log := srv.Log(t, "board", "main"); log[0].AuthorName != "benchgate[bot]" {
		t.Errorf("the last commit %+v, want the App's", log[0])
	}

	// Undecided later: reported, not recorded over the decided record.
	served.Store("other/model")
	if rc := run("d2"); rc.Conclusion != prcheck.ActionRequired || !strings.Contains(rc.Summary, "keeps its decided verdict") {
		t.Errorf("an undecided reproduction: %s\n%s", rc.Conclusion, rc.Summary)
	}
	if got := srv.Files(t, "board", "main")[file]; string(got) != string(recorded) {
		t.Errorf("the decided record was replaced by\n%s", got)
	}

	// A branch the App cannot push to.
	served.Store("")
	w.Git = gitAccess{srv, "ghs_wrong"}
	if rc := run("d3"); rc.Conclusion != prcheck.Success || !strings.Contains(rc.Summary, "The record could not be committed") || !strings.Contains(rc.Summary, "--record") || strings.Contains(rc.Summary, "ghs_wrong") {
		t.Errorf("a record that cannot be committed: %s\n%s", rc.Conclusion, rc.Summary)
	}

	// Three were counted; the fourth is refused.
	rc := run("d4")
	if rc.Conclusion != prcheck.Neutral || !strings.Contains(rc.Summary, "Reproduction not run") || !strings.Contains(rc.Summary, "BENCHGATE_SPOT_CHECKS_PER_PR") {
		t.Errorf("the third: %s\n%s", rc.Conclusion, rc.Summary)
	}
	if !strings.Contains(gh.comment, "Reproduction not run") {
		t.Errorf("the comment does not carry the refusal:\n%s", gh.comment)
	}
}

// keyCandidate is a candidate endpoint that answers each question of the
// fixture board's multiple-choice benchmark with its key's letter, as the
// model the value served names (the one asked for when empty).
func keyCandidate(t *testing.T, root string) (served *atomic.Value, cand *fakeopenai.Server, client *llm.Client) {
	t.Helper()
	v, err := verify.New(os.DirFS(root), checkOpts)
	if err != nil {
		t.Fatal(err)
	}
	b, problems := v.Benchmark("reservoir-mcq")
	if b == nil {
		t.Fatal(problems)
	}
	served = &atomic.Value{}
	served.Store("")
	cand = fakeopenai.New(t, fakeopenai.Options{Key: "sk-test", Reply: func(req fakeopenai.Request) fakeopenai.Reply {
		user := req.Messages[len(req.Messages)-1].Content
		for i := range b.Items {
			if strings.Contains(user, b.Items[i].Question) {
				return fakeopenai.Reply{Content: "From the evidence.\nANSWER: " + b.Items[i].Key(), Model: served.Load().(string)}
			}
		}
		return fakeopenai.Reply{Content: "?"}
	}})
	client, err = llm.New(llm.Config{BaseURL: cand.URL, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	return served, cand, client
}

// proposals records the pull requests a Worker proposes.
type proposals []string

func (p *proposals) ProposePull(ctx context.Context, inst int64, repo, head, base, title, body string) error {
	*p = append(*p, head+" -> "+base+": "+title)
	return nil
}

// TestReproduceProposedRecord: with BENCHGATE_PUBLISH=pr (a protected
// default branch) the record is pushed to a branch of the App's own and
// proposed in a pull request; the default branch is left as it was.
func TestReproduceProposedRecord(t *testing.T) {
	root := fixtures.Root(t)
	srv := gitserver.New(t, "ghs_test")
	srv.CreateRepo(t, "board", gitserver.ReadFolders(root, "rubrics", "submissions"), "main")
	_, _, client := keyCandidate(t, root)
	var props proposals
	w := &Worker{GH: newMemGH(t), Git: gitAccess{srv, "ghs_test"}, Verify: checkOpts, Log: quietLog(), RerunSecret: []byte("s"),
		Author: fixedAuthor("benchgate[bot]", "bot@example.org"), Candidate: &Candidate{LLM: client}, Propose: &props}
	before := srv.Log(t, "board", "main")
	if err := w.Reproduce(context.Background(), Job{Kind: KindReproduce, Repo: "board", PR: 5, Commenter: "maint", Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	const branch, file = "benchgate/reproduction/model-benchmark/new-run", "reproductions/model-benchmark/new-run.json"
	if len(props) != 1 || props[0] != branch+" -> main: Record the reproduction of submissions/model-benchmark/new-run" {
		t.Errorf("proposals %q", props)
	}
	if rec, _ := reproduce.ParseRecord(file, srv.Files(t, "board", branch)[file]); rec == nil || rec.Verdict != reproduce.Consistent {
		t.Errorf("the proposed branch holds no consistent record")
	}
	if after := srv.Log(t, "board", "main"); after[0].Hash != before[0].Hash {
		t.Errorf("the protected branch moved: %+v", after[0])
	}
}
