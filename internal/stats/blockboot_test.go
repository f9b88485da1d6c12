package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// blockReplicatesByCopy is BlockReplicates as it was first written:
// every resample built, then each quantile selected from it. It is the
// oracle of the bucketed selection, which must give the same values.
func blockReplicatesByCopy(ordered []int64, l int, sts []Statistic, reps int, rng *rand.Rand) [][]float64 {
	n := len(ordered)
	l = min(max(l, 1), n)
	out := make([][]float64, len(sts))
	for i := range out {
		out[i] = make([]float64, reps)
	}
	buf := make([]int64, n)
	starts := n - l + 1
	for r := range reps {
		for j := 0; j < n; j += l {
			s := rng.IntN(starts)
			copy(buf[j:], ordered[s:s+l])
		}
		for i, st := range sts {
			out[i][r] = st.Of(slices.Sorted(slices.Values(buf)))
		}
	}
	return out
}

// The quantiles of every replicate are those of the resample built and
// sorted, whatever the ties, the block length, the sample count and the
// quantiles asked for (several in one range of values, the extremes);
// the mean and stdev as well, up to rounding.
func TestBlockReplicatesAsTheResampleSays(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3000).Draw(t, "n")
		distinct := rapid.IntRange(1, 5000).Draw(t, "distinct")
		phi := rapid.Float64Range(0, 0.95).Draw(t, "phi")
		seed := rapid.Uint64().Draw(t, "seed")
		rng := rand.New(rand.NewPCG(seed, 1))
		x := make([]int64, n)
		z := 0.0
		for i := range x {
			z = phi*z + rng.NormFloat64()
			x[i] = int64(math.Floor(z*float64(distinct)/4)) * 1000
		}
		l := rapid.IntRange(1, n).Draw(t, "l")
		ps := rapid.SliceOfN(rapid.SampledFrom([]float64{0, 1, 5, 25, 50, 50.5, 90, 99, 99.9, 100}), 1, 6).Draw(t, "ps")
		sts := []Statistic{Mean, Stdev}
		for _, p := range ps {
			sts = append(sts, Quantile(p))
		}
		reps := rapid.IntRange(1, 20).Draw(t, "reps")
		got := BlockReplicates(x, l, sts, reps, rand.New(rand.NewPCG(seed, 2)))
		want := blockReplicatesByCopy(x, l, sts, reps, rand.New(rand.NewPCG(seed, 2)))
		// prefix sums round differently from a sum of the resample
		var scale float64
		for _, v := range x {
			scale = math.Max(scale, math.Abs(float64(v)))
		}
		for i, st := range sts {
			for r := range reps {
				g, w := got[i][r], want[i][r]
				bad := math.Abs(g-w) > 1e-6+1e-9*scale
				switch st.kind {
				case statQuantile:
					bad = g != w
				case statStdev: // the square root magnifies the rounding of a variance near 0
					bad = math.Abs(g*g-w*w) > 1e-6+1e-9*scale*scale
				}
				if bad {
					t.Fatalf("%v of replicate %d: %v, the resample's is %v", st, r, g, w)
				}
			}
		}
	})
}
