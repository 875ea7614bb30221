package rerun

import (
	"math"
	"math/rand/v2"
	"testing"
)

// pass is an observation with both gates passed, reported r and judged j.
func pass(r, j int) Observation {
	return Observation{Reported: r, Judged: j, ReportedGate: r > 0, JudgedGate: j > 0}
}

// times returns n copies of the pattern's observations, in turn.
func times(n int, pattern ...Observation) []Observation {
	out := make([]Observation, n)
	for i := range out {
		out[i] = pattern[i%len(pattern)]
	}
	return out
}

func TestDefaultRuleIsValid(t *testing.T) {
	if err := DefaultRule().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	for name, mod := range map[string]func(*Rule){
		"negative tolerance":    func(r *Rule) { r.Tolerance = -0.1 },
		"tolerance at delta":    func(r *Rule) { r.Tolerance = r.Delta },
		"NaN alpha":             func(r *Rule) { r.Alpha = math.NaN() },
		"alpha of 1":            func(r *Rule) { r.Alpha = 1 },
		"beta of a half":        func(r *Rule) { r.Beta = 0.5 },
		"shift share of 1":      func(r *Rule) { r.ShiftShare = 1 },
		"drift alpha of 0":      func(r *Rule) { r.DriftAlpha = 0 },
		"negative MaxN":         func(r *Rule) { r.MaxN = -1 },
		"negative fixtures":     func(r *Rule) { r.DriftFixtures = -1 },
		"zero big weight":       func(r *Rule) { r.BigWeight = 0 },
		"fault share above one": func(r *Rule) { r.FaultShare = 1.5 },
	} {
		r := DefaultRule()
		mod(&r)
		if r.Validate() == nil {
			t.Errorf("%s: Validate accepted %+v", name, r)
		}
	}
}

func TestDecisionString(t *testing.T) {
	for d, want := range map[Decision]string{Undecided: "undecided", Consistent: "consistent", Inconsistent: "inconsistent", Decision(7): "Decision(7)"} {
		if got := d.String(); got != want {
			t.Errorf("%d: %q, want %q", int(d), got, want)
		}
	}
}

func TestControlsAdd(t *testing.T) {
	var c Controls
	for _, g := range [][2]int{{10, 10}, {6, 10}, {0, 10}, {9, 0}, {7, 4}, {3, 0}, {0, 0}} {
		c.Add(g[0], g[1], 10)
	}
	if c != (Controls{Pairs: 7, Live: 6, Moderate: 1, Big: 2}) {
		t.Errorf("controls %+v", c)
	}
}

func TestDecide(t *testing.T) {
	r := DefaultRule()
	noise := []Observation{pass(7, 7), pass(6, 7), pass(8, 7), pass(7, 7), pass(5, 5), pass(9, 8), pass(8, 9), pass(4, 4), pass(0, 0), pass(7, 7)}
	raised := append(times(5, pass(10, 0)), times(45, noise...)...)
	drift := func(b float64) *float64 { return &b }
	tests := []struct {
		name  string
		ev    Evidence
		want  Decision
		cause Cause
	}{
		{"no evidence", Evidence{Points: 10}, Undecided, CauseNoEvidence},
		{"honest noise, 50 questions", Evidence{Observations: times(50, noise...), Points: 10}, Consistent, CauseNone},
		{"two points everywhere", Evidence{Observations: times(50, pass(8, 6), pass(7, 5), pass(9, 7), pass(6, 5)), Points: 10}, Inconsistent, CauseShift},
		// Five failed gates raised to 10, among honest noise: with the
		// judge's own runs measured (the answers graded twice, and 300
		// pairs of recorded runs on fixtures with 3 big jumps), the jumps
		// decide; without, five jumps are no more than McNemar's 1/32,
		// and the mean of +1 is not ruled out.
		{"failed gates raised, judge measured", Evidence{Observations: raised, Regraded: Controls{Pairs: 50, Live: 45}, Recorded: Controls{Pairs: 300, Live: 200, Big: 3}, Points: 10}, Inconsistent, CauseJumps},
		{"failed gates raised, judge unmeasured", Evidence{Observations: raised, Points: 10}, Undecided, CauseBound},
		{"two points everywhere, judge stricter than the tolerance", Evidence{Observations: times(50, pass(8, 6)), Drift: drift(-0.5), Points: 10}, Undecided, CauseDrift},
		{"two points everywhere, judge stricter within the tolerance", Evidence{Observations: times(50, pass(8, 6)), Drift: drift(-0.2), Points: 10}, Inconsistent, CauseShift},
		{"honest noise, lenient judge eats the margin", Evidence{Observations: times(50, noise...), Drift: drift(0.9), Points: 10}, Undecided, CauseBound},
		{"five questions", Evidence{Observations: []Observation{pass(8, 7), pass(6, 7), pass(9, 7), pass(5, 7), pass(7, 7)}, Points: 10}, Undecided, CauseBound},
	}
	for _, tt := range tests {
		res := r.Decide(tt.ev)
		if res.Decision != tt.want || res.Cause != tt.cause {
			t.Errorf("%s: %s (%q; shift p %.3g, jumps p %.3g, bound %.2f), want %s (%q)", tt.name, res.Decision, res.Cause, res.Shift.P, res.Jump.P, res.Bound, tt.want, tt.cause)
		}
	}
}

