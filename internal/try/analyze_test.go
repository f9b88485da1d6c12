package try

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// simulate builds the blocks of a run in order: every sample of block i is
// base + drift*i + the block's own shift (sd blockNoise) + noise, plus
// effect for the arm under test (arm 1).
func simulate(order []int, arms int, seed uint64, perBlock int, drift, blockNoise, noise, effect float64) *Result {
	rng := rand.New(rand.NewPCG(seed, 99))
	res := &Result{Arms: make([]Arm, arms), Order: order}
	res.Arms[0] = Arm{Label: "current", Baseline: true}
	for i := 1; i < arms; i++ {
		res.Arms[i] = Arm{Label: "value", Value: "v"}
	}
	for i, a := range order {
		b := Block{Index: i, Round: i / arms, Arm: a, Complete: true}
		shift := blockNoise * rng.NormFloat64()
		for range perBlock {
			v := 1e6 + drift*float64(i) + shift + noise*rng.NormFloat64()
			if a == 1 {
				v += effect
			}
			b.Samples = append(b.Samples, int64(math.Round(v)))
		}
		b.Count = perBlock
		res.Runs = append(res.Runs, b)
	}
	return res
}

type tally struct{ better, worse, none, few, pooled int }

func (t *tally) add(v *Verdict) {
	switch v.Outcome {
	case Better:
		t.better++
	case Worse:
		t.worse++
	case NoDifference:
		t.none++
	default:
		t.few++
	}
	if v.Diff != nil && (v.Diff.Hi < 0 || v.Diff.Lo > 0) {
		t.pooled++
	}
}

// A knob with no effect, measured while the system drifts steadily
// (20 µs over the run) and each block is shifted by what else runs then
// (2 µs, against 5 µs of noise per sample): the randomized rounds and the
// block test say "no difference" in at least 95% of seeds. The same
// conditions fool the pooled samples alone in many seeds (they take the
// samples of a block for independent), and a run without randomized
// rounds (all baseline blocks first) in almost all: the verdict's guard is
// the design and the block test together.
func TestTryDriftWithoutEffectIsNoDifference(t *testing.T) {
	const seeds, rounds, perBlock = 500, 8, 50
	const drift, blockNoise, noise = 20e3 / (2 * rounds), 2e3, 5e3
	var rnd, seq tally
	sequential := make([]int, 0, 2*rounds)
	for range rounds {
		sequential = append(sequential, 0)
	}
	for range rounds {
		sequential = append(sequential, 1)
	}
	for s := uint64(1); s <= seeds; s++ {
		r := simulate(Order(2, rounds, s), 2, s, perBlock, drift, blockNoise, noise, 0)
		if err := Analyze(r, stats.Quantile(50), s); err != nil {
			t.Fatal(err)
		}
		rnd.add(r.Arms[1].Verdict)
		// Sequential: the k-th baseline block and the k-th value block
		// make round k.
		q := simulate(sequential, 2, s, perBlock, drift, blockNoise, noise, 0)
		for i := range q.Runs {
			q.Runs[i].Round = i % rounds
		}
		if err := Analyze(q, stats.Quantile(50), s); err != nil {
			t.Fatal(err)
		}
		seq.add(q.Arms[1].Verdict)
	}
	t.Logf("randomized: %+v; sequential: %+v", rnd, seq)
	if rnd.none < seeds*95/100 {
		t.Errorf("randomized rounds: no difference in %d of %d seeds, want at least 95%% (%+v)", rnd.none, seeds, rnd)
	}
	if rnd.pooled < 2*(seeds-rnd.none) || rnd.pooled < seeds/10 {
		t.Errorf("the pooled samples alone flagged %d of %d seeds: the simulation's drift does not test the block test (%+v)", rnd.pooled, seeds, rnd)
	}
	if seq.worse < seeds*9/10 {
		t.Errorf("baseline blocks first: %d of %d seeds found the drift 'worse', want nearly all: the analysis cannot tell an unrandomized order (%+v)", seq.worse, seeds, seq)
	}
}

// A real effect of the size of the noise's standard deviation under the same
// drift is found.
func TestTryDriftWithEffectIsFound(t *testing.T) {
	const seeds, rounds, perBlock = 100, 8, 50
	const drift, blockNoise, noise = 20e3 / (2 * rounds), 2e3, 5e3
	var got tally
	for s := uint64(1); s <= seeds; s++ {
		r := simulate(Order(2, rounds, s), 2, s, perBlock, drift, blockNoise, noise, -5e3)
		if err := Analyze(r, stats.Quantile(50), s); err != nil {
			t.Fatal(err)
		}
		got.add(r.Arms[1].Verdict)
	}
	t.Logf("%+v", got)
	if got.better < seeds*8/10 || got.worse > 0 {
		t.Errorf("a 5 µs improvement was found better in %d of %d seeds, want at least 80%% and never worse (%+v)", got.better, seeds, got)
	}
}

