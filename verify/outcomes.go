package verify

// Outcomes are one submission's results per question, in benchmark order,
// for the statistics of the leaderboard. A question without a usable row
// has its zero outcome: no letter, not correct, no points.
type Outcomes struct {
	// Multiple choice: the letter answered ('A'–'D', 0 for none) and
	// whether it is the key.
	Letters []byte `json:"letters,omitempty"`
	Correct []bool `json:"correct,omitempty"`
	// Unverifiable marks the answers whose response was stored cut short
	// where more text could change the letter read: what the full text
	// said cannot be known (the summary's Unverifiable counts them).
	Unverifiable []bool `json:"unverifiable,omitempty"`
	// Rubric: the points awarded (-1 when unscored or missing) and whether
	// the gate passed.
	Points     []int  `json:"points,omitempty"`
	GatePassed []bool `json:"gate_passed,omitempty"`
}

func newMCQOutcomes(n int) *Outcomes {
	return &Outcomes{Letters: make([]byte, n), Correct: make([]bool, n), Unverifiable: make([]bool, n)}
}

func newRubricOutcomes(n int) *Outcomes {
	o := &Outcomes{Points: make([]int, n), GatePassed: make([]bool, n)}
	for i := range o.Points {
		o.Points[i] = -1
	}
	return o
}
