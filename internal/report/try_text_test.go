package report

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/try"
)

// try says its verdicts first, right under the head, then the evidence:
// they once came after the table of every arm's statistics.
func TestTryVerdictFirst(t *testing.T) {
	s := stats.Summary{Count: 100, Min: 1_000_000, P50: 1_070_000, P99: 1_300_000, Max: 1_400_000, Mean: 1_080_000}
	r := &try.Result{Knob: "timer-slack", Probe: try.ProbeSleep, By: "p50", Blocks: 6, Quantity: "slept time", Arms: []try.Arm{
		{Label: "current", Baseline: true, Current: "50µs", Summary: &s, Complete: 6},
		{Label: "51us", Summary: &s, Complete: 6, Verdict: &try.Verdict{Text: "51us vs current: no difference at p50"}},
	}}
	var b bytes.Buffer
	Try(&b, r)
	// The head is one wrapped line: the first line and its indented
	// continuation.
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "latlab try timer-slack: ") || !strings.HasPrefix(lines[1], "  ") ||
		lines[2] != "- 51us vs current: no difference at p50" || lines[3] != "" {
		t.Errorf("the verdict is not under the head:\n%s", b.String())
	}
	if strings.Count(b.String(), "no difference at p50") != 1 || !strings.Contains(b.String(), "baseline: 50µs (6 of 6 blocks complete)") {
		t.Errorf("output:\n%s", b.String())
	}
}

// The text of a noise experiment: the verdict by rate first, quoting the
// rates and the share available; then the interruptions' lengths and
// each arm's pooled counts on the CPU. Every line fits 80 columns.
func TestTryNoiseText(t *testing.T) {
	r := &try.Result{Knob: "timer-migration", Probe: try.ProbeNoise, Quantity: try.Quantity(try.ProbeNoise), By: try.ByRate, Blocks: 8,
		BlockDurationNs: 1e9, SettleNs: 1e9, Seed: 5, NoiseCPU: func() *int { c := 1; return &c }(), NoiseThresholdNs: 1000, Keep: try.KeepNone,
		Arms:  []try.Arm{{Label: "current", Baseline: true, Current: "1"}, {Label: "0", Value: "0"}},
		Order: try.Order(2, 8, 5)}
	for i, a := range r.Order {
		n := int64(1000 + 13*i)
		if a == 1 {
			n = 640 + int64(7*i)
		}
		b := try.Block{Index: i, Round: i / 2, Arm: a, Complete: true}
		var noise int64
		for k := int64(0); k < n; k++ {
			l := 2000 + (k*7919)%3000
			b.Samples = append(b.Samples, l)
			noise += l
		}
		b.Count = len(b.Samples)
		b.Noise = &try.NoiseBlock{CPU: 1, RuntimeNs: 1e9, Count: n, NoiseNs: noise, MaxNs: 4999, Kept: n, PerSecond: float64(n),
			AvailablePct: 100 * float64(1e9-noise) / 1e9}
		r.Runs = append(r.Runs, b)
	}
	if err := try.Analyze(r, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	r.Restore = &try.Restore{Restored: true, Text: "restored: timer-migration is 1 again"}
	var b bytes.Buffer
	Try(&b, r)
	for _, l := range strings.Split(b.String(), "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("%d columns: %s", n, l)
		}
	}
	goldie.New(t).Assert(t, "try-noise", b.Bytes())
}

// The HTML verdict table of a dpcisr run gives its chi-squared p where
// the difference goes and no Mann-Whitney p: the probe runs no such
// test, and its p once filled that column.
func TestTryVerdictTableDPCISR(t *testing.T) {
	p, mw := 0.0123, 0.2
	r := &try.Result{Probe: try.ProbeDPCISR, By: "p99", Arms: []try.Arm{{Label: "current", Baseline: true},
		{Label: "off", Verdict: &try.Verdict{Outcome: try.NoDifference, ChiSquaredPHolm: &p, Blocks: &try.BlockTest{Rounds: 8, Lower: 5, PHolm: 0.3}}},
		{Label: "low", Verdict: &try.Verdict{Outcome: try.NoDifference, PHolm: &mw, Blocks: &try.BlockTest{Rounds: 8}}}}}
	tb := tryVerdictTable(r)
	mwCol := slices.Index(tb.Header, "Mann-Whitney p (Holm)")
	if len(tb.Rows) != 2 || mwCol < 0 {
		t.Fatalf("table %+v", tb)
	}
	if row := tb.Rows[0]; row[2] != "DPC buckets: chi-squared p = 0.012, Holm" || row[mwCol] != "-" {
		t.Errorf("dpcisr row %q", row)
	}
	if row := tb.Rows[1]; row[2] != "-" || row[mwCol] != "p = 0.200" {
		t.Errorf("row with a Mann-Whitney p %q", row)
	}
}

