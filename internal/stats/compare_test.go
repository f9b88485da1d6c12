package stats

import (
	"math"
	"slices"
	"testing"
)

// The effects (statistic of b - statistic of a) were computed with NumPy
// 2.4.6 from the same vectors: numpy.mean, and numpy.percentile(v, p,
// method="inverted_cdf") for the nearest-rank quantiles.
//
// The p-values in this file were computed independently with SciPy 1.17.1
// (scipy.stats.mannwhitneyu(a, b, alternative="two-sided") with
// method="exact" for the samples without ties and method="asymptotic",
// use_continuity=True for those with ties; scipy.stats.wilcoxon(d,
// method="exact") for the signed-rank cases) from the same vectors,
// which the helpers below write out as formulas.

func seq(n int, f func(i int) int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

var (
	// 30 distinct values 1000..2000 in steps of 10; the others are offset
	// by 5 so no value ties across samples (exact p in both libraries).
	cmpA   = seq(30, func(i int) int64 { return 1000 + int64((i*37)%101)*10 })
	cmpLo  = seq(30, func(i int) int64 { return 705 + int64((i*41)%103)*10 })
	cmpHi  = seq(30, func(i int) int64 { return 1305 + int64((i*41)%103)*10 })
	cmpMid = seq(30, func(i int) int64 { return 995 + int64((i*41)%103)*10 })
	// 60 values each among a dozen: heavy ties, the normal approximation.
	tiesA = seq(60, func(i int) int64 { return int64((i * 7) % 13) })
	tiesB = seq(60, func(i int) int64 { return int64((i*5)%11 + 2) })
	tiesC = seq(60, func(i int) int64 { return int64((i * 5) % 11) })
)

func TestCompare(t *testing.T) {
	same := seq(40, func(int) int64 { return 500 })
	rounds8 := func(v float64) []float64 { // eight rounds all one way
		r := make([]float64, 8)
		for i := range r {
			r[i] = v
		}
		return r
	}
	p50 := Quantile(50)
	cases := []struct {
		name    string
		a, b    []int64
		o       CompareOptions
		p       float64 // SciPy's two-sided p; NaN: not checked
		u       float64 // SciPy's U of a (U1); NaN: not checked
		effect  float64 // NumPy's statistic of b - a; NaN: not checked
		verdict Verdict
	}{
		{"B clearly lower", cmpA, cmpLo, CompareOptions{By: Mean}, 0.010043807235665855, 623, -223.66666666666652, Better},
		{"B clearly higher", cmpA, cmpHi, CompareOptions{By: p50}, 3.774881963419926e-05, 181, 405, Worse},
		{"no shift to speak of", cmpA, cmpMid, CompareOptions{By: p50}, 0.40628899909944255, 393, 95, NoDifference},
		{"ties, B a little higher", tiesA, tiesB, CompareOptions{By: Mean, Rule: IntervalAndRanks}, 0.08366273385315753, 1471, 1.1833333333333336, NoDifference},
		{"ties, near equal", tiesA, tiesC, CompareOptions{By: Mean}, 0.23602821168083765, 2025.5, -0.8166666666666664, NoDifference},
		{"identical samples", same, same, CompareOptions{By: Mean}, 1, 800, 0, NoDifference},
		{"the same sample", cmpA, cmpA, CompareOptions{By: p50, Rule: IntervalAndRanks}, math.NaN(), 450, 0, NoDifference},
		{"too few: 19 a side", cmpA[:19], cmpLo[:19], CompareOptions{By: Mean}, math.NaN(), math.NaN(), -208.6842105263156, TooFew},
		{"too few for p99 at 95%", cmpA, cmpLo, CompareOptions{By: Quantile(99)}, 0.010043807235665855, 623, -245, TooFew},
		{"an empty side", nil, cmpLo, CompareOptions{By: p50}, 1, 0, math.NaN(), TooFew},
		{"ranks agree", cmpA, cmpLo, CompareOptions{By: Mean, Rule: IntervalAndRanks}, 0.010043807235665855, 623, -223.66666666666652, Better},
		{"rounds agree", cmpA, cmpLo, CompareOptions{By: Mean, Rule: IntervalAndRounds, Rounds: rounds8(-10)}, 0.010043807235665855, 623, -223.66666666666652, Better},
		{"rounds disagree", cmpA, cmpLo, CompareOptions{By: Mean, Rule: IntervalAndRounds, Rounds: rounds8(10)}, math.NaN(), math.NaN(), -223.66666666666652, NoDifference},
		{"too few rounds", cmpA, cmpLo, CompareOptions{By: Mean, Rule: IntervalAndRounds, Rounds: rounds8(-10)[:5]}, math.NaN(), math.NaN(), -223.66666666666652, TooFew},
		{"no rounds", cmpA, cmpLo, CompareOptions{By: Mean, Rule: IntervalAndRounds}, math.NaN(), math.NaN(), -223.66666666666652, TooFew},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Compare(c.a, c.b, c.o)
			if !math.IsNaN(c.p) {
				near(t, "p", got.MWU.P, c.p, 1e-9)
				near(t, "adjusted p of a family of one", got.PAdjusted, c.p, 1e-9)
			}
			if !math.IsNaN(c.u) {
				// SciPy's U1 counts a > b; latlab's U is of its first argument too.
				near(t, "U", got.MWU.U, c.u, 0)
			}
			if got.Verdict != c.verdict {
				t.Errorf("verdict %v, want %v (interval %+v, p %v, rounds %+v)", got.Verdict, c.verdict, got.Interval, got.PAdjusted, got.Rounds)
			}
			if got.NA != len(c.a) || got.NB != len(c.b) || got.Level != 0.95 {
				t.Errorf("n %d/%d level %v", got.NA, got.NB, got.Level)
			}
			if (got.Interval == nil) != (min(len(c.a), len(c.b)) < got.MinSamples) {
				t.Errorf("interval %+v with %d and %d samples, min %d", got.Interval, len(c.a), len(c.b), got.MinSamples)
			}
			if !math.IsNaN(c.effect) {
				near(t, "effect", got.Effect, c.effect, 1e-12)
			}
		})
	}
}

