package report

import (
	"bytes"
	"html"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// fixedNoise is a noise document of two CPUs with every figure pinned:
// CPU 1 isolated-quiet, CPU 0 sharing its time with a busy process.
func fixedNoise() *result.Document {
	quiet := []int64{1200, 1300, 1250, 2100, 4800}
	var busy []int64
	for i := range 400 {
		busy = append(busy, 1500+int64(i)*10)
	}
	busy = append(busy, 3_998_000)
	switches := int64(2041)
	data := &probe.NoiseData{
		Measurement: probe.NoiseMeasurement{Method: probe.NoiseMethod, ClockSource: "CLOCK_MONOTONIC (vDSO)", ThresholdNs: 1000,
			DurationNs: 10e9, ElapsedNs: 10_000_100_000, PercentileNote: result.PercentileDefinition,
			CountersMethod: "/proc/interrupts and /proc/softirqs", CountersNs: 10_002_000_000},
		Timer: &timer.Status{ConfigHZ: 250, Tickless: "idle"},
		CPUs: []probe.NoiseCPU{
			{ThreadSetup: probe.ThreadSetup{CPU: 0, Priority: "normal"}, RuntimeNs: 9_999_000_000, NoiseNs: 4_999_500_000, AvailablePct: 50.005,
				Count: 401, PerSecond: 40.104, MaxNs: 3_998_000, Summary: stats.Summarize(busy), Kept: 401,
				ClockReads: 190_000_000, ClockStepMinNs: 20, PausedNs: 40_000, Pauses: 1,
				Interrupts: &probe.NoiseCounts{Total: 2718, Sources: []probe.NoiseCount{
					{Name: "LOC", Label: "Local timer interrupts", Count: 2600}, {Name: "38", Label: "virtio2-input.0", Count: 100},
					{Name: "RES", Label: "Rescheduling interrupts", Count: 12}, {Name: "CAL", Label: "Function call interrupts", Count: 4}, {Name: "31", Count: 2}}},
				Softirqs:            &probe.NoiseCounts{Total: 310, Sources: []probe.NoiseCount{{Name: "TIMER", Count: 250}, {Name: "RCU", Count: 60}}},
				InvoluntarySwitches: &switches},
			{ThreadSetup: probe.ThreadSetup{CPU: 1, Priority: "normal"}, RuntimeNs: 10_000_000_000, NoiseNs: 10_650, AvailablePct: 99.9998935,
				Count: 5, PerSecond: 0.5, MaxNs: 4800, Summary: stats.Summarize(quiet), Kept: 5,
				ClockReads: 400_000_000, ClockStepMinNs: 20,
				Interrupts: &probe.NoiseCounts{Total: 1, Sources: []probe.NoiseCount{{Name: "31", Count: 1}}}, Softirqs: &probe.NoiseCounts{},
				InvoluntarySwitches: new(int64)},
		},
	}
	doc := probe.KindNoise.New(host.Facts{}, data)
	doc.Notes = []string{"CPU 1: 5 interruptions: p90 needs at least 10, p99 at least 100 and p99.9 at least 1000 to differ from the maximum"}
	return doc
}

// The text is the verdict first, then the evidence, within 80 columns.
func TestNoiseGolden(t *testing.T) {
	var b bytes.Buffer
	Noise(&b, fixedNoise())
	goldie.New(t).Assert(t, "noise", b.Bytes())
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}

// Each CPU is at the first level whose both bounds it meets.
func TestNoiseLevel(t *testing.T) {
	for _, c := range []struct {
		avail float64
		maxNs int64
		want  string
	}{
		{99.999, 4_000, "quiet"},
		{99.999, 10_000, "quiet"},
		{99.999, 10_001, "light"},
		{99.98, 2_000, "light"},
		{99.95, 100_000, "light"},
		{99.95, 150_000, "noisy"},
		{99.5, 900_000, "noisy"},
		{99.5, 1_000_001, "heavy"},
		{98.9, 2_000, "heavy"},
	} {
		if got, rule := NoiseLevel(probe.NoiseCPU{AvailablePct: c.avail, MaxNs: c.maxNs}); got != c.want || !strings.HasPrefix(rule, got+": ") {
			t.Errorf("%.3f%% and %dns: %s (%s), want %s", c.avail, c.maxNs, got, rule, c.want)
		}
	}
	// The verdict quotes the noisiest CPU; a document that carries one
	// keeps it.
	d := fixedNoise().Data.(*probe.NoiseData)
	if l, v := NoiseVerdict(d); l != "heavy" || !strings.Contains(v, "CPU 0: 50.005% available; longest interruption 4.00ms; 40.1 interruptions/s") {
		t.Errorf("%s: %s", l, v)
	}
	d.Level, d.Verdict = "quiet", "as written"
	if l, v := NoiseVerdict(d); l != "quiet" || v != "as written" {
		t.Errorf("%s: %s", l, v)
	}
}

// A share is rounded down: a CPU that lost time never reads 100%.
func TestAvailPct(t *testing.T) {
	for in, want := range map[float64]string{100: "100.000%", 99.99996: "99.999%", 50.0051: "50.005%", 0: "0.000%"} {
		if got := availPct(in); got != want {
			t.Errorf("availPct(%v) = %s, want %s", in, got, want)
		}
	}
}

// --explain's section: each interruption with what ran and the untraced
// rest, then the totals and the next step, within 80 columns.
func TestNoiseExplainGolden(t *testing.T) {
	doc := fixedNoise()
	d := doc.Data.(*probe.NoiseData)
	d.Explain = []probe.NoiseExplained{
		{CPU: 0, AtNs: 3_125_000_000, LengthNs: 3_998_000, UntracedNs: 11_000, Cause: "thread stress-ng-cpu",
			Ran: []explain.Ran{{Kind: explain.KindThread, Name: "stress-ng-cpu", PID: 4242, Prio: 120, Policy: "SCHED_OTHER", Count: 1, DurationNs: 3_975_000},
				{Kind: explain.KindIRQ, Name: "LOC (local_timer)", Count: 1, DurationNs: 12_000}}},
		{CPU: 1, AtNs: 7_000_000_000, LengthNs: 4800, UntracedNs: 4800, Cause: "untraced", Ran: []explain.Ran{},
			Note: "no traced event on the CPU in the interruption: a page fault, an NMI or SMI, or a hypervisor running something else"},
	}
	d.ExplainTotals = explain.Totals([]explain.Wakeup{{Ran: d.Explain[0].Ran}})
	d.ExplainNext = "thread stress-ng-cpu held CPU 0: realtime priority for the measuring thread (--rtprio 80), or isolation (isolcpus, nohz_full) to keep other threads off CPU 0"
	doc.Notes = append(doc.Notes, "explain: "+explain.Method)
	var b bytes.Buffer
	Noise(&b, doc)
	goldie.New(t).Assert(t, "noise-explain", b.Bytes())
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}

// The HTML report shows a noise result's verdict, per-CPU table and
// what the OS counted on each CPU, not only its settings.
func TestNoiseInHTMLReport(t *testing.T) {
	doc := fixedNoise()
	r, err := BuildReport([]ReportInput{{Label: "noise.json", Doc: doc}}, "r")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	_, verdict := NoiseVerdict(doc.Data.(*probe.NoiseData))
	for _, want := range []string{html.EscapeString(verdict), "threshold 1µs", "50.005%", "available",
		"what the OS counted on each CPU during the run", "involuntary context switches", "2,718 (LOC 2,600, virtio2-input.0 100, RES 12, 2 others 6)", "2,041"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(h, "no dedicated view") {
		t.Error("page says it has no view of noise results")
	}
}

// The local timer interrupts are related to the tick only as far as
// CONFIG_HZ and the time between the readings say: at most HZ x seconds
// of them are the tick; fewer is stated, and put down to nohz_full only
// when it lists the CPU.
func TestNoiseTickLine(t *testing.T) {
	loc := func(name, label string, n int64) probe.NoiseCPU {
		return probe.NoiseCPU{ThreadSetup: probe.ThreadSetup{CPU: 3}, Interrupts: &probe.NoiseCounts{Total: n + 5,
			Sources: []probe.NoiseCount{{Name: name, Label: label, Count: n}, {Name: "RES", Count: 5}}}}
	}
	hz := &timer.Status{ConfigHZ: 1000}
	for _, c := range []struct {
		name string
		cpu  probe.NoiseCPU
		st   *timer.Status
		ns   int64
		want string
	}{
		{"x86 busy", loc("LOC", "Local timer interrupts", 3100), hz, 3e9, "CPU 3: of the 3,100 LOC interrupts, a 1000 Hz tick over 3.00 s is at most 3,000; the rest are high-resolution timers"},
		{"arm64", loc("11", "arch_timer", 3000), hz, 3e9, "CPU 3: of the 3,000 arch_timer interrupts, a 1000 Hz tick over 3.00 s is at most 3,000; the rest are high-resolution timers"},
		{"fewer", loc("LOC", "", 2900), hz, 3e9, "CPU 3: 2,900 LOC interrupts, fewer than a 1000 Hz tick's 3,000 in 3.00 s"},
		{"nohz_full", loc("LOC", "", 4), &timer.Status{ConfigHZ: 1000, NohzFullCPUs: "2-3"}, 3e9, "CPU 3: 4 LOC interrupts, fewer than a 1000 Hz tick's 3,000 in 3.00 s: the tick stopped for part of the run (nohz_full)"},
		{"no HZ", loc("LOC", "", 3100), &timer.Status{}, 3e9, ""},
		{"no timer", loc("LOC", "", 3100), nil, 3e9, ""},
		{"no window", loc("LOC", "", 3100), hz, 0, ""},
		{"no timer interrupt", loc("RES", "", 3100), hz, 3e9, ""},
		{"no counts", probe.NoiseCPU{}, hz, 3e9, ""},
	} {
		if got := noiseTickLine(c.cpu, c.st, c.ns); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
