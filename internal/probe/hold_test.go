package probe

import (
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
