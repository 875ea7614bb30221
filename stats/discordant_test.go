package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// constrainedMax maximizes the trinomial log-likelihood of (b, c, z) on
// H0's boundary p_b = p_c + tol by brute force over a fine grid.
func constrainedMax(tol, hi float64, b, c, z int) float64 {
	best := math.Inf(-1)
	for i := 0; i <= 200000; i++ {
		p := hi * float64(i) / 200000
		v := xlogy(float64(b), p+tol) + xlogy(float64(c), p) + xlogy(float64(z), 1-2*p-tol)
		if v > best {
			best = v
		}
	}
	return best
}

// TestLogLR: the statistic is 0 where the counts fit H0, and otherwise
// the unconstrained maximum of the log-likelihood less the constrained
// one, found here by brute force.
func TestLogLR(t *testing.T) {
	tests := []struct {
		tol, maxDiscord float64
		n, b, c         int
	}{
		{0, 0, 10, 3, 3}, {0.02, 0, 100, 3, 1}, {0.02, 0.52, 150, 4, 2}, // b − c ≤ tol·n: H0 fits
		{0, 0, 10, 4, 1}, {0, 0, 20, 20, 0}, {0, 0, 5, 5, 0}, {0, 0.5, 5, 5, 0},
		{0.02, 0, 100, 9, 0}, {0.02, 0, 150, 30, 10}, {0.02, 0, 50, 50, 0}, {0.02, 0.52, 50, 50, 0}, {0.1, 0, 40, 20, 4},
		{0.02, 0, 150, 75, 5}, {0.02, 0.52, 150, 75, 5}, {0.02, 0.52, 150, 40, 30},
	}
	for _, tc := range tests {
		d := Discordant{Tol: tc.tol, MaxDiscord: tc.maxDiscord}
		got := d.LogLR(tc.n, tc.b, tc.c)
		z := tc.n - tc.b - tc.c
		want := 0.0
		if float64(tc.b-tc.c) > tc.tol*float64(tc.n) {
			nn := float64(tc.n)
			free := xlogy(float64(tc.b), float64(tc.b)/nn) + xlogy(float64(tc.c), float64(tc.c)/nn) + xlogy(float64(z), float64(z)/nn)
			want = free - constrainedMax(tc.tol, (1-tc.tol)/2, tc.b, tc.c, z)
		}
		if math.Abs(got-want) > 1e-4*math.Max(1, want) {
			t.Errorf("%+v: LogLR(%d, %d, %d) = %.6f, want %.6f", d, tc.n, tc.b, tc.c, got, want)
		}
	}
	for _, bad := range [][3]int{{0, 0, 0}, {5, 3, 3}, {5, -1, 0}} {
		if got := (Discordant{}).LogLR(bad[0], bad[1], bad[2]); got != 0 {
			t.Errorf("LogLR(0, %v) = %g, want 0 for impossible counts", bad, got)
		}
	}
}

// TestLogLRMonotone: the rejecting region grows with b and shrinks with
// c, which both the dynamic programme (a cut in b) and the worst case on
// H0's boundary rest on.
func TestLogLRMonotone(t *testing.T) {
	for _, d := range []Discordant{{Tol: 0}, {Tol: 0.02}, {Tol: 0.1}, {Tol: 0.02, MaxDiscord: 0.52}, {Tol: 0, MaxDiscord: 0.5}} {
		for n := 1; n <= 60; n++ {
			for c := 0; c <= n; c++ {
				for b := 0; b+c < n; b++ {
					if d.LogLR(n, b+1, c) < d.LogLR(n, b, c)-1e-9 {
						t.Fatalf("%+v: LogLR(%d, %d, %d) > LogLR(%d, %d, %d)", d, n, b, c, n, b+1, c)
					}
					if d.LogLR(n, b, c+1) > d.LogLR(n, b, c)+1e-9 {
						t.Fatalf("%+v: LogLR(%d, %d, %d) < LogLR(%d, %d, %d)", d, n, b, c, n, b, c+1)
					}
				}
			}
		}
	}
}

// enumerate returns the rejection probability and mean trials of d with
// threshold h under (pb, pc) by visiting every sequence of MaxN trials.
func enumerate(d Discordant, h, pb, pc float64) (reject, meanN float64) {
	p := [3]float64{1 - pb - pc, pb, pc}
	var walk func(n, b, c int, prob float64)
	walk = func(n, b, c int, prob float64) {
		if n > 0 && d.Rejects(h, n, b, c) {
			reject += prob
			meanN += prob * float64(n)
			return
		}
		if n == d.MaxN {
			meanN += prob * float64(n)
			return
		}
		walk(n+1, b, c, prob*p[0])
		walk(n+1, b+1, c, prob*p[1])
		walk(n+1, b, c+1, prob*p[2])
	}
	walk(0, 0, 0, 1)
	return reject, meanN
}

