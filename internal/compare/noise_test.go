package compare_test

import (
	"bytes"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// noiseCPU is one CPU of a noise document with every length kept.
func noiseCPU(cpu int, runtimeNs int64, lengths []int64) probe.NoiseCPU {
	var total, longest int64
	for _, l := range lengths {
		total += l
		longest = max(longest, l)
	}
	return probe.NoiseCPU{ThreadSetup: probe.ThreadSetup{CPU: cpu}, RuntimeNs: runtimeNs, NoiseNs: total,
		AvailablePct: 100 * float64(runtimeNs-total) / float64(runtimeNs), Count: int64(len(lengths)),
		PerSecond: float64(len(lengths)) * 1e9 / float64(runtimeNs), MaxNs: longest, Summary: stats.Summarize(lengths),
		Kept: int64(len(lengths)), LengthsNs: lengths}
}

func noiseDoc(thresholdNs int64, cpus ...probe.NoiseCPU) *result.Document {
	return probe.KindNoise.New(host.Facts{}, &probe.NoiseData{
		Measurement: probe.NoiseMeasurement{Method: probe.NoiseMethod, ThresholdNs: thresholdNs, DurationNs: 10e9, PercentileNote: result.PercentileDefinition},
		CPUs:        cpus})
}

func ramp(n int, start, step int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = start + int64(i)*step
	}
	return out
}

