package bot

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/llm"
	"github.com/benchgate/benchgate/reproduce"
	"github.com/benchgate/benchgate/submission"
)

// setting is one of the App's settings: the environment variable, its
// key in the YAML file, its default, what it means, how its value is read
// into a Config and shown by Config.String. The table settings is their
// one home: LoadConfig, WithFile's keys, Config.String and the tables in
// docs/github-app.md follow from it.
type setting struct {
	Env string
	// Default is the value taken when the setting is unset, read as a
	// value that is set; DefaultDoc says what unset means when no one
	// value stands for it (a default derived from other settings).
	Default, DefaultDoc string
	Doc                 string
	// Secret settings are never shown: Config.String says only whether
	// they are set, and their problems never quote them.
	Secret bool
	// Limit settings are the abuse limits, documented in a table of their
	// own.
	Limit bool
	// parse reads a value, which is never blank, into c; its error says
	// what is wrong with it (the setting's name is put before it).
	parse func(c *Config, v string, readFile func(string) ([]byte, error)) error
	// show is the setting's value in Config.String; a secret's show says
	// only how much is set ("" when nothing is). Nil for a setting shown
	// by another (a file holding what another setting holds).
	show func(c Config) string
}

// Key is the setting's key in the YAML file: its variable's name without
// BENCHGATE_, in lower case.
func (s setting) Key() string { return strings.ToLower(strings.TrimPrefix(s.Env, "BENCHGATE_")) }

