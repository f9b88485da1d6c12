package stats

import (
	"math"
	"slices"
	"sync"
)

// Verdict is the answer to one question: is a candidate B lower than a
// baseline A, higher, or neither, where lower is better (latencies,
// durations, overshoot). Commands say it in their own words.
type Verdict int

// Verdicts. TooFew is the zero value: no verdict until the evidence is in.
const (
	// TooFew: a piece of evidence the verdict needs is missing (too few
	// samples for an interval of the statistic, too few rounds for the
	// block test, no test possible).
	TooFew Verdict = iota
	// NoDifference: the evidence is there, but it does not all say the
	// same thing at the significance level.
	NoDifference
	Better // every piece of evidence says B is lower
	Worse  // every piece of evidence says B is higher
)

func (v Verdict) String() string {
	switch v {
	case NoDifference:
		return "no difference"
	case Better:
		return "better"
	case Worse:
		return "worse"
	}
	return "too few"
}

// Evidence is what one test says about B against A: whether it could say
// anything, whether it is significant, and which way B lies (-1 lower, +1
// higher, 0 neither).
type Evidence struct {
	Present     bool
	Significant bool
	Direction   int
}

// IntervalEvidence is a confidence interval of By(B) - By(A): significant
// when it excludes 0, absent when there is none (nil: too few samples).
func IntervalEvidence(ci *CI) Evidence {
	switch {
	case ci == nil:
		return Evidence{}
	case ci.Hi < 0:
		return Evidence{Present: true, Significant: true, Direction: -1}
	case ci.Lo > 0:
		return Evidence{Present: true, Significant: true, Direction: 1}
	}
	return Evidence{Present: true}
}

// TestEvidence is a test's adjusted p-value against alpha, with the
// direction the test's own statistic points.
func TestEvidence(pAdjusted, alpha float64, direction int) Evidence {
	return Evidence{Present: true, Significant: pAdjusted < alpha, Direction: direction}
}

