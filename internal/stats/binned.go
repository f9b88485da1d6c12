package stats

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Binned is a sample given as its distinct values, ascending, and how
// many times each occurs: a histogram (a cyclictest histogram's buckets,
// each at its middle) compared without expanding it into one value per
// sample, which for an hour-long run is hundreds of millions of values.
// Every statistic of it is the one of the expanded sample (Expand), in
// O(bins) or O(bins x replicates). Its count is an int where a
// statistic takes one (MWU.N1, Comparison.NA): a caller on a 32-bit
// build keeps N within math.MaxInt.
type Binned struct {
	values, counts []int64
	// cum[i] is the count of values[0..i].
	cum []int64
}

// NewBinned makes the sample that holds counts[i] times values[i].
// Values must increase; bins with a count of 0 are left out; a negative
// count, or counts whose sum is beyond an int64, is an error.
func NewBinned(values, counts []int64) (Binned, error) {
	if len(values) != len(counts) {
		return Binned{}, fmt.Errorf("%d values and %d counts", len(values), len(counts))
	}
	var b Binned
	var n int64
	for i, v := range values {
		c := counts[i]
		switch {
		case c < 0:
			return Binned{}, fmt.Errorf("count %d of value %d is negative", c, v)
		case i > 0 && v <= values[i-1]:
			return Binned{}, fmt.Errorf("values do not increase at %d", v)
		case c > math.MaxInt64-n:
			return Binned{}, errors.New("the counts sum beyond a 64-bit count")
		case c == 0:
			continue
		}
		n += c
		b.values = append(b.values, v)
		b.counts = append(b.counts, c)
		b.cum = append(b.cum, n)
	}
	return b, nil
}

// N is how many values the sample holds.
func (b Binned) N() int64 {
	if len(b.cum) == 0 {
		return 0
	}
	return b.cum[len(b.cum)-1]
}

// Bins returns the distinct values and their counts (not to be modified).
func (b Binned) Bins() (values, counts []int64) { return b.values, b.counts }

// Expand returns the sample's values, ascending, one per count.
func (b Binned) Expand() []int64 {
	out := make([]int64, 0, b.N())
	for i, v := range b.values {
		for range b.counts[i] {
			out = append(out, v)
		}
	}
	return out
}

// At returns the value of 0-based rank i of the sorted sample, as
// Expand()[i] would.
func (b Binned) At(i int64) int64 {
	k, _ := slices.BinarySearch(b.cum, i+1)
	return b.values[k]
}

// Quantile is QuantileSorted of the expanded sample: nearest rank.
func (b Binned) Quantile(p float64) int64 {
	n := b.N()
	if n == 0 {
		return 0
	}
	return b.At(int64(nearestRank(int(n), p)) - 1)
}

// MeanStdev is MeanStdev of the expanded sample, by the weighted form
// of Welford's method (West 1979), which adds a bin at a time.
func (b Binned) MeanStdev() (mean, stdev float64) {
	return weightedMoments(b.values, b.counts)
}

func weightedMoments(values, counts []int64) (mean, stdev float64) {
	var m, m2, w float64
	for i, v := range values {
		c := float64(counts[i])
		if c == 0 {
			continue
		}
		x := float64(v)
		w += c
		d := x - m
		m += d * c / w
		m2 += c * d * (x - m)
	}
	if w < 2 {
		return m, 0
	}
	return m, math.Sqrt(m2 / (w - 1))
}

// SummarizeBinned is SummarizeSorted of the expanded sample.
func SummarizeBinned(b Binned) Summary {
	n := b.N()
	if n == 0 {
		return Summary{}
	}
	mean, sd := b.MeanStdev()
	return Summary{Count: n, Min: b.values[0], P50: b.Quantile(50), P90: b.Quantile(90), P99: b.Quantile(99),
		P999: b.Quantile(99.9), Max: b.values[len(b.values)-1], Mean: mean, Stdev: sd}
}

// OfBinned is Of of the expanded sample.
func (s Statistic) OfBinned(b Binned) float64 {
	if b.N() == 0 {
		return math.NaN()
	}
	switch s.kind {
	case statMean:
		m, _ := b.MeanStdev()
		return m
	case statStdev:
		_, sd := b.MeanStdev()
		return sd
	}
	return float64(b.Quantile(s.p))
}

// DiffCIBinned is DiffCI of the expanded samples, drawn from the same
// random streams: the same seed gives the same interval (see
// replicatesBinned for the one case that differs in its draws).
func (b Bootstrap) DiffCIBinned(x, y Binned, st Statistic) CI {
	return b.norm().diffCIOneByOne(Side{Bins: &x}, Side{Bins: &y}, st)
}

