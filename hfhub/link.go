package hfhub

import (
	"fmt"
	"strings"
)

// ParseLink returns the target of rel="next" in a Link header, "" when
// there is none. The Hub pages tree and commit listings with the Link
// format GitHub uses (hf-hub.md §2.1 "Pagination", RFC 8288): a
// comma-separated list of <target> followed by ;-separated parameters.
func ParseLink(h string) (string, error) {
	rest := strings.TrimSpace(h)
	next := ""
	for rest != "" {
		if rest[0] != '<' {
			return "", fmt.Errorf("the Link header: expected '<' at %q", clip(rest))
		}
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return "", fmt.Errorf("the Link header: no '>' after %q", clip(rest))
		}
		target := rest[1:end]
		rest = strings.TrimLeft(rest[end+1:], " \t")
		isNext := false
		for rest != "" && rest[0] == ';' {
			rest = strings.TrimLeft(rest[1:], " \t")
			name, val, n, err := linkParam(rest)
			if err != nil {
				return "", err
			}
			rest = strings.TrimLeft(rest[n:], " \t")
			if strings.EqualFold(name, "rel") {
				for _, r := range strings.Fields(val) {
					if strings.EqualFold(r, "next") {
						isNext = true
					}
				}
			}
		}
		if isNext {
			if next != "" && next != target {
				return "", fmt.Errorf("the Link header: two different rel=\"next\" targets")
			}
			next = target
		}
		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return "", fmt.Errorf("the Link header: expected ',' or ';' at %q", clip(rest))
		}
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	return next, nil
}

// linkParam reads name=value or name="value" (or a bare name) and returns
// how many bytes it took.
func linkParam(s string) (name, val string, n int, err error) {
	i := 0
	for i < len(s) && s[i] != '=' && s[i] != ';' && s[i] != ',' && s[i] != ' ' {
		i++
	}
	name = s[:i]
	if name == "" {
		return "", "", 0, fmt.Errorf("the Link header: empty parameter at %q", clip(s))
	}
	j := i
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j >= len(s) || s[j] != '=' {
		return name, "", i, nil
	}
	j++
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j < len(s) && s[j] == '"' {
		var b strings.Builder
		for k := j + 1; k < len(s); k++ {
			switch s[k] {
			case '\\':
				if k+1 < len(s) {
					k++
					b.WriteByte(s[k])
				}
			case '"':
				return name, b.String(), k + 1, nil
			default:
				b.WriteByte(s[k])
			}
		}
		return "", "", 0, fmt.Errorf("the Link header: unterminated quoted value for %s", name)
	}
	k := j
	for k < len(s) && s[k] != ';' && s[k] != ',' && s[k] != ' ' {
		k++
	}
	return name, s[j:k], k, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
