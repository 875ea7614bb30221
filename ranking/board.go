// Package ranking turns verified submissions into the published
// leaderboard: every number computed from the merged files, with its
// uncertainty, and what one family of paired tests between every two
// models says of their ranks, all at once. Building the board is pure (Build);
// writing it out is Markdown, HTML, JSON and CSV (Render*), each
// byte-identical for the same inputs; Generate is the whole pipeline, from
// a tree of submissions (with the maintainer's leaderboard.md and, where a
// git history is at hand, what added each entry: GitHistory) to the files.
package ranking

import (
	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/submission"
)

// Board is the whole leaderboard, as leaderboard.json holds it.
type Board struct {
	// Title and Introduction are the maintainer's: from --title or the
	// first heading of leaderboard.md, and the rest of that file (markdown).
	Title        string      `json:"title,omitempty"`
	Introduction string      `json:"introduction,omitempty"`
	AsOf         string      `json:"as_of,omitempty"`
	Method       Method      `json:"method"`
	Benchmarks   []Benchmark `json:"benchmarks"`
	// Unmatched are submissions that name no known benchmark.
	Unmatched []Excluded `json:"unmatched,omitempty"`

	// explore is set when the explorer's files are written beside the
	// page (Generate does), so that the page links to them.
	explore bool
}

// Method records how the statistics were computed, so that anyone can
// reproduce them.
type Method struct {
	Confidence float64 `json:"confidence"` // of every interval, e.g. 0.95
	Resamples  int     `json:"bootstrap_resamples"`
	Seed       uint64  `json:"bootstrap_seed"`
	// Alpha is the family-wise level of the paired tests: each track's
	// comparisons of every two entries are Holm-corrected together.
	Alpha float64 `json:"family_alpha"`
}

// Benchmark is one benchmark's board, both tracks.
type Benchmark struct {
	Key   string         `json:"key"`
	Label string         `json:"label"`
	Kind  benchmark.Kind `json:"kind"`
	// Description, License (SPDX) and URL are the registry's: the
	// benchmark's attribution.
	Description string `json:"description,omitempty"`
	License     string `json:"license,omitempty"`
	URL         string `json:"url,omitempty"`
	JudgeModel  string `json:"judge_model,omitempty"`
	Questions   int    `json:"questions"`
	// MaxScore is the top of the score scale: 1 for accuracy, the rubric's
	// total points otherwise.
	MaxScore float64 `json:"max_score"`
	// Multiple choice: how often each letter is the key, and how often the
	// key is uniquely the longest choice.
	KeyLetters  map[string]int `json:"key_letters,omitempty"`
	LongestRate *float64       `json:"longest_correct_rate,omitempty"`
	// MinPairedP is the smallest p-value the paired test can reach on
	// this many questions, 2^(1−n).
	MinPairedP float64 `json:"min_paired_p"`
	// IntervalWarning, on a rubric benchmark of fewer than
	// MinCoveredQuestions questions, says that its intervals cover less
	// than their level (measured by simulation, docs/PERFORMANCE.md).
	IntervalWarning string `json:"interval_warning,omitempty"`

	Entries []Entry `json:"entries"`
	// Tracks are what each track's family of paired tests says as a
	// whole, one per track with entries, in the order of Entries.
	Tracks   []TrackStats `json:"tracks"`
	Excluded []Excluded   `json:"excluded"`
}