// TestPowerIsExact: the dynamic programme over (b, c) gives what visiting
// every path gives, for sequential and fixed-size tests.
func TestPowerIsExact(t *testing.T) {
	tests := []struct {
		d      Discordant
		h      float64
		pb, pc float64
	}{
		{Discordant{Tol: 0, Alpha: 0.05, MaxN: 9, MinN: 1}, 1.5, 0.3, 0.1},
		{Discordant{Tol: 0.02, Alpha: 0.05, MaxN: 10, MinN: 2, Every: 3}, 1.2, 0.22, 0.2},
		{Discordant{Tol: 0.05, Alpha: 0.05, MaxN: 10, MinN: 2, Every: 2, Spend: 0.5}, 1, 0.4, 0.05},
		{Discordant{Tol: 0.02, Alpha: 0.05, MaxN: 10, MinN: 10}, 0.8, 0.25, 0.1},
	}
	for _, tc := range tests {
		got, gotN := tc.d.Power(tc.h, tc.pb, tc.pc)
		want, wantN := enumerate(tc.d, tc.h, tc.pb, tc.pc)
		if math.Abs(got-want) > 1e-12 || math.Abs(gotN-wantN) > 1e-9 {
			t.Errorf("%+v h %g (%g, %g): Power = %.12f, %.9f; every path: %.12f, %.9f", tc.d, tc.h, tc.pb, tc.pc, got, gotN, want, wantN)
		}
	}
}

// TestThreshold: the calibrated threshold holds the worst-case
// false-alarm rate at Alpha, and is the least that does (to 0.01); a
// simulation of the worst law agrees with the exact rate.
func TestThreshold(t *testing.T) {
	d := Discordant{Tol: 0.02, Alpha: 0.05, MaxN: 60, MinN: 5, Every: 5, MaxDiscord: 0.52, Spend: 0.5}
	h, alpha, err := d.Threshold()
	if err != nil {
		t.Fatal(err)
	}
	worst, pc := d.WorstFalseAlarm(h)
	if worst != alpha || alpha > d.Alpha {
		t.Errorf("threshold %g: worst false alarm %g (at p_c %g), reported %g, level %g", h, worst, pc, alpha, d.Alpha)
	}
	if below, _ := d.WorstFalseAlarm(h - 0.01); below <= d.Alpha {
		t.Errorf("threshold %g is not the least: %g holds the level too (%g)", h, h-0.01, below)
	}
	// No law of H0 inside the boundary does worse than the boundary's.
	for _, q := range []float64{0, 0.05, 0.1, 0.2} {
		at, _ := d.FalseAlarm(h, q)
		if in, _ := d.Power(h, q+d.Tol-0.01, q); in > at+1e-12 {
			t.Errorf("p_c %g: %g with p_b below the boundary, %g on it", q, in, at)
		}
		if q > 0.01 {
			if in, _ := d.Power(h, q+d.Tol, q-0.01); in < at-1e-12 {
				t.Errorf("p_c %g: fewer c pairs rejected less (%g < %g)", q, in, at)
			}
		}
	}
	// A simulation of the worst law.
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 20000
	hits := 0
	for range trials {
		b, c := 0, 0
		for n := 1; n <= d.MaxN; n++ {
			switch u := rng.Float64(); {
			case u < pc+d.Tol:
				b++
			case u < 2*pc+d.Tol:
				c++
			}
			if d.Rejects(h, n, b, c) {
				hits++
				break
			}
		}
	}
	got := float64(hits) / trials
	if se := math.Sqrt(worst * (1 - worst) / trials); math.Abs(got-worst) > 4*se {
		t.Errorf("simulated false alarms %.4f, exact %.4f (±%.4f)", got, worst, se)
	}
}

func TestDiscordantValidate(t *testing.T) {
	for _, d := range []Discordant{
		{Tol: -0.1, Alpha: 0.01, MaxN: 10, MinN: 1},
		{Tol: 0, Alpha: 0, MaxN: 10, MinN: 1},
		{Tol: 0, Alpha: 0.01, MaxN: 0, MinN: 1},
		{Tol: 0, Alpha: 0.01, MaxN: 10, MinN: 11},
	} {
		if _, _, err := d.Threshold(); err == nil {
			t.Errorf("%+v: no error", d)
		}
	}
}

// TestFixedLooksOnce: the fixed-size test looks only at its size.
func TestFixedLooksOnce(t *testing.T) {
	d := Discordant{Tol: 0.02, Alpha: 0.01, MaxN: 150, MinN: 5, Every: 5, MaxDiscord: 0.52, Spend: 0.5}.Fixed(40)
	for n := 1; n <= 40; n++ {
		if d.Looks(n) != (n == 40) {
			t.Errorf("Looks(%d) = %v", n, d.Looks(n))
		}
	}
	if d.MaxDiscord != 0.52 || d.Bound(3, 40) != 3 {
		t.Errorf("fixed test %+v", d)
	}
}

// BenchmarkDiscordantThreshold: calibrating the reproduction's default
// test, which `benchgate reproduce` does once before its first call (the
// statistic's table is kept between iterations, as in a process).
func BenchmarkDiscordantThreshold(b *testing.B) {
	d := Discordant{Tol: 0.02, Alpha: 0.01, MaxN: 150, MinN: 5, Every: 5, MaxDiscord: 0.52, Spend: 0.5}
	for b.Loop() {
		thresholds.Delete(d)
		if _, _, err := d.Threshold(); err != nil {
			b.Fatal(err)
		}
	}
}
