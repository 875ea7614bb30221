package fakegithub

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	docCreateCheckRun = "https://docs.github.com/rest/checks/runs#create-a-check-run"
	docUpdateCheckRun = "https://docs.github.com/rest/checks/runs#update-a-check-run"

	// GitHub's documented limits on check run output.
	maxAnnotationsPerRequest = 50
	maxOutputChars           = 65535
)

// Annotation is a check run annotation, with GitHub's JSON field names.
type Annotation struct {
	Path            string `json:"path"`
	StartLine       int    `json:"start_line"`
	EndLine         int    `json:"end_line"`
	StartColumn     *int   `json:"start_column,omitempty"`
	EndColumn       *int   `json:"end_column,omitempty"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title,omitempty"`
	RawDetails      string `json:"raw_details,omitempty"`
}

// Output is a check run's output; Annotations holds every annotation sent
// across the create and all updates, in order.
type Output struct {
	Title       string
	Summary     string
	Text        string
	Annotations []Annotation
}

// CheckRun is a stored check run.
type CheckRun struct {
	ID          int64
	Name        string
	HeadSHA     string
	Status      string
	Conclusion  string
	DetailsURL  string
	ExternalID  string
	StartedAt   time.Time
	CompletedAt time.Time
	Output      Output
	// Updates counts successful PATCHes.
	Updates int
}

// CheckRuns returns copies of the repository's check runs in creation order.
func (s *Server) CheckRuns(repoName string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, c := range s.mustRepoLocked(repoName).checkRuns {
		cp := *c
		cp.Output.Annotations = slices.Clone(c.Output.Annotations)
		out = append(out, cp)
	}
	return out
}

// checkRunRequest is the body of create and update; pointers tell "absent"
// from "empty", which GitHub's validation distinguishes.
type checkRunRequest struct {
	Name        *string `json:"name"`
	HeadSHA     *string `json:"head_sha"`
	DetailsURL  *string `json:"details_url"`
	ExternalID  *string `json:"external_id"`
	Status      *string `json:"status"`
	StartedAt   *string `json:"started_at"`
	Conclusion  *string `json:"conclusion"`
	CompletedAt *string `json:"completed_at"`
	Output      *struct {
		Title       *string           `json:"title"`
		Summary     *string           `json:"summary"`
		Text        *string           `json:"text"`
		Annotations []annotationInput `json:"annotations"`
	} `json:"output"`
}

type annotationInput struct {
	Path            *string `json:"path"`
	StartLine       *int    `json:"start_line"`
	EndLine         *int    `json:"end_line"`
	StartColumn     *int    `json:"start_column"`
	EndColumn       *int    `json:"end_column"`
	AnnotationLevel *string `json:"annotation_level"`
	Message         *string `json:"message"`
	Title           *string `json:"title"`
	RawDetails      *string `json:"raw_details"`
}

var (
	// Apps may set only these statuses; waiting/requested/pending are
	// reserved for GitHub Actions.
	checkStatuses = []string{"queued", "in_progress", "completed"}
	// "stale" is a valid conclusion but only GitHub may set it.
	checkConclusions = []string{"action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out"}
	annotationLevels = []string{"notice", "warning", "failure"}
)

