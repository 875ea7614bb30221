package fakegithub

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	pathpkg "path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// repo is one repository's state.
type repo struct {
	owner, name   string
	defaultBranch string
	private       bool
	created       time.Time
	branches      map[string]string            // branch -> head commit sha
	files         map[string]map[string][]byte // ref (branch or sha) -> path -> content
	pulls         map[int]*PR
	comments      []*Comment
	issues        map[int]bool // issue numbers known besides PRs
	checkRuns     []*CheckRun
	perms         map[string]string // lower-cased login -> role
	blobs         map[string][]byte // git blob sha -> content
	trees         map[string]treeRef
	reactions     []Reaction
}

// entry is one path of a commit's tree: a blob, and whether that blob is a
// symbolic link (git mode 120000), in which case it holds the link's target
// path, as git stores it.
type entry struct {
	data      []byte
	link      bool
	submodule string // a submodule's commit; data is then empty
}

// treeRef remembers what a synthetic tree sha stands for, so a client can
// walk trees non-recursively.
type treeRef struct {
	files  map[string]entry
	prefix string // "" for the root, else "dir/"
}

func (p *repo) fullName() string { return p.owner + "/" + p.name }

// File is one file changed by a pull request.
type File struct {
	// Name is the path in the head commit.
	Name string
	// Status is added, modified, removed, renamed, copied, changed or
	// unchanged, as GitHub reports it in the PR files list.
	Status string
	// Content is the file at the head commit; for removed files, the
	// content it had at the base (optional).
	Content []byte
	// PreviousName is the old path of a renamed file.
	PreviousName string
	// SymlinkTarget, when set, makes the file a symbolic link to this path,
	// relative to the link's folder. Git keeps a link as a blob holding the
	// target path, so Content is replaced by the target.
	SymlinkTarget string
	// SubmoduleCommit, when set, makes the path a git submodule at that
	// commit (mode 160000): the contents API answers type "submodule" and
	// the trees API an entry of type "commit", with no blob.
	SubmoduleCommit string
}

// PR is a pull request to seed the fake with.
type PR struct {
	Number int
	Title  string
	Body   string
	// State is "open" (default) or "closed".
	State  string
	Merged bool
	Draft  bool
	Author string
	// HeadSHA and BaseSHA default to generated commit shas.
	HeadSHA string
	HeadRef string
	// HeadRepo is the full name of the repository the head branch lives in;
	// it defaults to the base repository (set it for PRs from forks).
	HeadRepo string
	BaseRef  string
	BaseSHA  string
	Files    []File
	// Created defaults to the time the PR was added.
	Created time.Time
	// Updated is when it last changed (its base, say); the time it was
	// created when zero.
	Updated time.Time
}

// Reaction is a reaction recorded on an issue or an issue comment.
type Reaction struct {
	ID        int64
	Issue     int   // set for issue reactions
	CommentID int64 // set for comment reactions
	Login     string
	Content   string
}

// AddRepo creates a repository whose default branch exists and is empty.
func (s *Server) AddRepo(fullName string, defaultBranch string) {
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok || owner == "" || name == "" {
		panic("fakegithub: AddRepo wants owner/name, got " + fullName)
	}
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[strings.ToLower(fullName)] = &repo{
		owner: owner, name: name, defaultBranch: defaultBranch,
		created:  s.now().UTC().Truncate(time.Second),
		branches: map[string]string{defaultBranch: fakeSHA("branch", fullName, defaultBranch)},
		files:    map[string]map[string][]byte{},
		pulls:    map[int]*PR{},
		issues:   map[int]bool{},
		perms:    map[string]string{},
		blobs:    map[string][]byte{},
		trees:    map[string]treeRef{},
	}
}

// SetPrivate marks a repository private, which changes what permission a
// non-collaborator gets ("none" instead of "read").
func (s *Server) SetPrivate(repoName string, private bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustRepoLocked(repoName).private = private
}

