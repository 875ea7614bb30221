package filecache

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	d := Dir(t.TempDir())
	if _, ok := d.Get("abcdef"); ok {
		t.Fatal("hit in an empty cache")
	}
	d.Put("abcdef", []byte("one"))
	d.Put("abcdef", []byte("two")) // replaced whole
	if got, ok := d.Get("abcdef"); !ok || string(got) != "two" {
		t.Errorf("Get = %q, %v", got, ok)
	}
	d.Put("x", []byte("short key"))
	if got, ok := d.Get("x"); !ok || string(got) != "short key" {
		t.Errorf("short key: %q, %v", got, ok)
	}
	// Entries are private to their owner.
	if fi, err := os.Stat(d.file("abcdef")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("entry mode %v, %v; want 0600", fi.Mode(), err)
	}
	// No temporary files are left behind.
	leftovers, _ := filepath.Glob(filepath.Join(string(d), "*", ".*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	// A cache that cannot be written is silently a cache that misses.
	ro := Dir(filepath.Join(t.TempDir(), "file"))
	os.WriteFile(string(ro), nil, 0o644)
	ro.Put("abcdef", []byte("x"))
	if _, ok := ro.Get("abcdef"); ok {
		t.Error("hit in an unwritable cache")
	}
}

func TestCodeVersion(t *testing.T) {
	v := CodeVersion()
	if v == "" || v != CodeVersion() {
		t.Errorf("CodeVersion() = %q, not stable and non-empty", v)
	}
}
