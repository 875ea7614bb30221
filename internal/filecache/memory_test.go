package filecache

import (
	"slices"
	"testing"
)

func TestMemory(t *testing.T) {
	var c Memory // the zero value is ready
	if _, ok := c.Get("a"); ok {
		t.Fatal("an empty cache has a")
	}
	c.Put("b", []byte("2"))
	c.Put("a", []byte("1"))
	c.Put("b", []byte("3"))
	if d, ok := c.Get("b"); !ok || string(d) != "3" {
		t.Errorf("b = %q, %v; want the last put", d, ok)
	}
	if k := c.Keys(); !slices.Equal(k, []string{"a", "b"}) {
		t.Errorf("Keys() = %v", k)
	}
}
