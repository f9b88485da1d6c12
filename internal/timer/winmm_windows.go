package timer

import (
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/winapi"
)

// The multimedia timer API (winmm.dll) is what most programs use to raise
// the timer resolution: timeBeginPeriod(ms) ... timeEndPeriod(ms). It is
// what `latlab crossproc`'s child calls, as in Bruce Dawson's experiment.

// mmResult splits the error of a winmm call: a missing procedure
// (lookup != nil) or the MMRESULT it returned.
func mmResult(err error) (rc uint32, lookup error) {
	if e, ok := err.(syscall.Errno); ok {
		return uint32(e), nil
	}
	return 0, err
}

// TimeBeginPeriod requests a timer interval of ms milliseconds.
func TimeBeginPeriod(ms uint32) error {
	r, lookup := mmResult(winapi.TimeBeginPeriod(ms))
	if lookup != nil {
		return fmt.Errorf("timeBeginPeriod: %w", lookup)
	}
	if r != 0 {
		return fmt.Errorf("timeBeginPeriod(%d): MMRESULT %d (TIMERR_NOCANDO: out of range)", ms, r)
	}
	return nil
}

// TimeEndPeriod ends a TimeBeginPeriod request of the same ms.
func TimeEndPeriod(ms uint32) error {
	r, lookup := mmResult(winapi.TimeEndPeriod(ms))
	if lookup != nil {
		return fmt.Errorf("timeEndPeriod: %w", lookup)
	}
	if r != 0 {
		return fmt.Errorf("timeEndPeriod(%d): MMRESULT %d", ms, r)
	}
	return nil
}

// TimeGetTimeGranularity measures how often timeGetTime's value changes:
// it spins for about window reading it, and returns the median time
// (by QueryPerformanceCounter) between consecutive changes. timeGetTime
// advances with the timer interrupt the calling process is given, so this
// shows the effective interval of this process, which NtQueryTimerResolution
// (system-wide) does not. It returns 0 when fewer than two changes were
// seen in the window.
func TimeGetTimeGranularity(window time.Duration) (time.Duration, error) {
	a, err := winapi.TimeGetTimeAddr()
	if err != nil {
		return 0, fmt.Errorf("timeGetTime: %w", err)
	}
	end := clock.Now() + window.Nanoseconds()
	prev, _, _ := syscall.SyscallN(a)
	var changes []int64
	for clock.Now() < end {
		v, _, _ := syscall.SyscallN(a)
		if v != prev {
			changes = append(changes, clock.Now())
			prev = v
		}
	}
	if len(changes) < 3 {
		return 0, nil
	}
	var d []int64
	for i := 2; i < len(changes); i++ { // the first change ends a partial interval
		d = append(d, changes[i]-changes[i-1])
	}
	slices.Sort(d)
	return time.Duration(d[len(d)/2]), nil
}
