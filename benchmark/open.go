package benchmark

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/benchgate/benchgate/finding"
)

// KeyError reports a key that the registry does not hold.
type KeyError struct {
	Key   string
	Known []string // the registry's keys, sorted; nil when it could not be read
	// Registry is the registry file as the reader knows it, RegistryFile
	// when empty: a command line names it by the path it was given.
	Registry string
	// OrFile says that Key could also have been a benchmark file's path,
	// and names none (LintNamed).
	OrFile bool
}

func (e *KeyError) Error() string {
	if e.OrFile {
		known := ""
		if e.Known != nil {
			known = "; registry keys: " + strings.Join(e.Known, ", ")
		}
		return fmt.Sprintf("%q is neither a benchmark key in %s nor a benchmark file%s", e.Key, e.registry(), known)
	}
	return fmt.Sprintf("no benchmark %q in %s (known: %s)", e.Key, e.registry(), strings.Join(e.Known, ", "))
}

func (e *KeyError) registry() string {
	if e.Registry == "" {
		return RegistryFile
	}
	return e.Registry
}

// OpenRegistry is LoadRegistry for a caller that only needs a registry it
// can use: the findings matter only when it cannot, and are the error.
func OpenRegistry(fsys fs.FS) (*Registry, error) {
	reg, fs := LoadRegistry(fsys)
	if reg == nil {
		return nil, fmt.Errorf("the benchmark registry cannot be used: %s", listed(fs))
	}
	return reg, nil
}

// Open loads the benchmark of a registry key of the leaderboard in fsys,
// for a caller that needs a usable benchmark or an error: a *KeyError
// when the registry lacks the key, otherwise one that quotes the
// registry's or the benchmark's errors. Package verify, which reports
// findings rather than failing, looks benchmarks up itself.
func Open(fsys fs.FS, key string) (*Benchmark, error) {
	reg, err := OpenRegistry(fsys)
	if err != nil {
		return nil, err
	}
	e, ok := reg.Lookup(key)
	if !ok {
		return nil, &KeyError{Key: key, Known: reg.Keys()}
	}
	b, fs := Load(fsys, e)
	if b == nil {
		errs, _ := fs.Split()
		return nil, fmt.Errorf("benchmark %q cannot be used: %s", key, listed(errs))
	}
	return b, nil
}

// listed writes findings for an error message: one inline, several one a
// line, never as a Go slice.
func listed(fs finding.List) string {
	if len(fs) == 1 {
		return fs[0].String()
	}
	msgs := make([]string, len(fs))
	for i, f := range fs {
		msgs[i] = f.String()
	}
	return "\n  " + strings.Join(msgs, "\n  ")
}
