package ranking

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/golden"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/internal/fixtures"
	"github.com/benchgate/benchgate/internal/roundtrip"
	"github.com/benchgate/benchgate/internal/synth"
	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/schemas"
	"github.com/benchgate/benchgate/stats"
	"github.com/benchgate/benchgate/verify"
)

var today = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// buildFS verifies every submission of a leaderboard and builds its board.
func buildFS(t *testing.T, fsys fstest.MapFS, opts Options) *Board {
	t.Helper()
	v, err := verify.New(fsys, verify.Options{Today: today})
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := v.Discover()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(v, v.VerifyAll(dirs).Submissions, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// exampleBoard is the repository's own example leaderboard.
func exampleBoard(t *testing.T) fstest.MapFS {
	t.Helper()
	root := fixtures.Root(t)
	fsys := fstest.MapFS{}
	for _, dir := range []string{"rubrics", "submissions"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			fsys[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return fsys
}

func render(t *testing.T, b *Board, f func(*bytes.Buffer, *Board) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func md(w *bytes.Buffer, b *Board) error  { return RenderMarkdown(w, b) }
func jsn(w *bytes.Buffer, b *Board) error { return RenderJSON(w, b) }

func TestExampleBoard(t *testing.T) {
	b := buildFS(t, exampleBoard(t), Options{AsOf: "2026-11-29"})
	mdOut, jsonOut := render(t, b, md), render(t, b, jsn)
	golden.Check(t, "LEADERBOARD.md", mdOut)
	golden.Check(t, "leaderboard.json", jsonOut)

	// Deterministic: a second build gives the same bytes.
	again := buildFS(t, exampleBoard(t), Options{AsOf: "2026-11-29"})
	if !bytes.Equal(render(t, again, md), mdOut) || !bytes.Equal(render(t, again, jsn), jsonOut) {
		t.Error("two builds of the same submissions differ")
	}

	// leaderboard.json follows its schema.
	doc, err := jsondoc.Parse(jsonOut, jsondoc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if fs := schemas.Validate(schemas.Leaderboard, "leaderboard.json", doc); len(fs) > 0 {
		t.Errorf("leaderboard.json does not follow its schema: %v", fs)
	}

	if len(b.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks", len(b.Benchmarks))
	}
	for _, bm := range b.Benchmarks {
		for _, e := range bm.Entries {
			if e.CILow > e.Score || e.CIHigh < e.Score || e.RankLow > e.Rank || e.RankHigh < e.Rank || e.Tier < 1 {
				t.Errorf("%s: inconsistent entry %+v", e.Path, e)
			}
		}
	}
}

// TestRanksAndTiers: a model far ahead is alone in tier 1; identical
// models share a tier, a rank and a rank range.
func TestRanksAndTiers(t *testing.T) {
	fsys := mcqBoard(200, map[string]func(int) bool{
		"best":   func(i int) bool { return i%20 != 0 },          // 95%
		"twin-a": func(i int) bool { return i%2 == 0 },           // 50%
		"twin-b": func(i int) bool { return i%2 == 0 },           // 50%, the same answers
		"close":  func(i int) bool { return i%2 == 0 || i == 1 }, // one more right
	})
	b := buildFS(t, fsys, Options{})
	es := b.Benchmarks[0].Entries
	got := map[string]Entry{}
	for _, e := range es {
		got[e.Slug] = e
	}
	if e := got["best"]; e.Rank != 1 || e.Tier != 1 || e.RankLow != 1 || e.RankHigh != 1 {
		t.Errorf("best: %+v", e)
	}
	a, c := got["twin-a"], got["twin-b"]
	if a.Rank != c.Rank || a.Tier != c.Tier || a.RankLow != c.RankLow || a.RankHigh != c.RankHigh || a.Tier == 1 {
		t.Errorf("twins differ: %+v / %+v", a, c)
	}
	if cl := got["close"]; cl.Tier != a.Tier || cl.Rank != 2 || a.Rank != 3 {
		t.Errorf("a model one answer ahead must share the twins' tier: close %+v, twin %+v", cl, a)
	}
	if lo, hi := got["best"].CILow, got["best"].CIHigh; math.Abs(lo-0.9105) > 0.001 || math.Abs(hi-0.9725) > 0.001 {
		t.Errorf("Wilson interval of 190/200 = [%.4f, %.4f]", lo, hi)
	}
}

func TestOtherJudgeShownApart(t *testing.T) {
	fsys := exampleBoard(t)
	p := "submissions/model-benchmark/qwen3-32b-basin/meta.json"
	var meta map[string]any
	json.Unmarshal(fsys[p].Data, &meta)
	meta["judge_model"] = "anthropic/claude-opus"
	fsys[p].Data, _ = json.Marshal(meta)
	b := buildFS(t, fsys, Options{})
	bm := b.Benchmarks[0]
	if len(bm.Entries) != 1 || bm.Entries[0].Slug != "llama-3.3-70b-basin" {
		t.Fatalf("entries: %+v", bm.Entries)
	}
	if len(bm.Excluded) != 1 || bm.Excluded[0].Status != "other-judge" || bm.Excluded[0].Score == nil || *bm.Excluded[0].Score != 6 {
		t.Errorf("excluded: %+v", bm.Excluded)
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{{AsOf: "29/11/2026"}, {Resamples: 100}, {Confidence: 1.5}, {Alpha: -1}} {
		if _, err := Build(nil, nil, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestFormationEvalPublished ranks the three published FormationEval
// submissions and checks them against the published leaderboard.
func TestFormationEvalPublished(t *testing.T) {
	bench, subs := fixtures.FormationEval(t)
	fsys := fstest.MapFS{
		"rubrics/rubrics.json": {Data: []byte(`[{"key": "formationeval", "file": "rubrics/fe.json", "kind": "mcq", "extraction": "formationeval-v0.1"}]`)},
		"rubrics/fe.json":      {Data: bench},
	}
	published := map[string]struct {
		correct int
		acc     string
	}{"claude-3.5-haiku": {424, "84.0"}, "gpt-oss-120b": {458, "90.7"}, "nemotron-3-nano-30b-a3b": {391, "77.4"}}
	for m, rows := range subs {
		scores, _ := json.Marshal(rows)
		meta, _ := json.Marshal(map[string]any{"model_name": m, "candidate_model_id": m, "submitter": "formationeval", "contact_or_repo": "https://github.com/AlmazErmilov", "rubric_key": "formationeval", "date": "2026-01-01"})
		fsys["submissions/model-benchmark/"+m+"/meta.json"] = &fstest.MapFile{Data: meta}
		fsys["submissions/model-benchmark/"+m+"/scores.json"] = &fstest.MapFile{Data: scores}
	}
	b := buildFS(t, fsys, Options{})
	es := b.Benchmarks[0].Entries
	if len(es) != 3 {
		t.Fatalf("%d entries ranked: %+v", len(es), b.Benchmarks[0].Excluded)
	}
	for i, want := range []string{"gpt-oss-120b", "claude-3.5-haiku", "nemotron-3-nano-30b-a3b"} {
		e := es[i]
		p := published[e.ModelName]
		if e.ModelName != want || e.Rank != i+1 || *e.Correct != p.correct || fmt.Sprintf("%.1f", 100*e.Score) != p.acc {
			t.Errorf("rank %d: %s %d/505 = %.1f%%; published %s %d (%s%%)", i+1, e.ModelName, *e.Correct, 100*e.Score, want, p.correct, p.acc)
		}
		// The Wilson interval, from its closed form.
		n, ph, z := 505.0, float64(p.correct)/505, 1.959963984540054
		centre := (ph + z*z/(2*n)) / (1 + z*z/n)
		half := z / (1 + z*z/n) * math.Sqrt(ph*(1-ph)/n+z*z/(4*n*n))
		if math.Abs(e.CILow-(centre-half)) > 1e-9 || math.Abs(e.CIHigh-(centre+half)) > 1e-9 {
			t.Errorf("%s: interval [%.4f, %.4f], want [%.4f, %.4f]", e.ModelName, e.CILow, e.CIHigh, centre-half, centre+half)
		}
		t.Logf("%s: %.1f%% [%.1f, %.1f], tier %d, ranks %d–%d", e.ModelName, 100*e.Score, 100*e.CILow, 100*e.CIHigh, e.Tier, e.RankLow, e.RankHigh)
	}
	// The tiers the exact McNemar tests on the published answers imply,
	// computed here from the rows themselves: the leader's two comparisons
	// Holm-corrected together, then the second model's one comparison.
	right := map[string]map[string]bool{}
	for m, rows := range subs {
		right[m] = map[string]bool{}
		for _, r := range rows {
			right[m][r["id"].(string)] = r["correct"].(bool)
		}
	}
	mcnemar := func(a, b string) float64 {
		x, y := 0, 0
		for id, ok := range right[a] {
			switch {
			case ok && !right[b][id]:
				x++
			case !ok && right[b][id]:
				y++
			}
		}
		return stats.McNemarExact(x, y)
	}
	g, c, n := "gpt-oss-120b", "claude-3.5-haiku", "nemotron-3-nano-30b-a3b"
	leader := stats.Holm([]float64{mcnemar(g, c), mcnemar(g, n)})
	t.Logf("McNemar p, Holm-adjusted: %s–%s %.3g, %s–%s %.3g; %s–%s %.3g", g, c, leader[0], g, n, leader[1], c, n, mcnemar(c, n))
	want := []int{1, 1, 1}
	switch {
	case leader[0] < 0.05:
		want[1], want[2] = 2, 2
		if mcnemar(c, n) < 0.05 {
			want[2] = 3
		}
	case leader[1] < 0.05:
		want[2] = 2
	}
	for i, e := range es {
		if e.Tier != want[i] {
			t.Errorf("%s: tier %d, the McNemar tests imply %d", e.ModelName, e.Tier, want[i])
		}
	}
	// 458 vs 424 vs 391 of 505 on the same questions: each gap is
	// significant, so each model is its own tier and proven worse than
	// every model above it.
	if es[0].Tier != 1 || es[1].Tier != 2 || es[2].Tier != 3 || es[0].RankUB != 1 || es[1].RankUB != 2 || es[2].RankUB != 3 {
		t.Errorf("tiers %d %d %d, rank (UB) %d %d %d; want 1 2 3 each", es[0].Tier, es[1].Tier, es[2].Tier, es[0].RankUB, es[1].RankUB, es[2].RankUB)
	}
}

// mcqBoard is a board of one mcq benchmark of q questions (key A) and a
// submission per model, correct on the questions right(i) says.
func mcqBoard(q int, models map[string]func(i int) bool) fstest.MapFS {
	var bench strings.Builder
	for i := 0; i < q; i++ {
		fmt.Fprintf(&bench, `{"id": "q%04d", "question": "Q%d?", "choices": ["w", "x", "y", "z"], "answer_index": 0, "answer_key": "A", "source_book": {"source_id": "s%d"}}`+"\n", i, i, i%4)
	}
	fsys := fstest.MapFS{
		"rubrics/rubrics.json": {Data: []byte(`[{"key": "m", "file": "rubrics/m.jsonl", "kind": "mcq", "extraction": "answer-line"}]`)},
		"rubrics/m.jsonl":      {Data: []byte(bench.String())},
	}
	for slug, right := range models {
		rows := make([]map[string]any, q)
		for i := range rows {
			letter := "B"
			if right(i) {
				letter = "A"
			}
			rows[i] = map[string]any{"id": fmt.Sprintf("q%04d", i), "response": "ANSWER: " + letter, "answer": letter, "correct": letter == "A"}
		}
		scores, _ := json.Marshal(rows)
		meta, _ := json.Marshal(map[string]any{"model_name": slug, "candidate_model_id": "org/" + slug, "submitter": "s", "contact_or_repo": "https://example.org", "rubric_key": "m", "date": "2026-01-01"})
		fsys["submissions/model-benchmark/"+slug+"/meta.json"] = &fstest.MapFile{Data: meta}
		fsys["submissions/model-benchmark/"+slug+"/scores.json"] = &fstest.MapFile{Data: scores}
	}
	return fsys
}

// TestTiersSeparateWhatTheTestSeparates: a clear leader followed by a
// chain of near-ties. Chaining neighbours put all of them in one tier,
// since no two neighbours differ significantly; a tier must instead end
// at the first model significantly worse than its leader. The leader is
// alone in tier 1, and no tier holds a model that a direct paired test,
// Holm-corrected over the leader's comparisons, separates from the
// tier's leader.
func TestTiersSeparateWhatTheTestSeparates(t *testing.T) {
	const q = 500
	models := map[string]func(int) bool{
		"leader": func(i int) bool { return i < 499 }, // 99.8%
	}
	// From 90% down to 70% in steps of 1 point: 5 questions apart,
	// never significant between neighbours, always so over the chain.
	for k := 0; k <= 20; k++ {
		limit := 450 - 5*k
		models[fmt.Sprintf("chain-%02d", k)] = func(i int) bool { return i < limit }
	}
	b := buildFS(t, mcqBoard(q, models), Options{})
	es := b.Benchmarks[0].Entries
	if len(es) != 22 || es[0].Slug != "leader" {
		t.Fatalf("entries: %+v", es)
	}
	if es[0].Tier != 1 || es[1].Tier != 2 {
		t.Errorf("the leader shares tier 1: tiers %v", tiersOf(es))
	}
	correct := func(e Entry) []bool {
		out := make([]bool, q)
		for i := range out {
			out[i] = models[e.Slug](i)
		}
		return out
	}
	for l := 0; l < len(es); {
		var family []float64
		for j := l + 1; j < len(es); j++ {
			x, y := 0, 0
			a, c := correct(es[l]), correct(es[j])
			for i := range a {
				if a[i] && !c[i] {
					x++
				} else if !a[i] && c[i] {
					y++
				}
			}
			family = append(family, stats.McNemarExact(x, y))
		}
		adj := stats.Holm(family)
		next := l + 1
		for ; next < len(es) && es[next].Tier == es[l].Tier; next++ {
			if adj[next-l-1] < 0.05 {
				t.Errorf("%s is in tier %d although the paired test separates it from the tier's leader %s (adjusted p %.3g)", es[next].Slug, es[l].Tier, es[l].Slug, adj[next-l-1])
			}
		}
		if next < len(es) && adj[next-l-1] >= 0.05 {
			t.Errorf("%s starts tier %d although the test does not separate it from %s (adjusted p %.3g)", es[next].Slug, es[next].Tier, es[l].Slug, adj[next-l-1])
		}
		l = next
	}
	if last := es[len(es)-1].Tier; last < 3 {
		t.Errorf("a chain from 90%% to 70%% on 500 questions makes %d tiers: %v", last, tiersOf(es))
	}
	// Every chain model is proven worse than the leader, and the last
	// one than most of the chain.
	for _, e := range es[1:] {
		if e.RankUB < 2 {
			t.Errorf("%s: rank (UB) %d, but the leader is significantly better", e.Slug, e.RankUB)
		}
	}
	if ub := es[len(es)-1].RankUB; ub < 10 {
		t.Errorf("the last of the chain: rank (UB) %d", ub)
	}
	t.Logf("tiers %v", tiersOf(es))
}

func tiersOf(es []Entry) []int {
	out := make([]int, len(es))
	for i, e := range es {
		out[i] = e.Tier
	}
	return out
}

// TestTooSmallToSeparate: on 5 questions no paired test can be
// significant, and the board says so rather than draw one tier.
func TestTooSmallToSeparate(t *testing.T) {
	b := buildFS(t, mcqBoard(5, map[string]func(int) bool{
		"all":  func(int) bool { return true },
		"none": func(int) bool { return false },
	}), Options{})
	bm := b.Benchmarks[0]
	if !bm.TooSmall || bm.MinPairedP != 0.0625 {
		t.Errorf("5 questions: too small %v, min p %v", bm.TooSmall, bm.MinPairedP)
	}
	md := string(render(t, b, md))
	if !strings.Contains(md, "With 5 questions no difference between models can be significant") || strings.Contains(md, "Tier 1:") {
		t.Errorf("LEADERBOARD.md:\n%s", md)
	}
	big := buildFS(t, mcqBoard(6, map[string]func(int) bool{"all": func(int) bool { return true }, "none": func(int) bool { return false }}), Options{})
	if bm := big.Benchmarks[0]; bm.TooSmall || bm.Entries[1].Tier != 2 {
		t.Errorf("6 questions, 6 to 0: too small %v, tiers %v", bm.TooSmall, tiersOf(bm.Entries))
	}
}

// TestGroupCache: a cached ranking is the same ranking.
func TestGroupCache(t *testing.T) {
	store := filecache.Dir(t.TempDir())
	first := buildFS(t, exampleBoard(t), Options{Cache: store})
	second := buildFS(t, exampleBoard(t), Options{Cache: store})
	plain := buildFS(t, exampleBoard(t), Options{})
	a, b, c := render(t, first, jsn), render(t, second, jsn), render(t, plain, jsn)
	if !bytes.Equal(a, b) || !bytes.Equal(a, c) {
		t.Error("cached and computed boards differ")
	}
	entries, _ := filepath.Glob(filepath.Join(string(store), "*", "*"))
	if len(entries) != 3 { // one per benchmark and track with entries
		t.Errorf("%d cache entries, want 3", len(entries))
	}
}

// TestGroupRecordRoundTrip: every field of a ranked entry comes back from
// the cache as it went in, including fields added after this test.
func TestGroupRecordRoundTrip(t *testing.T) {
	roundtrip.Check(t, encodeGroup, decodeGroup)
}

// TestRubricIntervals: a rubric mean's interval is the t interval over its
// questions, an unscored answer counting as 0; beside it, the mean over
// the scored answers has its own; and a benchmark too small for the t
// interval to hold its level says so, on the board and in LEADERBOARD.md.
func TestRubricIntervals(t *testing.T) {
	b := buildFS(t, exampleBoard(t), Options{})
	var bm *Benchmark
	for i := range b.Benchmarks {
		if b.Benchmarks[i].Kind == benchmark.KindRubric {
			bm = &b.Benchmarks[i]
		} else if b.Benchmarks[i].IntervalWarning != "" {
			t.Errorf("%s (mcq) warns about its intervals", b.Benchmarks[i].Key)
		}
	}
	if bm == nil || len(bm.Entries) == 0 {
		t.Fatal("the example board has no ranked rubric benchmark")
	}
	if bm.Questions >= MinCoveredQuestions || !strings.Contains(bm.IntervalWarning, fmt.Sprintf("With %d questions, the intervals", bm.Questions)) {
		t.Errorf("%d questions: warning %q", bm.Questions, bm.IntervalWarning)
	}
	if md := string(render(t, b, md)); !strings.Contains(md, bm.IntervalWarning) {
		t.Error("LEADERBOARD.md does not give the interval warning")
	}
	v, err := verify.New(exampleBoard(t), verify.Options{Today: today})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range bm.Entries {
		res := v.Verify(e.Path)
		all, scored := rubricScores(res.Outcomes.Points)
		lo, hi := stats.MeanInterval(all, int(bm.MaxScore), 0.95)
		slo, shi := stats.MeanInterval(scored, int(bm.MaxScore), 0.95)
		if e.CILow != lo || e.CIHigh != hi || e.Rubric.ScoredCILow == nil || *e.Rubric.ScoredCILow != slo || *e.Rubric.ScoredCIHigh != shi {
			t.Errorf("%s: interval %v–%v, scored %v–%v; want %v–%v and %v–%v", e.Slug, e.CILow, e.CIHigh, e.Rubric.ScoredCILow, e.Rubric.ScoredCIHigh, lo, hi, slo, shi)
		}
		if !(e.CILow <= e.Score && e.Score <= e.CIHigh) {
			t.Errorf("%s: score %v outside %v–%v", e.Slug, e.Score, e.CILow, e.CIHigh)
		}
	}
	// Fifty questions are enough.
	files, err := synth.Rubric(50, 3)
	if err != nil {
		t.Fatal(err)
	}
	if w := buildFS(t, files.MapFS(), Options{}).Benchmarks[0].IntervalWarning; w != "" {
		t.Errorf("50 questions: warning %q", w)
	}
}

func TestRubricScores(t *testing.T) {
	all, scored := rubricScores([]int{7, -1, 0, 10, -1})
	if fmt.Sprint(all) != "[7 0 0 10 0]" || fmt.Sprint(scored) != "[7 0 10]" {
		t.Errorf("rubricScores = %v, %v", all, scored)
	}
}
