package prcheck

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports: the check stays pure. Neither the package nor anything it
// imports, however indirectly, may bring in HTTP, Prometheus, YAML or
// package bot (the gathering and the posting are bot's, over GitHub).
func TestImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the imports with: %v", err)
	}
	const self = "github.com/benchgate/benchgate/bot/prcheck"
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", self).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != self {
		t.Fatalf("go list -deps did not list %s: %q", self, deps)
	}
	forbidden := func(p string) bool {
		switch {
		case p == self:
			return false
		case p == "net/http", strings.HasPrefix(p, "net/http/"),
			strings.HasPrefix(p, "github.com/prometheus/"),
			p == "gopkg.in/yaml.v3", strings.HasPrefix(p, "gopkg.in/yaml.v3/"),
			p == "github.com/benchgate/benchgate/bot", strings.HasPrefix(p, "github.com/benchgate/benchgate/bot/"):
			return true
		}
		return false
	}
	for _, p := range deps {
		if forbidden(p) {
			t.Errorf("%s imports %s, directly or through its imports", self, p)
		}
	}
}
