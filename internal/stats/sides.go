package stats

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// CompareSides is Compare of two runs, either of which may be given as
// its bins (Side.Bins: a histogram, which has no order) and the other as
// its samples (Side.Sorted ascending, Side.Ordered the same in
// measurement order or nil; Side.Block is not read, the dependence is
// measured here): a histogram against a run of raw samples, compared
// without expanding the histogram. It is Compare of the expanded bins,
// the samples' side keeping its serial-dependence analysis: the same
// effect, interval (the bins resampled as DiffCIBinned resamples them,
// the samples as Compare does, each side from its own stream) and rank
// test (MannWhitneyBinned for independent sides, the serial form with a
// side of bins taken as independent); only the Kolmogorov-Smirnov
// p-value of a dependent run, drawn by KolmogorovSmirnovSerial, takes
// other random numbers for the bins. Two sides of samples are Compare,
// two of bins CompareBinned.
func CompareSides(a, b Side, o CompareOptions) Comparison {
	switch {
	case a.Bins == nil && b.Bins == nil:
		o.OrderedA, o.OrderedB = a.Ordered, b.Ordered
		return Compare(a.Sorted, b.Sorted, o)
	case a.Bins != nil && b.Bins != nil:
		return CompareBinned(*a.Bins, *b.Bins, o)
	}
	o = o.norm()
	level := o.Level()
	c := Comparison{NA: a.n(), NB: b.n(), Level: level, MinSamples: MinSamples(o.By, level), rule: o.Rule, alpha: o.Alpha,
		Test: "Mann-Whitney U"}
	if c.NA > 0 && c.NB > 0 {
		c.Effect = b.of(o.By) - a.of(o.By)
	}
	if a.Bins != nil {
		a.Ordered = nil
	}
	if b.Bins != nil {
		b.Ordered = nil
	}
	c.SerialA, c.SerialB = serialOf(a.Ordered, a.n()), serialOf(b.Ordered, b.n())
	var wg sync.WaitGroup
	var interval *CI
	if !o.TestOnly && min(c.NA, c.NB) >= c.MinSamples {
		reps := o.Replicates
		if reps <= 0 {
			reps = ReplicatesFor(level, 2000)
		}
		sa, sb := c.ResampledA(a), c.ResampledB(b)
		wg.Go(func() {
			ci := Bootstrap{Seed: o.Seed, Replicates: reps, Level: level}.DiffCISerial(sa, sb, o.By)
			interval = &ci
		})
	}
	dependent := c.Dependent()
	ra, rb := a.ranked(dependent), b.ranked(dependent)
	if o.Rule == IntervalAndRanks && o.By == Stdev {
		ra, rb = ra.absDev(), rb.absDev()
		c.Test = SpreadTest
		if dependent {
			c.Test = SerialSpreadTest
		}
	} else if dependent {
		c.Test = SerialMannWhitneyTest
	}
	var m MWU
	if dependent {
		m = mannWhitneySerialRanked(ra, rb)
	} else {
		var err error
		if m, err = MannWhitneyBinned(ra.binned(), rb.binned()); err != nil { // an empty side: nothing to test
			m = MWU{P: 1}
		}
	}
	wg.Wait()
	c.finish(m, interval, o)
	return c
}

// ResampledA is how the bootstrap resamples A, given as a Side of
// samples (Sorted, and Ordered in measurement order or nil) or of bins:
// SideA of its samples, or its bins as they are.
func (c Comparison) ResampledA(s Side) Side {
	if s.Bins != nil {
		return Side{Bins: s.Bins}
	}
	return c.SideA(s.Sorted, s.Ordered)
}

// ResampledB is ResampledA for B.
func (c Comparison) ResampledB(s Side) Side {
	if s.Bins != nil {
		return Side{Bins: s.Bins}
	}
	return c.SideB(s.Sorted, s.Ordered)
}

