package rerun

import (
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/jsondoc"
	"github.com/benchgate/benchgate/verify"
)

// seedVersion names the canonical form below; a change to it changes every
// sample, so it is named in what is hashed.
const seedVersion = "benchgate spot-check sample 1"

// Where a spot-check's seed came from (Report.SeedSource).
const (
	SeedSecret = "secret" // an HMAC of the scores under the leaderboard's secret
	SeedRandom = "random" // drawn at random, no secret being set
	SeedGiven  = "given"  // given to replay a check (Config.Seed)
)

// sampleSeed derives the sample's seed from the submission's scores
// (scoresDigest): the first 8 bytes of an HMAC of their digest under the
// secret.
func sampleSeed(secret []byte, content [sha256.Size]byte) uint64 {
	mac := hmac.New(sha256.New, secret)
	mac.Write(content[:])
	return binary.BigEndian.Uint64(mac.Sum(nil)[:8])
}

// chooseSeed returns the check's seed, from cfg.Seed, from the secret and
// the scores' digest, or at random, and records it in rep.
func chooseSeed(cfg Config, digest [sha256.Size]byte, rep *Report) (uint64, error) {
	seed, source, err := pickSeed(cfg.Seed, cfg.Secret, digest)
	if err != nil {
		return 0, err
	}
	rep.Seed, rep.SeedSource = FormatSeed(seed), source
	return seed, nil
}

// SampleSeed returns the seed of a check of the submission whose files
// verification parsed, and where it came from: given (to replay a
// check), keyed by the secret on the submission's scores as the
// spot-check's is (SeedSecret), or else drawn at random. Every check that
// samples a submission's questions (the spot-check, `benchgate
// reproduce`) draws its seed here.
func SampleSeed(given *uint64, secret []byte, rubricKey string, files *verify.Files) (seed uint64, source string, err error) {
	return pickSeed(given, secret, scoresDigest(rubricKey, files))
}

// ScoresDigest identifies a submission's scores as the spot-check's seed
// is keyed on them (scoresDigest): the benchmark and the rows of
// scores.json in a canonical form.
func ScoresDigest(rubricKey string, files *verify.Files) [sha256.Size]byte {
	return scoresDigest(rubricKey, files)
}

func pickSeed(given *uint64, secret []byte, digest [sha256.Size]byte) (uint64, string, error) {
	switch {
	case given != nil:
		return *given, SeedGiven, nil
	case len(secret) > 0:
		return sampleSeed(secret, digest), SeedSecret, nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, "", fmt.Errorf("no random seed for the sample: %w", err)
	}
	return binary.BigEndian.Uint64(b[:]), SeedRandom, nil
}

// FormatSeed writes a seed as a report gives it: 16 hex digits.
func FormatSeed(seed uint64) string { return fmt.Sprintf("%016x", seed) }

// ParseSeed reads a seed as FormatSeed writes it.
func ParseSeed(s string) (uint64, error) {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != 8 {
		return 0, fmt.Errorf("seed %q is not 16 hex digits, as a report's seed is written", s)
	}
	return binary.BigEndian.Uint64(b), nil
}

