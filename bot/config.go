package bot

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/reproduce"
)

// RerunPolicy is when the App spot-checks a submission
// (BENCHGATE_RERUN_POLICY).
type RerunPolicy string

// The rerun policies.
const (
	RerunCommand RerunPolicy = "command" // when a maintainer asks with /benchgate rerun (the default)
	RerunAuto    RerunPolicy = "auto"    // every submission that verifies, at once
)

// PublishMode is how the App publishes the leaderboard
// (BENCHGATE_PUBLISH).
type PublishMode string

// The publish modes.
const (
	PublishPush PublishMode = "push" // pushed to the branch (the default)
	PublishPR   PublishMode = "pr"   // proposed in a pull request, for protected branches
)

// Config is the App's configuration, read by LoadConfig from the settings
// of the table in settings.go (each field's variable is named below; its
// default and meaning are the table's); a value that is missing or wrong
// stops the start with a message saying which and how to fix it.
type Config struct {
	AppID          int64    // BENCHGATE_APP_ID
	PrivateKey     []byte   // BENCHGATE_PRIVATE_KEY_FILE, or BENCHGATE_PRIVATE_KEY (PEM)
	WebhookSecrets [][]byte // BENCHGATE_WEBHOOK_SECRET, comma-separated for rotation
	DatabaseURL    string   // BENCHGATE_DATABASE_URL: sqlite:PATH or postgres://…
	Listen         string   // BENCHGATE_LISTEN
	GitHubAPIURL   string   // BENCHGATE_GITHUB_API_URL, with its final slash
	GitURL         string   // BENCHGATE_GIT_URL: where repositories are cloned from, with its final slash
	JudgeBaseURL   string   // BENCHGATE_JUDGE_BASE_URL
	JudgeAPIKey    string   // BENCHGATE_JUDGE_API_KEY
	// JudgeTimeout bounds one judge call (BENCHGATE_JUDGE_TIMEOUT); a
	// call past it is retried, then counted as a fault.
	JudgeTimeout time.Duration
	// JudgeAzureAPIVersion selects Azure OpenAI for the judge
	// (BENCHGATE_JUDGE_AZURE_API_VERSION); JudgeBaseURL is then the
	// resource endpoint.
	JudgeAzureAPIVersion string
	// JudgeDeployments maps judge ids to Azure deployments
	// (BENCHGATE_JUDGE_DEPLOYMENTS, MODEL=DEPLOYMENT,...).
	JudgeDeployments map[string]string
	// JudgeTokenParam is the field carrying the judge's token limit
	// (BENCHGATE_JUDGE_TOKEN_PARAM: max_tokens or max_completion_tokens;
	// empty chooses by the model id).
	JudgeTokenParam string
	// JudgePriceInput and JudgePriceOutput are the judge's USD per million
	// prompt and completion tokens (BENCHGATE_JUDGE_PRICE_INPUT,
	// BENCHGATE_JUDGE_PRICE_OUTPUT): the spend of an endpoint that does
	// not report its cost, which the daily budget needs.
	JudgePriceInput, JudgePriceOutput *float64
	// JudgePriceCachedInput is the judge's USD per million prompt tokens
	// read from the provider's prompt cache
	// (BENCHGATE_JUDGE_PRICE_CACHED_INPUT; without it they cost the input
	// price).
	JudgePriceCachedInput *float64
	// The candidate endpoint, which /benchgate reproduce asks for the
	// model a submission names, set as the judge's is. It is configured
	// when CandidateBaseURL is set: by BENCHGATE_CANDIDATE_BASE_URL, or to
	// OpenRouter's (reproduce.DefaultBaseURL) when only a key is given.
	CandidateBaseURL string
	// CandidateAPIKey is BENCHGATE_CANDIDATE_API_KEY, or the content of
	// the file BENCHGATE_CANDIDATE_API_KEY_FILE names.
	CandidateAPIKey string
	// CandidateTimeout bounds one candidate call
	// (BENCHGATE_CANDIDATE_TIMEOUT).
	CandidateTimeout time.Duration
	// CandidateModels maps the model ids submissions name to the ids the
	// endpoint serves them under (BENCHGATE_CANDIDATE_MODELS,
	// ID=SERVED,...), adding to each benchmark's reproduce_models.
	CandidateModels map[string]string
	// CandidatePriceInput, CandidatePriceOutput and
	// CandidatePriceCachedInput are the candidate's USD per million
	// tokens (BENCHGATE_CANDIDATE_PRICE_INPUT, _OUTPUT, _CACHED_INPUT),
	// as the judge's prices are.
	CandidatePriceInput, CandidatePriceOutput, CandidatePriceCachedInput *float64

	RerunPolicy RerunPolicy // BENCHGATE_RERUN_POLICY
	RerunSecret []byte      // BENCHGATE_RERUN_SECRET or BENCHGATE_RERUN_SECRET_FILE, keys the spot-check's and the reproduction's samples; required with a judge or a candidate endpoint
	BoardDir    string      // BENCHGATE_LEADERBOARD_DIR, a clean slash-separated folder in the repository
	// CacheDir keeps verification results, rankings and judge answers
	// between jobs (BENCHGATE_CACHE_DIR, by default the CLI's); empty when
	// there is none.
	CacheDir    string
	BoardBranch string      // BENCHGATE_LEADERBOARD_BRANCH; empty: the repository's default branch
	PublishMode PublishMode // BENCHGATE_PUBLISH
	// AuthorName and AuthorEmail sign the App's leaderboard commits
	// (BENCHGATE_COMMIT_NAME, BENCHGATE_COMMIT_EMAIL, both or neither);
	// empty means the identity GitHub gives the App's commits,
	// "<slug>[bot]" and "<bot user id>+<slug>[bot]@users.noreply.github.com",
	// which the App learns at start-up.
	AuthorName  string
	AuthorEmail string
	// JobTimeout bounds one run of a job (BENCHGATE_JOB_TIMEOUT: a
	// spot-check calls a slow judge many times). A job still
	// running after twice as long is taken for hung and run again; a job
	// whose process died runs again within three heartbeats (30 s).
	JobTimeout time.Duration
	// Limits are the abuse limits (BENCHGATE_SPOT_CHECKS_PER_PR,
	// BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY,
	// BENCHGATE_SPOT_CHECKS_PER_REPO_DAY, BENCHGATE_JUDGE_USD_PER_DAY,
	// BENCHGATE_SPOT_CHECK_USD, BENCHGATE_SPOT_CHECK_CALLS,
	// BENCHGATE_QUEUE_LIMIT); see Limits for their defaults.
	Limits Limits
}

