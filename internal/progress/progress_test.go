package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/syncbuf"
)

func TestLine(t *testing.T) {
	if got := Line(50, 200, 2, 0.25, 10*time.Second, false, false); got != "50/200 (25%), 2 failed, 5.0/s, ETA 30s, $0.2500\n" {
		t.Errorf("plain: %q", got)
	}
	if got := Line(200, 200, 0, 0, 10*time.Second, true, true); !strings.HasPrefix(got, "\r\033[K[########################] 200/200 (100%)") || !strings.HasSuffix(got, "\n") {
		t.Errorf("terminal: %q", got)
	}
	if got := Line(0, 10, 0, 0, 0, false, false); got != "0/10 (0%), 0.0/s, ETA –, $0.0000\n" {
		t.Errorf("start: %q", got)
	}
}

func TestTracker(t *testing.T) {
	var out syncbuf.Buffer
	tr := Start(&out, false, 3)
	tr.Add(false, 0.5)
	tr.Add(true, 0)
	tr.Add(false, 0.25)
	tr.Stop()
	tr.Stop() // twice is harmless
	if got := out.String(); !strings.HasPrefix(got, "3/3 (100%), 1 failed") || !strings.Contains(got, "$0.7500") {
		t.Errorf("final report %q", got)
	}
	Start(nil, true, 5).Stop() // reporting nowhere
}