// SetFile stores content at path on ref, a branch name (created if new) or
// a commit sha. Files of a PR's base branch show through at its head.
func (s *Server) SetFile(repoName, ref, path string, content []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustRepoLocked(repoName)
	if ref == "" {
		ref = p.defaultBranch
	}
	if !isSHA(ref) {
		if _, ok := p.branches[ref]; !ok {
			p.branches[ref] = fakeSHA("branch", p.fullName(), ref)
		}
	}
	if p.files[ref] == nil {
		p.files[ref] = map[string][]byte{}
	}
	c := slices.Clone(content)
	p.files[ref][strings.Trim(path, "/")] = c
	p.blobs[blobSHA(c)] = c
}

// AddPR adds or replaces a pull request. Its files are readable through the
// contents, trees and blobs APIs at HeadSHA, layered over the base branch.
func (s *Server) AddPR(repoName string, pr PR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.mustRepoLocked(repoName)
	if pr.Number <= 0 {
		panic("fakegithub: PR needs a positive Number")
	}
	if pr.State == "" {
		pr.State = "open"
	}
	if pr.BaseRef == "" {
		pr.BaseRef = p.defaultBranch
	}
	if pr.HeadRef == "" {
		pr.HeadRef = fmt.Sprintf("pr-%d", pr.Number)
	}
	if pr.HeadRepo == "" {
		pr.HeadRepo = p.fullName()
	}
	if pr.Author == "" {
		pr.Author = "octocat"
	}
	if pr.Title == "" {
		pr.Title = fmt.Sprintf("PR %d", pr.Number)
	}
	if pr.BaseSHA == "" {
		if sha, ok := p.branches[pr.BaseRef]; ok {
			pr.BaseSHA = sha
		} else {
			pr.BaseSHA = fakeSHA("base", p.fullName(), strconv.Itoa(pr.Number))
		}
	}
	if _, ok := p.branches[pr.BaseRef]; !ok {
		p.branches[pr.BaseRef] = pr.BaseSHA
	}
	if pr.HeadSHA == "" {
		pr.HeadSHA = fakeSHA("head", p.fullName(), strconv.Itoa(pr.Number))
	}
	if pr.Created.IsZero() {
		pr.Created = s.now()
	}
	pr.Created = pr.Created.UTC().Truncate(time.Second)
	pr.Files = slices.Clone(pr.Files)
	for i, f := range pr.Files {
		pr.Files[i].Content = slices.Clone(f.Content)
		if f.SymlinkTarget != "" {
			pr.Files[i].Content = []byte(f.SymlinkTarget)
		}
		p.blobs[blobSHA(pr.Files[i].Content)] = pr.Files[i].Content
	}
	p.pulls[pr.Number] = &pr
}

// SetPermission gives user a role on the repository: admin, maintain,
// write, triage, read or none.
func (s *Server) SetPermission(repoName, user, perm string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustRepoLocked(repoName).perms[strings.ToLower(user)] = perm
}

func (s *Server) mustRepoLocked(name string) *repo {
	p, ok := s.repos[strings.ToLower(name)]
	if !ok {
		panic("fakegithub: unknown repository " + name + " (call AddRepo first)")
	}
	return p
}

// repoFor finds the repository named in the request path, answering 404
// itself when there is none.
func (s *Server) repoFor(w http.ResponseWriter, r *http.Request) *repo {
	p, ok := s.repos[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo"))]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", docNotFound)
		return nil
	}
	return p
}

// resolveCommit turns a ref (sha, branch, PR head branch, pull/N/head) into
// a commit sha.
func (p *repo) resolveCommit(ref string) (string, bool) {
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/"), "heads/")
	if sha, ok := p.branches[ref]; ok {
		return sha, true
	}
	for _, pr := range p.pulls {
		if ref == pr.HeadRef || ref == fmt.Sprintf("pull/%d/head", pr.Number) {
			return pr.HeadSHA, true
		}
	}
	if isSHA(ref) && p.knownCommit(ref) {
		return ref, true
	}
	return "", false
}

func (p *repo) knownCommit(sha string) bool {
	if _, ok := p.files[sha]; ok {
		return true
	}
	for _, b := range p.branches {
		if b == sha {
			return true
		}
	}
	for _, pr := range p.pulls {
		if pr.HeadSHA == sha || pr.BaseSHA == sha {
			return true
		}
	}
	return false
}

