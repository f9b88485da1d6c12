package compare

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

func sleepDoc(n int, base, noise float64, seed uint64) *result.Document {
	r := rand.New(rand.NewPCG(seed, 3))
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(base + r.ExpFloat64()*noise)
	}
	return probe.KindSleep.New(host.Facts{}, &probe.SleepData{Samples: s})
}

// A side with fewer samples than the rule asks for gets no verdict, however
// large the difference looks: one sample against a hundred is never
// "faster", whatever the seed.
func TestTooFewSamplesNoVerdict(t *testing.T) {
	cases := []struct {
		name   string
		na, nb int
		by     stats.Statistic
		want   Outcome
	}{
		{"1 vs 100", 100, 1, stats.Quantile(50), TooFew},
		{"100 vs 1", 1, 100, stats.Quantile(50), TooFew},
		{"19 vs 100", 100, 19, stats.Mean, TooFew},
		{"20 vs 20", 20, 20, stats.Quantile(50), Faster},
		{"p99 from 300", 300, 300, stats.Quantile(99), TooFew},
		{"p99 from 400", 400, 400, stats.Quantile(99), Faster},
		{"p90 from 30", 30, 30, stats.Quantile(90), TooFew},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= 5; seed++ {
			a := Input{Label: "a.json", Doc: sleepDoc(c.na, 2e6, 1e5, seed)}
			b := Input{Label: "b.json", Doc: sleepDoc(c.nb, 1e6, 1e5, seed+100)}
			r, err := Compare([]Input{a, b}, Options{By: c.by, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			p := r.Pairs[0]
			if p.Outcome != c.want {
				t.Errorf("%s seed %d: %s, want %s (%s)", c.name, seed, p.Outcome, c.want, p.Verdict)
			}
			if c.want == TooFew && (!strings.Contains(p.Verdict, "too few samples") || !strings.Contains(p.Verdict, "no verdict")) {
				t.Errorf("%s: verdict %q does not say why there is none", c.name, p.Verdict)
			}
		}
	}
}

// A run too small to judge ranks after the runs that can be judged,
// however low its point estimate: the ranking is no verdict the pairs do
// not give.
func TestTooFewRanksLast(t *testing.T) {
	in := []Input{
		{Label: "base.json", Doc: sleepDoc(100, 2e6, 1e5, 1)},
		{Label: "one.json", Doc: sleepDoc(1, 1e5, 0, 2)}, // the lowest p50, from one sleep
		{Label: "fast.json", Doc: sleepDoc(100, 1e6, 1e5, 3)},
	}
	r, err := Compare(in, Options{By: stats.Quantile(50), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Ranking; len(got) != 3 || got[0] != 2 || got[1] != 0 || got[2] != 1 {
		t.Errorf("ranking %v, want fast, base, then the 1-sample run", got)
	}
}

// The rule: 20 per side for any statistic; for a percentile, enough that a
// distribution-free interval for it at the comparison's level ends on an
// observed sample, not past the largest (or smallest) one.
func TestMinSamples(t *testing.T) {
	cases := []struct {
		st    stats.Statistic
		level float64
		want  int
	}{
		{stats.Mean, 0.95, 20},
		{stats.Quantile(50), 0.95, 20},
		{stats.Quantile(90), 0.95, 36},
		{stats.Quantile(99), 0.95, 368},
		{stats.Quantile(99.9), 0.95, 3688},
		{stats.Quantile(1), 0.95, 368},
		{stats.Quantile(99), 1 - 0.05/3, 477},
	}
	for _, c := range cases {
		if got := stats.MinSamples(c.st, c.level); got != c.want {
			t.Errorf("MinSamples(%s, %v) = %d, want %d", c.st, c.level, got, c.want)
		}
	}
}

// A detectable change below --detect says "the change you asked about" only
// when the user asked (--detect given); by default it names the default.
func TestSmallChangeNamesWhoAskedForDetect(t *testing.T) {
	a := Input{Label: "a.json", Doc: sleepDoc(500, 1.00e6, 1e3, 1)}
	b := Input{Label: "b.json", Doc: sleepDoc(500, 1.01e6, 1e3, 2)}
	for _, asked := range []bool{false, true} {
		r, err := Compare([]Input{a, b}, Options{By: stats.Quantile(50), Seed: 1, DetectAsked: asked})
		if err != nil {
			t.Fatal(err)
		}
		v := r.Pairs[0].Verdict
		if r.Pairs[0].Outcome != Slower || !strings.Contains(v, "smaller than") {
			t.Fatalf("a 1%% change from 5000 samples: %q", v)
		}
		if got := strings.Contains(v, "you asked about"); got != asked {
			t.Errorf("--detect given %v: %q", asked, v)
		}
	}
}
