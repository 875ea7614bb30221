package ranking

import (
	"fmt"
	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/submission"
	"math"
	"strconv"
	"strings"
)

// The charts are drawn here, in Go, so that the page shows them without
// script and the same board always gives the same drawing. Coordinates are
// formatted once, with one decimal, so that the output is stable.

// rankChart is one track of one benchmark, best first: on the left a dot
// per entry at its score with a whisker over its interval, on the right a
// bar over the ranks it may hold (95% for all entries at once), filled
// where it could be #1; bands behind shade the groups.
type rankChart struct {
	ID, Bench, Track string
	Title, Desc      string
	W, H             int
	PlotL, PlotR     string
	Top, AxisY       string
	TickY, TitleY    string
	TitleX           string
	LabelX, ValueX   string
	ClipX, ClipW     string // where model names may be drawn
	AxisTitle        string
	RankL, RankR     string // the rank panel
	RankTitleX       string
	RankTitle        string
	LegendX, LegendY string
	LegendTextX      string
	Bands            []chartBand
	Ticks            []chartTick
	RankTicks        []chartTick
	Rows             []rankRow
}

type chartBand struct {
	Group     int
	Y, H      string
	LabelY    string
	Alternate bool
}

type chartTick struct{ Pos, Label string }

type rankRow struct {
	Label, Tip string
	TextY      string
	X, Y       string
	Whisker    string
	Value      string
	// The bar over the entry's ranks, and its place by score.
	BarX, BarY, BarW string
	PlaceX           string
	Best             bool
}

// scoreScale maps scores of a benchmark onto a length.
type scoreScale struct {
	max   float64
	ticks []float64
	mcq   bool
}

func newScoreScale(bm *Benchmark, es []Entry) scoreScale {
	if bm.Kind == benchmark.KindMCQ {
		return scoreScale{max: 1, ticks: []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, mcq: true}
	}
	top := bm.MaxScore
	if top <= 0 {
		// No rubric to give the maximum: fit the data.
		top = 1
		for _, e := range es {
			top = math.Max(top, e.CIHigh)
		}
	}
	step := niceStep(top / 5)
	var ticks []float64
	for i := 0; float64(i)*step <= top*(1+1e-9); i++ {
		ticks = append(ticks, roundTo(float64(i)*step))
	}
	return scoreScale{max: top, ticks: ticks}
}

// at is the position of v between 0 (lo) and 1 (hi) of the scale.
func (s scoreScale) at(v float64) float64 {
	return math.Min(math.Max(v/s.max, 0), 1)
}

func (s scoreScale) label(v float64) string {
	if s.mcq {
		return fmt.Sprintf("%.0f%%", 100*v)
	}
	return trimFloat(v)
}

func (s scoreScale) value(v float64) string {
	if s.mcq {
		return pct(v)
	}
	return fmt.Sprintf("%.2f", v)
}

func (s scoreScale) title() string {
	if s.mcq {
		return "Accuracy"
	}
	return "Mean points per question (0–" + trimFloat(s.max) + ")"
}

// niceStep rounds a raw tick step up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

func roundTo(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

// truncate shortens a label for a chart; the full text is in its tooltip.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func entryLabel(e Entry) string {
	if e.HarnessName != "" {
		return e.ModelName + " + " + e.HarnessName
	}
	return e.ModelName
}

const (
	rankW      = 1080
	rankGroupR = 72  // right edge of the group labels
	rankLabelR = 330 // right edge of the model names
	rankPlotL  = 350
	rankPlotR  = 690
	rankBarL   = 780 // the rank panel
	rankBarR   = 1060
	rankTop    = 8
	rankRowH   = 30
)

// rankScale places ranks 1..n on the rank panel, 1 on the left.
type rankScale struct{ n int }

func (r rankScale) x(rank int) float64 {
	if r.n <= 1 {
		return (rankBarL + rankBarR) / 2
	}
	return rankBarL + float64(rank-1)/float64(r.n-1)*(rankBarR-rankBarL)
}

