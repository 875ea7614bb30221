// Package synth generates complete, synthetic leaderboards for measuring
// benchgate: a registry, one benchmark and one submission that verifies as
// pass. The content is plausible geoscience prose assembled from fixed word
// lists by a seeded math/rand/v2 generator, so the same arguments always
// give byte-identical files.
//
// Two leaderboards exist:
//
//   - MCQ: an UpstreamBench-style JSONL benchmark (kind mcq, extraction
//     "answer-line") and a scores.json whose responses end with an
//     "ANSWER: X" line. About 75% of rows are correct; a few rows were cut
//     by the token limit (finish_reason "length", answer null) and a few
//     are empty (finish_reason "empty").
//   - Rubric: a schema 2.0 rubric whose questions have a gate and
//     components worth 10 points in all, with calibration fixtures, and a
//     scores.json whose arithmetic is consistent with it.
//
// Generate the files in memory with MCQ or Rubric (Files.MapFS gives an
// fs.FS), or write them to a folder with WriteMCQ or WriteRubric.
package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/benchgate/benchgate/internal/safetext"
	"github.com/benchgate/benchgate/submission"
)

// Paths and keys of the generated leaderboards, relative to their root.
const (
	RegistryFile = "rubrics/rubrics.json"

	MCQKey        = "upstreambench-synth"
	MCQFile       = "rubrics/upstreambench-synth.jsonl"
	MCQSubmission = "submissions/model-benchmark/synth-model-upstreambench"

	RubricKey        = "basin-synth"
	RubricFile       = "rubrics/basin-synth.json"
	RubricSubmission = "submissions/model-benchmark/synth-model-basin"

	// JudgeModel is the judge the rubric benchmark is registered with.
	JudgeModel = "openai/gpt-5.5"
)

// The UpstreamBench-scale defaults used by bench/gen and the benchmarks.
const (
	UpstreamQuestions    = 7440
	UpstreamBooks        = 372
	DefaultResponseBytes = 2048
	DefaultSeed          = 1
	RubricQuestions      = 50
)

// Files maps slash-separated paths, relative to the leaderboard root, to
// file contents.
type Files map[string][]byte

