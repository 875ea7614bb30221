package ranking

import (
	"fmt"
	"strings"
	"testing"
)

func TestPriceTicks(t *testing.T) {
	tests := []struct {
		ticks []float64
		want  string
	}{
		{[]float64{0, 0.05, 0.1, 0.15, 0.2, 0.25}, "$0.00 $0.05 $0.10 $0.15 $0.20 $0.25"},
		{[]float64{0, 2, 4, 6, 8}, "$0 $2 $4 $6 $8"},
		{[]float64{0, 2.5, 5, 7.5, 10}, "$0.0 $2.5 $5.0 $7.5 $10.0"},
		{[]float64{0.01, 0.1, 1, 10}, "$0.01 $0.10 $1.00 $10.00"},
		{[]float64{0.001, 0.002, 0.005, 0.01}, "$0.001 $0.002 $0.005 $0.010"},
		{[]float64{0, 5000, 10000, 15000}, "$0k $5k $10k $15k"},
		{[]float64{0, 0.3 * 3, 1.8}, "$0.0 $0.9 $1.8"}, // 0.3 × 3 is 0.8999…: the ticks are rounded first
	}
	for _, tt := range tests {
		if got := strings.Join(priceTicks(tt.ticks), " "); got != tt.want {
			t.Errorf("priceTicks(%v) = %s, want %s", tt.ticks, got, tt.want)
		}
	}
}

// TestScatterLabelsApart: entries at one price with close scores, the
// example board's case, get labels that overlap neither each other nor
// any mark; where there is no room left at all a label is dropped, and
// the page says so, rather than printed over another.
func TestScatterLabelsApart(t *testing.T) {
	bm := &Benchmark{Key: "k", Label: "K", Kind: "mcq", MaxScore: 1}
	for i, name := range []string{"Qwen3-32B", "geoagent with Qwen3-32B", "Llama 3.3 70B Instruct", "Another model at the same price", "And one more", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth", "Eleventh", "Twelfth"} {
		s := 0.80 + 0.01*float64(i)
		bm.Entries = append(bm.Entries, Entry{Slug: name, Track: "model-benchmark", ModelName: name, Score: s, CILow: s - 0.1, CIHigh: s + 0.1, PriceInput: new(0.1), PriceOutput: new(0.3)})
	}
	c, _ := newScatterChart("x", bm, 0.95)
	var boxes []box
	labelled := 0
	for i, p := range c.Points {
		if p.Label == "" {
			continue
		}
		labelled++
		x, y := parseNum(t, p.LabelX), parseNum(t, p.LabelY)
		w := labelWidth(p.Label)
		b := box{x, x + w, y - labelAscent, y + labelDescent}
		if p.LabelAnchor == "end" {
			b = box{x - w, x, y - labelAscent, y + labelDescent}
		}
		for j, q := range c.Points {
			if m := (box{parseNum(t, q.X) - 6, parseNum(t, q.X) + 6, parseNum(t, q.Y) - 6, parseNum(t, q.Y) + 6}); b.overlaps(m) {
				t.Errorf("label %d (%s) lies over mark %d", i, p.Label, j)
			}
		}
		for _, o := range boxes {
			if b.overlaps(o) {
				t.Errorf("label %d (%s) lies over another", i, p.Label)
			}
		}
		boxes = append(boxes, b)
	}
	if labelled < 6 || labelled+c.Unlabelled != len(bm.Entries) {
		t.Errorf("%d labelled, %d left out, of %d", labelled, c.Unlabelled, len(bm.Entries))
	}
	if c.Unlabelled == 0 {
		t.Error("twelve entries at one price all found room: the test shows nothing")
	}
}

func parseNum(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return f
}
