// Package prcheck owns what a pull request's check says, decided from
// files already gathered; no GitHub, no HTTP. It decides whether a pull
// request is a submission, verifies it with the CLI's verifier over the
// base branch's tree, and words the check runs (the verification's and a
// spot-check's), their annotations and the sticky comment. Package bot
// gathers the files, runs the spot-check and posts the outcome.
package prcheck

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/internal/mdtext"
	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// CheckName is the name of the check run that reports verification.
const CheckName = "benchgate / verify"

// MaxSummaryBytes is GitHub's limit on a check run's summary.
const MaxSummaryBytes = 65535

// MaxAnnotationsPerRequest is GitHub's limit on annotations in one check
// run request; more are sent in further updates.
const MaxAnnotationsPerRequest = 50

// Conclusion is how a check run ends, in GitHub's words.
type Conclusion string

// The conclusions of benchgate's check runs.
const (
	Success        Conclusion = "success"
	Failure        Conclusion = "failure"
	ActionRequired Conclusion = "action_required" // a maintainer must look
	Neutral        Conclusion = "neutral"         // nothing verified: not a submission, or a spot-check not run
)

// Level is an annotation's level, in GitHub's words.
type Level string

// The levels of annotations.
const (
	LevelNotice  Level = "notice"
	LevelWarning Level = "warning"
	LevelFailure Level = "failure"
)

// ChangedFile is one file of a pull request, as its head has it.
type ChangedFile struct {
	Path    string
	Status  string // added, modified, removed or renamed (GitHub's words)
	Content []byte // nil for a removed file; a symbolic link's target path
	// BlobSHA is the blob GitHub's listing of the pull request names.
	BlobSHA string
	// Symlink is true when the file is a symbolic link (git mode 120000).
	// The check then sees a link, as the CLI does in a checkout, so that
	// the verifier refuses it instead of reading what it points at.
	Symlink bool
}

// PRInfo is what the check needs to know of a pull request.
type PRInfo struct {
	Repo    string
	Number  int
	HeadSHA string
	Author  string
	// AuthorCanWrite is true when the author has write permission or more
	// on the repository: a maintainer.
	AuthorCanWrite bool
	// Comments is how many conversation comments the pull request had when
	// it was read: with none, there is no sticky comment to look for.
	Comments int
	// ChangedFiles is how many files GitHub says the pull request changes
	// (changed_files), 0 when unknown: past MaxListedFiles its listing is
	// not read.
	ChangedFiles int
	// Closed: the pull request is closed or merged, and nothing is
	// verified or spot-checked for it any more.
	Closed bool
}

// Annotation is a check-run annotation, in GitHub's terms.
type Annotation struct {
	Path      string
	StartLine int
	EndLine   int
	Level     Level
	Title     string
	Message   string
}

// CheckOutcome is everything a pull request's verification posts.
type CheckOutcome struct {
	Conclusion  Conclusion
	Title       string
	Summary     string // markdown, at most MaxSummaryBytes
	Annotations []Annotation
	Comment     string // the sticky comment's body, marker included
	Submission  string // the submission folder, when the PR is one
	Report      *verify.Report
	// Tree is what was verified (the base with the pull request's files
	// on top), for the spot-check to go on from without reading GitHub
	// again.
	Tree fs.FS
}

// CheckPR verifies a pull request with the same verifier as the CLI. base
// is the base branch's tree (registry, rubrics and the submissions already
// merged); files are the pull request's changed files. Nothing from the
// pull request is run, and the rules come from base only.
//
// A submission is bound to the pull request's author: unless the author
// is a maintainer, meta.json must name them as its submitter
// (verify.Options.Submitter, as `benchgate verify --author` sets it). The
// submitter so merged is the record of who submitted it, and a change to a
// merged submission is allowed only to that login and to maintainers.
func CheckPR(base fs.FS, pr PRInfo, files []ChangedFile, opts verify.Options) CheckOutcome {
	if !pr.AuthorCanWrite {
		opts.Submitter = pr.Author
	}
	dir, problem, neutral := scope(base, pr, files)
	if neutral {
		return finish(CheckOutcome{Conclusion: Neutral, Title: "Not a submission", Summary: problem}, pr)
	}
	// scope refuses every pull request but one changing one submission
	// folder alone: only those files are read below.
	if problem != "" {
		return finish(CheckOutcome{Conclusion: Failure, Title: "Not a valid submission pull request", Summary: problem, Submission: dir}, pr)
	}
	fsys := Overlay(base, dir, files)
	v, err := verify.New(fsys, opts)
	if err != nil {
		return finish(CheckOutcome{Conclusion: Neutral, Title: "The base branch's registry cannot be used", Summary: "The maintainers must fix `rubrics/rubrics.json` on the base branch before submissions can be verified:\n\n" + mdtext.Escape(err.Error())}, pr)
	}
	rep := verify.NewReport([]verify.Result{v.Verify(dir)})
	var md bytes.Buffer
	verify.Render(&md, "markdown", rep)
	res := rep.Submissions[0]
	out := CheckOutcome{Submission: dir, Report: &rep, Tree: fsys, Summary: md.String(), Annotations: annotations(res)}
	switch res.Status {
	case verify.Pass:
		out.Conclusion, out.Title = Success, "Submission verified"
	case verify.Review:
		out.Conclusion, out.Title = ActionRequired, "A maintainer must review this submission"
	default:
		out.Conclusion, out.Title = Failure, fmt.Sprintf("%d problem(s) to fix", len(res.Errors))
	}
	return finish(out, pr)
}

