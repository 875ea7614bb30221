package syncbuf

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestConcurrent writes lines from several goroutines while another reads;
// every line arrives whole, once. Run it under -race.
func TestConcurrent(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	var want []string
	for w := range 8 {
		for i := range 100 {
			want = append(want, fmt.Sprintf("writer %d line %d", w, i))
		}
		wg.Go(func() {
			for i := range 100 {
				fmt.Fprintf(&b, "writer %d line %d\n", w, i)
			}
		})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			_ = b.String()
		}
	}()
	wg.Wait()
	<-done
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %d lines, want %d, or lines were torn", len(got), len(want))
	}
}
