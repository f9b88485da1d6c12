package exporter

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/timer"
)

// text gathers cs from a fresh registry in the text exposition format.
func text(t *testing.T, cs ...prometheus.Collector) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// fixedMetrics are the probe metrics after one wake burst and one sleep
// burst of known samples, on a probe thread pinned to CPU 1.
func fixedMetrics() *metrics {
	o := Defaults()
	o.CPU = 1
	m := newMetrics(o)
	// 1 ms wake-ups late by 0.5, 3, 12, 12, 80 and 2500 µs; 2 periods missed.
	m.observeWake([]int64{500, 3_000, 12_000, 12_000, 80_000, 2_500_000}, 2)
	// 1 ms sleeps that took 1.05, 1.06 and 1.2 ms.
	m.observeSleep([]int64{1_050_000, 1_060_000, 1_200_000})
	m.setOverhead(ProbeWake, probe.Overhead{ClockReadP50Ns: 20, ZeroWaitP50Ns: 1500})
	m.setOverhead(ProbeSleep, probe.Overhead{ClockReadP50Ns: 20, ZeroWaitP50Ns: 900})
	m.addCPU(3*time.Millisecond, 0.003, 0.015)
	return m
}

// The methods label the OS's primitives, so the golden file is per OS.
func TestProbeMetrics(t *testing.T) {
	g := goldie.New(t)
	g.Assert(t, "probe-metrics-"+wakeMethod, []byte(text(t, fixedMetrics())))
}

func TestClassicBuckets(t *testing.T) {
	b := classicBuckets()
	if len(b) != 21 || b[0] != 1e-6 || b[len(b)-1] != 0.1 {
		t.Fatalf("buckets %v: want 21 from 1e-06 to 0.1", b)
	}
	for i := 1; i < len(b); i++ {
		// Four to a decade: each bound 10^(1/4) ≈ 1.778 times the last,
		// give or take the rounding to three digits.
		if r := b[i] / b[i-1]; math.Abs(r-math.Pow(10, 0.25)) > 0.01 {
			t.Errorf("bucket %d: %g / %g = %g", i, b[i], b[i-1], r)
		}
	}
}

// The same metric carries native buckets beside the classic ones.
func TestHistogramsAreAlsoNative(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(fixedMetrics())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, mf := range mfs {
		if mf.GetType().String() != "HISTOGRAM" {
			continue
		}
		seen++
		h := mf.GetMetric()[0].GetHistogram()
		if len(h.GetBucket()) != 21 {
			t.Errorf("%s: %d classic buckets", mf.GetName(), len(h.GetBucket()))
		}
		if h.GetSchema() != 3 || len(h.GetPositiveSpan()) == 0 {
			t.Errorf("%s: native schema %d, spans %v: want schema 3 (factor 1.09) with buckets", mf.GetName(), h.GetSchema(), h.GetPositiveSpan())
		}
	}
	if seen != 2 {
		t.Fatalf("%d histograms, want wake and sleep", seen)
	}
}

// Only the enabled probes' metrics are exposed, and the CPU label only
// when the thread is pinned.
func TestMetricsFollowTheOptions(t *testing.T) {
	o := Defaults()
	o.Probes = []string{ProbeSleep}
	out := text(t, newMetrics(o))
	if strings.Contains(out, "latlab_wake_") || !strings.Contains(out, "latlab_sleep_overshoot_seconds") {
		t.Errorf("sleep only:\n%s", out)
	}
	if strings.Contains(out, `cpu="`) {
		t.Errorf("an unpinned probe has a cpu label:\n%s", out)
	}
}

func TestTimerCollector(t *testing.T) {
	linux := timer.Status{TimerSlackNs: 50_000, Clocksource: "tsc", AvailableClocksources: []string{"tsc", "hpet", "acpi_pm"}}
	windows := timer.Status{Current100ns: 10_000, Finest100ns: 5_000, Coarsest100ns: 156_250}
	for _, tc := range []struct {
		name  string
		st    timer.Status
		err   error
		slack bool
	}{
		{"timer-linux", linux, nil, true},
		{"timer-windows", windows, nil, false},
		// Windows: the facts were read, NtQueryTimerResolution failed.
		{"timer-windows-failed", timer.Status{}, errors.New("NtQueryTimerResolution: not implemented"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTimerCollector(func() (timer.Status, error) { return tc.st, tc.err }, 0)
			c.slack = tc.slack
			goldie.New(t).Assert(t, tc.name, []byte(text(t, c)))
		})
	}
}

