package ranking

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchgate/benchgate/internal/golden"
)

// Screenshots are compared by their layout, not pixel by pixel: fonts and
// anti-aliasing differ between machines, where the place of the table, the
// masthead and the cards does not. Each picture is cut into cells of
// screenCell pixels; a cell differs when its mean brightness moves by more
// than screenLevel (of 255), and the pictures match when no more than
// screenShare of the cells differ.
const (
	screenCell  = 24
	screenLevel = 24.0
	screenShare = 0.08
)

// checkScreenshot compares a screenshot with testdata/golden/name, which
// -update rewrites.
func checkScreenshot(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(golden.Dir, name)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if err := sameLayout(got, want); err != nil {
		keep := filepath.Join(t.TempDir(), filepath.Base(name))
		os.WriteFile(keep, got, 0o644)
		t.Errorf("%s: %v; the new screenshot is %s (run with -update if the change is intended)", path, err, keep)
	}
}

// sameLayout says how two screenshots differ beyond the tolerance, or nil.
func sameLayout(a, b []byte) error {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return fmt.Errorf("the screenshot: %w", err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("the golden screenshot: %w", err)
	}
	if ia.Bounds().Size() != ib.Bounds().Size() {
		return fmt.Errorf("the screenshot is %v, the golden one %v", ia.Bounds().Size(), ib.Bounds().Size())
	}
	ga, gb := cells(ia), cells(ib)
	differ := 0
	for i := range ga {
		if math.Abs(ga[i]-gb[i]) > screenLevel {
			differ++
		}
	}
	if share := float64(differ) / float64(len(ga)); share > screenShare {
		return fmt.Errorf("%d of %d cells of %d px differ (%.1f%%, more than %.0f%%)", differ, len(ga), screenCell, 100*share, 100*screenShare)
	}
	return nil
}

// cells is the mean brightness of each screenCell × screenCell square.
func cells(img image.Image) []float64 {
	r := img.Bounds()
	cols, rows := (r.Dx()+screenCell-1)/screenCell, (r.Dy()+screenCell-1)/screenCell
	sum := make([]float64, cols*rows)
	n := make([]float64, cols*rows)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			i := ((y-r.Min.Y)/screenCell)*cols + (x-r.Min.X)/screenCell
			sum[i] += (0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)) / 257
			n[i]++
		}
	}
	for i := range sum {
		sum[i] /= n[i]
	}
	return sum
}

// TestSameLayout: the comparison tells a moved block from noise.
func TestSameLayout(t *testing.T) {
	draw := func(top int, noise bool) []byte {
		img := image.NewGray(image.Rect(0, 0, 240, 240))
		for y := 0; y < 240; y++ {
			for x := 0; x < 240; x++ {
				v := uint8(255)
				if y >= top && y < top+60 {
					v = 20
				}
				if noise && (x*7+y*3)%11 == 0 {
					v ^= 0x10
				}
				img.Pix[y*img.Stride+x] = v
			}
		}
		var buf bytes.Buffer
		png.Encode(&buf, img)
		return buf.Bytes()
	}
	if err := sameLayout(draw(40, true), draw(40, false)); err != nil {
		t.Errorf("noise counted as a change: %v", err)
	}
	if err := sameLayout(draw(120, false), draw(40, false)); err == nil {
		t.Error("a block moved 80 px is not a change")
	}
}