// The signed-rank test against R: wilcox.test(x, y, paired = TRUE) of
// R's own example (Hollander & Wolfe, depression scores) gives V = 40,
// p = 0.03906; eight rounds all one way give 2/2^8.
func TestTrySignedRank(t *testing.T) {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	for _, c := range []struct {
		d            []float64
		p, minP      float64
		lower, highr int
	}{
		{d, 0.0390625, 2.0 / 512, 2, 7},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8}, 2.0 / 256, 2.0 / 256, 0, 8},
		{[]float64{-1, -2, -3, -4, -5, -6, -7, -8}, 2.0 / 256, 2.0 / 256, 8, 0},
		{[]float64{1, -1}, 1, 0.5, 1, 1},
		{[]float64{0, 0, 0}, 1, 0.25, 0, 0},
		{[]float64{0, 0, 0, 0, 0, 0, 0, 0}, 1, 2.0 / 256, 0, 0},
	} {
		got := signedRank(c.d)
		if math.Abs(got.P-c.p) > 1e-9 || math.Abs(got.MinP-c.minP) > 1e-12 || got.Lower != c.lower || got.Higher != c.highr {
			t.Errorf("%v: p %v min %v lower %d higher %d, want p %v min %v lower %d higher %d", c.d, got.P, got.MinP, got.Lower, got.Higher, c.p, c.minP, c.lower, c.highr)
		}
	}
	// Beyond the exact range the normal approximation agrees with the
	// exact p where both apply.
	var long []float64
	for i := 1; i <= exactRounds; i++ {
		v := float64(i)
		if i%3 == 0 {
			v = -v
		}
		long = append(long, v)
	}
	exact := signedRank(long)
	approx := signedRank(append(long, 0.5, -0.25)) // two more rounds: over the exact range
	if approx.Method == exact.Method || math.Abs(approx.P-exact.P) > 0.02 {
		t.Errorf("exact %v (%s), approximate %v (%s)", exact.P, exact.Method, approx.P, approx.Method)
	}
}

// The document's timer state is the one Run read after the run and its
// restore: Document reads nothing itself, so a result without one gives a
// document without one.
func TestDocumentTimerFromRun(t *testing.T) {
	st := timer.Status{Current100ns: 10_000}
	for _, want := range []*timer.Status{nil, &st} {
		res := simulate([]int{0, 1}, 2, 1, 10, 0, 0, 1000, 0)
		res.meta.timer = want
		doc, err := Document(host.Facts{}, res, map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := Kind.Of(doc); d.Timer != want {
			t.Errorf("timer %v, want %v", d.Timer, want)
		}
	}
}

// With several values the block test's p-values are Holm-adjusted, so the
// fewest rounds that can reach p < 0.05 grow with them: with two values
// the smallest adjusted p of 6 rounds is 2 * 2/2^6 = 0.0625. A large, clear
// effect measured in 6 rounds then has no verdict ("too few", and how many
// rounds would do), not "no difference", which it used to get. One value
// with 6 rounds still gets its verdict.
func TestTryTooFewRoundsForTheFamily(t *testing.T) {
	for _, c := range []struct {
		arms, rounds int
		want         Outcome
		text         string
	}{
		{3, 6, TooFew, "too few complete rounds (6): the block test cannot reach p < 0.05 with fewer than 7"},
		{3, 7, Better, "value is better than current"},
		{2, 6, Better, "value is better than current"},
		{2, 5, TooFew, "too few complete rounds (5): the block test cannot reach p < 0.05 with fewer than 6"},
	} {
		r := simulate(Order(c.arms, c.rounds, 1), c.arms, 1, 100, 0, 100, 1e3, -50e3)
		if err := Analyze(r, stats.Quantile(50), 1); err != nil {
			t.Fatal(err)
		}
		if v := r.Arms[1].Verdict; v.Outcome != c.want || !strings.Contains(v.Text, c.text) {
			t.Errorf("%d arms, %d rounds: %s: %s", c.arms, c.rounds, v.Outcome, v.Text)
		}
	}
}

// The block test compares each block's statistic: a p99 of a block of 50
// samples is its maximum, so with fewer samples a block than that
// percentile needs (stats.BelowMax: 100 for p99) there is no block test
// and no verdict, even with samples enough in all for the interval.
func TestTryBlockStatisticNeedsSamples(t *testing.T) {
	for _, c := range []struct {
		by       stats.Statistic
		perBlock int
		want     Outcome
		text     string
	}{
		{stats.Quantile(99), 60, TooFew, "value vs current: no verdict, too few samples a block for the block test (fewest 60): a block's p99 is its maximum below 100; use a longer --block-duration"},
		{stats.Quantile(99), 100, Better, "value is better than current at p99"},
		{stats.Quantile(50), 60, Better, "value is better than current at p50"},
	} {
		r := simulate(Order(2, 8, 1), 2, 1, c.perBlock, 0, 100, 1e3, -50e3)
		if err := Analyze(r, c.by, 1); err != nil {
			t.Fatal(err)
		}
		if v := r.Arms[1].Verdict; v.Outcome != c.want || !strings.HasPrefix(v.Text, c.text) {
			t.Errorf("%s, %d a block: %s: %s", c.by, c.perBlock, v.Outcome, v.Text)
		}
	}
}

// "No difference at p50" beside a Mann-Whitney p below the level says
// what the test found: the distributions differ elsewhere. The level is
// written as compare writes it.
func TestTryNoDifferenceWithMannWhitney(t *testing.T) {
	base := &Arm{Label: "current"}
	for _, c := range []struct {
		p    float64
		k    int
		want string
		not  string
	}{
		{0.0001, 1, "; Mann-Whitney finds the distributions differ, somewhere other than their p50", ""},
		{0.3, 1, "95% CI", "Mann-Whitney finds"},
		{0.3, 2, "97.5% CI", ""},
	} {
		a := &Arm{Label: "value", Verdict: &Verdict{Outcome: NoDifference, By: "p50", Level: 1 - 0.05/float64(c.k), PHolm: &c.p,
			Diff: &stats.CI{Estimate: -200, Lo: -1400, Hi: 800}, Blocks: &BlockTest{Rounds: 8, Lower: 2, PHolm: 0.578}}}
		got := verdictText(a, base, c.k)
		if !strings.Contains(got, c.want) || c.not != "" && strings.Contains(got, c.not) {
			t.Errorf("p %g, k %d: %q", c.p, c.k, got)
		}
	}
}
