package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/sweep"
)

// Requests granted the same value are printed as one row (one treatment),
// and the table fits 80 columns.
func TestPrintSweepTreatments(t *testing.T) {
	res := &sweep.Result{What: "timer resolution", Method: "sleep", DurationNs: 1e6, Repeat: 1, Order: "random", Mode: sweep.InProcess, Seed: 1}
	for i := 0; i < 11; i++ {
		req := int64(500_000 + 200*i)
		g, base := int64(496_000), int64(480_000)
		if req >= 501_400 {
			g, base = 501_300, 20_000
		}
		s := sweep.Step{RequestedNs: req, GrantedNs: g, CurrentNs: g, Reference: i == 0}
		for j := int64(0); j < 30; j++ {
			s.Samples = append(s.Samples, base+(j*7919)%5000)
		}
		res.Steps = append(res.Steps, s)
	}
	sweep.Analyze(res, stats.Mean, 1)
	var b bytes.Buffer
	Sweep(&b, res)
	out := b.String()
	// The verdict first, under the head.
	if !strings.HasPrefix(out, "latlab sweep: ") || !strings.HasPrefix(afterHead(out), "verdict: best granted 0.5013ms") {
		t.Errorf("the verdict is not under the head:\n%s", out)
	}
	for _, want := range []string{"0.5014-0.502ms (4)", "0.5-0.5012ms (7)", "11 requests, 2 granted values", "best granted 0.5013ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "0.496ms"); n < 1 || strings.Count(out, "\n 2 ") != 1 {
		t.Errorf("the reference treatment is not one row:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, " ") && utf8.RuneCountInString(strings.TrimRight(l, " ")) > 80 {
			t.Errorf("table line wider than 80 columns: %q", l)
		}
	}
}

// A treatment with too few samples for an interval shows its value with
// [-] and a line says what it needs, as compare does; with enough, the
// interval and no such line.
func TestPrintSweepNoIntervalFromFewSamples(t *testing.T) {
	for _, c := range []struct {
		rankBy stats.Statistic
		n      int64
		want   []string
		not    []string
	}{
		// Fewer than 100 samples: the p99 column would be the maximum,
		// and is headed max.
		{stats.Mean, 5, []string{" [-] ", "[-]: no interval, too few samples for mean (needs 20 per treatment", "     max"}, []string{"µs, ", "p99"}},
		{stats.Quantile(99), 30, []string{" [-] ", "too few samples for p99 (needs 368 per treatment", "     p50"}, nil},
		{stats.Mean, 30, []string{"µs, ", "     max"}, []string{"[-]", "p99"}},
		{stats.Mean, 100, []string{"µs, ", "     p99"}, []string{"[-]", "max"}},
	} {
		res := &sweep.Result{What: "timer slack", Method: "nanosleep", DurationNs: 1e6, Repeat: 1, Order: "random", Mode: sweep.InProcess, Seed: 1}
		for i := int64(0); i < 2; i++ {
			s := sweep.Step{RequestedNs: 1000 + 49_000*i, GrantedNs: 1000 + 49_000*i, Reference: i == 1}
			for j := int64(0); j < c.n; j++ {
				s.Samples = append(s.Samples, 20_000+50_000*i+(j*7919)%5000)
			}
			res.Steps = append(res.Steps, s)
		}
		sweep.Analyze(res, c.rankBy, 1)
		var b bytes.Buffer
		Sweep(&b, res)
		out := b.String()
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s of %d: output lacks %q:\n%s", c.rankBy, c.n, w, out)
			}
		}
		for _, w := range c.not {
			if strings.Contains(out, w) {
				t.Errorf("%s of %d: output has %q:\n%s", c.rankBy, c.n, w, out)
			}
		}
	}
}

// An interrupted sweep writes its granted values as the ranked table
// does (0.1ms, not 100µs beside a requested 0.1ms).
func TestSweepInterruptedUnits(t *testing.T) {
	r := &sweep.Result{Interrupted: true, Planned: 3, Steps: []sweep.Step{
		{RequestedNs: 100_000, GrantedNs: 100_000, Samples: []int64{20_000, 30_000}},
		{RequestedNs: 1000, GrantedNs: 1000, Samples: []int64{20_000}},
	}}
	var b bytes.Buffer
	SweepInterrupted(&b, r)
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(f[0], "0.1") && f[1] != "0.1ms" {
			t.Errorf("granted %q beside requested %q:\n%s", f[1], f[0], b.String())
		}
	}
	if !strings.Contains(b.String(), "0.1ms") {
		t.Errorf("no row of 0.1ms:\n%s", b.String())
	}
}

