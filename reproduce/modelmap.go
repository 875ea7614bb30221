package reproduce

import (
	"fmt"
	"strings"
)

// ParseModelMap reads a map from the model ids submissions name to the
// ids an endpoint serves them under, written ID=SERVED, several separated
// by commas, such as "Qwen/Qwen3-32B=qwen/qwen3-32b".
func ParseModelMap(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		id, served, ok := strings.Cut(item, "=")
		id, served = strings.TrimSpace(id), strings.TrimSpace(served)
		if !ok || id == "" || served == "" {
			return nil, fmt.Errorf("model map entry %q is not written ID=SERVED, such as Qwen/Qwen3-32B=qwen/qwen3-32b", item)
		}
		if prev, dup := out[id]; dup && prev != served {
			return nil, fmt.Errorf("model %q is mapped to two served ids, %q and %q", id, prev, served)
		}
		out[id] = served
	}
	return out, nil
}
