package submission

import (
	"os"
	"strings"
	"testing"
)

// TestParseMetaPlaceholders: a copy of the template has every placeholder
// reported at once, each with its line and member, and with the schema's
// findings about the other members; markup and real values are not
// placeholders.
func TestParseMetaPlaceholders(t *testing.T) {
	template, err := os.ReadFile("../submissions/_template/meta.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		meta string
		want []string // every finding, in order; nil for a valid file
	}{
		{"the template as it is", string(template), []string{
			"meta.json:2: _comment holds the template's instructions: follow them, then delete the _comment key (meta.placeholder)",
			`meta.json:3: model_name is still the template's placeholder "<display name of the model>": replace it with what it describes (meta.placeholder)`,
			`meta.json:4: candidate_model_id is still the template's placeholder "<provider/model-id, e.g. qwen/qwen3-32b>": replace it with what it describes (meta.placeholder)`,
			`meta.json:5: submitter is still a placeholder "<GitHub login of the pull request's author>": write the GitHub login of the pull request's author (whoever opens the pull request) (meta.placeholder)`,
			`meta.json:6: contact_or_repo is still the template's placeholder "<URL of a repository or a contact address>": replace it with what it describes (meta.placeholder)`,
			`meta.json:7: rubric_key is still the template's placeholder "<benchmark key, e.g. basin-analysis or reservoir-mcq>": replace it with what it describes (meta.placeholder)`,
			`meta.json:8: date is still the template's placeholder "YYYY-MM-DD": write the date of the run (meta.placeholder)`,
			`meta.json:9: judge_model is still the template's placeholder "<judge model id from the registry; rubric benchmarks only>": replace it with what it describes, or delete judge_model if it does not apply (meta.placeholder)`,
			`meta.json:10: harness_name is still the template's placeholder "<harness name; harness-benchmark track only>": replace it with what it describes, or delete harness_name if it does not apply (meta.placeholder)`,
			`meta.json:11: harness_repo is still the template's placeholder "<harness repository URL; harness-benchmark track only>": replace it with what it describes, or delete harness_repo if it does not apply (meta.placeholder)`,
			`meta.json:12: notes is still the template's placeholder "<anything a reader needs to reproduce the run>": replace it with what it describes, or delete notes if it does not apply (meta.placeholder)`,
		}},
		{"only the template's comment left", strings.Replace(fullMeta, `"ignored"`, `"Copy this folder ... Delete this _comment key before submitting."`, 1), []string{
			"meta.json:2: _comment holds the template's instructions: follow them, then delete the _comment key (meta.placeholder)",
		}},
		{"a placeholder and a schema error elsewhere", strings.Replace(strings.Replace(fullMeta, `"Qwen3 32B"`, `"<display name of the model>"`, 1), `"max_tokens": 4096`, `"max_tokens": 0`, 1), []string{
			`meta.json:3: model_name is still the template's placeholder "<display name of the model>": replace it with what it describes (meta.placeholder)`,
			"meta.json:14: /max_tokens: must be at least 1, found 0 (schema)",
		}},
		{"markup is no placeholder", strings.Replace(fullMeta, `"Qwen3 32B"`, `"<b>Qwen</b>"`, 1), nil},
		{"a filled-in copy, with a comment of its own", fullMeta, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, fs := ParseMeta("meta.json", parse(t, tt.meta))
			var got []string
			for _, f := range fs {
				got = append(got, f.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || (m == nil) != (tt.want != nil) {
				t.Errorf("meta %v, findings:\n%s\nwant:\n%s", m != nil, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestParseMetaFillIn: a value a tool left to fill in (FillIn) is
// reported with its line and member, and the rest of meta.json is still
// read, so that the rest of the submission is checked too.
func TestParseMetaFillIn(t *testing.T) {
	meta := strings.Replace(strings.Replace(fullMeta, `"https://example.org"`, `"FILL IN: a repository URL or a contact address"`, 1), `"lab"`, `"FILL IN: the GitHub login of the pull request's author"`, 1)
	m, fs := ParseMeta("meta.json", parse(t, meta))
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	want := []string{
		`meta.json:5: submitter is still a placeholder "FILL IN: the GitHub login of the pull request's author": write the GitHub login of the pull request's author (whoever opens the pull request) (meta.placeholder)`,
		`meta.json:6: contact_or_repo is still a placeholder "FILL IN: a repository URL or a contact address": replace it with what it asks for (meta.placeholder)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || !fs.HasErrors() {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m == nil || m.ModelName != "Qwen3 32B" {
		t.Errorf("meta not read past the placeholders: %+v", m)
	}
}
