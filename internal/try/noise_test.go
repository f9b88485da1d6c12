package try

import (
	"encoding/json"
	"fmt"
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
		NoiseCPU: ptr(1), NoiseThresholdNs: 1000,
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
	if back.Probe != ProbeNoise || back.OneNoiseCPU() != 1 || back.Runs[2].Noise == nil || *back.Runs[2].Noise != *r.Runs[2].Noise {
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

// The probe's own refusals: a CPU twice, a bad threshold, no CPU.
// Several CPUs are taken.
func TestTryNoiseRefusals(t *testing.T) {
	for _, c := range []struct {
		p    Probe
		want string
	}{
		{Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond, CPUs: []int{1, 1}}}, "CPU 1 is listed twice"},
		{Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: 0, CPUs: []int{0}}}, "invalid --threshold"},
		{Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond}}, "no CPU to measure"},
	} {
		if err := validateProbe(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p.Noise, err, c.want)
		}
	}
	if err := validateProbe(Probe{Kind: ProbeNoise, Noise: probe.NoiseOptions{Threshold: time.Microsecond, CPUs: []int{0, 2, 3}}}); err != nil {
		t.Errorf("three CPUs: %v", err)
	}
	if got := sig3(1234.5) + " " + sig3(12.345) + " " + FormatRate(0.5); got != "1234 12.3 0.5/s" {
		t.Errorf("formatted %q", got)
	}
}

// noiseRunCPUs is a noise experiment over 8 rounds on CPUs 1, 2, ... (one
// per entry of fewer), with values+1 arms: in every block the baseline
// counts base interruptions in a second on each CPU, and value v fewer[v][c]
// fewer on CPU c (negative: more), with a drift over the run that moves
// every arm alike. One CPU gives the document of a one-CPU run.
func noiseRunCPUs(base int64, fewer ...[]int64) *Result {
	const rounds = 8
	nArms, nCPU := len(fewer)+1, len(fewer[0])
	r := &Result{Knob: "timer-migration", Probe: ProbeNoise, Quantity: Quantity(ProbeNoise), By: ByRate, Blocks: rounds, NoiseThresholdNs: 1000,
		Arms: []Arm{{Label: "current", Baseline: true}}, Order: Order(nArms, rounds, 5)}
	for v := range fewer {
		r.Arms = append(r.Arms, Arm{Label: fmt.Sprint(v), Value: fmt.Sprint(v)})
	}
	var cpus []int
	for c := range nCPU {
		cpus = append(cpus, c+1)
	}
	if nCPU == 1 {
		r.NoiseCPU = ptr(1)
	} else {
		r.NoiseCPUs = cpus
	}
	for i, a := range r.Order {
		b := Block{Index: i, Round: i / nArms, Arm: a, Complete: true}
		for c, cpu := range cpus {
			n := base + int64(i)
			if a > 0 {
				n -= fewer[a-1][c]
			}
			var noise int64
			for k := int64(0); k < n; k++ {
				l := 2000 + (k*7919)%3000
				b.Samples = append(b.Samples, l)
				noise += l
			}
			b.NoiseCPUs = append(b.NoiseCPUs, NoiseBlock{CPU: cpu, RuntimeNs: 1e9, Count: n, NoiseNs: noise, MaxNs: 4999, Kept: n,
				PerSecond: float64(n), AvailablePct: 100 * float64(1e9-noise) / 1e9})
		}
		b.Count = len(b.Samples)
		if nCPU == 1 {
			b.Noise, b.NoiseCPUs = &b.NoiseCPUs[0], nil
		}
		r.Runs = append(r.Runs, b)
	}
	return r
}

