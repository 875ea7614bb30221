package fakehub

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
)

// revLocked resolves the {rev} segment, which the Hub takes as one
// percent-encoded path segment (hf-hub.md §2.1 "Revision in a path"). An
// unencoded refs/pr/N splits into rev "refs" and a path starting "pr/N";
// it is taken only when AcceptUnencodedRevision is set.
func (h *Hub) revLocked(w http.ResponseWriter, r *http.Request, rp *repo) (*commit, string, bool) {
	rev, rest := r.PathValue("rev"), r.PathValue("path")
	if rev == "refs" && h.AcceptUnencodedRevision {
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) >= 2 {
			rev = "refs/" + parts[0] + "/" + parts[1]
			rest = ""
			if len(parts) == 3 {
				rest = parts[2]
			}
		}
	}
	c, ok := rp.resolveRev(rev)
	if !ok {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return nil, "", false
	}
	return c, strings.Trim(rest, "/"), true
}

type treeEntry struct {
	Type       string         `json:"type"`
	OID        string         `json:"oid"`
	Size       int            `json:"size"`
	Path       string         `json:"path"`
	LFS        *lfsInfo       `json:"lfs,omitempty"`
	XetHash    string         `json:"xetHash,omitempty"`
	LastCommit map[string]any `json:"lastCommit,omitempty"`
	Security   map[string]any `json:"securityFileStatus,omitempty"`
}

type lfsInfo struct {
	OID         string `json:"oid"`
	Size        int    `json:"size"`
	PointerSize int    `json:"pointerSize"`
}

func fileEntry(p string, b blob) treeEntry {
	e := treeEntry{Type: "file", OID: gitOID(b.gitBytes()), Size: len(b.content), Path: p}
	if b.lfs {
		e.LFS = &lfsInfo{OID: sha256Hex(b.content), Size: len(b.content), PointerSize: len(lfsPointer(b.content))}
		e.XetHash = sha256Hex(append([]byte("xet\x00"), b.content...))
	}
	return e
}

// entries lists the tree under dir (all depths when recursive), sorted by
// path, with directory entries whose oid hashes their content.
func entries(files map[string]blob, dir string, recursive bool) ([]treeEntry, bool) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	dirs := map[string][]string{}
	var out []treeEntry
	found := dir == ""
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		found = true
		rel := strings.TrimPrefix(p, prefix)
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			d := prefix + strings.Join(parts[:i], "/")
			dirs[d] = append(dirs[d], p+"\x00"+gitOID(files[p].gitBytes()))
		}
		if recursive || len(parts) == 1 {
			out = append(out, fileEntry(p, files[p]))
		}
	}
	if _, isFile := files[dir]; isFile {
		return []treeEntry{fileEntry(dir, files[dir])}, true
	}
	for d, members := range dirs {
		if !recursive && strings.Contains(strings.TrimPrefix(d, prefix), "/") {
			continue
		}
		out = append(out, treeEntry{Type: "directory", OID: gitOID([]byte(strings.Join(members, "\n"))), Path: d})
	}
	slices.SortFunc(out, func(a, b treeEntry) int { return strings.Compare(a.Path, b.Path) })
	return out, found
}

// sameUnder reports whether path p, a file or a folder, is the same in
// both file sets.
func sameUnder(a, b map[string]blob, p string) bool {
	if !sameBlob(a, b, p) {
		return false
	}
	for _, m := range []map[string]blob{a, b} {
		for q := range m {
			if strings.HasPrefix(q, p+"/") && !sameBlob(a, b, q) {
				return false
			}
		}
	}
	return true
}

// lastCommit is the newest commit reachable from head that changed path.
func (rp *repo) lastCommit(head *commit, p string) *commit {
	hist := rp.history(head.sha)
	for i, c := range hist {
		parentHas := false
		for _, par := range c.parents {
			if sameUnder(rp.commits[par].files, c.files, p) {
				parentHas = true
			}
		}
		if !parentHas || i == len(hist)-1 {
			return c
		}
	}
	return head
}

