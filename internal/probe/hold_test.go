package probe

import (
	"errors"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/clock"
)

func TestYielderDue(t *testing.T) {
	const ms = int64(time.Millisecond)
	cases := []struct {
		name            string
		last, now, next int64
		want            bool
	}{
		{"period not over", 0, 999 * ms, 1200 * ms, false},
		{"period just at its end", 0, 1000 * ms, 1200 * ms, false},
		{"period over, deadline far", 0, 1001 * ms, 1200 * ms, true},
		{"period over, deadline at the margin", 0, 1001 * ms, 1001*ms + 200_000, false},
		{"period over, deadline just past the margin", 0, 1001 * ms, 1001*ms + 200_001, true},
		{"period over, deadline passed", 0, 1001 * ms, 1000 * ms, false},
		{"no deadline", 0, 1001 * ms, math.MaxInt64, true},
	}
	for _, c := range cases {
		y := Yielder{Every: 1000 * ms, Margin: 200_000, last: c.last}
		if got := y.Due(c.now, c.next); got != c.want {
			t.Errorf("%s: Due(%d, %d) = %v, want %v", c.name, c.now, c.next, got, c.want)
		}
	}
}

// A yield lets go, goes through the scheduler, holds again and starts
// the next period.
func TestYielderYield(t *testing.T) {
	var log []bool
	defer watchHolds(&log)()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	y := Yielder{Every: int64(yieldEvery), Margin: int64(yieldMargin)} // no heartbeat: Due counts the period only
	h := HoldThread()
	h = y.Yield(h, func() int64 { return 42 })
	h.Release()
	if want := []bool{true, false, true, false}; !equalBools(log, want) {
		t.Errorf("holds and releases %v, want %v", log, want)
	}
	if y.last != 42 || y.Due(42+y.Every, math.MaxInt64) || !y.Due(43+y.Every, math.MaxInt64) {
		t.Errorf("after a yield at 42 the period counts from %d", y.last)
	}
}

// The timed loops wait only while their thread is held, and let it go
// however they end: the hold is what keeps the runtime from preempting
// the measuring thread mid-run and from interrupting its waits.
func TestLoopsWaitHeld(t *testing.T) {
	var log []bool
	defer watchHolds(&log)()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var stop atomic.Bool
	lat := make([]int64, 5)
	cases := []struct {
		name string
		run  func(w *heldWaiter) error
	}{
		{"wake", func(w *heldWaiter) error {
			_, _, _, _, _, err := wakeLoop(w, clock.Now(), int64(time.Millisecond), len(lat), 0, lat, nil, &stop)
			return err
		}},
		{"wake burst", func(w *heldWaiter) error {
			_, _, _, err := WakeBurst(w, clock.Now(), time.Millisecond, 0, lat)
			return err
		}},
		{"wake, failed wait", func(w *heldWaiter) error {
			w.fail = 3
			_, _, _, _, _, err := wakeLoop(w, clock.Now(), int64(time.Millisecond), len(lat), 0, lat, nil, &stop)
			return err
		}},
		{"sleep", func(w *heldWaiter) error {
			_, _, _, _, err := sleepLoop(w, SleepOptions{Duration: time.Millisecond, Gap: time.Millisecond, Samples: 5}, newSampleBuf(5), &stop)
			return err
		}},
		{"sleep, failed sleep", func(w *heldWaiter) error {
			w.fail = 4
			_, _, _, _, err := sleepLoop(w, SleepOptions{Duration: time.Millisecond, Samples: 5}, newSampleBuf(5), &stop)
			return err
		}},
	}
	for _, c := range cases {
		log = log[:0]
		w := &heldWaiter{log: &log}
		err := c.run(w)
		if (w.fail > 0) != errors.Is(err, errWait) {
			t.Errorf("%s: %v", c.name, err)
		}
		if w.calls == 0 || w.unheld > 0 {
			t.Errorf("%s: %d of %d waits without the hold", c.name, w.unheld, w.calls)
		}
		if len(log) == 0 || len(log)%2 != 0 || log[len(log)-1] {
			t.Errorf("%s: holds and releases %v: not let go at the end", c.name, log)
		}
	}
}

// heldWaiter returns at once and notes the waits made without the hold;
// wait number fail (from 1) fails.
type heldWaiter struct {
	log                 *[]bool
	calls, unheld, fail int
}

func (w *heldWaiter) WaitUntil(int64) (int, error) {
	w.calls++
	if l := *w.log; len(l) == 0 || !l[len(l)-1] {
		w.unheld++
	}
	if w.calls == w.fail {
		return 0, errWait
	}
	return 0, nil
}

