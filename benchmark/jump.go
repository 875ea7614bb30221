package benchmark

import "math"

// The shares of a question's points by which two grades of one answer
// disagree largely, a jump: ModerateJump, 4 points on a 10-point rubric
// (a component or a small gate decided the other way), and BigJump, 8 of
// 10 (the answer's worth reversed). Calibration counts the judge's grades
// this far from the expected ones, and the spot-check weighs the jumps of
// its sample against that rate: one definition serves both.
const (
	ModerateJump = 0.4
	BigJump      = 0.8
)

// JumpPoints returns the differences, in points, from which two grades of
// an answer worth total points make a moderate and a big jump:
// ModerateJump and BigJump of total, each rounded to the nearest point and
// at least 1 (4 and 8 on a 10-point rubric).
func JumpPoints(total int) (moderate, big int) {
	moderate = max(1, int(math.Round(ModerateJump*float64(total))))
	big = max(moderate, int(math.Round(BigJump*float64(total))))
	return moderate, big
}

// Disagreements counts the gradings far from the totals expected of them:
// the judge's large disagreements, the control group of the spot-check's
// exact test.
type Disagreements struct {
	ModeratePoints int `json:"moderate_points"` // JumpPoints' moderate
	BigPoints      int `json:"big_points"`      // JumpPoints' big
	// Moderate counts the gradings at least ModeratePoints away, the big
	// ones included; Big those at least BigPoints away.
	Moderate int `json:"moderate"`
	Big      int `json:"big"`
}

// CountDisagreements counts the large ones among diffs, the differences
// between grades and their expected totals on a rubric of totalPoints
// points a question.
func CountDisagreements(totalPoints int, diffs []int) Disagreements {
	d := Disagreements{}
	d.ModeratePoints, d.BigPoints = JumpPoints(totalPoints)
	for _, x := range diffs {
		x = max(x, -x)
		if x >= d.ModeratePoints {
			d.Moderate++
		}
		if x >= d.BigPoints {
			d.Big++
		}
	}
	return d
}
