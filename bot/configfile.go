package bot

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// fileKeys are the keys of the optional YAML configuration file, one for
// each setting (setting.Key).
func fileKeys() []string {
	keys := make([]string, len(settings))
	for i, s := range settings {
		keys[i] = s.Key()
	}
	return keys
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
	for _, k := range fileKeys() {
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
		return nil, fmt.Errorf("%s: unknown keys %s; the keys are %s", name, strings.Join(unknown, ", "), strings.Join(fileKeys(), ", "))
	}
	return func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return values[k]
	}, nil
}
