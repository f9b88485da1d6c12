package report

import (
	"bytes"
	"html"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/timer"
)

// stoppedWake is a wake document of a run of four pinned threads
// stopped by --stop-above 1ms on CPU 3's third wake-up.
func stoppedWake(t *testing.T) *probe.WakeData {
	t.Helper()
	stop := &probe.StoppedAbove{ThresholdNs: 1_000_000, Sample: probe.StopSample{ValueNs: 1_420_000, AtNs: 2_310_000_000, Thread: 3, CPU: 3, Index: 2309}}
	wr := &probe.WakeResult{Interval: time.Millisecond, Planned: 10_000, StoppedAbove: stop}
	for cpu := range 4 {
		lat := []int64{20_000, 21_000, 35_000}
		if cpu == 3 {
			lat = append(lat, 1_420_000)
		}
		wr.Threads = append(wr.Threads, probe.WakeThread{Setup: probe.ThreadSetup{CPU: cpu}, Latencies: lat, Stopped: true})
	}
	doc, err := probe.WakeDocument(host.Facts{}, wr, timer.Status{}, errFake, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := doc.Data.(*probe.WakeData)
	d.Measurement.Method = "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)"
	d.Overhead = probe.Overhead{ClockReadP50Ns: 20, ZeroWaitMethod: "nanosleep(0)", ZeroWaitP50Ns: 2000}
	return d
}

var errFake = fakeErr("no timer state in the test")

type fakeErr string

func (e fakeErr) Error() string { return string(e) }

// A stopped run says so first, in one line of at most 80 columns: the
// verdict (when it stopped), then the sample and where it came; the trace
// line follows only when the run's trace was frozen.
func TestStopAboveGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  func() (render func(io.Writer))
	}{
		{"wake-stopped", func() func(io.Writer) {
			d := stoppedWake(t)
			return func(b io.Writer) { Wake(b, probe.KindWake.New(host.Facts{}, d)) }
		}},
		{"noise-stopped-frozen", func() func(io.Writer) {
			doc := fixedNoise()
			d := doc.Data.(*probe.NoiseData)
			d.StoppedAbove = &probe.StoppedAbove{ThresholdNs: 2_000_000, TraceFrozen: true,
				Sample: probe.StopSample{ValueNs: 3_998_000, AtNs: 9_999_000_000, Thread: 0, CPU: 0, Index: 400}}
			return func(b io.Writer) { Noise(b, doc) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			cliOut(&b, false, c.doc())
			goldie.New(t).Assert(t, c.name, b.Bytes())
			lines := strings.Split(b.String(), "\n")
			if !strings.HasPrefix(lines[0], "stopped at ") || strings.HasPrefix(lines[1], " ") {
				t.Errorf("the stop is not the first line, whole: %q", lines[:2])
			}
			for _, l := range lines {
				if n := utf8.RuneCountInString(l); n > 80 {
					t.Errorf("%d columns: %q", n, l)
				}
			}
		})
	}
}

// The stop line names the thread when its CPU does not, and never says
// anything of a trace the run did not freeze.
func TestStopLines(t *testing.T) {
	d := stoppedWake(t)
	var b bytes.Buffer
	wakeStopLines(&b, d)
	if got := b.String(); got != "stopped at 2.31s: a wake-up 1.42ms late, above --stop-above 1ms (CPU 3)\n" {
		t.Errorf("pinned: %q", got)
	}
	d.StoppedAbove.Sample.CPU = -1
	b.Reset()
	wakeStopLines(&b, d)
	if got := b.String(); !strings.HasSuffix(got, "(T3)\n") || strings.Contains(got, "trace") {
		t.Errorf("unpinned: %q", got)
	}
	d.Threads = d.Threads[:1]
	b.Reset()
	wakeStopLines(&b, d)
	if got := b.String(); !strings.HasSuffix(got, "1ms\n") {
		t.Errorf("one unpinned thread: %q", got)
	}
	d.StoppedAbove = nil
	b.Reset()
	wakeStopLines(&b, d)
	if b.Len() != 0 {
		t.Errorf("a run not stopped: %q", b.String())
	}
	// The longest: a day's run, a threshold to the microsecond, a
	// four-digit CPU, still one line each.
	long := &probe.StoppedAbove{ThresholdNs: 999_999_000, TraceFrozen: true,
		Sample: probe.StopSample{ValueNs: 999_000_000, AtNs: 86_399_000_000_000, CPU: 1023}}
	for _, f := range []func(){
		func() { noiseStopLines(&b, &probe.NoiseData{StoppedAbove: long}) },
		func() { wakeStopLines(&b, &probe.WakeData{StoppedAbove: long}) },
	} {
		b.Reset()
		f()
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Errorf("not one line and the trace's: %q", lines)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%d columns: %q", n, l)
			}
		}
	}
}

// The HTML report says a run stopped by --stop-above as the text does.
func TestStopAboveInHTMLReport(t *testing.T) {
	wake := probe.KindWake.New(host.Facts{}, stoppedWake(t))
	noise := fixedNoise()
	noise.Data.(*probe.NoiseData).StoppedAbove = &probe.StoppedAbove{ThresholdNs: 2_000_000,
		Sample: probe.StopSample{ValueNs: 3_998_000, AtNs: 9_999_000_000, CPU: 0, Index: 400}}
	r, err := BuildReport([]ReportInput{{Label: "w.json", Doc: wake}, {Label: "n.json", Doc: noise}}, "r")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, want := range []string{"stopped at 2.31s: a wake-up 1.42ms late, above --stop-above 1ms (CPU 3)",
		"stopped at 10.0s: a 4.00ms interruption, above --stop-above 2ms (CPU 0)"} {
		if !strings.Contains(h, html.EscapeString(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
}
