package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomBinned is a histogram as compare makes of a cyclictest file:
// 1 µs buckets at their middles, some empty, n values in all (about),
// and with overflow set some values at 2^50 ns.
func randomBinned(t *testing.T, rng *rand.Rand, bins, perBin int, overflow bool) Binned {
	t.Helper()
	var vs, cs []int64
	start := rng.IntN(50)
	for b := range bins {
		vs = append(vs, int64(start+b)*1000+500)
		c := int64(0)
		if rng.IntN(4) > 0 {
			c = int64(rng.IntN(perBin + 1))
		}
		cs = append(cs, c)
	}
	if overflow {
		vs, cs = append(vs, 1<<50), append(cs, int64(1+rng.IntN(perBin+1)))
	}
	cs[0]++ // never empty
	b, err := NewBinned(vs, cs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// binnedCases are the shapes the binned statistics are checked on:
// small (MannWhitney's exact path), middling, large with few bins
// (ties everywhere), with overflows at the top.
var binnedCases = []struct {
	name         string
	bins, perBin int
	overflow     bool
}{
	{"tiny", 5, 3, false},
	{"small", 20, 2, false},
	{"middling", 40, 30, false},
	{"few bins", 4, 500, false},
	{"overflows", 30, 40, true},
	{"wide", 300, 20, true},
}

func relClose(a, b, tol float64) bool {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func TestNewBinnedRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		vs, cs []int64
	}{
		{"lengths", []int64{1, 2}, []int64{1}},
		{"negative", []int64{1, 2}, []int64{1, -1}},
		{"not increasing", []int64{2, 2}, []int64{1, 1}},
		{"sum overflows", []int64{1, 2}, []int64{math.MaxInt64, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := NewBinned(c.vs, c.cs); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	b, err := NewBinned([]int64{1, 2, 3}, []int64{2, 0, 1})
	if err != nil || b.N() != 3 || len(b.values) != 2 {
		t.Fatalf("empty bin kept or count wrong: %+v %v", b, err)
	}
}

// Every summary statistic from the bins is the expanded sample's:
// percentiles exactly, the moments to 1e-12 (the weighted Welford sums
// a bin at a time, MeanStdev a value at a time: both stable, their
// rounding differs in the last bits).
func TestBinnedSummary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range binnedCases {
		for rep := range 20 {
			b := randomBinned(t, rng, c.bins, c.perBin, c.overflow)
			s := b.Expand()
			got, want := SummarizeBinned(b), SummarizeSorted(s)
			if got.Count != want.Count || got.Min != want.Min || got.P50 != want.P50 || got.P90 != want.P90 ||
				got.P99 != want.P99 || got.P999 != want.P999 || got.Max != want.Max ||
				!relClose(got.Mean, want.Mean, 1e-12) || !relClose(got.Stdev, want.Stdev, 1e-12) {
				t.Fatalf("%s #%d: binned %+v, expanded %+v", c.name, rep, got, want)
			}
			for _, p := range []float64{0, 0.1, 1, 33.3, 50, 77, 99.99, 100} {
				if g, w := Quantile(p).OfBinned(b), Quantile(p).Of(s); g != w {
					t.Fatalf("%s #%d: p%v binned %v, expanded %v", c.name, rep, p, g, w)
				}
			}
		}
	}
}

// The binned Mann-Whitney test and Kolmogorov-Smirnov distance are the
// expanded ones: U exactly where both count in whole halves, p and D to
// 1e-12 (D sums the counts as weights where gonum adds 1/n per value).
func TestBinnedTests(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range binnedCases {
		for rep := range 20 {
			x := randomBinned(t, rng, c.bins, c.perBin, c.overflow)
			y := randomBinned(t, rng, c.bins, c.perBin, c.overflow && rep%2 == 0)
			got, err := MannWhitneyBinned(x, y)
			if err != nil {
				t.Fatal(err)
			}
			want, err := MannWhitney(x.Expand(), y.Expand())
			if err != nil {
				t.Fatal(err)
			}
			if got.N1 != want.N1 || got.N2 != want.N2 || got.U != want.U || !relClose(got.P, want.P, 1e-12) || !relClose(got.Superiority, want.Superiority, 1e-12) {
				t.Fatalf("%s #%d: Mann-Whitney binned %+v, expanded %+v", c.name, rep, got, want)
			}
			gk, wk := KolmogorovSmirnovBinned(x, y), KolmogorovSmirnov(x.Expand(), y.Expand())
			if math.Abs(gk.D-wk.D) > 1e-12 || !relClose(gk.P, wk.P, 1e-9) || gk.Test != wk.Test {
				t.Fatalf("%s #%d: KS binned %+v, expanded %+v", c.name, rep, gk, wk)
			}
		}
	}
}

// The bootstrap from the bins draws what the expanded one draws, from
// the same seed: percentiles and (within Budget) the mean and stdev to
// the last bit, the mean's normal approximation beyond it to 1e-12.
func TestBinnedBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sts := []Statistic{Quantile(50), Quantile(90), Quantile(99), Quantile(99.9), Mean, Stdev}
	for _, c := range binnedCases {
		x := randomBinned(t, rng, c.bins, c.perBin, false)
		y := randomBinned(t, rng, c.bins, c.perBin, false)
		for _, budget := range []int{0, 10} {
			bs := Bootstrap{Seed: 7, Replicates: 500, Budget: budget}
			for _, st := range sts {
				if budget > 0 && st == Stdev {
					continue // multinomial: TestMultinomialBootstrap
				}
				got, want := bs.DiffCIBinned(x, y, st), bs.DiffCI(x.Expand(), y.Expand(), st)
				same := got.Method == want.Method && got.Replicates == want.Replicates && got.Level == want.Level
				if budget == 0 || st != Mean {
					// The same draws: the same bounds; the estimate of a
					// moment to 1e-12 (TestBinnedSummary).
					same = same && got.Lo == want.Lo && got.Hi == want.Hi && relClose(got.Estimate, want.Estimate, 1e-12)
				} else {
					same = same && ciClose(got, want)
				}
				if !same {
					t.Fatalf("%s budget %d %v: binned %+v, expanded %+v", c.name, budget, st, got, want)
				}
			}
		}
	}
}

// A multinomial draw's bins have the binomial marginals a resample of n
// values with replacement has: mean n p_i and variance n p_i (1 - p_i),
// checked over 4000 draws (each within 5 standard errors) for a small n
// and one of 10^9, where the binomials are drawn by rejection.
func TestMultinomialMarginals(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, counts := range [][]int64{
		{3, 1, 0, 5, 1},
		{400_000_000, 1, 250_000_000, 349_999_999, 7},
	} {
		vs := make([]int64, len(counts))
		for i := range vs {
			vs[i] = int64(i)
		}
		b, err := NewBinned(vs, counts)
		if err != nil {
			t.Fatal(err)
		}
		const draws = 4000
		sum := make([]float64, len(b.counts))
		sq := make([]float64, len(b.counts))
		drawn := make([]int64, len(b.counts))
		for range draws {
			b.multinomial(rng, drawn)
			var tot int64
			for i, k := range drawn {
				tot += k
				sum[i] += float64(k)
				sq[i] += float64(k) * float64(k)
			}
			if tot != b.N() {
				t.Fatalf("a draw of %d values from %d", tot, b.N())
			}
		}
		n := float64(b.N())
		for i, c := range b.counts {
			p := float64(c) / n
			mean, v := n*p, n*p*(1-p)
			gotMean := sum[i] / draws
			gotVar := sq[i]/draws - gotMean*gotMean
			if se := math.Sqrt(v / draws); math.Abs(gotMean-mean) > 5*se+1e-9 {
				t.Errorf("bin %d of %v: mean count %.3f, want %.3f (se %.3g)", i, counts, gotMean, mean, se)
			}
			// The variance of a sample variance of a near-normal count is
			// about 2 v^2 / draws.
			if se := v * math.Sqrt(2.0/draws); v > 0 && math.Abs(gotVar-v) > 5*se {
				t.Errorf("bin %d of %v: variance %.4g, want %.4g (se %.3g)", i, counts, gotVar, v, se)
			}
		}
	}
}

// The multinomial bootstrap's replicates of the mean and the stdev have
// the distribution of the expanded bootstrap's (drawn value by value): a
// two-sample Kolmogorov-Smirnov test of 4000 replicates each does not
// tell them apart at 0.1%, while it does tell a resample of a size off
// by a quarter.
func TestMultinomialBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	x := randomBinned(t, rng, 30, 20, false)
	const reps = 4000
	toInts := func(f []float64) []int64 {
		out := make([]int64, len(f))
		for i, v := range f {
			out[i] = int64(math.Round(v * 1000)) // to 0.001 ns: far below the replicates' spread
		}
		return out
	}
	for _, st := range []Statistic{Mean, Stdev} {
		bs := Bootstrap{Seed: 12, Replicates: reps}.norm()
		multi, _ := bs.replicatesBinned(x, st, rand.New(rand.NewPCG(12, 1)), true)
		direct, _ := bs.replicates(x.Expand(), st, rand.New(rand.NewPCG(13, 1)))
		if k := KolmogorovSmirnov(toInts(multi), toInts(direct)); k.P < 0.001 {
			t.Errorf("%v: multinomial and direct replicates differ: D %.3f, p %.2g", st, k.D, k.P)
		}
		// The check has the power to see a wrong resample size.
		s := x.Expand()
		short, _ := bs.replicates(s[:len(s)*3/4], st, rand.New(rand.NewPCG(14, 1)))
		if k := KolmogorovSmirnov(toInts(multi), toInts(short)); k.P >= 0.001 {
			t.Errorf("%v: the test does not tell a resample of 3/4 of the values: p %.2g", st, k.P)
		}
	}
}

// CompareBinned is Compare of the expanded samples: same interval, test
// and verdict, by every rule that takes no order.
func TestCompareBinned(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, c := range binnedCases {
		x := randomBinned(t, rng, c.bins, c.perBin, c.overflow)
		y := randomBinned(t, rng, c.bins, c.perBin, false)
		for _, o := range []CompareOptions{
			{By: Quantile(50), Seed: 1, Replicates: 300},
			{By: Mean, Seed: 2, Replicates: 300, Family: 3},
			{By: Stdev, Seed: 3, Replicates: 300, Rule: IntervalAndRanks},
			{By: Quantile(90), Seed: 4, Replicates: 300, Rule: IntervalAndRounds, Rounds: []float64{1, 2, 3, -1, 2, 3}},
		} {
			got, want := CompareBinned(x, y, o), Compare(x.Expand(), y.Expand(), o)
			if got.NA != want.NA || got.NB != want.NB || got.Verdict != want.Verdict || got.Test != want.Test ||
				(got.Interval == nil) != (want.Interval == nil) || (got.Interval != nil && !ciClose(*got.Interval, *want.Interval)) ||
				got.MWU.U != want.MWU.U || !relClose(got.MWU.P, want.MWU.P, 1e-12) || !relClose(got.Effect, want.Effect, 1e-12) {
				t.Fatalf("%s %v: binned %+v, expanded %+v", c.name, o.By, got, want)
			}
		}
	}
}

// ciClose: the same interval, its numbers to 1e-12 (a moment's estimate,
// and a normal approximation's draws around it).
func ciClose(a, b CI) bool {
	return a.Method == b.Method && a.Replicates == b.Replicates && a.Level == b.Level &&
		relClose(a.Estimate, b.Estimate, 1e-12) && relClose(a.Lo, b.Lo, 1e-12) && relClose(a.Hi, b.Hi, 1e-12)
}

// Counts of billions a side, whose products overflow an int64 (4e9 x
// 4e9), still give the test: every x below every y is U = 0.
func TestMannWhitneyBinnedHuge(t *testing.T) {
	x, _ := NewBinned([]int64{1, 2}, []int64{2e9, 2e9})
	y, _ := NewBinned([]int64{3, 4}, []int64{2e9, 2e9})
	m, err := MannWhitneyBinned(x, y)
	if err != nil || m.U != 0 || m.Superiority != 0 || m.P != 0 {
		t.Fatalf("%+v %v", m, err)
	}
	m, err = MannWhitneyBinned(y, x)
	if err != nil || m.U != 16e18 || m.Superiority != 1 || m.P != 0 {
		t.Fatalf("%+v %v", m, err)
	}
}
