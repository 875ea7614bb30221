package ranking

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/golden"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
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
			if e.CILow > e.Score || e.CIHigh < e.Score || e.RankLow > e.Rank || e.RankHigh < e.Rank || e.RankUB > e.Rank || e.RankWorst < e.Rank || e.Group < 1 {
				t.Errorf("%s: inconsistent entry %+v", e.Path, e)
			}
		}
	}
}

// TestRanksAndGroups: a model far ahead is alone in group 1 and the only
// one that could be #1; identical models share every statistic.
func TestRanksAndGroups(t *testing.T) {
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
	if e := got["best"]; e.Rank != 1 || e.Group != 1 || e.RankUB != 1 || e.RankWorst != 1 || !e.CouldBeBest || e.RankLow != 1 || e.RankHigh != 1 {
		t.Errorf("best: %+v", e)
	}
	a, c := got["twin-a"], got["twin-b"]
	if a.Rank != c.Rank || a.Group != c.Group || a.RankUB != c.RankUB || a.RankWorst != c.RankWorst || a.RankLow != c.RankLow || a.RankHigh != c.RankHigh || a.Group == 1 || a.CouldBeBest {
		t.Errorf("twins differ: %+v / %+v", a, c)
	}
	if cl := got["close"]; cl.Group != a.Group || cl.Rank != 2 || a.Rank != 3 || cl.RankUB != 2 || cl.RankWorst != 4 {
		t.Errorf("a model one answer ahead must share the twins' group and ranks 2–4: close %+v, twin %+v", cl, a)
	}
	ts := b.Benchmarks[0].Tracks
	if len(ts) != 1 || ts[0].Entries != 4 || ts[0].Pairs != 6 || ts[0].Separated != 3 || ts[0].CouldBeBest != 1 || len(ts[0].Boundaries) != 1 || ts[0].Top == nil {
		t.Fatalf("track statistics %+v", ts)
	}
	if bd := ts[0].Boundaries[0]; bd.Group != 1 || bd.Better != "best" || bd.BetterWins < 80 || bd.Fragile {
		t.Errorf("boundary %+v", bd)
	}
	if lo, hi := got["best"].CILow, got["best"].CIHigh; math.Abs(lo-0.9105) > 0.001 || math.Abs(hi-0.9725) > 0.001 {
		t.Errorf("Wilson interval of 190/200 = [%.4f, %.4f]", lo, hi)
	}
}

// TestTiesAreSymmetric: equal scores get equal statistics whatever the
// names. Three models tied at 480 of 505 below three better ones, named in
// every order: the leader-anchored tiers gave them rank (UB) 4, 4 and 3
// by the order of their names on FormationEval.
func TestTiesAreSymmetric(t *testing.T) {
	const q = 505
	above := map[string]func(int) bool{
		"top-1": func(i int) bool { return i < 504 },
		"top-2": func(i int) bool { return i < 498 },
		"top-3": func(i int) bool { return i < 496 },
		"low":   func(i int) bool { return i < 400 },
	}
	// Three ways to get 480 right; each is given to a name in every order.
	tied := []func(int) bool{
		func(i int) bool { return i < 480 },
		func(i int) bool { return i < 470 || (i >= 480 && i < 490) },
		func(i int) bool { return i < 460 || (i >= 485 && i < 505) },
	}
	names := []string{"aaa", "mmm", "zzz"}
	type stats struct{ rank, ub, worst, group, low, high int }
	var want map[int]stats
	var wantTop string
	for _, perm := range [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		models := maps.Clone(above)
		for k, name := range names {
			models[name] = tied[perm[k]]
		}
		b := buildFS(t, mcqBoard(q, models), Options{})
		got := map[int]stats{}
		for _, e := range b.Benchmarks[0].Entries {
			if k := slices.Index(names, e.Slug); k >= 0 {
				if *e.Correct != 480 {
					t.Fatalf("%s: %d correct", e.Slug, *e.Correct)
				}
				got[perm[k]] = stats{e.Rank, e.RankUB, e.RankWorst, e.Group, e.RankLow, e.RankHigh}
			}
		}
		// The top separation, named by the answers behind its names.
		top := *b.Benchmarks[0].Tracks[0].Top
		for _, side := range []*string{&top.Better, &top.Worse} {
			if k := slices.Index(names, *side); k >= 0 {
				*side = fmt.Sprintf("480 #%d", perm[k])
			}
		}
		gotTop := fmt.Sprintf("%+v", top)
		if want == nil {
			want, wantTop = got, gotTop
			t.Logf("the three ways to 480: %+v; top separation %s", got, gotTop)
		}
		if !maps.Equal(got, want) || gotTop != wantTop {
			t.Errorf("names in order %v: %+v, top %s; in the first order %+v, top %s", perm, got, gotTop, want, wantTop)
		}
	}
	if want[0].ub != want[1].ub || want[1].ub != want[2].ub || want[0].rank != want[2].rank {
		t.Logf("equal scores, different answers: %+v", want)
	}
}

