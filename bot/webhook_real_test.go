package bot

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/fixtures"
)

// TestRealDeliveries signs every example delivery GitHub publishes for the
// events the App receives (github.com's and GitHub Enterprise Server
// 3.5's) and sends it through the webhook front door, as JSON and as the
// form a hook set to application/x-www-form-urlencoded sends (payload=
// and the JSON, URL-encoded, signed as sent): each is accepted, queues
// exactly the work its event, action and fields ask for, and is counted
// under its event only when Route acts on that event.
func TestRealDeliveries(t *testing.T) {
	root := fixtures.Path(t, "github-webhooks")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	if len(files) < 50 {
		t.Fatalf("only %d deliveries under %s", len(files), root)
	}
	forkReruns := 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		event := filepath.Base(filepath.Dir(file))
		t.Run(rel, func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, refused := expectedJobs(t, event, body)
			for _, enc := range []struct{ contentType, body string }{
				{"application/json", string(body)},
				{"application/x-www-form-urlencoded", formBody(string(body))},
			} {
				q := &memQueue{}
				var labels []string
				h := &Webhook{Secrets: [][]byte{secret}, Queue: q, Log: quietLog(), Observe: func(event, _ string) { labels = append(labels, event) }}
				delivery := "real-" + strings.NewReplacer("/", "-", ".", "-").Replace(rel)
				req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(enc.body))
				req.Header.Set("Content-Type", enc.contentType)
				req.Header.Set("X-GitHub-Event", event)
				req.Header.Set("X-GitHub-Delivery", delivery)
				req.Header.Set("X-Hub-Signature-256", Sign(secret, []byte(enc.body)))
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if refused {
					// Asks for work, but for no installation: refused at
					// once, nothing queued.
					if rec.Code != http.StatusUnprocessableEntity || len(q.jobs) != 0 {
						t.Fatalf("%s: a delivery naming no installation: status %d, %d jobs; want 422 and none", enc.contentType, rec.Code, len(q.jobs))
					}
					continue
				}
				if rec.Code != http.StatusAccepted {
					t.Fatalf("%s: status %d %q", enc.contentType, rec.Code, rec.Body)
				}
				got := q.jobs
				if len(got) != len(want) {
					t.Fatalf("%s: queued %+v, want %+v", enc.contentType, got, want)
				}
				for k := range want {
					w, g := want[k], got[k]
					if g.Kind != w.Kind || g.PR != w.PR || g.HeadSHA != w.HeadSHA || g.Repo != w.Repo || g.AfterSHA != w.AfterSHA || g.Rerequested != w.Rerequested {
						t.Errorf("%s: job %d: %+v, want %+v", enc.contentType, k, g, w)
					}
					if w.Kind == KindVerify && w.PR == 0 && enc.contentType == "application/json" {
						forkReruns++
					}
				}
				if len(want) > 0 && (len(labels) != 1 || labels[0] != event) {
					t.Errorf("%s: counted under %q, want %q (Route acts on it)", enc.contentType, labels, event)
				}
				if len(labels) != 1 || labels[0] != event && labels[0] != EventOther {
					t.Errorf("%s: counted under %q, want %q or %q", enc.contentType, labels, event, EventOther)
				}
			}
		})
	}
	// GitHub's own rerequested examples list no pull request (a fork's):
	// they must still be verified, by their head commit.
	if forkReruns == 0 {
		t.Error("no re-run request without pull requests was routed to a verification by head")
	}
}

type checkPayload struct {
	HeadSHA      string `json:"head_sha"`
	PullRequests []struct {
		Number int `json:"number"`
	} `json:"pull_requests"`
}

// expectedJobs reads a delivery by GitHub's documented fields, apart
// from Route, and says what it asks benchgate for; refused when it asks
// for work but names no installation.
func expectedJobs(t *testing.T, event string, body []byte) (jobs []Job, refused bool) {
	t.Helper()
	var p struct {
		Installation *struct {
			ID int64 `json:"id"`
		} `json:"installation"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	jobs = expectedWork(t, event, body)
	return jobs, len(jobs) > 0 && (p.Installation == nil || p.Installation.ID == 0)
}

// expectedWork is expectedJobs' jobs.
func expectedWork(t *testing.T, event string, body []byte) []Job {
	t.Helper()
	var p struct {
		Changes struct {
			Base json.RawMessage `json:"base"`
		} `json:"changes"`
		Action     string `json:"action"`
		Repository struct {
			FullName      string `json:"full_name"`
			DefaultBranch string `json:"default_branch"`
		} `json:"repository"`
		PullRequest *struct {
			Number int    `json:"number"`
			State  string `json:"state"`
			Head   struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
		CheckRun   *checkPayload `json:"check_run"`
		CheckSuite *checkPayload `json:"check_suite"`
		Issue      *struct {
			Number      int             `json:"number"`
			PullRequest json.RawMessage `json:"pull_request"`
		} `json:"issue"`
		Comment *struct {
			Body string `json:"body"`
			User struct {
				Type string `json:"type"`
			} `json:"user"`
		} `json:"comment"`
		Ref     string `json:"ref"`
		After   string `json:"after"`
		Commits []struct {
			Added, Removed, Modified []string
		} `json:"commits"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	repo := p.Repository.FullName
	switch event {
	case "pull_request":
		if p.PullRequest != nil && p.Action == "closed" {
			// The check of a head it shared is posted again.
			return []Job{{Kind: KindVerify, Repo: repo, PR: p.PullRequest.Number, HeadSHA: p.PullRequest.Head.SHA}}
		}
		if p.PullRequest == nil || p.PullRequest.State == "closed" {
			return nil
		}
		switch p.Action {
		case "edited":
			if len(p.Changes.Base) == 0 {
				return nil
			}
			fallthrough
		case "opened", "synchronize", "reopened", "ready_for_review":
			return []Job{{Kind: KindVerify, Repo: repo, PR: p.PullRequest.Number, HeadSHA: p.PullRequest.Head.SHA}}
		}
	case "check_run", "check_suite":
		c := p.CheckRun
		if event == "check_suite" {
			c = p.CheckSuite
		}
		if p.Action != "rerequested" || c == nil {
			return nil
		}
		if len(c.PullRequests) == 0 {
			return []Job{{Kind: KindVerify, Repo: repo, HeadSHA: c.HeadSHA, Rerequested: true}}
		}
		var out []Job
		for _, pr := range c.PullRequests {
			out = append(out, Job{Kind: KindVerify, Repo: repo, PR: pr.Number, HeadSHA: c.HeadSHA, Rerequested: true})
		}
		return out
	case "issue_comment":
		if p.Action != "created" || p.Issue == nil || len(p.Issue.PullRequest) == 0 || string(p.Issue.PullRequest) == "null" || p.Comment.User.Type == "Bot" {
			return nil
		}
		if k := Command(p.Comment.Body); k != "" {
			return []Job{{Kind: k, Repo: repo, PR: p.Issue.Number, Rerequested: k == KindVerify}}
		}
	case "push":
		if p.Ref != "refs/heads/"+p.Repository.DefaultBranch || strings.Trim(p.After, "0") == "" {
			return nil
		}
		for _, c := range p.Commits {
			for _, f := range append(append(c.Added, c.Removed...), c.Modified...) {
				if strings.HasPrefix(f, "submissions/") || strings.HasPrefix(f, "rubrics/") {
					return []Job{{Kind: KindRegenerate, Repo: repo, AfterSHA: p.After}}
				}
			}
		}
	}
	return nil
}
