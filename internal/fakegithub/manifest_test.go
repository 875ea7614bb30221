package fakegithub

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// postManifest posts a manifest form as a browser does and returns the
// redirect GitHub answers with.
func postManifest(t *testing.T, s *Server, path, manifest, state string) *url.URL {
	t.Helper()
	client := s.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := client.PostForm(s.URL+path+"?state="+url.QueryEscape(state), url.Values{"manifest": {manifest}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("POST %s: %d, want 302", path, res.StatusCode)
	}
	u, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func convert(t *testing.T, s *Server, code string) (int, map[string]any) {
	t.Helper()
	res, err := s.Client().Post(s.URL+"app-manifests/"+url.PathEscape(code)+"/conversions", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, body
}

const testManifest = `{"name":"My Board Checks","url":"https://example.org","hook_attributes":{"url":"https://hooks.example.org/webhook"},"redirect_url":"http://localhost:3000/callback?x=1","public":false,"default_permissions":{"checks":"write"},"default_events":["check_run"]}`

// TestManifestFlow: the form redirects to redirect_url with a code and the
// state; the conversion answers 201 with the documented fields, once; the
// App it creates is the one the fake then authenticates.
func TestManifestFlow(t *testing.T) {
	s := New(t, testAppID, &testKey().PublicKey)
	loc := postManifest(t, s, "organizations/acme/settings/apps/new", testManifest, "st4te")
	if loc.Host != "localhost:3000" || loc.Path != "/callback" || loc.Query().Get("state") != "st4te" || loc.Query().Get("x") != "1" {
		t.Fatalf("redirect %s: want redirect_url with its query, the state and a code", loc)
	}
	code := loc.Query().Get("code")
	if code == "" {
		t.Fatalf("redirect %s has no code", loc)
	}
	status, app := convert(t, s, code)
	if status != http.StatusCreated {
		t.Fatalf("conversion: %d %v, want 201", status, app)
	}
	for _, f := range []string{"id", "slug", "pem", "webhook_secret", "client_id", "client_secret", "html_url"} {
		if app[f] == nil || app[f] == "" {
			t.Errorf("conversion lacks %s: %v", f, app)
		}
	}
	if app["slug"] != "my-board-checks" || app["html_url"] != "https://github.com/apps/my-board-checks" {
		t.Errorf("slug %v, html_url %v", app["slug"], app["html_url"])
	}
	if owner, _ := app["owner"].(map[string]any); owner["login"] != "acme" || owner["type"] != "Organization" {
		t.Errorf("owner %v, want the organization acme", owner)
	}
	block, _ := pem.Decode([]byte(app["pem"].(string)))
	if block == nil {
		t.Fatal("pem is not PEM")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	slug, id, current := s.AppSlug, s.appID, s.key
	s.mu.Unlock()
	if slug != "my-board-checks" || id != int64(app["id"].(float64)) || !current.Equal(&key.PublicKey) {
		t.Errorf("the fake's App is %s %d, want the converted one", slug, id)
	}
	if status, body := convert(t, s, code); status != http.StatusNotFound {
		t.Errorf("second conversion of one code: %d %v, want 404", status, body)
	}
	if status, _ := convert(t, s, "nosuchcode"); status != http.StatusNotFound {
		t.Errorf("unknown code: %d, want 404", status)
	}
}

// TestManifestCodeExpires: a code older than an hour is refused.
func TestManifestCodeExpires(t *testing.T) {
	s := New(t, testAppID, &testKey().PublicKey)
	now := time.Now()
	s.SetClock(func() time.Time { return now })
	code := postManifest(t, s, "settings/apps/new", testManifest, "s").Query().Get("code")
	now = now.Add(time.Hour + time.Second)
	if status, _ := convert(t, s, code); status != http.StatusNotFound {
		t.Errorf("a code past its hour: %d, want 404", status)
	}
}

// TestManifestFormRefusesBadManifest: a manifest without a redirect_url or
// hook URL is refused, not turned into a code.
func TestManifestFormRefusesBadManifest(t *testing.T) {
	s := New(t, testAppID, &testKey().PublicKey)
	for _, m := range []string{`not json`, strings.Replace(testManifest, `"redirect_url":"http://localhost:3000/callback?x=1",`, "", 1), strings.Replace(testManifest, `"url":"https://hooks.example.org/webhook"`, `"active":true`, 1)} {
		res, err := s.Client().PostForm(s.URL+"settings/apps/new", url.Values{"manifest": {m}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("manifest %s: %d, want 422", m, res.StatusCode)
		}
	}
}