// page sets `Link: <…>; rel="next"` (hf-hub.md §2.1 "Pagination") with
// an opaque cursor, and returns the page [lo, hi).
func (h *Hub) page(w http.ResponseWriter, r *http.Request, total, size int) (int, int) {
	lo := 0
	if c := r.URL.Query().Get("cursor"); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		if err == nil {
			lo, _ = strconv.Atoi(string(b))
		}
	}
	lo = min(max(lo, 0), total)
	hi := min(lo+size, total)
	if hi < total {
		q := r.URL.Query()
		q.Set("cursor", base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(hi))))
		w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, h.URL, r.URL.EscapedPath(), q.Encode()))
	}
	return lo, hi
}

func (h *Hub) handleTree(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rp, _, ok := h.repoForLocked(w, r)
	if !ok {
		return
	}
	c, dir, ok := h.revLocked(w, r, rp)
	if !ok {
		return
	}
	q := r.URL.Query()
	all, found := entries(c.files, dir, q.Get("recursive") == "true" || q.Get("recursive") == "1")
	if !found {
		hubError(w, http.StatusNotFound, "EntryNotFound", fmt.Sprintf("%s does not exist on %q", dir, r.PathValue("rev")))
		return
	}
	lo, hi := h.page(w, r, len(all), h.TreePageSize)
	out := all[lo:hi]
	if q.Get("expand") == "true" || q.Get("expand") == "1" {
		// expand adds lastCommit and securityFileStatus (hf-hub.md §2.3).
		for i := range out {
			lc := rp.lastCommit(c, out[i].Path)
			out[i].LastCommit = map[string]any{"id": lc.sha, "title": lc.title, "date": stamp(lc.date)}
			if out[i].Type == "file" {
				out[i].Security = map[string]any{"status": "unscanned"}
			}
		}
	}
	writeJSON(w, http.StatusOK, append([]treeEntry{}, out...))
}