// The same clear difference in a family of 6: each interval at 1 -
// 0.05/6 (Bonferroni) and the rank test's p Holm-adjusted over 6 (6 *
// 0.01004 > 0.05). The interval still excludes 0, so the interval rule
// finds the difference; the rank rule, which needs the test too, no longer
// does.
func TestCompareFamily(t *testing.T) {
	for _, c := range []struct {
		rule Rule
		want Verdict
	}{{IntervalAlone, Better}, {IntervalAndRanks, NoDifference}} {
		o := CompareOptions{By: Mean, Rule: c.rule, Family: 6}
		cs := []Comparison{Compare(cmpA, cmpLo, o)}
		for range 5 {
			cs = append(cs, Compare(cmpA, cmpMid, o))
		}
		near(t, "level", cs[0].Level, 1-0.05/6, 1e-15)
		if cs[0].Verdict != Better {
			t.Errorf("verdict %v before adjusting, want better", cs[0].Verdict)
		}
		AdjustFamily(cs)
		// statsmodels 0.15.0: multipletests([0.010043807235665855] +
		// [0.40628899909944255] * 5, method="holm")[1]: 6 x the
		// smallest, the others capped at 1
		want := []float64{0.060262843413995126, 1, 1, 1, 1, 1}
		for i, c := range cs {
			near(t, "Holm-adjusted p", c.PAdjusted, want[i], 1e-9)
		}
		if cs[0].Verdict != c.want {
			t.Errorf("%v: verdict %v in a family of 6, want %v (interval %+v)", c.rule, cs[0].Verdict, c.want, cs[0].Interval)
		}
	}
}

// The block test over rounds, against SciPy's exact Wilcoxon signed-rank.
func TestSignedRankSciPy(t *testing.T) {
	for _, c := range []struct {
		d             []float64
		p             float64
		lower, higher int
	}{
		{[]float64{-3, -1, -4, -2, -5, -9, 7, -6, -8, -10, -11}, 0.0185546875, 10, 1},
		{[]float64{1, -2, 3, -4, 5, -6, 7, -8}, 0.84375, 4, 4},
	} {
		got := SignedRank(c.d)
		near(t, "signed-rank p", got.P, c.p, 1e-12)
		if got.Lower != c.lower || got.Higher != c.higher || got.Rounds != len(c.d) {
			t.Errorf("%v: %+v", c.d, got)
		}
	}
}

