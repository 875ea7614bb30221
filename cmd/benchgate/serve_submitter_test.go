package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/verify"
)

// TestServeSubmitterBound: through the running App, a new submission is
// bound to its pull request's author, and a merged one is changed only
// by its recorded submitter (the base branch's meta.json) and maintainers,
// never by whoever the pull request's meta.json names.
func TestServeSubmitterBound(t *testing.T) {
	a := startApp(t)
	a.gh.SetPermission("geo/board", "maint", "maintain")
	const merged = "submissions/model-benchmark/dave-run/"
	a.gh.SetFile("geo/board", "main", merged+"meta.json", submittedBy(t, a.meta, "dave"))
	a.gh.SetFile("geo/board", "main", merged+"scores.json", a.scores)
	add := func(slug, submitter string) []fakegithub.File {
		dir := "submissions/model-benchmark/" + slug + "/"
		return []fakegithub.File{
			{Name: dir + "meta.json", Status: "added", Content: submittedBy(t, a.meta, submitter)},
			{Name: dir + "scores.json", Status: "added", Content: a.scores},
		}
	}
	editMeta := func(submitter string) []fakegithub.File {
		return []fakegithub.File{{Name: merged + "meta.json", Status: "modified", Content: submittedBy(t, a.meta, submitter)}}
	}
	editScores := []fakegithub.File{{Name: merged + "scores.json", Status: "modified", Content: a.scores}}
	readme := fakegithub.File{Name: "README.md", Status: "modified", Content: []byte("a typo fixed\n")}
	tests := []struct {
		name       string
		author     string
		files      []fakegithub.File
		conclusion string
		want       string // in the summary
	}{
		{"a new submission in someone else's name", "mallory", add("claimed-run", "carol"), "failure", `set "submitter" to your GitHub login, "mallory"`},
		{"a new submission in its author's name, in another case", "mallory", add("own-run", "Mallory"), "success", "1 passed"},
		{"a maintainer submitting for someone else", "maint", add("imported-run", "carol"), "success", "1 passed"},
		{"an edit claiming a merged submission", "carol", editMeta("carol"), "failure", "submitted by dave, and this pull request changes `" + merged + "meta.json` there; only its submitter or a maintainer may change it"},
		// A pull request touching a submission changes that folder and
		// nothing else; only one touching none is neutral.
		{"an edit of a merged submission with a README typo", "carol", append(editScores, readme), "failure", "- `" + merged[:len(merged)-1] + "` is already on the leaderboard, submitted by dave, and this pull request changes `" + merged + "scores.json` there; only its submitter or a maintainer may change it. To add your own run, use a new folder name.\n- This pull request changes the submission `" + merged[:len(merged)-1] + "` and also 1 file(s) outside it: `README.md`."},
		{"a deletion of a merged submission with a README typo", "carol", []fakegithub.File{{Name: merged + "meta.json", Status: "removed"}, {Name: merged + "scores.json", Status: "removed"}, readme}, "failure", "submitted by dave, and this pull request removes `" + merged + "meta.json`, `" + merged + "scores.json` there"},
		{"its submitter's edit with a README typo", "dave", append(editScores, readme), "failure", "also 1 file(s) outside it: `README.md`. A submission pull request changes one submission folder and nothing else"},
		{"a new submission with a README typo", "mallory", append(add("typo-run", "mallory"), readme), "failure", "also 1 file(s) outside it: `README.md`"},
		{"a README typo alone", "mallory", []fakegithub.File{readme}, "neutral", "changes no submission folder (it changes `README.md`)"},
		// A GitHub login is ASCII: a look-alike of the author's names no one.
		{"a new submission in a look-alike of its author's name", "kim", add("kelvin-run", "\u212Aim"), "failure", "submitter is not a GitHub login: character 1 of \"\u212Aim\" is U+212A, not ASCII"},
		{"an edit by its recorded submitter", "dave", editScores, "success", "1 passed"},
		{"an edit by its recorded submitter, in another case", "DAVE", editScores, "success", "1 passed"},
		{"its submitter handing it to another", "dave", editMeta("carol"), "failure", `set "submitter" to your GitHub login, "dave"`},
		{"a maintainer handing it to another", "maint", editMeta("carol"), "success", "1 passed"},
	}
	heads := map[string]string{}
	for i, tt := range tests {
		n := 100 + i
		head := fmt.Sprintf("%040x", n)
		heads[tt.name] = head
		a.gh.AddPR("geo/board", fakegithub.PR{Number: n, Author: tt.author, HeadSHA: head, BaseRef: "main", Files: tt.files})
		a.deliver("pull_request", fmt.Sprint("bound-", n), prEvent("opened", n, head))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := heads[tt.name]
			a.waitFor("the check of "+tt.name, func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
			r := a.runs(prcheck.CheckName, head)[0]
			if r.Conclusion != tt.conclusion || !strings.Contains(r.Output.Summary, tt.want) {
				t.Errorf("%s: %s, want %s saying %q\n%s", tt.author, r.Conclusion, tt.conclusion, tt.want, r.Output.Summary)
			}
			if tt.conclusion == "success" && !slices.ContainsFunc(a.gh.Requests(), func(req fakegithub.RequestLog) bool { return strings.Contains(req.Query, head) }) {
				t.Error("no request read the head's files: the test of what is not downloaded below sees nothing")
			}
			if strings.Contains(tt.name, "README") {
				// Decided from the listing and the base branch: nothing
				// of the pull request's head is downloaded.
				for _, req := range a.gh.Requests() {
					if strings.Contains(req.Query, head) || strings.Contains(req.Path, "/contents/README.md") {
						t.Errorf("the head's files were read: %s %s?%s", req.Method, req.Path, req.Query)
					}
				}
			}
			if strings.Contains(tt.want, `"submitter"`) && !slices.ContainsFunc(r.Output.Annotations, func(an fakegithub.Annotation) bool {
				return strings.HasSuffix(an.Path, "/meta.json") && an.Title == "meta.submitter"
			}) {
				t.Errorf("no meta.submitter annotation on meta.json: %+v", r.Output.Annotations)
			}
		})
	}
}