// Evidence is the block test's say at alpha with its adjusted p: absent
// when there are no rounds or too few for any adjusted p below alpha
// (minPAdjusted, the smallest it can reach: MinP for a test alone,
// HolmFloor's in a family), and its direction is the majority of the
// rounds' signs.
func (t SignedRankTest) Evidence(pAdjusted, minPAdjusted, alpha float64) Evidence {
	if t.Rounds == 0 || minPAdjusted >= alpha {
		return Evidence{}
	}
	return TestEvidence(pAdjusted, alpha, sign(t.Higher-t.Lower))
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// Decide is the one verdict rule: TooFew when any evidence is absent,
// Better (Worse) when every piece is significant and says B is lower
// (higher), NoDifference otherwise.
func Decide(ev ...Evidence) Verdict {
	for _, e := range ev {
		if !e.Present {
			return TooFew
		}
	}
	for _, dir := range []int{-1, 1} {
		all := len(ev) > 0
		for _, e := range ev {
			all = all && e.Significant && e.Direction == dir
		}
		if all {
			if dir < 0 {
				return Better
			}
			return Worse
		}
	}
	return NoDifference
}

// Rule names the evidence a Comparison's verdict asks for. Every rule
// asks for the interval of the statistic; they differ in which test must
// agree with it.
type Rule int

// Rules.
const (
	// IntervalAlone: the interval decides; the Mann-Whitney test is run
	// and reported beside it (latlab compare, where the statistic may be
	// a high percentile that a test of location does not speak for).
	IntervalAlone Rule = iota
	// IntervalAndRanks: the Holm-adjusted Mann-Whitney test must agree in
	// direction (latlab sweep, where the best of many treatments looks good
	// by chance and one outlier moves a mean a long way but a rank only by
	// one). For Stdev the test compares absolute deviations from each
	// sample's median, a rank test of spread (Brown-Forsythe's idea),
	// in measurement order by MannWhitneySerial when a side is dependent.
	IntervalAndRanks
	// IntervalAndRounds: the Holm-adjusted signed-rank test over the
	// rounds of a blocked experiment (CompareOptions.Rounds) must agree
	// (latlab try, where pooled samples cannot tell an effect from drift
	// between blocks). The Mann-Whitney test is reported beside it.
	IntervalAndRounds
)

// CompareOptions configure a comparison of B against a baseline A.
type CompareOptions struct {
	By    Statistic // the statistic whose difference is the effect
	Alpha float64   // family-wise significance level; default 0.05
	// Family is how many comparisons are made against the same baseline
	// (default 1): the interval's level is 1 - Alpha/Family (Bonferroni),
	// so that all the family's intervals hold together at 1 - Alpha.
	Family     int
	Seed       uint64 // of the bootstrap
	Replicates int    // bootstrap replicates; 0: ReplicatesFor(level, 2000)
	Rule       Rule
	// Rounds are the per-round differences By(B's block) - By(A's block)
	// of a blocked experiment, for IntervalAndRounds.
	Rounds []float64
	// TestOnly skips the interval, for a member of a family whose p-value
	// counts in the adjustment but whose verdict nobody reads: its Verdict
	// is TooFew.
	TestOnly bool
	// OrderedA and OrderedB are A's and B's samples in the order they
	// were measured, nil when the order is unknown (values rebuilt from a
	// histogram) or when the caller's design already breaks the serial
	// dependence (try's randomized blocks, which leave them nil; sweep
	// gives them, its passes in the order they ran). When either is
	// measurably dependent (SerialOf), the interval is a moving-block
	// bootstrap (Bootstrap.DiffCISerial) and the rank test
	// MannWhitneySerial (of the deviations from the median in measurement
	// order, for Stdev under IntervalAndRanks); otherwise nothing changes.
	OrderedA, OrderedB []int64
}

func (o CompareOptions) norm() CompareOptions {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = 0.05
	}
	if o.Family < 1 {
		o.Family = 1
	}
	return o
}

// Level is the confidence level of each interval of the family.
func (o CompareOptions) Level() float64 {
	o = o.norm()
	return 1 - o.Alpha/float64(o.Family)
}

// Comparison is the answer of Compare.
type Comparison struct {
	NA, NB int
	Level  float64 // of Interval
	// MinSamples is the fewest samples per side that judge By at Level
	// (MinSamples); with fewer on either side there is no Interval.
	MinSamples int
	// Effect is By(B) - By(A).
	Effect float64
	// Interval is the percentile-bootstrap interval of Effect, B and A
	// resampled independently; nil with too few samples.
	Interval *CI
	// Test names the rank test of the pooled samples, MWU its result and
	// PAdjusted its p Holm-adjusted over the family (AdjustFamily).
	Test      string
	MWU       MWU
	PAdjusted float64
	// SerialA and SerialB describe the dependence of A's and B's samples
	// in measurement order; nil for a side without an order or with
	// fewer than MinPerSide samples.
	SerialA, SerialB *Serial
	// Rounds is the block test of CompareOptions.Rounds (nil without
	// them), RoundsPAdjusted its p Holm-adjusted over the family.
	Rounds          *SignedRankTest
	RoundsPAdjusted float64
	Verdict         Verdict
	rule            Rule
	alpha           float64
	// roundsFloor is the smallest RoundsPAdjusted the family can give.
	roundsFloor float64
}