// settings are the App's settings, in the order the documentation lists
// them. Checks across settings (one of two forms, both or neither, one
// needing another) are LoadConfig's, after each is read.
var settings = []setting{
	{Env: "BENCHGATE_APP_ID", DefaultDoc: "required", Doc: "the App's numeric id, shown on its settings page",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n <= 0 {
				return fmt.Errorf("%q is not a positive number", v)
			}
			c.AppID = n
			return nil
		},
		show: func(c Config) string { return strconv.FormatInt(c.AppID, 10) }},
	{Env: "BENCHGATE_PRIVATE_KEY_FILE", DefaultDoc: "required, or `BENCHGATE_PRIVATE_KEY`", Doc: "a file holding the App's PEM private key, generated on its settings page",
		parse: func(c *Config, v string, readFile func(string) ([]byte, error)) error {
			key, err := readFile(strings.TrimSpace(v))
			c.PrivateKey = key
			return err
		}},
	{Env: "BENCHGATE_PRIVATE_KEY", DefaultDoc: "required, or `BENCHGATE_PRIVATE_KEY_FILE`", Secret: true, Doc: "the App's PEM private key itself, `\\n` standing for line breaks",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			c.PrivateKey = []byte(strings.ReplaceAll(v, `\n`, "\n"))
			return nil
		},
		show: func(c Config) string { return setIf(len(c.PrivateKey) > 0) }},
	{Env: "BENCHGATE_WEBHOOK_SECRET", DefaultDoc: "required", Secret: true, Doc: "the webhook secret; comma-separated (a list in the file) to rotate: any one of them is accepted. Each must be at least 16 bytes and look random: serve refuses one character repeated, runs such as `0123…` and words such as `changeme`; `openssl rand -hex 32` makes a good one, and setup-app writes the one GitHub generated",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					c.WebhookSecrets = append(c.WebhookSecrets, []byte(s))
				}
			}
			return nil
		},
		show: func(c Config) string {
			if len(c.WebhookSecrets) < 2 {
				return setIf(len(c.WebhookSecrets) == 1)
			}
			return fmt.Sprintf("%d set", len(c.WebhookSecrets))
		}},
	{Env: "BENCHGATE_DATABASE_URL", Default: DefaultDatabaseURL, Doc: "the job queue: `sqlite:PATH` (one process) or `postgres://…` (several replicas; a pool of 32 connections per replica unless the URL sets `pool_max_conns`, enough for 14 workers: each of `--workers` may need two at once)",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			v = strings.TrimSpace(v)
			if !strings.HasPrefix(v, "sqlite:") && !strings.HasPrefix(v, "postgres://") && !strings.HasPrefix(v, "postgresql://") {
				return fmt.Errorf("%q: use sqlite:PATH or postgres://…", redactURL(v))
			}
			c.DatabaseURL = v
			return nil
		},
		show: func(c Config) string { return redactURL(c.DatabaseURL) }},
	textSetting("BENCHGATE_LISTEN", ":8080", "the address to listen on", func(c *Config) *string { return &c.Listen }),
	{Env: "BENCHGATE_GITHUB_API_URL", Default: "https://api.github.com/", Doc: "the REST API: `https://api.SUBDOMAIN.ghe.com/` for GitHub Enterprise Cloud with data residency, `https://HOST/api/v3/` for GitHub Enterprise Server; the clone host follows from it (`github.com`, `SUBDOMAIN.ghe.com`, `HOST`) unless `BENCHGATE_GIT_URL` names another; a web address or a server URL without `/api/v3/` refuses to start",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			v = strings.TrimSpace(v)
			if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Errorf("%q is not an http(s) URL", v)
			}
			if !strings.HasSuffix(v, "/") {
				v += "/"
			}
			if problem := apiURLProblem(v); problem != "" {
				return fmt.Errorf("%q: %s", v, problem)
			}
			c.GitHubAPIURL = v
			return nil
		},
		show: func(c Config) string { return c.GitHubAPIURL }},
	{Env: "BENCHGATE_GIT_URL", DefaultDoc: "derived from the API URL", Doc: "where repositories are cloned from",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			v = strings.TrimSpace(v)
			if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Errorf("%q is not an http(s) URL, such as https://github.com/", v)
			}
			if !strings.HasSuffix(v, "/") {
				v += "/"
			}
			c.GitURL = v
			return nil
		},
		show: func(c Config) string { return c.GitURL }},
	textSetting("BENCHGATE_JUDGE_BASE_URL", "", "the judge endpoint for `/benchgate rerun` (unset, serve warns at start-up that rubric spot-checks cannot run)", func(c *Config) *string { return &c.JudgeBaseURL }),
	secretText("BENCHGATE_JUDGE_API_KEY", "the judge endpoint's API key", func(c *Config) *string { return &c.JudgeAPIKey }),
	durationSetting("BENCHGATE_JUDGE_TIMEOUT", "3m", time.Nanosecond, "how long one judge call may take before it is retried (Groundtruth's default; a timed-out attempt is written to the ledger, since it may have been billed)", func(c *Config) *time.Duration { return &c.JudgeTimeout }),
	textSetting("BENCHGATE_JUDGE_AZURE_API_VERSION", "", "Azure OpenAI's API version, such as `2025-04-01-preview`; `BENCHGATE_JUDGE_BASE_URL` is then the resource endpoint", func(c *Config) *string { return &c.JudgeAzureAPIVersion }),
	mapSetting("BENCHGATE_JUDGE_DEPLOYMENTS", "Azure OpenAI: the deployment serving each judge id, `MODEL=DEPLOYMENT` separated by commas, such as `openai/gpt-5.5=gpt55-judge` (a judge id with a slash cannot be a deployment name); needs `BENCHGATE_JUDGE_AZURE_API_VERSION`", llm.ParseDeployments, func(c *Config) *map[string]string { return &c.JudgeDeployments }),
	{Env: "BENCHGATE_JUDGE_TOKEN_PARAM", DefaultDoc: "chosen by the model id", Doc: "`max_tokens` or `max_completion_tokens`: the field carrying the judge contract's `max_tokens` (a 400 naming the field switches once, with a warning in the log)",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			switch v = strings.TrimSpace(v); v {
			case llm.TokenParamMaxTokens, llm.TokenParamMaxCompletionTokens:
				c.JudgeTokenParam = v
				return nil
			}
			return fmt.Errorf("%q is neither %s nor %s", v, llm.TokenParamMaxTokens, llm.TokenParamMaxCompletionTokens)
		},
		show: func(c Config) string { return c.JudgeTokenParam }},
	priceSetting("BENCHGATE_JUDGE_PRICE_INPUT", "the judge's USD per million prompt tokens, with `BENCHGATE_JUDGE_PRICE_OUTPUT`: the spend of an endpoint that does not report its cost, and the worst case each judge call reserves before it is made (every prompt byte a token, plus a completion limit of 16,384 tokens), so that no call takes a spot-check past its budget (without them the daily budget counts only reported costs, the last call of a spot-check may go past its budget, and the App warns at start)", func(c *Config) **float64 { return &c.JudgePriceInput }),
	priceSetting("BENCHGATE_JUDGE_PRICE_OUTPUT", "the judge's USD per million completion tokens, with `BENCHGATE_JUDGE_PRICE_INPUT`", func(c *Config) **float64 { return &c.JudgePriceOutput }),
	priceSetting("BENCHGATE_JUDGE_PRICE_CACHED_INPUT", "the judge's USD per million prompt tokens the provider read from its prompt cache (OpenAI's `cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`), priced apart from the rest of the prompt; needs the two prices above; without it cached tokens cost the input price", func(c *Config) **float64 { return &c.JudgePriceCachedInput }),
	{Env: "BENCHGATE_CANDIDATE_BASE_URL", DefaultDoc: "`" + reproduce.DefaultBaseURL + "` when a key is set", Doc: "the candidate endpoint `/benchgate reproduce` asks for the model a submission names (OpenAI-compatible): a key alone means OpenRouter; a base URL alone, an endpoint without a key (a local vLLM, say); neither, no reproductions (serve warns at start-up)",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			v = strings.TrimSpace(v)
			if u, err := url.Parse(v); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Errorf("%q is not an http(s) URL, such as %s", v, reproduce.DefaultBaseURL)
			}
			c.CandidateBaseURL = v
			return nil
		},
		show: func(c Config) string { return c.CandidateBaseURL }},
	secretText("BENCHGATE_CANDIDATE_API_KEY", "the candidate endpoint's API key", func(c *Config) *string { return &c.CandidateAPIKey }),
	secretFile("BENCHGATE_CANDIDATE_API_KEY_FILE", "a file holding the candidate endpoint's API key, in place of `BENCHGATE_CANDIDATE_API_KEY`", func(c *Config, data []byte) { c.CandidateAPIKey = strings.TrimSpace(string(data)) }),
	durationSetting("BENCHGATE_CANDIDATE_TIMEOUT", "3m", time.Nanosecond, "how long one candidate call may take before it is retried", func(c *Config) *time.Duration { return &c.CandidateTimeout }),
	mapSetting("BENCHGATE_CANDIDATE_MODELS", "the ids the candidate endpoint serves submissions' models under, `ID=SERVED` separated by commas, such as `Qwen/Qwen3-32B=qwen/qwen3-32b`; adds to each benchmark's `reproduce_models` (the CLI's `--model-map`)", reproduce.ParseModelMap, func(c *Config) *map[string]string { return &c.CandidateModels }),
	priceSetting("BENCHGATE_CANDIDATE_PRICE_INPUT", "the candidate's USD per million prompt tokens, with `BENCHGATE_CANDIDATE_PRICE_OUTPUT`, as the judge's: the spend of an endpoint that does not report its cost, and the worst case each call reserves before it is made (without them the daily budget counts only reported costs, and the App warns at start)", func(c *Config) **float64 { return &c.CandidatePriceInput }),
	priceSetting("BENCHGATE_CANDIDATE_PRICE_OUTPUT", "the candidate's USD per million completion tokens, with `BENCHGATE_CANDIDATE_PRICE_INPUT`", func(c *Config) **float64 { return &c.CandidatePriceOutput }),
	priceSetting("BENCHGATE_CANDIDATE_PRICE_CACHED_INPUT", "the candidate's USD per million cached prompt tokens; needs the two prices above", func(c *Config) **float64 { return &c.CandidatePriceCachedInput }),
	{Env: "BENCHGATE_RERUN_SECRET", DefaultDoc: "required with a judge or a candidate endpoint", Secret: true, Doc: "keys the spot-check's sample so that submitters cannot predict it; the sample follows from the secret and the submission's parsed scores (rows by id, numbers by value: not the file's bytes, `meta.json` or the pull request), so re-opening or re-formatting the same scores draws the same sample. A reproduction's sample is keyed the same way; without it a judge or a candidate endpoint does not start (the message says how to make one, `openssl rand -hex 32`); at least 16 random bytes",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			c.RerunSecret = []byte(v)
			return nil
		},
		show: func(c Config) string { return setIf(len(c.RerunSecret) > 0) }},
	secretFile("BENCHGATE_RERUN_SECRET_FILE", "a file holding the rerun secret, in place of `BENCHGATE_RERUN_SECRET`", func(c *Config, data []byte) { c.RerunSecret = bytes.TrimRight(data, "\r\n") }),
	choiceSetting("BENCHGATE_RERUN_POLICY", RerunCommand, "`command` (only on `/benchgate rerun`) or `auto` (on every submission; needs a judge)", func(c *Config) *RerunPolicy { return &c.RerunPolicy }, RerunCommand, RerunAuto),
	{Env: "BENCHGATE_LEADERBOARD_DIR", Default: "leaderboard", Doc: "the folder of the repository the leaderboard is written to, replaced by each update; a folder inside the repository, outside `.git`, `" + submission.Dir + "/` and `" + path.Dir(benchmark.RegistryFile) + "/`",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			dir, err := boardDir(strings.TrimSpace(v))
			c.BoardDir = dir
			return err
		},
		show: func(c Config) string { return c.BoardDir }},
	textSetting("BENCHGATE_LEADERBOARD_BRANCH", "", "the branch the leaderboard is written to (unset, the default branch); a branch of its own, such as a pages branch, is replaced by each update", func(c *Config) *string { return &c.BoardBranch }),
	{Env: "BENCHGATE_CACHE_DIR", DefaultDoc: "`benchgate/` in the user's cache folder, `$XDG_CACHE_HOME` or `~/.cache`", Doc: "where verification results, rankings and judge answers are kept between jobs, as `benchgate leaderboard` keeps them; a cache never changes a result, only how fast a regeneration after a merge comes",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			c.CacheDir = strings.TrimSpace(v)
			return nil
		},
		show: func(c Config) string { return c.CacheDir }},
	durationSetting("BENCHGATE_JOB_TIMEOUT", "15m", time.Second, "how long one run of a job may take; a job still running after twice that is taken for hung and runs again (a job of a process that died runs again sooner: see [Several replicas](#5-several-replicas))", func(c *Config) *time.Duration { return &c.JobTimeout }),
	choiceSetting("BENCHGATE_PUBLISH", PublishPush, "`push`, or `pr` for protected branches", func(c *Config) *PublishMode { return &c.PublishMode }, PublishPush, PublishPR),
	textSetting("BENCHGATE_COMMIT_NAME", "", "the author of leaderboard commits, with `BENCHGATE_COMMIT_EMAIL`: both or neither (unset, the App as GitHub shows it, `<slug>[bot]` with `<bot user id>+<slug>[bot]@users.noreply.github.com`)", func(c *Config) *string { return &c.AuthorName }),
	{Env: "BENCHGATE_COMMIT_EMAIL", Doc: "the e-mail address of leaderboard commits, with `BENCHGATE_COMMIT_NAME`",
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			if v = strings.TrimSpace(v); !strings.Contains(v, "@") {
				return fmt.Errorf("%q is not an e-mail address", v)
			}
			c.AuthorEmail = v
			return nil
		},
		show: func(c Config) string { return c.AuthorEmail }},

	countSetting("BENCHGATE_SPOT_CHECKS_PER_PR", "spot-checks one pull request may ever have (by command or by the `auto` policy)", func(l *Limits) *int { return &l.SpotChecksPerPR }),
	countSetting("BENCHGATE_SPOT_CHECKS_PER_AUTHOR_DAY", "spot-checks the pull requests of one author may have in any 24 hours, in every repository the App serves, whoever asked (the login compared case-insensitively): one account opening copy after copy under the `auto` policy cannot use up a repository's spot-checks; keep it well below the repository's", func(l *Limits) *int { return &l.SpotChecksPerAuthorDay }),
	countSetting("BENCHGATE_SPOT_CHECKS_PER_REPO_DAY", "spot-checks one repository may have in any 24 hours", func(l *Limits) *int { return &l.SpotChecksPerRepoDay }),
	usdSetting("BENCHGATE_JUDGE_USD_PER_DAY", "spend of all spot-checks and reproductions per UTC day", func(l *Limits) *float64 { return &l.JudgeUSDPerDay }),
	usdSetting("BENCHGATE_SPOT_CHECK_USD", "what one spot-check may spend, reserved from the day's budget while it runs; at most `BENCHGATE_JUDGE_USD_PER_DAY`", func(l *Limits) *float64 { return &l.SpotCheckUSD }),
	countSetting("BENCHGATE_SPOT_CHECK_CALLS", "judge calls one spot-check may make (the default rule makes up to 48 for the calibration fixtures, cached for the UTC day, and two per question up to 50: 148 on a 50-question rubric)", func(l *Limits) *int { return &l.SpotCheckCalls }),
	countSetting("BENCHGATE_QUEUE_LIMIT", "jobs that may wait to run; beyond it a delivery asking for a verification, rerun or reproduction is refused with 503 and `Retry-After: 60`, and the missed verification is queued as soon as fewer jobs wait (the replica that refused reconciles then, without waiting for the next pass, unless serve runs with `--reconcile 0`; a refused command must be posted again); a merge's regeneration is always taken", func(l *Limits) *int { return &l.QueueWaiting }),
}