// TestVerifyAuthor: `benchgate verify --author` applies the App's binding
// of a submission to its submitter, with the same verdict and findings as
// the App's check of a pull request by that login; without a folder to
// bind it refuses to run.
func TestVerifyAuthor(t *testing.T) {
	root := copyBoard(t)
	const dir = "submissions/model-benchmark/new-run"
	meta, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/meta.json")) // by example-lab
	scores, _ := os.ReadFile(filepath.Join(root, "submissions/model-benchmark/qwen3-32b-reservoir/scores.json"))
	base := os.DirFS(copyBoard(t))
	if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"meta.json": meta, "scores.json": scores} {
		if err := os.WriteFile(filepath.Join(root, dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []prcheck.ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: meta}, {Path: dir + "/scores.json", Status: "added", Content: scores}}
	for _, tt := range []struct {
		author string
		status verify.Status
	}{{"example-lab", verify.Pass}, {"Example-LAB", verify.Pass}, {"carol", verify.Fail}} {
		t.Run(tt.author, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "verify", "--root", root, "--format", "json", "--author", tt.author, filepath.Join(root, dir))
			var rep verify.Report
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Submissions) != 1 {
				t.Fatalf("exit %d, %v: %s%s", code, err, stdout, stderr)
			}
			cli := rep.Submissions[0]
			if want := map[verify.Status]int{verify.Pass: exitOK, verify.Fail: exitFail}[tt.status]; cli.Status != tt.status || code != want {
				t.Errorf("the CLI: %s with exit %d, want %s with exit %d: %v", cli.Status, code, tt.status, want, findingCodes(cli))
			}
			out := prcheck.CheckPR(base, prcheck.PRInfo{Repo: "geo/board", Number: 1, HeadSHA: "abc", Author: tt.author}, files, verify.Options{})
			if out.Report == nil {
				t.Fatalf("the App: %s %s", out.Conclusion, out.Summary)
			}
			app := out.Report.Submissions[0]
			if app.Status != cli.Status || !slices.Equal(findingCodes(app), findingCodes(cli)) {
				t.Errorf("the App says %s %v, the CLI %s %v", app.Status, findingCodes(app), cli.Status, findingCodes(cli))
			}
			if tt.status == verify.Fail && !slices.Equal(findingCodes(cli), []string{"meta.submitter"}) {
				t.Errorf("findings %v, want meta.submitter alone", findingCodes(cli))
			}
		})
	}
	if code, _, stderr := runCLI(t, "verify", "--root", root, "--author", "carol"); code != exitUsage || !strings.Contains(stderr, "--author binds the submissions you submit: name their folders") {
		t.Errorf("--author without a folder: exit %d\n%s", code, stderr)
	}
}

// findingCodes are a result's error codes, sorted.
func findingCodes(r verify.Result) []string {
	var out []string
	for _, f := range r.Errors {
		out = append(out, f.Code)
	}
	slices.Sort(out)
	return out
}