// replicatesBinned is replicates of the expanded sample. A percentile
// is the same Beta draw of a rank, looked up in the bins; the mean
// beyond Budget the same normal draws. Below Budget the mean and stdev
// draw the same indices (rng.IntN(n)), looked up in the bins, so the
// replicates are equal to the last bit. Beyond it (the stdev of more
// than Budget/Replicates values) a resample of n values with replacement
// is drawn as what it is, a multinomial draw of n over the bins
// (multinomial), in O(bins) a replicate, with as many replicates as
// replicates keeps: the same distribution from other random numbers.
// multi forces the multinomial draw (for tests).
func (b Bootstrap) replicatesBinned(x Binned, st Statistic, rng *rand.Rand, multi bool) ([]float64, string) {
	n := int(x.N())
	reps := make([]float64, b.Replicates)
	if st.kind == statQuantile {
		k := nearestRank(n, st.p)
		beta := distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1), Src: rng}
		for i := range reps {
			j := int(float64(n) * beta.Rand())
			reps[i] = float64(x.At(int64(min(max(j, 0), n-1))))
		}
		return reps, fmt.Sprintf("percentile bootstrap, %d replicates (exact order-statistic resampling)", len(reps))
	}
	if st.kind == statMean && float64(n)*float64(b.Replicates) > float64(b.Budget) && !multi {
		m, sd := x.MeanStdev()
		nd := distuv.Normal{Mu: m, Sigma: sd / math.Sqrt(float64(n)), Src: rng}
		for i := range reps {
			reps[i] = nd.Rand()
		}
		return reps, fmt.Sprintf("normal approximation (n=%d), %d draws", n, len(reps))
	}
	big := float64(n)*float64(len(reps)) > float64(b.Budget)
	if big {
		reps = reps[:max(200, b.Budget/n)]
	}
	if big || multi {
		drawn := make([]int64, len(x.counts))
		for i := range reps {
			x.multinomial(rng, drawn)
			m, sd := weightedMoments(x.values, drawn)
			reps[i] = m
			if st.kind == statStdev {
				reps[i] = sd
			}
		}
		return reps, fmt.Sprintf("percentile bootstrap, %d replicates", len(reps))
	}
	resampleMoments(reps, n, st, rng, func(i int) float64 { return float64(x.At(int64(i))) })
	return reps, fmt.Sprintf("percentile bootstrap, %d replicates", len(reps))
}

// multinomial draws N values with replacement from b into drawn (how
// many of each bin), by sequential conditional binomials: the count of
// bin i is Binomial(what is left to draw, its share of the bins not yet
// drawn), the last bin takes the rest.
func (b Binned) multinomial(rng *rand.Rand, drawn []int64) {
	left, rest := b.N(), b.N()
	for i, c := range b.counts {
		switch {
		case left == 0:
			drawn[i] = 0
		case c >= rest:
			drawn[i] = left
		default:
			k := int64(distuv.Binomial{N: float64(left), P: float64(c) / float64(rest), Src: rng}.Rand())
			drawn[i] = min(k, left)
		}
		left -= drawn[i]
		rest -= c
	}
}

// MannWhitneyBinned is MannWhitney of the expanded samples. Samples of
// at most 50 values a side, for which MannWhitney may take its exact
// distribution, are expanded; larger ones take the normal approximation
// with tie and continuity corrections from the bins, as
// go-moremath's MannWhitneyUTest computes it from the samples.
func MannWhitneyBinned(x, y Binned) (MWU, error) {
	n1, n2 := x.N(), y.N()
	if n1 == 0 || n2 == 0 {
		return MWU{}, moremath.ErrSampleSize
	}
	if lim := int64(moremath.MannWhitneyExactLimit); n1 <= lim && n2 <= lim {
		return MannWhitney(x.Expand(), y.Expand())
	}
	// U counts the pairs with x above y, a tie one half: each value of
	// x counts the y below it and half the y equal to it (the rank sum
	// less n1(n1+1)/2 as moremath takes it, without the cancellation
	// that loses units once the rank sum passes 2^53). And the sum of
	// t^3 - t over the ties.
	var u1, ties float64
	var yBelow int64
	i, j := 0, 0
	for i < len(x.values) || j < len(y.values) {
		var cx, cy int64
		switch {
		case j == len(y.values) || (i < len(x.values) && x.values[i] < y.values[j]):
			cx = x.counts[i]
			i++
		case i == len(x.values) || y.values[j] < x.values[i]:
			cy = y.counts[j]
			j++
		default:
			cx, cy = x.counts[i], y.counts[j]
			i, j = i+1, j+1
		}
		if cx != 0 {
			u1 += float64(cx) * (float64(yBelow) + float64(cy)/2)
		}
		ft := float64(cx + cy)
		ties += ft*ft*ft - ft
		yBelow += cy
	}
	// The products in float64, as counts of billions a side would
	// overflow an int64: exact (as moremath's int products) below 2^53.
	f1, f2 := float64(n1), float64(n2)
	nn := f1 + f2
	sigma := math.Sqrt(f1 * f2 * ((nn + 1) - ties/(nn*(nn-1))) / 12)
	if sigma == 0 { // every value equal
		return MWU{N1: int(n1), N2: int(n2), U: f1 * f2 / 2, P: 1, Superiority: 0.5}, nil
	}
	numer := u1 - f1*f2/2
	switch {
	case numer > 0:
		numer -= 0.5
	case numer < 0:
		numer += 0.5
	}
	z := numer / sigma
	// The lower tail at -|z|: 1 - CDF(z) (as go-moremath takes it)
	// rounds to 0 below about 1e-16.
	p := 2 * moremath.StdNormal.CDF(-math.Abs(z))
	return MWU{N1: int(n1), N2: int(n2), U: u1, P: math.Min(p, 1), Superiority: u1 / (f1 * f2)}, nil
}

