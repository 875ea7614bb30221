package prcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/verify"
)

func readRepo(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(fixtures.Root(t) + "/" + p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var checkOpts = verify.Options{Today: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}

func TestCheckPR(t *testing.T) {
	base := os.DirFS(fixtures.Root(t))
	const merged = "submissions/model-benchmark/qwen3-32b-reservoir" // submitted by example-lab
	labMeta := readRepo(t, merged+"/meta.json")
	meta := metaBy(t, labMeta, "newcomer")
	scores := readRepo(t, merged+"/scores.json")
	badScores := []byte(strings.Replace(string(scores), `"correct": true`, `"correct": false`, 1))
	add := func(dir string, m, s []byte) []ChangedFile {
		return []ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: m}, {Path: dir + "/scores.json", Status: "added", Content: s}}
	}
	edit := func(name string, data []byte) []ChangedFile {
		return []ChangedFile{{Path: merged + "/" + name, Status: "modified", Content: data}}
	}
	author := PRInfo{Repo: "geo/board", Number: 5, HeadSHA: "0123456789abcdef0123", Author: "newcomer"}
	maintainer := author
	maintainer.AuthorCanWrite = true
	by := func(login string) PRInfo {
		pr := author
		pr.Author = login
		return pr
	}
	tests := []struct {
		name       string
		pr         PRInfo
		files      []ChangedFile
		conclusion Conclusion
		want       string // in the summary
		annotated  bool
	}{
		{"a valid new submission", author, add("submissions/model-benchmark/new-run", meta, scores), Success, "1 passed", false},
		{"an invalid one", author, add("submissions/model-benchmark/new-run", meta, badScores), Failure, "mcq.correct", true},
		{"two submissions", author, append(add("submissions/model-benchmark/a", meta, scores), add("submissions/model-benchmark/b", meta, scores)...), Failure, "touches 2 (`submissions/model-benchmark/a`, `submissions/model-benchmark/b`). Open one pull request for each.", false},
		// A pull request touching a submission changes that folder alone,
		// or fails naming what to move out; only one touching none is
		// neutral.
		{"a submission and a change to the rubrics", author, append(add("submissions/model-benchmark/a", meta, scores), ChangedFile{Path: "rubrics/rubrics.json", Status: "modified", Content: []byte("[]")}), Failure, "This pull request changes the submission `submissions/model-benchmark/a` and also 1 file(s) outside it: `rubrics/rubrics.json`. A submission pull request changes one submission folder and nothing else", false},
		{"a submission and a reproduction record", author, append(add("submissions/model-benchmark/a", meta, scores), ChangedFile{Path: "reproductions/model-benchmark/a.json", Status: "added", Content: []byte(`{"verdict": "consistent"}`)}), Failure, "`reproductions/model-benchmark/a.json`. A submission pull request", false},
		{"a maintainer's submission and a README", maintainer, append(add("submissions/model-benchmark/a", meta, scores), ChangedFile{Path: "README.md", Status: "modified", Content: []byte("typo")}), Failure, "also 1 file(s) outside it: `README.md`", false},
		{"someone else's submission and a README", author, append(edit("scores.json", scores), ChangedFile{Path: "README.md", Status: "modified", Content: []byte("typo")}), Failure, "- `" + merged + "` is already on the leaderboard, submitted by example-lab, and this pull request changes `" + merged + "/scores.json` there; only its submitter or a maintainer may change it. To add your own run, use a new folder name.\n- This pull request changes the submission `" + merged + "` and also 1 file(s) outside it: `README.md`", false},
		{"someone else's submission removed with a README", author, []ChangedFile{{Path: merged + "/meta.json", Status: "removed"}, {Path: merged + "/scores.json", Status: "removed"}, {Path: "README.md", Status: "modified", Content: []byte("typo")}}, Failure, "submitted by example-lab, and this pull request removes `" + merged + "/meta.json`, `" + merged + "/scores.json` there", false},
		{"a submission and files beside the folders", author, append(add("submissions/model-benchmark/a", meta, scores), ChangedFile{Path: "submissions/README.md", Status: "added", Content: []byte("x")}, ChangedFile{Path: "submissions/_template/meta.json", Status: "modified", Content: []byte("{}")}), Failure, "also 2 file(s) outside it: `submissions/README.md`, `submissions/_template/meta.json`", false},
		{"a code change", author, []ChangedFile{{Path: "verify/verify.go", Status: "modified", Content: []byte("package verify")}}, Neutral, "This pull request changes no submission folder (it changes `verify/verify.go`), so benchgate has nothing to verify", false},
		{"many files of no submission", author, manyFiles("docs/page-%02d.md", 12), Neutral, "(it changes `docs/page-00.md`, `docs/page-01.md`, `docs/page-02.md`, `docs/page-03.md`, `docs/page-04.md`, `docs/page-05.md`, `docs/page-06.md`, `docs/page-07.md`, `docs/page-08.md`, `docs/page-09.md`, and 2 more)", false},
		// A new submission is bound to the pull request's author.
		{"a new submission naming another submitter", author, add("submissions/model-benchmark/new-run", labMeta, scores), Failure, `submitter is "example-lab", but this submission comes from the GitHub account "newcomer": set "submitter" to your GitHub login, "newcomer" (logins compare case-insensitively`, true},
		{"naming its author in another case", by("NewComer"), add("submissions/model-benchmark/new-run", meta, scores), Success, "1 passed", false},
		{"a maintainer may submit for someone else", maintainer, add("submissions/model-benchmark/new-run", labMeta, scores), Success, "1 passed", false},
		{"a pull request without an author", by(""), add("submissions/model-benchmark/new-run", metaBy(t, labMeta, ""), scores), Failure, "GitHub named no author", false},
		// A merged submission is changed by its recorded submitter (the
		// base branch's meta.json) or a maintainer, whatever the pull
		// request's meta.json says.
		{"someone else's submission", author, edit("scores.json", scores), Failure, "`" + merged + "` is already on the leaderboard, submitted by example-lab, and this pull request changes `" + merged + "/scores.json` there", false},
		{"someone else's submission removed", author, []ChangedFile{{Path: merged + "/scores.json", Status: "removed"}}, Failure, "submitted by example-lab, and this pull request removes `" + merged + "/scores.json` there; only its submitter or a maintainer may change it", false},
		{"someone else's submission and one's own", author, append(edit("scores.json", scores), add("submissions/model-benchmark/new-run", meta, scores)...), Failure, "submitted by example-lab, and this pull request changes `" + merged + "/scores.json` there; only its submitter or a maintainer may change it. To add your own run, use a new folder name.\n- A submission pull request changes one submission; this one touches 2", false},
		{"a look-alike of its author's login", by("kim"), add("submissions/model-benchmark/new-run", metaBy(t, labMeta, "\u212Aim"), scores), Failure, "submitter is not a GitHub login: character 1 of \"\u212Aim\" is U+212A, not ASCII", true},
		{"someone else's, claiming it in meta.json", author, edit("meta.json", meta), Failure, "submitted by example-lab, and this pull request changes `" + merged + "/meta.json` there; only its submitter or a maintainer may change it", false},
		{"a maintainer may change it", maintainer, edit("scores.json", scores), Success, "1 passed", false},
		{"its submitter may change it", PRInfo{Repo: "geo/board", HeadSHA: "x", Author: "Example-Lab"}, edit("scores.json", scores), Success, "1 passed", false},
		{"its submitter may not hand it to another", by("example-lab"), edit("meta.json", meta), Failure, `set "submitter" to your GitHub login, "example-lab"`, true},
		{"a maintainer may hand it to another", maintainer, edit("meta.json", meta), Success, "1 passed", false},
		{"removing files", author, []ChangedFile{{Path: "submissions/model-benchmark/new-run/README.md", Status: "removed"}}, Failure, "only a maintainer may remove", false},
		{"the template is not a submission", author, []ChangedFile{{Path: "submissions/_template/README.md", Status: "modified", Content: []byte("x")}}, Neutral, "(it changes `submissions/_template/README.md`), so benchgate has nothing to verify", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				t.Fatal("the case names nothing its summary must say")
			}
			out := CheckPR(base, tt.pr, tt.files, checkOpts)
			if out.Conclusion != tt.conclusion || !strings.Contains(out.Summary, tt.want) {
				t.Errorf("conclusion %s, summary:\n%s\nwant %s containing %q", out.Conclusion, out.Summary, tt.conclusion, tt.want)
			}
			if (len(out.Annotations) > 0) != tt.annotated {
				t.Errorf("annotations: %+v", out.Annotations)
			}
			if !strings.HasPrefix(out.Comment, StickyMarker+"\n") || !strings.Contains(out.Comment, "`0123456789ab`") && tt.pr.HeadSHA != "x" {
				t.Errorf("comment: %q", out.Comment)
			}
		})
	}
	// An annotation points at the offending line of the pull request's file.
	out := CheckPR(base, author, add("submissions/model-benchmark/new-run", meta, badScores), checkOpts)
	a := out.Annotations[0]
	if a.Path != "submissions/model-benchmark/new-run/scores.json" || a.StartLine < 2 || a.Level != LevelFailure || !strings.HasPrefix(a.Message, "question rq-") {
		t.Errorf("annotation %+v", a)
	}
	// Another submitter's name is annotated on its line of meta.json.
	out = CheckPR(base, author, add("submissions/model-benchmark/new-run", labMeta, scores), checkOpts)
	if a := out.Annotations[0]; a.Path != "submissions/model-benchmark/new-run/meta.json" || a.StartLine != lineOf(t, labMeta, `"submitter"`) || a.Title != "meta.submitter" {
		t.Errorf("annotation %+v", a)
	}
}

