package prcheck

import (
	"fmt"
	"strings"
	"testing"
)

// TestListedFolderRule: a listing that puts more files in one submission
// folder than the layout allows fails from the listing alone, naming the
// files to remove; one at GitHub's listing cap, or whose changed_files
// says it is past it, is not a submission.
func TestListedFolderRule(t *testing.T) {
	const dir = "submissions/model-benchmark/run"
	files := func(names ...string) []ChangedFile {
		var out []ChangedFile
		for _, n := range names {
			status := "added"
			if s, rest, ok := strings.Cut(n, ":"); ok {
				status, n = s, rest
			}
			out = append(out, ChangedFile{Path: n, Status: status})
		}
		return out
	}
	many := func(n int, prefix string) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, fmt.Sprintf("%spart-%04d.csv", prefix, i))
		}
		return out
	}
	for _, c := range []struct {
		name       string
		pr         PRInfo
		files      []ChangedFile
		overfull   bool
		settled    bool
		conclusion Conclusion
		says       []string
	}{
		{"a submission", PRInfo{}, files(dir+"/meta.json", dir+"/scores.json", dir+"/README.md"), false, false, "", nil},
		{"one file too many", PRInfo{}, files(dir+"/meta.json", dir+"/scores.json", dir+"/README.md", dir+"/notes.txt"), true, true, Failure,
			[]string{"puts 4 files or more in `" + dir + "`", "a submission folder holds only meta.json, scores.json and an optional README.md", "`" + dir + "/notes.txt`"}},
		{"removals do not count", PRInfo{}, files(dir+"/meta.json", dir+"/scores.json", "removed:"+dir+"/a.txt", "removed:"+dir+"/b.txt"), false, false, "", nil},
		{"a thousand files, ten named", PRInfo{}, files(many(1000, dir+"/")...), true, true, Failure, []string{"puts 1000 files or more", "part-0009.csv`, and 990 more"}},
		{"crowded, with files elsewhere", PRInfo{}, files(append(many(5, dir+"/"), "README.md")...), true, true, Failure, []string{"puts 5 files"}},
		{"changed_files past the cap", PRInfo{ChangedFiles: 3001}, nil, false, true, Failure, []string{"3000 files or more", "Split it"}},
		{"a listing at the cap", PRInfo{}, files(many(MaxListedFiles, "data/")...), false, true, Failure, []string{"3000 files or more", "Split it"}},
	} {
		if got := Overfull(c.files); got != c.overfull {
			t.Errorf("%s: Overfull %v, want %v", c.name, got, c.overfull)
		}
		out, _, settled := Listed(c.pr, c.files)
		if settled != c.settled || out.Conclusion != c.conclusion {
			t.Errorf("%s: settled %v %q, want %v %q: %s", c.name, settled, out.Conclusion, c.settled, c.conclusion, out.Summary)
		}
		for _, s := range c.says {
			if !strings.Contains(out.Summary, s) {
				t.Errorf("%s: summary lacks %q: %s", c.name, s, out.Summary)
			}
		}
	}
}