// A reading is kept for the TTL, then read again.
func TestTimerCollectorCaches(t *testing.T) {
	reads := 0
	now := time.Unix(1000, 0)
	c := newTimerCollector(func() (timer.Status, error) { reads++; return timer.Status{Clocksource: "tsc"}, nil }, time.Minute)
	c.now = func() time.Time { return now }
	text(t, c)
	now = now.Add(59 * time.Second)
	text(t, c)
	if reads != 1 {
		t.Fatalf("%d reads within the TTL, want 1", reads)
	}
	now = now.Add(time.Second)
	text(t, c)
	if reads != 2 {
		t.Fatalf("%d reads after the TTL, want 2", reads)
	}
}

func TestSettingsCollector(t *testing.T) {
	calls := 0
	c := newSettingsCollector(func(context.Context) ([]Setting, error) {
		calls++
		if calls == 2 {
			return nil, errors.New("registry unreadable")
		}
		return []Setting{
			{Knob: "tcp-recovery", Value: "1", Verdict: "default"},
			{Knob: "irq-affinity", Target: "IRQ 30", Value: "0-1", Verdict: "default"},
			{Knob: "irq-affinity", Target: "IRQ 30", Value: "0-1", Verdict: "default"}, // a repeat is dropped
			{Knob: "timer-slack", Target: "latlab's own", Value: "50µs", Verdict: ""},  // no verdict: unknown
			{Knob: "odd", Value: "bad\xffbyte " + strings.Repeat("é", 150), Verdict: "unknown"},
		}, nil
	})
	if got := text(t, c); strings.Contains(got, "latlab_setting_info") {
		t.Fatalf("settings before the first reading:\n%s", got)
	}
	at := time.Unix(1_700_000_000, 0)
	if err := c.refresh(context.Background(), at); err != nil {
		t.Fatal(err)
	}
	if err := c.refresh(context.Background(), at.Add(time.Minute)); err == nil {
		t.Fatal("a failed reading reported no error")
	}
	// The failed second reading keeps the first one and counts.
	goldie.New(t).Assert(t, "settings", []byte(text(t, c)))
}

func TestClip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"a\xffb", "a\uFFFDb"},
		{strings.Repeat("x", maxLabel), strings.Repeat("x", maxLabel)},
		{strings.Repeat("x", maxLabel+1), strings.Repeat("x", maxLabel-3) + "…"},
	} {
		got := clip(tc.in)
		if got != tc.want {
			t.Errorf("clip(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if len(got) > maxLabel {
			t.Errorf("clip(%q) is %d bytes", tc.in, len(got))
		}
	}
	if got := clip(strings.Repeat("é", 150)); len(got) > maxLabel || !strings.HasSuffix(got, "…") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("clip cut a rune: %q", got)
	}
}

// Whatever the system holds, a setting becomes a series the registry
// accepts: label values are valid UTF-8, bounded, and never repeated.
func FuzzSettingLabels(f *testing.F) {
	f.Add("tcp-recovery", "", "1", "default")
	f.Add("irq-affinity", "IRQ 30", "0-1", "")
	f.Add("x", "\xff\xfe", strings.Repeat("é", 120)+"\x00", "unknown")
	f.Fuzz(func(t *testing.T, knob, target, value, verdict string) {
		in := []Setting{{knob, target, value, verdict}, {knob, target, value, verdict}, {knob + "\xff", target, value, verdict}}
		c := newSettingsCollector(func(context.Context) ([]Setting, error) { return in, nil })
		if err := c.refresh(context.Background(), time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(c)
		if _, err := reg.Gather(); err != nil {
			t.Fatalf("gather: %v", err)
		}
	})
}
