package submission

import (
	"regexp"
	"strings"

	"github.com/benchgate/benchgate/finding"
	"github.com/benchgate/benchgate/jsondoc"
)

// placeholderRe matches a placeholder of the template
// (submissions/_template/meta.json): words in angle brackets, such as
// "<display name of the model>". A space is required, so that markup
// such as "<b>" is left to the other checks.
var placeholderRe = regexp.MustCompile(`^<[^<>]*\s[^<>]*>$`)

// datePlaceholder is the template's date.
const datePlaceholder = "YYYY-MM-DD"

// requiredMeta are the members meta.json's schema requires.
var requiredMeta = map[string]bool{"model_name": true, "candidate_model_id": true, "submitter": true, "contact_or_repo": true, "rubric_key": true, "date": true}

// commentKey holds the template's instructions, which end with
// templateComment; any other _comment is ignored, as the schema says.
const (
	commentKey      = "_comment"
	templateComment = "Delete this _comment key before submitting."
)

// placeholders reports every member of a meta.json that a copy of the
// template still holds as the template wrote it, all at once, so that
// fixing one does not merely reveal the next.
func placeholders(file string, doc *jsondoc.Doc) finding.List {
	var out finding.List
	if doc.Root == nil || doc.Root.Kind != jsondoc.Object {
		return nil
	}
	for _, mem := range doc.Root.Members {
		line := doc.Line(mem.KeyOff)
		v := mem.Value
		switch {
		case mem.Key == commentKey && v != nil && strings.Contains(v.Str, templateComment):
			out.Errorf("meta.placeholder", file, line, "", "%s holds the template's instructions: follow them, then delete the %s key", commentKey, commentKey)
		case v == nil || v.Kind != jsondoc.String:
		case placeholderRe.MatchString(v.Str) && requiredMeta[mem.Key]:
			out.Errorf("meta.placeholder", file, line, "", "%s is still the template's placeholder %q: replace it with what it describes", mem.Key, v.Str)
		case placeholderRe.MatchString(v.Str):
			out.Errorf("meta.placeholder", file, line, "", "%s is still the template's placeholder %q: replace it with what it describes, or delete %s if it does not apply", mem.Key, v.Str, mem.Key)
		case v.Str == datePlaceholder:
			out.Errorf("meta.placeholder", file, line, "", "%s is still the template's placeholder %q: write the date of the run", mem.Key, datePlaceholder)
		}
	}
	return out
}
