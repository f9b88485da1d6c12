package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

func TestDuration(t *testing.T) {
	cases := map[time.Duration]string{
		0:                         "0",
		500:                       "500ns",
		1500:                      "1.5µs",
		496 * time.Microsecond:    "496µs",
		1496800 * time.Nanosecond: "1.4968ms",
		2 * time.Second:           "2s",
	}
	for d, want := range cases {
		if got := units.Duration(d); got != want {
			t.Errorf("units.Duration(%d) = %q, want %q", d, got, want)
		}
	}
}

func TestSummaryTable(t *testing.T) {
	var b bytes.Buffer
	s := stats.Summarize([]int64{1_000_000, 1_100_000, 1_500_000})
	SummaryTable(&b, Column{"slept", s, Ms}, Column{"overshoot", stats.Summarize([]int64{0, 100_000, 500_000}), Us})
	out := b.String()
	for _, want := range []string{"slept (ms)", "overshoot (µs)", "1.5000", "500.0", "p99.9"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// A thread held off its CPU for the whole run measured nothing: its row
// shows no figures (not zeros, which would read as perfect wake-ups), the
// verdict counts its wait, and the note says why, beside the thread that
// measured.
func TestWakeStarvedThread(t *testing.T) {
	wr := &probe.WakeResult{Interval: time.Millisecond, Threads: []probe.WakeThread{
		{Setup: probe.ThreadSetup{CPU: 0}, Latencies: []int64{50_000, 60_000}},
		{Setup: probe.ThreadSetup{CPU: 1}, WarmupNs: 1_600_000_000}}}
	doc, err := probe.WakeDocument(host.Facts{}, wr, timer.Status{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Wake(&b, doc)
	out := b.String()
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "T1 ") {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) != 9 || f[2] != "0" || f[3] != "-" || f[6] != "-" {
		t.Errorf("the starved thread's row %q, in:\n%s", row, out)
	}
	if !strings.Contains(out, "verdict: poor: some wake-ups came later than a 240 Hz frame") {
		t.Errorf("the verdict does not count the starved thread's wait:\n%s", out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "note: thread 1 (CPU 1) measured no wake-up: its first, the warm-up, came 1.60s after its deadline") {
		t.Errorf("no note on the starved thread:\n%s", out)
	}
}

// wake says what --resolution was granted, as sleep does (the measuring
// thread's slack in its timer line is probe's test).
func TestWakeTimerRequest(t *testing.T) {
	setup := probe.ThreadSetup{CPU: -1, RequestedNs: 1000, GrantedNs: 1000, ResolutionNote: "timer slack of the measuring thread"}
	wr := &probe.WakeResult{Interval: time.Millisecond, Threads: []probe.WakeThread{{Setup: setup, Latencies: []int64{20_000, 21_000}}}}
	doc, err := probe.WakeDocument(host.Facts{}, wr, timer.Status{TimerSlackNs: 50_000, Clocksource: "tsc"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Wake(&b, doc)
	for _, want := range []string{"timer request: 0.001ms -> granted 0.001ms (timer slack of the measuring thread)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
}
