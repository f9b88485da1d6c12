package compare_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// ar1Lateness is n wake-up latenesses from an AR(1) process with
// autocorrelation phi: 20 µs plus 2 µs per unit, as a burst of
// interference delays several wake-ups in a row.
func ar1Lateness(rng *rand.Rand, n int, phi float64) []int64 {
	return testutil.AR1(rng, n, phi, 20_000, 2_000)
}

// Two wake runs of the same dependent process: the i.i.d. methods (which
// the same samples in a shuffled order get) call B faster, the methods
// for dependent samples see no difference, and the result says which
// were used and why.
func TestCompareDependentRunsOfOneProcess(t *testing.T) {
	// Seed 3 is one whose pair the i.i.d. methods call different (a
	// false positive they make about half the time at phi 0.8).
	rng := rand.New(rand.NewPCG(3, 0))
	a, b := ar1Lateness(rng, 1000, 0.8), ar1Lateness(rng, 1000, 0.8)
	dir := testutil.TempDir(t)
	r, err := run(t, compare.RunOptions{Files: []string{wakeFile(t, dir, "a.json", a, false), wakeFile(t, dir, "b.json", b, false)}})
	if err != nil {
		t.Fatal(err)
	}
	shuffle := func(s []int64) []int64 {
		s = slices.Clone(s)
		rand.New(rand.NewPCG(9, 9)).Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		return s
	}
	iid, err := run(t, compare.RunOptions{Files: []string{wakeFile(t, dir, "sa.json", shuffle(a), false), wakeFile(t, dir, "sb.json", shuffle(b), false)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := iid.Pairs[0].Outcome; got == compare.NoDifference {
		t.Fatalf("shuffled, the i.i.d. methods found no difference: pick a seed that shows the problem")
	}
	if iid.Pairs[0].Test != "Mann-Whitney U" || iid.Runs[0].Serial == nil || iid.Runs[0].Serial.Dependent {
		t.Errorf("shuffled samples: test %q, serial %+v; want the i.i.d. test, not dependent", iid.Pairs[0].Test, iid.Runs[0].Serial)
	}
	p := r.Pairs[0]
	if p.Outcome != compare.NoDifference {
		t.Errorf("in order: %s, want no detectable difference (%s)", p.Outcome, p.Verdict)
	}
	if p.Test != stats.SerialMannWhitneyTest || p.MWU.P < 0.05 {
		t.Errorf("in order: test %q p %.3g; want the test for dependent samples, not significant", p.Test, p.MWU.P)
	}
	// The Kolmogorov-Smirnov test alike: the i.i.d. p-value of the
	// shuffled samples finds a difference, the one for dependent samples
	// none, and each says which it is.
	t.Logf("Kolmogorov-Smirnov: shuffled %+v, in order %+v", iid.Pairs[0].KS, p.KS)
	if k := iid.Pairs[0].KS; k.Test != stats.KSTest || k.P >= 0.05 {
		t.Errorf("shuffled: Kolmogorov-Smirnov %+v; want the i.i.d. test, p < 0.05", k)
	}
	if k := p.KS; k.Test != stats.SerialKSTest || k.D != iid.Pairs[0].KS.D || k.P < 0.05 || k.Replicates != stats.KSReplicates {
		t.Errorf("in order: Kolmogorov-Smirnov %+v; want the test for dependent samples, the same D, not significant", k)
	}
	for _, row := range p.Rows {
		if row.Diff != nil && !strings.Contains(row.Diff.Method, "moving-block bootstrap, blocks of ") {
			t.Errorf("%s interval by %q, want a moving-block bootstrap", row.Stat, row.Diff.Method)
		}
	}
	for _, run := range r.Runs {
		s := run.Serial
		if s == nil || !s.Dependent || s.Lag1 < 0.7 || s.EffectiveN > 250 || s.Block < 10 {
			t.Errorf("%s: serial %+v; want lag 1 near 0.8, about 110 effective of 1000, blocks", run.Label, s)
		}
		if !slices.ContainsFunc(r.Notes, func(n string) bool {
			return strings.HasPrefix(n, run.Label+": its 1000 samples are serially dependent") &&
				strings.HasSuffix(n, "and the Kolmogorov-Smirnov test a multiplier bootstrap over the same blocks")
		}) {
			t.Errorf("no note on %s's dependence: %q", run.Label, r.Notes)
		}
	}
}
