package stats

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Two runs of the same AR(1) process differ only by chance, so a test at
// 5% should reject about 5% of the time and a 95% interval of the
// difference of medians cover 0 about 95% of the time. With dependence
// the i.i.d. methods do neither; the dependence-aware ones should.
//
// The tolerances come from the binomial spread of the repetitions:
// 200 tests at a true 5% give a rejection rate with standard deviation
// 1.5%, so 1%..11% spans 4 standard deviations above (2.6 below, where
// the rate cannot go much lower); 80 intervals at a true 95% give a
// coverage with standard deviation 2.4%, and 85% is 4 below. The block
// bootstrap is known to fall a little short of its level at these sizes
// (its variance of a block resample misses the dependence across block
// joins; Lahiri 2003, "Resampling Methods for Dependent Data", ch. 3),
// which the bound allows for. The i.i.d. test's rejection rate must
// exceed 15% (30 of 200, 6 standard deviations above a 5% test's) and
// the i.i.d. interval's coverage fall below 85%, or the simulation would
// not show the problem at all. Sizes are kept small enough for a few
// seconds under -race; the rates are logged (go test -v).
func TestSerialDependenceSimulation(t *testing.T) {
	const n, tests, intervals = 800, 200, 80
	// Pure computation, each process seeded on its own: the two run side
	// by side.
	for _, phi := range []float64{0.5, 0.8} {
		t.Run(fmt.Sprintf("phi %.1f", phi), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(2026, uint64(phi*10)))
			iidRej, serRej, iidCov, blkCov := 0, 0, 0, 0
			for r := range tests {
				a, b := ar1(rng, n, phi), ar1(rng, n, phi)
				m, _ := MannWhitney(a, b)
				if m.P < 0.05 {
					iidRej++
				}
				c := Compare(a, b, CompareOptions{By: Quantile(50), Seed: uint64(r), Replicates: 200, OrderedA: a, OrderedB: b,
					TestOnly: r >= intervals})
				if !c.Dependent() {
					t.Fatalf("phi %.1f, run %d: not judged dependent", phi, r)
				}
				if c.MWU.P < 0.05 {
					serRej++
				}
				if r < intervals {
					if c.Interval.Contains(0) {
						blkCov++
					}
					iid := Bootstrap{Seed: uint64(r), Replicates: 200}.DiffCI(ascending(a), ascending(b), Quantile(50))
					if iid.Contains(0) {
						iidCov++
					}
				}
			}
			iidRate, serRate := float64(iidRej)/tests, float64(serRej)/tests
			t.Logf("phi %.1f: rejection at 5%%: i.i.d. Mann-Whitney %.3f, serial %.3f; coverage of 95%% intervals: i.i.d. bootstrap %.3f, moving-block %.3f",
				phi, iidRate, serRate, float64(iidCov)/intervals, float64(blkCov)/intervals)
			if iidRate < 0.15 {
				t.Errorf("phi %.1f: the i.i.d. test rejected %.3f, expected far above 5%%", phi, iidRate)
			}
			if serRate < 0.01 || serRate > 0.11 {
				t.Errorf("phi %.1f: the serial test rejected %.3f, want near 5%% (0.01..0.11)", phi, serRate)
			}
			if cov := float64(blkCov) / intervals; cov < 0.85 {
				t.Errorf("phi %.1f: the block bootstrap covered 0 in %.3f, want near 0.95 (at least 0.85)", phi, cov)
			}
			if float64(iidCov)/intervals >= 0.85 {
				t.Errorf("phi %.1f: the i.i.d. bootstrap covered 0 in %.3f: the simulation does not show the problem", phi, float64(iidCov)/intervals)
			}
		})
	}
}