func setIf(b bool) string {
	if b {
		return "set"
	}
	return ""
}

// textSetting is a setting taken as it is written, without the spaces
// around it.
func textSetting(env, def, doc string, field func(*Config) *string) setting {
	return setting{Env: env, Default: def, Doc: doc,
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			*field(c) = strings.TrimSpace(v)
			return nil
		},
		show: func(c Config) string { return *field(&c) }}
}

// secretText is a secret taken as it is written, without the spaces
// around it.
func secretText(env, doc string, field func(*Config) *string) setting {
	s := textSetting(env, "", doc, field)
	s.Secret = true
	s.show = func(c Config) string { return setIf(*field(&c) != "") }
	return s
}

// secretFile is a file holding a secret in place of another setting, which
// shows it.
func secretFile(env, doc string, set func(c *Config, data []byte)) setting {
	return setting{Env: env, Doc: doc,
		parse: func(c *Config, v string, readFile func(string) ([]byte, error)) error {
			data, err := readFile(strings.TrimSpace(v))
			if err != nil {
				return err
			}
			set(c, data)
			return nil
		}}
}

func durationSetting(env, def string, least time.Duration, doc string, field func(*Config) *time.Duration) setting {
	return setting{Env: env, Default: def, Doc: doc,
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil || d < least {
				if least <= time.Nanosecond {
					return fmt.Errorf("%q is not a duration above 0, such as %s", v, def)
				}
				return fmt.Errorf("%q is not a duration of at least %v, such as %s", v, least, def)
			}
			*field(c) = d
			return nil
		},
		show: func(c Config) string { return field(&c).String() }}
}

