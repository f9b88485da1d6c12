package doctor

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/explain"
)

func wakeup(cpu int, latency int64, cause string, ran ...explain.Ran) explain.Wakeup {
	return explain.Wakeup{CPU: cpu, LatencyNs: latency, Ran: ran, Cause: cause}
}

func thread(name string, pid int, ns int64) explain.Ran {
	return explain.Ran{Kind: explain.KindThread, Name: name, PID: pid, DurationNs: ns}
}

func ownThread(name string, pid int, ns int64) explain.Ran {
	r := thread(name, pid, ns)
	r.Own = true
	return r
}

// The main cause is what held the CPUs longest over all the explained
// wake-ups, a thread by its pid (two threads of one name are two
// culprits), not what is longest in one of them; idle time names no one.
func TestCauseOf(t *testing.T) {
	for _, c := range []struct {
		name string
		ws   []explain.Wakeup
		kind string
		text string
	}{
		{"one thread throughout", []explain.Wakeup{
			wakeup(1, 1000, "thread hog", thread("hog", 42, 900), explain.Ran{Kind: explain.KindIRQ, Name: "LOC (local_timer)", DurationNs: 50}),
			wakeup(1, 1000, "thread hog", thread("hog", 42, 800)),
		}, "thread", "thread hog (pid 42) on CPU 1: 85% of the lateness"},
		{"longest in all, not in one", []explain.Wakeup{
			wakeup(0, 1000, "thread big", thread("big", 7, 700)),
			wakeup(1, 1000, "thread small", thread("small", 8, 500)),
			wakeup(1, 1000, "thread small", thread("small", 8, 500)),
		}, "thread", "thread small (pid 8) on CPU 1: 33% of the lateness"},
		{"same name, two pids", []explain.Wakeup{
			wakeup(0, 1000, "thread w", thread("w", 1, 400), thread("w", 2, 300)),
		}, "thread", "thread w (pid 1) on CPU 0: 40% of the lateness"},
		{"a softirq on two CPUs", []explain.Wakeup{
			wakeup(0, 1000, "softirq NET_RX", explain.Ran{Kind: explain.KindSoftIRQ, Name: "NET_RX", DurationNs: 600}),
			wakeup(1, 1000, "softirq NET_RX", explain.Ran{Kind: explain.KindSoftIRQ, Name: "NET_RX", DurationNs: 600}),
		}, "softirq", "softirq NET_RX on CPU 0,1: 60% of the lateness"},
		{"a hard irq", []explain.Wakeup{
			wakeup(0, 1000, "irq eth0", explain.Ran{Kind: explain.KindIRQ, Name: "eth0 (IRQ 24)", DurationNs: 500}),
		}, "irq", "hard irq eth0 (IRQ 24) on CPU 0: 50% of the lateness"},
		{"idle: the timer", []explain.Wakeup{
			wakeup(0, 1000, "timer", explain.Ran{Kind: explain.KindIdle, Name: "idle", DurationNs: 900}, thread("x", 3, 50)),
			wakeup(0, 1000, "idle", explain.Ran{Kind: explain.KindIdle, Name: "idle", DurationNs: 990}),
		}, "timer", "the CPU was idle"},
		{"woken but waiting", []explain.Wakeup{wakeup(0, 1000, "wake-to-run"), wakeup(0, 1000, "wake-to-run")}, "wake-to-run", "waited to run"},
		{"latlab's own reader longest: the next one", []explain.Wakeup{
			wakeup(0, 1000, "thread latlab (latlab's own)", ownThread("latlab", 9, 600), thread("hog", 42, 300)),
		}, "thread", "thread hog (pid 42) on CPU 0: 30% of the lateness"},
		{"latlab's own reader alone", []explain.Wakeup{
			wakeup(0, 1000, "thread latlab (latlab's own)", ownThread("latlab", 9, 600)),
			wakeup(0, 1000, "wake-to-run"),
		}, "wake-to-run", "waited to run"},
		{"nothing late", []explain.Wakeup{wakeup(0, 0, "return-to-user")}, "none", "no wake-up"},
	} {
		got := CauseOf(c.ws)
		if got.Kind != c.kind || !strings.Contains(got.Text, c.text) {
			t.Errorf("%s: %s %q, want %s %q", c.name, got.Kind, got.Text, c.kind, c.text)
		}
	}
	lines := Culprits([]explain.Wakeup{wakeup(1, 1000, "", thread("hog", 42, 900)), wakeup(1, 1000, "", thread("hog", 42, 900), ownThread("b", 5, 100))})
	if len(lines) != 2 || lines[0] != "thread hog (pid 42) on CPU 1: 1.80µs in 2 wake-ups (90%)" || !strings.HasPrefix(lines[1], "latlab's own thread b (pid 5)") {
		t.Errorf("culprits %q", lines)
	}
}