// TestSameAnswersSameStatistics: entries with the same answers get the
// same statistics, whatever their names, including the ranks: here three
// of them tied below a clear leader.
func TestSameAnswersSameStatistics(t *testing.T) {
	for _, names := range [][]string{{"a", "b", "c"}, {"c", "b", "a"}, {"b", "c", "a"}} {
		models := map[string]func(int) bool{"lead": func(i int) bool { return i < 500 }}
		for _, n := range names {
			models[n] = func(i int) bool { return i < 480 }
		}
		es := buildFS(t, mcqBoard(505, models), Options{}).Benchmarks[0].Entries
		for _, e := range es[2:] {
			if e.Rank != es[1].Rank || e.RankUB != es[1].RankUB || e.RankWorst != es[1].RankWorst || e.CouldBeBest != es[1].CouldBeBest || e.Group != es[1].Group {
				t.Errorf("names %v: %s %+v against %s %+v", names, e.Slug, e, es[1].Slug, es[1])
			}
		}
		if es[1].RankUB != 2 || es[1].RankWorst != 4 {
			t.Errorf("names %v: the tied ranks are %d–%d, want 2–4", names, es[1].RankUB, es[1].RankWorst)
		}
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
		t.Logf("%s: %.1f%% [%.1f, %.1f], ranks %d–%d (bootstrap %d–%d)", e.ModelName, 100*e.Score, 100*e.CILow, 100*e.CIHigh, e.RankUB, e.RankWorst, e.RankLow, e.RankHigh)
	}
	// The ranks the exact McNemar tests on the published answers imply,
	// computed here from the rows themselves: the three comparisons
	// Holm-corrected together.
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
	adj := stats.Holm([]float64{mcnemar(g, c), mcnemar(g, n), mcnemar(c, n)})
	t.Logf("McNemar p, Holm-adjusted over the three pairs: %s–%s %.3g, %s–%s %.3g, %s–%s %.3g", g, c, adj[0], g, n, adj[1], c, n, adj[2])
	// 458 vs 424 vs 391 of 505 on the same questions: each gap is
	// significant, so each model is its own group and its rank is fixed.
	if adj[0] >= 0.05 || adj[1] >= 0.05 || adj[2] >= 0.05 {
		t.Fatalf("the published answers no longer separate the three models: %v", adj)
	}
	for i, e := range es {
		if e.Group != i+1 || e.RankUB != i+1 || e.RankWorst != i+1 || e.CouldBeBest != (i == 0) {
			t.Errorf("%s: group %d, ranks %d–%d, could be #1 %v; want group and ranks %d", e.ModelName, e.Group, e.RankUB, e.RankWorst, e.CouldBeBest, i+1)
		}
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

// TestOneFamily: a clear leader followed by a chain of near-ties, 5
// questions apart from 90% down to 70%. Every statistic of every entry is
// what the one family of all 231 pairs, each an exact McNemar test and all
// Holm-corrected together, computed here directly, says: the ranks count
// the entries significantly better and worse; an entry could be #1 when
// none is better; a group boundary stands exactly where every entry above
// is significantly better than every entry below.
func TestOneFamily(t *testing.T) {
	const q = 500
	models := map[string]func(int) bool{
		"leader": func(i int) bool { return i < 499 }, // 99.8%
	}
	for k := 0; k <= 20; k++ {
		limit := 450 - 5*k
		models[fmt.Sprintf("chain-%02d", k)] = func(i int) bool { return i < limit }
	}
	b := buildFS(t, mcqBoard(q, models), Options{})
	es := b.Benchmarks[0].Entries
	if len(es) != 22 || es[0].Slug != "leader" {
		t.Fatalf("entries: %+v", es)
	}
	n := len(es)
	var p []float64
	var pairs [][2]int
	for j := 1; j < n; j++ {
		for i := range j {
			x, y := 0, 0
			for k := range q {
				a, c := models[es[i].Slug](k), models[es[j].Slug](k)
				if a && !c {
					x++
				} else if !a && c {
					y++
				}
			}
			p = append(p, stats.McNemarExact(x, y))
			pairs = append(pairs, [2]int{i, j})
		}
	}
	adj := stats.Holm(p)
	better := make([][]bool, n) // better[i][j]: i significantly better than j
	for i := range better {
		better[i] = make([]bool, n)
	}
	for k, pr := range pairs {
		if adj[k] < 0.05 {
			better[pr[0]][pr[1]] = true // es is best first, and no two chain models tie
		}
	}
	group := 1
	for j, e := range es {
		above, below := 0, 0
		for i := range n {
			if better[i][j] {
				above++
			}
			if better[j][i] {
				below++
			}
		}
		if j > 0 {
			boundary := true
			for a := range j {
				for c := j; c < n; c++ {
					boundary = boundary && better[a][c]
				}
			}
			if boundary {
				group++
			}
		}
		if e.RankUB != 1+above || e.RankWorst != n-below || e.CouldBeBest != (above == 0) || e.Group != group {
			t.Errorf("%s: ranks %d–%d, could be #1 %v, group %d; the family says %d–%d, %v, group %d", e.Slug, e.RankUB, e.RankWorst, e.CouldBeBest, e.Group, 1+above, n-below, above == 0, group)
		}
	}
	ts := b.Benchmarks[0].Tracks[0]
	if ts.Pairs != len(p) || len(ts.Boundaries) != group-1 {
		t.Errorf("track: %d pairs, %d boundaries; want %d and %d", ts.Pairs, len(ts.Boundaries), len(p), group-1)
	}
	// The leader beats every chain model, the chain's ends differ, but
	// neighbours 5 questions apart never do.
	if len(ts.Boundaries) == 0 || ts.Boundaries[0].Group != 1 || es[1].Group != 2 {
		t.Errorf("the leader is not alone in group 1: %+v", ts.Boundaries)
	}
	if es[n-1].RankUB < 10 {
		t.Errorf("the last of the chain: ranks from %d", es[n-1].RankUB)
	}
	t.Logf("groups %v, %d of %d pairs separated", groupsOf(es), ts.Separated, ts.Pairs)
}

func groupsOf(es []Entry) []int {
	out := make([]int, len(es))
	for i, e := range es {
		out[i] = e.Group
	}
	return out
}

// TestTooSmallToSeparate: on 5 questions no paired test can be
// significant, and the board says so rather than draw groups; nor can 7
// questions ever split 5 models, once Holm's correction over their 10
// pairs is counted, although 2^-6 alone is below α.
func TestTooSmallToSeparate(t *testing.T) {
	for _, tc := range []struct {
		q, models int
		want      bool
	}{{5, 2, true}, {6, 2, false}, {7, 5, true}, {7, 2, false}} {
		models := map[string]func(int) bool{"all": func(int) bool { return true }}
		for k := 1; k < tc.models; k++ {
			models[fmt.Sprintf("none-%d", k)] = func(int) bool { return false }
		}
		b := buildFS(t, mcqBoard(tc.q, models), Options{})
		bm := b.Benchmarks[0]
		ts := bm.Tracks[0]
		if ts.TooSmall != tc.want || bm.MinPairedP != math.Ldexp(1, 1-tc.q) {
			t.Errorf("%d questions, %d models: too small %v, min p %v", tc.q, tc.models, ts.TooSmall, bm.MinPairedP)
		}
		if split := len(ts.Boundaries) > 0; split == tc.want {
			t.Errorf("%d questions, %d models, one right everywhere: boundaries %+v, too small %v", tc.q, tc.models, ts.Boundaries, ts.TooSmall)
		}
		md := string(render(t, b, md))
		if said := strings.Contains(md, fmt.Sprintf("With %d questions and %d entries no difference between two entries can be significant", tc.q, tc.models)); said != tc.want {
			t.Errorf("%d questions, %d models: LEADERBOARD.md says too small: %v\n%s", tc.q, tc.models, said, md)
		}
	}
}

// TestUnverifiableTop: credited answers that verification could not
// re-read (responses stored cut short) are taken away, and the board says
// whether the same entries could still be #1.
func TestUnverifiableTop(t *testing.T) {
	models := map[string]func(int) bool{
		"top": func(int) bool { return true },       // 400
		"mid": func(i int) bool { return i >= 12 },  // 388: 12 to 0 against top, p = 2^-11
		"low": func(i int) bool { return i%2 == 0 }, // 200
	}
	for _, tc := range []struct {
		cut   int // top's first answers stored cut short (below the 5% that needs review)
		holds bool
		best  int
	}{{15, false, 2}, {3, true, 1}} {
		fsys := mcqBoard(400, models)
		cutShort(t, fsys, "top", tc.cut)
		b := buildFS(t, fsys, Options{})
		ts := b.Benchmarks[0].Tracks[0]
		if ts.Top == nil || ts.Top.Better != "top" || ts.Top.Worse != "mid" || ts.Top.BetterWins != 12 || ts.Top.WorseWins != 0 {
			t.Fatalf("cut %d: top separation %+v", tc.cut, ts.Top)
		}
		u := ts.Unverifiable
		if u == nil || u.Entries != 1 || u.Answers != tc.cut || u.Holds != tc.holds || u.CouldBeBest != tc.best {
			t.Errorf("cut %d: unverifiable %+v", tc.cut, u)
		}
		if md := string(render(t, b, md)); !strings.Contains(md, fmt.Sprintf("With the %d credited answers of 1 entry that verification could not re-read", tc.cut)) {
			t.Errorf("cut %d: LEADERBOARD.md does not say so:\n%s", tc.cut, md)
		}
	}
	if ts := buildFS(t, mcqBoard(400, models), Options{}).Benchmarks[0].Tracks[0]; ts.Unverifiable != nil {
		t.Errorf("no answer cut short, yet %+v", ts.Unverifiable)
	}
}

// cutShort marks the first n responses of a submission of mcqBoard as
// stored cut short.
func cutShort(t *testing.T, fsys fstest.MapFS, slug string, n int) {
	t.Helper()
	p := "submissions/model-benchmark/" + slug + "/scores.json"
	var rows []map[string]any
	if err := json.Unmarshal(fsys[p].Data, &rows); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		rows[i]["response_truncated"] = true
	}
	fsys[p].Data, _ = json.Marshal(rows)
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