// The tests keep their levels on honest evidence whatever the judge's
// noise: each pair is exchangeable, so its difference is as likely to
// have either sign, and the controls, pairs of runs on answers of the
// same questions, jump at the sample's rate. The judge here is
// heteroscedastic (its noise grows with the question) and flips gates.
func TestDecideLevels(t *testing.T) {
	r := DefaultRule()
	rng := rand.New(rand.NewPCG(7, 8))
	grade := func(worth int, spread float64) int {
		if rng.Float64() < 0.02 {
			return 0 // a gate decided the other way
		}
		return max(1, min(10, worth+int(math.Round(rng.NormFloat64()*spread))))
	}
	const trials = 4000
	var shift, jumps int
	for range trials {
		var ev Evidence
		ev.Points = 10
		for i := range 50 {
			worth, spread := 3+rng.IntN(8), 0.3+0.1*float64(i%20)
			a, b := grade(worth, spread), grade(worth, spread)
			ev.Observations = append(ev.Observations, pass(a, b))
		}
		// The answers graded again, and a record's pairs on fixtures.
		for i := range 50 {
			worth, spread := 3+rng.IntN(8), 0.3+0.1*float64(i%20)
			ev.Regraded.Add(grade(worth, spread), grade(worth, spread), 10)
		}
		for i := range 150 {
			worth, spread := 3+rng.IntN(8), 0.3+0.1*float64(i%20)
			ev.Recorded.Add(grade(worth, spread), grade(worth, spread), 10)
		}
		res := r.Decide(ev)
		if res.Shift.Rejects() {
			shift++
		}
		if res.Jump.Rejects() {
			jumps++
		}
	}
	// The level plus three standard errors of the simulation.
	for name, k := range map[string]int{"shift": shift, "jumps": jumps} {
		level := r.Alpha * r.ShiftShare
		if name == "jumps" {
			level = r.Alpha * (1 - r.ShiftShare)
		}
		if got := float64(k) / trials; got > level+3*math.Sqrt(level*(1-level)/trials) {
			t.Errorf("%s test rejected %.2f%% of honest evidence, level %.2f%%", name, 100*got, 100*level)
		}
	}
}

// graded are fixtures of one half (gate expected to pass, or to
// fail), differing from their references by diffs.
func graded(gate bool, diffs ...float64) []FixtureGrade {
	var out []FixtureGrade
	for _, d := range diffs {
		out = append(out, FixtureGrade{ExpectedGate: gate, Diff: d})
	}
	return out
}

func TestDrift(t *testing.T) {
	f := graded
	tests := []struct {
		name      string
		fixtures  []FixtureGrade
		passShare float64
		want      float64
		ok        bool
	}{
		{"none", nil, 0.9, 0, false},
		{"passed only", f(true, -2, 0), 0.9, -1, true},
		{"failed only", f(false, 2, 0), 0.9, 1, true},
		{"both halves weighed", append(f(true, -2, -1), f(false, 0, 1)...), 0.9, -1.3, true},
		{"clipped to two points", f(true, -10, -4), 0.5, -2, true},
	}
	for _, tt := range tests {
		got, ok := Drift(tt.fixtures, tt.passShare, 10)
		if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Drift = %g, %v; want %g, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDriftSeen(t *testing.T) {
	r := DefaultRule()
	f := graded
	tests := []struct {
		name     string
		fixtures []FixtureGrade
		want     int
	}{
		{"exact", append(f(true, 0, 0, 0, 0, 0, 0, 0, 0), f(false, 0, 0, 0, 0, 0, 0, 0, 0)...), 0},
		// Two points less per component on passed answers: every passed
		// fixture 4 lower, failed ones untouched.
		{"stricter on passed answers", append(f(true, -4, -4, -4, -4, -4, -4, -4, -4), f(false, 0, 0, 0, 0, 0, 0, 0, 0)...), -1},
		{"one gate flip is not drift", append(f(true, -10, 0, 1, -1, 0, 0, 1, 0), f(false, 0, 0, 0, 0, 0, 0, 0, 0)...), 0},
		{"more lenient", append(f(true, 2, 2, 1, 2, 2, 1, 2, 2), f(false, 4, 4, 0, 4, 4, 4, 0, 4)...), 1},
		{"four fixtures cannot be significant", f(true, -4, -4, -4, -4), 0},
	}
	for _, tt := range tests {
		if got := r.DriftSeen(tt.fixtures, 0.9, 10); got != tt.want {
			t.Errorf("%s: DriftSeen = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestFaultLimit(t *testing.T) {
	r := DefaultRule()
	for _, tc := range []struct{ calls, want int }{{0, 5}, {10, 5}, {25, 5}, {30, 6}, {50, 10}, {100, 20}} {
		if got := r.FaultLimit(tc.calls); got != tc.want {
			t.Errorf("FaultLimit(%d) = %d; want %d", tc.calls, got, tc.want)
		}
	}
}
