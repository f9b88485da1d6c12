package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Statistic is a one-number summary of a sample that can be bootstrapped:
// the mean, the sample standard deviation, or a nearest-rank percentile
// (the definition of QuantileSorted).
type Statistic struct {
	kind statKind
	p    float64 // percentile 0..100 for quantiles
}

type statKind int

const (
	statMean statKind = iota
	statStdev
	statQuantile
)

// Statistics commonly used to rank or compare latency distributions.
var (
	Mean  = Statistic{kind: statMean}
	Stdev = Statistic{kind: statStdev}
)

// Quantile is the nearest-rank p-th percentile (p in 0..100).
func Quantile(p float64) Statistic { return Statistic{kind: statQuantile, p: p} }

// ParseStatistic accepts mean, stdev, p50, p90, p99, p99.9 (any pN with
// 0 <= N <= 100), min and max.
func ParseStatistic(s string) (Statistic, error) {
	switch strings.ToLower(s) {
	case "mean":
		return Mean, nil
	case "stdev", "sd":
		return Stdev, nil
	case "min":
		return Quantile(0), nil
	case "max":
		return Quantile(100), nil
	case "median":
		return Quantile(50), nil
	}
	if rest, ok := strings.CutPrefix(strings.ToLower(s), "p"); ok {
		if p, err := strconv.ParseFloat(rest, 64); err == nil && p >= 0 && p <= 100 {
			return Quantile(p), nil
		}
	}
	return Statistic{}, fmt.Errorf("unknown statistic %q: accepted mean, stdev, p50, p90, p99, p99.9 (any pN with N in 0..100)", s)
}

// IsQuantile reports whether s is a percentile (min and max included).
func (s Statistic) IsQuantile() bool { return s.kind == statQuantile }

// String is the name ParseStatistic accepts.
func (s Statistic) String() string {
	switch s.kind {
	case statMean:
		return "mean"
	case statStdev:
		return "stdev"
	}
	return "p" + strconv.FormatFloat(s.p, 'f', -1, 64)
}

// Of computes the statistic of ascending samples.
func (s Statistic) Of(sorted []int64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	switch s.kind {
	case statMean:
		m, _ := MeanStdev(sorted)
		return m
	case statStdev:
		_, sd := MeanStdev(sorted)
		return sd
	}
	return float64(QuantileSorted(sorted, s.p))
}