// TrackStats is what the family of one track says as a whole: the paired
// test between every two of its entries, all Holm-corrected together at
// the board's alpha. What it says of each entry is in the entry.
type TrackStats struct {
	Track     submission.Track `json:"track"`
	Entries   int              `json:"entries"`
	Pairs     int              `json:"pairs"`           // n(n−1)/2, the size of the family
	Separated int              `json:"separated_pairs"` // pairs significantly different
	// TooSmall is set when no two entries can be told apart however
	// different they are: the smallest p-value the test can reach, times
	// Pairs (Holm's first step), is not below alpha.
	TooSmall    bool `json:"too_small_to_separate"`
	CouldBeBest int  `json:"could_be_best"` // entries no entry is significantly better than
	// Boundaries divide the entries, best first, into groups: every entry
	// above a boundary is significantly better than every entry below it.
	Boundaries []Separation `json:"boundaries"`
	// Top is the weakest of the comparisons that keep entries from being
	// the best (see stats.Family.Top); absent when every entry could be.
	Top *Separation `json:"top_separation,omitempty"`
	// Unverifiable, on a multiple-choice benchmark whose entries have
	// credited answers that verification could not re-read, says whether
	// the top separation holds with those answers not credited.
	Unverifiable *UnverifiableCheck `json:"unverifiable,omitempty"`
}

// Separation is one comparison the board rests on: the entry Better is
// significantly better than the entry Worse (both slugs of the track).
type Separation struct {
	Group      int     `json:"group,omitempty"` // a boundary's: the group above it
	Better     string  `json:"better"`
	Worse      string  `json:"worse"`
	BetterWins int     `json:"better_wins"` // questions Better scores higher on
	WorseWins  int     `json:"worse_wins"`  // and lower
	P          float64 `json:"p"`
	PHolm      float64 `json:"p_holm"`
	// Fragile: one answer credited differently would undo it.
	Fragile bool `json:"fragile"`
}

// UnverifiableCheck is the top separation recomputed with every credited
// answer that could not be verified (a response stored cut short, whose
// letter its text does not decide) not credited.
type UnverifiableCheck struct {
	Entries     int  `json:"entries"`       // entries with such answers
	Answers     int  `json:"answers"`       // the answers
	CouldBeBest int  `json:"could_be_best"` // entries that could be the best without them
	Holds       bool `json:"holds"`         // the same entries could be the best
}

// Entry is one ranked submission.
type Entry struct {
	Slug             string           `json:"slug"`
	Track            submission.Track `json:"track"`
	Path             string           `json:"path"`
	ModelName        string           `json:"model_name"`
	CandidateModelID string           `json:"candidate_model_id"`
	Score            float64          `json:"score"` // accuracy 0..1 (mcq) or mean points per question (rubric)
	CILow            float64          `json:"ci_low"`
	CIHigh           float64          `json:"ci_high"`
	Rank             int              `json:"rank"`
	// RankLow and RankHigh are the marginal bootstrap range of ranks:
	// each holds for this entry alone, not for all at once.
	RankLow  int `json:"rank_low"`
	RankHigh int `json:"rank_high"`
	// RankUB is 1 + the number of entries significantly better than this
	// one and RankWorst the number of entries − the number significantly
	// worse, by the track's family of paired tests: together with every
	// other entry's, the range holds its true rank with 95% confidence.
	RankUB      int  `json:"rank_ub"`
	RankWorst   int  `json:"rank_worst"`
	CouldBeBest bool `json:"could_be_best"` // no entry is significantly better
	// Group, from 1: the entries between two boundaries (TrackStats).
	Group   int  `json:"group"`
	N       int  `json:"n"`
	Correct *int `json:"correct,omitempty"`

	Submitter     string   `json:"submitter"`
	ContactOrRepo string   `json:"contact_or_repo"`
	Date          string   `json:"date"`
	HarnessName   string   `json:"harness_name,omitempty"`
	HarnessRepo   string   `json:"harness_repo,omitempty"`
	Notes         string   `json:"notes,omitempty"`
	OpenWeights   *bool    `json:"open_weights,omitempty"`
	PriceInput    *float64 `json:"price_input_per_mtok,omitempty"`
	PriceOutput   *float64 `json:"price_output_per_mtok,omitempty"`

	MCQ    *MCQDetail    `json:"mcq,omitempty"`
	Rubric *RubricDetail `json:"rubric,omitempty"`

	// Added is the commit, and the pull request where known, that added
	// the submission to the leaderboard's branch; absent where the
	// history is not available.
	Added *Provenance `json:"added,omitempty"`
	// Reproduction is what the record of `benchgate reproduce` says of
	// this version of the submission; absent without a record, or when
	// the record is of another version.
	Reproduction *Reproduction `json:"reproduction,omitempty"`
	// Acceptance is a maintainer's decision to rank this version of a
	// submission that verification sent to review; absent for one that
	// passed.
	Acceptance *Acceptance `json:"acceptance,omitempty"`
}

