package probe

import (
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/clock"
)

// fakeTimerCalls stands in for SetWaitableTimer and WaitForSingleObject
// on a simulated clock: a set timer fires at the due time plus early
// (negative: before it), and a wait moves the clock there.
type fakeTimerCalls struct {
	now    int64
	early  int64 // how far before its due time the first wait ends
	setErr error
	result uint32
	dues   []int64
	waits  []uint32
	fireAt int64
}

func (f *fakeTimerCalls) timer() *hrTimer {
	return &hrTimer{
		set: func(_ windows.Handle, due *int64) error {
			f.dues = append(f.dues, *due)
			if f.setErr != nil {
				return f.setErr
			}
			f.fireAt = f.now - *due*100
			return nil
		},
		wait: func(_ windows.Handle, ms uint32) (uint32, error) {
			f.waits = append(f.waits, ms)
			if f.result == waitFailed {
				return waitFailed, windows.ERROR_INVALID_HANDLE
			}
			if f.result != waitObject0 {
				return f.result, nil
			}
			f.now = f.fireAt - f.early
			f.early = 0
			return waitObject0, nil
		},
	}
}

func (f *fakeTimerCalls) clock() int64 { return f.now }

// Every due time is relative (negative, 100 ns units) and long enough,
// computed from the clock just before the call, for deadlines ahead,
// just ahead and passed; no wait is INFINITE, and none ends before the
// deadline.
func TestHRTimerDueTimes(t *testing.T) {
	for _, c := range []struct {
		now, deadline int64
		want          int64 // the due time SetWaitableTimer must see
	}{
		{1_000_000, 3_000_000, -20_000},   // 2 ms ahead
		{1_000_000, 1_000_050, -1},        // 50 ns ahead: one unit
		{1_000_000, 1_000_101, -2},        // rounded up, never down
		{1_000_000, 999_000, -1},          // passed: the shortest relative wait
		{1_000_000, 60_001_000_000, -6e8}, // a minute ahead
	} {
		f := &fakeTimerCalls{now: c.now}
		if err := f.timer().waitUntil(c.deadline, f.clock); err != nil {
			t.Fatalf("deadline %d at %d: %v", c.deadline, c.now, err)
		}
		if len(f.dues) != 1 || f.dues[0] != c.want {
			t.Errorf("deadline %d at %d: due times %v, want [%d]", c.deadline, c.now, f.dues, c.want)
		}
		for _, ms := range f.waits {
			if ms == 0xFFFFFFFF { // INFINITE
				t.Errorf("deadline %d at %d: an INFINITE wait", c.deadline, c.now)
			}
			if int64(ms)*1e6 < c.deadline-c.now {
				t.Errorf("deadline %d at %d: the wait gives up after %d ms, before the due time", c.deadline, c.now, ms)
			}
		}
		if f.now < c.deadline {
			t.Errorf("deadline %d: woke at %d, early", c.deadline, f.now)
		}
	}
}

// A timer that fires before the deadline (its clock is not QPC) is set
// again, relative again, for what is left.
func TestHRTimerEarlyFireWaitsAgain(t *testing.T) {
	f := &fakeTimerCalls{now: 0, early: 30_000}
	if err := f.timer().waitUntil(1_000_000, f.clock); err != nil {
		t.Fatal(err)
	}
	if len(f.dues) != 2 || f.dues[0] != -10_000 || f.dues[1] != -300 {
		t.Errorf("due times %v, want [-10000 -300]", f.dues)
	}
	if f.now < 1_000_000 {
		t.Errorf("woke at %d, before the deadline", f.now)
	}
}

// A SetWaitableTimer that fails is an error naming the call and the
// Windows error, at once: the wait is never reached, so nothing hangs.
func TestHRTimerSetFailureIsAnError(t *testing.T) {
	f := &fakeTimerCalls{setErr: windows.ERROR_INVALID_PARAMETER}
	tm := f.timer()
	tm.wait = func(windows.Handle, uint32) (uint32, error) {
		t.Fatal("waited on a timer that was not set")
		return 0, nil
	}
	done := make(chan error, 1)
	go func() { done <- tm.waitUntil(5_000_000, f.clock) }()
	select {
	case err := <-done:
		if !errors.Is(err, windows.ERROR_INVALID_PARAMETER) || !strings.HasPrefix(err.Error(), "SetWaitableTimer(") || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q: want one line starting SetWaitableTimer( and wrapping ERROR_INVALID_PARAMETER", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a failed SetWaitableTimer hung the wait")
	}
}

// A wait that fails or times out is an error naming WaitForSingleObject.
func TestHRTimerWaitFailures(t *testing.T) {
	for _, c := range []struct {
		result uint32
		want   string
	}{
		{waitFailed, "WaitForSingleObject(high-resolution timer): " + windows.ERROR_INVALID_HANDLE.Error()},
		{0x102, "WaitForSingleObject(high-resolution timer): not signalled 5s after its due time (10000000 ns)"}, // WAIT_TIMEOUT
		{0x80, "WaitForSingleObject(high-resolution timer): unexpected result 0x80"},                             // WAIT_ABANDONED
	} {
		f := &fakeTimerCalls{result: c.result}
		err := f.timer().waitUntil(10_000_000, f.clock)
		if err == nil || err.Error() != c.want {
			t.Errorf("result %#x: error %v, want %q", c.result, err, c.want)
		}
	}
}

// The real timer, under Wine or Windows: a wait ends at or after its
// deadline, without error, and the handle is released once.
func TestWaiterWaitsUntilDeadline(t *testing.T) {
	w, err := NewWaiter()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, ahead := range []time.Duration{-time.Millisecond, 0, 500 * time.Microsecond, 3 * time.Millisecond} {
		deadline := clock.Now() + int64(ahead)
		if _, err := w.WaitUntil(deadline); err != nil {
			t.Fatalf("WaitUntil(now%+v): %v", ahead, err)
		}
		if now := clock.Now(); now < deadline {
			t.Errorf("WaitUntil(now%+v) returned %d ns early", ahead, deadline-now)
		}
	}
}
