package submission

import (
	"fmt"
	"unicode/utf8"
)

// MaxLoginLen is the longest GitHub login.
const MaxLoginLen = 39

// botSuffix ends the login of a GitHub App's bot account ("name[bot]"),
// which authors the pull requests an App opens.
const botSuffix = "[bot]"

// LoginRule says what a GitHub login is, for the people who must write one.
const LoginRule = "a GitHub login is 1 to 39 ASCII letters, digits and single hyphens, neither starting nor ending with a hyphen (an App's bot account adds [bot])"

// Login is a GitHub login that ParseLogin accepted: ASCII only, so that
// comparing two of them case-insensitively is an ASCII comparison and no
// look-alike (the Kelvin sign for K, a Cyrillic а for a) can stand for
// another account.
type Login string

// ParseLogin reads s as a GitHub login: letters, digits and single
// hyphens, no hyphen first or last, at most MaxLoginLen characters,
// optionally followed by "[bot]" as GitHub names an App's account. The
// error says what is wrong and where, by character.
func ParseLogin(s string) (Login, error) {
	name := s
	if len(name) > len(botSuffix) && name[len(name)-len(botSuffix):] == botSuffix {
		name = name[:len(name)-len(botSuffix)]
	}
	if name == "" {
		return "", fmt.Errorf("the login is empty: %s", LoginRule)
	}
	for i, r := range []rune(s) {
		if r == utf8.RuneError || r >= utf8.RuneSelf {
			return "", fmt.Errorf("character %d of %q is U+%04X, not ASCII: %s", i+1, s, r, LoginRule)
		}
	}
	if len(name) > MaxLoginLen {
		return "", fmt.Errorf("%q has %d characters: %s", s, len(name), LoginRule)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' && i == 0:
			return "", fmt.Errorf("%q starts with a hyphen: %s", s, LoginRule)
		case c == '-' && i == len(name)-1:
			return "", fmt.Errorf("%q ends with a hyphen: %s", s, LoginRule)
		case c == '-' && name[i-1] == '-':
			return "", fmt.Errorf("%q has two hyphens in a row at character %d: %s", s, i, LoginRule)
		case c == '-':
		default:
			return "", fmt.Errorf("character %d of %q is %q: %s", i+1, s, rune(c), LoginRule)
		}
	}
	return Login(s), nil
}

// Is reports whether l and o name the same account: GitHub compares
// logins without regard to case, and both being ASCII, only ASCII letters
// fold (strings.EqualFold would also fold the Kelvin sign to k).
func (l Login) Is(o Login) bool {
	if len(l) != len(o) {
		return false
	}
	for i := 0; i < len(l); i++ {
		if lowerASCII(l[i]) != lowerASCII(o[i]) {
			return false
		}
	}
	return true
}

// SameLogin reports whether a and b are both GitHub logins (ParseLogin)
// and name the same account. Anything that is not a login matches
// nothing, not even itself.
func SameLogin(a, b string) bool {
	la, errA := ParseLogin(a)
	lb, errB := ParseLogin(b)
	return errA == nil && errB == nil && la.Is(lb)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
