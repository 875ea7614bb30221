package filecache

import (
	"sort"
	"sync"
)

// Memory is a cache kept in memory, safe for concurrent use; the zero
// value is empty and ready. It stands in for a Dir where nothing should
// outlive the process, as in tests.
type Memory struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Get returns the bytes stored under key.
func (c *Memory) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.m[key]
	return data, ok
}

// Put stores data under key.
func (c *Memory) Put(key string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[key] = data
}

// Keys returns the keys stored, sorted.
func (c *Memory) Keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
