// Package progress reports a long run of calls to a person: a redrawn bar
// with done/total, rate, ETA and spend on a terminal, and a plain line
// every ten seconds otherwise (a CI log, a file).
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// IsTerminal reports whether f is a terminal, so that a bar can be
// redrawn in place.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Tracker counts a run's calls and reports them until Stop.
type Tracker struct {
	w        io.Writer
	terminal bool
	total    int
	start    time.Time

	mu           sync.Mutex
	done, failed int
	spend        float64

	stop     chan struct{}
	finished chan struct{}
}

// Start reports on w (nil: nowhere) a run of total calls.
func Start(w io.Writer, terminal bool, total int) *Tracker {
	t := &Tracker{w: w, terminal: terminal, total: total, start: time.Now(), stop: make(chan struct{}), finished: make(chan struct{})}
	if w == nil || total == 0 {
		close(t.finished)
		return t
	}
	every := 10 * time.Second
	if terminal {
		every = 250 * time.Millisecond
	}
	go func() {
		defer close(t.finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				t.report(false)
			case <-t.stop:
				t.report(true)
				return
			}
		}
	}()
	return t
}

// Add records one finished call.
func (t *Tracker) Add(failed bool, costUSD float64) {
	t.mu.Lock()
	t.done++
	if failed {
		t.failed++
	}
	t.spend += costUSD
	t.mu.Unlock()
}

// Stop writes the last report and stops.
func (t *Tracker) Stop() {
	select {
	case <-t.stop:
	default:
		close(t.stop)
	}
	<-t.finished
}

func (t *Tracker) report(final bool) {
	t.mu.Lock()
	n, failed, spend := t.done, t.failed, t.spend
	t.mu.Unlock()
	fmt.Fprint(t.w, Line(n, t.total, failed, spend, time.Since(t.start), t.terminal, final))
}

// Line formats one report: done/total, rate, ETA and spend.
func Line(n, total, failed int, spend float64, elapsed time.Duration, terminal, final bool) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(n) / s
	}
	eta := "–"
	if rate > 0 && n < total {
		eta = time.Duration(float64(total-n) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fail := ""
	if failed > 0 {
		fail = fmt.Sprintf(", %d failed", failed)
	}
	text := fmt.Sprintf("%d/%d (%.0f%%)%s, %.1f/s, ETA %s, $%.4f", n, total, 100*float64(n)/float64(max(total, 1)), fail, rate, eta, spend)
	if !terminal {
		return text + "\n"
	}
	const width = 24
	filled := width * min(n, total) / max(total, 1)
	bar := "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "] "
	end := ""
	if final {
		end = "\n"
	}
	return "\r\033[K" + bar + text + end
}