func (w *heldWaiter) Close()                   {}
func (w *heldWaiter) sleep(int64) (int, error) { return w.WaitUntil(0) }
func (w *heldWaiter) close()                   {}

// watchHolds logs each hold (true) and release (false) until the returned
// function is called.
func watchHolds(log *[]bool) func() {
	holdHook = func(holding bool) { *log = append(*log, holding) }
	return func() { holdHook = nil }
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// On Linux a held loop yields only when the heartbeat says the rest of
// the process waits (a stop-the-world stops the heartbeat too), not once
// per period regardless; on Windows, where nothing is held, once per
// period.
func TestYielderDueOnStaleHeartbeat(t *testing.T) {
	if !holdsThread {
		t.Skip("no heartbeat where loops do not hold their thread")
	}
	// not started: only this test sets the heartbeat (a beat left over
	// from another test's loop could refresh it at most once: try twice)
	y := Yielder{Every: int64(yieldEvery), Margin: int64(yieldMargin), beat: true}
	now := clock.Now()
	y.last = now - 2*y.Every
	heartbeat.last.Store(now)
	if y.Due(now, math.MaxInt64) {
		t.Error("yields with a fresh heartbeat")
	}
	stale := false
	for range 2 {
		heartbeat.last.Store(now - int64(beatStale) - 1)
		stale = stale || y.Due(now, math.MaxInt64)
	}
	if !stale {
		t.Error("does not yield with a stale heartbeat")
	}
	if y.Due(now, now+y.Margin) {
		t.Error("yields with the next deadline within the margin")
	}
}

// A stop-the-world (here the collector's) gets through a loop that holds
// its thread and yields when its Yielder says so: the heartbeat stops with
// the world, and the loop lets go.
func TestHeldLoopLetsAStopTheWorldThrough(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	var stop atomic.Bool
	yields := make(chan int, 1)
	held := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		y := NewYielder(clock.Now())
		defer y.Stop()
		y.Every = 0
		h := HoldThread()
		close(held)
		n := 0
		for !stop.Load() {
			if y.Due(clock.Now(), math.MaxInt64) {
				h = y.Yield(h, clock.Now)
				n++
			}
		}
		h.Release()
		yields <- n
	}()
	<-held
	runtime.GC() // stops the world: returns once the loop let go
	stop.Store(true)
	if n := <-yields; n == 0 {
		t.Error("the collector finished without the held loop letting go")
	}
}

// A loop that waits with Yielder.WaitUntil lets a stop-the-world through
// on the wait after Plan found a yield due: on Linux the wait is then a
// system call the runtime sees, during which the collector takes the P.
func TestWaitingLoopLetsAStopTheWorldThrough(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	var stop atomic.Bool
	errs := make(chan error, 1)
	held := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		w, err := NewWaiter()
		if err != nil {
			close(held)
			errs <- err
			return
		}
		defer w.Close()
		y := NewYielder(clock.Now())
		defer y.Stop()
		y.Every = 0
		h := HoldThread()
		close(held)
		for !stop.Load() {
			if _, err = y.WaitUntil(&h, w, clock.Now()+int64(time.Millisecond), clock.Now); err != nil {
				break
			}
			y.Plan(clock.Now(), math.MaxInt64)
		}
		h.Release()
		errs <- err
	}()
	<-held
	runtime.GC() // stops the world: returns once the loop let go
	stop.Store(true)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// A Waiter that cannot wait through the runtime's system call path (a
// test's fake) yields through the scheduler before the wait, once per
// Plan that found a yield due.
func TestYielderWaitUntilFallsBackToYield(t *testing.T) {
	var log []bool
	defer watchHolds(&log)()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w := &heldWaiter{log: &log}
	y := Yielder{Every: 10, Margin: 5}
	h := HoldThread()
	if _, err := y.WaitUntil(&h, w, 0, func() int64 { return 0 }); err != nil {
		t.Fatal(err)
	}
	y.Plan(100, math.MaxInt64) // due
	if _, err := y.WaitUntil(&h, w, 0, func() int64 { return 100 }); err != nil {
		t.Fatal(err)
	}
	if _, err := y.WaitUntil(&h, w, 0, func() int64 { return 100 }); err != nil {
		t.Fatal(err)
	}
	h.Release()
	if want := []bool{true, false, true, false}; !equalBools(log, want) {
		t.Errorf("holds and releases %v, want %v (one yield)", log, want)
	}
	if w.calls != 3 || w.unheld != 0 {
		t.Errorf("%d waits, %d of them without the hold; want 3, all held", w.calls, w.unheld)
	}
}
