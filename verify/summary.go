package verify

// Summary holds the figures of one submission. Pointer fields are those
// that apply to the submission's kind; the others are absent from JSON.
type Summary struct {
	Questions *int `json:"questions,omitempty"`
	Answered  *int `json:"answered,omitempty"`
	Scored    *int `json:"scored,omitempty"`
	Unscored  *int `json:"unscored,omitempty"`
	// Graded is set when some scored rows have no valid grade (a total out
	// of range, no gate): the scored rows with one, over which Mean and
	// GatePassRate are taken. Otherwise they are over Scored.
	Graded         *int     `json:"graded,omitempty"`
	Mean           *float64 `json:"mean,omitempty"`
	Correct        *int     `json:"correct,omitempty"`
	Accuracy       *float64 `json:"accuracy,omitempty"`
	GatePassRate   *float64 `json:"gate_pass_rate,omitempty"`
	Adjudications  *int     `json:"adjudications,omitempty"`
	Disputes       *int     `json:"disputes,omitempty"`
	Unverifiable   *int     `json:"unverifiable,omitempty"`
	ParseFailures  *int     `json:"parse_failures,omitempty"`
	EmptyResponses *int     `json:"empty_responses,omitempty"`
	LengthFinishes *int     `json:"length_finishes,omitempty"`
	Errors         *int     `json:"errors,omitempty"`
	MeanLatencyMS  *float64 `json:"mean_latency_ms,omitempty"`
}

// ratio returns a/b, or nil when b is 0.
func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	return new(float64(a) / float64(b))
}
