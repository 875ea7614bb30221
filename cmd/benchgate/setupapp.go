package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-github/v60/github"
	"gopkg.in/yaml.v3"

	"github.com/benchgate/benchgate/docs"
)

// setup-app is a command of its own rather than a mode of serve: serve
// cannot start without the App's id, key and webhook secret, which this
// flow is there to create, and the setup page should listen only for the
// few minutes it takes, on an address of its own, and then stop.
func runSetupApp(args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("setup-app", "--webhook-url https://HOST/webhook [--org ORG] [--listen localhost:3000] [--config FILE] [--key FILE]", stderr)
	webhook := fl.String("webhook-url", "", "the public address GitHub delivers webhooks to: where benchgate serve will answer /webhook (required)")
	org := fl.String("org", "", "create the App in this organization (default: in your own account)")
	name := fl.String("name", "", "the App's name, unique on GitHub (default: the manifest's)")
	listen := fl.String("listen", "localhost:3000", "where this setup page listens: a loopback address (localhost, 127.0.0.1 or [::1]) and a port")
	public := fl.String("url", "", "this setup page's address as your browser reaches it, on this machine (default: http:// and --listen; another port for a forwarded one)")
	configFile := fl.String("config", "benchgate.yaml", "the configuration file to write, for benchgate serve --config")
	keyFile := fl.String("key", "benchgate.private-key.pem", "the file to write the App's private key to")
	webURL := fl.String("github-url", "https://github.com/", "GitHub's web address (GitHub Enterprise: https://HOST/)")
	apiURL := fl.String("github-api-url", "", "GitHub's REST API (default: derived from --github-url, as for BENCHGATE_GITHUB_API_URL)")
	if pos, err := parseInterleaved(fl, args); err != nil {
		return flagError(err)
	} else if len(pos) > 0 {
		return usageError(fl, nil)
	}
	if err := loopbackListen(*listen); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return setupError(fmt.Errorf("cannot listen on %s (--listen): %v", *listen, err))
	}
	defer ln.Close()
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		return &exitError{code: exitUsage, err: fmt.Errorf("--listen %s is bound to %s, which is not a loopback address; give --listen 127.0.0.1:PORT", *listen, ln.Addr())}
	}
	if *public == "" {
		*public = "http://" + browserAddr(*listen, ln.Addr())
	}
	s, err := newAppSetup(appSetupOptions{WebhookURL: *webhook, Org: *org, Name: *name, PublicURL: *public, Listen: ln.Addr().String(), ConfigFile: *configFile, KeyFile: *keyFile, GitHubURL: *webURL, GitHubAPIURL: *apiURL})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "Open %s/ in a browser to create the GitHub App (Ctrl-C to stop).\n", strings.TrimSuffix(*public, "/"))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		select {
		case <-s.Done():
		case <-ctx.Done():
		}
		shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	select {
	case <-s.Done():
		fmt.Fprintf(stdout, "Wrote %s and %s. Install the App: %s\nThen run: benchgate serve --config %s\n", s.opt.ConfigFile, s.opt.KeyFile, s.installURL, s.opt.ConfigFile)
		return nil
	default:
		return errors.New("stopped before the App was created; nothing was written")
	}
}

// browserAddr is the address a browser on this machine reaches listen at:
// as given, with the chosen port for 0.
func browserAddr(listen string, bound net.Addr) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return bound.String()
	}
	if port == "0" {
		_, port, _ = net.SplitHostPort(bound.String())
	}
	return net.JoinHostPort(host, port)
}

// The setup page holds the state that lets an answer from GitHub through
// and takes the App's credentials: only this machine may reach it. Bound
// to the loopback, no other machine can; the Host check stops a web page
// whose name is made to resolve to 127.0.0.1 (DNS rebinding) from reading
// the page, its state or the callback through the browser.

// loopbackListen refuses a --listen address that other machines could
// reach: its host must be localhost or a loopback IP, never empty (every
// interface).
func loopbackListen(listen string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen %q is not HOST:PORT: %v", listen, err)
	}
	if !loopbackHost(host) {
		return fmt.Errorf("--listen %q is reachable from other machines; the setup page listens on the loopback only (localhost:PORT, 127.0.0.1:PORT or [::1]:PORT). On a remote machine, forward the port: ssh -L 3000:localhost:3000 HOST", listen)
	}
	return nil
}

