package generate

import (
	"fmt"
	"strings"
	"time"
)

// progress reports the run until the returned function is called: a
// redrawn bar on a terminal, a plain line every ten seconds otherwise.
func (r *runner) progress(start time.Time, total int) (stop func()) {
	if r.cfg.Progress == nil || total == 0 {
		return func() {}
	}
	every := 10 * time.Second
	if r.cfg.Terminal {
		every = 250 * time.Millisecond
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				r.report(start, total, false)
			case <-done:
				r.report(start, total, true)
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}

func (r *runner) report(start time.Time, total int, final bool) {
	r.mu.Lock()
	n, failed, spend := r.sum.Done+r.sum.Failed, r.sum.Failed, r.sum.SpendUSD
	r.mu.Unlock()
	fmt.Fprint(r.cfg.Progress, progressLine(n, total, failed, spend, time.Since(start), r.cfg.Terminal, final))
}

// progressLine formats one report: done/total, rate, ETA and spend.
func progressLine(n, total, failed int, spend float64, elapsed time.Duration, terminal, final bool) string {
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
	text := fmt.Sprintf("%d/%d (%.0f%%)%s, %.1f/s, ETA %s, $%.4f", n, total, 100*float64(n)/float64(total), fail, rate, eta, spend)
	if !terminal {
		return text + "\n"
	}
	const width = 24
	filled := width * n / total
	bar := "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "] "
	end := ""
	if final {
		end = "\n"
	}
	return "\r\033[K" + bar + text + end
}