// scoresDigest identifies what a spot-check samples: the benchmark and the
// rows of scores.json as verification parsed them, in a canonical form.
// Rows are taken in the order of their ids, numbers by value and strings
// as decoded, so that the same scores give the same sample however the
// file is formatted, its rows ordered or its keys arranged, and in
// whichever pull request they come: opening the same scores again draws
// no new sample. meta.json is left out, so that editing it draws none
// either. Every parsed field of a row but its line counts, so that any
// change to what is reported draws a new one.
func scoresDigest(rubricKey string, files *verify.Files) [sha256.Size]byte {
	c := canonicalScores{Version: seedVersion, RubricKey: rubricKey}
	for _, r := range files.Rubric {
		row := canonicalRubricRow{
			ID: r.ID, Question: r.Question, Answer: r.Answer, AnswerClean: r.AnswerClean, HasClean: r.HasClean,
			Score: number(r.Score), Reason: r.Reason, GatePassed: r.GatePassed, HasComps: r.HasComps,
			Adjudicate: r.Adjudicate, AdjNote: r.AdjNote, JudgeModel: r.JudgeModel, RubricSHA: r.RubricSHA, ScoredAt: r.ScoredAt,
			Reasoning: r.Reasoning, Source: r.Source, PromptSHA: r.PromptSHA,
			Components: []canonicalComponent{},
		}
		for _, cs := range r.Components {
			row.Components = append(row.Components, canonicalComponent{ID: cs.ID, Awarded: number(cs.Awarded), Maximum: number(cs.Maximum), Reason: cs.Reason})
		}
		c.Rubric = append(c.Rubric, row)
	}
	for _, r := range files.MCQ {
		c.MCQ = append(c.MCQ, canonicalMCQRow{
			ID: r.ID, Response: r.Response, Truncated: r.Truncated, Answer: r.Answer, Correct: r.Correct,
			Pattern: r.Pattern, FinishReason: r.FinishReason, Error: r.Error,
			LatencyMS: r.LatencyMS, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
			Reasoning: r.Reasoning,
		})
	}
	// Stable: rows with one id (which verification refuses) keep their order.
	slices.SortStableFunc(c.Rubric, func(a, b canonicalRubricRow) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortStableFunc(c.MCQ, func(a, b canonicalMCQRow) int { return cmp.Compare(a.ID, b.ID) })
	// encoding/json writes a struct's fields in their order and a float in
	// its shortest form: the same values always give the same bytes.
	data, err := json.Marshal(c)
	if err != nil {
		panic("rerun: the canonical scores cannot be encoded: " + err.Error()) // strings, numbers and booleans only
	}
	return sha256.Sum256(data)
}

// canonicalScores is what scoresDigest hashes.
type canonicalScores struct {
	Version   string
	RubricKey string
	Rubric    []canonicalRubricRow
	MCQ       []canonicalMCQRow
}

// canonicalRubricRow is a submission.RubricRow without its line.
type canonicalRubricRow struct {
	ID, Question, Answer, AnswerClean string
	HasClean                          bool
	Score                             *string
	Reason                            string
	GatePassed                        *bool
	Components                        []canonicalComponent
	HasComps, Adjudicate              bool
	AdjNote, JudgeModel, RubricSHA    string
	ScoredAt                          string
	// Fields added after the form was first hashed are left out when
	// empty, so that rows without them keep their digest and sample.
	Reasoning string `json:",omitempty"`
	Source    string `json:",omitempty"`
	PromptSHA string `json:",omitempty"`
}

// canonicalComponent is a submission.ComponentScore without its line.
type canonicalComponent struct {
	ID               string
	Awarded, Maximum *string
	Reason           string
}

// canonicalMCQRow is a submission.MCQRow without its line.
type canonicalMCQRow struct {
	ID, Response                 string
	Truncated                    bool
	Answer                       string
	Correct                      bool
	Pattern, FinishReason, Error string
	LatencyMS                    *float64
	PromptTokens                 *int64
	CompletionTokens             *int64
	Reasoning                    string `json:",omitempty"` // left out when empty, as in canonicalRubricRow
}

// number is a JSON value by what it is worth: an integer in decimal
// however written (7, 7.0, 7e0), another number in its shortest form,
// anything else as its kind and value; nil for none.
func number(n *jsondoc.Node) *string {
	if n == nil {
		return nil
	}
	var s string
	if i, ok := n.Int(); ok {
		s = strconv.FormatInt(i, 10)
	} else if f, ok := n.Float(); ok {
		s = strconv.FormatFloat(f, 'g', -1, 64)
	} else {
		s = n.Kind.String() + ":" + fmt.Sprint(n.Value())
	}
	return &s
}