// One run's interval (CISerial, as sweep gives each treatment): for an
// AR(1) process around 1 ms the true median is 1 ms, and a 95% interval
// of the median of 800 samples should cover it about 95% of the time.
// The i.i.d. bootstrap covers it far less often at phi 0.8 (about half
// the time); the block bootstrap near its level (0.92 in 300 trials of
// another seed, short of 0.95 as above). 200 intervals at a true 0.92
// give a coverage with standard deviation 1.9%: 0.85 is 3.7 below.
func TestCISerialCoverage(t *testing.T) {
	const n, intervals = 800, 200
	rng := rand.New(rand.NewPCG(2026, 1130))
	iidCov, blkCov := 0, 0
	for r := range intervals {
		x := ar1(rng, n, 0.8)
		ser := SerialOf(x)
		if !ser.Dependent {
			t.Fatalf("run %d: not judged dependent", r)
		}
		b := Bootstrap{Seed: uint64(r), Replicates: 200}
		blk := b.CISerial(Side{Sorted: ascending(x), Ordered: x, Block: ser.Block}, Quantile(50))
		iid := b.CI(ascending(x), Quantile(50))
		if blk.Contains(1e6) {
			blkCov++
		}
		if iid.Contains(1e6) {
			iidCov++
		}
		if r == 0 && (blk.Replicates != 200 || !strings.HasPrefix(blk.Method, "moving-block bootstrap")) {
			t.Errorf("block interval: %d replicates, method %q", blk.Replicates, blk.Method)
		}
	}
	t.Logf("coverage of the true median by 95%% intervals: i.i.d. %.3f, moving-block %.3f", float64(iidCov)/intervals, float64(blkCov)/intervals)
	if cov := float64(blkCov) / intervals; cov < 0.85 {
		t.Errorf("the block bootstrap covered the median in %.3f, want near 0.95 (at least 0.85)", cov)
	}
	if float64(iidCov)/intervals >= 0.85 {
		t.Errorf("the i.i.d. bootstrap covered the median in %.3f: the simulation does not show the problem", float64(iidCov)/intervals)
	}
	// Without blocks it is CI itself.
	x := ar1(rng, 100, 0)
	b := Bootstrap{Seed: 7}
	if got, want := b.CISerial(Side{Sorted: ascending(x)}, Mean), b.CI(ascending(x), Mean); got != want {
		t.Errorf("without blocks: %+v, want CI's %+v", got, want)
	}
}

// The rank test of spread (IntervalAndRanks by Stdev) compares absolute
// deviations from each run's median. Those of a dependent run are
// dependent as well (a burst widens several deviations in a row), so
// with the runs in measurement order the test takes the deviations in
// that order and their long-run variance. Over 200 pairs of runs of one
// AR(1) process at phi 0.8 the i.i.d. test of the deviations rejected
// 0.26 of them at 5% for this seed, the serial one 0.05; the bounds
// are those of TestSerialDependenceSimulation.
func TestSpreadTestOfDependentRuns(t *testing.T) {
	t.Parallel()
	const n, tests = 800, 200
	rng := rand.New(rand.NewPCG(2026, 1201))
	iidRej, serRej := 0, 0
	for r := range tests {
		a, b := ar1(rng, n, 0.8), ar1(rng, n, 0.8)
		o := CompareOptions{By: Stdev, Rule: IntervalAndRanks, TestOnly: true}
		iid := Compare(a, b, o)
		o.OrderedA, o.OrderedB = a, b
		ser := Compare(a, b, o)
		if iid.Test != SpreadTest || ser.Test != SerialSpreadTest || !SerialTest(ser.Test) || SerialTest(iid.Test) {
			t.Fatalf("pair %d: tests %q and %q", r, iid.Test, ser.Test)
		}
		if r == 0 {
			// The deviations, computed here, in measurement order.
			dev := func(x []int64) []int64 {
				m := QuantileSorted(ascending(x), 50)
				out := make([]int64, len(x))
				for i, v := range x {
					out[i] = v - m
					if out[i] < 0 {
						out[i] = -out[i]
					}
				}
				return out
			}
			if want := MannWhitneySerial(dev(a), dev(b), true, true); ser.MWU != want {
				t.Errorf("the serial test of spread gave %+v, want MannWhitneySerial of the ordered deviations %+v", ser.MWU, want)
			}
			if want, _ := MannWhitney(dev(a), dev(b)); iid.MWU != want {
				t.Errorf("the i.i.d. test of spread gave %+v, want MannWhitney of the deviations %+v", iid.MWU, want)
			}
		}
		if iid.MWU.P < 0.05 {
			iidRej++
		}
		if ser.MWU.P < 0.05 {
			serRej++
		}
	}
	iid, ser := float64(iidRej)/tests, float64(serRej)/tests
	t.Logf("rejection at 5%%: Mann-Whitney of deviations from the median %.3f, in measurement order with the long-run variance %.3f", iid, ser)
	if iid < 0.15 {
		t.Errorf("the i.i.d. test of spread rejected %.3f, expected far above 5%%: the simulation does not show the problem", iid)
	}
	if ser < 0.01 || ser > 0.11 {
		t.Errorf("the serial test of spread rejected %.3f, want near 5%% (0.01..0.11)", ser)
	}
	// Independent samples in measurement order keep the i.i.d. test.
	a, b := ar1(rng, 400, 0), ar1(rng, 400, 0)
	if c := Compare(a, b, CompareOptions{By: Stdev, Rule: IntervalAndRanks, TestOnly: true, OrderedA: a, OrderedB: b}); c.Dependent() || c.Test != SpreadTest {
		t.Errorf("independent runs: test %q, dependent %v; want the i.i.d. test of spread", c.Test, c.Dependent())
	}
}
