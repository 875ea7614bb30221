package fakegithub

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// The App-manifest flow, as "Registering a GitHub App from a manifest"
// documents it: a form POSTs the manifest (JSON in the field "manifest") to
// /settings/apps/new or /organizations/ORG/settings/apps/new with a state
// in the query; GitHub redirects to the manifest's redirect_url with
// ?code=…&state=…; POST /app-manifests/{code}/conversions, unauthenticated,
// answers 201 with the new App and its credentials. A code works once and
// for an hour.

const docManifest = "https://docs.github.com/rest/apps/apps#create-a-github-app-from-a-manifest"

// manifestCodeLife is how long GitHub honours a manifest code.
const manifestCodeLife = time.Hour

type manifestCode struct {
	manifest appManifest
	owner    string // the organization, or "" for the user's account
	issued   time.Time
}

type appManifest struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	Description    string `json:"description"`
	HookAttributes struct {
		URL    string `json:"url"`
		Active *bool  `json:"active"`
	} `json:"hook_attributes"`
	RedirectURL        string            `json:"redirect_url"`
	Public             bool              `json:"public"`
	DefaultPermissions map[string]string `json:"default_permissions"`
	DefaultEvents      []string          `json:"default_events"`
}

// ManifestOwner is the account that registers Apps through the user form
// (/settings/apps/new), as the signed-in user on GitHub.
const ManifestOwner = "octocat"

// handleNewAppForm stands for GitHub's web page that takes the manifest:
// where a person confirms the App's name, GitHub redirects to redirect_url
// with a code and the state it was given. The fake skips the confirmation.
func (s *Server) handleNewAppForm(w http.ResponseWriter, r *http.Request) {
	var m appManifest
	if err := json.Unmarshal([]byte(r.PostFormValue("manifest")), &m); err != nil {
		http.Error(w, "Invalid GitHub App configuration: the manifest is not JSON: "+err.Error(), http.StatusUnprocessableEntity)
		return
	}
	redirect, err := url.Parse(m.RedirectURL)
	if m.Name == "" || m.URL == "" || err != nil || !redirect.IsAbs() {
		http.Error(w, "Invalid GitHub App configuration: name, url and an absolute redirect_url are required", http.StatusUnprocessableEntity)
		return
	}
	if m.HookAttributes.URL == "" {
		http.Error(w, "Invalid GitHub App configuration: hook_attributes.url is required", http.StatusUnprocessableEntity)
		return
	}
	code := randomHex(10)
	if s.manifestCodes == nil {
		s.manifestCodes = map[string]manifestCode{}
	}
	s.manifestCodes[code] = manifestCode{manifest: m, owner: r.PathValue("org"), issued: s.now()}
	q := redirect.Query()
	q.Set("code", code)
	if state := r.URL.Query().Get("state"); state != "" {
		q.Set("state", state)
	}
	redirect.RawQuery = q.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// handleManifestConversion implements POST /app-manifests/{code}/conversions.
// The App it creates becomes the fake's App: later JWTs must be signed with
// the key it hands out.
func (s *Server) handleManifestConversion(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	c, ok := s.manifestCodes[code]
	if !ok || s.now().Sub(c.issued) > manifestCodeLife {
		delete(s.manifestCodes, code)
		writeError(w, http.StatusNotFound, "Not Found", docManifest)
		return
	}
	delete(s.manifestCodes, code)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), "")
		return
	}
	s.nextID++
	s.appID, s.key, s.AppSlug = s.nextID, &key.PublicKey, slugify(c.manifest.Name)
	owner, ownerType := ManifestOwner, "User"
	if c.owner != "" {
		owner, ownerType = c.owner, "Organization"
	}
	app := s.appJSON()
	app["owner"] = userJSON(owner, ownerType)
	app["name"] = c.manifest.Name
	app["description"] = c.manifest.Description
	app["external_url"] = c.manifest.URL
	app["node_id"] = "A_" + randomHex(8)
	now := s.now().UTC().Format(time.RFC3339)
	app["created_at"], app["updated_at"] = now, now
	app["permissions"] = c.manifest.DefaultPermissions
	app["events"] = c.manifest.DefaultEvents
	app["client_id"] = "Iv1." + randomHex(8)
	app["client_secret"] = randomHex(20)
	app["webhook_secret"] = randomHex(20)
	app["pem"] = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	writeJSON(w, http.StatusCreated, app)
}

var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugify makes an App's slug from its name, as GitHub does.
func slugify(name string) string {
	return strings.Trim(notSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