func (h *Hub) handlePathsInfo(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rp, _, ok := h.repoForLocked(w, r)
	if !ok {
		return
	}
	c, _, ok := h.revLocked(w, r, rp)
	if !ok {
		return
	}
	// The body is form-encoded (hf-hub.md §2.3 "Specific paths").
	if err := r.ParseForm(); err != nil {
		hubError(w, http.StatusBadRequest, "", "Invalid form body")
		return
	}
	out := []treeEntry{}
	for _, p := range r.PostForm["paths"] {
		if b, ok := c.files[p]; ok {
			out = append(out, fileEntry(p, b))
		} else if es, found := entries(c.files, p, false); found && len(es) > 0 && p != "" {
			out = append(out, treeEntry{Type: "directory", OID: gitOID([]byte(p)), Path: p})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Hub) handleCommits(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rp, _, ok := h.repoForLocked(w, r)
	if !ok {
		return
	}
	c, _, ok := h.revLocked(w, r, rp)
	if !ok {
		return
	}
	hist := rp.history(c.sha)
	lo, hi := h.page(w, r, len(hist), h.CommitsPageSize)
	out := []any{}
	for _, k := range hist[lo:hi] {
		// No parents and no file lists (hf-hub.md §2.2).
		out = append(out, map[string]any{"id": k.sha, "title": k.title, "message": k.message,
			"authors": []any{map[string]any{"user": k.author, "avatar": "/avatars/" + k.author + ".svg"}}, "date": stamp(k.date)})
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Hub) handleRevision(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rp, _, ok := h.repoForLocked(w, r)
	if !ok {
		return
	}
	c, _, ok := h.revLocked(w, r, rp)
	if !ok {
		return
	}
	sib := []any{}
	for _, p := range slices.Sorted(maps.Keys(c.files)) {
		sib = append(sib, map[string]any{"rfilename": p})
	}
	writeJSON(w, http.StatusOK, map[string]any{"_id": rp.id, "id": rp.name, "author": rp.owner.Name, "sha": c.sha,
		"lastModified": stamp(c.date), "private": rp.private, "disabled": false, "gated": false, "siblings": sib})
}

func (h *Hub) handleRefs(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rp, _, ok := h.repoForLocked(w, r)
	if !ok {
		return
	}
	out := map[string]any{"branches": []any{}, "converts": []any{}, "tags": []any{}}
	prs := []any{}
	for _, ref := range slices.Sorted(maps.Keys(rp.refs)) {
		item := map[string]any{"ref": ref, "targetCommit": rp.refs[ref]}
		switch {
		case strings.HasPrefix(ref, "refs/heads/"):
			item["name"] = strings.TrimPrefix(ref, "refs/heads/")
			out["branches"] = append(out["branches"].([]any), item)
		case strings.HasPrefix(ref, "refs/convert/"):
			item["name"] = strings.TrimPrefix(ref, "refs/convert/")
			out["converts"] = append(out["converts"].([]any), item)
		case strings.HasPrefix(ref, "refs/tags/"):
			item["name"] = strings.TrimPrefix(ref, "refs/tags/")
			out["tags"] = append(out["tags"].([]any), item)
		case strings.HasPrefix(ref, "refs/pr/"):
			item["name"] = strings.TrimPrefix(ref, "refs/pr/")
			prs = append(prs, item)
		}
	}
	if r.URL.Query().Get("include_prs") == "1" {
		out["pullRequests"] = prs
	}
	writeJSON(w, http.StatusOK, out)
}

// handleResolve serves a file's content: a regular file directly, an LFS
// file by a redirect to the CDN host (hf-hub.md §2.3 "Content", §6 API
// side 4). raw serves the git blob, the pointer for an LFS file.
func (h *Hub) handleResolve(raw bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		rp, _, ok := h.repoForLocked(w, r)
		if !ok {
			h.mu.Unlock()
			return
		}
		c, p, ok := h.revLocked(w, r, rp)
		if !ok {
			h.mu.Unlock()
			return
		}
		b, ok := c.files[p]
		h.mu.Unlock()
		if !ok {
			hubError(w, http.StatusNotFound, "EntryNotFound", fmt.Sprintf("%s does not exist on %q", p, r.PathValue("rev")))
			return
		}
		w.Header().Set("X-Repo-Commit", c.sha)
		switch {
		case raw || !b.lfs:
			data := b.gitBytes()
			w.Header().Set("ETag", `"`+gitOID(data)+`"`)
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(data)
		default:
			sum := sha256Hex(b.content)
			h.mu.Lock()
			h.lfs[sum] = b.content
			h.mu.Unlock()
			w.Header().Set("ETag", `"`+sum+`"`)
			w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
			w.Header().Set("X-Linked-Size", strconv.Itoa(len(b.content)))
			w.Header().Set("Location", h.CDNURL+"/lfs/"+sum+"?filename="+url.QueryEscape(path.Base(p)))
			w.WriteHeader(http.StatusFound)
		}
	}
}

// serveCDN is the second host: it serves LFS objects and records whether
// a token arrived with the request.
func (h *Hub) serveCDN(w http.ResponseWriter, r *http.Request) {
	rec := &statusRecorder{ResponseWriter: w}
	sum := strings.TrimPrefix(r.URL.Path, "/lfs/")
	h.mu.Lock()
	data, ok := h.lfs[sum]
	h.mu.Unlock()
	if r.Method != http.MethodGet || !ok {
		http.Error(rec, "no such object", http.StatusNotFound)
	} else {
		rec.Header().Set("Content-Length", strconv.Itoa(len(data)))
		_, _ = rec.Write(data)
	}
	h.mu.Lock()
	h.calls = append(h.calls, Call{Host: "cdn", Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
		Authorization: r.Header.Get("Authorization"), Status: rec.status})
	h.mu.Unlock()
}

// commitLine is one line of the NDJSON commit body (hf-hub.md §2.5).
type commitLine struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// ConflictMessage is the fake's answer to a commit whose parentCommit is
// no longer the head of its revision; the Hub answers 412.
const ConflictMessage = "A commit has happened since. Please refresh and try again."

func (h *Hub) handleCommit(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	rp, c, ok := h.repoForLocked(w, r)
	if !ok || !needToken(w, c) {
		h.mu.Unlock()
		return
	}
	status, msg, out := h.commitLocked(r, rp, c)
	h.mu.Unlock()
	if status != 0 {
		hubError(w, status, "", msg)
		return
	}
	h.deliverQueued()
	writeJSON(w, http.StatusOK, out)
}

func (h *Hub) commitLocked(r *http.Request, rp *repo, c caller) (int, string, map[string]any) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") {
		return http.StatusBadRequest, "Content-Type must be application/x-ndjson", nil
	}
	rev := r.PathValue("rev")
	base, ok := rp.resolveRev(rev)
	if !ok {
		return http.StatusNotFound, "Invalid rev id: " + rev, nil
	}
	createPR := r.URL.Query().Get("create_pr") == "1"
	var header struct {
		Summary      string `json:"summary"`
		Description  string `json:"description"`
		ParentCommit string `json:"parentCommit,omitempty"`
	}
	files := maps.Clone(base.files)
	sc := bufio.NewScanner(http.MaxBytesReader(nil, r.Body, 64<<20))
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var line commitLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return http.StatusBadRequest, fmt.Sprintf("line %d: %v", n+1, err), nil
		}
		if n == 0 && line.Key != "header" {
			return http.StatusBadRequest, "the first line must be the header", nil
		}
		n++
		var v struct {
			Path     string `json:"path"`
			Content  string `json:"content"`
			Encoding string `json:"encoding"`
			Algo     string `json:"algo"`
			OID      string `json:"oid"`
			Size     int    `json:"size"`
		}
		switch line.Key {
		case "header":
			if n != 1 {
				return http.StatusBadRequest, "only one header line", nil
			}
			if err := json.Unmarshal(line.Value, &header); err != nil {
				return http.StatusBadRequest, "header: " + err.Error(), nil
			}
			continue
		case "file", "lfsFile", "deletedFile", "deletedFolder":
			if err := json.Unmarshal(line.Value, &v); err != nil || v.Path == "" {
				return http.StatusBadRequest, fmt.Sprintf("line %d: a %s needs a path", n, line.Key), nil
			}
		default:
			return http.StatusBadRequest, fmt.Sprintf("line %d: unknown key %q", n, line.Key), nil
		}
		switch line.Key {
		case "file":
			if v.Encoding != "base64" {
				return http.StatusBadRequest, fmt.Sprintf("line %d: encoding must be base64", n), nil
			}
			data, err := base64.StdEncoding.DecodeString(v.Content)
			if err != nil {
				return http.StatusBadRequest, fmt.Sprintf("line %d: content is not base64", n), nil
			}
			files[v.Path] = blob{content: data}
		case "lfsFile":
			data, ok := h.lfs[v.OID]
			if v.Algo != "sha256" || !ok || len(data) != v.Size {
				return http.StatusBadRequest, fmt.Sprintf("line %d: LFS object %s was not uploaded", n, v.OID), nil
			}
			files[v.Path] = blob{content: data, lfs: true}
		case "deletedFile":
			if _, ok := files[v.Path]; !ok {
				return http.StatusNotFound, fmt.Sprintf("line %d: %s does not exist", n, v.Path), nil
			}
			delete(files, v.Path)
		case "deletedFolder":
			for p := range files {
				if strings.HasPrefix(p, strings.TrimSuffix(v.Path, "/")+"/") {
					delete(files, p)
				}
			}
		}
	}
	if n == 0 || header.Summary == "" {
		return http.StatusBadRequest, "a header line with a summary is required", nil
	}
	// Optimistic concurrency (hf-hub.md §2.5 "Commit").
	if header.ParentCommit != "" && header.ParentCommit != base.sha {
		return http.StatusPreconditionFailed, ConflictMessage, nil
	}
	out := map[string]any{"pullRequestUrl": nil}
	if createPR {
		d := h.openDiscussionLocked(rp, c.user, header.Summary, header.Description, true, StatusOpen, files)
		k := rp.commits[rp.refs[d.ref()]]
		out["commitOid"], out["commitUrl"] = k.sha, fmt.Sprintf("%s/datasets/%s/commit/%s", h.URL, rp.name, k.sha)
		out["pullRequestUrl"] = fmt.Sprintf("%s/datasets/%s/discussions/%d", h.URL, rp.name, d.num)
		return 0, "", out
	}
	ref := rev
	if !strings.HasPrefix(ref, "refs/") {
		ref = "refs/heads/" + rev
	}
	if _, isRef := rp.refs[ref]; !isRef {
		return http.StatusBadRequest, "commits go to a branch or a pull request ref", nil
	}
	if d := rp.prOf(ref); d != nil {
		if d.author != c.user && !c.canWrite(rp) {
			return http.StatusForbidden, "You cannot push to this pull request", nil
		}
		if d.status == StatusMerged || d.status == StatusClosed {
			return http.StatusBadRequest, "This pull request is " + d.status, nil
		}
	} else if !c.canWrite(rp) {
		return http.StatusForbidden, "You need write access to commit to " + rev, nil
	}
	k := h.pushLocked(rp, ref, c.user, files, header.Summary, header.Description)
	out["commitOid"], out["commitUrl"] = k.sha, fmt.Sprintf("%s/datasets/%s/commit/%s", h.URL, rp.name, k.sha)
	return 0, "", out
}

