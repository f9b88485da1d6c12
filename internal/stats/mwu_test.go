package stats

import (
	"math"
	"testing"
)

// A tie of 2.2 million values (two runs rebuilt from histograms whose
// bucket holds 1.1 million wake-ups each): go-moremath's tie correction
// sums t^3 - t in an int, past 2^63 here, and its p-values were 0.86 and
// 0.99 where SciPy 1.17.1's mannwhitneyu(x, y, method='asymptotic',
// use_continuity=True) gives 2.0886e-45 and 0.19671.
func TestMannWhitneyLargeTies(t *testing.T) {
	run := func(parts ...[2]int64) []int64 {
		var s []int64
		for _, p := range parts {
			for range p[1] {
				s = append(s, p[0])
			}
		}
		return s
	}
	for _, c := range []struct {
		x, y []int64
		u, p float64
	}{
		{run([2]int64{5, 1_100_000}, [2]int64{10, 100}), run([2]int64{5, 1_100_000}, [2]int64{1, 100}), 605220010000, 2.088584886598981e-45},
		{run([2]int64{5, 1_100_000}, [2]int64{10, 30}), run([2]int64{5, 1_100_000}, [2]int64{10, 25}, [2]int64{1, 5}), 605038500525, 0.19670574486552728},
	} {
		m, err := MannWhitney(c.x, c.y)
		if err != nil {
			t.Fatal(err)
		}
		if m.U != c.u || math.Abs(m.P-c.p) > 1e-9*c.p {
			t.Errorf("U %v p %v, SciPy U %v p %v", m.U, m.P, c.u, c.p)
		}
	}
}