// String shows the configuration without its secrets, as key=value in
// the order of the settings table: a secret as "set" or "unset", a
// setting with no value left out.
func (c Config) String() string {
	var parts []string
	for _, s := range settings {
		if s.show == nil {
			continue
		}
		v := s.show(c)
		switch {
		case s.Secret && v == "":
			v = "unset"
		case v == "":
			continue
		case strings.ContainsAny(v, " \t\""):
			v = strconv.Quote(v)
		}
		parts = append(parts, s.Key()+"="+v)
	}
	return strings.Join(parts, " ")
}

// redactURL hides a password in a database URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// DefaultDatabaseURL is the queue's database when BENCHGATE_DATABASE_URL
// is unset: a file in the working directory.
const DefaultDatabaseURL = "sqlite:benchgate.db"

// LoadConfig reads the configuration through getenv, and the files some
// settings name through readFile: each setting of the table settings is
// read (its default when unset), then the checks across settings are made.
// Every problem is reported at once.
func LoadConfig(getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	c := Config{Limits: DefaultLimits()}
	for _, s := range settings {
		v := getenv(s.Env)
		if strings.TrimSpace(v) == "" {
			v = s.Default
		}
		if v == "" {
			continue
		}
		if err := s.parse(&c, v, readFile); err != nil {
			bad("%s: %v", s.Env, err)
		}
	}
	set := func(name string) bool { return strings.TrimSpace(getenv(name)) != "" }

	// Defaults that follow from other settings.
	if !set("BENCHGATE_GIT_URL") {
		c.GitURL = gitURLFor(c.GitHubAPIURL)
	}
	if !set("BENCHGATE_CACHE_DIR") {
		c.CacheDir = filecache.DefaultDir(getenv)
	}
	if c.CandidateBaseURL == "" && c.CandidateAPIKey != "" {
		c.CandidateBaseURL = reproduce.DefaultBaseURL
	}

	// One of two forms.
	for _, pair := range [][2]string{{"BENCHGATE_PRIVATE_KEY_FILE", "BENCHGATE_PRIVATE_KEY"}, {"BENCHGATE_RERUN_SECRET_FILE", "BENCHGATE_RERUN_SECRET"}, {"BENCHGATE_CANDIDATE_API_KEY_FILE", "BENCHGATE_CANDIDATE_API_KEY"}} {
		if set(pair[0]) && set(pair[1]) {
			bad("set %s or %s, not both", pair[0], pair[1])
		}
	}

	// What the App cannot start without.
	if !set("BENCHGATE_APP_ID") {
		bad("BENCHGATE_APP_ID is required: the App's numeric id, shown on its settings page")
	}
	if !set("BENCHGATE_PRIVATE_KEY_FILE") && !set("BENCHGATE_PRIVATE_KEY") {
		bad("BENCHGATE_PRIVATE_KEY_FILE (or BENCHGATE_PRIVATE_KEY) is required: the App's private key, a PEM file generated on its settings page")
	} else if len(c.PrivateKey) > 0 {
		if err := checkPrivateKey(c.PrivateKey); err != nil {
			bad("the private key: %v", err)
		}
	}
	if len(c.WebhookSecrets) == 0 {
		bad("BENCHGATE_WEBHOOK_SECRET is required: without it anyone could forge deliveries, so benchgate does not start (several secrets, comma-separated, allow rotation)")
	}
	for i, s := range c.WebhookSecrets {
		if problem := WeakSecret(s); problem != "" {
			which := "BENCHGATE_WEBHOOK_SECRET"
			if len(c.WebhookSecrets) > 1 {
				which += fmt.Sprintf(" (secret %d of %d)", i+1, len(c.WebhookSecrets))
			}
			bad("%s %s: anyone who guesses it can forge deliveries; use at least %d random bytes, such as the output of `openssl rand -hex 32` (benchgate setup-app makes one), and set the same secret on the App's settings page", which, problem, MinSecretBytes)
		}
	}

	// Settings that go together.
	if c.JudgeDeployments != nil && c.JudgeAzureAPIVersion == "" {
		bad("BENCHGATE_JUDGE_DEPLOYMENTS is for Azure OpenAI: set BENCHGATE_JUDGE_AZURE_API_VERSION too")
	}
	if set("BENCHGATE_COMMIT_NAME") != set("BENCHGATE_COMMIT_EMAIL") {
		bad("set both BENCHGATE_COMMIT_NAME and BENCHGATE_COMMIT_EMAIL, or neither: without them the App signs its leaderboard commits as GitHub shows the App, <slug>[bot] with <bot user id>+<slug>[bot]@users.noreply.github.com")
	}
	for _, p := range []struct {
		who            string
		in, out, cache *float64
	}{{"JUDGE", c.JudgePriceInput, c.JudgePriceOutput, c.JudgePriceCachedInput}, {"CANDIDATE", c.CandidatePriceInput, c.CandidatePriceOutput, c.CandidatePriceCachedInput}} {
		if (p.in == nil) != (p.out == nil) {
			bad("set both BENCHGATE_%[1]s_PRICE_INPUT and BENCHGATE_%[1]s_PRICE_OUTPUT, or neither", p.who)
		} else if p.cache != nil && p.in == nil {
			bad("BENCHGATE_%[1]s_PRICE_CACHED_INPUT prices cached prompt tokens beside BENCHGATE_%[1]s_PRICE_INPUT and BENCHGATE_%[1]s_PRICE_OUTPUT: set those too, or leave it out", p.who)
		}
	}
	if c.Limits.SpotCheckUSD > c.Limits.JudgeUSDPerDay {
		bad("BENCHGATE_SPOT_CHECK_USD (%.2f) is more than BENCHGATE_JUDGE_USD_PER_DAY (%.2f): one spot-check may not spend more than the day's budget", c.Limits.SpotCheckUSD, c.Limits.JudgeUSDPerDay)
	}
	if c.JudgeBaseURL == "" && c.RerunPolicy == RerunAuto {
		bad("BENCHGATE_RERUN_POLICY=auto needs a judge: set BENCHGATE_JUDGE_BASE_URL (and BENCHGATE_JUDGE_API_KEY)")
	}

	// The spot-check's sample must be one the submitter cannot compute:
	// keyed with a secret, or a pusher edits the scores until the inflated
	// answers fall outside it.
	if problem := WeakSecret(c.RerunSecret); len(c.RerunSecret) > 0 && problem != "" {
		bad("BENCHGATE_RERUN_SECRET %s: whoever guesses it can compute which questions a spot-check re-grades; use at least %d random bytes, such as the output of `openssl rand -hex 32`", problem, MinSecretBytes)
	}
	if len(c.RerunSecret) == 0 && c.CandidateBaseURL != "" {
		bad("BENCHGATE_RERUN_SECRET is required when reproductions can run (a candidate endpoint is set with BENCHGATE_CANDIDATE_BASE_URL or BENCHGATE_CANDIDATE_API_KEY): without it the questions a reproduction asks again would follow from the submission's scores, which its author can compute and steer; set it to a random value kept from contributors, such as the output of `openssl rand -hex 32` (or name a file holding it with BENCHGATE_RERUN_SECRET_FILE), or unset the candidate endpoint to run without reproductions")
	}
	if len(c.RerunSecret) == 0 && c.JudgeBaseURL != "" {
		bad("BENCHGATE_RERUN_SECRET is required when spot-checks can run (BENCHGATE_JUDGE_BASE_URL is set): without it the questions a spot-check re-grades would follow from the submission's scores, which its author can compute and steer; set it to a random value kept from contributors, such as the output of `openssl rand -hex 32` (or name a file holding it with BENCHGATE_RERUN_SECRET_FILE), or unset BENCHGATE_JUDGE_BASE_URL to run without spot-checks")
	}
	if len(problems) > 0 {
		return c, errors.New("benchgate serve cannot start:\n  " + strings.Join(problems, "\n  "))
	}
	return c, nil
}