func (rp *repo) prOf(ref string) *discussion {
	n, err := strconv.Atoi(strings.TrimPrefix(ref, "refs/pr/"))
	if !strings.HasPrefix(ref, "refs/pr/") || err != nil || n < 1 || n > len(rp.discs) {
		return nil
	}
	return rp.discs[n-1]
}

// pushLocked commits files on top of ref, adds the commit event to its PR
// and queues the repo.content delivery.
func (h *Hub) pushLocked(rp *repo, ref string, u *User, files map[string]blob, title, message string) *commit {
	for _, b := range files {
		if b.lfs {
			h.lfs[sha256Hex(b.content)] = b.content
		}
	}
	k := h.newCommitLocked(rp, []string{rp.refs[ref]}, files, title, message, u.Name)
	if d := rp.prOf(ref); d != nil {
		h.addEventLocked(d, &event{typ: "commit", author: u, subject: title, oid: k.sha})
	}
	h.moveRefLocked(rp, ref, k.sha)
	return k
}

// moveRefLocked sets ref (creating or deleting it when sha or the old
// value is empty) and queues the repo.content delivery (hf-hub.md §3.4).
func (h *Hub) moveRefLocked(rp *repo, ref, sha string) {
	old, had := rp.refs[ref]
	if sha == "" {
		delete(rp.refs, ref)
	} else {
		rp.refs[ref] = sha
	}
	var oldp, newp *string
	if had {
		oldp = &old
	}
	if sha != "" {
		newp = &sha
	}
	h.emitLocked(rp, h.repoPayloadLocked(rp, []payloadRef{{Ref: ref, OldSha: oldp, NewSha: newp}}))
}

