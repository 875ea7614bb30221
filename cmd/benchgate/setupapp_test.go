package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/ghapp"
	"github.com/benchgate/benchgate/docs"
	"github.com/benchgate/benchgate/internal/fakegithub"
	"github.com/benchgate/benchgate/internal/syncbuf"
)

const setupWebhook = "https://board.example.org/webhook"

// startSetup runs setup-app's handler against fake, writing into dir.
func startSetup(t *testing.T, fake *fakegithub.Server, dir, org string) (*appSetup, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	s, err := newAppSetup(appSetupOptions{WebhookURL: setupWebhook, Org: org, PublicURL: public,
		ConfigFile: filepath.Join(dir, "benchgate.yaml"), KeyFile: filepath.Join(dir, "benchgate.pem"),
		GitHubURL: fake.URL, GitHubAPIURL: fake.URL, HTTPClient: fake.Client()})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s}}
	ts.Start()
	t.Cleanup(ts.Close)
	return s, public
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

var (
	formAction   = regexp.MustCompile(`<form action="([^"]*)" method="post">`)
	formManifest = regexp.MustCompile(`name="manifest" value="([^"]*)"`)
)

// submitForm reads the setup page's form, posts it to the fake as the
// browser does, and returns the address GitHub sends the browser back to.
func submitForm(t *testing.T, fake *fakegithub.Server, public string) (action string, manifest map[string]any, back *url.URL) {
	t.Helper()
	status, page := get(t, public+"/")
	a, m := formAction.FindStringSubmatch(page), formManifest.FindStringSubmatch(page)
	if status != http.StatusOK || a == nil || m == nil {
		t.Fatalf("GET /: %d, no form with a manifest:\n%s", status, page)
	}
	action = html.UnescapeString(a[1])
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &manifest); err != nil {
		t.Fatalf("the form's manifest: %v", err)
	}
	client := fake.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := client.PostForm(action, url.Values{"manifest": {html.UnescapeString(m[1])}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	back, err = url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil {
		t.Fatalf("posting the form to %s: %d %v", action, res.StatusCode, err)
	}
	return action, manifest, back
}

func newFake(t *testing.T) *fakegithub.Server {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return fakegithub.New(t, 1, &key.PublicKey)
}

// TestSetupAppFlow: GET / gives a form posting docs/app-manifest.json with
// this setup's addresses and a state to GitHub; an answer with another
// state is refused and spends nothing; the right one writes the key and a
// configuration (0600 each) that bot's loader accepts and with which the
// App authenticates as the App GitHub created; the page says how to
// install it; the setup is then over.
func TestSetupAppFlow(t *testing.T) {
	fake := newFake(t)
	dir := t.TempDir()
	s, public := startSetup(t, fake, dir, "")
	action, manifest, back := submitForm(t, fake, public)

	state := back.Query().Get("state")
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(state) || action != fake.URL+"settings/apps/new?state="+state {
		t.Errorf("form action %s, state %q: want %ssettings/apps/new with a random state", action, state, fake.URL)
	}
	var want map[string]any
	if err := json.Unmarshal(docs.AppManifest, &want); err != nil {
		t.Fatal(err)
	}
	hook, _ := manifest["hook_attributes"].(map[string]any)
	if hook["url"] != setupWebhook || manifest["redirect_url"] != public+"/callback" || manifest["public"] != false || manifest["name"] != want["name"] {
		t.Errorf("manifest %v: want the webhook %s, redirect_url %s/callback, public false", manifest, setupWebhook, public)
	}
	for _, k := range []string{"default_permissions", "default_events"} {
		if !reflect.DeepEqual(manifest[k], want[k]) {
			t.Errorf("manifest %s %v, want docs/app-manifest.json's %v", k, manifest[k], want[k])
		}
	}

	forged := *back
	q := forged.Query()
	q.Set("state", strings.Repeat("0", 32))
	forged.RawQuery = q.Encode()
	if status, page := get(t, forged.String()); status != http.StatusBadRequest || !strings.Contains(page, "state") {
		t.Errorf("a wrong state: %d\n%s", status, page)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a wrong state wrote %v", entries)
	}

	status, page := get(t, back.String())
	if status != http.StatusOK {
		t.Fatalf("callback: %d\n%s", status, page)
	}
	install := "https://github.com/apps/" + fake.AppSlug + "/installations/new"
	cfgPath := filepath.Join(dir, "benchgate.yaml")
	if !strings.Contains(page, install) || !strings.Contains(page, "benchgate serve --config "+cfgPath) {
		t.Errorf("the page lacks the install link %s or the serve command:\n%s", install, page)
	}
	for _, f := range []string{cfgPath, filepath.Join(dir, "benchgate.pem")} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", f, fi.Mode().Perm())
		}
	}
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	getenv, err := bot.WithFile(func(string) string { return "" }, data, cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := bot.LoadConfig(getenv, os.ReadFile)
	if err != nil {
		t.Fatalf("the written configuration does not load: %v\n%s", err, data)
	}
	block, _ := pem.Decode(cfg.PrivateKey)
	if block == nil {
		t.Fatal("the private key is not PEM")
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
		t.Fatalf("the private key: %v", err)
	}
	if cfg.GitHubAPIURL != fake.URL {
		t.Errorf("github_api_url %q, want the API setup-app used, %s", cfg.GitHubAPIURL, fake.URL)
	}
	if len(cfg.WebhookSecrets) != 1 || len(cfg.WebhookSecrets[0]) < 20 {
		t.Errorf("webhook secrets %q", cfg.WebhookSecrets)
	}
	app, err := ghapp.New(ghapp.Config{AppID: cfg.AppID, PrivateKey: cfg.PrivateKey, BaseURL: fake.URL, HTTPClient: fake.Client()})
	if err != nil {
		t.Fatal(err)
	}
	id, err := app.Identify(context.Background())
	if err != nil || id.AppID != cfg.AppID || id.Slug != fake.AppSlug {
		t.Errorf("the App as configured: %+v %v, want id %d, slug %s", id, err, cfg.AppID, fake.AppSlug)
	}
	select {
	case <-s.Done():
	default:
		t.Error("the setup is not done")
	}
	if status, _ := get(t, back.String()); status != http.StatusConflict {
		t.Errorf("a second callback after the setup: %d, want 409", status)
	}
}

