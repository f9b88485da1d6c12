package stats

import (
	"math"
	"slices"
)

// SignedRankTest is the two-sided Wilcoxon signed-rank test of paired
// differences (B - A, one per round of a blocked experiment) against a
// median of 0. The order within each round is random, so without an
// effect each difference is as likely to come out positive as negative,
// whatever the drift between rounds: the p-value is exact under that
// randomization (all 2^n sign patterns) up to ExactSignedRankN non-zero
// differences, and the normal approximation beyond.
type SignedRankTest struct {
	Rounds int // differences given, zeros included
	Lower  int // differences below 0 (B lower)
	Higher int // and above (zeros count for neither side)
	// MedianDiff is the median of the differences.
	MedianDiff float64
	P          float64
	// MinP is the smallest p this many rounds can give: 2/2^n.
	MinP   float64
	Method string
}

// ExactSignedRankN is the most non-zero differences SignedRank computes
// the p-value of exactly.
const ExactSignedRankN = 100

// SignedRank tests the differences d: zeros and NaNs are dropped, tied
// magnitudes get their mean rank.
func SignedRank(d []float64) SignedRankTest {
	var nz []float64
	for _, x := range d {
		if x != 0 && !math.IsNaN(x) {
			nz = append(nz, x)
		}
	}
	t := SignedRankTest{Rounds: len(d), P: 1, MinP: math.Min(1, 2*math.Pow(0.5, float64(len(d)))), Method: "Wilcoxon signed-rank over rounds (exact)"}
	if len(d) > 0 {
		s := slices.Clone(d)
		slices.Sort(s)
		if len(s)%2 == 1 {
			t.MedianDiff = s[len(s)/2]
		} else {
			t.MedianDiff = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
	}
	n := len(nz)
	if n == 0 {
		return t
	}
	for _, x := range nz {
		if x < 0 {
			t.Lower++
		} else {
			t.Higher++
		}
	}
	// Doubled mid-ranks of |d| are whole numbers.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := math.Abs(nz[a]), math.Abs(nz[b])
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	rank2 := make([]int, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		r := i + 1 + j + 1 // twice the mean of ranks i+1..j+1
		for m := i; m <= j; m++ {
			rank2[idx[m]] = r
		}
		i = j + 1
	}
	total, w := 0, 0
	for i, x := range nz {
		total += rank2[i]
		if x > 0 {
			w += rank2[i]
		}
	}
	dev := math.Abs(float64(w) - float64(total)/2)
	if n > ExactSignedRankN {
		t.Method = "Wilcoxon signed-rank over rounds (normal approximation)"
		var v float64
		for _, r := range rank2 {
			v += float64(r) * float64(r)
		}
		sd := math.Sqrt(v) / 2 // sum of (r/2)^2 for ranks r/2, times 4 for doubled W
		z := (dev - 1) / sd    // continuity correction of one doubled unit
		if z < 0 {
			z = 0
		}
		t.P = math.Min(1, math.Erfc(z/math.Sqrt2))
		return t
	}
	// Every sign pattern is equally likely: the distribution of W by
	// dynamic programming over the ranks.
	dist := make([]float64, total+1)
	dist[0] = 1
	hi := 0
	for _, r := range rank2 {
		for s := hi; s >= 0; s-- {
			if dist[s] != 0 {
				dist[s+r] += dist[s] / 2
				dist[s] /= 2
			}
		}
		hi += r
	}
	p := 0.0
	for s, q := range dist {
		if math.Abs(float64(s)-float64(total)/2) >= dev-1e-9 {
			p += q
		}
	}
	t.P = math.Min(1, p)
	return t
}