// loopbackHost reports whether host names this machine's loopback
// interface: localhost or a loopback IP.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// appSetupOptions configure the manifest flow.
type appSetupOptions struct {
	WebhookURL   string // the App's webhook address (hook_attributes.url)
	Org          string // the organization to own the App; "" for the user
	Name         string // the App's name; "" for the manifest's
	PublicURL    string // this server's address, as the browser reaches it: a loopback one
	Listen       string // the address it is bound to, HOST:PORT
	ConfigFile   string // the YAML configuration to write
	KeyFile      string // the private key to write
	GitHubURL    string // GitHub's web address, where the form posts
	GitHubAPIURL string // GitHub's REST API; "" derives it from GitHubURL
	HTTPClient   *http.Client
}

// appSetup serves GitHub's App-manifest flow: GET / posts the manifest to
// GitHub with a random state; GitHub sends the browser back to /callback
// with a code, which is exchanged once for the App's credentials.
type appSetup struct {
	opt      appSetupOptions
	manifest []byte // the manifest, with this setup's addresses
	action   string // where the form posts, with the state
	state    string
	hosts    map[string]bool // the Host headers this page answers
	client   *github.Client

	mu         sync.Mutex // one exchange at a time: a code works once
	done       chan struct{}
	installURL string
}

func newAppSetup(opt appSetupOptions) (*appSetup, error) {
	if opt.WebhookURL == "" {
		return nil, errors.New("--webhook-url is required: the public https address where benchgate serve will answer /webhook, such as https://benchgate.example.org/webhook")
	}
	if u, err := url.Parse(opt.WebhookURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("--webhook-url %q is not an http(s) address", opt.WebhookURL)
	}
	public, err := url.Parse(strings.TrimSuffix(opt.PublicURL, "/"))
	if err != nil || (public.Scheme != "https" && public.Scheme != "http") || public.Host == "" {
		return nil, fmt.Errorf("--url %q is not an http(s) address", opt.PublicURL)
	}
	if !loopbackHost(public.Hostname()) {
		return nil, fmt.Errorf("--url %q is not on this machine; the setup page answers only at localhost, 127.0.0.1 or [::1] (forward the port: ssh -L 3000:localhost:3000 HOST)", opt.PublicURL)
	}
	hosts, err := setupHosts(public, opt.Listen)
	if err != nil {
		return nil, err
	}
	web, err := url.Parse(opt.GitHubURL)
	if err != nil || (web.Scheme != "https" && web.Scheme != "http") || web.Host == "" {
		return nil, fmt.Errorf("--github-url %q is not an http(s) address", opt.GitHubURL)
	}
	if !strings.HasSuffix(web.Path, "/") {
		web.Path += "/"
	}
	if opt.GitHubAPIURL == "" {
		opt.GitHubAPIURL = apiURLForWeb(web)
	}
	api, err := url.Parse(opt.GitHubAPIURL)
	if err != nil || (api.Scheme != "https" && api.Scheme != "http") || api.Host == "" {
		return nil, fmt.Errorf("--github-api-url %q is not an http(s) address", opt.GitHubAPIURL)
	}
	if !strings.HasSuffix(api.Path, "/") {
		api.Path += "/"
	}
	for _, f := range []string{opt.ConfigFile, opt.KeyFile} {
		if err := refuseExisting(f); err != nil {
			return nil, err
		}
	}
	var m map[string]any
	if err := json.Unmarshal(docs.AppManifest, &m); err != nil {
		return nil, fmt.Errorf("docs/app-manifest.json: %v", err)
	}
	if opt.Name != "" {
		m["name"] = opt.Name
	}
	hook, _ := m["hook_attributes"].(map[string]any)
	if hook == nil {
		hook = map[string]any{"active": true}
	}
	hook["url"] = opt.WebhookURL
	m["hook_attributes"] = hook
	m["redirect_url"] = public.String() + "/callback"
	m["public"] = false
	manifest, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	state := make([]byte, 16)
	rand.Read(state)
	s := &appSetup{opt: opt, manifest: manifest, state: hex.EncodeToString(state), hosts: hosts, done: make(chan struct{})}
	path := "settings/apps/new"
	if opt.Org != "" {
		path = "organizations/" + url.PathEscape(opt.Org) + "/settings/apps/new"
	}
	s.action = web.String() + path + "?state=" + s.state
	s.client = github.NewClient(opt.HTTPClient)
	s.client.BaseURL = api
	return s, nil
}