// Acceptance is an entry's mark from its acceptance record
// (acceptance.Record): why a maintainer accepted it, how many of its
// answers could not be verified, who (when known) and the UTC day.
type Acceptance struct {
	Reason       string `json:"reason"`
	Unverifiable int    `json:"unverifiable"`
	AcceptedBy   string `json:"accepted_by,omitempty"`
	Date         string `json:"date"`
}

// Reproduction is an entry's mark from its reproduction record
// (reproduce.Record.Status): "reproduced" for a consistent verdict, else
// the verdict, with how many questions were compared and the UTC day.
type Reproduction struct {
	Status  string `json:"status"`
	Checked int    `json:"checked"`
	Date    string `json:"date"`
}

// Provenance is where an entry came from in the leaderboard's history.
type Provenance struct {
	Commit string `json:"commit,omitempty"` // full hash
	PR     int    `json:"pull_request,omitempty"`
	URL    string `json:"url,omitempty"` // the pull request's page, or the commit's
}

// MCQDetail breaks a multiple-choice score down.
type MCQDetail struct {
	MacroBySource  *float64         `json:"macro_by_source,omitempty"` // mean of per-source accuracies
	Sources        int              `json:"sources"`
	ByDifficulty   map[string]Count `json:"by_difficulty"`
	ByDomain       map[string]Count `json:"by_domain"`
	Letters        map[string]int   `json:"letters"`                     // chosen letters; "none" for no answer
	LongestPicked  *float64         `json:"longest_pick_rate,omitempty"` // questions where the model chose the uniquely longest choice, of all questions
	ParseFailures  int              `json:"parse_failures"`
	EmptyResponses int              `json:"empty_responses"`
	LengthFinishes int              `json:"length_finishes"`
	Errors         int              `json:"errors"`
	MeanLatencyMS  *float64         `json:"mean_latency_ms,omitempty"`
}

// Count is correct answers out of a total.
type Count struct {
	Correct  int     `json:"correct"`
	Total    int     `json:"total"`
	Accuracy float64 `json:"accuracy"`
}

// RubricDetail breaks a rubric score down.
type RubricDetail struct {
	GatePassRate  float64  `json:"gate_pass_rate"`
	Adjudications int      `json:"adjudications"`
	Unscored      int      `json:"unscored"`
	MeanScored    *float64 `json:"mean_scored,omitempty"` // the mean over scored answers only, as verify reports it
	// ScoredCILow and ScoredCIHigh are the interval of MeanScored, the
	// same Student t interval as the entry's over the scored answers
	// only: unbiased when answers go unscored at random, where the
	// entry's own interval, with an unscored answer counted as 0, is the
	// conservative one the board ranks by.
	ScoredCILow  *float64 `json:"mean_scored_ci_low,omitempty"`
	ScoredCIHigh *float64 `json:"mean_scored_ci_high,omitempty"`
}

// Excluded is a submission that is not ranked, with the reason.
type Excluded struct {
	Slug      string           `json:"slug"`
	Track     submission.Track `json:"track"`
	Path      string           `json:"path"`
	ModelName string           `json:"model_name,omitempty"`
	Status    string           `json:"status"` // fail, review or other-judge
	Reason    string           `json:"reason"`
	Score     *float64         `json:"score,omitempty"` // other-judge only: the self-reported score
}

// Ranked is the number of entries ranked on the board.
func (b *Board) Ranked() int {
	n := 0
	for _, bm := range b.Benchmarks {
		n += len(bm.Entries)
	}
	return n
}
