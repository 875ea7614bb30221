package ranking

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/filecache"
	"github.com/benchgate/benchgate/internal/golden"
	"github.com/benchgate/benchgate/verify"
)

// exampleGenerated is the example board of the repository, generated as
// `benchgate leaderboard` generates it.
func exampleGenerated(t *testing.T, formats ...string) *Generated {
	t.Helper()
	g, err := Generate(exampleBoard(t), GenerateOptions{Verify: verify.Options{Today: today}, Board: Options{AsOf: "2026-11-29"}, Formats: formats, Explore: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestExploreFilesGolden: the explorer's files of the example board, an
// entry's answers question by question and each benchmark's questions
// with every entry's answers.
func TestExploreFilesGolden(t *testing.T) {
	g := exampleGenerated(t)
	var names []string
	for name := range g.Files {
		if strings.HasPrefix(name, ExploreDir+"/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) != g.Board.Ranked()+len(g.Board.Benchmarks) {
		t.Fatalf("explorer files %v: want one per entry (%d) and one per benchmark (%d)", names, g.Board.Ranked(), len(g.Board.Benchmarks))
	}
	for _, name := range names {
		golden.Check(t, name, g.Files[name])
	}
}

// TestExploreCached: with a cache, a second run gives the same files.
func TestExploreCached(t *testing.T) {
	cache := filecache.Dir(t.TempDir())
	run := func() map[string][]byte {
		g, err := Generate(exampleBoard(t), GenerateOptions{Verify: verify.Options{Today: today}, Board: Options{AsOf: "2026-11-29"}, Explore: true, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		return g.Files
	}
	first, second := run(), run()
	want := exampleGenerated(t).Files
	if len(first) != len(want) || len(second) != len(want) {
		t.Fatalf("%d and %d files, want %d", len(first), len(second), len(want))
	}
	for name, data := range want {
		if string(first[name]) != string(data) || string(second[name]) != string(data) {
			t.Errorf("%s differs with the cache", name)
		}
	}
	// A judge's reason edited verifies the same; the explorer shows the
	// edit all the same.
	fsys := exampleBoard(t)
	p := "submissions/model-benchmark/qwen3-32b-basin/scores.json"
	fsys[p].Data = []byte(strings.Replace(string(fsys[p].Data), `"score_b_reason": "`, `"score_b_reason": "Edited. `, 1))
	g, err := Generate(fsys, GenerateOptions{Verify: verify.Options{Today: today}, Board: Options{AsOf: "2026-11-29"}, Explore: true, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if f := "explore/basin-analysis/model-qwen3-32b-basin.json"; !strings.Contains(string(g.Files[f]), `"reason":"Edited. `) {
		t.Errorf("%s does not show the edited reason: the cache kept the old file", f)
	}
}

// TestExploreFilesMatchTheBoard: every entry's file answers every
// question of its benchmark, its correct answers are the entry's count,
// and the question index holds the same answers; the page links each
// row to its file.
func TestExploreFilesMatchTheBoard(t *testing.T) {
	g := exampleGenerated(t)
	page := string(g.Files["index.html"])
	for i := range g.Board.Benchmarks {
		bm := &g.Board.Benchmarks[i]
		var idx QuestionIndex
		if err := json.Unmarshal(g.Files[QuestionsFile(bm)], &idx); err != nil {
			t.Fatalf("%s: %v", QuestionsFile(bm), err)
		}
		if len(idx.Questions) != bm.Questions || len(idx.Entries) != len(bm.Entries) {
			t.Errorf("%s: %d questions and %d entries, want %d and %d", bm.Key, len(idx.Questions), len(idx.Entries), bm.Questions, len(bm.Entries))
		}
		for j, e := range bm.Entries {
			file := AnswersFile(bm, e)
			var m ModelAnswers
			if err := json.Unmarshal(g.Files[file], &m); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(m.Answers) != bm.Questions || m.Model != e.ModelName || m.Path != e.Path {
				t.Errorf("%s: %d answers of %q at %s, want %d of %q at %s", file, len(m.Answers), m.Model, m.Path, bm.Questions, e.ModelName, e.Path)
			}
			qe := idx.Entries[j]
			if qe.File != file {
				t.Errorf("%s: the index names %s", file, qe.File)
			}
			correct := 0
			for k, a := range m.Answers {
				if a.ID != idx.Questions[k].ID {
					t.Fatalf("%s: answer %d is to %s, question %d is %s", file, k, a.ID, k, idx.Questions[k].ID)
				}
				if bm.Kind == "mcq" {
					if *a.Correct {
						correct++
					}
					if a.Key != idx.Questions[k].Key || (a.Answer != "" && !strings.EqualFold(qe.Letters[k:k+1], a.Answer)) {
						t.Errorf("%s, %s: answer %q key %q, index %q key %q", file, a.ID, a.Answer, a.Key, qe.Letters[k:k+1], idx.Questions[k].Key)
					}
				} else if (a.Points == nil) != (qe.Points[k] < 0) || (a.Points != nil && *a.Points != qe.Points[k]) {
					t.Errorf("%s, %s: points %v, index %v", file, a.ID, a.Points, qe.Points[k])
				}
			}
			if e.Correct != nil && correct != *e.Correct {
				t.Errorf("%s: %d correct answers, the board says %d", file, correct, *e.Correct)
			}
			if !strings.Contains(page, `data-answers="`+file+`"`) {
				t.Errorf("the page does not link %s to its answers", e.Path)
			}
		}
	}
}

// TestExploreOnlyWithThePage: the explorer's files go with the page, when
// asked for, and a page rendered without them links to none.
func TestExploreOnlyWithThePage(t *testing.T) {
	g := exampleGenerated(t, "json")
	for name := range g.Files {
		if strings.HasPrefix(name, ExploreDir+"/") {
			t.Errorf("%s written without the page", name)
		}
	}
	plain, err := Generate(exampleBoard(t), GenerateOptions{Verify: verify.Options{Today: today}, Board: Options{AsOf: "2026-11-29"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Files) != len(Outputs) || strings.Contains(string(plain.Files["index.html"]), "data-answers=") {
		t.Errorf("without Explore, %d files and a page that links to answers", len(plain.Files))
	}
	if page := string(renderHTMLBytes(t, g.Board)); strings.Contains(page, "data-answers=") || strings.Contains(page, `id="explorer"`) {
		t.Error("a page rendered on its own links to explorer files that are not written")
	}
}

func TestFileSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"mcq-mini", "mcq-mini"},
		{"model-alpha_7b.v2", "model-alpha_7b.v2"},
		{"../etc", "_._etc-"},
		{"Alpha", "_lpha-"},
		{"", "-"},
	} {
		got := fileSafe(c.in)
		if !strings.HasPrefix(got, c.want) || strings.ContainsAny(got, "/\\ ") || strings.HasPrefix(got, ".") {
			t.Errorf("fileSafe(%q) = %q, want %q…", c.in, got, c.want)
		}
		if got == c.in && c.in != "" && c.want != c.in {
			t.Errorf("fileSafe(%q) kept it", c.in)
		}
	}
	if fileSafe("a/b") == fileSafe("a b") {
		t.Error("two names became one")
	}
}

// FuzzFileSafe: whatever a benchmark key or a slug holds, the explorer's
// file name is one the page's script accepts (letters a–z, digits, "_",
// "-", "." not first), and a name is kept as it is only when it already
// was one.
func FuzzFileSafe(f *testing.F) {
	for _, s := range []string{"mcq-mini", "model-alpha-7b", "../x", "Ünïcode", "", ".hidden", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := fileSafe(s)
		if out == "" || out[0] == '.' || strings.Contains(out, "..") || !safeName.MatchString(out) {
			t.Fatalf("fileSafe(%q) = %q", s, out)
		}
		safe := s != "" && s[0] != '.' && !strings.Contains(s, "..") && safeName.MatchString(s)
		if out == s && !safe {
			t.Fatalf("fileSafe(%q) kept an unsafe name", s)
		}
		if safe && out != s {
			t.Fatalf("fileSafe(%q) = %q changed a safe name", s, out)
		}
	})
}

// safeName is the script's pattern for a part of an explorer path.
var safeName = regexp.MustCompile(`^[a-z0-9_.-]+$`)