// setupHosts lists the Host headers the setup page answers: localhost,
// 127.0.0.1 and [::1] with the port of the page's address and of the one
// it is bound to (they differ behind a forwarded port), and the page's
// host itself.
func setupHosts(public *url.URL, listen string) (map[string]bool, error) {
	ports := []string{public.Port()}
	if ports[0] == "" {
		ports[0] = map[string]string{"http": "80", "https": "443"}[public.Scheme]
	}
	if listen != "" {
		_, port, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("the setup page's address %q is not HOST:PORT: %v", listen, err)
		}
		ports = append(ports, port)
	}
	hosts := map[string]bool{strings.ToLower(public.Host): true}
	for _, port := range ports {
		for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
			hosts[net.JoinHostPort(h, port)] = true
		}
	}
	return hosts, nil
}

// apiURLForWeb gives the REST API of a GitHub web address, as GitHub lays
// them out: github.com's is api.github.com, SUBDOMAIN.ghe.com's
// api.SUBDOMAIN.ghe.com, a GitHub Enterprise Server's HOST/api/v3/.
func apiURLForWeb(web *url.URL) string {
	switch {
	case web.Host == "github.com":
		return "https://api.github.com/"
	case strings.HasSuffix(web.Host, ".ghe.com"):
		return web.Scheme + "://api." + web.Host + "/"
	default:
		return web.Scheme + "://" + web.Host + "/api/v3/"
	}
}

// refuseExisting fails when path exists: setup never overwrites a key or
// a configuration.
func refuseExisting(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists: setup-app never overwrites a file; move it away or name another with --config / --key", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Done is closed once the App is created and its files written.
func (s *appSetup) Done() <-chan struct{} { return s.done }

func (s *appSetup) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hosts[strings.ToLower(r.Host)] {
		s.fail(w, http.StatusMisdirectedRequest, "This setup page answers only at localhost, 127.0.0.1 or [::1] on its port, not at "+r.Host+": open the address benchgate setup-app printed.")
		return
	}
	switch {
	case r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		s.page(w, http.StatusOK, startPage, map[string]any{"Action": s.action, "Manifest": string(s.manifest), "Org": s.opt.Org, "Webhook": s.opt.WebhookURL})
	case r.URL.Path == "/callback" && r.Method == http.MethodGet:
		s.callback(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *appSetup) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(s.state)) != 1 {
		s.fail(w, http.StatusBadRequest, "This answer does not carry the state this setup sent, so it may not come from your visit to GitHub; nothing was done. Start again from the setup page.")
		return
	}
	code := q.Get("code")
	if code == "" {
		s.fail(w, http.StatusBadRequest, "GitHub sent no code; start again from the setup page.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		s.fail(w, http.StatusConflict, "The App is already created and its files written; this setup is over.")
		return
	default:
	}
	// Checked again: the files may have appeared since the start, and the
	// code must not be spent when they cannot be written.
	for _, f := range []string{s.opt.ConfigFile, s.opt.KeyFile} {
		if err := refuseExisting(f); err != nil {
			s.fail(w, http.StatusConflict, err.Error()+". The App was not created; start again once it is moved.")
			return
		}
	}
	app, _, err := s.client.Apps.CompleteAppManifest(r.Context(), code)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			s.fail(w, http.StatusBadGateway, "GitHub does not know this code: a code works once and for an hour. If the App was created anyway, delete it on its settings page; then start again from the setup page.")
			return
		}
		s.fail(w, http.StatusBadGateway, fmt.Sprintf("Asking GitHub for the App's credentials failed: %v. Start again from the setup page.", err))
		return
	}
	if app.GetID() == 0 || app.GetPEM() == "" || app.GetWebhookSecret() == "" {
		s.fail(w, http.StatusBadGateway, "GitHub's answer lacks the App's id, private key or webhook secret; nothing was written.")
		return
	}
	if err := s.write(app); err != nil {
		s.fail(w, http.StatusInternalServerError, fmt.Sprintf("The App %s (id %d) was created, but %v. Generate a private key and a webhook secret on its settings page (%s) and write the configuration by hand (docs/github-app.md).", app.GetSlug(), app.GetID(), err, app.GetHTMLURL()))
		return
	}
	s.installURL = strings.TrimSuffix(app.GetHTMLURL(), "/") + "/installations/new"
	s.page(w, http.StatusOK, donePage, map[string]any{"Slug": app.GetSlug(), "ID": app.GetID(), "Install": s.installURL, "Config": s.opt.ConfigFile, "Key": s.opt.KeyFile})
	close(s.done)
}