// ticks are 1, n and round numbers between, not crowding either end.
func (r rankScale) ticks() []int {
	out := []int{1}
	step := int(math.Max(1, niceStep(float64(r.n-1)/5)))
	for t := step; t < r.n; t += step {
		if t-1 >= step/2 && r.n-t >= step/2 {
			out = append(out, t)
		}
	}
	if r.n > 1 {
		out = append(out, r.n)
	}
	return out
}

func newRankChart(id string, bm *Benchmark, ts *TrackStats, es []Entry, m Method) *rankChart {
	confidence := m.Confidence
	track := es[0].Track
	sc := newScoreScale(bm, es)
	x := func(v float64) float64 { return rankPlotL + sc.at(v)*(rankPlotR-rankPlotL) }
	rs := rankScale{len(es)}
	bottom := float64(rankTop + len(es)*rankRowH)
	c := &rankChart{
		ID:          id,
		Bench:       bm.Key,
		Track:       string(track),
		Title:       benchLabel(bm) + " — " + trackName(track),
		W:           rankW,
		H:           int(bottom) + 68,
		PlotL:       num(rankPlotL),
		PlotR:       num(rankPlotR),
		Top:         num(rankTop),
		AxisY:       num(bottom),
		TickY:       num(bottom + 18),
		TitleY:      num(bottom + 40),
		TitleX:      num((rankPlotL + rankPlotR) / 2),
		LabelX:      num(rankLabelR),
		ClipX:       num(rankGroupR),
		ClipW:       num(rankLabelR - rankGroupR + 2),
		ValueX:      num(rankPlotR + 12),
		AxisTitle:   sc.title(),
		RankL:       num(rankBarL),
		RankR:       num(rankBarR),
		RankTitleX:  num((rankBarL + rankBarR) / 2),
		RankTitle:   "Rank, 95% for all entries at once",
		LegendX:     num(rankBarL),
		LegendY:     num(bottom + 51),
		LegendTextX: num(rankBarL + 16),
	}
	c.Desc = fmt.Sprintf("%s of %d %s, best first. Each dot is a score and each whisker its %.0f%% interval. Beside it, each bar spans the ranks the entry may hold, with 95%% confidence for all entries at once, and a tick marks its place by score; a filled bar could be #1.",
		sc.title(), len(es), plural(len(es), "entry", "entries"), 100*confidence)
	if separates(ts) {
		c.Desc += " Shaded bands are the groups: every entry of a band is significantly better than every entry of the bands below."
	}
	for _, t := range sc.ticks {
		c.Ticks = append(c.Ticks, chartTick{Pos: num(x(t)), Label: sc.label(t)})
	}
	for _, t := range rs.ticks() {
		c.RankTicks = append(c.RankTicks, chartTick{Pos: num(rs.x(t)), Label: strconv.Itoa(t)})
	}
	for i := 0; i < len(es) && separates(ts); {
		j := i
		for j < len(es) && es[j].Group == es[i].Group {
			j++
		}
		y, h := float64(rankTop+i*rankRowH), float64((j-i)*rankRowH)
		c.Bands = append(c.Bands, chartBand{Group: es[i].Group, Y: num(y), H: num(h), LabelY: num(y + h/2 + 4), Alternate: len(c.Bands)%2 == 1})
		i = j
	}
	for i, e := range es {
		y := float64(rankTop+i*rankRowH) + rankRowH/2
		lo, hi := x(e.CILow), x(e.CIHigh)
		score, ci := scoreText(bm, e)
		tip := fmt.Sprintf("%d. %s: %s (%.0f%% interval %s); ranks %s of %d, 95%% for all entries at once: %s", e.Rank, entryLabel(e), score, 100*confidence, ci, rankText(e), len(es), rankWords(e, len(es)))
		if separates(ts) {
			tip += fmt.Sprintf("; group %d", e.Group)
		}
		bl, br := rs.x(e.RankUB)-3, rs.x(e.RankWorst)+3
		c.Rows = append(c.Rows, rankRow{
			Label:   truncate(fmt.Sprintf("%d. %s", e.Rank, entryLabel(e)), 36),
			Tip:     tip,
			TextY:   num(y + 4),
			X:       num(x(e.Score)),
			Y:       num(y),
			Whisker: fmt.Sprintf("M%s %sH%s M%s %sV%s M%s %sV%s", num(lo), num(y), num(hi), num(lo), num(y-5), num(y+5), num(hi), num(y-5), num(y+5)),
			Value:   sc.value(e.Score),
			BarX:    num(bl),
			BarY:    num(y - 4),
			BarW:    num(br - bl),
			PlaceX:  num(rs.x(e.Rank)),
			Best:    e.CouldBeBest,
		})
	}
	return c
}