// When the default's or the best treatment's samples are serially
// dependent, the text says how much (lag-1 autocorrelation, effective
// samples) for both and which methods the verdict used, after the table;
// a sweep of independent samples says nothing of it. Every line fits 80
// columns, the verdict's included.
func TestPrintSweepSerial(t *testing.T) {
	mk := func() *sweep.Result {
		res := &sweep.Result{What: "timer slack", Method: "nanosleep", DurationNs: 1e6, Repeat: 2, Order: "random", Mode: sweep.InProcess, Seed: 1, Reference: 2}
		for i := int64(0); i < 3; i++ {
			s := sweep.Step{RequestedNs: 1000 + 49_000*i, GrantedNs: 1000 + 49_000*i, Reference: i == 2}
			for j := int64(0); j < 60; j++ {
				s.Samples = append(s.Samples, 20_000+30_000*i+(j*7919)%5000)
			}
			res.Steps = append(res.Steps, s)
		}
		sweep.Analyze(res, stats.Mean, 1)
		return res
	}
	plain := mk()
	var b bytes.Buffer
	Sweep(&b, plain)
	if strings.Contains(b.String(), "lag-1") || strings.Contains(b.String(), "dependent") {
		t.Errorf("independent samples said to be dependent:\n%s", b.String())
	}
	// What Analyze gives for dependent treatments (sweep's tests check
	// that it does).
	dep := mk()
	dep.Treatments[dep.ReferenceTreatment].Serial = &stats.Serial{Lag1: 0.62, EffectiveN: 14.4, Dependent: true, Block: 6}
	dep.Treatments[dep.BestTreatment].Serial = &stats.Serial{Lag1: 0.05, EffectiveN: 57}
	dep.Verdict.Test = stats.SerialMannWhitneyTest
	dep.Verdict.Diff.Method = "A: moving-block bootstrap, blocks of 6 samples, 3000 replicates; B: percentile bootstrap, 3000 replicates"
	if strings.Contains(b.String(), "*") {
		t.Errorf("an i.i.d. interval is marked as a block one:\n%s", b.String())
	}
	ci := *dep.Treatments[dep.ReferenceTreatment].Summary.CI
	ci.Method = "moving-block bootstrap, blocks of 6 samples, 2000 replicates"
	dep.Treatments[dep.ReferenceTreatment].Summary.CI = &ci
	b.Reset()
	Sweep(&b, dep)
	out := b.String()
	// The default's row, whose interval resampled blocks, is marked and
	// the mark explained under the table; the other rows are not.
	if strings.Count(out, "]*") != 1 || !strings.Contains(out, "*: serially dependent samples") {
		t.Errorf("the block interval is not marked once and explained:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "]*") && !strings.HasSuffix(strings.TrimSpace(l), "default") {
			t.Errorf("the mark is not on the default's row: %q", l)
		}
	}
	for _, want := range []string{
		"lag-1 autocorrelation, effective samples: default 0.62, 14; best 0.05, 57",
		"best vs default: interval by A: moving-block bootstrap, blocks of 6 samples,",
		"Mann-Whitney for dependent samples",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Ranked by stdev the rank test compares deviations from the median
	// in measurement order, named so; a sweep written before it did
	// counted them as independent, and is said to have.
	dep.Verdict.Test = stats.SerialSpreadTest
	b.Reset()
	Sweep(&b, dep)
	if !strings.Contains(b.String(), "Mann-Whitney for dependent samples on deviations from the median") || strings.Contains(b.String(), "as if") {
		t.Errorf("the stdev test is not said to be the one for dependent samples:\n%s", b.String())
	}
	dep.Verdict.Test = stats.SpreadTest
	b.Reset()
	Sweep(&b, dep)
	if !strings.Contains(b.String(), "Mann-Whitney on deviations from the median (as if independent)") {
		t.Errorf("an older sweep's stdev test is not said to be the i.i.d. one:\n%s", b.String())
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
	if !strings.HasPrefix(afterHead(out), "verdict: best ") {
		t.Errorf("the verdict is not under the head:\n%s", out)
	}
}

// afterHead is the first line of out after its head, whose wrapped lines
// are indented.
func afterHead(out string) string {
	l := strings.Split(out, "\n")
	for _, x := range l[1:] {
		if !strings.HasPrefix(x, " ") {
			return x
		}
	}
	return ""
}