// ranked is one side of a rank test: samples (in measurement order when
// ordered) or bins.
type ranked struct {
	values  []int64
	ordered bool
	bins    *Binned
	// sorted are values ascending (for the median of absDev).
	sorted []int64
}

// ranked is the side as Compare ranks it: in measurement order when the
// comparison is dependent and the side has one.
func (s Side) ranked(dependent bool) ranked {
	if s.Bins != nil {
		return ranked{bins: s.Bins}
	}
	if dependent && s.Ordered != nil {
		return ranked{values: s.Ordered, ordered: true, sorted: s.Sorted}
	}
	return ranked{values: s.Sorted, sorted: s.Sorted}
}

// absDev is the side's deviations from its median, as Compare takes
// them (absDevOrdered, absDevBinned).
func (r ranked) absDev() ranked {
	if r.bins != nil {
		b := absDevBinned(*r.bins)
		return ranked{bins: &b}
	}
	if r.ordered {
		return ranked{values: absDevOrdered(r.sorted, r.values), ordered: true}
	}
	return ranked{values: absDev(r.sorted)}
}

func (r ranked) n() int64 {
	if r.bins != nil {
		return r.bins.N()
	}
	return int64(len(r.values))
}

func (r ranked) binned() Binned {
	if r.bins != nil {
		return *r.bins
	}
	return binSorted(ascending(r.values))
}

// countAt is how many of b's values are below v, and how many equal it.
func (b Binned) countAt(v int64) (below, equal int64) {
	k, found := slices.BinarySearch(b.values, v)
	if k > 0 {
		below = b.cum[k-1]
	}
	if found {
		equal = b.counts[k]
	}
	return below, equal
}

// projections is projections of the side against other: twice the
// Mann-Whitney U of the side against other (summed as a float64, exact
// below 2^53), and the variance of the side's Hájek projections
// (projectionVariance; for bins, each bin's projection weighted by its
// count, the plain variance).
func (r ranked) projections(other Binned) (halves, variance float64) {
	no := float64(other.N())
	if r.bins != nil {
		vs, cs := r.bins.Bins()
		var w, mean, m2 float64
		for i, v := range vs {
			below, equal := other.countAt(v)
			halves += float64(cs[i]) * float64(2*below+equal)
			// the weighted form of Welford's method, as weightedMoments
			p, c := (float64(below)+float64(equal)/2)/no, float64(cs[i])
			w += c
			d := p - mean
			mean += d * c / w
			m2 += c * d * (p - mean)
		}
		if w < 2 {
			return halves, 0
		}
		return halves, m2 / w
	}
	p := make([]float64, len(r.values))
	for i, v := range r.values {
		below, equal := other.countAt(v)
		halves += float64(2*below + equal)
		p[i] = (float64(below) + float64(equal)/2) / no
	}
	return halves, projectionVariance(p, r.ordered)
}

// mannWhitneySerialRanked is MannWhitneySerial of two sides either of
// which may be bins (taken as independent: they have no order).
func mannWhitneySerialRanked(x, y ranked) MWU {
	n1, n2 := x.n(), y.n()
	if n1 == 0 || n2 == 0 {
		return MWU{N1: int(n1), N2: int(n2), P: 1, Superiority: 0.5}
	}
	halves, vx := x.projections(y.binned())
	_, vy := y.projections(x.binned())
	f1, f2 := float64(n1), float64(n2)
	u := halves / 2
	theta := u / (f1 * f2)
	v := vx/f1 + vy/f2
	r := MWU{N1: int(n1), N2: int(n2), U: u, Superiority: theta, P: 1}
	if v == 0 && theta != 0.5 {
		// complete separation: MannWhitneySerial says why
		v = (f1 + f2 + 1) / (12 * f1 * f2)
	}
	if v > 0 {
		z := math.Abs(theta-0.5) / math.Sqrt(v)
		r.P = math.Min(1, 2*distuv.UnitNormal.Survival(z))
	}
	return r
}
