package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// bucketedRun is a run of n raw samples around 30 µs, serially dependent
// as phi says, each at the middle of its 1 µs bucket (as compare puts a
// wake result against a histogram): in measurement order and sorted.
func bucketedRun(rng *rand.Rand, n int, phi float64) (ordered, sorted []int64) {
	ordered = testutil.AR1(rng, n, phi, 30_000, 5_000)
	for i, v := range ordered {
		ordered[i] = max(v, 0)/1000*1000 + 500
	}
	sorted = slices.Clone(ordered)
	slices.Sort(sorted)
	return ordered, sorted
}

// A histogram's bins against a run of samples, compared without
// expanding the bins, are compared as the expanded bins are: the same
// effect, interval, rank test (the serial form when the samples are
// dependent), serial analyses and verdict; the Kolmogorov-Smirnov D and
// grid are the same, and its p-value the same for independent runs and
// within Monte Carlo error for a dependent one, whose multipliers are
// drawn a bin at a time for the histogram.
func TestCompareSides(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	_, near := bucketedRun(rng, 900, 0)
	for _, c := range []struct {
		name string
		phi  float64
		// near: the histogram is of the same process, so that the
		// p-values are neither 0 nor 1 (otherwise random bins, with
		// overflows)
		near bool
	}{{"independent", 0, true}, {"dependent", 0.8, true}, {"independent, apart", 0, false}, {"dependent, apart", 0.8, false}} {
		x := binSorted(near)
		if !c.near {
			x = randomBinned(t, rng, 40, 50, true)
		}
		ordered, sorted := bucketedRun(rng, 800, c.phi)
		bins := Side{Bins: &x}
		samples := Side{Sorted: sorted, Ordered: ordered}
		expanded := x.Expand()
		for _, o := range []CompareOptions{
			{By: Quantile(50), Seed: 1, Replicates: 300},
			{By: Mean, Seed: 2, Replicates: 300, Family: 3},
			{By: Stdev, Seed: 3, Replicates: 300, Rule: IntervalAndRanks},
			{By: Quantile(90), Seed: 4, Replicates: 300, Rule: IntervalAndRounds, Rounds: []float64{1, 2, 3, -1, 2, 3}},
		} {
			for _, binsFirst := range []bool{true, false} {
				a, b := bins, samples
				wo := o
				wo.OrderedB = ordered
				wa, wb := expanded, sorted
				if !binsFirst {
					a, b = samples, bins
					wo.OrderedA, wo.OrderedB = ordered, nil
					wa, wb = sorted, expanded
				}
				got, want := CompareSides(a, b, o), Compare(wa, wb, wo)
				if got.NA != want.NA || got.NB != want.NB || got.Verdict != want.Verdict || got.Test != want.Test ||
					(got.Interval == nil) != (want.Interval == nil) || (got.Interval != nil && !ciClose(*got.Interval, *want.Interval)) ||
					got.MWU.U != want.MWU.U || !relClose(got.MWU.P, want.MWU.P, 1e-9) || !relClose(got.Effect, want.Effect, 1e-12) ||
					!serialEqual(got.SerialA, want.SerialA) || !serialEqual(got.SerialB, want.SerialB) {
					t.Fatalf("%s %v bins first %v: sides %+v, expanded %+v", c.name, o.By, binsFirst, got, want)
				}
				if (c.phi > 0) != got.Dependent() {
					t.Fatalf("%s: dependent %v", c.name, got.Dependent())
				}
				if o.By != Quantile(50) || !c.near {
					continue // the sides below are the same for every option
				}
				ga, gb := got.ResampledA(a), got.ResampledB(b)
				ea, eb := want.SideA(wa, wo.OrderedA), want.SideB(wb, wo.OrderedB)
				gk, ek := KolmogorovSmirnovSerial(ga, gb, 7, 0), KolmogorovSmirnovSerial(ea, eb, 7, 0)
				tol := 1e-9
				if got.Dependent() {
					tol = 0.05 / math.Max(gk.P, ek.P) // Monte Carlo error of 2000 replicates, and more
				}
				if !relClose(gk.D, ek.D, 1e-12) || gk.Test != ek.Test || gk.Grid != ek.Grid || gk.Replicates != ek.Replicates || !relClose(gk.P, ek.P, tol) {
					t.Fatalf("%s bins first %v: Kolmogorov-Smirnov %+v, expanded %+v", c.name, binsFirst, gk, ek)
				}
				sts := []Statistic{Quantile(50), Quantile(99), Mean}
				boot := Bootstrap{Seed: 9, Replicates: 300, Level: 0.95}
				gc, ec := boot.DiffCIsSerial(ga, gb, sts), boot.DiffCIsSerial(ea, eb, sts)
				for i := range sts {
					if !ciClose(gc[i], ec[i]) {
						t.Fatalf("%s bins first %v %v: interval %+v, expanded %+v", c.name, binsFirst, sts[i], gc[i], ec[i])
					}
				}
			}
		}
	}
}

func serialEqual(a, b *Serial) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// ksGridBinned is ksGrid of the expanded bins: every distinct value, or
// the pooled values at the k/most quantiles.
func TestKSGridBinned(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, most := range []int{3, 17, 512} {
		for _, c := range binnedCases {
			x := randomBinned(t, rng, c.bins, c.perBin, c.overflow)
			y := randomBinned(t, rng, c.bins, c.perBin, false)
			if got, want := ksGridBinned(x, y, most), ksGrid(x.Expand(), y.Expand(), most); !slices.Equal(got, want) {
				t.Fatalf("%s, at most %d: %v, expanded %v", c.name, most, got, want)
			}
		}
	}
}
