package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Two runs of the same AR(1) process differ only by chance, so the
// Kolmogorov-Smirnov test at 5% should reject about 5% of pairs. The
// i.i.d. p-value rejects half of them at phi 0.8; the multiplier
// bootstrap with the runs' blocks comes near its level, a little above
// (in 1000 pairs 8.0% at 400 samples a run, 7.0% at 800; 5.0% in these
// 200 pairs of 600). 200 pairs at a true 7.5% give a
// rejection rate with standard deviation 1.9%: 12% is 2.4 above, 1% 3.5
// below. The i.i.d. test must reject at least 25% (50 of 200), or the
// simulation would not show the problem. 100 replicates a test keep it
// to half a second without -race (p < 0.05 is then at most 4 replicates
// at or above the statistic, a valid test still); the rates are logged
// (go test -v).
func TestKSSerialSimulation(t *testing.T) {
	const n, tests = 600, 200
	for _, phi := range []float64{0.8} {
		t.Run(fmt.Sprintf("phi %.1f", phi), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1201, uint64(phi*10)))
			iidRej, serRej := 0, 0
			for r := range tests {
				a, b := ar1(rng, n, phi), ar1(rng, n, phi)
				sa, sb := SerialOf(a), SerialOf(b)
				if !sa.Dependent || !sb.Dependent {
					t.Fatalf("run %d: not judged dependent", r)
				}
				if KolmogorovSmirnov(a, b).P < 0.05 {
					iidRej++
				}
				k := KolmogorovSmirnovSerial(Side{Sorted: ascending(a), Ordered: a, Block: sa.Block},
					Side{Sorted: ascending(b), Ordered: b, Block: sb.Block}, uint64(r), 100)
				if k.Test != SerialKSTest || k.Replicates != 100 || !k.Dependent() {
					t.Fatalf("run %d: test %q, %d replicates", r, k.Test, k.Replicates)
				}
				if k.P < 0.05 {
					serRej++
				}
			}
			iid, ser := float64(iidRej)/tests, float64(serRej)/tests
			t.Logf("phi %.1f: rejection at 5%%: i.i.d. Kolmogorov-Smirnov %.3f, multiplier bootstrap %.3f", phi, iid, ser)
			if iid < 0.25 {
				t.Errorf("the i.i.d. p-value rejected %.3f, expected far above 5%%: the simulation does not show the problem", iid)
			}
			if ser < 0.01 || ser > 0.12 {
				t.Errorf("the multiplier bootstrap rejected %.3f, want near 5%% (0.01..0.12)", ser)
			}
		})
	}
}

// A difference the test is for is still found under dependence: runs of
// 800 from AR(1) processes of phi 0.8 whose means differ by one marginal
// standard deviation (1e4/sqrt(1-0.64)). Each pair gave p <= 0.005 (the
// floor of 200 replicates) for this seed; half a deviation was found in
// 19 pairs of 20.
func TestKSSerialPower(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1202, 1))
	shift := int64(math.Round(1e4 / math.Sqrt(1-0.64)))
	for r := range 20 {
		a, b := ar1(rng, 800, 0.8), ar1(rng, 800, 0.8)
		for i := range b {
			b[i] += shift
		}
		sa, sb := SerialOf(a), SerialOf(b)
		k := KolmogorovSmirnovSerial(Side{Sorted: ascending(a), Ordered: a, Block: sa.Block},
			Side{Sorted: ascending(b), Ordered: b, Block: sb.Block}, uint64(r), 200)
		if k.P >= 0.05 {
			t.Errorf("pair %d: p = %.3f (D = %.3f) for a shift of one standard deviation", r, k.P, k.D)
		}
	}
}

// Without blocks the multiplier bootstrap is that of independent samples,
// whose replicates follow the Kolmogorov distribution: its p-value is
// close to the asymptotic one over the range of p (differences up to
// 0.04 for this seed, 200 samples a side, 400 distinct values, so that
// the grid holds them all).
func TestKSMultiplierIndependentMatchesAsymptotic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1203, 1))
	for _, shift := range []float64{0, 0.1, 0.15, 0.2, 0.3, 0.4} {
		x, y := make([]int64, 200), make([]int64, 200)
		for i := range x {
			x[i] = int64(1e6 * rng.NormFloat64())
			y[i] = int64(1e6 * (rng.NormFloat64() + shift))
		}
		a, b := Side{Sorted: ascending(x)}, Side{Sorted: ascending(y)}
		iid, mult := KolmogorovSmirnov(x, y), ksMultiplier(a, b, 1, 2000)
		if mult.D != iid.D || mult.Grid != 400 {
			t.Errorf("shift %.2f: D %v, grid %d; want D %v, 400 points", shift, mult.D, mult.Grid, iid.D)
		}
		if math.Abs(mult.P-iid.P) > 0.05 {
			t.Errorf("shift %.2f: multiplier p %.4f, asymptotic %.4f: want within 0.05", shift, mult.P, iid.P)
		}
	}
}

func TestKolmogorovSmirnovSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(1204, 1))
	a, b := ar1(rng, 300, 0.8), ar1(rng, 300, 0.8)
	sa, sb := Side{Sorted: ascending(a)}, Side{Sorted: ascending(b)}
	// Neither side with blocks: the i.i.d. test, named so.
	if got, want := KolmogorovSmirnovSerial(sa, sb, 1, 0), KolmogorovSmirnov(a, b); got != want || got.Test != KSTest || got.Dependent() {
		t.Errorf("without blocks: %+v, want %+v", got, want)
	}
	// One side with blocks: the bootstrap, the same for a seed, another
	// for another seed.
	sa = Side{Sorted: ascending(a), Ordered: a, Block: 12}
	k1, k2, k3 := KolmogorovSmirnovSerial(sa, sb, 1, 0), KolmogorovSmirnovSerial(sa, sb, 1, 0), KolmogorovSmirnovSerial(sa, sb, 2, 0)
	if k1 != k2 {
		t.Errorf("one seed, two p-values: %+v, %+v", k1, k2)
	}
	if k1.P == k3.P {
		t.Errorf("seeds 1 and 2 gave the same p %v: the seed is not used", k1.P)
	}
	if k1.Test != SerialKSTest || k1.Replicates != KSReplicates || k1.D != KolmogorovSmirnov(a, b).D {
		t.Errorf("with blocks: %+v", k1)
	}
	// The same samples: no difference at all.
	if k := KolmogorovSmirnovSerial(sa, sa, 1, 100); k.D != 0 || k.P != 1 {
		t.Errorf("a run against itself: %+v, want D 0, p 1", k)
	}
	// A constant run against itself: no variation to resample.
	c := []int64{5, 5, 5, 5, 5, 5, 5, 5}
	if k := KolmogorovSmirnovSerial(Side{Sorted: c, Ordered: c, Block: 2}, Side{Sorted: c}, 1, 100); k.P != 1 {
		t.Errorf("constant runs: %+v, want p 1", k)
	}
	// An empty side: nothing to test, as KolmogorovSmirnov says.
	if k := KolmogorovSmirnovSerial(sa, Side{}, 1, 100); !math.IsNaN(k.P) {
		t.Errorf("an empty side: %+v, want p NaN", k)
	}
}

func TestKSReplicates(t *testing.T) {
	for _, c := range []struct{ want, samples, got int }{
		{0, 1000, KSReplicates},
		{500, 1000, 500},
		{2000, 100_000, 1000},    // 10^8 normals
		{2000, 2_000_000, 200},   // at least MinBlockReplicates
		{100, 2_000_000, 100},    // never more than asked
		{2000, 200_000_000, 200}, // however many samples
	} {
		if got := ksReplicates(c.want, c.samples); got != c.got {
			t.Errorf("ksReplicates(%d, %d) = %d, want %d", c.want, c.samples, got, c.got)
		}
	}
}

func TestKSGrid(t *testing.T) {
	// Few distinct values: all of them.
	if got, want := ksGrid([]int64{1, 2, 2, 5}, []int64{2, 3, 9}, 8), []int64{1, 2, 3, 5, 9}; !slices.Equal(got, want) {
		t.Errorf("few values: %v, want %v", got, want)
	}
	// 20 pooled values, 4 points: the 5th, 10th, 15th and 20th smallest.
	var x, y []int64
	for i := range int64(10) {
		x, y = append(x, 2*i), append(y, 2*i+1)
	}
	if got, want := ksGrid(x, y, 4), []int64{4, 9, 14, 19}; !slices.Equal(got, want) {
		t.Errorf("quantiles: %v, want %v", got, want)
	}
	// Many ties: a quantile that repeats the one before is one point,
	// and the largest value is always one.
	x = []int64{1, 1, 1, 1, 1, 1, 1, 2, 3, 4}
	if got, want := ksGrid(x, []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 100}, 4), []int64{1, 100}; !slices.Equal(got, want) {
		t.Errorf("ties: %v, want %v", got, want)
	}
	// A large sample keeps to KSGrid points, the observed D on them no
	// more than the full D.
	rng := rand.New(rand.NewPCG(1205, 1))
	a, b := ar1(rng, 5000, 0.5), ar1(rng, 5000, 0.5)
	k := KolmogorovSmirnovSerial(Side{Sorted: ascending(a), Ordered: a, Block: 10}, Side{Sorted: ascending(b)}, 1, 200)
	if k.Grid != KSGrid || k.Replicates != 200 {
		t.Errorf("10000 samples: grid %d, %d replicates; want %d, 200", k.Grid, k.Replicates, KSGrid)
	}
}
