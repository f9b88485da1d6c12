package probe

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/sched"
)

// fakeClock returns the readings of reads in turn, then stays past the
// last one by a step of 1 per call.
func fakeClock(reads []int64) func() int64 {
	i := 0
	return func() int64 {
		if i < len(reads) {
			i++
			return reads[i-1]
		}
		i++
		return reads[len(reads)-1] + int64(i-len(reads))
	}
}

// seq builds clock readings: from start, each step in turn.
func seq(start int64, steps ...int64) []int64 {
	out := []int64{start}
	for _, s := range steps {
		start += s
		out = append(out, start)
	}
	return out
}

// The loop's core finds every step of at least the threshold, keeps its
// start and length in order, and counts, sums and keeps the longest of
// them all, those it has no room for too.
func TestNoiseGaps(t *testing.T) {
	for _, c := range []struct {
		name      string
		threshold time.Duration
		keep      int
		steps     []int64
		count     int64
		total     int64
		maxNs     int64
		dropped   int64
		starts    []int64
		lens      []int64
		minStep   int64
	}{
		{name: "no noise", threshold: time.Microsecond, keep: 4, steps: []int64{20, 25, 20, 999}, minStep: 20},
		{name: "threshold counts", threshold: time.Microsecond, keep: 4, steps: []int64{20, 1000, 20, 999, 20},
			count: 1, total: 1000, maxNs: 1000, starts: []int64{1020}, lens: []int64{1000}, minStep: 20},
		{name: "in order", threshold: time.Microsecond, keep: 4, steps: []int64{30, 5000, 30, 43000, 30, 2000},
			count: 3, total: 50000, maxNs: 43000, starts: []int64{1030, 6060, 49090}, lens: []int64{5000, 43000, 2000}, minStep: 30},
		{name: "full buffer", threshold: time.Microsecond, keep: 2, steps: []int64{1500, 1500, 1500, 90000, 10},
			count: 4, total: 94500, maxNs: 90000, dropped: 2, starts: []int64{1000, 2500}, lens: []int64{1500, 1500}, minStep: 10},
		{name: "coarse clock", threshold: 5 * time.Microsecond, keep: 4, steps: []int64{0, 100, 0, 0, 4900, 100, 5000},
			count: 1, total: 5000, maxNs: 5000, starts: []int64{6100}, lens: []int64{5000}, minStep: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGaps(c.threshold, c.keep)
			reads := seq(1000, c.steps...)
			for i := 1; i < len(reads); i++ {
				g.step(reads[i-1], reads[i])
			}
			if g.Count != c.count || g.TotalNs != c.total || g.MaxNs != c.maxNs || g.Dropped != c.dropped || g.MinStepNs != c.minStep || g.Reads != int64(len(c.steps)) {
				t.Errorf("counts %+v; want count %d, total %d, max %d, dropped %d, min step %d", g.gapCounts, c.count, c.total, c.maxNs, c.dropped, c.minStep)
			}
			if !slices.Equal(g.starts[:g.n], c.starts) || !slices.Equal(g.lens[:g.n], c.lens) {
				t.Errorf("kept %v %v, want %v %v", g.starts[:g.n], g.lens[:g.n], c.starts, c.lens)
			}
		})
	}
}