// CI is a two-sided confidence interval around an estimate.
type CI struct {
	Estimate   float64 `json:"estimate"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Level      float64 `json:"level"` // e.g. 0.95
	Method     string  `json:"method"`
	Replicates int     `json:"replicates,omitempty"`
}

// Contains reports whether v lies in [Lo, Hi].
func (c CI) Contains(v float64) bool { return v >= c.Lo && v <= c.Hi }

// HalfWidth is half the interval's width, a standard-error-like scale.
func (c CI) HalfWidth() float64 { return (c.Hi - c.Lo) / 2 }

// Bootstrap computes percentile bootstrap confidence intervals (Efron's
// percentile method): the statistic is recomputed on Replicates resamples
// drawn with replacement, and the interval is the (1-Level)/2 and
// (1+Level)/2 quantiles of those replicates. The same Seed gives the same
// interval on every run and OS.
//
// Percentiles are bootstrapped exactly and cheaply: the k-th smallest of n
// indices drawn uniformly from 0..n-1 is floor(n*U) where U ~ Beta(k,
// n-k+1), so a resampled nearest-rank percentile is sorted[floor(n*U)]: one
// Beta draw per replicate instead of n draws and a sort, with the same
// distribution. The mean and stdev are resampled directly while
// n*Replicates stays within Budget; beyond it the mean uses the normal
// approximation (mean, sd/sqrt(n)), which the central limit theorem makes
// accurate at such sample sizes, and the stdev uses fewer replicates.
type Bootstrap struct {
	Replicates int     // default 2000
	Level      float64 // default 0.95
	Seed       uint64
	Budget     int // max samples drawn per interval for mean/stdev; default 4e7
}

func (b Bootstrap) norm() Bootstrap {
	if b.Replicates <= 0 {
		b.Replicates = 2000
	}
	if b.Level <= 0 || b.Level >= 1 {
		b.Level = 0.95
	}
	if b.Budget <= 0 {
		b.Budget = 40_000_000
	}
	return b
}

// ReplicatesFor returns a replicate count large enough that each tail of
// an interval at level has about 25 replicates (at least def).
func ReplicatesFor(level float64, def int) int {
	n := int(math.Ceil(50 / (1 - level)))
	return max(n, def)
}

// CI returns the interval for st of ascending samples.
func (b Bootstrap) CI(sorted []int64, st Statistic) CI {
	b = b.norm()
	est := st.Of(sorted)
	if len(sorted) == 0 {
		return CI{Estimate: est, Lo: math.NaN(), Hi: math.NaN(), Level: b.Level}
	}
	rng := rand.New(rand.NewPCG(b.Seed, 0x9e3779b97f4a7c15))
	reps, method := b.replicates(sorted, st, rng)
	lo, hi := percentileInterval(reps, b.Level)
	return CI{Estimate: est, Lo: lo, Hi: hi, Level: b.Level, Method: method, Replicates: len(reps)}
}

// DiffCI returns the interval for st(y) - st(x), resampling x and y
// independently (two independent runs).
func (b Bootstrap) DiffCI(x, y []int64, st Statistic) CI {
	b = b.norm()
	est := st.Of(y) - st.Of(x)
	if len(x) == 0 || len(y) == 0 {
		return CI{Estimate: est, Lo: math.NaN(), Hi: math.NaN(), Level: b.Level}
	}
	// Separate streams so each side's replicates do not depend on the other's size.
	rx := rand.New(rand.NewPCG(b.Seed, 1))
	ry := rand.New(rand.NewPCG(b.Seed, 2))
	bx, mx := b.replicates(x, st, rx)
	by, my := b.replicates(y, st, ry)
	return b.diffCI(est, bx, by, mx, my)
}

// diffCI is the percentile interval of the replicates' differences
// by[i]-bx[i], named by the methods that drew them.
func (b Bootstrap) diffCI(est float64, bx, by []float64, mx, my string) CI {
	n := min(len(bx), len(by))
	d := make([]float64, n)
	for i := range d {
		d[i] = by[i] - bx[i]
	}
	method := mx
	if my != mx {
		method = mx + " / " + my
	}
	lo, hi := percentileInterval(d, b.Level)
	return CI{Estimate: est, Lo: lo, Hi: hi, Level: b.Level, Method: method, Replicates: n}
}

func (b Bootstrap) replicates(sorted []int64, st Statistic, rng *rand.Rand) ([]float64, string) {
	n := len(sorted)
	reps := make([]float64, b.Replicates)
	if st.kind == statQuantile {
		k := nearestRank(n, st.p)
		beta := distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1), Src: rng}
		for i := range reps {
			j := int(float64(n) * beta.Rand())
			reps[i] = float64(sorted[min(max(j, 0), n-1)])
		}
		return reps, fmt.Sprintf("percentile bootstrap, %d replicates (exact order-statistic resampling)", len(reps))
	}
	if st.kind == statMean && n*b.Replicates > b.Budget {
		m, sd := MeanStdev(sorted)
		nd := distuv.Normal{Mu: m, Sigma: sd / math.Sqrt(float64(n)), Src: rng}
		for i := range reps {
			reps[i] = nd.Rand()
		}
		return reps, fmt.Sprintf("normal approximation (n=%d), %d draws", n, len(reps))
	}
	if n*len(reps) > b.Budget {
		reps = reps[:max(200, b.Budget/n)]
	}
	resampleMoments(reps, n, st, rng, func(i int) float64 { return float64(sorted[i]) })
	return reps, fmt.Sprintf("percentile bootstrap, %d replicates", len(reps))
}

// resampleMoments fills reps with the mean (or stdev, as st asks) of n
// values drawn with replacement, value i being at(i), each replicate
// drawing its indices from rng in turn: the sample's bootstrap and the
// binned one share it, so they draw alike to the last bit.
func resampleMoments(reps []float64, n int, st Statistic, rng *rand.Rand, at func(int) float64) {
	for i := range reps {
		var m, m2 float64
		for j := 0; j < n; j++ {
			x := at(rng.IntN(n))
			d := x - m
			m += d / float64(j+1)
			m2 += d * (x - m)
		}
		if st.kind == statMean {
			reps[i] = m
		} else if n > 1 {
			reps[i] = math.Sqrt(m2 / float64(n-1))
		}
	}
}

// nearestRank is the 1-based rank QuantileSorted uses for p.
func nearestRank(n int, p float64) int {
	if p <= 0 {
		return 1
	}
	if p >= 100 {
		return n
	}
	return min(max(int(math.Ceil(p/100*float64(n)-1e-9)), 1), n)
}

// percentileInterval returns the (1-level)/2 and (1+level)/2 empirical
// quantiles of reps (sorted in place).
func percentileInterval(reps []float64, level float64) (lo, hi float64) {
	slices.Sort(reps)
	n := len(reps)
	a := (1 - level) / 2
	i := int(math.Floor(a * float64(n)))
	j := int(math.Ceil((1-a)*float64(n))) - 1
	i = min(max(i, 0), n-1)
	j = min(max(j, 0), n-1)
	return reps[i], reps[j]
}