// snapshot is the whole file tree at ref, or false for an unknown ref.
// A PR head is its base branch with the PR's files applied, so content set
// on the base after AddPR still shows through.
func (p *repo) snapshot(ref string) (map[string]entry, bool) {
	return p.snapshotDepth(ref, 0)
}

func (p *repo) snapshotDepth(ref string, depth int) (map[string]entry, bool) {
	if depth > 4 {
		return nil, false
	}
	sha, ok := p.resolveCommit(ref)
	if !ok {
		return nil, false
	}
	out := map[string]entry{}
	for _, pr := range p.pulls {
		if pr.HeadSHA != sha {
			continue
		}
		if base, ok := p.snapshotDepth(pr.BaseRef, depth+1); ok {
			out = base
		}
		for _, f := range pr.Files {
			switch f.Status {
			case "removed":
				delete(out, f.Name)
			case "renamed":
				delete(out, f.PreviousName)
				out[f.Name] = entry{f.Content, f.SymlinkTarget != "", f.SubmoduleCommit}
			default:
				out[f.Name] = entry{f.Content, f.SymlinkTarget != "", f.SubmoduleCommit}
			}
		}
		break
	}
	// Content may be stored under the branch name or its sha; both count.
	for name, bsha := range p.branches {
		if bsha == sha {
			for k, v := range p.files[name] {
				out[k] = entry{data: v}
			}
		}
	}
	for k, v := range p.files[sha] {
		out[k] = entry{data: v}
	}
	return out, true
}

// handleRepo implements GET /repos/{owner}/{repo}.
func (s *Server) handleRepo(w http.ResponseWriter, r *http.Request) {
	if p := s.repoFor(w, r); p != nil {
		writeJSON(w, http.StatusOK, s.repoJSON(p))
	}
}

func (s *Server) repoJSON(p *repo) map[string]any {
	return map[string]any{
		"id":             stableID(p.fullName()),
		"node_id":        "R_" + strconv.FormatInt(stableID(p.fullName()), 36),
		"name":           p.name,
		"full_name":      p.fullName(),
		"owner":          userJSON(p.owner, "Organization"),
		"private":        p.private,
		"visibility":     map[bool]string{true: "private", false: "public"}[p.private],
		"fork":           false,
		"default_branch": p.defaultBranch,
		"url":            s.URL + "repos/" + p.fullName(),
		"html_url":       "https://github.com/" + p.fullName(),
		"created_at":     p.created.Format(time.RFC3339),
	}
}

// forkJSON describes a head repository that is not the base repository.
func (s *Server) forkJSON(fullName string) map[string]any {
	owner, name, _ := strings.Cut(fullName, "/")
	return map[string]any{
		"id":        stableID(fullName),
		"name":      name,
		"full_name": fullName,
		"owner":     userJSON(owner, "User"),
		"private":   false,
		"fork":      true,
		"url":       s.URL + "repos/" + fullName,
		"html_url":  "https://github.com/" + fullName,
	}
}

func userJSON(login, typ string) map[string]any {
	if typ == "" {
		typ = "User"
	}
	return map[string]any{
		"login":      login,
		"id":         stableID(login),
		"node_id":    "U_" + strconv.FormatInt(stableID(login), 36),
		"type":       typ,
		"site_admin": false,
		"html_url":   "https://github.com/" + strings.TrimSuffix(login, "[bot]"),
	}
}