// The loop ends at the first read at or past the end, counted as a read
// at the end, checks every checkEvery, stops when told, and leaves a
// pause out of the noise.
func TestNoiseSpin(t *testing.T) {
	ms := checkEvery
	noStop := func(at int64) (int64, bool) { return at, false }
	t.Run("to the end", func(t *testing.T) {
		g := newGaps(time.Microsecond, 8)
		// 100 ns reads for 3 ms with one 40 µs gap.
		var steps []int64
		for range 10_000 {
			steps = append(steps, 100)
		}
		steps = append(steps, 40_000)
		for range 30_000 {
			steps = append(steps, 100)
		}
		reads := seq(0, steps...)
		first, last, paused, pauses, stopped := spin(fakeClock(reads), 3*ms, g, noStop)
		if first != 0 || last != 3*ms || paused != 0 || pauses != 0 || stopped {
			t.Errorf("first %d, last %d, paused %d/%d, stopped %v", first, last, paused, pauses, stopped)
		}
		if g.Count != 1 || g.TotalNs != 40_000 || g.starts[0] != 1_000_000 {
			t.Errorf("gaps %+v, starts %v", g.gapCounts, g.starts[:g.n])
		}
	})
	t.Run("pause", func(t *testing.T) {
		g := newGaps(time.Microsecond, 8)
		reads := seq(0, 600_000, 600_000, 100, 100, 2_000_000, 100)
		checks := 0
		// The check at 1.2 ms pauses until the next read (100 ns): the
		// step across the pause is not measured.
		pause := func(at int64) (int64, bool) {
			checks++
			if checks == 1 {
				return at + 100, false
			}
			return at, false
		}
		_, last, paused, pauses, _ := spin(fakeClock(reads), 3_400_200, g, pause)
		if paused != 100 || pauses != 1 {
			t.Errorf("paused %d in %d", paused, pauses)
		}
		// 600 µs, 600 µs and 2 ms are interruptions; the 100 ns after the
		// pause is not measured from before it. The read at 3_400_300
		// ends the window at 3_400_200.
		if g.Count != 3 || g.TotalNs != 3_200_000 || last != 3_400_200 {
			t.Errorf("gaps %+v, last %d", g.gapCounts, last)
		}
	})
	t.Run("stop", func(t *testing.T) {
		g := newGaps(time.Microsecond, 8)
		reads := seq(0, 500, 2*ms, 500)
		_, last, _, _, stopped := spin(fakeClock(reads), 10*ms, g, func(at int64) (int64, bool) { return at, true })
		if !stopped || last != 2*ms+500 {
			t.Errorf("stopped %v at %d", stopped, last)
		}
	})
}

// The window is exactly [first read, end): an interruption that begins
// inside it and ends past the end (the last read comes late) counts only
// up to the end, so the runtime is the window and the noise is the
// interrupted time inside it. In the first case every step is an
// interruption, so the noise is the whole window; a pause that outlasts
// the end is left out up to the end only.
func TestNoiseSpinClipsAtEnd(t *testing.T) {
	ms := checkEvery
	noStop := func(at int64) (int64, bool) { return at, false }
	pauseOnce := func(until int64) func(int64) (int64, bool) {
		done := false
		return func(at int64) (int64, bool) {
			if done {
				return at, false
			}
			done = true
			return until, false
		}
	}
	for _, c := range []struct {
		name      string
		threshold time.Duration
		reads     []int64
		end       int64
		check     func(at int64) (int64, bool)
		runtime   int64
		noise     int64
		count     int64
		lastLen   int64 // the last kept interruption's length
		paused    int64
		minStep   int64
	}{
		{name: "gaps only, the last crosses the end", threshold: time.Microsecond,
			reads: seq(1_000, 3_000, 3_000, 6_500), end: 10_000, check: noStop,
			runtime: 9_000, noise: 9_000, count: 3, lastLen: 3_000, minStep: 3_000},
		{name: "short reads, a long gap across the end", threshold: 500 * time.Nanosecond,
			reads: seq(9_000, 100, 100, 100, 9_000_000), end: 10_000, check: noStop,
			runtime: 1_000, noise: 700, count: 1, lastLen: 700, minStep: 100},
		{name: "the part in the window is below the threshold", threshold: 500 * time.Nanosecond,
			reads: seq(9_000, 100, 100, 100, 100, 100, 100, 100, 100, 100, 5_000), end: 10_000, check: noStop,
			runtime: 1_000, noise: 0, count: 0, minStep: 100},
		{name: "the cut is shorter than any read", threshold: 500 * time.Nanosecond,
			reads: seq(9_000, 300, 300, 300, 9_000_000), end: 10_000, check: noStop,
			runtime: 1_000, noise: 0, count: 0, minStep: 300},
		{name: "a gap, then a pause past the end", threshold: time.Microsecond,
			reads: seq(0, ms, 5*ms), end: 3 * ms, check: pauseOnce(3*ms + 500),
			runtime: ms, noise: ms, count: 1, lastLen: ms, paused: 2 * ms, minStep: ms},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGaps(c.threshold, 8)
			first, last, paused, _, stopped := spin(fakeClock(c.reads), c.end, g, c.check)
			if stopped || first != c.reads[0] || last != c.end || paused != c.paused {
				t.Fatalf("first %d, last %d, paused %d, stopped %v: want %d, the end %d, %d paused", first, last, paused, stopped, c.reads[0], c.end, c.paused)
			}
			if rt := last - first - paused; rt != c.runtime {
				t.Errorf("runtime %d, want %d", rt, c.runtime)
			}
			if g.TotalNs != c.noise || g.Count != c.count {
				t.Errorf("noise %d in %d interruptions, want %d in %d", g.TotalNs, g.Count, c.noise, c.count)
			}
			if c.count > 0 && (g.lens[g.n-1] != c.lastLen || g.starts[g.n-1]+g.lens[g.n-1] > c.end) {
				t.Errorf("last interruption %d ns at %d, want %d ns ending by %d", g.lens[g.n-1], g.starts[g.n-1], c.lastLen, c.end)
			}
			if g.MinStepNs != c.minStep {
				t.Errorf("smallest step %d, want %d: a step cut at the end is no read's cost", g.MinStepNs, c.minStep)
			}
		})
	}
}

