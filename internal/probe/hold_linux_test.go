package probe

import (
	"errors"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"golang.org/x/sys/unix"
)

// held says whether the calling thread is held, as HoldThread leaves it:
// SIGURG blocked in its signal mask. It reads the mask with a raw system
// call, so a held loop may call it.
func held() bool {
	var cur unix.Sigset_t
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, nil, &cur); err != nil {
		return false
	}
	return cur.Val[0]&(1<<(unix.SIGURG-1)) != 0
}

// While held, the thread blocks SIGURG, the runtime's preemption signal,
// which would otherwise end a wait early; Release gives the thread its
// mask back.
func TestHoldThreadBlocksPreemptionSignal(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if held() {
		t.Fatal("SIGURG is blocked before the hold")
	}
	h := HoldThread()
	during := held()
	h.Release()
	if !during {
		t.Error("SIGURG is not blocked during the hold")
	}
	if held() {
		t.Error("SIGURG is still blocked after Release")
	}
}

// A yield lets go, goes through the scheduler (which panics on a thread
// still pinned: "schedule: holding locks"), holds again before it reads
// the clock, and starts the next period.
func TestYielderYield(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	y := Yielder{Every: int64(yieldEvery), Margin: int64(yieldMargin)} // no heartbeat: Due counts the period only
	h := HoldThread()
	heldAtNow := false
	h = y.Yield(h, func() int64 { heldAtNow = held(); return 42 })
	heldAfter := held()
	h.Release()
	if !heldAtNow || !heldAfter {
		t.Errorf("held when the yield read the clock: %v, after the yield: %v; want both", heldAtNow, heldAfter)
	}
	if held() {
		t.Error("still held after Release")
	}
	if y.last != 42 || y.Due(42+y.Every, math.MaxInt64) || !y.Due(43+y.Every, math.MaxInt64) {
		t.Errorf("after a yield at 42 the period counts from %d", y.last)
	}
}

// The timed loops wait only while their thread is held, and let it go
// however they end: the hold is what keeps the runtime from preempting
// the measuring thread mid-run and from interrupting its waits.
func TestLoopsWaitHeld(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var stop atomic.Bool
	lat := make([]int64, 5)
	cases := []struct {
		name string
		run  func(w *heldWaiter) error
	}{
		{"wake", func(w *heldWaiter) error {
			_, _, _, _, _, err := wakeLoop(w, clock.Now(), int64(time.Millisecond), len(lat), 0, lat, nil, &stop, newStopAbove(0, &stop), StopSample{})
			return err
		}},
		{"wake burst", func(w *heldWaiter) error {
			_, _, _, err := WakeBurst(w, clock.Now(), time.Millisecond, 0, lat)
			return err
		}},
		{"wake, failed wait", func(w *heldWaiter) error {
			w.fail = 3
			_, _, _, _, _, err := wakeLoop(w, clock.Now(), int64(time.Millisecond), len(lat), 0, lat, nil, &stop, newStopAbove(0, &stop), StopSample{})
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
		if held() {
			t.Fatalf("%s: the thread is held before the loop", c.name)
		}
		w := &heldWaiter{}
		err := c.run(w)
		if (w.fail > 0) != errors.Is(err, errWait) {
			t.Errorf("%s: %v", c.name, err)
		}
		if w.calls == 0 || w.unheld > 0 {
			t.Errorf("%s: %d of %d waits without the hold", c.name, w.unheld, w.calls)
		}
		if held() {
			t.Errorf("%s: the thread is still held after the loop", c.name)
		}
	}
}

// heldWaiter returns at once and notes the waits made without the hold;
// wait number fail (from 1) fails.
type heldWaiter struct {
	calls, unheld, fail int
}

func (w *heldWaiter) WaitUntil(int64) (int, error) {
	w.calls++
	if !held() {
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

// A Waiter that cannot wait through the runtime's system call path (a
// test's fake) yields through the scheduler before the wait, once per
// Plan that found a yield due.
func TestYielderWaitUntilFallsBackToYield(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w := &heldWaiter{}
	y := Yielder{Every: 10, Margin: 5}
	h := HoldThread()
	if _, err := y.WaitUntil(&h, w, 0, func() int64 { return 0 }); err != nil {
		t.Fatal(err)
	}
	y.Plan(100, math.MaxInt64) // due
	if _, err := y.WaitUntil(&h, w, 0, func() int64 { return 100 }); err != nil {
		t.Fatal(err)
	}
	yielded := y.last
	if _, err := y.WaitUntil(&h, w, 0, func() int64 { return 200 }); err != nil {
		t.Fatal(err)
	}
	h.Release()
	// A yield starts the next period at the clock it read: 100, once.
	if yielded != 100 || y.last != 100 {
		t.Errorf("the period starts at %d after the planned yield, %d after the next wait; want 100 both (one yield)", yielded, y.last)
	}
	if w.calls != 3 || w.unheld != 0 {
		t.Errorf("%d waits, %d of them without the hold; want 3, all held", w.calls, w.unheld)
	}
}
