package probe

import (
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/timer"
)

// The wake loop ends at the first measured wake-up later than the
// threshold, keeps it in the statistics, and hands it to the shared
// state with its thread, index and time stamp; the warm-up never stops
// it, however late.
func TestWakeLoopStopsAbove(t *testing.T) {
	const interval = int64(time.Millisecond)
	var stop atomic.Bool
	// Call 0 is the warm-up, made 5 ms late; call 3 (the third measured
	// wake-up, index 2) 2 ms late; the others return at once.
	w := &recordingWaiter{late: 3, lateBy: 2 * interval}
	start := clock.Now() - 5*interval
	sa := newStopAbove(time.Millisecond, &stop)
	lat := make([]int64, 50)
	before := clock.Now()
	n, _, _, warm, stopped, err := wakeLoop(w, start, interval, len(lat), 0, lat, nil, &stop, sa, StopSample{Thread: 2, CPU: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !stopped || n != 3 || !stop.Load() {
		t.Fatalf("stopped %v after %d wake-ups (stop flag %v); want stopped after 3", stopped, n, stop.Load())
	}
	if warm < int64(time.Millisecond) {
		t.Fatalf("the warm-up was %d late, the test needs it above the threshold", warm)
	}
	got := sa.result(start)
	if got == nil {
		t.Fatal("no stop sample")
	}
	s := got.Sample
	if got.ThresholdNs != int64(time.Millisecond) || s.Thread != 2 || s.CPU != 5 || s.Index != 2 || s.ValueNs != lat[2] || s.ValueNs <= int64(time.Millisecond) {
		t.Errorf("stop %+v; want thread 2, CPU 5, index 2, value %d", got, lat[2])
	}
	if s.AtNs < before-start || s.AtNs > clock.Now()-start {
		t.Errorf("stop at %d after the start, outside the loop's run", s.AtNs)
	}
	if !sa.firedBy(2) || sa.firedBy(0) {
		t.Error("firedBy does not name thread 2")
	}
}

// Without a threshold nothing stops the loop, and a second sample above
// it does not replace the first.
func TestStopAboveKeepsTheFirst(t *testing.T) {
	var stop atomic.Bool
	if sa := newStopAbove(0, &stop); sa.limit != noStopAbove.limit || sa.result(0) != nil {
		t.Errorf("a threshold of 0 sets limit %d", sa.limit)
	}
	sa := newStopAbove(time.Microsecond, &stop)
	if !sa.fire(StopSample{Thread: 1, ValueNs: 5000, AtNs: 700}) || sa.fire(StopSample{Thread: 0, ValueNs: 9000, AtNs: 800}) {
		t.Error("fire does not say which sample came first")
	}
	if got := sa.result(200); got == nil || got.Sample.Thread != 1 || got.Sample.ValueNs != 5000 || got.Sample.AtNs != 500 || !stop.Load() {
		t.Errorf("kept %+v, stop %v", got, stop.Load())
	}
}

// The noise loop ends at the read after the first interruption longer
// than the threshold, which is counted and kept, whether it comes
// between checks or at one.
func TestNoiseSpinStopsAbove(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps []int64
		index int64
	}{
		// 100 ns reads; a 3 µs interruption (under 5 µs), then a 7 µs one
		{name: "between checks", steps: []int64{100, 100, 3000, 100, 7000, 100, 100}, index: 1},
		// the 7 µs interruption ends at the read of the check (1 ms)
		{name: "at a check", steps: append(repeat(100, 9930), 7000, 100, 100), index: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stop atomic.Bool
			g := newGaps(time.Microsecond, 8)
			g.sa, g.who = newStopAbove(5*time.Microsecond, &stop), StopSample{Thread: 1, CPU: 3}
			reads := seq(0, c.steps...)
			first, last, _, _, stopped := spin(fakeClock(reads), 10*checkEvery, g, func(at int64) (int64, bool) { return at, stop.Load() })
			// the read that ends the 7 µs interruption
			var at, end int64
			for i, s := range c.steps {
				if s == 7000 {
					at, end = reads[i], reads[i+1]
				}
			}
			if !stopped || first != 0 || last != end || g.Count != c.index+1 || g.lens[g.n-1] != 7000 {
				t.Errorf("stopped %v, window [%d, %d], %d interruptions, last kept %d; want stopped at %d", stopped, first, last, g.Count, g.lens[g.n-1], end)
			}
			s := g.sa.result(0)
			if s == nil || s.Sample.ValueNs != 7000 || s.Sample.AtNs != at || s.Sample.Index != c.index || s.Sample.CPU != 3 || s.Sample.Thread != 1 {
				t.Errorf("stop %+v; want 7000 ns at %d, index %d", s, at, c.index)
			}
		})
	}
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// The loops stay free of allocation with a threshold set.
func TestStopAboveLoopsDoNotAllocate(t *testing.T) {
	var stop atomic.Bool
	lat := make([]int64, 100)
	w := &recordingWaiter{late: -1, deadlines: make([]int64, 0, 101*101)}
	sa := newStopAbove(time.Hour, &stop)
	if a := testing.AllocsPerRun(100, func() {
		w.deadlines = w.deadlines[:0]
		wakeLoop(w, clock.Now(), int64(time.Millisecond), len(lat), 0, lat, nil, &stop, sa, StopSample{})
	}); a != 0 {
		t.Errorf("wake loop with --stop-above allocates %.1f times per run", a)
	}
	g := newGaps(time.Microsecond, 4)
	g.sa = newStopAbove(time.Hour, &stop)
	c := int64(0)
	now := func() int64 { c += 2000; return c }
	check := func(at int64) (int64, bool) { return at, false }
	if a := testing.AllocsPerRun(10, func() { spin(now, c+10*checkEvery, g, check) }); a != 0 {
		t.Errorf("noise loop with --stop-above allocates %.1f times per run", a)
	}
}

// --stop-above is refused unless it is positive and below the run's
// length (--duration, or --loops × --interval): no sample longer than the
// run can end it early. The bounds are the run's, not a constant.
func TestStopAboveValidate(t *testing.T) {
	const ms = time.Millisecond
	wake := func(d time.Duration) error {
		return WakeOptions{Interval: ms, Duration: time.Second, StopAbove: d}.Validate()
	}
	loops := func(d time.Duration) error {
		return WakeOptions{Interval: ms, Loops: 250, Duration: time.Hour, StopAbove: d}.Validate()
	}
	noise := func(d time.Duration) error {
		return NoiseOptions{Duration: 2 * time.Second, Threshold: time.Microsecond, CPUs: []int{0}, StopAbove: d}.Validate()
	}
	for _, c := range []struct {
		name   string
		run    func(time.Duration) error
		value  time.Duration
		refuse string // "": accepted
	}{
		{"wake off", wake, 0, ""},
		{"wake 1ns", wake, 1, ""},
		{"wake just below --duration", wake, time.Second - 1, ""},
		{"wake --duration", wake, time.Second, "below the run's length, --duration 1s"},
		{"wake above --duration", wake, time.Hour, "below the run's length, --duration 1s"},
		{"wake longest", wake, math.MaxInt64, "below the run's length, --duration 1s"},
		{"wake negative", wake, -time.Microsecond, "more than 0"},
		{"loops just below their length", loops, 250*ms - 1, ""},
		{"loops their length", loops, 250 * ms, "below the run's length, 250ms (--loops 250 × --interval 1ms)"},
		{"loops --duration ignored", loops, 10 * time.Second, "below the run's length, 250ms"},
		{"noise off", noise, 0, ""},
		{"noise 1ns", noise, 1, ""},
		{"noise just below --duration", noise, 2*time.Second - 1, ""},
		{"noise --duration", noise, 2 * time.Second, "below the run's length, --duration 2s"},
		{"noise longest", noise, math.MaxInt64, "below the run's length, --duration 2s"},
		{"noise negative", noise, -time.Microsecond, "more than 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run(c.value)
			switch {
			case c.refuse == "" && err != nil:
				t.Errorf("--stop-above %d ns refused: %v", int64(c.value), err)
			case c.refuse != "" && (!errors.As(err, new(*badinput.Error)) || !strings.Contains(err.Error(), "invalid --stop-above") ||
				!strings.Contains(err.Error(), c.refuse) || strings.Contains(err.Error(), "\n")):
				t.Errorf("--stop-above %d ns: %v; want one line of bad input with %q", int64(c.value), err, c.refuse)
			}
		})
	}
}

