package crossproc

import (
	"time"

	"github.com/latlab/latlab/internal/timer"
)

const requesterName = "prctl(PR_SET_TIMERSLACK) on the requester's thread"

// request sets the calling thread's timer slack (the child's own).
func request(d time.Duration) (time.Duration, func(), error) {
	req, err := timer.Set(d)
	if err != nil {
		return 0, nil, err
	}
	return req.Granted, func() { _ = req.Release() }, nil
}

// readings has nothing to add on Linux: there is no system-wide interval.
func readings() (currentNs, timeGetTimeNs int64) { return 0, 0 }

// HostFacts are the facts the verdict's wording depends on.
func HostFacts() Facts { return Facts{} }