// scatterChart plots score against blended price for one benchmark, both
// tracks.
type scatterChart struct {
	ID, Bench        string
	Title, Desc      string
	W, H             int
	PlotL, PlotR     string
	PlotT, PlotB     string
	PlotW, PlotH     string
	XTickY, XTitleY  string
	XTitleX, YTitleY string
	YTickX           string
	XTitle, YTitle   string
	XTicks, YTicks   []chartTick
	Points           []scatterPoint
	BothTracks       bool
	LogX             bool
	Unlabelled       int // points whose label found no room
	LegendY          string
}

type scatterPoint struct {
	Harness     bool
	X, Y        string
	SquareX     string // top-left corner of a harness entry's square
	SquareY     string
	Whisker     string
	Label, Tip  string
	LabelX      string
	LabelY      string
	LabelAnchor string
}

const (
	scW     = 1080
	scH     = 440
	scPlotL = 80
	scPlotR = 1040
	scPlotT = 40
	scPlotB = 370
)

// newScatterChart draws the benchmark's entries that give both prices; it
// also returns how many give only one of them.
func newScatterChart(id string, bm *Benchmark, confidence float64) (*scatterChart, int) {
	var priced []Entry
	var prices []float64
	partial := 0
	tracks := map[submission.Track]bool{}
	for _, e := range bm.Entries {
		if p, ok := blendedPrice(e); ok {
			priced = append(priced, e)
			prices = append(prices, p)
			tracks[e.Track] = true
		} else if e.PriceInput != nil || e.PriceOutput != nil {
			partial++
		}
	}
	if len(priced) == 0 {
		return nil, partial
	}
	sc := newScoreScale(bm, bm.Entries)
	px := newPriceScale(prices)
	x := func(p float64) float64 { return scPlotL + px.at(p)*(scPlotR-scPlotL) }
	y := func(v float64) float64 { return scPlotB - sc.at(v)*(scPlotB-scPlotT) }
	c := &scatterChart{
		ID:         id,
		Bench:      bm.Key,
		Title:      benchLabel(bm) + ": score against price",
		W:          scW,
		H:          scH,
		PlotL:      num(scPlotL),
		PlotR:      num(scPlotR),
		PlotT:      num(scPlotT),
		PlotB:      num(scPlotB),
		PlotW:      num(scPlotR - scPlotL),
		PlotH:      num(scPlotB - scPlotT),
		XTickY:     num(scPlotB + 18),
		XTitleY:    num(scPlotB + 46),
		XTitleX:    num((scPlotL + scPlotR) / 2),
		YTitleY:    num((scPlotT + scPlotB) / 2),
		YTickX:     num(scPlotL - 8),
		XTitle:     "Blended price, USD per million tokens: " + PriceFormula,
		YTitle:     sc.title(),
		BothTracks: len(tracks) > 1,
		LegendY:    num(scPlotT - 20),
	}
	if px.log {
		c.LogX = true
		c.XTitle += " (log scale)"
	}
	c.Desc = fmt.Sprintf("%s against blended price for %d %s. Each mark is an entry (circles for the model track, squares for the harness track) with a vertical whisker over its %.0f%% interval; up and to the left is better value.",
		sc.title(), len(priced), plural(len(priced), "entry", "entries"), 100*confidence)
	labels := priceTicks(px.ticks)
	for i, t := range px.ticks {
		c.XTicks = append(c.XTicks, chartTick{Pos: num(x(t)), Label: labels[i]})
	}
	for _, t := range sc.ticks {
		c.YTicks = append(c.YTicks, chartTick{Pos: num(y(t)), Label: sc.label(t)})
	}
	// Labels keep clear of the marks, of the whiskers and of each other;
	// one with no room anywhere near its mark is left out, and its mark
	// keeps its name in its tooltip.
	var marks, whiskers, placed []box
	for i, e := range priced {
		cx, cy := x(prices[i]), y(e.Score)
		marks = append(marks, box{cx - 6, cx + 6, cy - 6, cy + 6})
		whiskers = append(whiskers, box{cx - 1, cx + 1, y(e.CIHigh), y(e.CILow)})
	}
	for i, e := range priced {
		cx, cy := x(prices[i]), y(e.Score)
		score, _ := scoreText(bm, e)
		p := scatterPoint{
			Harness: e.Track == submission.HarnessTrack,
			X:       num(cx),
			Y:       num(cy),
			SquareX: num(cx - 5),
			SquareY: num(cy - 5),
			Whisker: fmt.Sprintf("M%s %sV%s", num(cx), num(y(e.CILow)), num(y(e.CIHigh))),
			Tip: fmt.Sprintf("%s (%s): %s at %s per million tokens blended (input %s, output %s)",
				entryLabel(e), strings.ToLower(trackShortName(e.Track))+" track", score, money(prices[i]), money(*e.PriceInput), money(*e.PriceOutput)),
		}
		label := truncate(displayName(e), 32)
		others := make([]box, 0, len(whiskers))
		for k, w := range whiskers {
			if k != i {
				others = append(others, w)
			}
		}
		if b, anchor, ok := placeLabel(label, cx, cy, [][]box{marks, placed, others}); ok {
			placed = append(placed, b)
			p.Label, p.LabelAnchor = label, anchor
			p.LabelX, p.LabelY = num(b.x0), num(b.y1-labelDescent)
			if anchor == "end" {
				p.LabelX = num(b.x1)
			}
		} else {
			c.Unlabelled++
		}
		c.Points = append(c.Points, p)
	}
	return c, partial
}

