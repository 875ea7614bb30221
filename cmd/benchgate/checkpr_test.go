package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/verify"
)

// TestCheckPR runs check-pr over pull requests given as git lists them
// and checks that it concludes as prcheck.CheckPR, the App's check, does
// over the same files.
func TestCheckPR(t *testing.T) {
	base := copyBoard(t)
	merged := "submissions/model-benchmark/qwen3-32b-reservoir"
	meta := readFile(t, filepath.Join(base, merged, "meta.json"))
	scores := readFile(t, filepath.Join(base, merged, "scores.json"))
	newRun := func(slug string) map[string]string {
		return map[string]string{"submissions/model-benchmark/" + slug + "/meta.json": meta, "submissions/model-benchmark/" + slug + "/scores.json": scores}
	}
	edited := strings.Replace(meta, `"notes": "`, `"notes": "rerun. `, 1)
	if edited == meta {
		t.Fatal("the example meta.json has no notes to edit")
	}
	for _, tc := range []struct {
		name       string
		list       string            // git diff --name-status
		head       map[string]string // the head's content of the submission files
		author     string
		maintainer bool
		want       prcheck.Conclusion
		says       string // in check-pr's output, when set
	}{
		{"one folder", "A\tsubmissions/model-benchmark/new-run/meta.json\nA\tsubmissions/model-benchmark/new-run/scores.json\n", newRun("new-run"), "example-lab", false, prcheck.Success, ""},
		{"one folder, another submitter", "A\tsubmissions/model-benchmark/new-run/meta.json\nA\tsubmissions/model-benchmark/new-run/scores.json\n", newRun("new-run"), "mallory", false, prcheck.Failure, "meta.submitter"},
		{"two folders", "A\tsubmissions/model-benchmark/run-a/meta.json\nA\tsubmissions/model-benchmark/run-a/scores.json\nA\tsubmissions/model-benchmark/run-b/meta.json\nA\tsubmissions/model-benchmark/run-b/scores.json\n", merge(newRun("run-a"), newRun("run-b")), "example-lab", false, prcheck.Failure, "Open one pull request for each"},
		// Neutral, and exit 0, only for a pull request touching no
		// submission; one touching a submission and more fails.
		{"rubrics edit", "M\trubrics/rubrics.json\n", nil, "example-lab", false, prcheck.Neutral, "changes no submission folder (it changes `rubrics/rubrics.json`)"},
		{"rubrics edit with a submission", "M\trubrics/rubrics.json\nA\tsubmissions/model-benchmark/new-run/meta.json\nA\tsubmissions/model-benchmark/new-run/scores.json\n", newRun("new-run"), "example-lab", false, prcheck.Failure, "also 1 file(s) outside it: `rubrics/rubrics.json`"},
		{"a maintainer's submission with a README", "M\tREADME.md\nA\tsubmissions/model-benchmark/new-run/meta.json\nA\tsubmissions/model-benchmark/new-run/scores.json\n", newRun("new-run"), "maint", true, prcheck.Failure, "also 1 file(s) outside it: `README.md`"},
		{"someone else's merged submission", "M\t" + merged + "/meta.json\n", map[string]string{merged + "/meta.json": edited}, "mallory", false, prcheck.Failure, "submitted by example-lab, and this pull request changes `" + merged + "/meta.json` there"},
		{"someone else's merged submission with a README typo", "M\tREADME.md\nM\t" + merged + "/meta.json\n", map[string]string{merged + "/meta.json": edited}, "mallory", false, prcheck.Failure, "submitted by example-lab, and this pull request changes `" + merged + "/meta.json` there"},
		{"someone else's merged submission deleted with a README typo", "M\tREADME.md\nD\t" + merged + "/meta.json\nD\t" + merged + "/scores.json\n", nil, "mallory", false, prcheck.Failure, "and this pull request removes `" + merged + "/meta.json`, `" + merged + "/scores.json` there"},
		{"own merged submission", "M\t" + merged + "/meta.json\n", map[string]string{merged + "/meta.json": edited}, "example-lab", false, prcheck.Success, ""},
		{"own merged submission with a README typo", "M\tREADME.md\nM\t" + merged + "/meta.json\n", map[string]string{merged + "/meta.json": edited}, "example-lab", false, prcheck.Failure, "also 1 file(s) outside it: `README.md`"},
		{"a maintainer edits a merged submission", "M\t" + merged + "/meta.json\n", map[string]string{merged + "/meta.json": edited}, "maint", true, prcheck.Success, ""},
		{"rename of a merged submission", "R100\t" + merged + "/meta.json\tsubmissions/model-benchmark/mine/meta.json\n", map[string]string{"submissions/model-benchmark/mine/meta.json": meta}, "mallory", false, prcheck.Failure, "submitted by example-lab, and this pull request removes `" + merged + "/meta.json` there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			list := filepath.Join(tmp, "files.txt")
			if err := os.WriteFile(list, []byte(tc.list), 0o644); err != nil {
				t.Fatal(err)
			}
			head := filepath.Join(tmp, "head")
			for p, data := range tc.head {
				writeFile(t, filepath.Join(head, p), data)
			}
			args := []string{"check-pr", "--root", base, "--files", list, "--head", head, "--author", tc.author}
			if tc.maintainer {
				args = append(args, "--maintainer")
			}
			code, out, stderr := runCLI(t, args...)

			// The App's check of the same pull request, its files listed
			// as GitHub lists them.
			var files []prcheck.ChangedFile
			for _, line := range strings.Split(strings.TrimSpace(tc.list), "\n") {
				f := strings.Split(line, "\t")
				switch f[0] {
				case "A":
					files = append(files, prcheck.ChangedFile{Path: f[1], Status: "added", Content: []byte(tc.head[f[1]])})
				case "D":
					files = append(files, prcheck.ChangedFile{Path: f[1], Status: "removed"})
				case "M":
					files = append(files, prcheck.ChangedFile{Path: f[1], Status: "modified", Content: []byte(tc.head[f[1]])})
				case "R100":
					files = append(files, prcheck.ChangedFile{Path: f[1], Status: "removed"}, prcheck.ChangedFile{Path: f[2], Status: "renamed", Content: []byte(tc.head[f[2]])})
				}
			}
			app := prcheck.CheckPR(os.DirFS(base), prcheck.PRInfo{Author: tc.author, AuthorCanWrite: tc.maintainer}, files, verify.Options{MaxFileBytes: 64 << 20})
			if app.Conclusion != tc.want {
				t.Fatalf("the App concludes %s (%s), the table says %s", app.Conclusion, app.Summary, tc.want)
			}
			if code != checkExit(tc.want) {
				t.Errorf("check-pr: exit %d, want %d (%s, as the App concludes)\nstdout %s\nstderr %s", code, checkExit(tc.want), tc.want, out, stderr)
			}
			if !strings.Contains(out, app.Title) && app.Report == nil {
				t.Errorf("check-pr does not say %q:\n%s", app.Title, out)
			}
			if !strings.Contains(out, tc.says) || !strings.Contains(app.Summary, tc.says) {
				t.Errorf("check-pr or the App does not say %q:\ncheck-pr: %s\nthe App: %s", tc.says, out, app.Summary)
			}
		})
	}
}

