package fakegithub

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// AddInstallation installs the App on repositories (added with AddRepo
// before or after), so that GET /app/installations and GET
// /installation/repositories list them, as the App's reconcile reads them.
func (s *Server) AddInstallation(id int64, repos ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.installations == nil {
		s.installations = map[int64][]string{}
	}
	for _, r := range repos {
		s.installations[id] = append(s.installations[id], strings.ToLower(r))
	}
}

// handleInstallations implements GET /app/installations (App JWT), in
// pages as GitHub answers it.
func (s *Server) handleInstallations(w http.ResponseWriter, r *http.Request) {
	if msg := s.verifyJWTLocked(r.Header.Get("Authorization")); msg != "" {
		writeError(w, http.StatusUnauthorized, msg, docAppAuth)
		return
	}
	ids := make([]int64, 0, len(s.installations))
	for id := range s.installations {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	page, _ := s.paginate(w, r, len(ids))
	out := []map[string]any{}
	for _, id := range ids[page.lo:page.hi] {
		login := ""
		if rs := s.installations[id]; len(rs) > 0 {
			login, _, _ = strings.Cut(rs[0], "/")
		}
		out = append(out, map[string]any{
			"id":                   id,
			"app_id":               s.appID,
			"account":              userJSON(login, "Organization"),
			"repository_selection": "selected",
			"target_type":          "Organization",
		})
	}
	writeJSON(w, http.StatusOK, out)
}

// handleInstallationRepos implements GET /installation/repositories
// (installation token): the repositories of the token's installation, in
// the order they were added, in pages; total_count counts them all.
func (s *Server) handleInstallationRepos(w http.ResponseWriter, r *http.Request) {
	inst, ok := s.authenticateLocked(w, r)
	if !ok {
		return
	}
	var all []*repo
	for _, key := range s.installations[inst] {
		if p := s.repos[key]; p != nil {
			all = append(all, p)
		}
	}
	page, _ := s.paginate(w, r, len(all))
	repos := []map[string]any{}
	for _, p := range all[page.lo:page.hi] {
		repos = append(repos, s.repoJSON(p))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(all), "repository_selection": "selected", "repositories": repos})
}

// RevokeTokens revokes every installation token issued so far, as
// GitHub does when an installation is suspended and reinstated or a token
// is revoked through DELETE /installation/token: requests carrying one are
// answered 401 Bad credentials until a new token is minted.
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for tok := range s.tokens {
		delete(s.tokens, tok)
	}
}

// ValidToken reports whether tok is an installation token this server
// issued and that has not expired, so that a git server in the same test
// can accept exactly what GitHub would.
func (s *Server) ValidToken(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[tok]
	return ok && s.now().Before(t.expires)
}

// handleApp implements GET /app (App JWT): the authenticated App.
func (s *Server) handleApp(w http.ResponseWriter, r *http.Request) {
	if msg := s.verifyJWTLocked(r.Header.Get("Authorization")); msg != "" {
		writeError(w, http.StatusUnauthorized, msg, docAppAuth)
		return
	}
	app := s.appJSON()
	app["node_id"] = "A_" + strconv.FormatInt(s.appID, 36)
	app["description"] = ""
	app["external_url"] = "https://example.org"
	app["created_at"] = "2026-01-01T00:00:00Z"
	app["updated_at"] = "2026-01-01T00:00:00Z"
	app["permissions"] = map[string]string{"checks": "write", "contents": "write", "issues": "write", "pull_requests": "write", "metadata": "read"}
	app["events"] = []string{"check_run", "check_suite", "issue_comment", "pull_request", "push"}
	app["installations_count"] = len(s.installations)
	writeJSON(w, http.StatusOK, app)
}

// handleUser implements GET /users/{username}. Any login is a user; the
// App's bot user, AppSlug+"[bot]", is of type Bot.
func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) {
	login := r.PathValue("username")
	typ := "User"
	if strings.EqualFold(login, s.AppSlug+"[bot]") {
		login, typ = s.AppSlug+"[bot]", "Bot"
	}
	writeJSON(w, http.StatusOK, userJSON(login, typ))
}

// UserID is the id GitHub gives the user login, as the fake's responses
// carry it.
func (s *Server) UserID(login string) int64 { return stableID(login) }