func (s *Server) prJSON(p *repo, pr *PR, full bool) map[string]any {
	branch := func(ref, sha, repoName string) map[string]any {
		owner, _, _ := strings.Cut(repoName, "/")
		rj := s.repoJSON(p)
		if !strings.EqualFold(repoName, p.fullName()) {
			rj = s.forkJSON(repoName)
		}
		return map[string]any{"label": owner + ":" + ref, "ref": ref, "sha": sha, "user": userJSON(owner, "User"), "repo": rj}
	}
	created := pr.Created.Format(time.RFC3339)
	updated := created
	if !pr.Updated.IsZero() {
		updated = pr.Updated.Format(time.RFC3339)
	}
	m := map[string]any{
		"url":        fmt.Sprintf("%srepos/%s/pulls/%d", s.URL, p.fullName(), pr.Number),
		"id":         stableID(fmt.Sprintf("%s#%d", p.fullName(), pr.Number)),
		"html_url":   fmt.Sprintf("https://github.com/%s/pull/%d", p.fullName(), pr.Number),
		"number":     pr.Number,
		"state":      pr.State,
		"locked":     false,
		"title":      pr.Title,
		"body":       pr.Body,
		"draft":      pr.Draft,
		"user":       userJSON(pr.Author, "User"),
		"head":       branch(pr.HeadRef, pr.HeadSHA, pr.HeadRepo),
		"base":       branch(pr.BaseRef, pr.BaseSHA, p.fullName()),
		"created_at": created,
		"updated_at": updated,
		"closed_at":  nil,
		"merged_at":  nil,
	}
	if pr.State == "closed" {
		m["closed_at"] = updated // closing is its last change
	}
	if pr.Merged {
		m["merged_at"] = updated
	}
	if full {
		// Only the single-PR endpoint carries these; the list omits them.
		m["merged"] = pr.Merged
		m["mergeable"] = nil
		m["changed_files"] = len(pr.Files)
		m["commits"] = 1
		// The conversation's comments (issue comments), as GitHub counts
		// them on the pull request.
		n := 0
		for _, c := range p.comments {
			if c.Issue == pr.Number {
				n++
			}
		}
		m["comments"] = n
		m["review_comments"] = 0
	}
	return m
}

// handlePull implements GET /repos/{owner}/{repo}/pulls/{number}.
func (s *Server) handlePull(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("number"))
	pr, ok := p.pulls[n]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/pulls/pulls#get-a-pull-request")
		return
	}
	writeJSON(w, http.StatusOK, s.prJSON(p, pr, true))
}

// handlePulls implements GET /repos/{owner}/{repo}/pulls (state, base,
// head filters; newest first like GitHub's default sort=created desc).
func (s *Server) handlePulls(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		validationError(w, "https://docs.github.com/rest/pulls/pulls#list-pull-requests", "PullRequest", "state", "invalid", "state must be open, closed or all")
		return
	}
	var prs []*PR
	for _, pr := range p.pulls {
		if state != "all" && pr.State != state {
			continue
		}
		if b := q.Get("base"); b != "" && b != pr.BaseRef {
			continue
		}
		if h := q.Get("head"); h != "" {
			owner, _, _ := strings.Cut(pr.HeadRepo, "/")
			if h != owner+":"+pr.HeadRef {
				continue
			}
		}
		prs = append(prs, pr)
	}
	asc := q.Get("direction") == "asc"
	sort.Slice(prs, func(i, j int) bool {
		if asc {
			return prs[i].Number < prs[j].Number
		}
		return prs[i].Number > prs[j].Number
	})
	page, ok := s.paginate(w, r, len(prs))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, pr := range prs[page.lo:page.hi] {
		out = append(out, s.prJSON(p, pr, false))
	}
	writeJSON(w, http.StatusOK, out)
}

