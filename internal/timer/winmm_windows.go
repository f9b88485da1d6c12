package timer

import (
	"fmt"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/clock"
)

// The multimedia timer API (winmm.dll) is what most programs use to raise
// the timer resolution: timeBeginPeriod(ms) ... timeEndPeriod(ms). It is
// what `latlab crossproc`'s child calls, as in Bruce Dawson's experiment.
var (
	winmm               = windows.NewLazySystemDLL("winmm.dll")
	procTimeBeginPeriod = winmm.NewProc("timeBeginPeriod")
	procTimeEndPeriod   = winmm.NewProc("timeEndPeriod")
	procTimeGetTime     = winmm.NewProc("timeGetTime")
)

const timerrNoError = 0

// TimeBeginPeriod requests a timer interval of ms milliseconds.
func TimeBeginPeriod(ms uint32) error {
	if err := procTimeBeginPeriod.Find(); err != nil {
		return fmt.Errorf("timeBeginPeriod: %w", err)
	}
	r, _, _ := procTimeBeginPeriod.Call(uintptr(ms))
	if r != timerrNoError {
		return fmt.Errorf("timeBeginPeriod(%d): MMRESULT %d (TIMERR_NOCANDO: out of range)", ms, r)
	}
	return nil
}

// TimeEndPeriod ends a TimeBeginPeriod request of the same ms.
func TimeEndPeriod(ms uint32) error {
	if err := procTimeEndPeriod.Find(); err != nil {
		return fmt.Errorf("timeEndPeriod: %w", err)
	}
	r, _, _ := procTimeEndPeriod.Call(uintptr(ms))
	if r != timerrNoError {
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
	if err := procTimeGetTime.Find(); err != nil {
		return 0, fmt.Errorf("timeGetTime: %w", err)
	}
	a := procTimeGetTime.Addr()
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
