package callcount

import (
	"context"
	"sync"
	"testing"
)

func TestCount(t *testing.T) {
	Add(context.Background()) // no counter: nothing happens
	ctx, c := With(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Go(func() { Add(ctx) })
	}
	wg.Wait()
	if c.N() != 50 {
		t.Fatalf("counted %d, want 50", c.N())
	}
	inner, d := With(ctx)
	Add(inner)
	if c.N() != 50 || d.N() != 1 {
		t.Errorf("a nested counter: %d and %d", c.N(), d.N())
	}
}