// Unverifiable is the check of a pull request whose files cannot be read
// as a submission for a reason no retry changes: conclusion, title and
// the reason (markdown) are the gatherer's.
func Unverifiable(pr PRInfo, conclusion Conclusion, title, reason string) CheckOutcome {
	return finish(CheckOutcome{Conclusion: conclusion, Title: title, Summary: reason}, pr)
}

// finish caps the summary and writes the sticky comment.
func finish(o CheckOutcome, pr PRInfo) CheckOutcome {
	o.Summary = capBytes(o.Summary, MaxSummaryBytes, "\n\n… (cut to GitHub's limit; run `benchgate verify` locally for everything)\n")
	var b strings.Builder
	icon := map[Conclusion]string{Success: "✅", Failure: "❌", ActionRequired: "⚠️", Neutral: "ℹ️"}[o.Conclusion]
	fmt.Fprintf(&b, "### %s benchgate: %s\n\n", icon, o.Title)
	fmt.Fprintf(&b, "Head `%s`.\n\n", short(pr.HeadSHA))
	b.WriteString(o.Summary)
	if o.Conclusion == Failure {
		b.WriteString("\n\nPush a fix to this branch and benchgate verifies it again; run `benchgate verify` locally to check first.\n")
	}
	o.Comment = capBytes(Sticky(b.String()), MaxSummaryBytes, "\n\n… (cut to GitHub's limit)\n")
	return o
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// capBytes cuts s to at most max bytes, on a character boundary, ending
// with tail.
func capBytes(s string, max int, tail string) string {
	if len(s) <= max {
		return s
	}
	return safetext.Cut(s, max-len(tail)) + tail
}

// scope decides whether the pull request is a submission, by the
// layout's one rule (submission.Locate, which the CLI's verify also
// follows) and the base branch's records. A pull request that touches no
// submission folder is not one: neutral, for maintainers to review. One
// that touches any must change one folder and nothing else, so that the
// verdict covers everything it changes; and a folder already merged only
// by its recorded submitter or a maintainer. It returns the folder when
// there is one, and the problems (a failure), each naming the files.
func scope(base fs.FS, pr PRInfo, files []ChangedFile) (dir, problem string, neutral bool) {
	if dir, problem := overfull(files); problem != "" {
		return dir, problem, false
	}
	t := touch(files)
	if len(t.dirs) == 0 {
		return "", notASubmission(t.other), true
	}
	if len(t.dirs) == 1 {
		dir = t.dirs[0]
	}
	if pr.Author == "" && !pr.AuthorCanWrite {
		// Without an author there is nobody to bind the submission to.
		return dir, "GitHub named no author for this pull request, so benchgate cannot tell whose submission it is; a maintainer must look at it.", false
	}
	var problems []string
	for _, d := range t.dirs {
		if pr.AuthorCanWrite {
			break
		}
		if exists(base, d) {
			// Who may change it is decided by the base branch's record,
			// never by what the pull request's meta.json says.
			if owner := submitterOf(base, d); !submission.SameLogin(owner, pr.Author) {
				problems = append(problems, othersSubmission(d, owner, t.files[d]))
				continue
			}
		}
		for _, f := range t.files[d] {
			if f.Status == "removed" {
				problems = append(problems, fmt.Sprintf("This pull request removes `%s`; only a maintainer may remove a submission's files.", mdtext.Code(f.Path)))
				break
			}
		}
	}
	if len(t.dirs) > 1 {
		problems = append(problems, fmt.Sprintf("A submission pull request changes one submission; this one touches %d (%s). Open one pull request for each.", len(t.dirs), codeList(t.dirs)))
	}
	if len(t.other) > 0 {
		problems = append(problems, fmt.Sprintf("This pull request changes %s and also %d file(s) outside it: %s. A submission pull request changes one submission folder and nothing else, so that its check covers all it changes: move these files to a pull request of their own, for maintainers to review as a change to the leaderboard itself.", submissionsNamed(t.dirs), len(t.other), codeList(t.other)))
	}
	switch len(problems) {
	case 0:
		return dir, "", false
	case 1:
		return dir, problems[0], false
	}
	return dir, "This pull request cannot be verified as it stands:\n\n- " + strings.Join(problems, "\n- "), false
}

// touched is what a pull request's changed files touch.
type touched struct {
	dirs  []string                 // submission folders, sorted
	files map[string][]ChangedFile // each folder's changed files
	other []string                 // paths in no submission folder, sorted
}

func touch(files []ChangedFile) touched {
	t := touched{files: map[string][]ChangedFile{}}
	for _, f := range files {
		sub, ok := submission.Locate(f.Path)
		if !ok {
			t.other = append(t.other, f.Path)
			continue
		}
		d := sub.String()
		if _, seen := t.files[d]; !seen {
			t.dirs = append(t.dirs, d)
		}
		t.files[d] = append(t.files[d], f)
	}
	sort.Strings(t.dirs)
	sort.Strings(t.other)
	return t
}

// notASubmission is why a pull request that touches no submission folder
// has nothing to verify.
func notASubmission(other []string) string {
	if len(other) == 0 {
		return "This pull request changes no files, so it changes no submission."
	}
	return fmt.Sprintf("This pull request changes no submission folder (it changes %s), so benchgate has nothing to verify: maintainers review it as a change to the leaderboard itself. A submission adds only `submissions/<track>/<slug>/meta.json` and `scores.json` (and an optional `README.md`), in a pull request of its own.", codeList(other))
}

// othersSubmission is the refusal of a change to dir, merged on the base
// branch and submitted by owner, not the pull request's author.
func othersSubmission(dir, owner string, files []ChangedFile) string {
	var edits, removals []string
	for _, f := range files {
		if f.Status == "removed" {
			removals = append(removals, f.Path)
		} else {
			edits = append(edits, f.Path)
		}
	}
	var what []string
	if len(edits) > 0 {
		what = append(what, "changes "+codeList(edits))
	}
	if len(removals) > 0 {
		what = append(what, "removes "+codeList(removals))
	}
	return fmt.Sprintf("`%s` is already on the leaderboard, submitted by %s, and this pull request %s there; only its submitter or a maintainer may change it. To add your own run, use a new folder name.", mdtext.Code(dir), mdtext.Escape(orUnknown(owner)), strings.Join(what, " and "))
}

// submissionsNamed names the submission folders a pull request touches.
func submissionsNamed(dirs []string) string {
	if len(dirs) == 1 {
		return "the submission " + codeList(dirs)
	}
	return "submissions"
}

// codeList is paths as code spans, the first 10 of them.
func codeList(paths []string) string {
	const shown = 10
	list := make([]string, 0, min(len(paths), shown)+1)
	for i, p := range paths {
		if i == shown {
			list = append(list, fmt.Sprintf("and %d more", len(paths)-shown))
			break
		}
		list = append(list, "`"+mdtext.Code(p)+"`")
	}
	return strings.Join(list, ", ")
}

// Listed is the check of a pull request decided from its file listing
// alone (paths and statuses, no content, no base tree), when that already
// settles it: it touches no submission, so there is nothing to verify. ok
// is false when it does: dir is then the one submission folder it
// changes, to be read and verified, or "" when it changes more (several
// folders, or files outside one), which fails whatever the files hold and
// needs only the base tree to say whose submissions it touches
// (CheckPR with the listing), never the files' content.
func Listed(pr PRInfo, files []ChangedFile) (out CheckOutcome, dir string, ok bool) {
	if out, settled := tooManyListed(pr, files); settled {
		return out, "", true
	}
	if dir, problem := overfull(files); problem != "" {
		return finish(CheckOutcome{Conclusion: Failure, Title: "Not a valid submission pull request", Summary: problem, Submission: dir}, pr), "", true
	}
	t := touch(files)
	switch {
	case len(t.dirs) == 0:
		return finish(CheckOutcome{Conclusion: Neutral, Title: "Not a submission", Summary: notASubmission(t.other)}, pr), "", true
	case len(t.dirs) == 1 && len(t.other) == 0:
		return CheckOutcome{}, t.dirs[0], false
	}
	return CheckOutcome{}, "", false
}

// NeedsPermission reports whether the check of pull request pr depends on
// its author's permission: when it removes files, changes a folder
// already merged on base, or (changing one submission and nothing else)
// names another submitter than its author, which only a maintainer may.
// Otherwise the App need not ask GitHub. A pull request that changes
// more than one submission fails whatever it names, so only the folders
// it touches matter: files may then be the listing, without content.
func NeedsPermission(base fs.FS, pr PRInfo, files []ChangedFile) bool {
	t := touch(files)
	for _, d := range t.dirs {
		if exists(base, d) {
			return true
		}
		for _, f := range t.files[d] {
			if f.Status == "removed" {
				return true
			}
		}
	}
	if len(t.dirs) != 1 || len(t.other) > 0 {
		return false
	}
	return !submission.SameLogin(metaString(base, t.dirs[0], files, "submitter"), pr.Author)
}

func orUnknown(s string) string {
	if s == "" {
		return "someone else"
	}
	return s
}

func exists(fsys fs.FS, dir string) bool {
	info, err := fs.Stat(fsys, dir)
	return err == nil && info.IsDir()
}

// submitterOf reads the recorded submitter of a merged submission: its
// meta.json on the base branch. Only a merge changes it, and the check
// bound it to the author of the pull request that added it (or a
// maintainer chose it).
func submitterOf(base fs.FS, dir string) string {
	data, err := jsondoc.ReadFile(base, path.Join(dir, submission.MetaFile), 1<<20)
	if err != nil {
		return ""
	}
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil || doc.Root.Kind != jsondoc.Object {
		return ""
	}
	return doc.Root.GetString("submitter")
}

// Overlay is what verification reads: the base tree's registry with the
// prompt files it names, the benchmark file meta.json names and its
// calibration record (which the spot-check goes on to use), and its copy
// of the submission folder, with
// the pull request's files on top. Only those are read, so that a base
// tree served lazily through the API costs a few requests. Symbolic links
// stay links (fstest.MapFS keeps a link's target as its Data and reports
// fs.ModeSymlink from Lstat and ReadDir), so that the verifier finds them
// exactly as it does on disk.
func Overlay(base fs.FS, dir string, files []ChangedFile) fs.FS {
	m := fstest.MapFS{}
	roots := []string{benchmark.RegistryFile, dir}
	// Verification reads the registry and the one benchmark meta.json
	// names (wherever the registry keeps it), with its record; reading no
	// other benchmark keeps a check to the few calls it needs.
	if reg, _ := benchmark.LoadRegistry(base); reg != nil {
		if e, ok := reg.Lookup(metaString(base, dir, files, "rubric_key")); ok {
			roots = append(roots, e.File, benchmark.RecordPath(e))
		}
		// The registry is read with the prompt files it names, which
		// loading it above has read already.
		for _, e := range reg.Entries {
			for _, p := range []string{e.PromptFile, e.Judge.PromptFile} {
				if p != "" {
					roots = append(roots, p)
				}
			}
		}
	}
	for _, root := range roots {
		fs.WalkDir(base, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// Still a link if its target cannot be read.
				target, _ := fs.ReadLink(base, p)
				m[p] = symlink(target)
				return nil
			}
			if data, err := fs.ReadFile(base, p); err == nil {
				m[p] = &fstest.MapFile{Data: data}
			}
			return nil
		})
	}
	for _, f := range files {
		switch {
		case f.Status == "removed":
			delete(m, f.Path)
		case f.Symlink:
			m[f.Path] = symlink(string(f.Content))
		case f.Content == nil:
			delete(m, f.Path)
		default:
			m[f.Path] = &fstest.MapFile{Data: f.Content}
		}
	}
	return m
}