// The text of a noise experiment over two CPUs: the verdict line of each
// value first, summing up its CPUs; then each CPU's evidence; then the
// lengths and each CPU's pooled counts per arm. Every line fits 80
// columns.
func TestTryNoiseCPUsText(t *testing.T) {
	r := &try.Result{Knob: "timer-migration", Probe: try.ProbeNoise, Quantity: try.Quantity(try.ProbeNoise), By: try.ByRate, Blocks: 8,
		BlockDurationNs: 1e9, SettleNs: 1e9, Seed: 5, NoiseCPUs: []int{2, 3}, NoiseThresholdNs: 1000, Keep: try.KeepNone,
		Arms:  []try.Arm{{Label: "current", Baseline: true, Current: "1"}, {Label: "0", Value: "0"}},
		Order: try.Order(2, 8, 5)}
	for i, a := range r.Order {
		b := try.Block{Index: i, Round: i / 2, Arm: a, Complete: true}
		for c, cpu := range r.NoiseCPUs {
			n := int64(1000 + 13*i)
			if a == 1 && c == 0 {
				n = 640 + int64(7*i) // fewer on CPU 2 only
			}
			var noise int64
			for k := int64(0); k < n; k++ {
				l := 2000 + (k*7919)%3000
				b.Samples = append(b.Samples, l)
				noise += l
			}
			b.NoiseCPUs = append(b.NoiseCPUs, try.NoiseBlock{CPU: cpu, RuntimeNs: 1e9, Count: n, NoiseNs: noise, MaxNs: 4999, Kept: n, PerSecond: float64(n),
				AvailablePct: 100 * float64(1e9-noise) / 1e9})
		}
		b.Count = len(b.Samples)
		r.Runs = append(r.Runs, b)
	}
	if err := try.Analyze(r, stats.Quantile(50), 1); err != nil {
		t.Fatal(err)
	}
	r.Restore = &try.Restore{Restored: true, Text: "restored: timer-migration is 1 again"}
	var b bytes.Buffer
	Try(&b, r)
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("%d columns: %s", n, l)
		}
	}
	sum := strings.Index(out, "- 0 is better than current: fewer interruptions on CPU 2, more on none")
	per := strings.Index(out, "per CPU:\n- CPU 2: 0 is better than current")
	if sum < 0 || per < sum || !strings.Contains(out, "- CPU 3: 0 vs current: no difference") {
		t.Errorf("the summary, then each CPU:\n%s", out)
	}
	goldie.New(t).Assert(t, "try-noise-cpus", b.Bytes())
}

// A dry run's estimate of a short run says its length, not "about 0".
func TestEstimateRound(t *testing.T) {
	for _, c := range []struct {
		in, want time.Duration
	}{
		{10 * time.Millisecond, 100 * time.Millisecond},
		{440 * time.Millisecond, 400 * time.Millisecond},
		{2460 * time.Millisecond, 2500 * time.Millisecond},
		{9940 * time.Millisecond, 9900 * time.Millisecond},
		{10400 * time.Millisecond, 10 * time.Second},
		{95 * time.Minute, 95 * time.Minute},
	} {
		if got := estimateRound(c.in); got != c.want {
			t.Errorf("%v: %v, want %v", c.in, got, c.want)
		}
	}
}

// A dry run of a registry knob: the arms' changes name a registry path
// wider than a line, which is broken after a backslash so that every line
// fits 80 columns (it was 118).
func TestTryPlanRegistryFits(t *testing.T) {
	where := `HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\Parameters\Interfaces\{2F3A5C1E-1111-2222-3333-444455556666}\TcpAckFrequency`
	r := &try.Result{Knob: "tcp-ack-frequency", Target: "Ethernet", Probe: try.ProbeWake, Quantity: try.Quantity(try.ProbeWake), By: "p99",
		Blocks: 4, BlockDurationNs: 5e9, SettleNs: 2e9, EstimateNs: 60e9, Seed: 3, Keep: try.KeepNone,
		Arms: []try.Arm{{Label: "current", Baseline: true, Current: "absent"},
			{Label: "1", Value: "1", Changes: []try.Change{{Where: where, From: "absent", To: "1 (REG_DWORD)"}}}},
		Order:  try.Order(2, 4, 3),
		Writes: []string{where + ": absent -> 1 (REG_DWORD) before each 1 block, back to absent after it"}}
	var b bytes.Buffer
	TryPlan(&b, r, `C:\Users\someone\Documents\latlab-results\tcp-ack-frequency-ethernet.json`, "")
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("%d columns: %s", n, l)
		}
	}
	if !strings.Contains(regexp.MustCompile(`\n +`).ReplaceAllString(out, ""), where) {
		t.Errorf("the path is not there whole, broken only by new lines:\n%s", out)
	}
	goldie.New(t).Assert(t, "try-plan-registry", b.Bytes())
}