// TestSetupAppUsedCode: a code GitHub has already converted gives a page
// saying that a code works once, and writes nothing.
func TestSetupAppUsedCode(t *testing.T) {
	fake := newFake(t)
	first, second := t.TempDir(), t.TempDir()
	_, public := startSetup(t, fake, first, "")
	_, _, back := submitForm(t, fake, public)
	if status, page := get(t, back.String()); status != http.StatusOK {
		t.Fatalf("callback: %d\n%s", status, page)
	}
	// A second setup handed the spent code with its own state.
	s2, public2 := startSetup(t, fake, second, "")
	status, page := get(t, public2+"/callback?code="+url.QueryEscape(back.Query().Get("code"))+"&state="+s2.state)
	if status != http.StatusBadGateway || !strings.Contains(page, "a code works once and for an hour") {
		t.Errorf("a used code: %d\n%s", status, page)
	}
	if entries, _ := os.ReadDir(second); len(entries) != 0 {
		t.Errorf("a used code wrote %v", entries)
	}
}

// TestSetupAppKeepsExistingFiles: setup-app refuses to start over an
// existing configuration or key, and a file that appears while the page
// is open is left alone, with the code not spent.
func TestSetupAppKeepsExistingFiles(t *testing.T) {
	fake := newFake(t)
	for _, name := range []string{"benchgate.yaml", "benchgate.pem"} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, name), []byte("mine\n"), 0o644)
		_, err := newAppSetup(appSetupOptions{WebhookURL: setupWebhook, PublicURL: "http://localhost:3000", ConfigFile: filepath.Join(dir, "benchgate.yaml"), KeyFile: filepath.Join(dir, "benchgate.pem"), GitHubURL: fake.URL})
		if err == nil || !strings.Contains(err.Error(), "never overwrites") {
			t.Errorf("%s exists: %v", name, err)
		}
	}

	dir := t.TempDir()
	_, public := startSetup(t, fake, dir, "acme")
	action, _, back := submitForm(t, fake, public)
	if !strings.HasPrefix(action, fake.URL+"organizations/acme/settings/apps/new?state=") {
		t.Errorf("--org acme: the form posts to %s", action)
	}
	key := filepath.Join(dir, "benchgate.pem")
	os.WriteFile(key, []byte("mine\n"), 0o644)
	if status, page := get(t, back.String()); status != http.StatusConflict || !strings.Contains(page, "never overwrites") {
		t.Errorf("a key that appeared: %d\n%s", status, page)
	}
	if b, _ := os.ReadFile(key); string(b) != "mine\n" {
		t.Errorf("the key was overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "benchgate.yaml")); err == nil {
		t.Error("a configuration was written beside someone else's key")
	}
	res, err := fake.Client().Post(fake.URL+"app-manifests/"+back.Query().Get("code")+"/conversions", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Errorf("the code was spent by the refused callback: %d", res.StatusCode)
	}
}

