package jsondoc

import (
	"fmt"
	"io"
	"io/fs"
)

// TooLargeError reports a file above the size limit.
type TooLargeError struct {
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the file is larger than the %s limit", formatBytes(e.Max))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

// ReadFile reads a file of at most maxBytes (0: no limit) from fsys. It
// reads no more than the limit even when the file grows or lies about its
// size, so an oversized file costs nothing.
func ReadFile(fsys fs.FS, name string, maxBytes int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	var size int64 = -1
	if st, err := f.Stat(); err == nil {
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a file", name)
		}
		size = st.Size()
	}
	if maxBytes > 0 {
		if size > maxBytes {
			return nil, &TooLargeError{Size: size, Max: maxBytes}
		}
		r = io.LimitReader(f, maxBytes+1)
	}
	buf := make([]byte, 0, max(size, 512)+1)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
	if maxBytes > 0 && int64(len(buf)) > maxBytes {
		return nil, &TooLargeError{Size: int64(len(buf)), Max: maxBytes}
	}
	return buf, nil
}
