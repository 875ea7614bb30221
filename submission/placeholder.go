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

// SubmitterIs says what meta.json's submitter must be: the one wording
// of the rule, for the checks, the commands' help and their messages.
const SubmitterIs = "the GitHub login of the pull request's author"

// placeholderHint says, for the members whose value a person is likely to
// get wrong, what to write instead of the placeholder.
var placeholderHint = map[string]string{"submitter": "write " + SubmitterIs + " (whoever opens the pull request)"}

// FillIn marks a value that a tool wrote for a person to replace, such
// as the importer's contact when the source names none: "FILL IN: " and
// what to write. Verification refuses it as a placeholder.
const FillIn = "FILL IN: "

// FillInValue is the placeholder that asks for what.
func FillInValue(what string) string { return FillIn + what }

// IsFillIn reports whether s is a FillIn placeholder.
func IsFillIn(s string) bool { return strings.HasPrefix(s, strings.TrimSpace(FillIn)) }

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
// template is whether any is the template's: a file with only values
// that a tool wrote for a person to replace (FillIn) has its other
// members real, so that the rest of the submission can still be checked.
func placeholders(file string, doc *jsondoc.Doc) (out finding.List, template bool) {
	if doc.Root == nil || doc.Root.Kind != jsondoc.Object {
		return nil, false
	}
	for _, mem := range doc.Root.Members {
		line := doc.Line(mem.KeyOff)
		v := mem.Value
		n := len(out)
		switch {
		case v != nil && v.Kind == jsondoc.String && IsFillIn(v.Str):
			hint := placeholderHint[mem.Key]
			if hint == "" {
				hint = "replace it with what it asks for"
			}
			out.Errorf("meta.placeholder", file, line, "", "%s is still a placeholder %q: %s", mem.Key, v.Str, hint)
			continue
		case mem.Key == commentKey && v != nil && strings.Contains(v.Str, templateComment):
			out.Errorf("meta.placeholder", file, line, "", "%s holds the template's instructions: follow them, then delete the %s key", commentKey, commentKey)
		case v == nil || v.Kind != jsondoc.String:
		case placeholderRe.MatchString(v.Str) && placeholderHint[mem.Key] != "":
			out.Errorf("meta.placeholder", file, line, "", "%s is still a placeholder %q: %s", mem.Key, v.Str, placeholderHint[mem.Key])
		case placeholderRe.MatchString(v.Str) && requiredMeta[mem.Key]:
			out.Errorf("meta.placeholder", file, line, "", "%s is still the template's placeholder %q: replace it with what it describes", mem.Key, v.Str)
		case placeholderRe.MatchString(v.Str):
			out.Errorf("meta.placeholder", file, line, "", "%s is still the template's placeholder %q: replace it with what it describes, or delete %s if it does not apply", mem.Key, v.Str, mem.Key)
		case v.Str == datePlaceholder:
			out.Errorf("meta.placeholder", file, line, "", "%s is still the template's placeholder %q: write the date of the run", mem.Key, datePlaceholder)
		}
		template = template || len(out) > n
	}
	return out, template
}
