package try

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
)

// noiseRun is a noise experiment over rounds rounds in which each block
// of the baseline counts base interruptions in a second of runtime and
// each of the value's value, each a few µs long, with a drift over the
// run that moves both arms alike.
func noiseRun(rounds int, base, value int64) *Result {
	r := &Result{Knob: "timer-migration", Probe: ProbeNoise, Quantity: Quantity(ProbeNoise), By: ByRate, Blocks: rounds,
		NoiseCPU: 1, NoiseThresholdNs: 1000,
		Arms: []Arm{{Label: "current", Baseline: true}, {Label: "0", Value: "0"}}, Order: Order(2, rounds, 5)}
	for i, a := range r.Order {
		n := base + int64(i)
		if a == 1 {
			n = value + int64(i)
		}
		b := Block{Index: i, Round: i / 2, Arm: a, Complete: true}
		var noise int64
		for k := int64(0); k < n; k++ {
			l := 2000 + (k*7919)%3000
			b.Samples = append(b.Samples, l)
			noise += l
		}
		b.Count = len(b.Samples)
		b.Noise = &NoiseBlock{CPU: 1, RuntimeNs: 1e9, Count: n, NoiseNs: noise, MaxNs: 4999, Kept: n,
			PerSecond: float64(n), AvailablePct: 100 * float64(1e9-noise) / 1e9}
		r.Runs = append(r.Runs, b)
	}
	return r
}

// The rate verdict needs the pooled counts (exact Poisson test) and the
// rounds to agree, and quotes the rates and the share available it rests
// on.
func TestTryNoiseRateVerdict(t *testing.T) {
	for _, c := range []struct {
		name        string
		rounds      int
		base, value int64
		want        Outcome
		text        []string
	}{
		{"fewer", 8, 1000, 600, Better, []string{"0 is better than current: fewer interruptions (", "interruptions/s", "% available", "exact Poisson test", "blocks: rate lower in 8 of 8 rounds"}},
		{"more", 8, 600, 1000, Worse, []string{"0 is worse than current: more interruptions", "blocks: rate higher in 8 of 8 rounds"}},
		{"same", 8, 1000, 1000, NoDifference, []string{"0 vs current: no difference in the rate of interruptions"}},
		// Five rounds cannot reach p < 0.05 whatever the counts say.
		{"too few", 5, 1000, 600, TooFew, []string{"no verdict, too few complete rounds (5)", "fewer than 6"}},
	} {
		r := noiseRun(c.rounds, c.base, c.value)
		if err := Analyze(r, stats.Quantile(50), 1); err != nil {
			t.Fatal(err)
		}
		v := r.Arms[1].Verdict
		if v.Outcome != c.want || v.By != ByRate || v.Rate == nil {
			t.Errorf("%s: %s by %s: %s", c.name, v.Outcome, v.By, v.Text)
			continue
		}
		for _, s := range c.text {
			if !strings.Contains(v.Text, s) {
				t.Errorf("%s: %q lacks %q", c.name, v.Text, s)
			}
		}
		// The lengths are alike in every case: Mann-Whitney, reported
		// beside, compares them, and the rate test has a p of its own.
		if v.PHolm == nil {
			t.Errorf("%s: no Mann-Whitney p of the lengths", c.name)
		} else if (v.RatePHolm < Alpha) != (c.base != c.value) || *v.PHolm < Alpha {
			t.Errorf("%s: rate p %v, lengths' Mann-Whitney p %v", c.name, v.RatePHolm, *v.PHolm)
		}
		if r.Arms[0].Complete != c.rounds || r.Arms[0].Noise == nil || r.Arms[0].Summary == nil {
			t.Errorf("%s: baseline %+v", c.name, r.Arms[0])
		}
	}
}

