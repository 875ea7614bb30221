package bot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/acceptance"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/internal/gitserver"
)

// inReview makes the pull request's scores.json store three of its 40
// responses cut short where the stored text decides no letter: more
// unverifiable answers than the benchmark lets go unchecked, so review.
func inReview(t *testing.T, gh *memGH) {
	t.Helper()
	for i, f := range gh.files {
		if !strings.HasSuffix(f.Path, "/scores.json") {
			continue
		}
		var rows []map[string]any
		if err := json.Unmarshal(f.Content, &rows); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows[:3] {
			r["response"], r["response_truncated"] = "Weighing the options, the answer is", true
		}
		data, err := json.Marshal(rows)
		if err != nil {
			t.Fatal(err)
		}
		gh.files[i].Content = data
	}
}

// TestAcceptProposedRecord: with BENCHGATE_PUBLISH=pr (a protected
// default branch) the decision is pushed to a branch of the App's own and
// proposed in a pull request; the default branch is left as it was, and
// the check says where the decision waits.
func TestAcceptProposedRecord(t *testing.T) {
	root := fixtures.Root(t)
	srv := gitserver.New(t, "ghs_test")
	srv.CreateRepo(t, "board", gitserver.ReadFolders(root, "rubrics", "submissions"), "main")
	gh := newMemGH(t)
	inReview(t, gh)
	var props proposals
	w := &Worker{GH: gh, Git: gitAccess{srv, "ghs_test"}, Verify: checkOpts, Log: quietLog(),
		Author: fixedAuthor("benchgate[bot]", "bot@example.org"), Propose: &props}
	before := srv.Log(t, "board", "main")
	if err := w.Accept(context.Background(), Job{Kind: KindAccept, Repo: "board", PR: 5, Commenter: "maint", Branch: "main", Reason: "cut by the source"}); err != nil {
		t.Fatal(err)
	}
	const branch, file = "benchgate/acceptance/model-benchmark/new-run", "acceptances/model-benchmark/new-run.json"
	if len(props) != 1 || props[0] != branch+" -> main: Record the acceptance of submissions/model-benchmark/new-run" {
		t.Errorf("proposals %q", props)
	}
	if rec, _ := acceptance.ParseRecord(file, srv.Files(t, "board", branch)[file]); rec == nil || rec.Reason != "cut by the source" || rec.AcceptedBy != "maint" {
		t.Errorf("the proposed branch holds no record of the decision")
	}
	if after := srv.Log(t, "board", "main"); after[0].Hash != before[0].Hash {
		t.Errorf("the protected branch moved: %+v", after[0])
	}
	c := gh.checks["head-2 "+prcheck.CheckName]
	if c.Conclusion != prcheck.Success || !strings.Contains(c.Summary, "proposed for `main` in a pull request from `"+branch+"`") {
		t.Errorf("the check: %s\n%s", c.Conclusion, c.Summary)
	}
}

// TestAcceptRefusals: a decision the job cannot record is answered with
// why, and nothing is committed or posted: a pull request against another
// branch than the default one, a reason too long, a submission that
// passes.
func TestAcceptRefusals(t *testing.T) {
	root := fixtures.Root(t)
	for _, tc := range []struct {
		name   string
		review bool
		job    Job
		want   string
	}{
		{"another base", true, Job{Branch: "trunk", Reason: "fine"}, "the decision is kept on the default branch, `trunk`"},
		{"a reason too long", true, Job{Branch: "main", Reason: strings.Repeat("a ", acceptance.MaxReasonBytes)}, "at most 1000 are shown on the board"},
		{"hidden characters", true, Job{Branch: "main", Reason: "fine\u202e"}, "control or direction-override character"},
		{"passes", false, Job{Branch: "main", Reason: "fine"}, "passes verification: it is ranked without a decision"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := gitserver.New(t, "ghs_test")
			srv.CreateRepo(t, "board", gitserver.ReadFolders(root, "rubrics", "submissions"), "main")
			gh := newMemGH(t)
			if tc.review {
				inReview(t, gh)
			}
			w := &Worker{GH: gh, Git: gitAccess{srv, "ghs_test"}, Verify: checkOpts, Log: quietLog(), Author: fixedAuthor("benchgate[bot]", "bot@example.org")}
			before := srv.Log(t, "board", "main")
			j := tc.job
			j.Kind, j.Repo, j.PR, j.Commenter = KindAccept, "board", 5, "maint"
			if err := w.Accept(context.Background(), j); err != nil {
				t.Fatal(err)
			}
			if len(gh.replies) != 1 || !strings.Contains(gh.replies[0], tc.want) || !strings.HasPrefix(gh.replies[0], "`/benchgate accept` recorded nothing at `head-2`: ") {
				t.Errorf("replies %q, want one saying %q", gh.replies, tc.want)
			}
			if gh.posts != 0 || len(srv.Log(t, "board", "main")) != len(before) {
				t.Errorf("%d posts, %d commits", gh.posts, len(srv.Log(t, "board", "main"))-len(before))
			}
		})
	}
}
