package fakegithub

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestRetargetAndSharedBranch: a pull request moved to another base, and
// a second pull request from its branch, list what the head changes
// against their own base, share one head commit, and the edited delivery
// carries the base's former ref and sha as GitHub's webhook docs give.
func TestRetargetAndSharedBranch(t *testing.T) {
	s := newServer(t)
	s.AddInstallation(7, "acme/bench")
	s.SetFile("acme/bench", "stale", "rubrics/r.json", []byte("r\n"))
	s.SetFile("acme/bench", "main", "rubrics/r.json", []byte("r\n"))
	s.SetFile("acme/bench", "main", "submissions/x/meta.json", []byte("theirs\n"))
	s.AddPR("acme/bench", PR{Number: 1, Author: "alice", HeadRef: "feature", BaseRef: "stale", Files: []File{{Name: "submissions/x/meta.json", Status: "added", Content: []byte("mine\n")}}})
	s.OpenFromBranch("acme/bench", 2, 1, "main")
	tok := installationToken(t, s)

	type pull struct {
		Number int
		Head   struct{ SHA, Ref string }
		Base   struct{ SHA, Ref string }
	}
	files := func(n int) map[string]string {
		r := do(t, s, "GET", "repos/acme/bench/pulls/"+itoa(n)+"/files", tok, nil)
		expectStatus(t, r, http.StatusOK)
		var fs []struct{ Filename, Status string }
		r.json(t, &fs)
		out := map[string]string{}
		for _, f := range fs {
			out[f.Filename] = f.Status
		}
		return out
	}
	if got := files(1); len(got) != 1 || got["submissions/x/meta.json"] != "added" {
		t.Errorf("#1 against stale: %v", got)
	}
	if got := files(2); len(got) != 1 || got["submissions/x/meta.json"] != "modified" {
		t.Errorf("#2 against main: %v", got)
	}
	r := do(t, s, "GET", "repos/acme/bench/pulls?head=acme:feature", tok, nil)
	expectStatus(t, r, http.StatusOK)
	var both []pull
	r.json(t, &both)
	if len(both) != 2 || both[0].Head.SHA != both[1].Head.SHA || both[0].Base.Ref == both[1].Base.Ref {
		t.Fatalf("pulls from one branch: %+v", both)
	}

	before := do(t, s, "GET", "repos/acme/bench/pulls/1", tok, nil)
	var was pull
	before.json(t, &was)
	ev := s.Retarget("acme/bench", 1, "main")
	var edited struct {
		Action  string
		Number  int
		Changes struct {
			Base struct {
				Ref struct{ From string }
				SHA struct{ From string }
			}
		}
		PullRequest struct {
			pull
			State     string
			UpdatedAt string `json:"updated_at"`
			CreatedAt string `json:"created_at"`
		} `json:"pull_request"`
		Installation struct{ ID int64 }
		Repository   struct {
			FullName string `json:"full_name"`
		}
	}
	if err := json.Unmarshal(ev, &edited); err != nil {
		t.Fatal(err)
	}
	if edited.Action != "edited" || edited.Number != 1 || edited.Changes.Base.Ref.From != "stale" || edited.Changes.Base.SHA.From != was.Base.SHA ||
		edited.PullRequest.Base.Ref != "main" || edited.PullRequest.Head.SHA != was.Head.SHA || edited.Installation.ID != 7 ||
		edited.Repository.FullName != "acme/bench" || edited.PullRequest.UpdatedAt <= edited.PullRequest.CreatedAt {
		t.Errorf("edited delivery: %s", ev)
	}
	if got := files(1); len(got) != 1 || got["submissions/x/meta.json"] != "modified" {
		t.Errorf("#1 against main: %v", got)
	}
	// Moved back at once: a later change, its own time.
	var back struct {
		PullRequest struct {
			UpdatedAt string `json:"updated_at"`
		} `json:"pull_request"`
	}
	json.Unmarshal(s.Retarget("acme/bench", 1, "stale"), &back)
	if back.PullRequest.UpdatedAt <= edited.PullRequest.UpdatedAt {
		t.Errorf("second change at %s, first at %s", back.PullRequest.UpdatedAt, edited.PullRequest.UpdatedAt)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRerequestedAndClosed: the Re-run deliveries carry the run pressed
// (its id and pull requests) and the suite with the time of the press,
// later for each press; the closed delivery carries the pull request
// closed, and merged when it was.
func TestRerequestedAndClosed(t *testing.T) {
	s := newServer(t)
	s.AddInstallation(7, "acme/bench")
	sha := strings.Repeat("a", 40)
	s.AddPR("acme/bench", PR{Number: 3, HeadSHA: sha, Author: "alice"})
	tok := installationToken(t, s)
	r := do(t, s, "POST", "repos/acme/bench/check-runs", tok, map[string]any{"name": "bench", "head_sha": sha})
	expectStatus(t, r, http.StatusCreated)
	var created struct{ ID int64 }
	r.json(t, &created)

	var run struct {
		Action   string
		CheckRun struct {
			ID           int64
			HeadSHA      string                 `json:"head_sha"`
			PullRequests []struct{ Number int } `json:"pull_requests"`
		} `json:"check_run"`
		Installation struct{ ID int64 }
		Sender       struct{ Login string }
	}
	if err := json.Unmarshal(s.CheckRunRerequested("acme/bench", created.ID, "maint"), &run); err != nil {
		t.Fatal(err)
	}
	if run.Action != "rerequested" || run.CheckRun.ID != created.ID || run.CheckRun.HeadSHA != sha || len(run.CheckRun.PullRequests) != 1 || run.CheckRun.PullRequests[0].Number != 3 || run.Installation.ID != 7 || run.Sender.Login != "maint" {
		t.Errorf("check_run rerequested: %+v", run)
	}

	type suite struct {
		CheckSuite struct {
			ID                   int64
			HeadSHA              string `json:"head_sha"`
			Status               string
			UpdatedAt            string                 `json:"updated_at"`
			LatestCheckRunsCount int                    `json:"latest_check_runs_count"`
			PullRequests         []struct{ Number int } `json:"pull_requests"`
		} `json:"check_suite"`
	}
	var first, second suite
	json.Unmarshal(s.CheckSuiteRerequested("acme/bench", sha, "maint"), &first)
	json.Unmarshal(s.CheckSuiteRerequested("acme/bench", sha, "maint"), &second)
	if c := first.CheckSuite; c.ID == 0 || c.HeadSHA != sha || c.Status != "queued" || c.LatestCheckRunsCount != 1 || len(c.PullRequests) != 1 {
		t.Errorf("check_suite rerequested: %+v", c)
	}
	if first.CheckSuite.ID != second.CheckSuite.ID || second.CheckSuite.UpdatedAt <= first.CheckSuite.UpdatedAt {
		t.Errorf("two presses: %+v then %+v, want one suite updated later", first.CheckSuite, second.CheckSuite)
	}

	var closed struct {
		Action      string
		PullRequest struct {
			State    string
			Merged   bool
			ClosedAt string `json:"closed_at"`
		} `json:"pull_request"`
	}
	json.Unmarshal(s.ClosePR("acme/bench", 3, true), &closed)
	if closed.Action != "closed" || closed.PullRequest.State != "closed" || !closed.PullRequest.Merged || closed.PullRequest.ClosedAt == "" {
		t.Errorf("closed delivery: %+v", closed)
	}
	r = do(t, s, "GET", "repos/acme/bench/pulls/3", tok, nil)
	var now struct{ State string }
	r.json(t, &now)
	if now.State != "closed" {
		t.Errorf("pull request after ClosePR: %s", now.State)
	}
}
