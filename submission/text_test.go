package submission

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseMetaHiddenCharacters(t *testing.T) {
	tests := []struct {
		field, value string
		want         string // the finding, or "" for none
	}{
		{"model_name", "Qwen3 \u202e23-B", "model_name holds the invisible character U+202E at character 7"},
		{"model_name", "Model\u001b[2K", "model_name holds the invisible character U+001B at character 6"},
		{"submitter", "lab\u0000", "submitter holds the invisible character U+0000 at character 4"},
		{"contact_or_repo", "https://example.org/\u2066x\u2069", "U+2066"},
		{"notes", "line\u0085next", "notes holds the invisible character U+0085"},
		{"model_name", "two\nlines", "U+000A"},
		{"notes", "Settings:\n\t- greedy\r\n", ""},
		{"model_name", "通义千问 · שלום · 👩\u200d🔬", ""},
	}
	for _, tt := range tests {
		var m map[string]any
		if err := json.Unmarshal([]byte(fullMeta), &m); err != nil {
			t.Fatal(err)
		}
		m[tt.field] = tt.value
		data, _ := json.MarshalIndent(m, "", "  ")
		meta, fs := ParseMeta("meta.json", parse(t, string(data)))
		if meta == nil {
			t.Fatalf("%s %q: no meta: %v", tt.field, tt.value, fs)
		}
		switch {
		case tt.want == "" && len(fs) > 0:
			t.Errorf("%s %q: %v, want no finding", tt.field, tt.value, fs)
		case tt.want != "" && (len(fs) != 1 || fs[0].Code != "meta.text" || !strings.Contains(fs[0].Message, tt.want) || fs[0].Line == 0):
			t.Errorf("%s %q: %v, want a meta.text finding containing %q", tt.field, tt.value, fs, tt.want)
		}
	}
}