func priceSetting(env, doc string, field func(*Config) **float64) setting {
	return setting{Env: env, Doc: doc,
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
				return fmt.Errorf("%q is not a price in US dollars per million tokens, such as 2.50", v)
			}
			*field(c) = &x
			return nil
		},
		show: func(c Config) string {
			if p := *field(&c); p != nil {
				return strconv.FormatFloat(*p, 'f', -1, 64)
			}
			return ""
		}}
}

func mapSetting(env, doc string, parse func(string) (map[string]string, error), field func(*Config) *map[string]string) setting {
	return setting{Env: env, Doc: doc,
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			m, err := parse(v)
			*field(c) = m
			return err
		},
		show: func(c Config) string {
			m := *field(&c)
			pairs := make([]string, 0, len(m))
			for k, v := range m {
				pairs = append(pairs, k+"="+v)
			}
			sort.Strings(pairs)
			return strings.Join(pairs, ",")
		}}
}

func choiceSetting[T ~string](env string, def T, doc string, field func(*Config) *T, choices ...T) setting {
	return setting{Env: env, Default: string(def), Doc: doc,
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			v = strings.TrimSpace(v)
			names := make([]string, len(choices))
			for i, ch := range choices {
				if string(ch) == v {
					*field(c) = ch
					return nil
				}
				names[i] = string(ch)
			}
			return fmt.Errorf("%q is not %s", v, strings.Join(names, " or "))
		},
		show: func(c Config) string { return string(*field(&c)) }}
}