// dpcisrBlockReport is a watch's report of one block: ndis.sys's DPCs and
// ISRs in the buckets of dpc and isr (k: (2^(k-1), 2^k] µs).
func dpcisrBlockReport(dpc, isr map[int]int64) *dpcisr.Report {
	hist := func(counts map[int]int64) dpcisr.Histogram {
		h := dpcisr.Histogram{Module: "ndis.sys", Buckets: []dpcisr.Bucket{}}
		for k := 0; k < 16; k++ {
			if c := counts[k]; c > 0 {
				b := dpcwatch.Bucket(k)
				b.Count = c
				h.Buckets = append(h.Buckets, b)
				h.Total += c
			}
		}
		return h
	}
	var secs []dpcisr.Section
	for _, s := range []struct {
		name   string
		counts map[int]int64
		usec   int64
	}{{dpcisr.DPC, dpc, 9000}, {dpcisr.ISR, isr, 400}} {
		h := hist(s.counts)
		secs = append(secs, dpcisr.Section{Name: s.name, Heading: s.name, Modules: []dpcisr.Histogram{h}, Overall: &h,
			Usage: []dpcisr.ModuleUsage{{Module: "ndis.sys", Usec: []int64{s.usec}, Percent: []float64{0}, CPUs: []int{0}}}})
	}
	return &dpcisr.Report{Source: dpcisr.SourceETW, Sections: secs}
}

// The text of a dpcisr experiment whose module runs DPCs and ISRs: each
// value's line says first which section changed and quotes its shares
// and p-values (Holm over 2 values x 2 sections), then each section's
// evidence, then the pooled times per section and arm. Every line fits
// 80 columns.
func TestTryDPCISRText(t *testing.T) {
	dpc := map[int]int64{3: 200, 4: 100, 5: 40, 6: 10}
	dpcShort := map[int]int64{2: 200, 3: 100, 4: 40, 5: 10}
	isr := map[int]int64{1: 200, 2: 100, 3: 40, 4: 10}
	isrLong := map[int]int64{2: 200, 3: 100, 4: 40, 5: 10}
	r := &try.Result{Knob: "interrupt-moderation", Probe: try.ProbeDPCISR, Quantity: try.Quantity(try.ProbeDPCISR), By: "p99", Blocks: 8,
		BlockDurationNs: 1e9, SettleNs: 1e9, Seed: 5, Keep: try.KeepNone,
		Arms:  []try.Arm{{Label: "current", Baseline: true, Current: "adaptive"}, {Label: "off", Value: "off"}, {Label: "low", Value: "low"}},
		Order: try.Order(3, 8, 5)}
	for i, a := range r.Order {
		rep := dpcisrBlockReport(dpc, isr)
		switch a {
		case 1: // longer interrupts only
			rep = dpcisrBlockReport(dpc, isrLong)
		case 2: // shorter DPCs only
			rep = dpcisrBlockReport(dpcShort, isr)
		}
		r.Runs = append(r.Runs, try.Block{Index: i, Round: i / 3, Arm: a, Complete: true, DPCISR: rep})
	}
	if err := try.Analyze(r, stats.Quantile(99), 1); err != nil {
		t.Fatal(err)
	}
	r.Restore = &try.Restore{Restored: true, Text: "restored: interrupt-moderation is adaptive again"}
	var b bytes.Buffer
	Try(&b, r)
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("%d columns: %s", n, l)
		}
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[2], "- off is worse than current: longer ISRs of ndis.sys (0.0% vs") {
		t.Errorf("the answer is not first:\n%s", out)
	}
	if !strings.Contains(out, "- low is better than current: shorter DPCs of ndis.sys") || !strings.Contains(out, "per section:\n- DPC: off vs current") {
		t.Errorf("output:\n%s", out)
	}
	goldie.New(t).Assert(t, "try-dpcisr", b.Bytes())
}

// Over a module's DPCs and ISRs the HTML verdict table gives the value's
// summing-up row, then a row per section with its own p-values: the
// DPC's p beside an outcome the ISRs decided would mislead.
func TestTryVerdictTableDPCISRSections(t *testing.T) {
	p := 0.0004
	r := &try.Result{Probe: try.ProbeDPCISR, By: "p99", Arms: []try.Arm{{Label: "current", Baseline: true},
		{Label: "off", Verdict: &try.Verdict{Outcome: try.Worse, ChiSquaredPHolm: &p, Blocks: &try.BlockTest{Rounds: 8}, DPCISRSections: []try.DPCISRSectionVerdict{
			{Section: "DPC", Outcome: try.NoDifference, Blocks: try.BlockTest{Rounds: 8, Lower: 4, PHolm: 1}},
			{Section: "ISR", Outcome: try.Worse, ChiSquaredPHolm: &p, Blocks: try.BlockTest{Rounds: 8, Lower: 0, Higher: 8, PHolm: 0.031}}}}}}}
	tb := tryVerdictTable(r)
	if len(tb.Rows) != 3 || tb.Rows[0][1] != "worse" || tb.Rows[0][2] != "over 2 sections" {
		t.Fatalf("rows %q", tb.Rows)
	}
	if row := tb.Rows[1]; row[0] != "off, DPC" || row[2] != "DPC buckets: no test" {
		t.Errorf("DPC row %q", row)
	}
	if row := tb.Rows[2]; row[0] != "off, ISR" || row[1] != "worse" || row[2] != "ISR buckets: chi-squared p < 0.001, Holm" || row[6] != "p = 0.031" {
		t.Errorf("ISR row %q", row)
	}
}