// TestSetupAppNeedsWebhookURL: without --webhook-url setup-app says what
// to give, and exits 2.
func TestSetupAppNeedsWebhookURL(t *testing.T) {
	code, _, stderr := runCLI(t, "setup-app", "--listen", "127.0.0.1:0", "--config", filepath.Join(t.TempDir(), "c.yaml"))
	if code != exitUsage || !strings.Contains(stderr, "--webhook-url is required") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

// TestSetupAppCommand runs the command itself: it prints the page's
// address, serves the flow, and once the files are written says how to
// install and run the App, and exits 0.
func TestSetupAppCommand(t *testing.T) {
	fake := newFake(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "app.yaml")
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- runSetupApp([]string{"--webhook-url", setupWebhook, "--listen", "127.0.0.1:0", "--config", cfgPath, "--key", filepath.Join(dir, "app.pem"), "--github-url", fake.URL, "--github-api-url", fake.URL}, &stdout, &stderr)
	}()
	open := regexp.MustCompile(`Open (http://127\.0\.0\.1:[0-9]+)/ in a browser`)
	var public string
	for deadline := time.Now().Add(10 * time.Second); public == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := open.FindStringSubmatch(stdout.String()); m != nil {
			public = m[1]
		}
	}
	if public == "" {
		t.Fatalf("no address printed:\n%s%s", stdout.String(), stderr.String())
	}
	_, _, back := submitForm(t, fake, public)
	if status, page := get(t, back.String()); status != http.StatusOK {
		t.Fatalf("callback: %d\n%s", status, page)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("setup-app did not stop once the App was created")
	}
	if out := stdout.String(); !strings.Contains(out, "/installations/new") || !strings.Contains(out, "benchgate serve --config "+cfgPath) {
		t.Errorf("the closing words lack the install link or the serve command:\n%s", out)
	}
}

