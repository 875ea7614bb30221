package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// leftovers are the temporary files left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "board.json")
	for _, data := range []string{"a longer first version\n", "short\n", ""} {
		if err := Write(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Errorf("read %q, %v; want %q", got, err, data)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestWriteUnsynced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "entry")
	if err := WriteUnsynced(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteUnsynced(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Errorf("read %q, %v", got, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

// TestWriteFails: a folder that does not exist, and a rename that fails
// because a folder is in the way; no temporary file is left, and what was
// there is untouched.
func TestWriteFails(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Error("no error writing into a missing folder")
	}
	inTheWay := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(inTheWay, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(string, []byte) error{
		"Write":         Write,
		"WriteUnsynced": func(p string, d []byte) error { return WriteUnsynced(p, d, 0o600) },
	} {
		if err := write(inTheWay, []byte("x")); err == nil {
			t.Errorf("%s: no error replacing a folder", name)
		}
		if fi, err := os.Stat(filepath.Join(inTheWay, "child")); err != nil || !fi.IsDir() {
			t.Errorf("%s: the folder in the way changed: %v", name, err)
		}
		if l := leftovers(t, dir); len(l) > 0 {
			t.Errorf("%s: temporary files left: %v", name, l)
		}
	}
}

// TestReadersSeeWholeFiles reads the file while it is replaced again and
// again; every read is one whole version.
func TestReadersSeeWholeFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.html")
	a, b := bytes.Repeat([]byte("a"), 1<<16), bytes.Repeat([]byte("b"), 1<<17)
	if err := Write(path, a); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("read: %v", err)
				return
			}
			if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
				t.Errorf("read %d bytes, neither version", len(got))
				return
			}
		}
	})
	for i := range 50 {
		data := a
		if i%2 == 0 {
			data = b
		}
		if err := Write(path, data); err != nil {
			t.Error(err)
			break
		}
	}
	close(stop)
	wg.Wait()
}