// Over several CPUs each (value, CPU) is a test of one family, Holm-
// adjusted together: 33 fewer of 1000 interruptions a second on one CPU
// is a verdict alone (the rounds all agree, the pooled p is below 0.05)
// and none among three CPUs, where the same p is tripled. A value gets a
// verdict per CPU and one line that sums them up.
func TestTryNoiseCPUsHolm(t *testing.T) {
	for _, c := range []struct {
		name   string
		fewer  [][]int64
		want   Outcome
		perCPU []Outcome
		text   string
	}{
		{"one CPU, marginal", [][]int64{{33}}, Better, nil, "0 is better than current: fewer interruptions ("},
		{"three CPUs, marginal on one", [][]int64{{33, 0, 0}}, NoDifference, []Outcome{NoDifference, NoDifference, NoDifference},
			"0 vs current: no difference in the rate of interruptions on any of 3 CPUs (Holm over 3 CPUs)"},
		{"three CPUs, clear on two", [][]int64{{300, 300, 0}}, Better, []Outcome{Better, Better, NoDifference},
			"0 is better than current: fewer interruptions on 2 of 3 CPUs (1, 2), more on none; no difference on CPU 3 (Holm over 3 CPUs)"},
		{"two CPUs, worse on one", [][]int64{{-300, 0}}, Worse, []Outcome{Worse, NoDifference},
			"0 is worse than current: more interruptions on CPU 1, fewer on none; no difference on CPU 2 (Holm over 2 CPUs)"},
		{"two CPUs, mixed", [][]int64{{300, -300}}, Mixed, []Outcome{Better, Worse},
			"0 vs current: mixed, fewer interruptions on CPU 1, more on CPU 2 (Holm over 2 CPUs)"},
		{"two values on two CPUs", [][]int64{{300, 0}, {0, 0}}, Better, []Outcome{Better, NoDifference},
			"0 is better than current: fewer interruptions on CPU 1, more on none; no difference on CPU 2 (Holm over 2 values x 2 CPUs)"},
	} {
		r := noiseRunCPUs(1000, c.fewer...)
		if err := Analyze(r, stats.Quantile(50), 1); err != nil {
			t.Fatal(err)
		}
		v := r.Arms[1].Verdict
		if v.Outcome != c.want || !strings.Contains(v.Text, c.text) {
			t.Errorf("%s: %s: %s", c.name, v.Outcome, v.Text)
		}
		if c.perCPU == nil {
			// The premise: the one-CPU p is marginal, below Alpha but
			// not below Alpha/3.
			if v.NoiseCPUs != nil || v.Rate == nil || v.RatePHolm >= Alpha || v.RatePHolm < Alpha/3 {
				t.Errorf("%s: rate p %v, per CPU %v", c.name, v.RatePHolm, v.NoiseCPUs)
			}
			continue
		}
		if len(v.NoiseCPUs) != len(c.perCPU) || v.Rate != nil || v.Blocks != nil || v.PHolm != nil {
			t.Fatalf("%s: %d CPU verdicts, rate %v, blocks %v, Mann-Whitney %v", c.name, len(v.NoiseCPUs), v.Rate, v.Blocks, v.PHolm)
		}
		for i, cv := range v.NoiseCPUs {
			if cv.CPU != i+1 || cv.Outcome != c.perCPU[i] || !strings.HasPrefix(cv.Text, fmt.Sprintf("CPU %d: 0 ", i+1)) {
				t.Errorf("%s: CPU %d: %s: %s", c.name, cv.CPU, cv.Outcome, cv.Text)
			}
		}
		if c.name == "three CPUs, marginal on one" {
			// The same raw p as alone, adjusted over the three: no longer
			// below Alpha, and the text says so.
			cv := v.NoiseCPUs[0]
			if cv.Rate.P >= Alpha || cv.Rate.P < Alpha/3 || cv.RatePHolm < Alpha || !strings.Contains(cv.Text, "(Holm)") {
				t.Errorf("marginal CPU: p %v, Holm %v: %s", cv.Rate.P, cv.RatePHolm, cv.Text)
			}
		}
		if r.Arms[0].Noise != nil || len(r.Arms[0].NoiseCPUs) != len(c.perCPU) || r.Arms[0].NoiseCPUs[1].CPU != 2 || r.Arms[0].Complete != 8 {
			t.Errorf("%s: baseline %+v", c.name, r.Arms[0])
		}
	}
}

// --keep best picks among the better values by their gain: a rate
// verdict has no difference in ns, only the change of its rate (two
// better values once dereferenced the missing difference).
func TestTryKeepBestByRate(t *testing.T) {
	r := noiseRunCPUs(1000, []int64{200}, []int64{400}, []int64{0})
	if err := Analyze(r, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	if r.Arms[1].Verdict.Outcome != Better || r.Arms[2].Verdict.Outcome != Better || r.Arms[3].Verdict.Outcome == Better {
		t.Fatalf("outcomes %s, %s, %s", r.Arms[1].Verdict.Outcome, r.Arms[2].Verdict.Outcome, r.Arms[3].Verdict.Outcome)
	}
	if got := bestArm(r); got != 2 {
		t.Errorf("best arm %d, want 2 (400 fewer interruptions a second, not 200)", got)
	}
	// Over several CPUs the gain is the rate's change over all of them.
	r = noiseRunCPUs(1000, []int64{400, 0}, []int64{300, 300})
	if err := Analyze(r, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	if got := bestArm(r); got != 2 {
		t.Errorf("best arm %d, want 2 (600 fewer over the two CPUs, not 400): %s; %s", got, r.Arms[1].Verdict.Text, r.Arms[2].Verdict.Text)
	}
}

// A run over several CPUs survives JSON: each block's, arm's and
// verdict's records per CPU read back and give the same verdicts; a
// block that does not count on the run's CPUs is refused.
func TestTryNoiseCPUsJSON(t *testing.T) {
	r := noiseRunCPUs(1000, []int64{300, 0})
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
	v := back.Arms[1].Verdict
	if len(back.NoiseCPUs) != 2 || back.Runs[3].Noise != nil || len(back.Runs[3].NoiseCPUs) != 2 || len(back.Arms[0].NoiseCPUs) != 2 ||
		len(v.NoiseCPUs) != 2 || v.NoiseCPUs[1].CPU != 2 {
		t.Fatalf("read back %s", b)
	}
	for _, k := range []string{`"noise_cpus":[1,2]`, `"block_test"`, `"rate_p_holm"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("the document lacks %s", k)
		}
	}
	texts := []string{v.Text, v.NoiseCPUs[0].Text, v.NoiseCPUs[1].Text}
	if err := Analyze(&back, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	if v := back.Arms[1].Verdict; v.Text != texts[0] || v.NoiseCPUs[0].Text != texts[1] || v.NoiseCPUs[1].Text != texts[2] {
		t.Errorf("after the round trip %q, before %q", v.Text, texts[0])
	}
	back.Runs[3].NoiseCPUs[1].CPU = 7
	if err := Analyze(&back, stats.Quantile(50), 1); err == nil || !strings.Contains(err.Error(), "counts on CPU 7 where the run measures CPU 2") {
		t.Errorf("a block of another CPU: %v", err)
	}
	back.Runs[3].NoiseCPUs = back.Runs[3].NoiseCPUs[:1]
	if err := Analyze(&back, stats.Quantile(50), 1); err == nil || !strings.Contains(err.Error(), "has the counts of 1 CPU(s): the run measures CPUs 1, 2") {
		t.Errorf("a block of one CPU: %v", err)
	}
}