// A thread whose first read is already past the end has an empty
// window: no runtime, no step.
func TestNoiseSpinEmptyWindow(t *testing.T) {
	g := newGaps(time.Microsecond, 8)
	first, last, paused, _, _ := spin(fakeClock(seq(5_000, 100, 100)), 4_000, g, func(at int64) (int64, bool) { return at, false })
	if last-first-paused != 0 || g.Reads != 0 || g.Count != 0 {
		t.Errorf("first %d, last %d, paused %d, %d reads", first, last, paused, g.Reads)
	}
}

// The loop's core does not allocate.
func TestNoiseSpinDoesNotAllocate(t *testing.T) {
	g := newGaps(time.Microsecond, 4)
	var c int64
	now := func() int64 { c += 700; return c }
	check := func(at int64) (int64, bool) { return at, false }
	if a := testing.AllocsPerRun(10, func() { spin(now, c+10*checkEvery, g, check) }); a != 0 {
		t.Errorf("spin allocates %.1f times per run", a)
	}
}

// Bad input is refused with a badinput error naming the flag.
func TestNoiseValidate(t *testing.T) {
	ok := NoiseOptions{Duration: time.Second, Threshold: time.Microsecond, CPUs: []int{0}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mod  func(*NoiseOptions)
		want string
	}{
		{func(o *NoiseOptions) { o.Duration = 0 }, "invalid --duration"},
		{func(o *NoiseOptions) { o.Duration = MaxNoiseDuration + time.Second }, "invalid --duration"},
		{func(o *NoiseOptions) { o.Threshold = 0 }, "invalid --threshold"},
		{func(o *NoiseOptions) { o.Threshold = -time.Microsecond }, "invalid --threshold"},
		{func(o *NoiseOptions) { o.Threshold = 2 * time.Second }, "invalid --threshold"},
		{func(o *NoiseOptions) { o.RTPrio = 100 }, "invalid --rtprio"},
		{func(o *NoiseOptions) { o.CPUs = nil }, "no CPU"},
		{func(o *NoiseOptions) { o.CPUs = []int{-1} }, "pinned"},
		{func(o *NoiseOptions) { o.CPUs = []int{0, 0} }, "twice"},
		{func(o *NoiseOptions) { o.Keep = MaxNoiseKept + 1 }, "keep"},
	} {
		o := ok
		c.mod(&o)
		err := o.Validate()
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line with %q", o, err, c.want)
		}
	}
}

