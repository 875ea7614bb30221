package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The flag package's own messages and help write a flag -name; the docs,
// and people, write --name. These helpers print every flag with two
// dashes, suggest the flag a mistyped one meant, and keep a concept's
// former names working without listing them.

// aliasValue is a flag registered under a former name of another: it
// sets the same value, and help does not list it.
type aliasValue struct {
	flag.Value
	of string // the flag's current name
}

// IsBoolFlag lets a boolean flag's alias be given without a value.
func (a aliasValue) IsBoolFlag() bool {
	b, ok := a.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// alias registers old as a hidden name of the flag name, which must be
// registered already.
func alias(fl *flag.FlagSet, old, name string) {
	f := fl.Lookup(name)
	if f == nil {
		panic("alias of an unregistered flag --" + name) // a programming error, found by any test
	}
	fl.Var(aliasValue{f.Value, name}, old, "")
}

func isAlias(f *flag.Flag) bool {
	_, ok := f.Value.(aliasValue)
	return ok
}

// printFlags writes the help of fl's flags, as flag.PrintDefaults does but
// with --name, and without the hidden aliases.
func printFlags(fl *flag.FlagSet, w io.Writer) {
	fl.VisitAll(func(f *flag.Flag) {
		if isAlias(f) {
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "  --%s", f.Name)
		name, usage := flag.UnquoteUsage(f)
		if t, ok := f.Value.(interface{ argName() string }); ok && name == "value" {
			name = t.argName()
		}
		if name != "" {
			b.WriteString(" " + name)
		}
		b.WriteString("\n    \t")
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" {
			if g, ok := f.Value.(flag.Getter); ok {
				if _, isString := g.Get().(string); isString {
					d = fmt.Sprintf("%q", d)
				}
			}
			fmt.Fprintf(&b, " (default %s)", d)
		}
		fmt.Fprintln(w, b.String())
	})
}

// parseFlags parses args with fl, printing the help for -h (returning
// flag.ErrHelp) and turning any other error into a usage error whose
// message writes --name, with a suggestion for a flag fl does not define.
func parseFlags(fl *flag.FlagSet, args []string) error {
	out, usage := fl.Output(), fl.Usage
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	err := fl.Parse(args)
	fl.SetOutput(out)
	fl.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fl.SetOutput(helpOutput(out))
		usage()
		fl.SetOutput(out)
		return err
	}
	return &exitError{code: exitUsage, err: errors.New(flagMessage(fl, err.Error())), usage: usage}
}

// flagMessage rewrites a message of the flag package.
func flagMessage(fl *flag.FlagSet, msg string) string {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + name
		if s := suggestFlags(fl, name); len(s) > 0 {
			msg += "; did you mean --" + strings.Join(s, " or --") + "?"
		}
		return msg
	}
	return strings.NewReplacer("for flag -", "for flag --", "for -", "for --", "argument: -", "argument: --").Replace(msg)
}

// suggestFlags lists the listed flags of fl nearest to the unknown name:
// a typo or two away, or names it begins.
func suggestFlags(fl *flag.FlagSet, name string) []string {
	var names []string
	fl.VisitAll(func(f *flag.Flag) {
		if !isAlias(f) {
			names = append(names, f.Name)
		}
	})
	return nearest(name, names)
}

// nearest are the candidates closest to s: at the smallest edit distance
// (a swap of two neighbours counting as one edit) up to a third of s's
// length, at least 1; failing that, those that s begins.
func nearest(s string, candidates []string) []string {
	limit := max(1, len(s)/3)
	best, out := limit+1, []string(nil)
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		switch {
		case d < best:
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	if out == nil && len(s) >= 2 {
		for _, c := range candidates {
			if strings.HasPrefix(c, s) {
				out = append(out, c)
			}
		}
	}
	sort.Strings(out)
	return out
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of adjacent bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
