package fakegithub

// routes registers the endpoints; anything else gets GitHub's JSON 404.
func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("POST /app/installations/{installation_id}/access_tokens", s.handleAccessToken)
	m.HandleFunc("GET /app/installations", s.handleInstallations)
	m.HandleFunc("GET /app", s.handleApp)
	m.HandleFunc("GET /users/{username}", s.handleUser)
	m.HandleFunc("GET /installation/repositories", s.handleInstallationRepos)
	m.HandleFunc("POST /app-manifests/{code}/conversions", s.handleManifestConversion)

	// The web pages of the App-manifest flow, which a browser posts to.
	m.HandleFunc("POST /settings/apps/new", s.handleNewAppForm)
	m.HandleFunc("POST /organizations/{org}/settings/apps/new", s.handleNewAppForm)

	m.HandleFunc("GET /repos/{owner}/{repo}", s.handleRepo)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls", s.handlePulls)
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls", s.handleCreatePull)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}", s.handlePull)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/files", s.handlePullFiles)
	m.HandleFunc("GET /repos/{owner}/{repo}/contents/{path...}", s.handleContents)
	m.HandleFunc("GET /repos/{owner}/{repo}/git/trees/{sha}", s.handleTree)
	m.HandleFunc("GET /repos/{owner}/{repo}/git/blobs/{sha}", s.handleBlob)
	m.HandleFunc("GET /repos/{owner}/{repo}/collaborators/{username}/permission", s.handlePermission)

	m.HandleFunc("POST /repos/{owner}/{repo}/check-runs", s.handleCreateCheckRun)
	m.HandleFunc("GET /repos/{owner}/{repo}/check-runs/{id}", s.handleGetCheckRun)
	m.HandleFunc("PATCH /repos/{owner}/{repo}/check-runs/{id}", s.handleUpdateCheckRun)
	m.HandleFunc("GET /repos/{owner}/{repo}/check-runs/{id}/annotations", s.handleCheckRunAnnotations)
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", s.handleListCheckRuns)

	m.HandleFunc("GET /repos/{owner}/{repo}/issues/{number}/comments", s.handleListComments)
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", s.handleCreateComment)
	m.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", s.handleEditComment)
	m.HandleFunc("DELETE /repos/{owner}/{repo}/issues/comments/{id}", s.handleDeleteComment)
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/reactions", s.handleIssueReaction)
	m.HandleFunc("POST /repos/{owner}/{repo}/issues/comments/{id}/reactions", s.handleCommentReaction)
}