// A short real run on one CPU: the structure, never the timing (the
// machine is shared).
func TestRunNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("spins a CPU")
	}
	cpu := sched.NumCPU() - 1
	// The counters are read once before the loop and once after: the
	// first reading before the run's start, the second after its end.
	var first, second int64
	counters := func() (func() (*NoiseCounters, error), error) {
		first = clock.Now()
		return func() (*NoiseCounters, error) {
			second = clock.Now()
			return &NoiseCounters{Method: "fake", PerCPU: map[int]NoiseCPUCounts{cpu: {Interrupts: &NoiseCounts{Total: 3, Sources: []NoiseCount{{Name: "LOC", Count: 3}}}}}}, nil
		}, nil
	}
	r, doc, err := RunNoise(context.Background(), NoiseOptions{Duration: 200 * time.Millisecond, Threshold: time.Microsecond, CPUs: []int{cpu}, Counters: counters})
	if err != nil {
		t.Fatal(err)
	}
	if th := r.Threads[0]; first == 0 || first > th.StartNs || second < th.EndNs || r.CountersNs < th.EndNs-th.StartNs {
		t.Errorf("counters read at %d and %d (%d ns apart), the loop ran from %d to %d", first, second, r.CountersNs, th.StartNs, th.EndNs)
	}
	d, ok := KindNoise.Of(doc)
	if !ok || len(d.CPUs) != 1 || len(r.Threads) != 1 {
		t.Fatalf("document %q, %d CPUs, %d threads", doc.Kind, len(d.CPUs), len(r.Threads))
	}
	c, th := d.CPUs[0], r.Threads[0]
	if c.CPU != cpu || c.RuntimeNs <= 0 || c.RuntimeNs > th.EndNs-th.StartNs || c.ClockReads <= 0 || d.Interrupted {
		t.Errorf("cpu %d runtime %d reads %d interrupted %v", c.CPU, c.RuntimeNs, c.ClockReads, d.Interrupted)
	}
	if c.NoiseNs < c.MaxNs || c.NoiseNs > c.RuntimeNs+c.PausedNs || c.AvailablePct < 0 || c.AvailablePct > 100 {
		t.Errorf("noise %d, longest %d, runtime %d, available %.3f%%", c.NoiseNs, c.MaxNs, c.RuntimeNs, c.AvailablePct)
	}
	if c.Count != int64(len(th.Lengths))+th.Dropped || c.Kept != int64(len(th.Lengths)) || c.Summary.Count != c.Kept {
		t.Errorf("count %d, kept %d, dropped %d, summary %d", c.Count, c.Kept, th.Dropped, c.Summary.Count)
	}
	for i, l := range th.Lengths {
		if l < time.Microsecond.Nanoseconds() || th.Starts[i] < th.StartNs || th.Starts[i]+l > th.EndNs {
			t.Fatalf("interruption %d: at %d for %d, outside [%d, %d] or under the threshold", i, th.Starts[i], l, th.StartNs, th.EndNs)
		}
	}
	for i := 1; i < len(c.Longest); i++ {
		if c.Longest[i].LengthNs > c.Longest[i-1].LengthNs {
			t.Fatalf("longest not sorted: %v", c.Longest)
		}
	}
	if d.Measurement.ThresholdNs != 1000 || d.Measurement.Method != NoiseMethod || d.Measurement.ClockSource == "" || d.Measurement.CountersMethod != "fake" {
		t.Errorf("measurement %+v", d.Measurement)
	}
	if c.Interrupts == nil || c.Interrupts.Total != 3 || c.Softirqs != nil {
		t.Errorf("counts: interrupts %+v, softirqs %+v", c.Interrupts, c.Softirqs)
	}
	// Linux counts the thread's involuntary switches; Windows does not.
	if (c.InvoluntarySwitches != nil) != (runtime.GOOS == "linux") || c.InvoluntarySwitches != nil && *c.InvoluntarySwitches < 0 {
		t.Errorf("involuntary switches %v on %s", c.InvoluntarySwitches, runtime.GOOS)
	}
	// The document reads back as it was written.
	var b bytes.Buffer
	if err := result.Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	back, err := result.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if d2, ok := KindNoise.Of(back); !ok || d2.CPUs[0].Count != c.Count || d2.CPUs[0].RuntimeNs != c.RuntimeNs || !reflect.DeepEqual(d2.CPUs[0].Interrupts, c.Interrupts) || !reflect.DeepEqual(d2.CPUs[0].InvoluntarySwitches, c.InvoluntarySwitches) {
		t.Errorf("read back: %+v", back.Data)
	}
}

