package importer

import (
	"strings"
	"testing"

	"github.com/benchgate/benchgate/submission"
)

func TestSlug(t *testing.T) {
	tests := []struct{ model, key, want string }{
		{"gpt-oss-120b", "formationeval", "gpt-oss-120b-formationeval"},
		{"openai/gpt-4o-mini", "three-mcq", "openai-gpt-4o-mini-three-mcq"},
		{"Claude 3.5 Haiku", "basin", "claude-3.5-haiku-basin"},
		{"..hidden", "k", "hidden-k"},
		{"a..b", "k", "a.b-k"},
		{"a...b", "k", "a.b-k"},
		{strings.Repeat("x", 70), "k", strings.Repeat("x", 64)},
		{strings.Repeat("y", 63) + "/z", "k", strings.Repeat("y", 63)},
	}
	for _, tt := range tests {
		r := &Run{Model: tt.model}
		r.Meta.RubricKey = tt.key
		got := r.Slug()
		if got != tt.want || !submission.ValidSlug(got) {
			t.Errorf("Slug(%q, %q) = %q (valid %t), want %q", tt.model, tt.key, got, submission.ValidSlug(got), tt.want)
		}
	}
}