// priceTicks labels the price axis with one number of decimals for all its
// ticks, the fewest that show each exactly (at most four), and in
// thousands when the ticks run past $1,000.
func priceTicks(ticks []float64) []string {
	div, suffix := 1.0, ""
	if len(ticks) > 0 && ticks[len(ticks)-1] >= 10000 {
		div, suffix = 1000, "k"
	}
	decimals := 0
	for _, t := range ticks {
		v := roundTo(t / div)
		for decimals < 4 && math.Abs(v-roundDecimals(v, decimals)) > 1e-9 {
			decimals++
		}
	}
	out := make([]string, len(ticks))
	for i, t := range ticks {
		out[i] = "$" + strconv.FormatFloat(roundTo(t/div), 'f', decimals, 64) + suffix
	}
	return out
}

func roundDecimals(v float64, d int) float64 {
	m := math.Pow(10, float64(d))
	return math.Round(v*m) / m
}

// box is a rectangle of the chart: x0 ≤ x ≤ x1, y0 ≤ y ≤ y1.
type box struct{ x0, x1, y0, y1 float64 }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// The extent of a 12 px label around its baseline, with a little room.
const (
	labelAscent  = 13
	labelDescent = 5
)

// labelWidth guesses the width of a label at the chart's font size, on
// the wide side, so that labels that fit apart are apart.
func labelWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r >= 0x2e80: // CJK and other wide characters
			w += 13
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == 'm', r == 'w':
			w += 8.5
		default:
			w += 7
		}
	}
	return w + 4
}

// placeLabel finds where a point's label goes: to the right of its mark,
// then to the left, at the mark's height and then further above and
// below, the first place inside the plot that overlaps nothing in avoid.
// Without such a place it tries again clear of the first two lists only
// (marks and labels: a label may cross another point's whisker); failing
// that, there is no room.
func placeLabel(label string, cx, cy float64, avoid [][]box) (box, string, bool) {
	w := labelWidth(label)
	for _, n := range []int{len(avoid), 2} {
		for _, dy := range []float64{-8, 20, -22, 34, -36, 48, -50, 62, -64} {
			base := cy + dy
			for _, side := range []string{"start", "end"} {
				b := box{cx + 8, cx + 8 + w, base - labelAscent, base + labelDescent}
				if side == "end" {
					b = box{cx - 8 - w, cx - 8, base - labelAscent, base + labelDescent}
				}
				if b.x0 < scPlotL || b.x1 > scPlotR || b.y0 < scPlotT || b.y1 > scPlotB {
					continue
				}
				free := true
				for _, list := range avoid[:n] {
					for _, o := range list {
						if b.overlaps(o) {
							free = false
						}
					}
				}
				if free {
					return b, side, true
				}
			}
		}
	}
	return box{}, "", false
}