func compareNoise(t *testing.T, docs ...*result.Document) *compare.Result {
	t.Helper()
	var in []compare.Input
	for i, d := range docs {
		in = append(in, compare.Input{Label: string(rune('a'+i)) + ".json", Doc: d})
	}
	r, err := compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Each CPU is compared by its rate of interruptions, exactly, and by the
// lengths of its interruptions, with the minimum-sample rule.
func TestCompareNoise(t *testing.T) {
	a := noiseDoc(1000, noiseCPU(1, 10e9, ramp(1180, 1500, 10)), noiseCPU(2, 10e9, ramp(400, 2000, 10)), noiseCPU(3, 10e9, nil))
	b := noiseDoc(1000, noiseCPU(1, 10e9, ramp(120, 1500, 100)), noiseCPU(2, 10e9, ramp(400, 6000, 10)), noiseCPU(3, 10e9, nil))
	r := compareNoise(t, a, b)
	if len(r.Noise) != 3 || r.Level != 1-0.05/3 || r.NoiseThresholdNs != 1000 {
		t.Fatalf("%d CPUs at %v, threshold %d", len(r.Noise), r.Level, r.NoiseThresholdNs)
	}
	one := r.Noise[0].Pairs[0]
	// The rate test is stats.PoissonRates on the counts over the
	// runtimes, in seconds, at the family's level.
	want, _ := stats.PoissonRates(1180, 10, 120, 10, r.Level)
	if one.Rate != want || one.RateOutcome != compare.Fewer || one.Lengths == nil || one.Lengths.Outcome != compare.NoDifference {
		t.Errorf("CPU 1: %+v, lengths %+v", one, one.Lengths)
	}
	if !strings.HasPrefix(one.Verdict, "CPU 1: b.json has fewer interruptions (12.0/s vs 118/s, rate ratio 0.102 [") ||
		!strings.Contains(one.Verdict, "their lengths do not differ detectably at p50") {
		t.Errorf("CPU 1: %q", one.Verdict)
	}
	two := r.Noise[1].Pairs[0]
	if two.RateOutcome != string(compare.NoDifference) || two.Rate.P != 1 || two.Lengths.Outcome != compare.Slower ||
		!strings.Contains(two.Verdict, "no detectable difference in the rate of interruptions") || !strings.Contains(two.Verdict, "they are longer at p50 by 4.00 µs") {
		t.Errorf("CPU 2: %q", two.Verdict)
	}
	three := r.Noise[2].Pairs[0]
	if three.Verdict != "CPU 3: neither b.json nor a.json was interrupted" || three.Lengths != nil || !math.IsNaN(float64(three.Rate.Ratio)) {
		t.Errorf("CPU 3: %+v", three)
	}
}

// Too few interruptions give no verdict on their lengths (the rule of
// stats.MinSamples), a run without any has none to compare, and a
// document from before lengths were kept is compared by rate alone.
func TestCompareNoiseFewLengths(t *testing.T) {
	a := noiseDoc(1000, noiseCPU(0, 10e9, ramp(50, 1500, 10)), noiseCPU(1, 10e9, ramp(30, 1500, 10)))
	b := noiseDoc(1000, noiseCPU(0, 10e9, ramp(50, 1500, 10)), noiseCPU(1, 10e9, nil))
	r, err := compare.Compare([]compare.Input{{Label: "a.json", Doc: a}, {Label: "b.json", Doc: b}}, compare.Options{By: stats.Quantile(99), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Noise[0].Pairs[0]; p.Lengths.Outcome != compare.TooFew || !strings.Contains(p.Verdict, "no verdict on their lengths at p99: too few interruptions (50 and 50; p99 at 97.5% needs 437 per run)") {
		t.Errorf("CPU 0: %q", p.Verdict)
	}
	if p := r.Noise[1].Pairs[0]; p.Lengths != nil || p.RateOutcome != compare.Fewer || !strings.Contains(p.Verdict, "their lengths are not compared: b.json had no interruption; 100.000% vs 99.999% of the CPU available") {
		t.Errorf("CPU 1: %q", p.Verdict)
	}
	old := noiseDoc(1000, noiseCPU(0, 10e9, ramp(50, 1500, 10)), noiseCPU(1, 10e9, ramp(30, 1500, 10)))
	for i := range old.Data.(*probe.NoiseData).CPUs {
		old.Data.(*probe.NoiseData).CPUs[i].LengthsNs = nil
	}
	r = compareNoise(t, old, a)
	if p := r.Noise[0].Pairs[0]; p.Lengths != nil || !strings.Contains(p.Verdict, "their lengths are not compared: a.json stores no lengths;") ||
		!strings.Contains(strings.Join(r.Notes, "\n"), "a.json stores no lengths of its interruptions") {
		t.Errorf("old document: %q, notes %q", p.Verdict, r.Notes)
	}
}

// Noise results measured differently are refused, naming what differs
// and what is accepted, as bad input of one line.
func TestCompareNoiseRefused(t *testing.T) {
	dir := testutil.TempDir(t)
	write := func(name string, d *result.Document) string {
		f := filepath.Join(dir, name)
		if err := result.WriteFile(f, d); err != nil {
			t.Fatal(err)
		}
		return f
	}
	cpu := func(n int) probe.NoiseCPU { return noiseCPU(n, 10e9, ramp(30, 1500, 10)) }
	a := write("a.json", noiseDoc(1000, cpu(0), cpu(1)))
	thr := write("thr.json", noiseDoc(5000, cpu(0), cpu(1)))
	other := write("other.json", noiseDoc(1000, cpu(0), cpu(2)))
	twice := write("twice.json", noiseDoc(1000, cpu(1), cpu(1)))
	reordered := write("reordered.json", noiseDoc(1000, cpu(1), cpu(0)))
	hostile := func(name string, f func(*probe.NoiseCPU)) string {
		c := cpu(1)
		f(&c)
		return write(name, noiseDoc(1000, cpu(0), c))
	}
	tooMany := hostile("toomany.json", func(c *probe.NoiseCPU) { c.Count, c.Kept, c.LengthsNs = math.MaxInt64, 0, nil })
	tooLong := hostile("toolong.json", func(c *probe.NoiseCPU) { c.RuntimeNs = math.MaxInt64 })
	noRuntime := hostile("noruntime.json", func(c *probe.NoiseCPU) { c.RuntimeNs = 0 })
	moreKept := hostile("morekept.json", func(c *probe.NoiseCPU) { c.Kept = c.Count + 1 })
	negative := hostile("negative.json", func(c *probe.NoiseCPU) { c.LengthsNs[3] = -1 })
	for _, c := range []struct {
		name string
		o    compare.RunOptions
		want string
	}{
		{"threshold", compare.RunOptions{Files: []string{a, thr}}, "a.json counted interruptions of at least 1µs and thr.json of at least 5µs: compare runs with the same --threshold"},
		{"CPUs", compare.RunOptions{Files: []string{a, other}}, "a.json measured CPUs 0,1 and other.json CPUs 0,2: compare runs of the same --cpus"},
		{"a CPU twice", compare.RunOptions{Files: []string{a, twice}}, "twice.json lists CPU 1 twice"},
		{"groups", compare.RunOptions{Files: []string{a + "," + a, a}}, "noise results are compared one file per side"},
		{"expect-better", compare.RunOptions{Files: []string{a, reordered}, ExpectBetter: "reordered.json"}, "--expect-better takes results of one distribution"},
		{"kinds", compare.RunOptions{Files: []string{a, td("a.json")}}, "compare results of the same kind"},
		{"more interruptions than ns", compare.RunOptions{Files: []string{a, tooMany}}, "a count is at least 0 and at most the runtime in ns"},
		{"a runtime of centuries", compare.RunOptions{Files: []string{a, tooLong}}, "a noise run's runtime is above 0 and at most 48 hours"},
		{"no runtime", compare.RunOptions{Files: []string{a, noRuntime}}, "a noise run's runtime is above 0"},
		{"more kept than counted", compare.RunOptions{Files: []string{a, moreKept}}, "kept at most the count"},
		{"a negative length", compare.RunOptions{Files: []string{a, negative}}, "lengths_ns[3] is -1: the length of an interruption is never negative"},
	} {
		_, err := run(t, c.o)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want bad input saying %q", c.name, err, c.want)
		}
	}
	// The order a document lists its CPUs in does not matter.
	if r, err := run(t, compare.RunOptions{Files: []string{a, reordered}}); err != nil || r.Noise[0].CPU != 0 || len(r.Noise[0].Runs) != 2 {
		t.Errorf("reordered: %v", err)
	}
}

// The compare document of noise results reads back as it was written.
func TestCompareNoiseJSONRoundTrip(t *testing.T) {
	a := noiseDoc(1000, noiseCPU(1, 10e9, ramp(1180, 1500, 10)), noiseCPU(2, 10e9, nil))
	b := noiseDoc(1000, noiseCPU(1, 9e9, ramp(120, 1500, 100)), noiseCPU(2, 10e9, ramp(3, 1500, 100)))
	r := compareNoise(t, a, b)
	var buf bytes.Buffer
	if err := result.Write(&buf, compare.Kind.New(host.Facts{}, r)); err != nil {
		t.Fatal(err)
	}
	doc, err := result.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := compare.Kind.Of(doc)
	if !ok {
		t.Fatalf("read back a %s", doc.Kind)
	}
	for i, c := range r.Noise {
		g := got.Noise[i]
		if g.CPU != c.CPU || len(g.Pairs) != len(c.Pairs) || len(g.Runs) != len(c.Runs) {
			t.Fatalf("CPU %d read back as %+v", c.CPU, g)
		}
		for j, p := range c.Pairs {
			gp := g.Pairs[j]
			if gp.Verdict != p.Verdict || gp.RateOutcome != p.RateOutcome || gp.RatePHolm != p.RatePHolm || !sameRate(gp.Rate, p.Rate) ||
				(gp.Lengths == nil) != (p.Lengths == nil) || (p.Lengths != nil && (!reflect.DeepEqual(gp.Lengths.Rows, p.Lengths.Rows) || gp.Lengths.Outcome != p.Lengths.Outcome)) {
				t.Errorf("CPU %d pair %d read back as %+v, wrote %+v", c.CPU, j, gp, p)
			}
		}
		for j, run := range c.Runs {
			gr := g.Runs[j]
			if gr.Count != run.Count || gr.RuntimeNs != run.RuntimeNs || gr.AvailablePct != run.AvailablePct || !reflect.DeepEqual(gr.Lengths, run.Lengths) {
				t.Errorf("CPU %d run %d read back as %+v, wrote %+v", c.CPU, j, gr, run)
			}
		}
	}
	if got.NoiseThresholdNs != 1000 || got.Kind != "noise" {
		t.Errorf("read back %q threshold %d", got.Kind, got.NoiseThresholdNs)
	}
}

// sameRate compares two rate tests, their not-a-number ratios equal.
func sameRate(a, b stats.RateTest) bool {
	if math.IsNaN(float64(a.Ratio)) && math.IsNaN(float64(b.Ratio)) {
		a.Ratio, b.Ratio = 0, 0
	}
	return a == b
}

// Whatever a noise document holds, comparing it is an answer or bad
// input, never a panic.
func FuzzCompareNoise(f *testing.F) {
	a := noiseDoc(1000, noiseCPU(0, 10e9, ramp(40, 1500, 10)), noiseCPU(1, 10e9, nil))
	for _, d := range []*result.Document{
		noiseDoc(1000, noiseCPU(0, 9e9, ramp(30, 1500, 100)), noiseCPU(1, 10e9, []int64{2000})),
		noiseDoc(1000, noiseCPU(1, 1, nil), noiseCPU(0, 1, []int64{1})),
	} {
		var b bytes.Buffer
		if err := result.Write(&b, d); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := result.Read(bytes.NewReader(data))
		if err != nil || d.Kind != probe.KindNoise.Name() {
			return
		}
		_, err = compare.Compare([]compare.Input{{Label: "a.json", Doc: a}, {Label: "b.json", Doc: d}}, compare.Options{By: stats.Quantile(50), Seed: 1, Replicates: 50})
		if err != nil && !badinput.Is(err) {
			t.Errorf("not bad input: %v", err)
		}
	})
}