// Paths returns the paths, sorted.
func (f Files) Paths() []string {
	out := make([]string, 0, len(f))
	for p := range f {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// MapFS returns the files as an in-memory file system.
func (f Files) MapFS() fstest.MapFS {
	fsys := make(fstest.MapFS, len(f))
	for p, data := range f {
		fsys[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return fsys
}

// Write writes the files under dir, creating folders as needed. Files that
// already exist are replaced.
func (f Files) Write(dir string) error {
	for _, p := range f.Paths() {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, f[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteMCQ writes a multiple-choice leaderboard under dir: see MCQ.
func WriteMCQ(dir string, questions, books, responseBytes int, seed uint64) error {
	f, err := MCQ(questions, books, responseBytes, seed)
	if err != nil {
		return err
	}
	return f.Write(dir)
}

// WriteRubric writes a rubric leaderboard under dir: see Rubric.
func WriteRubric(dir string, questions int, seed uint64) error {
	f, err := Rubric(questions, seed)
	if err != nil {
		return err
	}
	return f.Write(dir)
}

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// encode renders v as indented JSON without HTML escaping, the way
// evaluation harnesses usually write their results.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// compact renders v as one line of JSON without HTML escaping.
func compact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type registryEntry struct {
	Key              string `json:"key"`
	Label            string `json:"label"`
	Description      string `json:"description"`
	File             string `json:"file"`
	Kind             string `json:"kind"`
	JudgeModel       string `json:"judge_model,omitempty"`
	Extraction       string `json:"extraction,omitempty"`
	Prompt           string `json:"prompt,omitempty"`
	ReferenceModelID string `json:"reference_model_id,omitempty"`
}

func newMeta(key string, seed uint64) *submission.Meta {
	openWeights, temperature, tokens := true, 0.0, maxTokens
	return &submission.Meta{
		ModelName:        "Synthetic Model 7B",
		CandidateModelID: "synth/model-7b",
		Submitter:        "benchgate performance suite",
		ContactOrRepo:    "https://example.org/benchgate-synth",
		RubricKey:        key,
		Date:             "2026-03-01",
		Notes:            fmt.Sprintf("Synthetic submission generated by internal/synth with seed %d; not the output of a real model.", seed),
		OpenWeights:      &openWeights,
		Temperature:      &temperature,
		MaxTokens:        &tokens,
	}
}

const maxTokens = 1024

// ---- multiple choice ----

type mcqItem struct {
	ID          string     `json:"id"`
	Question    string     `json:"question"`
	Choices     [4]string  `json:"choices"`
	AnswerIndex int        `json:"answer_index"`
	AnswerKey   string     `json:"answer_key"`
	Difficulty  string     `json:"difficulty"`
	Domains     []string   `json:"domains"`
	SourceBook  sourceBook `json:"source_book"`
}

type sourceBook struct {
	SourceID string `json:"source_id"`
	Title    string `json:"title"`
}

type mcqRow struct {
	ID               string  `json:"id"`
	Response         string  `json:"response"`
	Answer           *string `json:"answer"`
	Correct          bool    `json:"correct"`
	Pattern          *string `json:"pattern"`
	FinishReason     string  `json:"finish_reason"`
	LatencyMS        float64 `json:"latency_ms"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
}

const letters = "ABCD"

// Shares of special rows in an mcq submission.
const (
	correctRate = 0.75
	lengthRate  = 0.006 // cut by the token limit, no answer line
	emptyRate   = 0.003 // the model returned nothing
)

// MCQ generates a multiple-choice leaderboard: a registry with one mcq
// entry (extraction "answer-line"), a JSONL benchmark of the given number
// of questions spread evenly over books source books, and a submission
// whose responses are about responseBytes long. The submission verifies
// as pass.
func MCQ(questions, books, responseBytes int, seed uint64) (Files, error) {
	switch {
	case questions < 1:
		return nil, fmt.Errorf("synth: questions must be at least 1, not %d", questions)
	case books < 1 || books > questions:
		return nil, fmt.Errorf("synth: books must be from 1 to the number of questions (%d), not %d", questions, books)
	case responseBytes < 0:
		return nil, fmt.Errorf("synth: response bytes must not be negative, not %d", responseBytes)
	}
	r := newRand(seed)
	reg := []registryEntry{{
		Key:              MCQKey,
		Label:            "UpstreamBench-scale synthetic (four-choice)",
		Description:      fmt.Sprintf("%d synthetic four-choice questions from %d synthetic books, asked with an ANSWER: X prompt.", questions, books),
		File:             MCQFile,
		Kind:             "mcq",
		Extraction:       "answer-line",
		Prompt:           "answer-line",
		ReferenceModelID: "synth/reference-32b",
	}}
	regData, err := encode(reg)
	if err != nil {
		return nil, err
	}

	bookList := make([]sourceBook, books)
	for i := range bookList {
		bookList[i] = makeBook(r, i)
	}
	items := make([]mcqItem, questions)
	var bench bytes.Buffer
	inBook := 0
	prevBook := -1
	for i := range items {
		book := i * books / questions
		if book != prevBook {
			inBook, prevBook = 0, book
		}
		inBook++
		it := makeItem(r, fmt.Sprintf("ub-%03d-%02d", book+1, inBook), bookList[book])
		items[i] = it
		line, err := compact(it)
		if err != nil {
			return nil, err
		}
		bench.Write(line)
	}

	p := &prose{r: r}
	rows := make([]mcqRow, questions)
	for i := range items {
		rows[i] = p.mcqRow(&items[i], responseBytes)
	}
	scores, err := encode(rows)
	if err != nil {
		return nil, err
	}
	metaData, err := encode(newMeta(MCQKey, seed))
	if err != nil {
		return nil, err
	}
	return Files{
		RegistryFile:                   regData,
		MCQFile:                        bench.Bytes(),
		MCQSubmission + "/meta.json":   metaData,
		MCQSubmission + "/scores.json": scores,
		MCQSubmission + "/README.md":   []byte(readme("multiple-choice", seed)),
	}, nil
}

func readme(kind string, seed uint64) string {
	return fmt.Sprintf("# Synthetic %s submission\n\nGenerated by `go run ./bench/gen` (seed %d) to measure `benchgate verify`. The responses are assembled from word lists and say nothing true about any model.\n", kind, seed)
}

func makeBook(r *rand.Rand, i int) sourceBook {
	author := pick(r, authors)
	year := 1975 + r.IntN(50)
	subject := pick(r, bookSubjects)
	word := strings.ToLower(strings.Fields(subject)[0])
	return sourceBook{
		SourceID: fmt.Sprintf("%s-%d-%s-%03d", strings.ToLower(author), year, word, i+1),
		Title:    fmt.Sprintf("%s (%s ed.), %s, %d", subject, ordinal(1+r.IntN(4)), author, year),
	}
}

func ordinal(n int) string {
	return [...]string{"1st", "2nd", "3rd", "4th"}[n-1]
}

func makeItem(r *rand.Rand, id string, book sourceBook) mcqItem {
	it := mcqItem{
		ID:          id,
		Question:    questionText(r),
		AnswerIndex: r.IntN(4),
		Difficulty:  pick(r, difficulties),
		SourceBook:  book,
	}
	it.AnswerKey = letters[it.AnswerIndex : it.AnswerIndex+1]
	d := r.Perm(len(domains))
	for _, k := range d[:1+r.IntN(2)] {
		it.Domains = append(it.Domains, domains[k])
	}
	seen := map[string]bool{}
	for k := 0; k < 4; {
		c := choiceText(r)
		if seen[c] {
			continue
		}
		seen[c] = true
		it.Choices[k] = c
		k++
	}
	return it
}

func questionText(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("In %s, which process best explains %s %s measured on %s?", pick(r, settings), pick(r, []string{"an anomalously high", "an unexpectedly low", "a laterally variable"}), pick(r, properties), pick(r, measurements))
	case 1:
		return fmt.Sprintf("Which statement about %s in %s is correct?", pick(r, properties), pick(r, settings))
	case 2:
		return fmt.Sprintf("A well in %s shows %s that changes sharply across a fault. What is the most likely cause?", pick(r, settings), pick(r, properties))
	default:
		return fmt.Sprintf("When interpreting %s from %s, which effect must be corrected first?", pick(r, properties), pick(r, measurements))
	}
}

func choiceText(r *rand.Rand) string {
	proc := pick(r, processes)
	return strings.ToUpper(proc[:1]) + proc[1:] + " " + pick(r, effects) + " " + pick(r, properties)
}

// mcqRow writes the model's row for one question.
func (p *prose) mcqRow(it *mcqItem, responseBytes int) mcqRow {
	r := p.r
	row := mcqRow{
		ID:           it.ID,
		FinishReason: "stop",
		LatencyMS:    float64(400 + r.IntN(9000)),
		PromptTokens: 120 + len(it.Question)/4 + r.IntN(60),
	}
	switch u := r.Float64(); {
	case u < emptyRate:
		row.FinishReason = "empty"
		row.CompletionTokens = 0
		return row
	case u < emptyRate+lengthRate:
		// Cut by the token limit before any answer statement.
		text := p.reasoning(it, responseBytes, false)
		row.Response = safetext.Cut(text, len(text)*(60+r.IntN(35))/100)
		row.FinishReason = "length"
		row.CompletionTokens = maxTokens
		return row
	}
	letter := it.AnswerKey
	if r.Float64() >= correctRate {
		letter = string(letters[(it.AnswerIndex+1+r.IntN(3))%4])
	}
	final := "\n\nANSWER: " + letter
	row.Response = p.reasoning(it, responseBytes-len(final), true) + final
	row.Answer = &letter
	row.Correct = letter == it.AnswerKey
	pattern := "answer_line"
	row.Pattern = &pattern
	row.CompletionTokens = 1 + len(row.Response)/4
	return row
}

// ---- prose ----

type prose struct{ r *rand.Rand }

// reasoning returns paragraphs of reasoning about a question, at least
// size bytes long (when size > 0). With tentative, it may contain an
// early answer statement that the final line overrides, as models that
// revise themselves write.
func (p *prose) reasoning(it *mcqItem, size int, tentative bool) string {
	r := p.r
	var b strings.Builder
	b.Grow(size + 256)
	fmt.Fprintf(&b, "The question concerns %s, so the choices have to be weighed against what controls it.", pick(r, properties))
	inPara := 1
	said := !tentative || r.Float64() >= 0.2
	for b.Len() < size {
		if inPara >= 3+r.IntN(3) {
			b.WriteString("\n\n")
			inPara = 0
		} else {
			b.WriteByte(' ')
		}
		if !said && b.Len() > size/2 {
			fmt.Fprintf(&b, "Tentatively the answer is (%c), but the remaining options still need a check.", letters[r.IntN(4)])
			said = true
		} else {
			b.WriteString(p.sentence())
		}
		inPara++
	}
	return b.String()
}

func (p *prose) sentence() string {
	r := p.r
	l1 := letters[r.IntN(4)]
	l2 := letters[(strings.IndexByte(letters, l1)+1+r.IntN(3))%4]
	prop, prop2 := pick(r, properties), pick(r, properties)
	proc, setting := pick(r, processes), pick(r, settings)
	switch r.IntN(14) {
	case 0:
		return fmt.Sprintf("The key observation is that %s in %s is controlled mainly by %s.", prop, setting, proc)
	case 1:
		return fmt.Sprintf("Choice %c points to %s, which would move %s in the opposite direction.", l1, proc, prop)
	case 2:
		return fmt.Sprintf("If %s were dominant, %s should fall with depth, and a value near %s would be hard to explain.", proc, prop, pick(r, numbers))
	case 3:
		return fmt.Sprintf("Option %c confuses %s with %s; the two are related but not interchangeable.", l1, prop, prop2)
	case 4:
		return fmt.Sprintf("A typical textbook value is %s, which is consistent with %s.", pick(r, numbers), setting)
	case 5:
		return fmt.Sprintf("Working through the numbers, %s against %s leaves a difference that %s accounts for.", pick(r, numbers), pick(r, numbers), proc)
	case 6:
		return fmt.Sprintf("That rules out option %c, since %s does not operate at these depths.", l1, proc)
	case 7:
		return fmt.Sprintf("Let me reconsider %s — in %s it tends to be reduced by %s.", prop, setting, proc)
	case 8:
		return fmt.Sprintf("Both %c and %c mention %s, but only one of them is consistent with %s.", l1, l2, prop, proc)
	case 9:
		return fmt.Sprintf("The question asks about %s, so statements about %s alone are not enough.", prop, prop2)
	case 10:
		return fmt.Sprintf("Standard references on %s describe %s as the first-order control on %s.", setting, proc, prop)
	case 11:
		return fmt.Sprintf("Checking units: %s is plausible, whereas a value ten times larger would not be.", pick(r, numbers))
	case 12:
		return fmt.Sprintf("Measurements from %s would show this directly, because %s responds to %s.", pick(r, measurements), prop, proc)
	default:
		return fmt.Sprintf("So far the evidence favours the choice that ties %s to %s rather than to %s.", prop, proc, pick(r, processes))
	}
}

func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

var (
	properties   = []string{"porosity", "permeability", "vitrinite reflectance", "acoustic impedance", "water saturation", "net-to-gross", "pore pressure", "shale volume", "bulk density", "formation resistivity", "capillary entry pressure", "hydrogen index", "P-wave velocity", "Poisson's ratio", "total organic carbon", "sonic transit time"}
	processes    = []string{"mechanical compaction", "quartz cementation", "uplift and erosion", "fault sealing", "gas charge", "feldspar dissolution", "clay coating of grains", "disequilibrium compaction", "hydrocarbon generation", "dolomitisation", "chlorite cementation", "thermal maturation", "fluid substitution", "smectite-to-illite transformation", "stylolitisation", "fracture opening"}
	effects      = []string{"reduces", "increases", "preserves", "destroys", "has no effect on", "reverses the trend in", "doubles", "masks changes in"}
	settings     = []string{"a deltaic reservoir", "a carbonate platform", "a turbidite fan", "a rift basin", "an overpressured shale", "a fluvial channel belt", "a salt-withdrawal minibasin", "a foreland basin", "an aeolian dune field", "a deep-water slope channel", "a lacustrine source kitchen", "a tight gas sandstone"}
	numbers      = []string{"2.65 g/cm³", "25 °C/km", "0.6 %Ro", "1.1 %Ro", "σv ≈ 60 MPa", "Rw = 0.05 Ω·m", "18 % porosity", "150 mD", "3.2 km", "Sw ≈ 0.35", "Vp/Vs = 1.9", "120 °C", "0.45 psi/ft", "TOC of 4 wt%", "HI ≈ 600 mg HC/g TOC", "a 90 µs/ft transit time"}
	measurements = []string{"density and neutron logs", "core plugs", "mercury injection data", "a check-shot survey", "RFT pressures", "Rock-Eval pyrolysis", "thin sections", "a vertical seismic profile", "dipole sonic logs", "fluid inclusions"}
	difficulties = []string{"easy", "medium", "hard"}
	domains      = []string{"Petroleum Geology", "Geophysics", "Petrophysics", "Reservoir Engineering", "Sedimentology", "Geochemistry", "Drilling Engineering", "Structural Geology"}
	authors      = []string{"Selley", "Kearey", "Allen", "Tiab", "Dake", "Asquith", "Mavko", "Hunt", "Boggs", "Fossen", "Tissot", "Ahr", "Avseth", "Zoback", "Bjorlykke", "Nichols"}
	bookSubjects = []string{"Elements of Petroleum Geology", "Principles of Sedimentology", "Petrophysics", "Fundamentals of Reservoir Engineering", "Basic Well Log Analysis", "Petroleum Geochemistry and Geology", "Structural Geology", "Reservoir Geomechanics", "Quantitative Seismic Interpretation", "Basin Analysis", "Geology of Carbonate Reservoirs", "Exploration Seismology"}
)

// ---- rubric ----

type rubricDoc struct {
	SchemaVersion  string           `json:"schema_version"`
	Benchmark      rubricInfo       `json:"benchmark"`
	ScoringModel   scoringModel     `json:"scoring_model"`
	GlobalVariants []any            `json:"global_variants"`
	Questions      []rubricQuestion `json:"questions"`
}

type rubricInfo struct {
	Name          string `json:"name"`
	QuestionCount int    `json:"question_count"`
	Description   string `json:"description"`
}

type scoringModel struct {
	TotalPoints              int  `json:"total_points"`
	IntegerScoresOnly        bool `json:"integer_scores_only"`
	GateFailureScore         int  `json:"gate_failure_score"`
	PositiveMarkingAfterGate bool `json:"positive_marking_after_gate"`
	HolisticBands            bool `json:"holistic_bands"`
}

type variant struct {
	Canonical        string `json:"canonical"`
	AcceptedVariants string `json:"accepted_variants"`
	Note             string `json:"note,omitempty"`
}

type rubricQuestion struct {
	ID               string      `json:"id"`
	Title            string      `json:"title"`
	Question         string      `json:"question"`
	ModelAnswer      string      `json:"model_answer"`
	Principle        string      `json:"principle"`
	Gate             gate        `json:"gate"`
	Components       []component `json:"components"`
	RequiredConcepts []string    `json:"required_concepts"`
	IndicativeTerms  []string    `json:"indicative_terms"`
	DoNotCredit      []string    `json:"do_not_credit"`
	Calibration      []fixture   `json:"calibration"`
}

type gate struct {
	ComponentID   string   `json:"component_id"`
	Points        int      `json:"points"`
	PassCondition string   `json:"pass_condition"`
	FailExamples  []string `json:"fail_examples"`
}

type component struct {
	ID       string `json:"id"`
	Points   int    `json:"points"`
	IsGate   bool   `json:"is_gate"`
	CreditIf string `json:"credit_if"`
}

type fixture struct {
	FixtureID      string  `json:"fixture_id"`
	ResponseText   string  `json:"response_text"`
	ExpectedGate   bool    `json:"expected_gate_passed"`
	ExpectedAwards []award `json:"expected_component_awards"`
	ExpectedTotal  int     `json:"expected_total"`
	Rationale      string  `json:"rationale"`
}

type award struct {
	ID      string `json:"id"`
	Awarded int    `json:"awarded"`
}

type rubricRow struct {
	ID           string      `json:"id"`
	Question     string      `json:"question"`
	AnswerB      string      `json:"answer_b"`
	AnswerBClean string      `json:"answer_b_clean"`
	ScoreB       int         `json:"score_b"`
	ScoreBReason string      `json:"score_b_reason"`
	GatePassed   bool        `json:"score_b_gate_passed"`
	Components   []compScore `json:"score_b_components"`
	Adjudicate   bool        `json:"score_b_adjudication_required"`
	AdjNote      string      `json:"score_b_adjudication_note"`
	JudgeModel   string      `json:"judge_model"`
	RubricSHA256 string      `json:"rubric_sha256"`
	ScoredAt     string      `json:"scored_at"`
}

type compScore struct {
	ID      string `json:"id"`
	Awarded int    `json:"awarded"`
	Maximum int    `json:"maximum"`
	Reason  string `json:"reason"`
}

const totalPoints = 10

// Rubric generates a rubric leaderboard: a registry with one rubric entry
// judged by JudgeModel, a schema 2.0 rubric of the given number of
// questions (a gate and two or three more components per question, 10
// points in all, two calibration fixtures each) and a submission whose
// scores add up. The submission verifies as pass.
func Rubric(questions int, seed uint64) (Files, error) {
	if questions < 1 {
		return nil, fmt.Errorf("synth: questions must be at least 1, not %d", questions)
	}
	r := newRand(seed)
	p := &prose{r: r}
	reg := []registryEntry{{
		Key:         RubricKey,
		Label:       "Basin analysis, synthetic (open answers, 0–10)",
		Description: fmt.Sprintf("%d synthetic open-ended questions graded by a fixed judge against a schema 2.0 rubric.", questions),
		File:        RubricFile,
		Kind:        "rubric",
		JudgeModel:  JudgeModel,
	}}
	regData, err := encode(reg)
	if err != nil {
		return nil, err
	}
	doc := rubricDoc{
		SchemaVersion: "2.0",
		Benchmark: rubricInfo{
			Name:          "Basin analysis (synthetic)",
			QuestionCount: questions,
			Description:   "Synthetic open-ended questions for measuring benchgate; each answer is graded out of 10 against a gated component rubric.",
		},
		ScoringModel: scoringModel{TotalPoints: totalPoints, IntegerScoresOnly: true, PositiveMarkingAfterGate: true},
		GlobalVariants: []any{
			variant{Canonical: "vitrinite reflectance", AcceptedVariants: "Ro, %Ro, VR", Note: "Percent reflectance in oil immersion."},
			variant{Canonical: "mercury injection capillary pressure", AcceptedVariants: "MICP, mercury porosimetry"},
			"DHI = direct hydrocarbon indicator",
		},
	}
	for i := 0; i < questions; i++ {
		doc.Questions = append(doc.Questions, p.rubricQuestion(fmt.Sprintf("Q%d", i+1)))
	}
	rubricData, err := encode(doc)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(rubricData)
	sha := hex.EncodeToString(sum[:])

	rows := make([]rubricRow, questions)
	for i := range doc.Questions {
		rows[i] = p.rubricRow(&doc.Questions[i], sha, i)
	}
	scores, err := encode(rows)
	if err != nil {
		return nil, err
	}
	m := newMeta(RubricKey, seed)
	m.JudgeModel = JudgeModel
	metaData, err := encode(m)
	if err != nil {
		return nil, err
	}
	return Files{
		RegistryFile:                      regData,
		RubricFile:                        rubricData,
		RubricSubmission + "/meta.json":   metaData,
		RubricSubmission + "/scores.json": scores,
		RubricSubmission + "/README.md":   []byte(readme("rubric", seed)),
	}, nil
}

func (p *prose) rubricQuestion(id string) rubricQuestion {
	r := p.r
	prop, proc, setting := pick(r, properties), pick(r, processes), pick(r, settings)
	q := rubricQuestion{
		ID:               id,
		Title:            fmt.Sprintf("%s%s in %s", strings.ToUpper(prop[:1]), prop[1:], setting),
		Question:         fmt.Sprintf("A well in %s shows %s far from the value a burial model predicts (%s). Explain what could cause the difference, how you would test the explanations with %s, and what it means for the petroleum system.", setting, prop, pick(r, numbers), pick(r, measurements)),
		ModelAnswer:      fmt.Sprintf("The difference is best explained by %s. %s", proc, p.sentence()),
		Principle:        fmt.Sprintf("%s is a record of %s, not only of present-day burial.", strings.ToUpper(prop[:1])+prop[1:], proc),
		RequiredConcepts: []string{proc, prop},
		IndicativeTerms:  []string{pick(r, measurements), pick(r, numbers)},
		DoNotCredit:      []string{"restating the question", "naming a process without linking it to " + prop},
	}
	gatePoints := 2 + r.IntN(4) // 2..5
	rest := totalPoints - gatePoints
	n := 2 + r.IntN(2) // two or three more components
	q.Components = append(q.Components, component{ID: "C1", Points: gatePoints, IsGate: true, CreditIf: "identifies " + proc + " as the main control on " + prop})
	for k := 0; k < n; k++ {
		pts := rest // the last component takes what is left
		if left := n - k - 1; left > 0 {
			pts = 1 + r.IntN(rest-left) // leave at least 1 point for each of the others
		}
		rest -= pts
		q.Components = append(q.Components, component{ID: fmt.Sprintf("C%d", k+2), Points: pts, CreditIf: fmt.Sprintf("proposes a test using %s", pick(r, measurements))})
	}
	q.Gate = gate{ComponentID: "C1", Points: gatePoints, PassCondition: "names " + proc + " (or an equivalent) as the cause", FailExamples: []string{"attributes the difference to measurement error alone"}}
	pass := fixture{FixtureID: id + "-F1", ResponseText: p.sentence() + " " + p.sentence(), ExpectedGate: true, Rationale: "Gate met; partial credit for the tests."}
	fail := fixture{FixtureID: id + "-F2", ResponseText: "The log is probably wrong.", ExpectedGate: false, Rationale: "Gate not met, so nothing is awarded."}
	for k, c := range q.Components {
		a := c.Points
		if k > 0 {
			a = r.IntN(c.Points + 1)
		}
		pass.ExpectedAwards = append(pass.ExpectedAwards, award{ID: c.ID, Awarded: a})
		pass.ExpectedTotal += a
		fail.ExpectedAwards = append(fail.ExpectedAwards, award{ID: c.ID, Awarded: 0})
	}
	q.Calibration = []fixture{pass, fail}
	return q
}

func (p *prose) rubricRow(q *rubricQuestion, sha string, i int) rubricRow {
	r := p.r
	var b strings.Builder
	for b.Len() < 1200 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString(p.sentence())
	}
	answer := b.String()
	row := rubricRow{
		ID:           q.ID,
		Question:     q.Question,
		AnswerB:      answer,
		AnswerBClean: answer,
		GatePassed:   r.Float64() < 0.85,
		JudgeModel:   JudgeModel,
		RubricSHA256: sha,
		ScoredAt:     fmt.Sprintf("2026-03-01T%02d:%02d:%02dZ", 9+i/60%12, i%60, r.IntN(60)),
	}
	for k, c := range q.Components {
		a := 0
		switch {
		case !row.GatePassed:
		case k == 0:
			a = c.Points
		default:
			a = r.IntN(c.Points + 1)
		}
		row.ScoreB += a
		row.Components = append(row.Components, compScore{ID: c.ID, Awarded: a, Maximum: c.Points, Reason: fmt.Sprintf("%d of %d: %s", a, c.Points, c.CreditIf)})
	}
	if row.GatePassed {
		row.ScoreBReason = fmt.Sprintf("Gate met; %d of %d points.", row.ScoreB, totalPoints)
	} else {
		row.ScoreBReason = "Gate not met: the cause named does not satisfy the pass condition."
	}
	if r.Float64() < 0.06 {
		row.Adjudicate = true
		row.AdjNote = "Borderline gate decision; a second reading is advised."
	}
	return row
}
