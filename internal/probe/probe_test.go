package probe

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/sched"
)

func defaultMethod() string { return SleepMethods()[0] }

func TestSleepProbe(t *testing.T) {
	for _, d := range []time.Duration{time.Millisecond, 2 * time.Millisecond} {
		r, err := Sleep(context.Background(), SleepOptions{
			Duration: d, Samples: 20, Gap: time.Millisecond, Method: defaultMethod(),
			Thread: Thread{CPU: -1},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Slept) != 20 {
			t.Fatalf("%d samples, want 20", len(r.Slept))
		}
		if r.WarmupNs <= 0 {
			t.Errorf("warm-up sample %d", r.WarmupNs)
		}
		for _, v := range r.Slept {
			if v <= 0 {
				t.Fatalf("non-positive sample %d", v)
			}
		}
		if r.Overhead.ZeroWaitMinNs <= 0 || r.Overhead.ZeroWaitMethod == "" || r.Overhead.ClockReadMinNs < 0 ||
			r.Overhead.ZeroWaitP50Ns < r.Overhead.ZeroWaitMinNs || r.Overhead.ClockReadP50Ns < r.Overhead.ClockReadMinNs {
			t.Errorf("overhead not measured: %+v", r.Overhead)
		}
	}
}

func TestSleepProbeSkipOverhead(t *testing.T) {
	r, err := Sleep(context.Background(), SleepOptions{
		Duration: time.Millisecond, Samples: 5, Method: defaultMethod(), Thread: Thread{CPU: -1}, SkipOverhead: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Slept) != 5 {
		t.Fatalf("%d samples, want 5", len(r.Slept))
	}
	if r.Overhead != (Overhead{}) {
		t.Errorf("overhead measured although skipped: %+v", r.Overhead)
	}
}

func TestSleepProbeStopsOnCancel(t *testing.T) {
	// Cancel once a few samples arrived: a fixed timeout would race the
	// setup on a loaded machine.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := make(chan int64, 1024)
	got := make(chan int, 1)
	go func() {
		n := 0
		for range live {
			n++
			if n == 3 {
				cancel()
			}
		}
		got <- n
	}()
	r, err := Sleep(ctx, SleepOptions{Duration: time.Millisecond, Samples: 0, Method: defaultMethod(), Thread: Thread{CPU: -1}, Live: live})
	close(live)
	if err != nil {
		t.Fatal(err)
	}
	n := <-got
	if len(r.Slept) < 3 || n+r.LiveDropped != len(r.Slept) {
		t.Fatalf("%d samples, %d live, %d dropped", len(r.Slept), n, r.LiveDropped)
	}
}

func TestValidateSleep(t *testing.T) {
	bad := []SleepOptions{
		{Duration: time.Millisecond, Method: "busy"},
		{Duration: 0, Method: defaultMethod()},
		{Duration: time.Millisecond, Samples: -1, Method: defaultMethod()},
	}
	for _, o := range bad {
		if err := o.Validate(); err == nil {
			t.Errorf("accepted %+v", o)
		}
	}
}

func TestWakeProbe(t *testing.T) {
	r, err := Wake(context.Background(), WakeOptions{Interval: time.Millisecond, Loops: 200, CPUs: []int{0, -1}, Priority: sched.Normal})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Threads) != 2 {
		t.Fatalf("%d threads", len(r.Threads))
	}
	for i, th := range r.Threads {
		if len(th.Latencies) != 200 {
			t.Fatalf("thread %d: %d samples", i, len(th.Latencies))
		}
	}
	if r.Threads[0].Setup.CPU != 0 {
		t.Errorf("thread 0 not pinned: %+v", r.Threads[0].Setup)
	}
}

// Duration mode ends at the first wake-up at or past the end, and every
// deadline up to it was measured or counted as missed. How many were
// measured depends on how busy the machine is (other packages' tests run
// beside this one), so that is not judged: the accounting is.
func TestWakeDurationMode(t *testing.T) {
	const interval, d = 2 * time.Millisecond, 50 * time.Millisecond
	r, err := Wake(context.Background(), WakeOptions{Interval: interval, Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	th := r.Threads[0]
	n := int64(len(th.Latencies))
	// the deadlines the warm-up wake-up (at the start) overslept
	_, warmMissed := advance(0, th.WarmupNs, interval.Nanoseconds())
	if n > int64(d/interval)+1 || r.Elapsed < d || n+th.Overruns+warmMissed < int64(d/interval) {
		t.Fatalf("%d samples, %d missed after them and %d after the warm-up, in %s: want at most %d samples, the %d deadlines of %s accounted for",
			n, th.Overruns, warmMissed, r.Elapsed, d/interval+1, d/interval, d)
	}
}

func TestAdvance(t *testing.T) {
	cases := []struct {
		next, now, interval int64
		after, missed       int64
	}{
		{1000, 1000, 100, 1100, 0}, // on time
		{1000, 1099, 100, 1100, 0}, // late, but before the next deadline
		{1000, 1100, 100, 1200, 1}, // the next deadline is due as it wakes: missed
		{1000, 1350, 100, 1400, 3}, // 350 late: 1100, 1200, 1300 passed
		{1000, 1400, 100, 1500, 4},
		{-500, 10, 200, 100, 2}, // deadlines before the clock's zero
	}
	for _, c := range cases {
		after, missed := advance(c.next, c.now, c.interval)
		if after != c.after || missed != c.missed {
			t.Errorf("advance(%d, %d, %d) = %d, %d; want %d, %d", c.next, c.now, c.interval, after, missed, c.after, c.missed)
		}
		if after <= c.now || (after-c.next)%c.interval != 0 || (after-c.next)/c.interval != missed+1 {
			t.Errorf("advance(%d, %d, %d) = %d, %d: not the first deadline after now", c.next, c.now, c.interval, after, missed)
		}
	}
}

// recordingWaiter returns at once, except on call late, where it spins
// until lateBy past the deadline; it records every deadline asked for.
type recordingWaiter struct {
	deadlines []int64
	late      int
	lateBy    int64
}

func (w *recordingWaiter) WaitUntil(d int64) (int, error) {
	if len(w.deadlines) == w.late {
		for clock.Now() < d+w.lateBy {
		}
	}
	w.deadlines = append(w.deadlines, d)
	return 0, nil
}

func (w *recordingWaiter) Close() {}

// wakeLoop counts as overruns exactly the deadlines it skipped after
// measured wake-ups, and not those the warm-up skipped.
func TestWakeLoopCountsOverruns(t *testing.T) {
	const interval = int64(2 * time.Millisecond)
	var stop atomic.Bool
	// The warm-up (call 0) starts 10.5 periods late; the third measured
	// wake-up (call 3) is made at least 2.5 periods late.
	w := &recordingWaiter{late: 3, lateBy: 5 * interval / 2}
	start := clock.Now() - 21*interval/2
	lat := make([]int64, 6)
	n, over, _, _, stopped, _ := wakeLoop(w, start, interval, len(lat), 0, lat, nil, &stop, newStopAbove(0, &stop), StopSample{})
	if stopped {
		t.Error("a run that measured every wake-up says it was stopped")
	}
	if n != len(lat) || len(w.deadlines) != len(lat)+1 || w.deadlines[0] != start {
		t.Fatalf("%d samples, deadlines %v", n, w.deadlines)
	}
	if skippedByWarmup := (w.deadlines[1]-w.deadlines[0])/interval - 1; skippedByWarmup < 10 {
		t.Errorf("the warm-up skipped %d deadlines, want at least 10", skippedByWarmup)
	}
	var skipped int64
	for k := 1; k+1 < len(w.deadlines); k++ {
		step := w.deadlines[k+1] - w.deadlines[k]
		if step <= 0 || step%interval != 0 {
			t.Fatalf("deadlines %v are not whole periods apart", w.deadlines)
		}
		skipped += step/interval - 1
	}
	// The last measured wake-up's skips, if any, are counted but never
	// waited for: add them from its latency.
	_, lastMissed := advance(w.deadlines[len(w.deadlines)-1], w.deadlines[len(w.deadlines)-1]+lat[n-1], interval)
	if over != skipped+lastMissed {
		t.Errorf("overruns %d, but %d deadlines were skipped after measured wake-ups (%d after the last)", over, skipped+lastMissed, lastMissed)
	}
	if over < 2 || lat[2] < 5*interval/2 {
		t.Errorf("a wake-up 2.5 periods late gave latency %d and %d overruns", lat[2], over)
	}
}

func TestWakeLoopDoesNotAllocate(t *testing.T) {
	var stop atomic.Bool
	lat := make([]int64, 100)
	w := &recordingWaiter{late: -1, deadlines: make([]int64, 0, 101*101)}
	allocs := testing.AllocsPerRun(100, func() {
		w.deadlines = w.deadlines[:0]
		wakeLoop(w, clock.Now(), int64(time.Millisecond), len(lat), 0, lat, nil, &stop, newStopAbove(0, &stop), StopSample{})
	})
	if allocs != 0 {
		t.Fatalf("wake loop allocates %.1f times per run", allocs)
	}
}

func TestThreadSetupRecordsObtainedPriority(t *testing.T) {
	s := ThreadSetup{CPU: -1, Priority: "realtime", RTPrio: 80}
	s.obtained(sched.Realtime, sched.Realtime)
	if s.Priority != "realtime" || s.RTPrio != 80 || s.PriorityNote != "" {
		t.Errorf("granted as requested: %+v", s)
	}
	s.obtained(sched.Realtime, sched.High)
	if s.Priority != "high" || s.RTPrio != 0 || !strings.HasPrefix(s.PriorityNote, "priority realtime was requested, the OS gave high") {
		t.Errorf("lowered: %+v", s)
	}
}

type nopSleeper struct{}

func (nopSleeper) sleep(int64) (int, error) { return 0, nil }
func (nopSleeper) close()                   {}

func TestSleepLoopDoesNotAllocate(t *testing.T) {
	var stop atomic.Bool
	buf := newSampleBuf(100 * 101)
	o := SleepOptions{Duration: time.Millisecond, Samples: 100}
	allocs := testing.AllocsPerRun(100, func() { sleepLoop(nopSleeper{}, o, buf, &stop) })
	if allocs != 0 {
		t.Fatalf("sleep loop allocates %.1f times per run", allocs)
	}
}

func TestSampleBufChunks(t *testing.T) {
	b := newSampleBuf(0)
	for i := 0; i < chunkSamples*2+5; i++ {
		b.add(int64(i))
	}
	all := b.all()
	if len(all) != chunkSamples*2+5 || all[chunkSamples] != chunkSamples || all[len(all)-1] != int64(len(all)-1) {
		t.Fatal("chunked buffer lost order")
	}
}

func BenchmarkSampleRecord(b *testing.B) {
	// Per-sample cost of the loop's own work: two clock reads and a store
	// (the histogram is built after the run).
	buf := newSampleBuf(b.N + 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := clock.Now()
		t1 := clock.Now()
		buf.add(t1 - t0)
	}
}

// stoppingWaiter sets stop during its n-th wait, as a Ctrl-C would.
type stoppingWaiter struct {
	calls, n int
	stop     *atomic.Bool
}

func (w *stoppingWaiter) WaitUntil(int64) (int, error) {
	w.calls++
	if w.calls == w.n {
		w.stop.Store(true)
	}
	return 0, nil
}

func (w *stoppingWaiter) Close() {}

func (w *stoppingWaiter) sleep(int64) (int, error) { return w.WaitUntil(0) }
func (w *stoppingWaiter) close()                   {}

// A run stopped before its count says so; one that ends on its count or
// time limit does not.
func TestLoopsReportStop(t *testing.T) {
	var stop atomic.Bool
	w := &stoppingWaiter{n: 4, stop: &stop}
	lat := make([]int64, 100)
	n, _, _, _, stopped, _ := wakeLoop(w, clock.Now(), int64(time.Millisecond), len(lat), 0, lat, nil, &stop, newStopAbove(0, &stop), StopSample{})
	if !stopped || n != 3 {
		t.Errorf("wake stopped during wait 4: %d measured, stopped %v; want 3, true", n, stopped)
	}
	stop.Store(false)
	n, _, _, _, stopped, _ = wakeLoop(&stoppingWaiter{stop: &stop}, clock.Now(), int64(time.Millisecond), 5, 0, lat, nil, &stop, newStopAbove(0, &stop), StopSample{})
	if stopped || n != 5 {
		t.Errorf("wake of 5 loops: %d measured, stopped %v; want 5, false", n, stopped)
	}
	_, _, _, _, stopped, _ = wakeLoop(&stoppingWaiter{stop: &stop}, clock.Now()-int64(time.Second), int64(time.Millisecond), len(lat), time.Nanosecond, lat, nil, &stop, newStopAbove(0, &stop), StopSample{})
	if stopped {
		t.Error("wake past its time limit says it was stopped")
	}

	stop.Store(false)
	buf := newSampleBuf(100)
	// Waits alternate sample and gap: wait 7 is the 4th sample's (the
	// warm-up's is wait 1).
	_, _, _, stopped, _ = sleepLoop(&stoppingWaiter{n: 7, stop: &stop}, SleepOptions{Duration: time.Millisecond, Gap: time.Millisecond, Samples: 100}, buf, &stop)
	if got := len(buf.all()); !stopped || got != 3 {
		t.Errorf("sleep stopped during wait 7: %d measured, stopped %v; want 3, true", got, stopped)
	}
	stop.Store(false)
	buf = newSampleBuf(5)
	_, _, _, stopped, _ = sleepLoop(&stoppingWaiter{stop: &stop}, SleepOptions{Duration: time.Millisecond, Samples: 5}, buf, &stop)
	if stopped || len(buf.all()) != 5 {
		t.Errorf("sleep of 5 samples: %d measured, stopped %v", len(buf.all()), stopped)
	}
}

// A planned wake run counts Loops, or Duration / Interval rounded up.
func TestWakePlanned(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // measure nothing: only the bookkeeping is tested
	for _, c := range []struct {
		o    WakeOptions
		want int
	}{
		{WakeOptions{Interval: time.Millisecond, Loops: 7}, 7},
		{WakeOptions{Interval: time.Millisecond, Duration: 10 * time.Millisecond}, 10},
		{WakeOptions{Interval: 4 * time.Millisecond, Duration: 10 * time.Millisecond}, 3},
	} {
		r, err := Wake(ctx, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Planned != c.want || !r.Threads[0].Stopped {
			t.Errorf("%+v: planned %d, stopped %v; want %d, true", c.o, r.Planned, r.Threads[0].Stopped, c.want)
		}
	}
}

// failingWaiter fails its n-th wait.
type failingWaiter struct{ calls, n int }

var errWait = errors.New("SetWaitableTimer: the parameter is incorrect")

func (w *failingWaiter) WaitUntil(int64) (int, error) {
	w.calls++
	if w.calls == w.n {
		return 0, errWait
	}
	return 0, nil
}

func (w *failingWaiter) Close() {}

func (w *failingWaiter) sleep(int64) (int, error) { return w.WaitUntil(0) }
func (w *failingWaiter) close()                   {}

// A failed wait ends the loops with its error: no sample is taken after
// it, and the loop does not go on waiting.
func TestLoopsEndOnFailedWait(t *testing.T) {
	var stop atomic.Bool
	lat := make([]int64, 100)
	w := &failingWaiter{n: 4}
	n, _, _, _, stopped, err := wakeLoop(w, clock.Now(), int64(time.Millisecond), len(lat), 0, lat, nil, &stop, newStopAbove(0, &stop), StopSample{})
	if !errors.Is(err, errWait) || n != 2 || stopped || w.calls != 4 {
		t.Errorf("wake: %d measured, %d waits, stopped %v, %v; want 2, 4, false, %v", n, w.calls, stopped, err, errWait)
	}
	buf := newSampleBuf(100)
	s := &failingWaiter{n: 5}
	_, _, _, _, err = sleepLoop(s, SleepOptions{Duration: time.Millisecond, Gap: time.Millisecond, Samples: 100}, buf, &stop)
	if !errors.Is(err, errWait) || len(buf.all()) != 1 || s.calls != 5 {
		t.Errorf("sleep: %d measured, %d sleeps, %v", len(buf.all()), s.calls, err)
	}
	if _, err := WaiterOverhead(&failingWaiter{n: 3}); !errors.Is(err, errWait) {
		t.Errorf("WaiterOverhead: %v", err)
	}
	if _, err := (&Sleeper{s: &failingWaiter{n: 1}}).Overhead(); !errors.Is(err, errWait) {
		t.Errorf("Sleeper.Overhead: %v", err)
	}
}

// gapSleeper records the length of each wait and sets stop at the n-th.
type gapSleeper struct {
	waits []int64
	n     int
	stop  *atomic.Bool
}

func (s *gapSleeper) sleep(d int64) (int, error) {
	s.waits = append(s.waits, d)
	if len(s.waits) == s.n {
		s.stop.Store(true)
	}
	return 0, nil
}

func (s *gapSleeper) close() {}

// The gap between samples, which is not measured, waits in slices of at
// most gapSlice, so that a stop during an hour-long gap ends the run
// after one slice; the samples' own waits stay whole.
func TestSleepGapStopsWithinASlice(t *testing.T) {
	var stop atomic.Bool
	s := &gapSleeper{n: 5, stop: &stop}
	o := SleepOptions{Duration: 250 * time.Millisecond, Gap: time.Hour, Samples: 3}
	_, _, _, stopped, err := sleepLoop(s, o, newSampleBuf(3), &stop)
	if err != nil || !stopped {
		t.Fatalf("stopped %v, err %v", stopped, err)
	}
	// the warm-up's sleep, then gap slices until the stop
	want := []int64{int64(250 * time.Millisecond), gapSlice, gapSlice, gapSlice, gapSlice}
	if !slices.Equal(s.waits, want) {
		t.Errorf("waits %v, want %v", s.waits, want)
	}
	// A gap that is not a whole number of slices ends with the rest.
	stop.Store(false)
	s = &gapSleeper{stop: &stop}
	o = SleepOptions{Duration: time.Millisecond, Gap: 250 * time.Millisecond, Samples: 1}
	if _, _, _, _, err := sleepLoop(s, o, newSampleBuf(1), &stop); err != nil {
		t.Fatal(err)
	}
	ms := int64(time.Millisecond)
	if want := []int64{ms, gapSlice, gapSlice, 50 * ms, ms, gapSlice, gapSlice, 50 * ms}; !slices.Equal(s.waits, want) {
		t.Errorf("waits %v, want %v", s.waits, want)
	}
}
