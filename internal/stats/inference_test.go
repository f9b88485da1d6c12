package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

// Reference values in this file were computed independently of latlab:
// the Mann-Whitney example and its p-values are R's own documented example
// (?wilcox.test, Hollander & Wolfe 1973 p. 69: W = 35, p = 0.1272 for
// alternative "greater"), the others with SciPy 1.17 (mannwhitneyu with
// method="asymptotic", use_continuity=True; ks_2samp; kstwobign.sf) and
// NumPy (quantile with method="inverted_cdf", which is R's type 1 and
// the nearest-rank definition). The vectors are written out here.

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

func scaled(v []float64, f float64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(math.Round(x * f))
	}
	return out
}

func TestMannWhitneyRExample(t *testing.T) {
	x := scaled([]float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}, 100)
	y := scaled([]float64{1.15, 0.88, 0.90, 0.74, 1.21}, 100)
	r, err := MannWhitney(x, y)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "U (R's W)", r.U, 35, 0)
	near(t, "two-sided exact p", r.P, 0.2544122544122544, 1e-9) // twice R's one-sided 0.1272
	near(t, "superiority", r.Superiority, 35.0/50, 1e-12)
}

func TestMannWhitneyNormalApproximation(t *testing.T) {
	var a, b, xt, yt []int64
	for i := 0; i < 60; i++ {
		a = append(a, int64(((i*37)%101)*100+50))
		xt = append(xt, int64((i*7)%23))
	}
	for i := 0; i < 55; i++ {
		b = append(b, int64(((i*41)%103)*100+1025))
	}
	for i := 0; i < 70; i++ {
		yt = append(yt, int64((i*5)%19+6))
	}
	r, _ := MannWhitney(a, b)
	near(t, "U without ties", r.U, 1215, 0)
	near(t, "p without ties", r.P, 0.01498534820311071, 1e-9)
	r, _ = MannWhitney(xt, yt)
	near(t, "U with ties", r.U, 1425, 0)
	near(t, "p with ties", r.P, 0.0016149558721633886, 1e-9)
	r, err := MannWhitney([]int64{5, 5, 5}, []int64{5, 5})
	if err != nil || r.P != 1 {
		t.Errorf("all equal: %+v %v", r, err)
	}
}

func TestKolmogorovSmirnov(t *testing.T) {
	var xt, yt []int64
	for i := 0; i < 60; i++ {
		xt = append(xt, int64((i*7)%23))
	}
	for i := 0; i < 70; i++ {
		yt = append(yt, int64((i*5)%19+6))
	}
	k := KolmogorovSmirnov(xt, yt)
	near(t, "D", k.D, 0.26666666666666666, 1e-12)
	near(t, "p", k.P, 0.020207011199955424, 1e-9)
	a := scaled([]float64{1.2, 3.4, 0.5, 2.2, 8.9, 4.4, 3.3, 0.1, 7.7, 2.8, 5.5, 6.1}, 10)
	b := scaled([]float64{2.5, 4.1, 9.2, 3.9, 6.6, 7.1, 8.8, 5.0}, 10)
	k = KolmogorovSmirnov(a, b)
	near(t, "D", k.D, 0.4583333333333333, 1e-12)
	near(t, "p", k.P, 0.26556914647001495, 1e-9)
	for _, c := range [][2]float64{{0.3, 0.9999906941986655}, {0.5, 0.9639452436648751}, {0.8, 0.5441424115741981},
		{1.0, 0.26999967167735456}, {1.18, 0.1234538094297657}, {1.2, 0.11224966667072497}, {1.36, 0.049485876755377876},
		{2.0, 0.0006709252557796953}, {3.0, 3.045995948942526e-08}} {
		near(t, "Kolmogorov survival", KolmogorovSurvival(c[0]), c[1], 1e-9)
	}
}

func TestQuantileIsNearestRank(t *testing.T) {
	v := []int64{15, 20, 35, 40, 50, 3, 8, 99, 41, 27, 13}
	slices.Sort(v)
	want := map[float64]int64{0: 3, 10: 8, 25: 13, 50: 27, 75: 41, 90: 50, 99: 99, 100: 99}
	for p, w := range want {
		if got := Quantile(p).Of(v); got != float64(w) {
			t.Errorf("p%v = %v, want %d (numpy inverted_cdf)", p, got, w)
		}
	}
}

func TestHolm(t *testing.T) {
	// By hand from the definition (Holm 1979), as R's p.adjust(method = "holm").
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		near(t, "holm", got[i], want[i], 1e-12)
	}
}