// validate checks req against GitHub's rules; it returns the offending
// field and a message, or "" when req is acceptable.
func (req *checkRunRequest) validate(create bool) (field, msg string) {
	if create {
		if req.Name == nil || *req.Name == "" {
			return "name", "name wasn't supplied."
		}
		if req.HeadSHA == nil || *req.HeadSHA == "" {
			return "head_sha", "head_sha wasn't supplied."
		}
	} else if req.Name != nil && *req.Name == "" {
		return "name", "name can't be blank."
	}
	if req.Status != nil && !slices.Contains(checkStatuses, *req.Status) {
		return "status", fmt.Sprintf("status %q is not included in the list %v", *req.Status, checkStatuses)
	}
	if req.Conclusion != nil && !slices.Contains(checkConclusions, *req.Conclusion) {
		return "conclusion", fmt.Sprintf("conclusion %q is not included in the list %v", *req.Conclusion, checkConclusions)
	}
	if req.Status != nil && *req.Status == "completed" && req.Conclusion == nil && create {
		return "conclusion", "conclusion is required when status is completed."
	}
	if req.CompletedAt != nil && req.Conclusion == nil && create {
		return "conclusion", "conclusion is required when completed_at is supplied."
	}
	for _, ts := range []*string{req.StartedAt, req.CompletedAt} {
		if ts != nil {
			if _, err := time.Parse(time.RFC3339, *ts); err != nil {
				return "started_at", "timestamps must be ISO 8601: YYYY-MM-DDTHH:MM:SSZ."
			}
		}
	}
	o := req.Output
	if o == nil {
		return "", ""
	}
	if create && (o.Title == nil || *o.Title == "") {
		return "output.title", "title wasn't supplied."
	}
	if o.Summary == nil || *o.Summary == "" {
		return "output.summary", "summary wasn't supplied."
	}
	if n := utf8.RuneCountInString(*o.Summary); n > maxOutputChars {
		return "output.summary", fmt.Sprintf("Only %d characters are allowed in the summary; %d were supplied.", maxOutputChars, n)
	}
	if o.Text != nil {
		if n := utf8.RuneCountInString(*o.Text); n > maxOutputChars {
			return "output.text", fmt.Sprintf("Only %d characters are allowed in the text; %d were supplied.", maxOutputChars, n)
		}
	}
	if len(o.Annotations) > maxAnnotationsPerRequest {
		return "output.annotations", fmt.Sprintf("Only %d annotations are allowed per request; %d were supplied. Send the rest with further updates.", maxAnnotationsPerRequest, len(o.Annotations))
	}
	for i, a := range o.Annotations {
		where := fmt.Sprintf("output.annotations[%d]", i)
		switch {
		case a.Path == nil || *a.Path == "":
			return where + ".path", "path wasn't supplied."
		case a.StartLine == nil || *a.StartLine < 1:
			return where + ".start_line", "start_line wasn't supplied."
		case a.EndLine == nil || *a.EndLine < 1:
			return where + ".end_line", "end_line wasn't supplied."
		case *a.EndLine < *a.StartLine:
			return where + ".end_line", "end_line must not be before start_line."
		case a.AnnotationLevel == nil || !slices.Contains(annotationLevels, *a.AnnotationLevel):
			return where + ".annotation_level", "annotation_level must be notice, warning or failure."
		case a.Message == nil || *a.Message == "":
			return where + ".message", "message wasn't supplied."
		case (a.StartColumn != nil || a.EndColumn != nil) && *a.StartLine != *a.EndLine:
			return where + ".start_column", "start_column and end_column are only allowed when start_line equals end_line."
		case a.RawDetails != nil && utf8.RuneCountInString(*a.RawDetails) > maxOutputChars:
			return where + ".raw_details", "raw_details is too long."
		}
	}
	return "", ""
}

// apply writes req's fields onto c, appending annotations as GitHub does.
func (req *checkRunRequest) apply(c *CheckRun, now time.Time) {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&c.Name, req.Name)
	set(&c.DetailsURL, req.DetailsURL)
	set(&c.ExternalID, req.ExternalID)
	set(&c.Status, req.Status)
	if req.StartedAt != nil {
		c.StartedAt, _ = time.Parse(time.RFC3339, *req.StartedAt)
	}
	if req.CompletedAt != nil {
		c.CompletedAt, _ = time.Parse(time.RFC3339, *req.CompletedAt)
	}
	if req.Conclusion != nil {
		// A conclusion implies completion.
		c.Conclusion = *req.Conclusion
		c.Status = "completed"
	}
	if c.Status != "completed" {
		c.Conclusion = ""
		c.CompletedAt = time.Time{}
	} else if c.CompletedAt.IsZero() {
		c.CompletedAt = now
	}
	if o := req.Output; o != nil {
		set(&c.Output.Title, o.Title)
		set(&c.Output.Summary, o.Summary)
		set(&c.Output.Text, o.Text)
		for _, a := range o.Annotations {
			out := Annotation{
				Path: *a.Path, StartLine: *a.StartLine, EndLine: *a.EndLine,
				StartColumn: a.StartColumn, EndColumn: a.EndColumn,
				AnnotationLevel: *a.AnnotationLevel, Message: *a.Message,
			}
			set(&out.Title, a.Title)
			set(&out.RawDetails, a.RawDetails)
			c.Output.Annotations = append(c.Output.Annotations, out)
		}
	}
}

