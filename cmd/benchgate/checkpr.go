package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

func runCheckPR(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("check-pr", "--files LISTFILE --head DIR --author LOGIN [--maintainer] [--root DIR] [--format text|github]", stderr)
	rootFlag := addRoot(fl, "the base branch's leaderboard repository: the registry, benchmarks and merged submissions the rules come from")
	list := fl.String("files", "", "the pull request's changed files, as `git diff --name-status BASE...HEAD` prints them")
	head := fl.String("head", "", "a folder holding the pull request's changed submission files at its head (git show HEAD:PATH), never a checkout of it")
	author := fl.String("author", "", "the pull request author's GitHub login")
	maintainer := fl.Bool("maintainer", false, "the author has write permission or more on the repository")
	format := fl.String("format", "text", "output format: text, or github (annotations; the summary goes to $GITHUB_STEP_SUMMARY)")
	maxBytes := fl.Int64("max-file-bytes", 64<<20, "size cap for each submission file")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 0 {
		return usageError(fl, fmt.Errorf("check-pr takes no arguments (got %q)", pos[0]))
	}
	if *list == "" || *head == "" {
		return usageError(fl, errors.New("--files and --head are required"))
	}
	if err := oneOf(*format, []string{"text", "github"}); err != nil {
		return err
	}
	*author = strings.TrimSpace(*author)
	if *author != "" {
		// An empty author is the check's to refuse, as the App's is.
		if _, err := submission.ParseLogin(*author); err != nil {
			return usageError(fl, fmt.Errorf("--author: %v", err))
		}
	}
	root, err := rootFlag.locate()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(*list)
	if err != nil {
		return fmt.Errorf("reading the changed files: %v", err)
	}
	files, err := parseNameStatus(string(data))
	if err != nil {
		return fmt.Errorf("%s: %v", *list, err)
	}
	if err := readHead(*head, files, *maxBytes); err != nil {
		return err
	}
	pr := prcheck.PRInfo{Author: *author, AuthorCanWrite: *maintainer}
	out := prcheck.CheckPR(boardFS(root), pr, files, verify.Options{MaxFileBytes: *maxBytes})
	if err := renderCheck(stdout, *format, out); err != nil {
		return err
	}
	if summary := os.Getenv("GITHUB_STEP_SUMMARY"); *format == "github" && summary != "" {
		f, err := os.OpenFile(summary, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = fmt.Fprintf(f, "### benchgate: %s\n\n%s\n", out.Title, out.Summary)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("writing the job summary: %v", err)
		}
	}
	return exitWith(checkExit(out.Conclusion))
}

// checkExit is the exit code of a check's conclusion, as verify's: a pull
// request that is not a submission passes (maintainers review it).
func checkExit(c prcheck.Conclusion) int {
	switch c {
	case prcheck.Failure:
		return exitFail
	case prcheck.ActionRequired:
		return exitInconclusive
	}
	return exitOK
}

// renderCheck prints a check's outcome: its verification report when
// there is one, as verify prints it, else its title and reason.
func renderCheck(w io.Writer, format string, out prcheck.CheckOutcome) error {
	if out.Report != nil {
		return verify.Render(w, format, *out.Report)
	}
	if format == "text" {
		_, err := fmt.Fprintf(w, "%s: %s\n%s\n", out.Conclusion, out.Title, out.Summary)
		return err
	}
	level := map[prcheck.Conclusion]string{prcheck.Failure: "error", prcheck.ActionRequired: "warning"}[out.Conclusion]
	if level == "" {
		level = "notice"
	}
	_, err := fmt.Fprintf(w, "::%s title=%s::%s\n", level, escapeProperty("benchgate: "+out.Title), escapeData(out.Summary))
	return err
}

// escapeData and escapeProperty escape a workflow command's message and
// property values as GitHub's toolkit does.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// parseNameStatus reads `git diff --name-status` output as the App reads
// GitHub's file listing: a rename is its old path removed and its new
// path renamed, a copy its new path added.
func parseNameStatus(s string) ([]prcheck.ChangedFile, error) {
	var files []prcheck.ChangedFile
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		fields := strings.Split(line, "\t")
		for i := 1; i < len(fields); i++ {
			p, err := gitPath(fields[i])
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			fields[i] = p
		}
		code := fields[0]
		switch {
		case len(fields) == 2 && (code == "A" || code == "M" || code == "D" || code == "T"):
			status := map[string]string{"A": "added", "M": "modified", "D": "removed", "T": "modified"}[code]
			files = append(files, prcheck.ChangedFile{Path: fields[1], Status: status})
		case len(fields) == 3 && strings.HasPrefix(code, "R"):
			files = append(files, prcheck.ChangedFile{Path: fields[1], Status: "removed"}, prcheck.ChangedFile{Path: fields[2], Status: "renamed"})
		case len(fields) == 3 && strings.HasPrefix(code, "C"):
			files = append(files, prcheck.ChangedFile{Path: fields[2], Status: "added"})
		default:
			return nil, fmt.Errorf("line %d: %q is not a line of git diff --name-status (STATUS<TAB>PATH)", n, line)
		}
	}
	return files, sc.Err()
}

// gitPath undoes git's quoting of a path with unusual characters.
func gitPath(p string) (string, error) {
	if !strings.HasPrefix(p, `"`) {
		return p, nil
	}
	u, err := strconv.Unquote(p)
	if err != nil {
		return "", fmt.Errorf("cannot read the quoted path %s", p)
	}
	return u, nil
}

// readHead fills in the content of each changed submission file from the
// folder its head was written to. A symbolic link is read as a link (its
// target), never followed, as the App reads one. A file is read to one
// byte past maxBytes, enough for the verifier to refuse it as too large.
func readHead(dir string, files []prcheck.ChangedFile, maxBytes int64) error {
	for i := range files {
		f := &files[i]
		if _, ok := submission.Locate(f.Path); !ok || f.Status == "removed" {
			// Paths outside a submission folder are judged by path alone.
			continue
		}
		if !fs.ValidPath(f.Path) || path.Clean(f.Path) != f.Path {
			return fmt.Errorf("the changed file %q is not a clean path", f.Path)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		info, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("the pull request's %s is not in %s (write each changed file under submissions/ there with git show HEAD:PATH): %v", f.Path, dir, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			f.Symlink, f.Content = true, []byte(target)
			continue
		}
		if f.Content, err = readCapped(p, maxBytes+1); err != nil {
			return err
		}
	}
	return nil
}

func readCapped(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