// TestNeedsPermission: the App asks GitHub for the author's permission
// exactly when the check depends on it.
func TestNeedsPermission(t *testing.T) {
	base := os.DirFS(fixtures.Root(t))
	const merged = "submissions/model-benchmark/qwen3-32b-reservoir" // submitted by example-lab
	const dir = "submissions/model-benchmark/new-run"
	labMeta := readRepo(t, merged+"/meta.json")
	pr := PRInfo{Author: "newcomer"}
	tests := []struct {
		name  string
		files []ChangedFile
		want  bool
	}{
		{"a new submission naming its author", []ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: metaBy(t, labMeta, "newcomer")}}, false},
		{"naming its author in another case", []ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: metaBy(t, labMeta, "NEWCOMER")}}, false},
		{"naming someone else", []ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: labMeta}}, true},
		{"without meta.json", []ChangedFile{{Path: dir + "/scores.json", Status: "added", Content: []byte("[]")}}, true},
		{"a merged submission", []ChangedFile{{Path: merged + "/meta.json", Status: "modified", Content: metaBy(t, labMeta, "newcomer")}}, true},
		{"a removal", []ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: metaBy(t, labMeta, "newcomer")}, {Path: dir + "/README.md", Status: "removed"}}, true},
		{"a look-alike of its author", []ChangedFile{{Path: dir + "/meta.json", Status: "added", Content: metaBy(t, labMeta, "n\u0435wcomer")}}, true},
		// A mixed pull request fails whatever its files say: only the
		// folders it touches matter, and the listing has no content.
		{"a listed submission and a README", []ChangedFile{{Path: dir + "/meta.json", Status: "added"}, {Path: "README.md", Status: "modified"}}, false},
		{"two listed new submissions", []ChangedFile{{Path: dir + "/meta.json", Status: "added"}, {Path: dir + "2/meta.json", Status: "added"}}, false},
		{"a listed merged submission and a README", []ChangedFile{{Path: merged + "/scores.json", Status: "modified"}, {Path: "README.md", Status: "modified"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsPermission(base, pr, tt.files); got != tt.want {
				t.Errorf("NeedsPermission = %v, want %v", got, tt.want)
			}
		})
	}
}

