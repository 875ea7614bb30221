package llm

import (
	"regexp"
	"strings"
)

// SameModel reports whether an answer served by the model named served
// comes from the model asked for. Providers name what served a call
// otherwise than it was asked: OpenAI and Azure answer with the dated
// snapshot an alias points to ("gpt-4o" served as "gpt-4o-2024-08-06",
// https://platform.openai.com/docs/models), OpenRouter with its slug
// ("openai/gpt-4o"), Azure with the model under a deployment rather than
// the deployment's name. The rule, on names in lower case:
//
//   - served empty: the answer did not say, and is taken as given;
//   - a vendor prefix ("openai/") on one side only is dropped, and so is
//     an OpenRouter variant suffix (":free", ":nitro", ...);
//   - the names are equal; or asked is an alias, that is carries no
//     version stamp, and served is asked followed by one: "-" and a date
//     (2024-08-06, 20241022), four digits (0613, 2411) or three (002). An
//     alias ending in "-latest" stands for its stem followed by a stamp.
//
// A stamp asked for is kept: "gpt-4o-2024-05-13" is not served by
// "gpt-4o-2024-08-06", nor "gpt-4o" by "gpt-4o-mini-2024-07-18".
func SameModel(asked, served string) bool {
	if served == "" {
		return true
	}
	a, s := modelName(asked), modelName(served)
	aVendor, aName, aHas := strings.Cut(a, "/")
	sVendor, sName, sHas := strings.Cut(s, "/")
	switch {
	case aHas && sHas && aVendor != sVendor:
		return false
	case aHas && sHas:
		a, s = aName, sName
	case aHas:
		a = aName
	case sHas:
		s = sName
	}
	if a == s {
		return true
	}
	if stem, ok := strings.CutSuffix(a, "-latest"); ok {
		a = stem
	} else if versionStamp.MatchString(a) {
		return false
	}
	rest, ok := strings.CutPrefix(s, a)
	return ok && onlyStamp.MatchString(rest)
}

// versionStamp is a trailing version stamp of a model name; onlyStamp is
// one alone.
var (
	versionStamp = regexp.MustCompile(`-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|\d{3})$`)
	onlyStamp    = regexp.MustCompile(`^-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|\d{3})$`)
)

// openRouterVariants are OpenRouter's model variant suffixes
// (https://openrouter.ai/docs/guides/routing/model-variants).
var openRouterVariants = []string{":free", ":beta", ":extended", ":thinking", ":online", ":nitro", ":floor", ":exacto"}

// modelName is a model name in lower case, without an OpenRouter variant
// suffix.
func modelName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, v := range openRouterVariants {
		if t, ok := strings.CutSuffix(s, v); ok {
			return t
		}
	}
	return s
}
