package ghapp

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/mdtext"
)

// PullRequest reads a pull request: its author, head and base. Whether
// the author may write to the repository is asked apart (CanWrite), only
// when the check needs it.
func (a *App) PullRequest(ctx context.Context, inst int64, repo string, number int) (info prcheck.PRInfo, baseRef, baseSHA string, err error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return prcheck.PRInfo{}, "", "", err
	}
	var pr *github.PullRequest
	err = a.call(ctx, inst, fmt.Sprintf("reading pull request %s#%d", repo, number), func(gh *github.Client) error {
		var err error
		pr, _, err = gh.PullRequests.Get(ctx, owner, name, number)
		return err
	})
	if err != nil {
		return prcheck.PRInfo{}, "", "", err
	}
	info = prcheck.PRInfo{Repo: repo, Number: number, HeadSHA: pr.GetHead().GetSHA(), Author: pr.GetUser().GetLogin(), Comments: pr.GetComments(), ChangedFiles: pr.GetChangedFiles(), Closed: pr.GetState() == "closed"}
	if info.HeadSHA == "" || info.Author == "" {
		return prcheck.PRInfo{}, "", "", fmt.Errorf("pull request %s#%d: GitHub's answer lacks the head or the author", repo, number)
	}
	return info, pr.GetBase().GetRef(), pr.GetBase().GetSHA(), nil
}

// CanWrite reports whether user has write permission or more on repo.
// GitHub's legacy permission field reads maintain as write, so admin and
// write cover admin, maintain and write. An unknown user cannot write,
// nor can nobody: GitHub's schema lets a comment's user be null (a
// deleted account), and GitHub is not asked about an empty login.
func (a *App) CanWrite(ctx context.Context, inst int64, repo, user string) (bool, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return false, err
	}
	if user == "" {
		return false, nil
	}
	var perm *github.RepositoryPermissionLevel
	err = a.call(ctx, inst, fmt.Sprintf("reading %s's permission on %s", user, repo), func(gh *github.Client) error {
		var err error
		perm, _, err = gh.Repositories.GetPermissionLevel(ctx, owner, name, user)
		return err
	})
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	switch perm.GetPermission() {
	case "admin", "maintain", "write":
		return true, nil
	}
	return false, nil
}

// ChangedFiles reads every file a pull request changes, with each file's
// content at headSHA. A renamed file also yields a "removed" entry for its
// old path, because for the check a rename takes the old file away. A
// symbolic link is marked as one, with its target path as content, so that
// the check refuses it as the CLI does rather than reading what it points
// at. The total content read is capped by Config.MaxChangedBytes.
func (a *App) ChangedFiles(ctx context.Context, inst int64, repo string, number int, headSHA string) ([]prcheck.ChangedFile, error) {
	listed, err := a.ListFiles(ctx, inst, repo, number)
	if err != nil {
		return nil, err
	}
	return a.ReadFiles(ctx, inst, repo, number, headSHA, listed)
}

