package testutil

import (
	"math"
	"math/rand/v2"
)

// AR1 is n values of a stationary AR(1) process x_t = phi x_t-1 + e_t
// with standard normal innovations, as latencies: mean + scale x_t,
// rounded to the nanosecond and never below 0. A burst of interference
// that delays several samples in a row is what such a series models;
// the tests of the methods for serially dependent samples draw from it.
func AR1(rng *rand.Rand, n int, phi, mean, scale float64) []int64 {
	out := make([]int64, n)
	x := rng.NormFloat64() / math.Sqrt(1-phi*phi)
	for i := range out {
		out[i] = max(0, int64(math.Round(mean+scale*x)))
		x = phi*x + rng.NormFloat64()
	}
	return out
}