// priceScale is linear from zero, or logarithmic when prices span more
// than an order of magnitude and a half, where a linear axis would crowd
// the cheap entries into a corner.
type priceScale struct {
	lo, hi float64
	log    bool
	ticks  []float64
}

func newPriceScale(prices []float64) priceScale {
	lo, hi := math.Inf(1), 0.0
	for _, p := range prices {
		lo, hi = math.Min(lo, p), math.Max(hi, p)
	}
	if lo > 0 && hi/lo >= 30 {
		s := priceScale{log: true, lo: math.Pow(10, math.Floor(math.Log10(lo))), hi: math.Pow(10, math.Ceil(math.Log10(hi)))}
		decades := int(math.Round(math.Log10(s.hi / s.lo)))
		for d := 0; d <= decades; d++ {
			base := s.lo * math.Pow(10, float64(d))
			s.ticks = append(s.ticks, base)
			if decades <= 2 && d < decades {
				s.ticks = append(s.ticks, 2*base, 5*base)
			}
		}
		return s
	}
	if hi <= 0 {
		hi = 1
	}
	// Room to the right of the dearest entry, so that its mark is not cut.
	hi *= 1.08
	step := niceStep(hi / 5)
	s := priceScale{hi: math.Ceil(hi/step*(1-1e-9)) * step}
	for i := 0; float64(i)*step <= s.hi*(1+1e-9); i++ {
		s.ticks = append(s.ticks, roundTo(float64(i)*step))
	}
	return s
}

func (s priceScale) at(p float64) float64 {
	var f float64
	if s.log {
		f = math.Log10(p/s.lo) / math.Log10(s.hi/s.lo)
	} else {
		f = (p - s.lo) / (s.hi - s.lo)
	}
	return math.Min(math.Max(f, 0), 1)
}

func benchLabel(bm *Benchmark) string {
	if bm.Label != "" {
		return bm.Label
	}
	return bm.Key
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// miniChart is an entry's score and interval, or its ranks, as a small
// bar, drawn in its line of the list that stands in for the track's chart
// on a narrow screen, where the chart's text would be too small to read.
type miniChart struct {
	W, H    int
	Track   string // the scale's full length
	Whisker string
	X, Y    string
	Best    bool // a bar of ranks that could be #1
	Title   string
}

const (
	miniW = 120
	miniH = 14
)

func newMiniChart(bm *Benchmark, e Entry) *miniChart {
	sc := newScoreScale(bm, bm.Entries)
	x := func(v float64) float64 { return 4 + sc.at(v)*(miniW-8) }
	y := float64(miniH) / 2
	return &miniChart{
		W: miniW, H: miniH,
		Track:   fmt.Sprintf("M4 %sH%s", num(y), num(miniW-4)),
		Whisker: fmt.Sprintf("M%s %sH%s", num(x(e.CILow)), num(y), num(x(e.CIHigh))),
		X:       num(x(e.Score)),
		Y:       num(y),
	}
}

// newRankMini draws an entry's ranks among the n of its track, 1 on the
// left, with its place by score as a dot.
func newRankMini(e Entry, n int) *miniChart {
	x := func(r int) float64 {
		if n <= 1 {
			return miniW / 2
		}
		return 4 + float64(r-1)/float64(n-1)*(miniW-8)
	}
	y := float64(miniH) / 2
	return &miniChart{
		W: miniW, H: miniH,
		Track:   fmt.Sprintf("M4 %sH%s", num(y), num(miniW-4)),
		Whisker: fmt.Sprintf("M%s %sH%s", num(x(e.RankUB)-2), num(y), num(x(e.RankWorst)+2)),
		X:       num(x(e.Rank)),
		Y:       num(y),
		Best:    e.CouldBeBest,
		Title:   fmt.Sprintf("ranks %s of %d", rankText(e), n),
	}
}