func TestParseStatistic(t *testing.T) {
	for s, want := range map[string]string{"mean": "mean", "p50": "p50", "P99.9": "p99.9", "stdev": "stdev", "median": "p50"} {
		st, err := ParseStatistic(s)
		if err != nil || st.String() != want {
			t.Errorf("%s: %v %v", s, st, err)
		}
	}
	for _, s := range []string{"", "p101", "avg", "p-1"} {
		if _, err := ParseStatistic(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestBootstrapReproducible(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	x := make([]int64, 300)
	for i := range x {
		x[i] = int64(1e6 + r.ExpFloat64()*1e5)
	}
	slices.Sort(x)
	b := Bootstrap{Seed: 42}
	for _, st := range []Statistic{Mean, Stdev, Quantile(50), Quantile(99)} {
		c1, c2 := b.CI(x, st), b.CI(x, st)
		if c1 != c2 {
			t.Errorf("%v: same seed, different intervals %+v %+v", st, c1, c2)
		}
		if !(c1.Lo <= c1.Estimate && c1.Estimate <= c1.Hi) {
			t.Errorf("%v: estimate outside its interval %+v", st, c1)
		}
		if c3 := (Bootstrap{Seed: 43}).CI(x, st); c3 == c1 && st.kind != statQuantile {
			t.Errorf("%v: seed ignored", st) // percentile intervals are order statistics and may coincide
		}
	}
}

// The order-statistic shortcut must give the same distribution of
// resampled percentiles as resampling n values and sorting them.
func TestQuantileBootstrapMatchesNaiveResampling(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]int64, 101)
	for i := range x {
		x[i] = int64(r.NormFloat64()*1000 + 50000)
	}
	slices.Sort(x)
	const B = 3000
	fast, _ := Bootstrap{Replicates: B}.replicates(x, Quantile(90), rand.New(rand.NewPCG(1, 1)))
	naive := make([]float64, B)
	rs := make([]int64, len(x))
	for i := range naive {
		for j := range rs {
			rs[j] = x[r.IntN(len(x))]
		}
		slices.Sort(rs)
		naive[i] = float64(QuantileSorted(rs, 90))
	}
	fi := make([]int64, B)
	ni := make([]int64, B)
	for i := range fi {
		fi[i], ni[i] = int64(fast[i]), int64(naive[i])
	}
	if k := KolmogorovSmirnov(fi, ni); k.P < 0.001 {
		t.Fatalf("shortcut and naive bootstrap distributions differ: D=%.3f p=%.2g", k.D, k.P)
	}
}

// Coverage: over many seeded trials, the 95% interval must contain the
// true value of the population in at least 93% of them. (The trials are
// seeded, so the test is deterministic; the observed rates are ~95%.)
func TestBootstrapCoverage(t *testing.T) {
	exp := distuv.Exponential{Rate: 1}
	expSample := func(src *rand.Rand) int64 { return int64(src.ExpFloat64() * 1e6) }
	normSample := func(src *rand.Rand) int64 { return int64(1e6 + src.NormFloat64()*1e5) }
	cases := []struct {
		st     Statistic
		truth  float64
		n      int
		trials int
		draw   func(*rand.Rand) int64
	}{
		{Quantile(50), exp.Quantile(0.5) * 1e6, 2000, 1000, expSample},
		{Quantile(90), exp.Quantile(0.9) * 1e6, 2000, 1000, expSample},
		{Mean, 1e6, 300, 300, normSample},
	}
	// Pure computation, each trial seeded on its own: the cases run side
	// by side.
	for _, c := range cases {
		t.Run(c.st.String(), func(t *testing.T) {
			t.Parallel()
			hit := 0
			for trial := 0; trial < c.trials; trial++ {
				src := rand.New(rand.NewPCG(uint64(trial), 99))
				x := make([]int64, c.n)
				for i := range x {
					x[i] = c.draw(src)
				}
				slices.Sort(x)
				ci := Bootstrap{Seed: uint64(trial), Replicates: 500}.CI(x, c.st)
				if ci.Contains(c.truth) {
					hit++
				}
			}
			cov := float64(hit) / float64(c.trials)
			t.Logf("%v: coverage %.1f%%", c.st, cov*100)
			if cov < 0.93 {
				t.Errorf("%v: 95%% CI covered the true value in %.1f%% of trials", c.st, cov*100)
			}
		})
	}
}

// Property: a difference interval contains its own estimate's sign
// correctly for clearly separated samples, and is antisymmetric in its
// arguments up to resampling noise.
func TestDiffCIProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(20, 200).Draw(t, "n")
		shift := rapid.Int64Range(10_000, 100_000).Draw(t, "shift")
		seed := rapid.Uint64().Draw(t, "seed")
		src := rand.New(rand.NewPCG(seed, 1))
		x, y := make([]int64, n), make([]int64, n)
		for i := range x {
			x[i] = 1_000_000 + int64(src.IntN(1000))
			y[i] = x[i] + shift
		}
		slices.Sort(x)
		slices.Sort(y)
		for _, st := range []Statistic{Mean, Quantile(50), Quantile(99)} {
			c := Bootstrap{Seed: seed, Replicates: 500}.DiffCI(x, y, st)
			if !(c.Lo > 0 && c.Lo <= c.Estimate && c.Estimate <= c.Hi) {
				t.Fatalf("%v: shift %d gave %+v", st, shift, c)
			}
		}
	})
}

func TestSamplesToDetect(t *testing.T) {
	// With se equal to delta/2.8 the current n already suffices.
	z := distuv.UnitNormal.Quantile(0.975) + distuv.UnitNormal.Quantile(0.8)
	if got := SamplesToDetect(100, 1/z, 1, 0.05, 0.8); got != 100 {
		t.Errorf("got %d", got)
	}
	if got := SamplesToDetect(100, 2/z, 1, 0.05, 0.8); got != 400 {
		t.Errorf("halving the se needs 4x the samples: got %d", got)
	}
	if SamplesToDetect(100, 0, 1, 0.05, 0.8) != 0 {
		t.Error("zero se")
	}
}