// setupFile is the configuration setup-app writes, in the keys of
// bot.WithFile.
type setupFile struct {
	AppID          int64  `yaml:"app_id"`
	PrivateKeyFile string `yaml:"private_key_file"`
	WebhookSecret  string `yaml:"webhook_secret"`
	GitHubAPIURL   string `yaml:"github_api_url,omitempty"` // GitHub Enterprise's; github.com's is the default
}

// write writes the key, then the configuration naming it, each new and
// readable by its owner only.
func (s *appSetup) write(app *github.AppConfig) error {
	key, err := filepath.Abs(s.opt.KeyFile)
	if err != nil {
		return err
	}
	if err := writeNew(s.opt.KeyFile, []byte(app.GetPEM())); err != nil {
		return err
	}
	f := setupFile{AppID: app.GetID(), PrivateKeyFile: key, WebhookSecret: app.GetWebhookSecret()}
	if api := s.client.BaseURL.String(); api != "https://api.github.com/" {
		f.GitHubAPIURL = api
	}
	data, err := yaml.Marshal(f)
	if err != nil {
		return err
	}
	header := fmt.Sprintf("# The GitHub App %s, created by benchgate setup-app; for benchgate serve --config.\n", app.GetSlug())
	return writeNew(s.opt.ConfigFile, append([]byte(header), data...))
}

// writeNew creates path with mode 0600, failing if it exists.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s appeared meanwhile and was left alone", path)
		}
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	return nil
}

func (s *appSetup) fail(w http.ResponseWriter, status int, msg string) {
	s.page(w, status, failPage, map[string]any{"Message": msg})
}

func (s *appSetup) page(w http.ResponseWriter, status int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// The page is not framed by another, and the callback's address,
	// which carries the code and the state, is not sent on as a referrer.
	w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	t.Execute(w, data)
}

const pageHead = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>benchgate setup</title></head><body>`

var startPage = template.Must(template.New("start").Parse(pageHead + `
<h1>Create the benchgate GitHub App</h1>
<p>GitHub will ask you to confirm the App's name{{if .Org}} in the organization <b>{{.Org}}</b>{{else}} in your account{{end}}; it will deliver webhooks to <code>{{.Webhook}}</code>.</p>
<form action="{{.Action}}" method="post">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the App on GitHub</button>
</form>
</body></html>
`))

var donePage = template.Must(template.New("done").Parse(pageHead + `
<h1>The App {{.Slug}} (id {{.ID}}) is created</h1>
<p>Its private key is in <code>{{.Key}}</code> and its configuration in <code>{{.Config}}</code>, both readable by you only.</p>
<ol>
<li><a href="{{.Install}}">Install the App</a> on the leaderboard repository (choose <i>Only select repositories</i>).</li>
<li>Start it: <code>benchgate serve --config {{.Config}}</code></li>
</ol>
<p>This setup page has stopped.</p>
</body></html>
`))

var failPage = template.Must(template.New("fail").Parse(pageHead + `
<h1>The App was not set up</h1>
<p>{{.Message}}</p>
<p><a href="/">Back to the setup page</a></p>
</body></html>
`))