// handleCreateCheckRun implements POST /repos/{owner}/{repo}/check-runs.
func (s *Server) handleCreateCheckRun(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	var req checkRunRequest
	if !decodeBody(w, r, &req, docCreateCheckRun) {
		return
	}
	if field, msg := req.validate(true); field != "" {
		validationError(w, docCreateCheckRun, "CheckRun", field, "invalid", msg)
		return
	}
	if !p.knownCommit(*req.HeadSHA) {
		validationError(w, docCreateCheckRun, "CheckRun", "head_sha", "invalid", "No commit found for SHA: "+*req.HeadSHA)
		return
	}
	now := s.now().UTC().Truncate(time.Second)
	c := &CheckRun{ID: s.newIDLocked(), HeadSHA: *req.HeadSHA, Status: "queued", StartedAt: now}
	req.apply(c, now)
	p.checkRuns = append(p.checkRuns, c)
	writeJSON(w, http.StatusCreated, s.checkRunJSON(p, c))
}

// handleUpdateCheckRun implements PATCH /repos/{owner}/{repo}/check-runs/{id}.
func (s *Server) handleUpdateCheckRun(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	c := p.findCheckRun(r.PathValue("id"))
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found", docUpdateCheckRun)
		return
	}
	var req checkRunRequest
	if !decodeBody(w, r, &req, docUpdateCheckRun) {
		return
	}
	if field, msg := req.validate(false); field != "" {
		validationError(w, docUpdateCheckRun, "CheckRun", field, "invalid", msg)
		return
	}
	req.apply(c, s.now().UTC().Truncate(time.Second))
	c.Updates++
	writeJSON(w, http.StatusOK, s.checkRunJSON(p, c))
}

// handleGetCheckRun implements GET /repos/{owner}/{repo}/check-runs/{id}.
func (s *Server) handleGetCheckRun(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	c := p.findCheckRun(r.PathValue("id"))
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/checks/runs#get-a-check-run")
		return
	}
	writeJSON(w, http.StatusOK, s.checkRunJSON(p, c))
}

// handleCheckRunAnnotations implements
// GET /repos/{owner}/{repo}/check-runs/{id}/annotations (paginated).
func (s *Server) handleCheckRunAnnotations(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	c := p.findCheckRun(r.PathValue("id"))
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/checks/runs#list-check-run-annotations")
		return
	}
	page, _ := s.paginate(w, r, len(c.Output.Annotations))
	out := []map[string]any{}
	for _, a := range c.Output.Annotations[page.lo:page.hi] {
		out = append(out, map[string]any{
			"path": a.Path, "start_line": a.StartLine, "end_line": a.EndLine,
			"start_column": a.StartColumn, "end_column": a.EndColumn,
			"annotation_level": a.AnnotationLevel, "message": a.Message,
			"title": a.Title, "raw_details": a.RawDetails,
			"blob_href": fmt.Sprintf("https://github.com/%s/blob/%s/%s", p.fullName(), c.HeadSHA, a.Path),
		})
	}
	writeJSON(w, http.StatusOK, out)
}

