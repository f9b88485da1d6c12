package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
	"pgregory.net/rapid"
)

// ar1 is n values of a stationary AR(1) process with standard normal
// innovations (testutil.AR1), as latencies around 1 ms with a 10 µs
// spread per unit.
func ar1(rng *rand.Rand, n int, phi float64) []int64 {
	return testutil.AR1(rng, n, phi, 1e6, 1e4)
}

func TestLag1(t *testing.T) {
	for _, c := range []struct {
		name string
		x    []int64
		want float64
	}{
		// By hand: deviations -2..2, sum of squares 10, of lagged
		// products 4 (R: acf(1:5)$acf[2] = 0.4).
		{"ramp", []int64{1, 2, 3, 4, 5}, 0.4},
		// Deviations alternate +-1: 5 lagged products of -1 over 6.
		{"alternating", []int64{1, 3, 1, 3, 1, 3}, -5.0 / 6},
		{"constant", []int64{7, 7, 7, 7}, 0},
		{"too short", []int64{1, 2}, 0},
	} {
		if got := Lag1(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: Lag1 = %v, want %v", c.name, got, c.want)
		}
	}
}

// The long-run variance of an AR(1) series with unit innovations is
// 1/(1-phi)^2, and its effective sample size n(1-phi)/(1+phi).
func TestLongRunVarianceAndEffectiveSizeOfAR1(t *testing.T) {
	const n = 40_000
	for _, phi := range []float64{0, 0.5, 0.8} {
		rng := rand.New(rand.NewPCG(7, uint64(phi*100)))
		x := toFloat(ar1(rng, n, phi))
		for i := range x {
			x[i] = (x[i] - 1e6) / 1e4
		}
		lrv := LongRunVariance(x)
		want := 1 / ((1 - phi) * (1 - phi))
		if math.Abs(lrv/want-1) > 0.15 {
			t.Errorf("phi %.1f: long-run variance %.3f, want %.3f within 15%%", phi, lrv, want)
		}
		ess := EffectiveSampleSize(x)
		wantN := n * (1 - phi) / (1 + phi)
		if math.Abs(ess/wantN-1) > 0.15 {
			t.Errorf("phi %.1f: effective size %.0f, want %.0f within 15%%", phi, ess, wantN)
		}
	}
}

// Politis and White's rule for a moving-block bootstrap of the mean of an
// AR(1) series gives (2 G^2 / D)^(1/3) n^(1/3) with G = 2 phi/(1-phi)^2,
// g = (1+phi)/(1-phi) (in units of the variance) and D = 4/3 g^2: 3.09
// n^(1/3) for phi 0.8, 1.39 n^(1/3) for phi 0.5; and short blocks for
// independent samples.
func TestBlockLengthOfAR1(t *testing.T) {
	const n = 8000
	for _, c := range []struct {
		phi    float64
		lo, hi int
	}{
		{0, 1, 3},
		{0.5, 18, 45},  // 1.39 * 20 = 28
		{0.8, 40, 100}, // 3.09 * 20 = 62
	} {
		rng := rand.New(rand.NewPCG(11, uint64(c.phi*100)))
		if b := BlockLength(toFloat(ar1(rng, n, c.phi))); b < c.lo || b > c.hi {
			t.Errorf("phi %.1f: block length %d, want %d..%d", c.phi, b, c.lo, c.hi)
		}
	}
}

// Independent runs are judged dependent about once in 740 (the
// threshold's 3 standard deviations): of 1000 seeded runs, at most a few;
// AR(1) runs with phi 0.5 always.
func TestDependentThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	flagged := 0
	for range 1000 {
		if SerialOf(ar1(rng, 300, 0)).Dependent {
			flagged++
		}
	}
	if flagged > 6 { // binomial(1000, 0.00135): P(> 6) < 0.001
		t.Errorf("%d of 1000 independent runs judged dependent", flagged)
	}
	for i := range 100 {
		if s := SerialOf(ar1(rng, 300, 0.5)); !s.Dependent || s.Block < 2 {
			t.Fatalf("AR(1) run %d with phi 0.5: %+v, want dependent with blocks", i, s)
		}
	}
	if Dependent(0.9, MinPerSide-1) {
		t.Error("fewer samples than MinPerSide judged dependent")
	}
}

func TestSelectK(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.Int64Range(-5, 5), 1, 60).Draw(t, "a")
		k := rapid.IntRange(0, len(a)-1).Draw(t, "k")
		s := slices.Clone(a)
		slices.Sort(s)
		if got := selectK(slices.Clone(a), k); got != s[k] {
			t.Fatalf("selectK(%v, %d) = %d, want %d", a, k, got, s[k])
		}
	})
}

// A block of length 1 draws single samples: the block bootstrap of
// independent samples gives the interval the i.i.d. bootstrap gives, to
// the bootstrap's own noise.
func TestBlockReplicatesOfLengthOneMatchIID(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := ar1(rng, 2000, 0)
	sorted := ascending(x)
	b := Bootstrap{Seed: 1, Replicates: 2000}
	iid := b.CI(sorted, Quantile(90))
	reps := BlockReplicates(x, 1, []Statistic{Quantile(90)}, 2000, rand.New(rand.NewPCG(9, 9)))
	lo, hi := percentileInterval(reps[0], 0.95)
	if w, wi := hi-lo, iid.Hi-iid.Lo; math.Abs(w/wi-1) > 0.2 {
		t.Errorf("blocks of 1: width %.0f, i.i.d. bootstrap %.0f", w, wi)
	}
}