// A run stopped before it began has no document; one with a full buffer
// says which figures cover what.
func TestNoiseDocumentNotes(t *testing.T) {
	stopped := &NoiseResult{Threshold: time.Microsecond, Threads: []NoiseThread{{Setup: ThreadSetup{CPU: 1}, Stopped: true}}}
	if _, err := NoiseDocument(host.Facts{}, stopped); !errors.Is(err, ErrNoNoiseRuntime) {
		t.Errorf("stopped before the start: %v", err)
	}
	th := NoiseThread{Setup: ThreadSetup{CPU: 1}, StartNs: 0, EndNs: 1e9,
		gapCounts: gapCounts{Count: 5, TotalNs: 10_000, MaxNs: 5000, Dropped: 2, Reads: 1e7, MinStepNs: 20},
		Starts:    []int64{100, 200, 300}, Lengths: []int64{1000, 5000, 2000}}
	doc, err := NoiseDocument(host.Facts{}, &NoiseResult{Threshold: time.Microsecond, Duration: time.Second, Threads: []NoiseThread{th}})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := KindNoise.Of(doc)
	c := d.CPUs[0]
	if c.AvailablePct != 99.999 || c.PerSecond != 5 || c.Kept != 3 || c.Longest[0] != (Interruption{AtNs: 200, LengthNs: 5000}) {
		t.Errorf("cpu %+v", c)
	}
	for _, want := range []string{"CPU 1: 5 interruptions, the first 3 kept", "CPU 1: 3 interruptions: p90 needs at least 10"} {
		if !slices.ContainsFunc(doc.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
			t.Errorf("notes %q lack %q", doc.Notes, want)
		}
	}
}

// Counters that cannot be read leave the CPUs without counts and say
// why in a note; the run itself goes on.
func TestNoiseCountersUnreadable(t *testing.T) {
	if testing.Short() {
		t.Skip("spins a CPU")
	}
	counters := func() (func() (*NoiseCounters, error), error) {
		return nil, errors.New("/proc/interrupts: permission denied")
	}
	_, doc, err := RunNoise(context.Background(), NoiseOptions{Duration: 20 * time.Millisecond, Threshold: time.Microsecond, CPUs: []int{0}, Counters: counters})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := KindNoise.Of(doc)
	if d.CPUs[0].Interrupts != nil || d.Measurement.CountersMethod != "" || !slices.Contains(doc.Notes, "no interrupt counts: /proc/interrupts: permission denied") {
		t.Errorf("interrupts %+v, method %q, notes %q", d.CPUs[0].Interrupts, d.Measurement.CountersMethod, doc.Notes)
	}
}

// The histogram file has a column per CPU of the kept lengths.
func TestNoiseHist(t *testing.T) {
	r := &NoiseResult{Threads: []NoiseThread{{Lengths: []int64{1500, 2500, 2600}}, {Lengths: []int64{9000}}}}
	var b bytes.Buffer
	if err := r.WriteCyclictestHist(&b, 5); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"000001 000001\t000000\n", "000002 000002\t000000\n", "# Max Latencies: 00002 00009\n", "# Histogram Overflows: 00000 00001\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("histogram lacks %q:\n%s", want, b.String())
		}
	}
}