// TestServeSpotCheckFlood: under the auto policy, one author's copies of a
// submission in quick succession stop at the author's daily limit, and an
// honest submission after them is still spot-checked; the copies draw one
// sample however they are formatted, so that re-opening cannot re-roll
// it; the limit and its refusals show on /metrics.
func TestServeSpotCheckFlood(t *testing.T) {
	a := startAppWith(t, appOptions{edit: func(a *app, cfg *bot.Config) {
		cfg.RerunPolicy = bot.RerunAuto
		cfg.Limits.SpotChecksPerAuthorDay = 3
		cfg.Limits.SpotChecksPerRepoDay = 5
	}})
	var rows []map[string]any
	if err := json.Unmarshal(a.scores, &rows); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(rows)
	reformatted, _ := json.Marshal(rows) // rows reversed, keys sorted, no indentation
	copyBy := func(n int, scores []byte) string {
		head := fmt.Sprintf("%040x", n)
		dir := fmt.Sprintf("submissions/model-benchmark/copy-%d/", n)
		a.gh.AddPR("geo/board", fakegithub.PR{Number: n, Author: "mallory", HeadSHA: head, BaseRef: "main", Files: []fakegithub.File{
			{Name: dir + "meta.json", Status: "added", Content: submittedBy(t, a.meta, "mallory")},
			{Name: dir + "scores.json", Status: "added", Content: scores},
		}})
		a.deliver("pull_request", fmt.Sprint("flood-", n), prEvent("opened", n, head))
		return head
	}
	spotCheck := func(head string) fakegithub.CheckRun {
		t.Helper()
		a.waitFor("the spot-check of "+head, func() bool { return len(a.runs(prcheck.RerunCheckName, head)) == 1 })
		return a.runs(prcheck.RerunCheckName, head)[0]
	}
	seed := regexp.MustCompile("Seed `([0-9a-f]{16})`")
	// The first copy, then the same scores re-formatted in another pull
	// request: one sample.
	first, second := spotCheck(copyBy(200, a.scores)), spotCheck(copyBy(201, reformatted))
	s1, s2 := seed.FindStringSubmatch(first.Output.Summary), seed.FindStringSubmatch(second.Output.Summary)
	if first.Conclusion != "success" || second.Conclusion != "success" || s1 == nil || s2 == nil || s1[1] != s2[1] {
		t.Fatalf("two copies: %s %v and %s %v, want both spot-checked with one seed", first.Conclusion, s1, second.Conclusion, s2)
	}
	// Four more at once: one is admitted, three meet the author's limit.
	var heads []string
	for n := 202; n <= 205; n++ {
		heads = append(heads, copyBy(n, a.scores))
	}
	var ran, refused int
	for _, h := range heads {
		switch r := spotCheck(h); {
		case r.Conclusion == "success":
			ran++
			if s := seed.FindStringSubmatch(r.Output.Summary); s == nil || s[1] != s1[1] {
				t.Errorf("another copy drew seed %v, want %s", s, s1[1])
			}
		case r.Conclusion == "neutral" && strings.Contains(r.Output.Summary, "BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY"):
			refused++
		default:
			t.Errorf("a copy's spot-check: %s %q", r.Conclusion, r.Output.Summary)
		}
	}
	if ran != 1 || refused != 3 {
		t.Errorf("of the four copies at once, %d spot-checked and %d refused by the author's limit; want 1 and 3", ran, refused)
	}
	// An honest submission by someone else still gets its spot-check.
	honest := strings.Repeat("e", 40)
	a.pr(210, honest, a.scores)
	a.deliver("pull_request", "honest-210", prEvent("opened", 210, honest))
	if r := spotCheck(honest); r.Conclusion != "success" {
		t.Errorf("the honest submission's spot-check: %s %q", r.Conclusion, r.Output.Summary)
	}
	for series, want := range map[string]float64{
		`benchgate_limit{limit="author_spot_checks"}`:                3,
		`benchgate_limit_refusals_total{limit="author_spot_checks"}`: 3,
		`benchgate_limit_refusals_total{limit="repo_spot_checks"}`:   -1, // never refused
	} {
		if got := a.metric(series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
}

// TestServeTooManyFilesToTell: a pull request at GitHub's 3,000-file
// listing cap may touch a submission past it, so it is not taken for one
// that touches none: it fails, asking to be split, and nothing of it is
// downloaded.
func TestServeTooManyFilesToTell(t *testing.T) {
	a := startApp(t)
	files := make([]fakegithub.File, 3001)
	for i := range files[:3000] {
		files[i] = fakegithub.File{Name: fmt.Sprintf("docs/page-%04d.md", i), Status: "added", Content: []byte("x\n")}
	}
	files[3000] = fakegithub.File{Name: "submissions/model-benchmark/late-run/meta.json", Status: "added", Content: submittedBy(t, a.meta, "mallory")}
	head := fmt.Sprintf("%040x", 7001)
	a.gh.AddPR("geo/board", fakegithub.PR{Number: 7001, Author: "mallory", HeadSHA: head, BaseRef: "main", Files: files})
	a.deliver("pull_request", "many-7001", prEvent("opened", 7001, head))
	a.waitFor("the check of 3,001 files", func() bool { return len(a.runs(prcheck.CheckName, head)) == 1 })
	r := a.runs(prcheck.CheckName, head)[0]
	if r.Conclusion != "failure" || !strings.Contains(r.Output.Summary, "cannot tell whether it touches a submission. Split it") {
		t.Errorf("%s: %s", r.Conclusion, r.Output.Summary)
	}
	for _, req := range a.gh.Requests() {
		if strings.Contains(req.Query, head) {
			t.Errorf("the head's files were read: %s %s?%s", req.Method, req.Path, req.Query)
		}
	}
}
