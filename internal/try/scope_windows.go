package try

import (
	"time"

	"github.com/latlab/latlab/internal/timer"
)

// The process-scoped knob on Windows is the timer resolution request
// (NtSetTimerResolution): latlab holds the arm's request through the
// settle time and the block and releases it after; the baseline makes
// none. Since Windows 10 2004 the sleeps of the process that holds a
// request follow it and other processes' keep near the default tick
// (unless GlobalTimerResolutionRequests is set: timer.PerProcessEffect),
// so it applies to the probe, which runs in this process.
const (
	processName    = "timer-resolution"
	processExample = "0.5ms"
	processPlainNs = false
	processWhat    = "a timer resolution request of latlab's own process (NtSetTimerResolution), held through each block's settle time and block and released after it"
)

func processBaseline() (time.Duration, string, error) {
	return 0, "no request", nil
}

// hold makes the request for the block; the measuring thread asks for
// nothing more.
func hold(r time.Duration) (threadRes, granted time.Duration, release func(), err error) {
	if r == 0 {
		return 0, 0, func() {}, nil
	}
	req, err := timer.Set(r)
	if err != nil {
		return 0, 0, nil, err
	}
	return 0, req.Granted, func() { _ = req.Release() }, nil
}