// The longest kept interruptions are explained, longest first: the 10
// (or Worst) longest, or every one longer than Above.
func TestNoisePickLongest(t *testing.T) {
	r := &NoiseResult{Threads: []NoiseThread{
		{Setup: ThreadSetup{CPU: 0}, TID: 10, Starts: []int64{100, 200, 300}, Lengths: []int64{5000, 90000, 1500}},
		{Setup: ThreadSetup{CPU: 1}, TID: 11, Starts: []int64{150}, Lengths: []int64{20000}},
	}}
	got, note := pickLongest(r, ExplainOptions{Worst: 2})
	want := []explain.Sample{{Thread: 0, CPU: 0, TID: 10, Deadline: 200, Latency: 90000}, {Thread: 1, CPU: 1, TID: 11, Deadline: 150, Latency: 20000}}
	if !slices.Equal(got, want) || note != "" {
		t.Errorf("worst 2: %+v %q", got, note)
	}
	if got, _ = pickLongest(r, ExplainOptions{Above: 4 * time.Microsecond}); len(got) != 3 || got[2].Latency != 5000 {
		t.Errorf("above 4µs: %+v", got)
	}
}

// An explanation says what of the interruption no event accounts for,
// and names an interruption with no traced event untraced.
func TestNoiseExplained(t *testing.T) {
	ws := []explain.Wakeup{
		{CPU: 1, DeadlineNs: 1500, LatencyNs: 10_000, Cause: "thread hog", Note: "the thread did not sleep",
			Ran: []explain.Ran{{Kind: explain.KindThread, Name: "hog", PID: 7, DurationNs: 9000}, {Kind: explain.KindIRQ, Name: "LOC", DurationNs: 600}}},
		{CPU: 1, DeadlineNs: 5000, LatencyNs: 3000, Cause: "return-to-user", Ran: []explain.Ran{}},
		{CPU: 1, DeadlineNs: 9000, LatencyNs: 2000, Cause: "unknown", Note: "no trace events after the deadline on this CPU"},
	}
	got := noiseExplained(ws, 1000)
	if e := got[0]; e.AtNs != 500 || e.UntracedNs != 400 || e.Cause != "thread hog" || e.Note != "" || len(e.Ran) != 2 {
		t.Errorf("%+v", e)
	}
	if e := got[1]; e.Cause != "untraced" || e.UntracedNs != 3000 || !strings.Contains(e.Note, "no traced event") {
		t.Errorf("%+v", e)
	}
	if e := got[2]; e.Cause != "unknown" || e.Note != "no trace events after the deadline on this CPU" {
		t.Errorf("%+v", e)
	}
}

// The document keeps each CPU's kept lengths and their histogram, which
// compare reads back; lengths that no run writes are refused.
func TestNoiseDocumentLengths(t *testing.T) {
	th := NoiseThread{Setup: ThreadSetup{CPU: 2}, StartNs: 0, EndNs: 1e9,
		gapCounts: gapCounts{Count: 3, TotalNs: 8000, MaxNs: 5000, Reads: 1e7, MinStepNs: 20},
		Starts:    []int64{100, 200, 300}, Lengths: []int64{1000, 5000, 2000}}
	doc, err := NoiseDocument(host.Facts{}, &NoiseResult{Threshold: time.Microsecond, Duration: time.Second, Threads: []NoiseThread{th}})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := KindNoise.Of(doc)
	c := d.CPUs[0]
	v, raw, err := c.Lengths(nil)
	if err != nil || !raw || !slices.Equal(v, []int64{1000, 5000, 2000}) || c.Histogram == nil {
		t.Errorf("lengths %v raw %v: %v (histogram %v)", v, raw, err, c.Histogram)
	}
	c.LengthsNs = nil
	if v, raw, err = c.Lengths(nil); err != nil || raw || len(v) != 3 {
		t.Errorf("from the histogram: %v raw %v: %v", v, raw, err)
	}
	for _, bad := range []NoiseCPU{
		{Kept: 1, LengthsNs: []int64{1000, 2000}},
		{Kept: 2, LengthsNs: []int64{1000, -5}},
		{Kept: 2},
	} {
		if _, _, err := bad.Lengths(nil); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
