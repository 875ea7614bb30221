package prcheck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/benchgate/benchgate/internal/mdtext"
	"github.com/benchgate/benchgate/submission"
)

// MaxListedFiles is where GitHub stops listing a pull request's files.
// A pull request with as many, or whose changed_files says so, is not
// read file by file: it cannot be one submission.
const MaxListedFiles = 3000

// tooManyListed is the check of a pull request at or past MaxListedFiles:
// its listing cannot show that no submission is touched, which alone
// would make it neutral, so it fails, asking for a split.
func tooManyListed(pr PRInfo, files []ChangedFile) (CheckOutcome, bool) {
	n := max(pr.ChangedFiles, len(files))
	if n < MaxListedFiles {
		return CheckOutcome{}, false
	}
	return finish(CheckOutcome{Conclusion: Failure, Title: "Too many files to tell",
		Summary: fmt.Sprintf("This pull request changes %d files or more, the most GitHub lists, so benchgate cannot tell whether it touches a submission. Split it: a submission pull request changes one submission folder and nothing else; a change to the leaderboard itself, for maintainers to review, changes no submission folder.", MaxListedFiles)}, pr), true
}

// Overfull reports whether a listing, or its first pages, puts more
// files in one submission folder than the layout lets a folder hold
// (submission.FolderFiles): such a pull request fails whatever else it
// changes, so its listing need not be read further, nor any file of it
// downloaded.
func Overfull(files []ChangedFile) bool {
	_, problem := overfull(files)
	return problem != ""
}

// overfull is the folder a listing overfills, and the failure that says
// so, naming the files the layout does not allow there (the first ten).
func overfull(files []ChangedFile) (dir, problem string) {
	held := map[string][]string{} // folder -> the files the listing puts in it
	for _, f := range files {
		if f.Status == "removed" {
			continue
		}
		if sub, ok := submission.Locate(f.Path); ok {
			held[sub.String()] = append(held[sub.String()], f.Path)
		}
	}
	var over []string
	for d, paths := range held {
		if len(paths) > len(submission.FolderFiles) {
			over = append(over, d)
		}
	}
	if len(over) == 0 {
		return "", ""
	}
	sort.Strings(over)
	dir = over[0]
	var extra []string
	for _, p := range held[dir] {
		if !submission.FolderFile(strings.TrimPrefix(p, dir+"/")) {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	list := make([]string, 0, 11)
	for i, p := range extra {
		if i == 10 {
			list = append(list, fmt.Sprintf("and %d more", len(extra)-10))
			break
		}
		list = append(list, "`"+mdtext.Code(p)+"`")
	}
	return dir, fmt.Sprintf("This pull request puts %d files or more in `%s`, but %s. Remove the others: %s.", len(held[dir]), mdtext.Code(dir), submission.FolderRule, strings.Join(list, ", "))
}