// checkPrivateKey checks that key is an RSA private key in PEM, as GitHub
// issues them.
func checkPrivateKey(key []byte) error {
	block, _ := pem.Decode(key)
	if block == nil {
		return errors.New("not PEM: expected a file starting with -----BEGIN RSA PRIVATE KEY-----")
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return errors.New("not an RSA private key")
	}
	if _, ok := k.(*rsa.PrivateKey); !ok {
		return errors.New("not an RSA private key: GitHub Apps sign with RSA")
	}
	return nil
}

// gitURLFor derives the git host from the API URL, as GitHub lays them
// out: api.github.com serves github.com, api.SUBDOMAIN.ghe.com (GitHub
// Enterprise Cloud with data residency) serves SUBDOMAIN.ghe.com, and a
// GitHub Enterprise Server's HOST/api/v3/ serves HOST.
func gitURLFor(api string) string {
	u, err := url.Parse(api)
	if err != nil {
		return "https://github.com/"
	}
	if u.Host == "api.github.com" {
		return "https://github.com/"
	}
	if sub, ok := strings.CutPrefix(u.Host, "api."); ok && strings.HasSuffix(sub, ".ghe.com") {
		u.Host, u.Path = sub, "/"
		return u.String()
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3") + "/"
	return u.String()
}

// apiURLProblem says what is wrong with a REST API URL (with its final
// slash), or "": github.com's and GHE.com's are at the root of their api.
// host, a GitHub Enterprise Server's under /api/v3/. A loopback address is
// taken as it is, for a local stand-in.
func apiURLProblem(api string) string {
	u, _ := url.Parse(api)
	host := u.Hostname()
	switch {
	case host == "localhost" || net.ParseIP(host).IsLoopback():
		return ""
	case host == "github.com" || strings.HasSuffix(host, ".ghe.com") && !strings.HasPrefix(host, "api."):
		return "that is the web address; the REST API is at https://api." + host + "/"
	case host == "api.github.com" || strings.HasSuffix(host, ".ghe.com"):
		if u.Path != "/" {
			return "the REST API of " + host + " is at its root: https://" + host + "/"
		}
	case !strings.HasSuffix(u.Path, "/api/v3/"):
		return "a GitHub Enterprise Server's REST API is under /api/v3/: https://" + u.Host + "/api/v3/"
	}
	return ""
}

// CloneURL is the HTTPS address of a repository ("owner/name").
func (c Config) CloneURL(repo string) string { return c.GitURL + repo + ".git" }

// MinSecretBytes is the least length of a webhook secret: 16 random bytes
// are 128 bits, beyond guessing.
const MinSecretBytes = 16

// weakWords are what people write in place of a secret.
var weakWords = []string{"changeme", "change-me", "change_me", "password", "passw0rd", "secret", "webhook", "example", "default", "letmein", "qwerty", "123456", "abcdef", "replace", "xxxxxx"}

// WeakSecret says why a secret does not look random ("" when it does):
// fewer than MinSecretBytes bytes, few distinct characters, a run such as
// 0123… or abcd…, or a word people put in place of a secret. It cannot
// prove a secret random; it refuses what plainly is not.
func WeakSecret(s []byte) string {
	if len(s) < MinSecretBytes {
		if len(s) == 1 {
			return "is 1 byte long"
		}
		return fmt.Sprintf("is %d bytes long", len(s))
	}
	distinct := map[byte]bool{}
	steps := 0 // neighbours one apart, as in 0123 or dcba
	for i, b := range s {
		distinct[b] = true
		if i > 0 && (b == s[i-1]+1 || b+1 == s[i-1]) {
			steps++
		}
	}
	lower := strings.ToLower(string(s))
	switch {
	case len(distinct) < 6:
		return fmt.Sprintf("holds only %d different characters", len(distinct))
	case 2*steps >= len(s):
		return "is mostly a run of consecutive characters"
	}
	for _, w := range weakWords {
		if strings.Contains(lower, w) {
			return fmt.Sprintf("contains %q", w)
		}
	}
	return ""
}