func TestCheckPRGitHubFormat(t *testing.T) {
	base := copyBoard(t)
	tmp := t.TempDir()
	list := filepath.Join(tmp, "files.txt")
	writeFile(t, list, "A\tsubmissions/model-benchmark/a/meta.json\nA\tsubmissions/model-benchmark/b/meta.json\n")
	head := filepath.Join(tmp, "head")
	writeFile(t, filepath.Join(head, "submissions/model-benchmark/a/meta.json"), "{}")
	writeFile(t, filepath.Join(head, "submissions/model-benchmark/b/meta.json"), "{}")
	summary := filepath.Join(tmp, "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	code, out, _ := runCLI(t, "check-pr", "--root", base, "--files", list, "--head", head, "--author", "x", "--format", "github")
	if code != exitFail || !strings.HasPrefix(out, "::error title=benchgate%3A Not a valid submission pull request::") {
		t.Errorf("exit %d, output %q; want exit 1 and an error annotation", code, out)
	}
	if s := readFile(t, summary); !strings.Contains(s, "Open one pull request for each") {
		t.Errorf("job summary %q lacks the reason", s)
	}
}

func TestCheckPRSymlink(t *testing.T) {
	base := copyBoard(t)
	tmp := t.TempDir()
	list := filepath.Join(tmp, "files.txt")
	writeFile(t, list, "A\tsubmissions/model-benchmark/l/meta.json\nA\tsubmissions/model-benchmark/l/scores.json\n")
	head := filepath.Join(tmp, "head", "submissions/model-benchmark/l")
	writeFile(t, filepath.Join(head, "scores.json"), "[]")
	if err := os.Symlink("/etc/passwd", filepath.Join(head, "meta.json")); err != nil {
		t.Skip(err)
	}
	code, out, stderr := runCLI(t, "check-pr", "--root", base, "--files", list, "--head", filepath.Join(tmp, "head"), "--author", "x")
	if code != exitFail || !strings.Contains(out+stderr, "link") {
		t.Errorf("a symbolic link: exit %d, %s%s; want it refused as a link", code, out, stderr)
	}
}

func TestParseNameStatus(t *testing.T) {
	files, err := parseNameStatus("A\ta\nM\t\"sub/\\303\\251\"\nD\tc\nR087\told\tnew\nC100\tx\ty\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Status+" "+f.Path)
	}
	want := "added a|modified sub/é|removed c|removed old|renamed new|added y"
	if strings.Join(got, "|") != want {
		t.Errorf("got %s, want %s", strings.Join(got, "|"), want)
	}
	if _, err := parseNameStatus("A a b\n"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a line that is not git's: %v", err)
	}
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckPRFileTooLarge(t *testing.T) {
	base := copyBoard(t)
	tmp := t.TempDir()
	list := filepath.Join(tmp, "files.txt")
	writeFile(t, list, "A\tsubmissions/model-benchmark/big/meta.json\nA\tsubmissions/model-benchmark/big/scores.json\n")
	head := filepath.Join(tmp, "head", "submissions/model-benchmark/big")
	merged := filepath.Join(repoRoot, "submissions/model-benchmark/qwen3-32b-reservoir")
	writeFile(t, filepath.Join(head, "meta.json"), readFile(t, filepath.Join(merged, "meta.json")))
	writeFile(t, filepath.Join(head, "scores.json"), readFile(t, filepath.Join(merged, "scores.json")))
	code, out, stderr := runCLI(t, "check-pr", "--root", base, "--files", list, "--head", filepath.Join(tmp, "head"), "--author", "example-lab", "--max-file-bytes", "100")
	if code != exitFail || !strings.Contains(out, "layout.too-large") {
		t.Errorf("files over --max-file-bytes: exit %d, want 1 and layout.too-large\n%s%s", code, out, stderr)
	}
}

// TestCheckPRAuthorLogin: --author is a GitHub login, ASCII as GitHub's
// are: a look-alike (the Kelvin sign for K) is refused as a usage error
// naming the flag, before anything is checked.
func TestCheckPRAuthorLogin(t *testing.T) {
	base := copyBoard(t)
	tmp := t.TempDir()
	list := filepath.Join(tmp, "files.txt")
	writeFile(t, list, "M\tREADME.md\n")
	for _, author := range []string{"\u212Aim", "kim--x", "-kim", strings.Repeat("k", 40)} {
		code, out, stderr := runCLI(t, "check-pr", "--root", base, "--files", list, "--head", tmp, "--author", author)
		if code != exitUsage || !strings.Contains(stderr, "--author: ") || !strings.Contains(stderr, "a GitHub login is") {
			t.Errorf("--author %q: exit %d, %s%s; want a usage error naming --author and the rule", author, code, out, stderr)
		}
	}
	code, out, stderr := runCLI(t, "check-pr", "--root", base, "--files", list, "--head", tmp, "--author", "Kim")
	if code != exitOK {
		t.Errorf("--author Kim: exit %d, %s%s", code, out, stderr)
	}
}