// TestSetupAppLoopbackOnly: the setup page is reachable from this machine
// only. A --listen that other machines could reach, or a --url on another
// host, is refused before anything listens.
func TestSetupAppLoopbackOnly(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ flag, value, want string }{
		{"--listen", ":0", "reachable from other machines"},
		{"--listen", "0.0.0.0:0", "reachable from other machines"},
		{"--listen", "[::]:0", "reachable from other machines"},
		{"--listen", "192.0.2.7:3000", "reachable from other machines"},
		{"--listen", "3000", "not HOST:PORT"},
		{"--url", "http://setup.example.org:3000", "not on this machine"},
	} {
		args := []string{"setup-app", "--webhook-url", setupWebhook, "--config", filepath.Join(dir, "c.yaml"), "--key", filepath.Join(dir, "k.pem"), "--listen", "127.0.0.1:0"}
		code, _, stderr := runCLI(t, append(args, tc.flag, tc.value)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s %s: exit %d, want %d saying %q\n%s", tc.flag, tc.value, code, exitUsage, tc.want, stderr)
		}
	}
	for host, want := range map[string]bool{"localhost": true, "LOCALHOST": true, "127.0.0.1": true, "127.0.0.2": true, "[::1]": true, "::1": true,
		"": false, "0.0.0.0": false, "::": false, "localhost.evil.example": false, "192.0.2.7": false} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v", host, got)
		}
	}
}

// TestSetupAppHostCheck: a page whose name resolves to 127.0.0.1 (DNS
// rebinding) reaches the setup's port, but the browser sends its own name
// as Host: neither the start page, with the state, nor the callback
// answers it, and nothing is written. The loopback names with the port
// are answered, and each run has a state of its own, which the callback
// requires.
func TestSetupAppHostCheck(t *testing.T) {
	fake := newFake(t)
	dir := t.TempDir()
	s, public := startSetup(t, fake, dir, "")
	_, _, back := submitForm(t, fake, public)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(public, "http://"))
	getHost := func(u, host string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, host := range []string{"rebind.evil.example:" + port, "rebind.evil.example", "127.0.0.1.evil.example:" + port, "localhost:1"} {
		for _, u := range []string{public + "/", back.String()} {
			status, page := getHost(u, host)
			if status != http.StatusMisdirectedRequest || strings.Contains(page, s.state) || !strings.Contains(page, "answers only at localhost") {
				t.Errorf("Host %s, %s: %d, want 421 without the state\n%s", host, u, status, page)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a callback under another Host wrote %v", entries)
	}
	for _, host := range []string{"localhost:" + port, "[::1]:" + port} {
		if status, page := getHost(public+"/", host); status != http.StatusOK || !strings.Contains(page, s.state) {
			t.Errorf("Host %s: %d, want the start page", host, status)
		}
	}
	noState := *back
	q := noState.Query()
	q.Del("state")
	noState.RawQuery = q.Encode()
	if status, _ := get(t, noState.String()); status != http.StatusBadRequest {
		t.Errorf("a callback without the state: %d, want 400", status)
	}
	other, err := newAppSetup(appSetupOptions{WebhookURL: setupWebhook, PublicURL: public, ConfigFile: filepath.Join(dir, "other.yaml"), KeyFile: filepath.Join(dir, "other.pem"), GitHubURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	if other.state == s.state {
		t.Errorf("two runs share the state %s", s.state)
	}
	if status, _ := getHost(back.String(), "localhost:"+port); status != http.StatusOK {
		t.Errorf("the callback under localhost:%s: %d, want 200", port, status)
	}
}

// TestBrowserAddr: the address printed for each form of --listen.
func TestBrowserAddr(t *testing.T) {
	bound := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 41234}
	for listen, want := range map[string]string{
		"localhost:3000": "localhost:3000",
		"127.0.0.1:0":    "127.0.0.1:41234",
		"[::1]:3000":     "[::1]:3000",
	} {
		if got := browserAddr(listen, bound); got != want {
			t.Errorf("%s: %s, want %s", listen, got, want)
		}
	}
}

// TestAPIURLForWeb: the API of each kind of GitHub host.
func TestAPIURLForWeb(t *testing.T) {
	for web, want := range map[string]string{
		"https://github.com/":         "https://api.github.com/",
		"https://octo.ghe.com/":       "https://api.octo.ghe.com/",
		"https://github.example.org/": "https://github.example.org/api/v3/",
	} {
		u, _ := url.Parse(web)
		if got := apiURLForWeb(u); got != want {
			t.Errorf("%s: %s, want %s", web, got, want)
		}
	}
}
