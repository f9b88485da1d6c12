package crossproc

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

const requesterName = "prctl(PR_SET_TIMERSLACK) on the requester's thread"

// request sets the calling thread's timer slack (the child's own).
func request(d time.Duration) (time.Duration, func(), error) {
	prev, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return 0, nil, fmt.Errorf("prctl(PR_GET_TIMERSLACK): %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d.Nanoseconds()), 0, 0, 0); err != nil {
		return 0, nil, fmt.Errorf("prctl(PR_SET_TIMERSLACK, %d): %w", d.Nanoseconds(), err)
	}
	got, _ := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	return time.Duration(got), func() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(prev), 0, 0, 0) }, nil
}

// readings has nothing to add on Linux: there is no system-wide interval.
func readings() (currentNs, timeGetTimeNs int64) { return 0, 0 }

// HostFacts are the facts the verdict's wording depends on.
func HostFacts() Facts { return Facts{} }
