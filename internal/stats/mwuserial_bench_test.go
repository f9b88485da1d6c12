package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkMannWhitneySerial: two dependent runs of a million samples,
// as compare tests them (compare's BenchmarkCompareDependent runs all of
// it).
func BenchmarkMannWhitneySerial(b *testing.B) {
	run := func(seed uint64) []int64 {
		r := rand.New(rand.NewPCG(seed, 3))
		s := make([]int64, 1_000_000)
		x := 0.0
		for i := range s {
			x = 0.8*x + math.Sqrt(1-0.64)*r.NormFloat64()
			s[i] = int64(1e6 + 3e4*math.Exp(0.5*x))
		}
		return s
	}
	x, y := run(1), run(2)
	for b.Loop() {
		MannWhitneySerial(x, y, true, true)
	}
}