// handleListCheckRuns implements GET /repos/{owner}/{repo}/commits/{ref}/check-runs
// with the check_name, status and filter (latest|all) parameters.
func (s *Server) handleListCheckRuns(w http.ResponseWriter, r *http.Request) {
	p := s.repoFor(w, r)
	if p == nil {
		return
	}
	ref := r.PathValue("ref")
	sha, ok := p.resolveCommit(ref)
	if !ok {
		validationError(w, "https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference", "Commit", "ref", "invalid", "No commit found for SHA: "+ref)
		return
	}
	q := r.URL.Query()
	filter := q.Get("filter")
	if filter == "" {
		filter = "latest"
	}
	var runs []*CheckRun
	latest := map[string]bool{}
	// Newest first, which is also how "latest" keeps one run per name.
	for i := len(p.checkRuns) - 1; i >= 0; i-- {
		c := p.checkRuns[i]
		if c.HeadSHA != sha {
			continue
		}
		if n := q.Get("check_name"); n != "" && n != c.Name {
			continue
		}
		if st := q.Get("status"); st != "" && st != c.Status {
			continue
		}
		if filter == "latest" {
			if latest[c.Name] {
				continue
			}
			latest[c.Name] = true
		}
		runs = append(runs, c)
	}
	page, _ := s.paginate(w, r, len(runs))
	out := []map[string]any{}
	for _, c := range runs[page.lo:page.hi] {
		out = append(out, s.checkRunJSON(p, c))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": out})
}

func (p *repo) findCheckRun(id string) *CheckRun {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	for _, c := range p.checkRuns {
		if c.ID == n {
			return c
		}
	}
	return nil
}

func (s *Server) checkRunJSON(p *repo, c *CheckRun) map[string]any {
	ts := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return t.UTC().Format(time.RFC3339)
	}
	null := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	url := fmt.Sprintf("%srepos/%s/check-runs/%d", s.URL, p.fullName(), c.ID)
	prs := []map[string]any{}
	var nums []int
	for n, pr := range p.pulls {
		if pr.HeadSHA == c.HeadSHA && pr.State == "open" && strings.EqualFold(pr.HeadRepo, p.fullName()) {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	for _, n := range nums {
		pr := p.pulls[n]
		prs = append(prs, map[string]any{
			"url":    fmt.Sprintf("%srepos/%s/pulls/%d", s.URL, p.fullName(), n),
			"number": n,
			"head":   map[string]any{"ref": pr.HeadRef, "sha": pr.HeadSHA},
			"base":   map[string]any{"ref": pr.BaseRef, "sha": pr.BaseSHA},
		})
	}
	return map[string]any{
		"id":           c.ID,
		"node_id":      "CR_" + strconv.FormatInt(c.ID, 36),
		"name":         c.Name,
		"head_sha":     c.HeadSHA,
		"external_id":  c.ExternalID,
		"url":          url,
		"html_url":     fmt.Sprintf("https://github.com/%s/runs/%d", p.fullName(), c.ID),
		"details_url":  null(c.DetailsURL),
		"status":       c.Status,
		"conclusion":   null(c.Conclusion),
		"started_at":   ts(c.StartedAt),
		"completed_at": ts(c.CompletedAt),
		"output": map[string]any{
			"title":             null(c.Output.Title),
			"summary":           null(c.Output.Summary),
			"text":              null(c.Output.Text),
			"annotations_count": len(c.Output.Annotations),
			"annotations_url":   url + "/annotations",
		},
		"check_suite":   map[string]any{"id": stableID(p.fullName() + "@" + c.HeadSHA)},
		"app":           s.appJSON(),
		"pull_requests": prs,
	}
}

func (s *Server) appJSON() map[string]any {
	return map[string]any{
		"id":       s.appID,
		"slug":     s.AppSlug,
		"name":     s.AppSlug,
		"owner":    userJSON(s.AppSlug, "Organization"),
		"html_url": "https://github.com/apps/" + s.AppSlug,
	}
}
