package stats

import (
	"errors"
	"math"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// MWU is the result of a two-sided Mann-Whitney U test (Wilcoxon rank-sum
// test) of x against y.
type MWU struct {
	N1, N2 int
	// U counts the pairs (x_i, y_j) with x_i > y_j, ties as one half
	// (R's wilcox.test reports it as W).
	U float64 `json:"u"`
	// P is the two-sided p-value: exact for small samples (both <= 50,
	// or <= 25 with ties), otherwise the normal approximation with tie
	// and continuity corrections, as R's wilcox.test(correct = TRUE).
	P float64 `json:"p"`
	// Superiority is U/(N1*N2): the probability that a value from x
	// exceeds one from y (0.5 = no tendency either way).
	Superiority float64 `json:"superiority"`
}

// MannWhitney runs the test with github.com/aclements/go-moremath. Two
// samples whose values are all equal give P = 1. Beyond the sizes of its
// exact distribution the normal approximation is MannWhitneyBinned's, of
// the same value: go-moremath sums the ties' t^3 - t in an int, which
// passes 2^63 once about 2.1 million values tie (a bucket of a rebuilt
// histogram holds them), and its p-value is then wrong.
func MannWhitney(x, y []int64) (MWU, error) {
	if lim := moremath.MannWhitneyExactLimit; len(x) > lim || len(y) > lim {
		bx, errx := binsOf(x)
		by, erry := binsOf(y)
		if err := errors.Join(errx, erry); err != nil {
			return MWU{}, err
		}
		return MannWhitneyBinned(bx, by)
	}
	fx, fy := toFloat(x), toFloat(y)
	r, err := moremath.MannWhitneyUTest(fx, fy, moremath.LocationDiffers)
	if errors.Is(err, moremath.ErrSamplesEqual) {
		u := float64(len(x)*len(y)) / 2
		return MWU{N1: len(x), N2: len(y), U: u, P: 1, Superiority: 0.5}, nil
	}
	if err != nil {
		return MWU{}, err
	}
	return MWU{N1: r.N1, N2: r.N2, U: r.U, P: math.Min(r.P, 1), Superiority: r.U / float64(r.N1*r.N2)}, nil
}

// binsOf is s as bins: its distinct values, each with its count.
func binsOf(s []int64) (Binned, error) {
	if !slices.IsSorted(s) {
		s = slices.Clone(s)
		slices.Sort(s)
	}
	var values, counts []int64
	for i, v := range s {
		if i > 0 && v == s[i-1] {
			counts[len(counts)-1]++
			continue
		}
		values, counts = append(values, v), append(counts, 1)
	}
	return NewBinned(values, counts)
}

func toFloat(s []int64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// Holm adjusts p-values for multiple comparisons (Holm-Bonferroni step-down),
// as R's p.adjust(method = "holm").
func Holm(p []float64) []float64 {
	n := len(p)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, n)
	run := 0.0
	for r, i := range idx {
		v := math.Min(1, float64(n-r)*p[i])
		run = math.Max(run, v)
		out[i] = run
	}
	return out
}
