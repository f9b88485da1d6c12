package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latlab/latlab/internal/cyclictest"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
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

// BenchmarkCompareHistograms compares two cyclictest histograms of 250
// million wake-ups each (an hour at 70 kHz; 1000 buckets of a lognormal
// around 20 µs, one with overflows) from their buckets, by p99 and by the
// mean: what an expanded comparison could not do under the default
// --max-input-size, in memory of the buckets' order.
func BenchmarkCompareHistograms(b *testing.B) {
	in := []Input{bigHistogram("a.hist", 250_000_000, 20, 0), bigHistogram("b.hist", 250_000_000, 21, 1000)}
	for _, by := range []stats.Statistic{stats.Quantile(99), stats.Mean} {
		b.Run(by.String(), func(b *testing.B) {
			for b.Loop() {
				r, err := Compare(in, Options{By: by, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				if r.Runs[0].Summary.Count != 250_000_000 || r.Pairs[0].MWU.N1 != 250_000_000 {
					b.Fatalf("runs %+v", r.Runs[0].Summary)
				}
			}
		})
	}
}

// bigHistogram is a histogram of n wake-ups over 1000 buckets of 1 µs,
// lognormal around median µs, and overflows more above them.
func bigHistogram(label string, n int64, median float64, overflows int64) Input {
	counts := make([]int64, 1000)
	var sum float64
	w := make([]float64, len(counts))
	for i := range w {
		x := (float64(i) + 0.5) / median
		w[i] = math.Exp(-math.Pow(math.Log(x)/0.3, 2)/2) / x
		sum += w[i]
	}
	var in int64
	for i := range counts {
		counts[i] = int64(float64(n-overflows) * w[i] / sum)
		in += counts[i]
	}
	counts[int(median)] += n - overflows - in
	h := &cyclictest.Histogram{Counts: counts, RangeUs: int64(len(counts)), InRange: n - overflows, Overflows: overflows, Threads: 1}
	return Input{Label: label, Doc: &result.Document{Kind: CyclictestKind, Data: &Cyclictest{H: h}}}
}