// The pooled rate is the counts over the runtimes of the complete
// blocks only; an interrupted block is left out.
func TestTryNoisePooled(t *testing.T) {
	r := noiseRun(8, 1000, 600)
	r.Runs[0].Complete = false
	if err := Analyze(r, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	a := r.Runs[0].Arm
	var n, rt int64
	for _, b := range r.Runs[1:] {
		if b.Arm == a {
			n, rt = n+b.Noise.Count, rt+b.Noise.RuntimeNs
		}
	}
	p := r.Arms[a].Noise
	if p.Count != n || p.RuntimeNs != rt || p.PerSecond != float64(n)*1e9/float64(rt) || r.Arms[a].Complete != 7 {
		t.Errorf("pooled %+v, want %d in %d ns over 7 blocks", p, n, rt)
	}
}

// A block that counts more interruptions than nanoseconds of runtime is
// no measurement (a document edited or corrupt): refused, not judged.
func TestTryNoiseImpossibleBlock(t *testing.T) {
	r := noiseRun(8, 1000, 600)
	r.Runs[3].Noise.Count = 2e9
	if err := Analyze(r, stats.Quantile(50), 1); err == nil || !strings.Contains(err.Error(), "at most the runtime") {
		t.Errorf("err %v", err)
	}
	r = noiseRun(8, 1000, 600)
	r.Runs[3].Noise.RuntimeNs = 0
	if err := Analyze(r, stats.Quantile(50), 1); err == nil {
		t.Error("a block of no runtime was judged")
	}
}

// --by p99 judges the interruptions' lengths, as the other probes'
// samples are judged, with their minimum-sample rules.
func TestTryNoiseByLength(t *testing.T) {
	r := noiseRun(8, 1000, 600)
	r.By = "p99"
	if err := Analyze(r, stats.Quantile(99), 1); err != nil {
		t.Fatal(err)
	}
	v := r.Arms[1].Verdict
	if v.Rate != nil || v.By != "p99" || v.Diff == nil || v.Outcome != NoDifference {
		t.Errorf("%s: %s", v.Outcome, v.Text)
	}
	// 30 interruptions a block: a block's p99 is its maximum.
	r = noiseRun(8, 30, 30)
	r.By = "p99"
	if err := Analyze(r, stats.Quantile(99), 1); err != nil {
		t.Fatal(err)
	}
	if v := r.Arms[1].Verdict; v.Outcome != TooFew {
		t.Errorf("%s: %s", v.Outcome, v.Text)
	}
}

// The result survives JSON: read back, the blocks' counts give the same
// verdict.
func TestTryNoiseJSONRoundTrip(t *testing.T) {
	r := noiseRun(8, 1000, 600)
	if err := Analyze(r, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Probe != ProbeNoise || back.NoiseCPU != 1 || back.Runs[2].Noise == nil || *back.Runs[2].Noise != *r.Runs[2].Noise {
		t.Fatalf("read back %+v", back.Runs[2])
	}
	text := back.Arms[1].Verdict.Text
	if err := Analyze(&back, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	if back.Arms[1].Verdict.Text != text || !strings.Contains(string(b), `"probe":"noise"`) || !strings.Contains(string(b), `"interruptions_per_s"`) {
		t.Errorf("verdict after the round trip %q, before %q", back.Arms[1].Verdict.Text, text)
	}
}

// The probe's own refusals: several CPUs, a bad threshold, --by rate
// for another probe.
func TestTryNoiseRefusals(t *testing.T) {
	for _, c := range []struct {
		p    Probe
		want string
	}{
		{Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond, CPUs: []int{0, 1}}}, "measures one CPU"},
		{Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: 0, CPUs: []int{0}}}, "invalid --threshold"},
		{Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond}}, "no CPU to measure"},
	} {
		if err := validateProbe(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p.Noise, err, c.want)
		}
	}
	if got := sig3(1234.5) + " " + sig3(12.345) + " " + FormatRate(0.5); got != "1234 12.3 0.5/s" {
		t.Errorf("formatted %q", got)
	}
}
