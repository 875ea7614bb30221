package rerun

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/submission"
	"github.com/benchgate/benchgate/verify"
)

// TestSeed: the sample follows from the secret and the submission's
// parsed scores alone. The same scores re-formatted (rows in another
// order, members in another order, 7 written 7.0, other spacing), in
// another folder (another pull request) or beside another meta.json draw
// the same sample; a changed row draws another; so does another secret.
// Without a secret the seed is drawn at random, a new one each time, and
// the report's seed replays the check.
func TestSeed(t *testing.T) {
	bd := newBoard(t, func(i, truth int, r *rand.Rand) int { return truth })
	scores := bd.fsys[bd.dir+"/scores.json"].Data
	tests := []struct {
		name   string
		edit   func(fs fstest.MapFS) string // the folder to check
		secret []byte
		same   bool // the same seed and sample as the original
	}{
		{"the same files again", func(fs fstest.MapFS) string { return bd.dir }, secret, true},
		{"re-formatted", func(fs fstest.MapFS) string {
			fs[bd.dir+"/scores.json"].Data = reformat(t, scores)
			return bd.dir
		}, secret, true},
		{"in another folder", func(fs fstest.MapFS) string {
			dir := "submissions/model-benchmark/reopened"
			fs[dir+"/meta.json"] = fs[bd.dir+"/meta.json"]
			fs[dir+"/scores.json"] = &fstest.MapFile{Data: reformat(t, scores)}
			return dir
		}, secret, true},
		{"with meta.json edited", func(fs fstest.MapFS) string {
			meta := fs[bd.dir+"/meta.json"].Data
			fs[bd.dir+"/meta.json"].Data = bytes.Replace(meta, []byte(`"model_name": "`), []byte(`"model_name": "Renamed `), 1)
			return bd.dir
		}, secret, true},
		{"a row's reason changed", func(fs fstest.MapFS) string {
			fs[bd.dir+"/scores.json"].Data = editRow(t, scores, 7, func(row map[string]any) {
				row["score_b_reason"] = "regraded"
			})
			return bd.dir
		}, secret, false},
		{"an answer changed", func(fs fstest.MapFS) string {
			fs[bd.dir+"/scores.json"].Data = editRow(t, scores, 3, func(row map[string]any) {
				row["answer_b"] = row["answer_b"].(string) + " More."
				row["answer_b_clean"] = row["answer_b_clean"].(string) + " More."
			})
			return bd.dir
		}, secret, false},
		{"another secret", func(fs fstest.MapFS) string { return bd.dir }, []byte("another secret"), false},
	}
	first := bd.check(t, bd.noisyJudge(t, 5, nil), Config{Secret: secret})
	if first.SeedSource != SeedSecret || len(first.Seed) != 16 || len(first.Sample) == 0 {
		t.Fatalf("seed %q (%s), sample %v", first.Seed, first.SeedSource, first.Sample)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := fstest.MapFS{}
			for k, v := range bd.fsys {
				c := *v
				fs[k] = &c
			}
			dir := tt.edit(fs)
			v, err := verify.New(fs, verify.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Check(t.Context(), v, dir, Config{Secret: tt.secret, Judge: bd.noisyJudge(t, 5, nil)})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict == VerdictInconclusive && len(rep.Sample) == 0 {
				t.Fatalf("nothing was sampled: %s", rep.Reason)
			}
			n := min(len(rep.Sample), len(first.Sample))
			if (rep.Seed == first.Seed) != tt.same || tt.same && !slices.Equal(rep.Sample[:n], first.Sample[:n]) {
				t.Errorf("seed %s, sample %v\nfirst %s, sample %v\nwant the same: %v", rep.Seed, rep.Sample, first.Seed, first.Sample, tt.same)
			}
		})
	}
	// Without a secret: a random seed, another each time, that replays.
	plain := bd.check(t, bd.noisyJudge(t, 5, nil), Config{})
	again := bd.check(t, bd.noisyJudge(t, 5, nil), Config{})
	if plain.SeedSource != SeedRandom || again.SeedSource != SeedRandom || plain.Seed == again.Seed || plain.Seed == first.Seed {
		t.Errorf("without a secret: seeds %s and %s (%s, %s)", plain.Seed, again.Seed, plain.SeedSource, again.SeedSource)
	}
	seed, err := ParseSeed(plain.Seed)
	if err != nil {
		t.Fatal(err)
	}
	replay := bd.check(t, bd.noisyJudge(t, 5, nil), Config{Seed: &seed})
	if replay.SeedSource != SeedGiven || replay.Seed != plain.Seed || !slices.Equal(replay.Sample, plain.Sample) {
		t.Errorf("replayed with seed %s: %s (%s), sample %v; the check gave %v", plain.Seed, replay.Seed, replay.SeedSource, replay.Sample, plain.Sample)
	}
}