// Without ties and without dependence, the serial test's variance tends
// to the i.i.d. one: its p-value is close to Mann-Whitney's.
func TestMannWhitneySerialMatchesIIDOnIndependentSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for i := range 5 {
		a := ar1(rng, 3000, 0)
		b := ar1(rng, 3000, 0)
		for j := range b {
			b[j] += int64(i) * 300 // shifts of 0 to 0.12 standard deviations
		}
		m, _ := MannWhitney(a, b)
		s := MannWhitneySerial(a, b, false, false)
		if math.Abs(s.U-m.U) > 1e-6*m.U || s.Superiority != m.Superiority {
			t.Errorf("shift %d: U %v, superiority %v; Mann-Whitney's %v, %v", i, s.U, s.Superiority, m.U, m.Superiority)
		}
		zs, zm := zOf(s.P), zOf(m.P)
		if math.Abs(zs-zm) > 0.1*math.Max(1, zm) {
			t.Errorf("shift %d: p %.4g (z %.2f), Mann-Whitney's %.4g (z %.2f)", i, s.P, zs, m.P, zm)
		}
	}
	if r := MannWhitneySerial([]int64{5, 5, 5}, []int64{5, 5}, true, true); r.P != 1 || r.Superiority != 0.5 {
		t.Errorf("all equal: %+v, want p 1, superiority 0.5", r)
	}
	if r := MannWhitneySerial(nil, []int64{5, 5}, true, true); r.P != 1 {
		t.Errorf("an empty side: %+v, want p 1", r)
	}
	// Complete separation estimates no variance from the projections; it
	// is the strongest evidence of a difference, not none. The i.i.d.
	// test's p for 30 against 30 separated samples is about 3e-11.
	var lo, hi []int64
	for i := range int64(30) {
		lo, hi = append(lo, 1000+(i*7)%30), append(hi, 5000+(i*7)%30)
	}
	m, _ := MannWhitney(lo, hi)
	if r := MannWhitneySerial(lo, hi, true, true); r.P >= 1e-6 || r.Superiority != 0 || math.Abs(zOf(r.P)-zOf(m.P)) > 0.1*zOf(m.P) {
		t.Errorf("complete separation: %+v, Mann-Whitney's p %.3g", r, m.P)
	}
}

// zOf is the normal quantile of a two-sided p-value.
func zOf(p float64) float64 { return -normalQuantile(p / 2) }

func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// On independent samples handed in measurement order, stats.Compare
// decides as it did without the order: the same interval, test and
// verdict (the threshold keeps the i.i.d. methods), for every seed.
func TestCompareOrderedIndependentSamplesUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	for i := range 20 {
		a, b := ar1(rng, 400, 0), ar1(rng, 400, 0)
		for j := range b {
			b[j] += int64(i%4) * 1000
		}
		o := CompareOptions{By: Quantile(50), Seed: uint64(i)}
		plain := Compare(a, b, o)
		o.OrderedA, o.OrderedB = a, b
		ord := Compare(a, b, o)
		if ord.Dependent() {
			t.Fatalf("seed %d: independent samples judged dependent: %+v %+v", i, *ord.SerialA, *ord.SerialB)
		}
		if *ord.Interval != *plain.Interval || ord.MWU != plain.MWU || ord.Verdict != plain.Verdict || ord.Test != plain.Test {
			t.Errorf("seed %d: with the order %+v %+v %v; without %+v %+v %v", i, *ord.Interval, ord.MWU, ord.Verdict, *plain.Interval, plain.MWU, plain.Verdict)
		}
	}
}

// The intervals of several statistics drawn from shared resamples are
// each the interval of the statistic drawn alone, whatever the order of
// the statistics (the quantiles are selected one after another in the
// same buffer).
func TestDiffCIsSerialMatchesOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 41))
	a, b := ar1(rng, 3000, 0.7), ar1(rng, 2000, 0.7)
	x := Side{Sorted: ascending(a), Ordered: a, Block: 17}
	y := Side{Sorted: ascending(b), Ordered: b, Block: 1} // one side i.i.d.
	sts := []Statistic{Quantile(99), Mean, Quantile(50), Stdev, Quantile(50), Quantile(90), Quantile(100)}
	boot := Bootstrap{Seed: 5, Replicates: 300}
	all := boot.DiffCIsSerial(x, y, sts)
	for i, st := range sts {
		if one := boot.DiffCISerial(x, y, st); all[i] != one {
			t.Errorf("%s: together %+v, alone %+v", st, all[i], one)
		}
	}
	// The block bootstrap's interval of a dependent side is wider than
	// the i.i.d. one's.
	iid := boot.DiffCI(x.Sorted, y.Sorted, Quantile(50))
	if blk := all[2]; blk.Hi-blk.Lo <= iid.Hi-iid.Lo {
		t.Errorf("p50: blocks %+v no wider than i.i.d. %+v", blk, iid)
	}
}

// A block as long as the series resamples the series itself: every
// replicate's mean, stdev and percentiles are the series' own, which
// checks the prefix sums the mean and stdev come from.
func TestBlockReplicatesOfOneWholeBlock(t *testing.T) {
	x := ar1(rand.New(rand.NewPCG(8, 8)), 1001, 0.5)
	sorted := ascending(x)
	sts := []Statistic{Stdev, Quantile(50), Mean, Quantile(99), Quantile(0)}
	reps := BlockReplicates(x, len(x), sts, 3, rand.New(rand.NewPCG(1, 1)))
	for i, st := range sts {
		for _, v := range reps[i] {
			if want := st.Of(sorted); math.Abs(v-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s = %v, want %v", st, v, want)
			}
		}
	}
}