// ListFiles lists the files a pull request changes, without their
// content: what the check's scope is decided from before anything is
// downloaded. A renamed file also yields a "removed" entry for its old
// path. The listing stops early once what it has read settles the check
// (prcheck.Overfull), and at prcheck.MaxListedFiles, where GitHub stops.
func (a *App) ListFiles(ctx context.Context, inst int64, repo string, number int) ([]prcheck.ChangedFile, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	var out []prcheck.ChangedFile
	listed := 0
	opts := &github.ListOptions{PerPage: 100}
	for {
		var page []*github.CommitFile
		var resp *github.Response
		err := a.call(ctx, inst, fmt.Sprintf("listing the files of %s#%d", repo, number), func(gh *github.Client) error {
			var err error
			page, resp, err = gh.PullRequests.ListFiles(ctx, owner, name, number, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, f := range page {
			if f.GetStatus() == "renamed" && f.GetPreviousFilename() != "" {
				out = append(out, prcheck.ChangedFile{Path: f.GetPreviousFilename(), Status: "removed"})
			}
			out = append(out, prcheck.ChangedFile{Path: f.GetFilename(), Status: f.GetStatus(), BlobSHA: f.GetSHA()})
		}
		listed += len(page)
		if resp.NextPage == 0 || listed >= prcheck.MaxListedFiles || prcheck.Overfull(out) {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// ReadFiles reads the content at headSHA of each listed file that is not
// removed. A symbolic link is marked as one, with its target path as
// content, so that the check refuses it as the CLI does rather than
// reading what it points at. The total content read is capped by
// Config.MaxChangedBytes.
func (a *App) ReadFiles(ctx context.Context, inst int64, repo string, number int, headSHA string, listed []prcheck.ChangedFile) ([]prcheck.ChangedFile, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, err
	}
	out := make([]prcheck.ChangedFile, 0, len(listed))
	var total int64
	for _, cf := range listed {
		if cf.Status != "removed" && strings.Contains(cf.Path, "..") {
			// GitHub's API clients refuse such a path, and no submission
			// may have one (submission.ValidSlug): the file is there,
			// empty, for the check to say what is wrong with its name.
			cf.Content = []byte{}
		} else if cf.Status != "removed" {
			data, link, err := a.fileAt(ctx, inst, owner, name, cf.Path, headSHA, cf.BlobSHA, a.cfg.MaxChangedBytes-total)
			if errors.Is(err, errOtherBlob) {
				// The listing is of the pull request's current head, the
				// read of headSHA: a push in between also gives another
				// blob. Only a head that has not moved makes it a link.
				data, link, err = a.otherBlob(ctx, inst, owner, name, repo, number, headSHA, cf.BlobSHA)
			}
			if err != nil {
				return nil, err
			}
			total += int64(len(data))
			if total > a.cfg.MaxChangedBytes {
				return nil, a.tooBig(cf.Path, int64(len(data)), total)
			}
			cf.Content, cf.Symlink = data, link
		}
		out = append(out, cf)
	}
	return out, nil
}

// fileAt reads one file at ref through the contents API; files over 1 MB
// come without content there, so those are read as git blobs by sha.
// blobSHA is the sha the pull request's file listing gave for file.
//
// The listing gives no file mode, and the contents API follows a symbolic
// link to a regular file of the repository, answering with that file. So
// a link is told by the contents API describing it (type "symlink"), or by
// its answer being another file than the one listed: another path, or a
// blob other than the listed one. For a link, fileAt returns link true and
// its target path, which is what git stores as the link's blob.
//
// room is how many bytes may still be read. A file over 1 MB has its size
// asked first, and one larger than room is refused before any of it is
// downloaded.
func (a *App) fileAt(ctx context.Context, inst int64, owner, name, file, ref, blobSHA string, room int64) (data []byte, link bool, err error) {
	var fc *github.RepositoryContent
	err = a.call(ctx, inst, fmt.Sprintf("reading %s at %s", file, ref), func(gh *github.Client) error {
		var err error
		fc, _, _, err = gh.Repositories.GetContents(ctx, owner, name, file, &github.RepositoryContentGetOptions{Ref: ref})
		return err
	})
	if tooLarge(err) && blobSHA != "" {
		// Over 1 MB the contents API refuses the file; the Git Data API
		// reads blobs up to 100 MB. Its size is asked first, so that a
		// file too large to read is refused without downloading it. The
		// listed blob is the path's own: if it is small, what was too
		// large was a file a link led to.
		size, own, err := a.fileSize(ctx, inst, owner, name, file, ref)
		if err != nil {
			return nil, false, err
		}
		if own && size > room {
			return nil, false, a.tooBig(file, size, a.cfg.MaxChangedBytes-room+size)
		}
		data, err := a.blob(ctx, inst, owner, name, blobSHA)
		return data, err == nil && len(data) <= 1<<20, err
	}
	if err != nil {
		return nil, false, err
	}
	if fc == nil {
		return nil, false, fmt.Errorf("%s at %s is a folder, not a file", file, ref)
	}
	switch {
	case fc.GetType() == "submodule":
		return nil, false, &bot.Unverifiable{Conclusion: prcheck.Failure, Title: "A submodule is not a submission",
			Reason: fmt.Sprintf("`%s` is a git submodule (a link to another repository at commit `%s`), whose files benchgate does not read. Remove the submodule and commit `meta.json` and `scores.json` themselves.", mdtext.Code(file), mdtext.Code(fc.GetSHA()))}
	case fc.GetType() == "symlink" && fc.GetTarget() != "":
		return []byte(fc.GetTarget()), true, nil
	case fc.GetType() != "symlink" && fc.GetPath() == file && blobSHA != "" && fc.GetSHA() != blobSHA:
		return nil, false, errOtherBlob
	case fc.GetType() == "symlink", fc.GetPath() != file:
		if blobSHA == "" {
			// Only a followed link gets here without a listed sha; a path
			// from the link's folder to the file it reached stands in for
			// the target.
			return []byte(relTarget(file, fc.GetPath())), true, nil
		}
		data, err := a.blob(ctx, inst, owner, name, blobSHA)
		return data, true, err
	}
	if fc.GetEncoding() == "base64" {
		s, err := fc.GetContent()
		if err != nil {
			return nil, false, fmt.Errorf("decoding %s at %s: %w", file, ref, err)
		}
		return []byte(s), false, nil
	}
	if blobSHA == "" {
		blobSHA = fc.GetSHA()
	}
	data, err = a.blob(ctx, inst, owner, name, blobSHA)
	return data, false, err
}

// fileSize asks the contents API for file at ref in its object media
// type, which describes a file of up to 100 MB, with its size, without
// its content. own is false when the answer is another file, reached
// through a symbolic link.
func (a *App) fileSize(ctx context.Context, inst int64, owner, name, file, ref string) (size int64, own bool, err error) {
	var fc github.RepositoryContent
	u := fmt.Sprintf("repos/%s/%s/contents/%s?ref=%s", url.PathEscape(owner), url.PathEscape(name), (&url.URL{Path: file}).EscapedPath(), url.QueryEscape(ref))
	err = a.call(ctx, inst, fmt.Sprintf("reading the size of %s at %s", file, ref), func(gh *github.Client) error {
		req, err := gh.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", "application/vnd.github.object+json")
		_, err = gh.Do(ctx, req, &fc)
		return err
	})
	if err != nil {
		return 0, false, err
	}
	return int64(fc.GetSize()), fc.GetPath() == file, nil
}

// tooBig is the check's answer to a pull request whose file is larger
// than what is left of Config.MaxChangedBytes: a failure that names the
// size and the cap, posted at once, since no retry makes the file
// smaller.
func (a *App) tooBig(file string, size, total int64) error {
	what := fmt.Sprintf("`%s` is %s", mdtext.Code(file), byteCount(size))
	if total > size {
		what += fmt.Sprintf(", which brings the pull request's files to %s", byteCount(total))
	}
	return &bot.Unverifiable{Conclusion: prcheck.Failure, Title: "A file is too large to read",
		Reason: fmt.Sprintf("%s; benchgate reads at most %s of a pull request's files, so it has not downloaded it. A submission's `meta.json` and `scores.json` must fit in that together: keep only what the format asks for (no embedded data, no duplicated responses).", what, byteCount(a.cfg.MaxChangedBytes))}
}

// byteCount writes n bytes for people: "94.0 MiB (98566144 bytes)".
func byteCount(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/(1<<10), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// errOtherBlob is fileAt's answer when the contents API gives the listed
// path with another blob than the listing: a followed link, or a push
// between the listing and the read.
var errOtherBlob = errors.New("the contents API gave another blob than the pull request's listing")

// otherBlob settles errOtherBlob: when the pull request's head is still
// headSHA, the file is a link and its listed blob holds the target;
// otherwise the pull request moved on while it was read, and the job is
// to be retried (a newer verification then takes over).
func (a *App) otherBlob(ctx context.Context, inst int64, owner, name, repo string, number int, headSHA, blobSHA string) ([]byte, bool, error) {
	var pr *github.PullRequest
	err := a.call(ctx, inst, fmt.Sprintf("reading pull request %s#%d", repo, number), func(gh *github.Client) error {
		var err error
		pr, _, err = gh.PullRequests.Get(ctx, owner, name, number)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if head := pr.GetHead().GetSHA(); head != headSHA {
		return nil, false, fmt.Errorf("pull request %s#%d moved from %s to %s while its files were read; it is read again", repo, number, headSHA, head)
	}
	data, err := a.blob(ctx, inst, owner, name, blobSHA)
	return data, true, err
}

// relTarget is the relative link target that leads from the folder of the
// link to the file to, both paths in the repository.
func relTarget(link, to string) string {
	var from []string
	if d := path.Dir(link); d != "." {
		from = strings.Split(d, "/")
	}
	parts := strings.Split(to, "/")
	i := 0
	for i < len(from) && i < len(parts)-1 && from[i] == parts[i] {
		i++
	}
	return strings.Repeat("../", len(from)-i) + strings.Join(parts[i:], "/")
}

// blob reads a git blob by sha, through Config.Blobs when set: a kept
// blob is used only when its content still hashes to sha.
func (a *App) blob(ctx context.Context, inst int64, owner, name, sha string) ([]byte, error) {
	if a.cfg.Blobs == nil {
		return a.fetchBlob(ctx, inst, owner, name, sha)
	}
	key := "git-blob-" + sha
	if data, ok := a.cfg.Blobs.Get(key); ok && gitBlobSHA(data) == sha {
		return data, nil
	}
	data, err := a.fetchBlob(ctx, inst, owner, name, sha)
	if err == nil && gitBlobSHA(data) == sha {
		a.cfg.Blobs.Put(key, data)
	}
	return data, err
}

// gitBlobSHA is git's name for a blob holding data.
func gitBlobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// fetchBlob reads a git blob by sha from GitHub.
func (a *App) fetchBlob(ctx context.Context, inst int64, owner, name, sha string) ([]byte, error) {
	var b *github.Blob
	err := a.call(ctx, inst, "reading blob "+sha, func(gh *github.Client) error {
		var err error
		b, _, err = gh.Git.GetBlob(ctx, owner, name, sha)
		return err
	})
	if err != nil {
		return nil, err
	}
	switch b.GetEncoding() {
	case "base64":
		data, err := base64.StdEncoding.DecodeString(b.GetContent())
		if err != nil {
			return nil, fmt.Errorf("decoding blob %s: %w", sha, err)
		}
		return data, nil
	case "utf-8", "":
		return []byte(b.GetContent()), nil
	}
	return nil, fmt.Errorf("blob %s has an unknown encoding %q", sha, b.GetEncoding())
}

// tooLarge reports the contents API's refusal of a file over 1 MB: a 403
// whose error names the code too_large.
func tooLarge(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusForbidden {
		return false
	}
	for _, e := range er.Errors {
		if e.Code == "too_large" {
			return true
		}
	}
	return false
}