// Decide's rule over every combination that matters.
func TestDecide(t *testing.T) {
	lower := Evidence{Present: true, Significant: true, Direction: -1}
	higher := Evidence{Present: true, Significant: true, Direction: 1}
	weak := Evidence{Present: true, Direction: -1}
	absent := Evidence{}
	for _, c := range []struct {
		ev   []Evidence
		want Verdict
	}{
		{[]Evidence{lower}, Better},
		{[]Evidence{higher}, Worse},
		{[]Evidence{weak}, NoDifference},
		{[]Evidence{absent}, TooFew},
		{[]Evidence{lower, lower}, Better},
		{[]Evidence{higher, higher}, Worse},
		{[]Evidence{lower, higher}, NoDifference},
		{[]Evidence{lower, weak}, NoDifference},
		{[]Evidence{lower, absent}, TooFew},
		{[]Evidence{absent, higher}, TooFew},
		{[]Evidence{lower, {Present: true, Significant: true}}, NoDifference},
		{nil, NoDifference},
	} {
		if got := Decide(c.ev...); got != c.want {
			t.Errorf("Decide(%+v) = %v, want %v", c.ev, got, c.want)
		}
	}
	for _, c := range []struct {
		ci   *CI
		want Evidence
	}{
		{nil, absent},
		{&CI{Lo: -3, Hi: -1}, lower},
		{&CI{Lo: 1, Hi: 3}, higher},
		{&CI{Lo: -1, Hi: 1}, Evidence{Present: true}},
		{&CI{Lo: 0, Hi: 1}, Evidence{Present: true}}, // touching 0 is not excluding it
	} {
		if got := IntervalEvidence(c.ci); got != c.want {
			t.Errorf("IntervalEvidence(%+v) = %+v, want %+v", c.ci, got, c.want)
		}
	}
}

// The smallest adjusted p a family's tests can reach: k times the family's
// smallest, and never below a test's own.
func TestHolmFloor(t *testing.T) {
	for _, c := range []struct{ minP, want []float64 }{
		{[]float64{2.0 / 64}, []float64{2.0 / 64}},
		{[]float64{2.0 / 64, 2.0 / 64}, []float64{0.0625, 0.0625}},
		{[]float64{2.0 / 512, 2.0 / 64}, []float64{4.0 / 512, 2.0 / 64}},
		{[]float64{0.5, 0.5, 0.5}, []float64{1, 1, 1}},
		{nil, []float64{}},
	} {
		got := HolmFloor(c.minP)
		if !slices.Equal(got, c.want) {
			t.Errorf("HolmFloor(%v) = %v, want %v", c.minP, got, c.want)
		}
	}
}

// Six rounds all one way give p = 2/64 alone (a verdict), but in a family
// of two no adjusted p can fall below 0.0625: too few rounds, not "no
// difference".
func TestAdjustFamilyRoundsTooFew(t *testing.T) {
	six := []float64{-1, -2, -3, -4, -5, -6}
	o := CompareOptions{By: Mean, Rule: IntervalAndRounds, Rounds: six, Family: 2}
	cs := []Comparison{Compare(cmpA, cmpLo, o), Compare(cmpA, cmpLo, o)}
	if cs[0].Verdict != Better {
		t.Errorf("alone: %v, want better", cs[0].Verdict)
	}
	AdjustFamily(cs)
	for _, c := range cs {
		near(t, "adjusted block p", c.RoundsPAdjusted, 0.0625, 1e-12)
		if c.Verdict != TooFew {
			t.Errorf("in a family of two: %v, want too few", c.Verdict)
		}
	}
	o.Rounds = append(six, -7)
	cs = []Comparison{Compare(cmpA, cmpLo, o), Compare(cmpA, cmpLo, o)}
	AdjustFamily(cs)
	if cs[0].Verdict != Better {
		t.Errorf("seven rounds in a family of two: %v, want better", cs[0].Verdict)
	}
}