// countSetting is an abuse limit counted in whole numbers; its default is
// DefaultLimits'.
func countSetting(env, doc string, field func(*Limits) *int) setting {
	d := DefaultLimits()
	return setting{Env: env, Default: strconv.Itoa(*field(&d)), Doc: doc, Limit: true,
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				return fmt.Errorf("%q is not a whole number of at least 1", v)
			}
			*field(&c.Limits) = n
			return nil
		},
		show: func(c Config) string { return strconv.Itoa(*field(&c.Limits)) }}
}

// usdSetting is an abuse limit in US dollars; its default is
// DefaultLimits'.
func usdSetting(env, doc string, field func(*Limits) *float64) setting {
	d := DefaultLimits()
	return setting{Env: env, Default: strconv.FormatFloat(*field(&d), 'f', -1, 64), Doc: doc, Limit: true,
		parse: func(c *Config, v string, _ func(string) ([]byte, error)) error {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				return fmt.Errorf("%q is not an amount of US dollars above 0, such as 20 or 2.50", v)
			}
			*field(&c.Limits) = x
			return nil
		},
		show: func(c Config) string { return strconv.FormatFloat(*field(&c.Limits), 'f', 2, 64) }}
}

// boardDir checks the leaderboard's folder, as a slash-separated path in
// the repository, and returns it cleaned. Each update replaces the whole
// folder, so it must be one the App may replace: inside the repository,
// not the repository itself, not git's own files (a hook written there
// would run on whoever checks the branch out), and not the submissions or
// the registry the leaderboard is built from.
func boardDir(v string) (string, error) {
	const fix = "name a folder of its own inside the repository, such as leaderboard or docs/leaderboard"
	if strings.Contains(v, `\`) {
		return "", fmt.Errorf("%q holds a backslash: write the folder with slashes; %s", v, fix)
	}
	if path.IsAbs(v) {
		return "", fmt.Errorf("%q is an absolute path, not a folder in the repository: %s", v, fix)
	}
	dir := path.Clean(v)
	switch {
	case dir == "." || dir == ".." || strings.HasPrefix(dir, "../"):
		return "", fmt.Errorf("%q is not inside the repository: %s", v, fix)
	}
	for _, part := range strings.Split(dir, "/") {
		if strings.EqualFold(part, ".git") {
			return "", fmt.Errorf("%q is inside .git, git's own files, which a leaderboard update must never write: %s", v, fix)
		}
	}
	for _, kept := range []string{submission.Dir, path.Dir(benchmark.RegistryFile)} {
		if dir == kept || strings.HasPrefix(dir, kept+"/") || strings.HasPrefix(kept, dir+"/") {
			return "", fmt.Errorf("%q would replace %s/, which the leaderboard is built from: %s", v, kept, fix)
		}
	}
	return dir, nil
}

// settingsTable is the Markdown table of the settings (the abuse limits'
// when limits is set) for docs/github-app.md.
func settingsTable(limits bool) string {
	var b strings.Builder
	b.WriteString("| variable | key in the file | default | meaning |\n| --- | --- | --- | --- |\n")
	for _, s := range settings {
		if s.Limit != limits {
			continue
		}
		def := s.DefaultDoc
		switch {
		case s.Default != "":
			def = "`" + s.Default + "`"
		case def == "":
			def = "none"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", s.Env, s.Key(), def, s.Doc)
	}
	return b.String()
}
