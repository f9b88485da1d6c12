package report

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// noiseRun is one CPU of a fixed noise document: its lengths (all kept),
// runtime and noise follow from them.
func noiseRun(cpu int, runtimeNs int64, lengths []int64) probe.NoiseCPU {
	var total, longest int64
	for _, l := range lengths {
		total += l
		longest = max(longest, l)
	}
	h, err := result.EncodeHistogram(stats.HistogramOf(lengths))
	if err != nil {
		panic(err)
	}
	return probe.NoiseCPU{ThreadSetup: probe.ThreadSetup{CPU: cpu, Priority: "normal"}, RuntimeNs: runtimeNs, NoiseNs: total,
		AvailablePct: 100 * float64(runtimeNs-total) / float64(runtimeNs), Count: int64(len(lengths)),
		PerSecond: float64(len(lengths)) * 1e9 / float64(runtimeNs), MaxNs: longest, Summary: stats.Summarize(lengths),
		Kept: int64(len(lengths)), ClockReads: 400_000_000, ClockStepMinNs: 20, Histogram: h, LengthsNs: lengths}
}

func noiseDoc(cpus ...probe.NoiseCPU) *result.Document {
	return probe.KindNoise.New(host.Facts{}, &probe.NoiseData{
		Measurement: probe.NoiseMeasurement{Method: probe.NoiseMethod, ClockSource: "CLOCK_MONOTONIC (vDSO)", ThresholdNs: 1000,
			DurationNs: 10e9, ElapsedNs: 10_000_100_000, PercentileNote: result.PercentileDefinition},
		CPUs: cpus})
}

// ramp is n lengths from start in steps of step.
func ramp(n int, start, step int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = start + int64(i)*step
	}
	return out
}

// Before: CPU 0 shares its time with a busy process (1180 interruptions
// in 10 s), CPU 1 is quiet (5). After: CPU 0's interruptions are ten
// times fewer and no longer, CPU 1 unchanged.
func fixedNoisePair() []compare.Input {
	before := noiseDoc(noiseRun(0, 10_000_000_000, ramp(1180, 1500, 10)), noiseRun(1, 10_000_000_000, []int64{1200, 1300, 1250, 2100, 4800}))
	after := noiseDoc(noiseRun(0, 9_990_000_000, ramp(120, 1500, 100)), noiseRun(1, 10_000_000_000, []int64{1100, 1400, 1250, 1900, 2000, 3000, 1500}))
	return []compare.Input{{Label: "before.json", Doc: before}, {Label: "after.json", Doc: after}}
}

// The comparison of two noise results: a verdict per CPU first, then each
// CPU's evidence, within 80 columns.
func TestCompareNoiseGolden(t *testing.T) {
	r, err := compare.Compare(fixedNoisePair(), compare.Options{By: stats.Quantile(50), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	CompareText(&b, r)
	goldie.New(t).Assert(t, "compare-noise", b.Bytes())
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}

// The HTML report shows a noise comparison's verdicts and a table per
// CPU, not an empty ranking.
func TestCompareNoiseInHTMLReport(t *testing.T) {
	r, err := compare.Compare(fixedNoisePair(), compare.Options{By: stats.Quantile(50), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := BuildReport([]ReportInput{{Label: "cmp.json", Doc: compare.Kind.New(host.Facts{}, r)}}, "r")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	esc := func(s string) string { return strings.ReplaceAll(html.EscapeString(s), "+", "&#43;") } // as html/template writes it
	for _, want := range []string{esc(r.Noise[0].Pairs[0].Verdict), esc(r.Noise[1].Pairs[0].Verdict),
		"CPU 0: interruptions over 1µs", "CPU 1: interruptions over 1µs", "0.102 [0.0813, 0.126]", "99.912%"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// osnoiseHist is rtla osnoise hist output of CPU 0: 77 occurrences of
// 5-9 µs and over of them past its 10 µs range.
func osnoiseHist(over int) string {
	return "# RTLA osnoise histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:10\n" +
		"Index   CPU-000\n5            40\n6            20\n7            10\n8             5\n9             2\n" +
		fmt.Sprintf("over:     %5d\ncount:    %5d\nmin:          5\navg:       6.00\nmax:          9\n", over, 77+over)
}

// rtla osnoise hist sides record no runtime, noise or threshold: their
// cells are "-", the threshold "not recorded", the rate "not compared"
// with why (not a ratio of 0 s), and a length its overflows reach "?"
// with why (not -1 ns).
func TestCompareOsnoiseText(t *testing.T) {
	dir := testutil.TempDir(t)
	a, b := filepath.Join(dir, "a.osnoise"), filepath.Join(dir, "b.osnoise")
	for f, over := range map[string]int{a: 0, b: 5} {
		if err := os.WriteFile(f, []byte(osnoiseHist(over)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := compare.ReadInputs([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	r, err := compare.Compare(in, compare.Options{By: stats.Quantile(50), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	CompareText(&buf, r)
	out := buf.String()
	for _, w := range []string{"threshold not recorded", " A            -             77      -          -      -",
		"rate B/A: not compared: rtla osnoise hist records no thread's runtime", "mean     6.32 µs        ?",
		"mean: not known"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in:\n%s", w, out)
		}
	}
	for _, bad := range []string{"0ns", "rate ratio", "-1 ns", "threshold 0"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q in:\n%s", bad, out)
		}
	}
}