func (h *Hub) handleWhoami(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r)
	if c.user == nil {
		hubError(w, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"type": "user", "id": c.user.ID, "name": c.user.Name, "fullname": c.user.Name,
		"orgs": []any{}, "auth": map[string]any{"type": "access_token", "accessToken": map[string]any{"displayName": "benchgate", "role": c.role}}})
}

func (h *Hub) routes() http.Handler {
	mux := http.NewServeMux()
	const ds = "/api/datasets/{ns}/{name}"
	mux.HandleFunc("GET "+ds+"/discussions", h.handleListDiscussions)
	mux.HandleFunc("POST "+ds+"/discussions", h.handleCreateDiscussion)
	mux.HandleFunc("GET "+ds+"/discussions/{num}", h.handleGetDiscussion)
	mux.HandleFunc("POST "+ds+"/discussions/{num}/comment", h.handleComment)
	mux.HandleFunc("POST "+ds+"/discussions/{num}/comment/{id}/edit", h.handleEditComment)
	mux.HandleFunc("POST "+ds+"/discussions/{num}/comment/{id}/hide", h.handleHideComment)
	mux.HandleFunc("POST "+ds+"/discussions/{num}/status", h.handleStatus)
	mux.HandleFunc("POST "+ds+"/discussions/{num}/title", h.handleTitle)
	mux.HandleFunc("POST "+ds+"/discussions/{num}/merge", h.handleMerge)
	mux.HandleFunc("GET "+ds+"/tree/{rev}", h.handleTree)
	mux.HandleFunc("GET "+ds+"/tree/{rev}/{path...}", h.handleTree)
	mux.HandleFunc("POST "+ds+"/paths-info/{rev}", h.handlePathsInfo)
	mux.HandleFunc("GET "+ds+"/commits/{rev}", h.handleCommits)
	mux.HandleFunc("GET "+ds+"/revision/{rev}", h.handleRevision)
	mux.HandleFunc("GET "+ds+"/refs", h.handleRefs)
	mux.HandleFunc("POST "+ds+"/commit/{rev}", h.handleCommit)
	mux.HandleFunc("GET /api/whoami-v2", h.handleWhoami)
	mux.HandleFunc("GET /datasets/{ns}/{name}/resolve/{rev}/{path...}", h.handleResolve(false))
	mux.HandleFunc("GET /datasets/{ns}/{name}/raw/{rev}/{path...}", h.handleResolve(true))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		hubError(w, http.StatusNotFound, "", "Not found: "+r.URL.Path)
	})
	return h.middleware(mux)
}