// KolmogorovSmirnovBinned is KolmogorovSmirnov of the expanded samples:
// D from the two weighted empirical CDFs (gonum's stat.KolmogorovSmirnov
// with the counts as weights), the same asymptotic p-value.
func KolmogorovSmirnovBinned(x, y Binned) KS {
	if x.N() == 0 || y.N() == 0 {
		return KS{D: math.NaN(), P: math.NaN(), Test: KSTest}
	}
	xv, xw := toFloat(x.values), toFloat(x.counts)
	yv, yw := toFloat(y.values), toFloat(y.counts)
	d := stat.KolmogorovSmirnov(xv, xw, yv, yw)
	n, m := float64(x.N()), float64(y.N())
	return KS{D: d, P: KolmogorovSurvival(math.Sqrt(n*m/(n+m)) * d), Test: KSTest}
}

// absDevBinned is absDev of the expanded sample, binned.
func absDevBinned(b Binned) Binned {
	m := b.Quantile(50)
	type bin struct{ v, c int64 }
	bins := make([]bin, len(b.values))
	for i, v := range b.values {
		bins[i] = bin{max(v-m, m-v), b.counts[i]}
	}
	slices.SortFunc(bins, func(p, q bin) int { return cmp.Compare(p.v, q.v) })
	var vs, cs []int64
	for _, e := range bins {
		if k := len(vs) - 1; k >= 0 && vs[k] == e.v {
			cs[k] += e.c
			continue
		}
		vs, cs = append(vs, e.v), append(cs, e.c)
	}
	out, _ := NewBinned(vs, cs) // sums as b's did
	return out
}

// CompareBinned is Compare of the expanded samples of A and B, which
// have no order (o.OrderedA and o.OrderedB are not used): the same
// interval, rank test and verdict.
func CompareBinned(a, b Binned, o CompareOptions) Comparison {
	o = o.norm()
	level := o.Level()
	c := Comparison{NA: int(a.N()), NB: int(b.N()), Level: level, MinSamples: MinSamples(o.By, level), rule: o.Rule, alpha: o.Alpha,
		Test: "Mann-Whitney U"}
	if a.N() > 0 && b.N() > 0 {
		c.Effect = o.By.OfBinned(b) - o.By.OfBinned(a)
	}
	if !o.TestOnly && min(c.NA, c.NB) >= c.MinSamples {
		reps := o.Replicates
		if reps <= 0 {
			reps = ReplicatesFor(level, 2000)
		}
		ci := Bootstrap{Seed: o.Seed, Replicates: reps, Level: level}.DiffCIBinned(a, b, o.By)
		c.Interval = &ci
	}
	ta, tb := a, b
	if o.Rule == IntervalAndRanks && o.By == Stdev {
		ta, tb = absDevBinned(a), absDevBinned(b)
		c.Test = SpreadTest
	}
	m, err := MannWhitneyBinned(ta, tb)
	if err != nil { // an empty side: nothing to test
		m = MWU{P: 1}
	}
	c.MWU, c.PAdjusted = m, m.P
	if o.Rule == IntervalAndRounds || o.Rounds != nil {
		t := SignedRank(o.Rounds)
		c.Rounds, c.RoundsPAdjusted, c.roundsFloor = &t, t.P, t.MinP
	}
	c.decide()
	return c
}
