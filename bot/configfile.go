package bot

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// fileKeys are the keys of the optional YAML configuration file, each the
// lower-case name of its variable without the BENCHGATE_ prefix.
var fileKeys = []string{
	"app_id", "private_key_file", "private_key", "webhook_secret", "database_url", "listen", "github_api_url",
	"git_url", "judge_base_url", "judge_api_key", "rerun_policy", "rerun_secret", "leaderboard_dir",
	"leaderboard_branch", "publish", "commit_name", "commit_email", "job_timeout",
	"judge_timeout", "judge_price_input", "judge_price_output", "cache_dir",
	"candidate_base_url", "candidate_api_key", "candidate_api_key_file", "candidate_timeout", "candidate_models",
	"candidate_price_input", "candidate_price_output", "candidate_price_cached_input",
	"spot_checks_per_pr", "spot_checks_per_author_day", "spot_checks_per_repo_day", "judge_usd_per_day", "spot_check_usd", "spot_check_calls", "queue_limit",
}

// WithFile returns a getenv for LoadConfig that reads the environment
// first and the YAML file's values second: a variable set in the
// environment overrides the file. webhook_secret may be a list.
func WithFile(getenv func(string) string, data []byte, name string) (func(string) string, error) {
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	allowed := map[string]bool{}
	for _, k := range fileKeys {
		allowed[k] = true
	}
	values := map[string]string{}
	var unknown []string
	for k, v := range raw {
		if !allowed[k] {
			unknown = append(unknown, k)
			continue
		}
		switch x := v.(type) {
		case []any:
			parts := make([]string, len(x))
			for i, p := range x {
				parts[i] = fmt.Sprint(p)
			}
			values["BENCHGATE_"+strings.ToUpper(k)] = strings.Join(parts, ",")
		case nil:
		default:
			values["BENCHGATE_"+strings.ToUpper(k)] = fmt.Sprint(x)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s: unknown keys %s; the keys are %s", name, strings.Join(unknown, ", "), strings.Join(fileKeys, ", "))
	}
	return func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return values[k]
	}, nil
}