// Compare compares B with the baseline A (samples in any order) and
// decides by o.Rule at o.Alpha, as if it were the only comparison: for a
// family against one baseline, set o.Family and call AdjustFamily.
func Compare(a, b []int64, o CompareOptions) Comparison {
	o = o.norm()
	a, b = ascending(a), ascending(b)
	level := o.Level()
	c := Comparison{NA: len(a), NB: len(b), Level: level, MinSamples: MinSamples(o.By, level), rule: o.Rule, alpha: o.Alpha,
		Test: "Mann-Whitney U"}
	if len(a) > 0 && len(b) > 0 {
		c.Effect = o.By.Of(b) - o.By.Of(a)
	}
	// The two sides' dependence, then the interval and the rank test,
	// need nothing of each other: side by side (on two CPUs where there
	// are two) they take the time of the longer, which for a million
	// dependent samples a side is seconds.
	var wg sync.WaitGroup
	var interval *CI
	wg.Go(func() { c.SerialA = serialOf(o.OrderedA, len(a)) })
	c.SerialB = serialOf(o.OrderedB, len(b))
	wg.Wait()
	if !o.TestOnly && min(len(a), len(b)) >= c.MinSamples {
		reps := o.Replicates
		if reps <= 0 {
			reps = ReplicatesFor(level, 2000)
		}
		sa, sb := c.SideA(a, o.OrderedA), c.SideB(b, o.OrderedB)
		wg.Go(func() {
			ci := Bootstrap{Seed: o.Seed, Replicates: reps, Level: level}.DiffCISerial(sa, sb, o.By)
			interval = &ci
		})
	}
	ta, tb := a, b
	var m MWU
	spread := o.Rule == IntervalAndRanks && o.By == Stdev
	switch dependent := c.Dependent(); {
	case spread && dependent:
		// The deviations in the order of the samples they are of: a
		// burst that delays several samples in a row widens several
		// deviations in a row.
		ta, tb = absDevOrdered(a, o.OrderedA), absDevOrdered(b, o.OrderedB)
		m = MannWhitneySerial(ta, tb, o.OrderedA != nil, o.OrderedB != nil)
		c.Test = SerialSpreadTest
	case spread:
		ta, tb = absDev(a), absDev(b)
		c.Test = SpreadTest
	case dependent:
		// Each side in measurement order when it has one; a side without
		// is tested as independent samples.
		if o.OrderedA != nil {
			ta = o.OrderedA
		}
		if o.OrderedB != nil {
			tb = o.OrderedB
		}
		m = MannWhitneySerial(ta, tb, o.OrderedA != nil, o.OrderedB != nil)
		c.Test = SerialMannWhitneyTest
	}
	if !SerialTest(c.Test) {
		var err error
		if m, err = MannWhitney(ta, tb); err != nil { // an empty side: nothing to test
			m = MWU{P: 1}
		}
	}
	wg.Wait()
	c.finish(m, interval, o)
	return c
}

// serialOf describes ordered, nil when it is nil, does not hold the n
// samples of its side, or holds fewer than MinPerSide (too few to judge
// a dependence, and to be compared at all).
func serialOf(ordered []int64, n int) *Serial {
	if ordered == nil || len(ordered) != n || n < MinPerSide {
		return nil
	}
	s := SerialOf(ordered)
	return &s
}

// Dependent reports whether either side's samples are measurably
// dependent in measurement order: the comparison then uses the methods
// for serially dependent samples.
func (c Comparison) Dependent() bool {
	return (c.SerialA != nil && c.SerialA.Dependent) || (c.SerialB != nil && c.SerialB.Dependent)
}

// SideA is how the bootstrap resamples A (sorted: its samples ascending;
// ordered: in measurement order, or nil): by blocks when A is dependent,
// one by one otherwise. A caller bootstrapping other statistics of the
// same samples uses it to resample them alike.
func (c Comparison) SideA(sorted, ordered []int64) Side { return side(sorted, ordered, c.SerialA) }

// SideB is SideA for B.
func (c Comparison) SideB(sorted, ordered []int64) Side { return side(sorted, ordered, c.SerialB) }

func side(sorted, ordered []int64, s *Serial) Side {
	if s == nil || !s.Dependent {
		return Side{Sorted: sorted}
	}
	return Side{Sorted: sorted, Ordered: ordered, Block: s.Block}
}

