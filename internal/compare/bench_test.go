package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
)

// BenchmarkCompareDependent compares two sleep runs whose samples are
// serially dependent (AR(1), phi 0.8, as a burst of interference delays
// several sleeps in a row): the case that takes the block bootstrap of
// every statistic of the table and the multiplier bootstrap of the
// Kolmogorov-Smirnov test, both at their fewest replicates (200) for a
// million samples a run.
func BenchmarkCompareDependent(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			in := []Input{dependentRun("a.json", n, 1), dependentRun("b.json", n, 2)}
			for b.Loop() {
				r, err := Compare(in, Options{By: stats.Quantile(50), Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				if p := r.Pairs[0]; !p.KS.Dependent() || p.ByDiff == nil {
					b.Fatalf("not compared as dependent runs: %+v", p.KS)
				}
			}
		})
	}
}

// dependentRun is a sleep document of n overshoots around 1 ms that
// follow an AR(1) process of phi 0.8 through a lognormal.
func dependentRun(label string, n int, seed uint64) Input {
	r := rand.New(rand.NewPCG(seed, 3))
	s := make([]int64, n)
	x := 0.0
	for i := range s {
		x = 0.8*x + math.Sqrt(1-0.64)*r.NormFloat64()
		s[i] = int64(1e6 + 3e4*math.Exp(0.5*x))
	}
	return Input{Label: label, Doc: probe.KindSleep.New(host.Facts{}, &probe.SleepData{Samples: s})}
}