// metaString is a string member of the submission's meta.json, as the
// pull request has it (or, unchanged, the base): "" when it has none.
func metaString(base fs.FS, dir string, files []ChangedFile, key string) string {
	meta := path.Join(dir, submission.MetaFile)
	var data []byte
	for _, f := range files {
		if f.Path == meta && f.Status != "removed" && !f.Symlink {
			data = f.Content
		}
	}
	if data == nil {
		data, _ = jsondoc.ReadFile(base, meta, 1<<20)
	}
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil || doc.Root.Kind != jsondoc.Object {
		return ""
	}
	return doc.Root.GetString(key)
}

// symlink is a symbolic link to target in an fstest.MapFS.
func symlink(target string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
}

// annotations turns a result's findings into check-run annotations on the
// lines they name.
func annotations(r verify.Result) []Annotation {
	var out []Annotation
	add := func(list finding.List, level Level) {
		for _, f := range list {
			line := max(f.Line, 1)
			msg := f.Message
			if f.Question != "" {
				msg = "question " + f.Question + ": " + msg
			}
			out = append(out, Annotation{Path: f.File, StartLine: line, EndLine: line, Level: level, Title: f.Code, Message: msg})
		}
	}
	add(r.Errors, LevelFailure)
	add(r.Warnings, LevelWarning)
	return out
}