// handlePullFiles implements GET /repos/{owner}/{repo}/pulls/{number}/files.
func (s *Server) handlePullFiles(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("number"))
	pr, ok := p.pulls[n]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files")
		return
	}
	// GitHub stops listing at 3000 files.
	files := pr.Files[:min(len(pr.Files), 3000)]
	page, ok := s.paginate(w, r, len(files))
	if !ok {
		return
	}
	base, _ := p.snapshot(pr.BaseRef)
	out := []map[string]any{}
	for _, f := range files[page.lo:page.hi] {
		content := f.Content
		old := base[f.Name].data
		if f.Status == "renamed" {
			old = base[f.PreviousName].data
		}
		if f.Status == "removed" && content == nil {
			content = old
		}
		add, del := lineDiff(old, content)
		switch f.Status {
		case "added":
			add, del = lineCount(content), 0
		case "removed":
			add, del = 0, lineCount(content)
		}
		esc := (&url.URL{Path: f.Name}).EscapedPath()
		m := map[string]any{
			// For a symbolic link this is the link's own blob, whatever
			// it points at: the listing says nothing of file modes.
			"sha":          blobSHA(content),
			"filename":     f.Name,
			"status":       f.Status,
			"additions":    add,
			"deletions":    del,
			"changes":      add + del,
			"blob_url":     fmt.Sprintf("https://github.com/%s/blob/%s/%s", p.fullName(), pr.HeadSHA, esc),
			"raw_url":      fmt.Sprintf("https://github.com/%s/raw/%s/%s", p.fullName(), pr.HeadSHA, esc),
			"contents_url": fmt.Sprintf("%srepos/%s/contents/%s?ref=%s", s.URL, p.fullName(), esc, pr.HeadSHA),
		}
		if f.Status == "renamed" {
			m["previous_filename"] = f.PreviousName
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

func lineCount(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := strings.Count(string(b), "\n")
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// lineDiff estimates added/removed lines by comparing line multisets; it is
// not a real diff, but gives plausible non-zero counts for modified files.
func lineDiff(old, new []byte) (add, del int) {
	count := map[string]int{}
	for _, l := range strings.SplitAfter(string(old), "\n") {
		if l != "" {
			count[l]++
		}
	}
	for _, l := range strings.SplitAfter(string(new), "\n") {
		if l == "" {
			continue
		}
		if count[l] > 0 {
			count[l]--
		} else {
			add++
		}
	}
	for _, c := range count {
		del += c
	}
	return add, del
}

// handleContents implements GET /repos/{owner}/{repo}/contents/{path}.
func (s *Server) handleContents(w http.ResponseWriter, r *http.Request) {
	const doc = "https://docs.github.com/rest/repos/contents#get-repository-content"
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = p.defaultBranch
	}
	files, ok := p.snapshot(ref)
	if !ok {
		writeError(w, http.StatusNotFound, "No commit found for the ref "+ref, doc)
		return
	}
	path := strings.Trim(r.PathValue("path"), "/")
	if e, ok := files[path]; ok {
		// GitHub answers a link to a regular file of the repository with
		// that file (its own path and sha), and any other link with an
		// object describing the link itself.
		if target, ok := followLink(files, path); ok {
			path, e = target, files[target]
		}
		// Over 1 MB only the raw and object media types answer; the
		// default JSON one refuses, pointing to the Git Data API.
		if e.submodule != "" {
			writeJSON(w, http.StatusOK, s.entryJSON(p, ref, path, e, true))
			return
		}
		if !e.link && len(e.data) > 1<<20 && !strings.Contains(r.Header.Get("Accept"), "object") && !strings.Contains(r.Header.Get("Accept"), "raw") {
			writeJSON(w, http.StatusForbidden, map[string]any{
				"message":           "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.",
				"errors":            []map[string]string{{"resource": "Blob", "field": "data", "code": "too_large"}},
				"documentation_url": doc,
				"status":            "403",
			})
			return
		}
		writeJSON(w, http.StatusOK, s.entryJSON(p, ref, path, e, true))
		return
	}
	entries := s.dirEntries(p, ref, files, path)
	if len(entries) == 0 && path != "" {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	writeJSON(w, http.StatusOK, entries)
}

// followLink resolves the symbolic link at path to the regular file it
// names at the same commit. A target that is absolute, leaves the
// repository, is missing, or is a folder or another link does not resolve.
func followLink(files map[string]entry, path string) (string, bool) {
	e := files[path]
	if !e.link {
		return "", false
	}
	t := string(e.data)
	if t == "" || pathpkg.IsAbs(t) {
		return "", false
	}
	t = pathpkg.Join(pathpkg.Dir(path), t)
	if t == "." || t == ".." || strings.HasPrefix(t, "../") {
		return "", false
	}
	if f, ok := files[t]; !ok || f.link {
		return "", false
	}
	return t, true
}

// entryJSON is a contents-API object for a file or a symbolic link. For a
// file GitHub wraps the base64 at 60 columns with newlines (clients must
// tolerate that), and for files over 1 MB (asked for with the object media
// type) sends no content with encoding "none". A link comes as type "symlink" with no content; only when it is
// asked for by path (full) does it carry its "target".
func (s *Server) entryJSON(p *repo, ref, path string, e entry, full bool) map[string]any {
	c := e.data
	sha := blobSHA(c)
	esc := (&url.URL{Path: path}).EscapedPath()
	self := fmt.Sprintf("%srepos/%s/contents/%s?ref=%s", s.URL, p.fullName(), esc, url.QueryEscape(ref))
	git := fmt.Sprintf("%srepos/%s/git/blobs/%s", s.URL, p.fullName(), sha)
	html := fmt.Sprintf("https://github.com/%s/blob/%s/%s", p.fullName(), ref, esc)
	m := map[string]any{
		"type":         "file",
		"name":         path[strings.LastIndex(path, "/")+1:],
		"path":         path,
		"sha":          sha,
		"size":         len(c),
		"url":          self,
		"git_url":      git,
		"html_url":     html,
		"download_url": fmt.Sprintf("https://raw.githubusercontent.com/%s/%s/%s", p.fullName(), ref, esc),
		"_links":       map[string]string{"self": self, "git": git, "html": html},
	}
	if e.submodule != "" {
		m["type"], m["sha"], m["size"] = "submodule", e.submodule, 0
		m["submodule_git_url"] = "https://github.com/example/vendored.git"
		m["download_url"] = nil
		return m
	}
	if e.link {
		m["type"] = "symlink"
		if full {
			m["target"] = string(c)
		}
		return m
	}
	if full {
		if len(c) > 1<<20 {
			m["encoding"] = "none"
			m["content"] = ""
		} else {
			m["encoding"] = "base64"
			m["content"] = wrap60(base64.StdEncoding.EncodeToString(c))
		}
	}
	return m
}

func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

// dirEntries lists the immediate children of dir, sorted by name.
func (s *Server) dirEntries(p *repo, ref string, files map[string]entry, dir string) []map[string]any {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	seenDir := map[string]bool{}
	out := []map[string]any{}
	for path, e := range files {
		rest, ok := strings.CutPrefix(path, prefix)
		if !ok {
			continue
		}
		if sub, _, isDir := strings.Cut(rest, "/"); isDir {
			if seenDir[sub] {
				continue
			}
			seenDir[sub] = true
			full := prefix + sub
			sha := p.registerTree(files, full+"/")
			esc := (&url.URL{Path: full}).EscapedPath()
			self := fmt.Sprintf("%srepos/%s/contents/%s?ref=%s", s.URL, p.fullName(), esc, url.QueryEscape(ref))
			git := fmt.Sprintf("%srepos/%s/git/trees/%s", s.URL, p.fullName(), sha)
			html := fmt.Sprintf("https://github.com/%s/tree/%s/%s", p.fullName(), ref, esc)
			out = append(out, map[string]any{
				"type": "dir", "name": sub, "path": full, "sha": sha, "size": 0,
				"url": self, "git_url": git, "html_url": html, "download_url": nil,
				"_links": map[string]string{"self": self, "git": git, "html": html},
			})
			continue
		}
		out = append(out, s.entryJSON(p, ref, path, e, false))
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
	return out
}

// registerTree gives the directory prefix of files a deterministic sha and
// remembers it for the trees API.
func (p *repo) registerTree(files map[string]entry, prefix string) string {
	h := sha1.New()
	var paths []string
	for path := range files {
		if strings.HasPrefix(path, prefix) {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	fmt.Fprintf(h, "tree %s\x00", prefix)
	for _, path := range paths {
		fmt.Fprintf(h, "%s %s %s\n", files[path].mode(), path, blobSHA(files[path].data))
	}
	sha := hex.EncodeToString(h.Sum(nil))
	p.trees[sha] = treeRef{files: files, prefix: prefix}
	return sha
}

// handleTree implements GET /repos/{owner}/{repo}/git/trees/{tree_sha}.
// tree_sha may be a tree sha, a commit sha or a branch name, as on GitHub;
// the presence of "recursive" (any value, even 0 or false — GitHub's
// documented quirk) makes the listing recursive.
func (s *Server) handleTree(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	ref := r.PathValue("sha")
	tr, ok := p.trees[ref]
	if !ok {
		files, found := p.snapshot(ref)
		if !found {
			writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/git/trees#get-a-tree")
			return
		}
		tr = treeRef{files: files}
	}
	sha := p.registerTree(tr.files, tr.prefix)
	_, recursive := r.URL.Query()["recursive"]
	seenDir := map[string]bool{}
	entries := []map[string]any{}
	for path, e := range tr.files {
		rest, ok := strings.CutPrefix(path, tr.prefix)
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/")
		// Every directory on the way down is an entry of its own.
		for i := 1; i < len(parts); i++ {
			if !recursive && i > 1 {
				break
			}
			d := strings.Join(parts[:i], "/")
			if seenDir[d] {
				continue
			}
			seenDir[d] = true
			dsha := p.registerTree(tr.files, tr.prefix+d+"/")
			entries = append(entries, map[string]any{"path": d, "mode": "040000", "type": "tree", "sha": dsha, "url": fmt.Sprintf("%srepos/%s/git/trees/%s", s.URL, p.fullName(), dsha)})
		}
		if !recursive && len(parts) > 1 {
			continue
		}
		if e.submodule != "" {
			entries = append(entries, map[string]any{"path": rest, "mode": "160000", "type": "commit", "sha": e.submodule})
			continue
		}
		bsha := blobSHA(e.data)
		p.blobs[bsha] = e.data
		entries = append(entries, map[string]any{"path": rest, "mode": e.mode(), "type": "blob", "sha": bsha, "size": len(e.data), "url": fmt.Sprintf("%srepos/%s/git/blobs/%s", s.URL, p.fullName(), bsha)})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i]["path"].(string) < entries[j]["path"].(string) })
	truncated := recursive && s.TruncateTrees
	if truncated {
		entries = entries[:len(entries)/2]
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"sha": sha, "url": fmt.Sprintf("%srepos/%s/git/trees/%s", s.URL, p.fullName(), sha),
		"tree": entries, "truncated": truncated,
	})
}

// mode is the entry's git file mode, as the trees API reports it.
func (e entry) mode() string {
	if e.link {
		return "120000"
	}
	return "100644"
}

// handleBlob implements GET /repos/{owner}/{repo}/git/blobs/{file_sha}.
func (s *Server) handleBlob(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	sha := r.PathValue("sha")
	c, ok := p.blobs[sha]
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/git/blobs#get-a-blob")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"sha": sha, "node_id": "B_" + sha[:12], "size": len(c),
		"url":      fmt.Sprintf("%srepos/%s/git/blobs/%s", s.URL, p.fullName(), sha),
		"content":  wrap60(base64.StdEncoding.EncodeToString(c)),
		"encoding": "base64",
	})
}

// handlePermission implements
// GET /repos/{owner}/{repo}/collaborators/{username}/permission. As on
// GitHub, "permission" carries the legacy base role (maintain reads as
// write, triage as read) and "role_name" the actual role.
func (s *Server) handlePermission(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	user := r.PathValue("username")
	role, ok := p.perms[strings.ToLower(user)]
	if !ok {
		// Anyone may read a public repository.
		role = "read"
		if p.private {
			role = "none"
		}
	}
	legacy := role
	switch role {
	case "maintain":
		legacy = "write"
	case "triage":
		legacy = "read"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"permission": legacy,
		"role_name":  role,
		"user":       userJSON(user, "User"),
	})
}

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// blobSHA is git's object id for a blob, so shas agree with what git
// itself would compute for the same content.
func blobSHA(c []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(c))
	h.Write(c)
	return hex.EncodeToString(h.Sum(nil))
}

func fakeSHA(parts ...string) string {
	sum := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

// stableID derives a positive numeric id from a name so ids stay the same
// across runs.
func stableID(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64()>>34) + 1
}