// LatencyMon's answer from a DPC watch: the driver with the most DPC and
// ISR time together, and the longest single execution with its verdict.
func TestDPCCause(t *testing.T) {
	s := dpcwatch.Summary{Seconds: 3,
		// Longest execution first, as the watch sorts them.
		DPC: []dpcwatch.ModuleStat{{Module: "nvlddmkm.sys", TotalUs: 400, MaxUs: 1500, Count: 3}, {Module: "ndis.sys", TotalUs: 900, MaxUs: 300, Count: 50}},
		ISR: []dpcwatch.ModuleStat{{Module: "nvlddmkm.sys", TotalUs: 600, MaxUs: 200, Count: 9}, {Module: "storport.sys", TotalUs: 10, MaxUs: 5, Count: 1}}}
	s.Verdict = dpcwatch.Judge(s.DPC, s.ISR)
	c := DPCCause(s)
	if c.Name != "nvlddmkm.sys" || c.Drivers[0].TotalUs != 1000 || c.Drivers[0].DPCUs != 400 || c.Drivers[0].ISRUs != 600 || c.Drivers[1].Module != "ndis.sys" {
		t.Errorf("drivers %+v", c.Drivers)
	}
	if c.Longest == nil || c.Longest.Module != "nvlddmkm.sys" || c.Longest.Section != "DPC" || c.Longest.Level != dpcwatch.LevelWarn {
		t.Errorf("longest %+v", c.Longest)
	}
	if !strings.Contains(c.Text, "driver nvlddmkm.sys: most DPC+ISR time") || !strings.Contains(c.Text, "over 1 ms, drop-outs possible") {
		t.Errorf("text %q", c.Text)
	}
	if c := DPCCause(dpcwatch.Summary{Seconds: 3}); c.Kind != "none" || c.Longest != nil {
		t.Errorf("an empty watch: %+v", c)
	}
}

// The overall verdict: the wake band first, then the worst class of
// setting found, in one line of at most 80 columns for every band and any
// two-digit count (the page's first line shows it whole).
func TestOverallVerdict(t *testing.T) {
	for _, c := range []struct {
		band   string
		counts Tally
		want   string
	}{
		{"poor", Tally{Default: 20}, "poor: some wake-ups later than a 240 Hz frame (4 ms); no suspicious setting"},
		{"poor", Tally{Suspicious: 99}, "poor: some wake-ups later than a 240 Hz frame (4 ms); 99 suspicious settings"},
		{"mediocre", Tally{}, "mediocre: some wake-ups too late for small audio buffers; no suspicious setting"},
		{"mediocre", Tally{Suspicious: 99}, "mediocre: some wake-ups too late for small audio buffers; 99 suspicious settings"},
		{"good", Tally{Suspicious: 2, Changed: 1}, "good: wake-ups are timely; 2 suspicious settings"},
		{"fair", Tally{Suspicious: 1}, "fair: wake-ups mostly timely, with a tail over 200 µs; 1 suspicious setting"},
		{"fair", Tally{Suspicious: 99}, "fair: wake-ups mostly timely, with a tail over 200 µs; 99 suspicious settings"},
		{TooFewBand, Tally{}, "too few wake-ups to judge their tail; no suspicious setting"},
		{"", Tally{}, "no wake probe; no suspicious setting"},
	} {
		r := &Result{Counts: c.counts}
		if c.band != "" {
			r.Wake = &Probe{Band: c.band}
		}
		if got := OverallVerdict(r); got.Text != c.want || got.Band != c.band || utf8.RuneCountInString(got.Text) > 80 {
			t.Errorf("%s %+v: %+v, want %q", c.band, c.counts, got, c.want)
		}
	}
}