// metaBy is meta.json naming login as its submitter.
func metaBy(t *testing.T, meta []byte, login string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	m["submitter"] = login
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lineOf is the line of data on which s first appears.
func lineOf(t *testing.T, data []byte, s string) int {
	t.Helper()
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		t.Fatalf("%q is not in the file", s)
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

// TestCheckPRSymlinks: a symbolic link in a submission is refused with
// layout.symlink by the App's check as by the CLI, with the same verdict
// and findings. The CLI side verifies a checkout on disk holding real
// links; the App side checks the pull request's files over the base tree.
func TestCheckPRSymlinks(t *testing.T) {
	const dir = "submissions/model-benchmark/new-run"
	const other = "submissions/model-benchmark/qwen3-32b-reservoir"
	meta := readRepo(t, other+"/meta.json")
	scores := readRepo(t, other+"/scores.json")
	file := func(name string, data []byte) ChangedFile {
		return ChangedFile{Path: dir + "/" + name, Status: "added", Content: data}
	}
	link := func(name, target string) ChangedFile {
		p := dir
		if name != "" {
			p += "/" + name
		}
		return ChangedFile{Path: p, Status: "added", Content: []byte(target), Symlink: true}
	}
	// The author is the submitter the example meta.json names.
	author := PRInfo{Repo: "geo/board", Number: 7, HeadSHA: "0123456789abcdef0123", Author: "example-lab"}
	maintainer := author
	maintainer.AuthorCanWrite = true
	tests := []struct {
		name  string
		base  []ChangedFile // besides the registry, the benchmarks and the other submission
		pr    PRInfo
		files []ChangedFile
		where string // the file layout.symlink names
	}{
		{"scores.json links to another submission's", nil, author, []ChangedFile{file("meta.json", meta), link("scores.json", "../qwen3-32b-reservoir/scores.json")}, dir + "/scores.json"},
		{"scores.json links outside the repository", nil, author, []ChangedFile{file("meta.json", meta), link("scores.json", "../../../../../etc/passwd")}, dir + "/scores.json"},
		{"scores.json links to nothing", nil, author, []ChangedFile{file("meta.json", meta), link("scores.json", "missing.json")}, dir + "/scores.json"},
		{"meta.json is a link", nil, author, []ChangedFile{link("meta.json", "../qwen3-32b-reservoir/meta.json"), file("scores.json", scores)}, dir + "/meta.json"},
		{"README.md is a link", nil, author, []ChangedFile{file("meta.json", meta), file("scores.json", scores), link("README.md", "../../../README.md")}, dir + "/README.md"},
		{"the folder is a link", nil, author, []ChangedFile{link("", "qwen3-32b-reservoir")}, dir},
		{"a link already on the base branch", []ChangedFile{file("meta.json", meta), link("scores.json", "../qwen3-32b-reservoir/scores.json")}, maintainer, []ChangedFile{{Path: dir + "/meta.json", Status: "modified", Content: meta}}, dir + "/scores.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, checkout := t.TempDir(), t.TempDir()
			for _, root := range []string{base, checkout} {
				for _, p := range []string{"rubrics/rubrics.json", "rubrics/reservoir-mcq.jsonl", "rubrics/basin-analysis.json", other + "/meta.json", other + "/scores.json"} {
					materialize(t, root, ChangedFile{Path: p, Content: readRepo(t, p)})
				}
				for _, f := range tt.base {
					materialize(t, root, f)
				}
			}
			for _, f := range tt.files {
				materialize(t, checkout, f)
			}

			v, err := verify.New(os.DirFS(checkout), checkOpts)
			if err != nil {
				t.Fatal(err)
			}
			cli := v.Verify(dir)
			out := CheckPR(os.DirFS(base), tt.pr, tt.files, checkOpts)
			if out.Report == nil {
				t.Fatalf("no report: %s %s", out.Conclusion, out.Summary)
			}
			app := out.Report.Submissions[0]

			want := "error:layout.symlink:" + tt.where
			if out.Conclusion != Failure || !slices.Contains(findingList(app), want) || !strings.Contains(out.Summary, "layout.symlink") {
				t.Errorf("the App: %s %v, want failure with %s", out.Conclusion, findingList(app), want)
			}
			if !slices.ContainsFunc(out.Annotations, func(a Annotation) bool {
				return a.Title == "layout.symlink" && a.Path == tt.where && a.Level == LevelFailure
			}) {
				t.Errorf("annotations %+v", out.Annotations)
			}
			if cli.Status != app.Status || !slices.Equal(findingList(cli), findingList(app)) {
				t.Errorf("the CLI says %s %v\nthe App says %s %v", cli.Status, findingList(cli), app.Status, findingList(app))
			}
		})
	}
}

// findingList is a result's findings as severity:code:file, sorted.
func findingList(r verify.Result) []string {
	var out []string
	for _, f := range append(slices.Clone(r.Errors), r.Warnings...) {
		out = append(out, fmt.Sprintf("%s:%s:%s", f.Severity, f.Code, f.File))
	}
	slices.Sort(out)
	return out
}

// materialize writes f under root as a checkout would: a file, or a real
// symbolic link.
func materialize(t *testing.T, root string, f ChangedFile) {
	t.Helper()
	name := filepath.Join(root, filepath.FromSlash(f.Path))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(name)
	var err error
	if f.Symlink {
		if err = os.Symlink(string(f.Content), name); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	} else {
		err = os.WriteFile(name, f.Content, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestCaps(t *testing.T) {
	long := strings.Repeat("é", MaxSummaryBytes)
	got := capBytes(long, MaxSummaryBytes, "…cut")
	if len(got) > MaxSummaryBytes || !strings.HasSuffix(got, "…cut") || !strings.HasPrefix(got, "éé") {
		t.Errorf("capBytes: %d bytes", len(got))
	}
}

// TestOverlayCarriesTheRecord: the tree a pull request is verified in,
// which the App's spot-check goes on from, holds the calibration record of
// the benchmark the submission answers, as a checkout does for the CLI.
func TestOverlayCarriesTheRecord(t *testing.T) {
	base := fstest.MapFS{}
	for _, p := range []string{"rubrics/rubrics.json", "rubrics/basin-analysis.json", "rubrics/reservoir-mcq.jsonl"} {
		base[p] = &fstest.MapFile{Data: readRepo(t, p)}
	}
	b, err := benchmark.Open(base, "basin-analysis")
	if err != nil {
		t.Fatal(err)
	}
	q := b.Rubric.Questions[0]
	rec := &benchmark.CalibrationRecord{Benchmark: "basin-analysis", RubricSHA256: b.SHA256, JudgeModel: b.Entry.JudgeModel, Judge: b.Entry.Judge, Recorded: "2026-12-01", Runs: 1,
		Grades: []benchmark.RecordedGrade{{QuestionID: q.ID, FixtureID: q.Calibration[0].ID, Run: 1, GatePassed: q.Calibration[0].GatePassed, Total: q.Calibration[0].Total}}}
	data, err := rec.Encode()
	if err != nil {
		t.Fatal(err)
	}
	base[benchmark.RecordPath(b.Entry)] = &fstest.MapFile{Data: data}
	const merged = "submissions/model-benchmark/qwen3-32b-basin"
	dir := "submissions/model-benchmark/new-run"
	files := []ChangedFile{
		{Path: dir + "/meta.json", Status: "added", Content: metaBy(t, readRepo(t, merged+"/meta.json"), "newcomer")},
		{Path: dir + "/scores.json", Status: "added", Content: readRepo(t, merged+"/scores.json")},
	}
	tree := Overlay(base, dir, files)
	v, err := verify.New(tree, checkOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got, fs := v.Benchmark("basin-analysis"); got == nil || got.Record == nil || len(got.Record.Grades) != 1 {
		t.Errorf("the benchmark in the verified tree has no record: %v", fs)
	}
	if _, err := fs.Stat(tree, "rubrics/reservoir-mcq.jsonl"); err == nil {
		t.Error("the tree holds a benchmark the submission does not answer")
	}
}

// TestOverlayCarriesThePrompts: a registry whose benchmarks name prompt
// files reads in the verified tree as in the base tree: each prompt file
// is there, and the judge's keeps its digest.
func TestOverlayCarriesThePrompts(t *testing.T) {
	base := fstest.MapFS{}
	for _, p := range []string{"rubrics/basin-analysis.json", "rubrics/reservoir-mcq.jsonl"} {
		base[p] = &fstest.MapFile{Data: readRepo(t, p)}
	}
	reg := strings.Replace(string(readRepo(t, "rubrics/rubrics.json")), `"judge": {`, `"judge": {"prompt_file": "rubrics/basin-judge.txt", `, 1)
	reg = strings.Replace(reg, `"prompt": "answer-line",`, `"prompt_file": "rubrics/mcq-prompt.txt",`, 1)
	base["rubrics/rubrics.json"] = &fstest.MapFile{Data: []byte(reg)}
	base["rubrics/basin-judge.txt"] = &fstest.MapFile{Data: []byte("=== user ===\nGrade as JSON.\n{{rubric}}\n{{answer}}\n")}
	base["rubrics/mcq-prompt.txt"] = &fstest.MapFile{Data: []byte("=== user ===\n{{question}}\n{{choices}}\nANSWER: <letter>\n")}
	want, err := benchmark.Open(base, "basin-analysis")
	if err != nil || want.Entry.JudgePrompt == nil {
		t.Fatalf("the base tree's benchmark: %v", err)
	}
	const merged = "submissions/model-benchmark/qwen3-32b-basin"
	dir := "submissions/model-benchmark/new-run"
	tree := Overlay(base, dir, []ChangedFile{
		{Path: dir + "/meta.json", Status: "added", Content: metaBy(t, readRepo(t, merged+"/meta.json"), "newcomer")},
		{Path: dir + "/scores.json", Status: "added", Content: readRepo(t, merged+"/scores.json")},
	})
	got, fs := benchmark.LoadRegistry(tree)
	if got == nil || len(fs) != 0 {
		t.Fatalf("the verified tree's registry: %v", fs)
	}
	if e, _ := got.Lookup("basin-analysis"); e.Problem != "" || e.JudgePromptSHA256() != want.Entry.JudgePromptSHA256() {
		t.Errorf("the judge's prompt in the verified tree: %+v", e)
	}
}

// manyFiles is n added files named by format and their number.
func manyFiles(format string, n int) []ChangedFile {
	out := make([]ChangedFile, n)
	for i := range out {
		out[i] = ChangedFile{Path: fmt.Sprintf(format, i), Status: "added", Content: []byte("x")}
	}
	return out
}

// TestCheckPRLookalikeOwner: a submission merged with a look-alike
// submitter (the Kelvin sign for K, which strings.EqualFold folds to k)
// belongs to no GitHub account: the account it imitates may not change it
// as its submitter, and even a maintainer's change fails verification
// until the submitter is written in ASCII.
func TestCheckPRLookalikeOwner(t *testing.T) {
	const merged = "submissions/model-benchmark/qwen3-32b-reservoir"
	base := fstest.MapFS{}
	for _, p := range []string{"rubrics/rubrics.json", "rubrics/basin-analysis.json", "rubrics/reservoir-mcq.jsonl", merged + "/scores.json"} {
		base[p] = &fstest.MapFile{Data: readRepo(t, p)}
	}
	kelvin := metaBy(t, readRepo(t, merged+"/meta.json"), "\u212Aim")
	base[merged+"/meta.json"] = &fstest.MapFile{Data: kelvin}
	edit := []ChangedFile{{Path: merged + "/scores.json", Status: "modified", Content: readRepo(t, merged+"/scores.json")}}

	out := CheckPR(base, PRInfo{Repo: "geo/board", HeadSHA: "x", Author: "kim"}, edit, checkOpts)
	if out.Conclusion != Failure || !strings.Contains(out.Summary, "submitted by \u212Aim, and this pull request changes `"+merged+"/scores.json` there") {
		t.Errorf("the look-alike's account: %s\n%s", out.Conclusion, out.Summary)
	}
	out = CheckPR(base, PRInfo{Repo: "geo/board", HeadSHA: "x", Author: "maint", AuthorCanWrite: true}, edit, checkOpts)
	if out.Conclusion != Failure || !strings.Contains(out.Summary, "U+212A, not ASCII") || len(out.Annotations) != 1 || out.Annotations[0].Title != "meta.submitter" {
		t.Errorf("a maintainer's change: %s %+v\n%s", out.Conclusion, out.Annotations, out.Summary)
	}
}