// LowerThanA reports whether the rank test finds B tending lower than A:
// P(A > B) > 1/2, in the test's sense (ties count one half).
func (c Comparison) LowerThanA() bool { return c.MWU.Superiority > 0.5 }

// finish puts the rank test m and the interval in c, tests the
// rounds where o asks, and decides: the end of Compare and CompareSides.
func (c *Comparison) finish(m MWU, interval *CI, o CompareOptions) {
	c.MWU, c.PAdjusted = m, m.P
	c.Interval = interval
	if o.Rule == IntervalAndRounds || o.Rounds != nil {
		t := SignedRank(o.Rounds)
		c.Rounds, c.RoundsPAdjusted, c.roundsFloor = &t, t.P, t.MinP
	}
	c.decide()
}

func (c *Comparison) decide() {
	ev := []Evidence{IntervalEvidence(c.Interval)}
	switch c.rule {
	case IntervalAndRanks:
		dir := 0
		switch s := c.MWU.Superiority; {
		case s > 0.5:
			dir = -1
		case s < 0.5 && c.NA > 0 && c.NB > 0:
			dir = 1
		}
		ev = append(ev, TestEvidence(c.PAdjusted, c.alpha, dir))
	case IntervalAndRounds:
		ev = append(ev, c.Rounds.Evidence(c.RoundsPAdjusted, c.roundsFloor, c.alpha))
	}
	c.Verdict = Decide(ev...)
}

// AdjustFamily Holm-adjusts the p-values of comparisons made against one
// baseline (the rank tests' over the family, and the block tests' over
// the family) and decides each verdict again with them.
func AdjustFamily(cs []Comparison) {
	ps := make([]float64, len(cs))
	for i := range cs {
		ps[i] = cs[i].MWU.P
	}
	for i, p := range Holm(ps) {
		cs[i].PAdjusted = p
	}
	var idx []int
	var minPs []float64
	ps = ps[:0]
	for i := range cs {
		if cs[i].Rounds != nil {
			idx = append(idx, i)
			ps = append(ps, cs[i].Rounds.P)
			minPs = append(minPs, cs[i].Rounds.MinP)
		}
	}
	floors := HolmFloor(minPs)
	for k, p := range Holm(ps) {
		cs[idx[k]].RoundsPAdjusted, cs[idx[k]].roundsFloor = p, floors[k]
	}
	for i := range cs {
		cs[i].decide()
	}
}

// HolmFloor is the smallest Holm-adjusted p-value each test of a family
// can reach, given the smallest raw p-value each can give (a test over a
// few rounds cannot give less than 2/2^n, whatever the data). Holm
// multiplies the smallest p of k by k and never adjusts a p below itself,
// so test i's adjusted p is at least max(k * min(minP), minP[i]): when
// that is not below alpha, the test cannot find anything and its
// comparison has too few rounds for a verdict, not "no difference".
func HolmFloor(minP []float64) []float64 {
	lo := math.Inf(1)
	for _, p := range minP {
		lo = math.Min(lo, p)
	}
	out := make([]float64, len(minP))
	for i, p := range minP {
		out[i] = math.Min(1, math.Max(float64(len(minP))*lo, p))
	}
	return out
}

// ascending returns s if it is sorted, else a sorted copy.
func ascending(s []int64) []int64 {
	if slices.IsSorted(s) {
		return s
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// absDev returns |x - median(x)| of ascending samples: their spread, as a
// rank test of scale compares it.
func absDev(sorted []int64) []int64 { return absDevOrdered(sorted, nil) }

// absDevOrdered returns |x - median(x)| of the samples, sorted ascending,
// in the order of ordered (the same samples in measurement order) when it
// is not nil, in ascending order of x otherwise.
func absDevOrdered(sorted, ordered []int64) []int64 {
	m := QuantileSorted(sorted, 50)
	if ordered == nil {
		ordered = sorted
	}
	out := make([]int64, len(ordered))
	for i, v := range ordered {
		out[i] = max(v-m, m-v)
	}
	return out
}