// The sample cannot be steered by editing the scores without the secret:
// editing a reason until the inflated answers fall late in the order
// works only when the order is a function of the scores the submitter can
// compute. With the secret the submitter cannot compute it; without one,
// the order is random. Here a submitter searches 200 edits for the one
// that puts question 0 last: with a random seed the searched order is not
// the one checked.
func TestSampleNotSteerable(t *testing.T) {
	bd := newBoard(t, func(i, truth int, r *rand.Rand) int { return truth })
	hits := 0
	for range 20 {
		rep := bd.check(t, bd.noisyJudge(t, 5, nil), Config{Rule: Rule{}})
		seed, err := ParseSeed(rep.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if SampleOrder(seed, 50)[49] == 0 {
			hits++
		}
	}
	// Question 0 last in 20 random orders of 50: about 0.4 times; the
	// steered order would put it there every time.
	if hits > 3 {
		t.Errorf("question 0 came last in %d of 20 checks without a secret", hits)
	}
}

func TestParseSeed(t *testing.T) {
	for _, s := range []string{"", "12", "zzzzzzzzzzzzzzzz", "0123456789abcdef00"} {
		if _, err := ParseSeed(s); err == nil {
			t.Errorf("ParseSeed(%q) accepted", s)
		}
	}
	if got, err := ParseSeed(FormatSeed(0xdeadbeef01)); err != nil || got != 0xdeadbeef01 {
		t.Errorf("round trip: %x, %v", got, err)
	}
}

// reformat writes scores.json as another tool might: rows in reverse,
// each row's members in reverse, whole numbers with a decimal point, no
// indentation.
func reformat(t *testing.T, data []byte) []byte {
	t.Helper()
	doc, err := jsondoc.Parse(data, jsondoc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	var write func(n *jsondoc.Node)
	write = func(n *jsondoc.Node) {
		switch n.Kind {
		case jsondoc.Object:
			b.WriteString("{")
			for i := len(n.Members) - 1; i >= 0; i-- {
				k, _ := json.Marshal(n.Members[i].Key)
				b.Write(k)
				b.WriteString(":")
				write(n.Members[i].Value)
				if i > 0 {
					b.WriteString(",")
				}
			}
			b.WriteString("}")
		case jsondoc.Array:
			b.WriteString("[")
			for i, e := range n.Elems {
				if i > 0 {
					b.WriteString(", ")
				}
				write(e)
			}
			b.WriteString("]")
		case jsondoc.Number:
			if _, ok := n.Int(); ok && !strings.ContainsAny(n.Str, ".eE") {
				b.WriteString(n.Str + ".0")
			} else {
				b.WriteString(n.Str)
			}
		default:
			v, _ := json.Marshal(n.Value())
			b.Write(v)
		}
	}
	rows := doc.Root.Elems
	b.WriteString("[")
	for i := len(rows) - 1; i >= 0; i-- {
		write(rows[i])
		if i > 0 {
			b.WriteString(",\n")
		}
	}
	b.WriteString("]")
	if bytes.Equal(b.Bytes(), data) {
		t.Fatal("reformat changed nothing")
	}
	return b.Bytes()
}

// editRow changes row i of scores.json.
func editRow(t *testing.T, data []byte, i int, edit func(map[string]any)) []byte {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	edit(rows[i])
	out, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScoresDigestFields: every field of a parsed row but its line counts
// in the seed, so that a field added to the rows and not to the canonical
// form fails here, and a row's line does not count.
func TestScoresDigestFields(t *testing.T) {
	num := func(s string) *jsondoc.Node { return &jsondoc.Node{Kind: jsondoc.Number, Str: s} }
	base := verify.Files{
		Rubric: []submission.RubricRow{{ID: "Q1", Score: num("3"), Components: []submission.ComponentScore{{ID: "C1", Awarded: num("3"), Maximum: num("4")}}}},
		MCQ:    []submission.MCQRow{{ID: "m1"}},
	}
	digest := func(f verify.Files) [32]byte { return scoresDigest("key", &f) }
	before := digest(base)
	if digest(base) != before || scoresDigest("other", &base) == before {
		t.Fatal("the digest is not a function of the benchmark and the rows")
	}
	// Whole numbers by value: 3, 3.0 and 3e0 are one score.
	for _, s := range []string{"3.0", "3e0", "0.3e1"} {
		f := clone(base)
		f.Rubric[0].Score = num(s)
		if digest(f) != before {
			t.Errorf("score %s digests unlike 3", s)
		}
	}
	check := func(what string, row reflect.Value, f verify.Files) {
		for i := range row.NumField() {
			name := row.Type().Field(i).Name
			if !perturb(row.Field(i)) {
				t.Errorf("%s.%s: the test cannot change a %s", what, name, row.Field(i).Type())
				continue
			}
			changed := digest(f) != before
			if changed != (name != "Line") {
				t.Errorf("changing %s.%s changes the digest: %v", what, name, changed)
			}
			f = clone(base) // undo, for the next field
			row = reflect.ValueOf(pick(&f, what)).Elem()
		}
	}
	for _, what := range []string{"RubricRow", "ComponentScore", "MCQRow"} {
		f := clone(base)
		check(what, reflect.ValueOf(pick(&f, what)).Elem(), f)
	}
}

// pick is the row of f that TestScoresDigestFields changes.
func pick(f *verify.Files, what string) any {
	switch what {
	case "RubricRow":
		return &f.Rubric[0]
	case "ComponentScore":
		return &f.Rubric[0].Components[0]
	}
	return &f.MCQ[0]
}

// clone copies the rows of f deeply enough for perturb.
func clone(f verify.Files) verify.Files {
	r := f.Rubric[0]
	r.Components = slices.Clone(r.Components)
	return verify.Files{Rubric: []submission.RubricRow{r}, MCQ: slices.Clone(f.MCQ)}
}

// perturb changes v to another value of its type, reporting whether it
// knows how.
func perturb(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Pointer:
		switch p := v.Interface().(type) {
		case *jsondoc.Node:
			n := &jsondoc.Node{Kind: jsondoc.Number, Str: "9"}
			if p != nil && p.Str == "9" {
				n.Str = "8"
			}
			v.Set(reflect.ValueOf(n))
		default:
			e := reflect.New(v.Type().Elem())
			if !v.IsNil() {
				e.Elem().Set(v.Elem())
			}
			if !perturb(e.Elem()) {
				return false
			}
			v.Set(e)
		}
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
	default:
		return false
	}
	return true
}

func TestSampleSeedKeyed(t *testing.T) {
	d := [32]byte{1, 2, 3}
	s1, s2 := sampleSeed(secret, d), sampleSeed(secret, d)
	s3 := sampleSeed([]byte("another secret"), d)
	if s1 != s2 {
		t.Error("the seed is not stable for the same digest and secret")
	}
	if s3 == s1 {
		t.Errorf("the seed does not follow the secret: %x %x", s1, s3)
	}
}