// The documents keep the stop, and a run stopped so is not an
// interrupted one.
func TestStopAboveDocuments(t *testing.T) {
	stop := &StoppedAbove{ThresholdNs: 1000, Sample: StopSample{ValueNs: 5000, AtNs: 3e6, Thread: 0, CPU: 2, Index: 3}}
	wr := &WakeResult{Interval: time.Millisecond, Planned: 100, StoppedAbove: stop,
		Threads: []WakeThread{{Setup: ThreadSetup{CPU: 2}, Latencies: []int64{10, 20, 30, 5000}, Stopped: true}}}
	doc, err := WakeDocument(host.Facts{}, wr, timer.Status{}, errors.New("none"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := doc.Data.(*WakeData); d.StoppedAbove == nil || *d.StoppedAbove != *stop || d.Interrupted || d.MeasuredCount != 4 {
		t.Errorf("wake document: stop %+v, interrupted %v, measured %d", d.StoppedAbove, d.Interrupted, d.MeasuredCount)
	}
	wr.StoppedAbove = nil
	doc, _ = WakeDocument(host.Facts{}, wr, timer.Status{}, errors.New("none"), nil)
	if d := doc.Data.(*WakeData); d.StoppedAbove != nil || !d.Interrupted {
		t.Errorf("a wake run stopped by Ctrl-C: stop %+v, interrupted %v", d.StoppedAbove, d.Interrupted)
	}
	nt := NoiseThread{Setup: ThreadSetup{CPU: 2}, StartNs: 0, EndNs: 3e6, Stopped: true, Starts: []int64{3e6 - 5000}, Lengths: []int64{5000}}
	nt.Count, nt.TotalNs, nt.MaxNs = 1, 5000, 5000
	nr := &NoiseResult{Duration: time.Second, Threshold: time.Microsecond, StoppedAbove: stop, Threads: []NoiseThread{nt}}
	doc, err = NoiseDocument(host.Facts{}, nr)
	if err != nil {
		t.Fatal(err)
	}
	if d := doc.Data.(*NoiseData); d.StoppedAbove == nil || *d.StoppedAbove != *stop || d.Interrupted {
		t.Errorf("noise document: stop %+v, interrupted %v", d.StoppedAbove, d.Interrupted)
	}
}

// An interruption cut by the run's end does not stop the run: the run
// reached its duration, and the part in the window, however long, is
// counted as noise like any other. Only an interruption that ends
// before the end stops it (TestNoiseSpinStopsAbove).
func TestNoiseSpinCutAtEndDoesNotStop(t *testing.T) {
	for _, c := range []struct {
		name  string
		reads []int64
		end   int64
		cut   int64 // the part of the last interruption in the window
	}{
		// 100 ns reads, then a read 9 ms later: 700 ns of it in the window
		{name: "between checks", reads: seq(9_000, 100, 100, 100, 9_000_000), end: 10_000, cut: 700},
		// the end falls on a check (a window of 1 ms): 100 µs of a 5 ms
		// interruption in it
		{name: "the end on a check", reads: seq(0, append(repeat(100, 9_000), 5_000_000)...), end: checkEvery, cut: checkEvery - 900_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stop atomic.Bool
			g := newGaps(500*time.Nanosecond, 8)
			g.sa, g.who = newStopAbove(500*time.Nanosecond, &stop), StopSample{Thread: 1, CPU: 3}
			_, last, _, _, stopped := spin(fakeClock(c.reads), c.end, g, func(at int64) (int64, bool) { return at, stop.Load() })
			if stopped || last != c.end || stop.Load() {
				t.Errorf("stopped %v (stop flag %v), window ends at %d; want the run to end at %d, not stopped", stopped, stop.Load(), last, c.end)
			}
			if s := g.sa.result(0); s != nil {
				t.Errorf("stop %+v: an interruption cut by the run's end stopped a run that lasted its duration", s)
			}
			if g.Count != 1 || g.MaxNs != c.cut || g.lens[0] != c.cut {
				t.Errorf("%d interruptions, longest %d; want the cut one, %d ns, counted", g.Count, g.MaxNs, c.cut)
			}
		})
	}
}

// The last wake-up of a run is measured whole, but a run it ends anyway
// is not stopped by it: --stop-above says only that the run ended early.
// The wake-up stays in the statistics.
func TestWakeLoopLastWakeUpDoesNotStop(t *testing.T) {
	const interval = int64(time.Millisecond)
	for _, c := range []struct {
		name   string
		loops  int
		limit  time.Duration // the run's duration; 0: loops
		late   int           // the waiter's call that comes late (0: warm-up)
		lateBy int64
		n      int
	}{
		{name: "the last of --loops", loops: 3, late: 3, lateBy: 2 * interval, n: 3},
		// the run ends 25 ms after the warm-up, and the first measured
		// wake-up comes 40 ms late: past the end, so the last
		{name: "at --duration", loops: 50, limit: time.Duration(30 * interval), late: 1, lateBy: 40 * interval, n: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stop atomic.Bool
			w := &recordingWaiter{late: c.late, lateBy: c.lateBy}
			start := clock.Now() - 5*interval
			sa := newStopAbove(time.Millisecond, &stop)
			lat := make([]int64, c.loops)
			n, _, _, _, stopped, err := wakeLoop(w, start, interval, len(lat), c.limit, lat, nil, &stop, sa, StopSample{Thread: 1})
			if err != nil {
				t.Fatal(err)
			}
			if n != c.n || stopped || stop.Load() || sa.result(start) != nil {
				t.Errorf("%d wake-ups, stopped %v (stop flag %v), stop %+v; want %d, the run not stopped", n, stopped, stop.Load(), sa.result(start), c.n)
			}
			if lat[n-1] <= int64(time.Millisecond) {
				t.Errorf("the last wake-up was %d late, the test needs it above the threshold", lat[n-1])
			}
		})
	}
}
